"""Orderings planned for the asynchronous model: a list schedule on its costs, and an exact MILP for small exchanges.

Every other ordering plans on the synchronous cost matrix (both ports held
for ``o_s + L + o_r + m/B``). Under seed 004's asynchronous model (section
4.1) a sender is free after ``o_s`` and only receivers serialise, so the
order that is good is a different one. On 5 nodes with send overheads
``[10, 1, 5, 1, 10]``, receive overheads ``[1, 10, 5, 10, 1]`` and latency
1, the synchronous-planned orderings finish at 46 to 51 while 42, the
asynchronous open-shop bound, is reachable; both functions here reach it.

The asynchronous makespan of per-sender orders has a closed form. A
sender never waits (its sends hold only its own port), so its ``k``-th
message (``k = 0, 1, ...``) leaves at ``k o_s`` and reaches receiver ``j``
at ``r = (k + 1) o_s + L``. A receiver serves arrived messages one at a
time without idling while one waits (``OnePort(sync=False)`` serves the
earliest arrival first), so it finishes at ``max_t (t + sum of o_r + m/B
over its messages arriving at or after t)``, whatever order it serves
equal arrivals in. The order of a sender thus only decides which of its
fixed arrival *slots* goes to which receiver.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings.costs import overhead_platform
>>> p = overhead_platform([10, 1, 5, 1, 10], recv_overheads=[1, 10, 5, 10, 1])
>>> c = cs.AllToAll(senders=p.hosts, size=1)
>>> asyn = cs.models.OnePort(sync=False, cost="overheads")
>>> for name in ("open_shop", "open_shop_async", "async_optimal"):
...     s = cs.plan(p, c, algorithm=name)
...     print(name, round(cs.simulate(p, s, model=asyn).makespan, 9))
open_shop 51.0
open_shop_async 42.0
async_optimal 42.0
"""

from __future__ import annotations

import numpy as np

from ...schedules import OrderSchedule, Status
from ..registry import register
from .common import check_seed
from .costs import Exchange, exchange_of

__all__ = ["async_makespan", "async_list_orders", "async_optimal_orders", "open_shop_async", "async_optimal"]

_KINDS = ("alltoall", "alltomany")


def _send_time(x: Exchange) -> np.ndarray:
    """Per sender, its send overhead ``o_s`` (the same for all its messages)."""
    return np.where(x.mask, x.send, 0.0).max(axis=1, initial=0.0)


def async_makespan(x: Exchange, orders) -> float:
    """The asynchronous makespan of per-sender orders, in closed form.

    Parameters
    ----------
    x : Exchange
    orders : sequence of sequence of int
        Per sender, its receivers (indices into ``x.receivers``) in sending order.

    Returns
    -------
    float
        What ``OnePort(sync=False, cost="overheads")`` (or ``cost="linear"``
        on an exchange built with ``overheads=False``) simulates for these orders.

    Notes
    -----
    Per receiver, its messages' arrivals ``r`` and receive times ``p``; the
    finish time of a receiver that never idles while a message waits is
    ``max_t (t + sum_{r >= t} p)`` over its arrivals ``t``. O(M log M) for
    M messages.

    Examples
    --------
    Seed 004's Figure 5 (all overheads 2, latency 1): one sender, three receivers:

    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([2, 2, 2, 2])
    >>> x = Exchange.of(p, cs.AllToAll(senders=["h0"], receivers=["h1", "h2", "h3"], size=1))
    >>> round(async_makespan(x, [[0, 1, 2]]), 9)
    9.0
    """
    o_s = _send_time(x)
    arrivals: list[list[tuple[float, float]]] = [[] for _ in x.receivers]
    for i, row in enumerate(orders):
        for k, j in enumerate(row):
            arrivals[j].append(((k + 1) * o_s[i] + x.latency[i, j], x.recv[i, j]))
    finish = 0.0
    for msgs in arrivals:
        msgs.sort(reverse=True)
        tail = 0.0
        for r, p in msgs:                   # latest arrival first: tail = work arriving at or after r
            tail += p
            finish = max(finish, r + tail)
    return float(finish)


