"""Seed 004's own synchronous simulator (section 4.2.2), with the service discipline as an option.

The paper simulates a synchronous exchange with two arrays, ``sendavail``
and ``recvavail``, and an event loop: "find the sender that can
participate in future send operation at the earliest time. If the receiver
that the sender wants to send a message is busy, the sender sits idle ...
If the receiver ... is idle, the message is scheduled." and "If there are
two or more senders that can participate in future send operation at the
earliest time, we select any of them at random." It does not say in which
order a busy receiver serves the senders that sit idle waiting for it. Two
readings, both executed here on per-sender receiver orders:

* ``service="fifo"``: the earliest-free sender waits for its receiver and
  is served before any sender that became free later (a queue per
  receiver, in order of the senders' free times; equal times at random).
  Each message starts at ``max(sendavail[i], recvavail[j])``. This is what
  :class:`collsched.models.OnePort` (``sync=True, cost="overheads"``)
  computes: its engine serves waiting stages by earliest eligible time.
* ``service="random"``: the text's event loop taken literally. A sender
  whose receiver is busy sits idle until the receiver frees; then every
  sender waiting for it "can participate at the earliest time", and one of
  them is drawn at random; the others sit idle again. Each message starts
  as early as possible, and a busy receiver serves its waiting senders in
  random order.

Why a simulator of its own rather than an option of ``OnePort``: the
engine's arbitration (earliest eligible time, then a fixed per-activity
tie) lives in the Rust core, which this study does not own; the paper's
simulator only ever runs per-sender orders of one exchange, which is all
this module executes. ``service="fifo"`` is checked against ``OnePort`` in
the tests (equal makespans on instances without ties), so the two readings
differ by their discipline only.

Examples
--------
Three senders want ``h3`` (receive overhead 1); ``h1`` and ``h2`` first
send elsewhere and then wait for ``h3``, which ``h0`` holds until 12.
Under ``fifo``, ``h1`` (free at 4) goes before ``h2`` (free at 8); under
``random`` either may go first:

>>> import collsched as cs
>>> from collsched.algorithms.orderings import overhead_platform
>>> from collsched.algorithms.orderings.costs import Exchange
>>> p = overhead_platform([10, 2, 6, 1, 1, 1], latency=1.0)
>>> c = cs.AllToMany({("h0", "h3"): 1, ("h1", "h4"): 1, ("h1", "h3"): 1, ("h1", "h5"): 1,
...                   ("h2", "h5"): 1, ("h2", "h3"): 1})
>>> x = Exchange.of(p, c)
>>> orders = [[x.receivers.index(r) for r in rs] for rs in (["h3"], ["h4", "h3", "h5"], ["h5", "h3"])]
>>> round(simulate_orders(x, orders, service="fifo", seed=0), 9)
24.0
>>> sorted({round(simulate_orders(x, orders, service="random", seed=k), 9) for k in range(20)})
[24.0, 28.0]
"""

from __future__ import annotations

import heapq

import numpy as np

from ..algorithms.orderings.costs import Exchange
from ..schedules import OrderSchedule, StepSchedule

__all__ = ["SERVICES", "simulate_orders", "sender_orders"]

SERVICES = ("fifo", "random")


def sender_orders(x: Exchange, schedule) -> list[list[int]]:
    """Each sender's receivers (indices into ``x.receivers``) in the order ``schedule`` sends them.

    Parameters
    ----------
    x : Exchange
    schedule : OrderSchedule or StepSchedule
        A step schedule gives each sender its transfers step after step
        (what ``lower(sync="post_all")`` executes).

    Returns
    -------
    list of list of int
        One list per sender of ``x``.

    Raises
    ------
    ValueError
        If the schedule is of another shape.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings import overhead_platform
    >>> p = overhead_platform([1, 1, 1])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> sender_orders(Exchange.of(p, c), cs.plan(p, c, algorithm="caterpillar"))
    [[1, 2], [2, 0], [0, 1]]
    """
    si = {h: i for i, h in enumerate(x.senders)}
    ri = {h: j for j, h in enumerate(x.receivers)}
    out: list[list[int]] = [[] for _ in x.senders]
    if isinstance(schedule, OrderSchedule):
        for s, dests in schedule.orders.items():
            out[si[s]] = [ri[d] for d in dests]
    elif isinstance(schedule, StepSchedule):
        for step in schedule.steps:
            for t in step:
                out[si[t.src]].append(ri[t.dst])
    else:
        raise ValueError(f"sender_orders takes an OrderSchedule or a StepSchedule, not {type(schedule).__name__}")
    return out


def simulate_orders(x: Exchange, orders, *, service: str = "fifo", seed: int = 0) -> float:
    """Makespan of seed 004's synchronous model when each sender follows its order, under a service discipline.

    Parameters
    ----------
    x : Exchange
        Its synchronous cost ``x.cost[i, j] = o_s + L + o_r + m/B`` holds
        sender ``i`` and receiver ``j`` together.
    orders : sequence of sequence of int
        Per sender, receiver indices in sending order.
    service : {"fifo", "random"}
        How a busy receiver serves the senders waiting for it (see the module).
    seed : int
        Seeds the draws between senders free at the same time.

    Returns
    -------
    float
        The completion time of the last message.

    Raises
    ------
    ValueError
        If ``service`` is not one of :data:`SERVICES`.

    Notes
    -----
    An event loop over a heap of ``(sendavail, draw)``: each pop is a
    sender at its free time; ``fifo`` books its receiver at once (a queue in
    pop order); ``random`` schedules the message only if the receiver is
    free, else pushes the sender back at the receiver's free time with a new
    draw. ``fifo``: O(M log S) for M messages and S senders; ``random``: a
    waiting sender is woken once per message its receiver serves, so up to
    O(M S log S) when all senders queue on one receiver.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings import overhead_platform
    >>> p = overhead_platform([1, 5, 10])
    >>> x = Exchange.of(p, cs.AllToAll(senders=p.hosts, size=1))
    >>> simulate_orders(x, [[1, 2], [2, 0], [0, 1]], service="random")
    28.0
    >>> simulate_orders(x, [[1, 2], [2, 0], [0, 1]], service="lifo")
    Traceback (most recent call last):
    ...
    ValueError: simulate_orders option service='lifo' is not one of ('fifo', 'random')
    """
    if service not in SERVICES:
        raise ValueError(f"simulate_orders option service={service!r} is not one of {SERVICES}")
    rng = np.random.default_rng(seed)
    cost = x.cost
    recvavail = np.zeros(len(x.receivers))
    nxt = [0] * len(orders)
    heap = [(0.0, float(d), i) for i, d in zip(range(len(orders)), rng.random(len(orders))) if len(orders[i])]
    heapq.heapify(heap)
    makespan = 0.0
    fifo = service == "fifo"
    while heap:
        t, _, i = heapq.heappop(heap)
        j = orders[i][nxt[i]]
        if not fifo and recvavail[j] > t:
            # the receiver is busy: the sender sits idle until it frees, then draws again
            heapq.heappush(heap, (float(recvavail[j]), float(rng.random()), i))
            continue
        start = max(t, float(recvavail[j]))
        end = start + float(cost[i, j])
        recvavail[j] = end
        makespan = max(makespan, end)
        nxt[i] += 1
        if nxt[i] < len(orders[i]):
            heapq.heappush(heap, (end, float(rng.random()), i))
    return makespan
