"""Bhat, Prasanna and Raghavendra's greedy rounds and open-shop list schedule (seed 004, sections 3.2-3.3).

Both work on the synchronous cost matrix ``C[i, j] = o_s + L + o_r + m/B``
(:class:`~collsched.algorithms.orderings.costs.Exchange`) and return, per
sender, the order of its receivers.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings.costs import overhead_platform
>>> p = overhead_platform([1, 10, 1, 10])
>>> c = cs.AllToAll(senders=p.hosts, size=1)
>>> s = open_shop(p, c)
>>> cs.validate(p, c, s)
>>> r = cs.simulate(p, s, model=cs.models.OnePort(cost="overheads"))
>>> round(r.makespan / s.bound.value - 1, 3)
0.067
"""

from __future__ import annotations

import numpy as np

from ...schedules import OrderSchedule
from ..registry import register
from .common import check_seed, order_schedule
from .costs import exchange_of

__all__ = ["greedy", "open_shop", "greedy_rounds", "open_shop_orders"]

_KINDS = ("alltoall", "alltomany")


def greedy_rounds(cost: np.ndarray, mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """The greedy algorithm's rounds, as ``(sender, receiver)`` index pairs.

    Parameters
    ----------
    cost : ndarray, shape (S, R)
    mask : ndarray of bool, shape (S, R)
        The messages to send.

    Returns
    -------
    list of list of (int, int)
        One list per round; within a round no receiver appears twice.

    Notes
    -----
    Step 1: each sender orders its receivers by decreasing cost. Step 2:
    in each round the senders pick in turn the first receiver of their list
    that they have not sent to and that no earlier sender picked this
    round. Step 3: a sender that found none is idle and picks first in the
    next round; if none was idle, the last sender picks first. O(P^3).

    Examples
    --------
    >>> c = np.array([[0, 3, 1], [2, 0, 5], [4, 1, 0]])
    >>> greedy_rounds(c, c > 0)
    [[(0, 1), (1, 2), (2, 0)], [(2, 1), (0, 2), (1, 0)]]
    """
    S = cost.shape[0]
    # step 1: per sender, receivers by decreasing cost (stable: lower index first on ties)
    lists = [[int(j) for j in np.argsort(-cost[i], kind="stable") if mask[i, j]] for i in range(S)]
    order = list(range(S))
    rounds = []
    while any(lists):
        taken: set[int] = set()
        picks, idle = [], []
        for i in order:  # step 2
            choice = next((j for j in lists[i] if j not in taken), None)
            if choice is None:
                if lists[i]:
                    idle.append(i)
                continue
            taken.add(choice)
            lists[i].remove(choice)
            picks.append((i, choice))
        rounds.append(picks)
        # step 3: idle senders first; else the last sender first
        if idle:
            order = idle + [i for i in order if i not in idle]
        else:
            order = order[-1:] + order[:-1]
    return rounds


def open_shop_orders(cost: np.ndarray, mask: np.ndarray, seed: int = 0) -> tuple[list[list[int]], float]:
    """The open-shop list schedule: per sender its receivers in sending order, and the planned makespan.

    Parameters
    ----------
    cost : ndarray, shape (S, R)
    mask : ndarray of bool, shape (S, R)
    seed : int
        Breaks ties between senders free at the same time (at random, as seed 004 says).

    Returns
    -------
    orders : list of list of int
    makespan : float
        Of the planned (synchronous, dense) schedule.

    Notes
    -----
    Step 1: take the sender that is free earliest (ties at random). Step 2:
    among its remaining receivers, take the one free earliest (ties: the
    lowest index); the message starts at the later of the two free times
    (the sender sits idle while every receiver is busy). Step 3: update
    both free times. P^2 messages, O(P) each: O(P^3). The Rust core
    (``collsched._core.open_shop_orders``) runs the same loop.

    Examples
    --------
    >>> c = np.array([[0, 2, 2], [2, 0, 2], [2, 2, 0]], float)
    >>> orders, makespan = open_shop_orders(c, c > 0)
    >>> makespan
    4.0
    """
    try:
        from ..._core import open_shop_orders as core
    except ImportError:  # pragma: no cover - the extension is always built in tests
        core = None
    if core is not None:
        prio = np.random.default_rng(seed).permutation(cost.shape[0]).astype(np.int64)
        orders, makespan = core(np.ascontiguousarray(cost, dtype=float), np.ascontiguousarray(mask, dtype=bool), prio)
        return [list(o) for o in orders], float(makespan)
    return _open_shop_python(cost, mask, seed)


def _open_shop_python(cost, mask, seed):
    """Reference implementation of :func:`open_shop_orders` (same ties as the Rust core only without ties)."""
    S, R = cost.shape
    rng = np.random.default_rng(seed)
    prio = rng.permutation(S)
    send_free, recv_free = np.zeros(S), np.zeros(R)
    left = [[j for j in range(R) if mask[i, j]] for i in range(S)]
    orders: list[list[int]] = [[] for _ in range(S)]
    makespan = 0.0
    active = [i for i in range(S) if left[i]]
    while active:
        i = min(active, key=lambda a: (send_free[a], prio[a]))          # step 1
        j = min(left[i], key=lambda b: (recv_free[b], b))                # step 2
        start = max(send_free[i], recv_free[j])
        send_free[i] = recv_free[j] = start + cost[i, j]                 # step 3
        makespan = max(makespan, start + cost[i, j])
        left[i].remove(j)
        orders[i].append(j)
        if not left[i]:
            active.remove(i)
    return orders, float(makespan)


@register("greedy", family="orderings", kinds=_KINDS, series=False,
          summary="greedy rounds: senders pick their costliest free receiver (Bhat et al.)")
def greedy(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """Greedy rounds of Bhat, Prasanna and Raghavendra, as per-sender orders.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Unused (deterministic); checked.

    Returns
    -------
    OrderSchedule
        Each sender's receivers in the order of the rounds it sends in.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    P. B. Bhat, V. K. Prasanna, C. S. Raghavendra, "Adaptive communication
    algorithms for distributed heterogeneous systems", HPDC 1998,
    doi:10.1109/HPDC.1998.709962; as described by L.-R. Chen, P. Liu (seed 004), section 3.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 5, 10])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> dict(greedy(p, c).orders)
    {'h0': ('h2', 'h1'), 'h1': ('h0', 'h2'), 'h2': ('h1', 'h0')}
    """
    check_seed(seed)
    x = exchange_of(platform, collective)
    orders: list[list[int]] = [[] for _ in x.senders]
    rounds = greedy_rounds(x.cost, x.mask)
    for rnd in rounds:
        for i, j in rnd:
            orders[i].append(j)
    return order_schedule(x, orders, "greedy", platform, collective, {"seed": seed},
                          message=f"{len(rounds)} rounds")


@register("open_shop", family="orderings", kinds=_KINDS, series=False,
          summary="open-shop list schedule: earliest free sender to its earliest free receiver (Bhat et al.)")
def open_shop(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """The open-shop list schedule (a dense schedule: at most twice the open-shop bound).

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Breaks ties between senders free at the same time.

    Returns
    -------
    OrderSchedule
        Its ``message`` gives the planned synchronous makespan.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    Notes
    -----
    A dense (greedy) open-shop schedule never leaves a sender and one of its
    receivers idle together, so its makespan is at most twice the
    open-shop bound (Shmoys, Stein and Wein 1994; Gonzalez and Sahni 1976):
    the best non-preemptive guarantee known for this list rule.

    References
    ----------
    P. B. Bhat, V. K. Prasanna, C. S. Raghavendra, "Adaptive communication
    algorithms for distributed heterogeneous systems", HPDC 1998,
    doi:10.1109/HPDC.1998.709962; as described by L.-R. Chen, P. Liu (seed 004), section 3.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 5, 10, 5])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> s = open_shop(p, c, seed=0)
    >>> cs.validate(p, c, s)
    >>> s.message.startswith("planned makespan")
    True
    """
    x = exchange_of(platform, collective)
    orders, makespan = open_shop_orders(x.cost, x.mask, check_seed(seed))
    return order_schedule(x, orders, "open_shop", platform, collective, {"seed": seed},
                          message=f"planned makespan {makespan:.6g}")