def async_list_orders(x: Exchange) -> list[list[int]]:
    """The asynchronous list schedule: each send slot, earliest first, feeds the receiver with the most work left.

    Parameters
    ----------
    x : Exchange

    Returns
    -------
    list of list of int
        Per sender, its receivers in sending order.

    Notes
    -----
    Step 1: the send slots of every sender, ``k o_s`` for ``k = 0, 1, ...``,
    taken in order of the time they end (ties: lower sender index). Step 2:
    the slot's sender picks, among its receivers not yet served, the one
    with the most receive time ``W_j`` still to place (the sum of
    ``o_r + m/B`` over its messages not yet given a slot; ties: lower
    index): receivers that are the bottleneck are fed early, so they start
    soon and never starve. Step 3: ``W_j -= o_r + m/B``. O(M R) for M
    messages and R receivers. A heuristic: it may miss the optimum
    (``async_optimal`` finds it). Tried and measured worse: feeding the
    receiver whose projected finish ``max(free_j, arrival) + W_j`` is
    largest (1-4% above the bound in seed 004's all-to-all at N = 30,
    against 0-0.3% for this rule).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([10, 1, 5, 1, 10], recv_overheads=[1, 10, 5, 10, 1])
    >>> async_list_orders(Exchange.of(p, cs.AllToAll(senders=p.hosts, size=1)))
    [[3, 1, 2, 4], [3, 2, 0, 4], [1, 3, 0, 4], [1, 2, 4, 0], [1, 3, 2, 0]]
    """
    o_s = _send_time(x)
    left = x.mask.copy()
    work = np.where(x.mask, x.recv, 0.0).sum(axis=0)        # receive time not yet placed, per receiver
    counts = x.mask.sum(axis=1)
    # step 1: every slot (end time, sender, k), earliest end first
    slots = sorted(((k + 1) * o_s[i], i, k) for i in range(len(x.senders)) for k in range(int(counts[i])))
    orders: list[list[int]] = [[] for _ in x.senders]
    for _, i, _ in slots:
        cand = np.flatnonzero(left[i])
        # step 2: the receiver with the most receive time still to place
        j = int(cand[int(np.argmax(work[cand]))])
        # step 3
        work[j] -= x.recv[i, j]
        left[i, j] = False
        orders[i].append(j)
    return orders


def async_optimal_orders(x: Exchange, *, time_limit: float = 30.0) -> tuple[list[list[int]], float, bool, str]:
    """Per-sender orders of least asynchronous makespan, by a mixed-integer program (HiGHS, through scipy).

    Parameters
    ----------
    x : Exchange
    time_limit : float
        Seconds given to the solver.

    Returns
    -------
    orders : list of list of int
    makespan : float
        :func:`async_makespan` of ``orders`` (recomputed, not the solver's objective).
    optimal : bool
        The solver proved it optimal (within its 1e-9 relative gap).
    message : str
        The solver's own words.

    Notes
    -----
    Variables ``y[i, k, j] = 1`` when sender ``i``'s slot ``k`` (arrival
    ``r_ikj = (k + 1) o_s(i) + L_ij``) carries its message to ``j``; each
    slot carries one message and each message takes one slot. Makespan
    ``T >= t w_jt + sum_{r_ikj >= t} p_ij y[i, k, j]`` for every receiver
    ``j`` and arrival value ``t``, where ``w_jt`` (in [0, 1]) is forced to 1
    by any message of ``j`` arriving at or after ``t`` (``w_jt >= y``,
    ``w_jt >= w_jt'`` for ``t' > t``): the work-conserving finish time of
    the receiver. Minimise ``T``. Size: ``sum_i n_i^2`` binaries; exact
    within seconds up to a few hundred (7-8 nodes in an all-to-all).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([10, 1, 5, 1, 10], recv_overheads=[1, 10, 5, 10, 1])
    >>> orders, makespan, optimal, _ = async_optimal_orders(Exchange.of(p, cs.AllToAll(senders=p.hosts, size=1)))
    >>> round(makespan, 9), optimal
    (42.0, True)
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_array

    o_s = _send_time(x)
    # the variables: (i, k, j) for every slot k of sender i and every receiver j it sends to
    index, release, weight, rec = [], [], [], []
    for i in range(len(x.senders)):
        dests = np.flatnonzero(x.mask[i])
        for k in range(len(dests)):
            for j in dests:
                index.append((i, k, int(j)))
                release.append((k + 1) * o_s[i] + x.latency[i, j])
                weight.append(x.recv[i, j])
                rec.append(int(j))
    n_y = len(index)
    release, weight, rec = np.array(release), np.array(weight), np.array(rec)
    thresholds = [(j, t) for j in range(len(x.receivers)) for t in np.unique(release[rec == j])]
    n_w = len(thresholds)
    T = n_y + n_w                                     # the makespan's column
    rows, cols, vals, lo, hi = [], [], [], [], []

    def add(entries, low, high):
        r = len(lo)
        for c, v in entries:
            rows.append(r)
            cols.append(c)
            vals.append(v)
        lo.append(low)
        hi.append(high)

    # each slot carries one message, each message takes one slot
    by_slot: dict[tuple[int, int], list[int]] = {}
    by_msg: dict[tuple[int, int], list[int]] = {}
    for v, (i, k, j) in enumerate(index):
        by_slot.setdefault((i, k), []).append(v)
        by_msg.setdefault((i, j), []).append(v)
    for group in (*by_slot.values(), *by_msg.values()):
        add([(v, 1.0) for v in group], 1.0, 1.0)
    # receiver finish: T - t w_jt - sum_{r >= t} p y >= 0; w_jt >= y for r == t; w_jt >= w_jt' (next t)
    for w, (j, t) in enumerate(thresholds):
        later = np.flatnonzero((rec == j) & (release >= t))
        add([(T, 1.0), (n_y + w, -t)] + [(int(v), -weight[v]) for v in later], 0.0, np.inf)
        for v in np.flatnonzero((rec == j) & (release == t)):
            add([(n_y + w, 1.0), (int(v), -1.0)], 0.0, np.inf)
        if w + 1 < n_w and thresholds[w + 1][0] == j:
            add([(n_y + w, 1.0), (n_y + w + 1, -1.0)], 0.0, np.inf)
    n_cols = T + 1
    A = coo_array((vals, (rows, cols)), shape=(len(lo), n_cols)).tocsr()
    cost = np.zeros(n_cols)
    cost[T] = 1.0
    integrality = np.zeros(n_cols)
    integrality[:n_y] = 1
    upper = np.ones(n_cols)
    upper[T] = np.inf
    res = milp(cost, constraints=LinearConstraint(A, lo, hi), integrality=integrality,
               bounds=Bounds(np.zeros(n_cols), upper),
               options={"time_limit": float(time_limit), "mip_rel_gap": 1e-9})
    if res.x is None:
        return async_list_orders(x), async_makespan(x, async_list_orders(x)), False, str(res.message)
    orders: list[list[int]] = [[] for _ in x.senders]
    slots = sorted((i, k, j) for v, (i, k, j) in enumerate(index) if res.x[v] > 0.5)
    for i, _, j in slots:
        orders[i].append(j)
    return orders, async_makespan(x, orders), res.status == 0, str(res.message)


def _schedule(x, orders, algorithm, platform, collective, params, status, message) -> OrderSchedule:
    from ...simulation.models import OnePort
    from .exchange_bound import exchange_bound

    out = {x.senders[i]: tuple(x.receivers[j] for j in row) for i, row in enumerate(orders) if row}
    bound = exchange_bound(platform, collective, model=OnePort(sync=False, cost="overheads"))
    return OrderSchedule(orders=out, algorithm=algorithm, params=params, bound=bound, status=status,
                         message=message, collective=collective)


@register("open_shop_async", family="orderings", kinds=_KINDS, series=False,
          summary="list schedule on asynchronous costs: each send slot feeds the receiver with the most work left")
def open_shop_async(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """The asynchronous list schedule (:func:`async_list_orders`), as per-sender orders.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Unused (deterministic); checked.

    Returns
    -------
    OrderSchedule
        With the asynchronous open-shop bound (``OnePort(sync=False,
        cost="overheads")``); its ``message`` gives the planned makespan,
        which that model's simulation reproduces.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    Seed 004 (L.-R. Chen, P. Liu, 2002), section 4.1 (the asynchronous
    model); the list rule is ours.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 5, 10, 1, 5])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> s = open_shop_async(p, c)
    >>> cs.validate(p, c, s)
    >>> s.message, round(s.bound.value, 9)
    ('planned makespan 42', 42.0)
    """
    check_seed(seed)
    x = exchange_of(platform, collective)
    orders = async_list_orders(x)
    return _schedule(x, orders, "open_shop_async", platform, collective, {"seed": seed}, Status.FEASIBLE,
                     f"planned makespan {async_makespan(x, orders):.6g}")


@register("async_optimal", family="orderings", kinds=_KINDS, series=False,
          summary="exact per-sender orders for the asynchronous model (MILP; small exchanges)")
def async_optimal(platform, collective, *, seed: int = 0, time_limit: float = 30.0,
                  max_messages: int = 30) -> OrderSchedule:
    """Per-sender orders of least asynchronous makespan (:func:`async_optimal_orders`).

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Unused (deterministic); checked.
    time_limit : float
        Seconds for the solver (> 0).
    max_messages : int
        Largest exchange solved exactly (the MILP has ``sum_i n_i^2``
        binaries; 30 is a 6-node all-to-all, solved in about 0.3 s; a
        7-node one with unequal sizes took 5 s on a loaded machine). A larger
        exchange gets :func:`open_shop_async`'s orders, status FEASIBLE, and
        a message saying so (so that ``compare`` stays fast).

    Returns
    -------
    OrderSchedule
        Status OPTIMAL when the solver proved it (the makespan is then the
        least over all orderings under ``OnePort(sync=False,
        cost="overheads")``; when it equals ``bound``, the bound proves it
        too), LIMIT when time ran out with an incumbent, FEASIBLE beyond
        ``max_messages``.

    Raises
    ------
    ValueError
        If ``seed``, ``time_limit`` or ``max_messages`` is bad.

    References
    ----------
    Seed 004 (L.-R. Chen, P. Liu, 2002), section 4.1; HiGHS (Huangfu and
    Hall, 2018) through ``scipy.optimize.milp``.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([10, 1, 5, 1, 10], recv_overheads=[1, 10, 5, 10, 1])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> s = async_optimal(p, c)
    >>> s.status.value, s.message.split(" (")[0], round(s.bound.value, 9)
    ('optimal', 'makespan 42', 42.0)
    >>> async_optimal(p, c, max_messages=10).message
    'exchange of 20 messages > max_messages=10: open_shop_async orders, makespan 42'
    """
    check_seed(seed)
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise ValueError(f"option time_limit={time_limit!r} is not a number > 0")
    if isinstance(max_messages, bool) or not isinstance(max_messages, (int, np.integer)) or max_messages < 1:
        raise ValueError(f"option max_messages={max_messages!r} is not an integer >= 1")
    x = exchange_of(platform, collective)
    params = {"seed": seed, "time_limit": time_limit, "max_messages": int(max_messages)}
    if int(x.mask.sum()) > max_messages:
        orders = async_list_orders(x)
        return _schedule(x, orders, "async_optimal", platform, collective, params, Status.FEASIBLE,
                         f"exchange of {int(x.mask.sum())} messages > max_messages={max_messages}: "
                         f"open_shop_async orders, makespan {async_makespan(x, orders):.6g}")
    orders, makespan, optimal, message = async_optimal_orders(x, time_limit=time_limit)
    return _schedule(x, orders, "async_optimal", platform, collective, params,
                     Status.OPTIMAL if optimal else Status.LIMIT, f"makespan {makespan:.6g} ({message})")
