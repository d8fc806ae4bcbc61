"""The ``steady_state`` algorithm: exact LP optimum, then a periodic schedule (seed 000).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1, latency=0)
>>> c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=1), count=10)
>>> s = cs.plan(p, c, algorithm="steady_state")
>>> s.throughput, s.period, s.ops_per_period, s.status.value
(Fraction(1, 2), Fraction(2, 1), 1, 'optimal')
"""

from __future__ import annotations

from fractions import Fraction

from ...collectives import AllToAll, AllToMany, Broadcast, Reduce, Scatter
from ...errors import CollectiveError
from ...schedules.base import Bound, Status
from ...schedules.periodic import PeriodicSchedule
from ..registry import register
from .exact import SteadyStateError
from .lp_alltoall import commodities_of, solve_flows
from .periodic import color, decompose_paths, period_of, route_slots, type_amounts, whole_slots

__all__ = ["steady_state", "fixed_counts"]


def fixed_counts(rates: list[Fraction], period: Fraction) -> list[int]:
    """Section 4.6: ``r = floor(rate · T_fixed)`` operations per fixed period for each route or tree.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> fixed_counts([F(1, 3), F(2, 3)], F(10))
    [3, 6]
    """
    return [int(r * period) for r in rates]


def _message(sol, size, extra: str = "") -> str:
    rows, cols, nnz = size
    cert = "exact certificate holds" if sol.certified else "no exact certificate"
    return f"HiGHS: {sol.highs_status}; LP {rows} rows x {cols} columns, {nnz} nonzeros; {cert}{extra}"


def _integer_counts(rates: list[Fraction], T: Fraction, tp: Fraction, max_ops: int):
    """Operations per period for each route or tree: exact (``rate·T``) or a fixed period (section 4.6)."""
    q = tp * T
    if q.denominator == 1 and q <= max_ops:
        return [int(r * T) for r in rates], int(q), T, True
    period = Fraction(max_ops) / tp
    counts = fixed_counts(rates, period)
    if sum(counts) < 1:
        raise SteadyStateError(f"no operation fits a fixed period of {float(period):.3g} s", fix="raise max_ops")
    return counts, sum(counts), period, False


#: Largest number of operations per period the whole-message variant may scale up to.
WHOLE_MAX_OPS = 4096


def _assemble(build, counts: list[int], q: int, split: bool):
    """Slots of one period from ``build(counts, q) -> (items, work)``; returns (slots, denominator, q, scale).

    With ``split`` messages are cut at the matchings' boundaries (pieces);
    without, the period is scaled so that every matching carries whole
    messages (seed 000, Fig. 4(b)), or, when that scale is too large, each
    message goes whole into the slot where it starts.
    """
    items, work = build(counts, q)
    if split:
        slots, den = route_slots(items, split=True)
        return _with_tasks(slots, work), den, q, 1
    weights = {e: sum((x[1] for x in msgs), Fraction(0)) for e, msgs in items.items() if msgs}
    mats = color(weights)
    amounts = type_amounts(items, mats)
    scale = period_of(amounts.values())
    if q * scale <= max(WHOLE_MAX_OPS, q):
        items2, work2 = build([c * scale for c in counts], q * scale)
        return _with_tasks(whole_slots(items2, mats, amounts, scale), work2), 1, q * scale, scale
    slots, _ = route_slots(items, split=False)
    return _with_tasks(slots, work), 1, q, 1


def _with_tasks(slots: list, work: dict) -> tuple:
    """Computations overlap communications: each goes into the slot where it starts on its host's timeline."""
    from ...schedules.periodic import Slot

    if not work:
        return tuple(slots)
    if not slots:
        load = max(sum((x for _, x in lst), Fraction(0)) for lst in work.values())
        slots = [Slot(max(load, Fraction(1, 10**9)))]
    bounds = []
    acc = Fraction(0)
    for sl in slots:
        bounds.append((acc, acc + sl.duration))
        acc += sl.duration
    tasks_of: list[list] = [[] for _ in slots]
    for lst in work.values():
        at = Fraction(0)
        for task, sec in lst:
            k = next((j for j, (a, b) in enumerate(bounds) if a <= at < b), len(slots) - 1)
            tasks_of[k].append(task)
            at += sec
    return tuple(Slot(sl.duration, sl.transfers, tuple(ts)) for sl, ts in zip(slots, tasks_of))


def _finish(platform, *, sol, size, tp, acts, T, q, period, exact, scale, slots, den, items_nodes, params, extra):
    hosts = set(platform.hosts)
    used = sorted({x for x in items_nodes if x not in hosts})
    params.update(ranks=tuple(used), period_kind="exact" if exact else "fixed", lp_period=T, whole_scale=scale)
    thr = Fraction(q) / (period * scale)
    return PeriodicSchedule(
        throughput=thr, period=period * scale, ops_per_period=q, activities=acts, slots=slots, denominator=den,
        algorithm="steady_state", params=params,
        bound=Bound(tp, "throughput", "steady-state LP optimum (exact)"),
        status=Status.OPTIMAL if exact and thr == tp else Status.FEASIBLE,
        message=_message(sol, size, extra + ("" if exact else f"; fixed period {float(period):.6g} s, {q} ops per period")))


def _failed(sol, size, params):
    extra = f"; best float objective so far {sol.float_objective}" if sol.status is Status.LIMIT else ""
    return PeriodicSchedule(algorithm="steady_state", params=params, status=sol.status,
                               message=_message(sol, size, extra))


def _flows(platform, collective, *, max_ops: int, split: bool, time_limit: float):
    from ...schedules.values import block

    comms = commodities_of(collective)
    f = solve_flows(platform, comms, time_limit=time_limit)
    sol = f.solution
    params = {"lp_size": f.size, "highs_status": sol.highs_status, "timings": dict(sol.timings)}
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, f.size, params)
    tp = f.throughput
    acts = {"TP": tp}
    for (u, v, k), val in f.send.items():
        a, b, _ = comms[k]
        acts[f"send({u}->{v}, m[{a}->{b}])"] = val
    for (u, v), val in f.occupation.items():
        acts[f"s({u}->{v})"] = val
    T = Fraction(period_of(acts.values()))
    paths, rates, owner = [], [], []
    for k, (a, b, _) in enumerate(comms):
        flow = {(u, v): val for (u, v, kk), val in f.send.items() if kk == k}
        for r, path in decompose_paths(flow, a, b):
            paths.append(path)
            rates.append(r)
            owner.append(k)
    counts, q, period, exact = _integer_counts(rates, T, tp, max_ops)
    if not exact:
        q = min(sum(c for c, o in zip(counts, owner) if o == k) for k in range(len(comms)))
        if q < 1:
            raise SteadyStateError(f"no operation fits a fixed period of {float(period):.3g} s", fix="raise max_ops")
        for k in range(len(comms)):  # trim every message type down to q operations
            extra = sum(c for c, o in zip(counts, owner) if o == k) - q
            for i in reversed(range(len(counts))):
                if owner[i] == k and extra:
                    cut = min(extra, counts[i])
                    counts[i] -= cut
                    extra -= cut
    hosts = {h: i for i, h in enumerate(platform.hosts)}
    net = f.network

    def build(counts, q):
        items: dict = {}
        nxt = [0] * len(comms)
        for path, n, k in zip(paths, counts, owner):
            a, b, size = comms[k]
            for _ in range(n):
                t = nxt[k]
                for h, e in enumerate(zip(path, path[1:])):
                    items.setdefault(e, []).append((block(t - h * q, hosts[a], hosts[b]), size * net.cost[e], float(size)))
                nxt[k] += 1
        return items, {}

    slots, den, q2, scale = _assemble(build, counts, q, split)
    nodes = {x for p in paths for x in p}
    return _finish(platform, sol=sol, size=f.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params, extra="")


def _reduce(platform, reduce, *, max_ops: int, split: bool, time_limit: float):
    from ...schedules.periodic import PeriodicTask
    from ...schedules.values import partial
    from .lp_reduce import solve_reduce
    from .trees import extract_trees

    r = solve_reduce(platform, reduce, time_limit=time_limit)
    sol = r.solution
    params = {"lp_size": r.size, "highs_status": sol.highs_status, "timings": dict(sol.timings)}
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, r.size, params)
    tp = r.throughput
    acts = {"TP": tp}
    for (u, v, k, m), val in r.send.items():
        acts[f"send({u}->{v}, v[{k}..{m}])"] = val
    for (i, k, l, m), val in r.cons.items():
        acts[f"cons({i}, T({k},{l},{m}))"] = val
    occ: dict = {}
    for (u, v, k, m), val in r.send.items():
        occ[(u, v)] = occ.get((u, v), 0) + val * Fraction(reduce.partial_size(k, m)) * r.network.cost[(u, v)]
    for (u, v), val in occ.items():
        acts[f"s({u}->{v})"] = val
    T = Fraction(period_of(acts.values()))
    trees = extract_trees(r)
    counts, q, period, exact = _integer_counts([w for w, _ in trees], T, tp, max_ops)
    net = r.network

    def build(counts, q):
        items: dict = {}
        work: dict = {}
        t = 0
        for (_, tree), n in zip(trees, counts):
            for _ in range(n):
                for task in tree:
                    rel = t - task.stage * q
                    if task.key[0] == "send":
                        _, u, v, k, m = task.key
                        size = Fraction(reduce.partial_size(k, m))
                        items.setdefault((u, v), []).append((partial(rel, k, m), size * net.cost[(u, v)], float(size)))
                    else:
                        _, i, k, l, m = task.key
                        cost = reduce.task_cost_of(k, l, m)
                        work.setdefault(i, []).append(
                            (PeriodicTask(i, [partial(rel, k, l), partial(rel, l + 1, m)], partial(rel, k, m), cost),
                             Fraction(cost) / net.speed[i]))
                t += 1
        return items, work

    slots, den, q2, scale = _assemble(build, counts, q, split)
    params.update(tree_weights=tuple(w * T for w, _ in trees),
                  tree_tasks=tuple(tuple(x.key for x in tr) for _, tr in trees))
    nodes = {x for _, tr in trees for t in tr if t.key[0] == "send" for x in t.key[1:3]}
    return _finish(platform, sol=sol, size=r.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params,
                   extra=f"; {len(trees)} reduction trees")


def _broadcast(platform, bc, *, max_ops: int, split: bool, time_limit: float):
    from ...schedules.values import block
    from .lp_broadcast import pack_trees, solve_broadcast

    b = solve_broadcast(platform, bc, time_limit=time_limit)
    sol = b.solution
    params = {"lp_size": b.size, "highs_status": sol.highs_status, "timings": dict(sol.timings)}
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, b.size, params)
    tp = b.throughput
    acts = {"TP": tp}
    for (u, v), val in b.usage.items():
        acts[f"n({u}->{v})"] = val
    for (u, v, t), val in b.flows.items():
        acts[f"x[{t}]({u}->{v})"] = val
    T = Fraction(period_of(acts.values()))
    trees = pack_trees(b)
    packed = sum((w for w, _ in trees), Fraction(0))
    counts, q, period, exact = _integer_counts([w for w, _ in trees], T, packed, max_ops)
    net = b.network
    size = Fraction(bc.size)
    s_idx = platform.host_index(bc.source)

    def build(counts, q):
        items: dict = {}
        t = 0
        for (_, tree), n in zip(trees, counts):
            for _ in range(n):
                for v, (u, d) in tree.items():
                    items.setdefault((u, v), []).append((block(t - d * q, s_idx, -1), size * net.cost[(u, v)], float(size)))
                t += 1
        return items, {}

    slots, den, q2, scale = _assemble(build, counts, q, split)
    params.update(packed_rate=packed, n_trees=len(trees))
    nodes = {x for _, tr in trees for v, (u, _) in tr.items() for x in (u, v)}
    return _finish(platform, sol=sol, size=b.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params,
                   extra=f"; {len(trees)} broadcast trees of total rate {float(packed):.6g}")


@register("steady_state", family="steady_state", kinds=("scatter", "alltoall", "alltomany", "reduce", "broadcast"),
          series=True, single=False, summary="exact steady-state LP optimum and its periodic schedule (seed 000)")
def steady_state(platform, collective, *, seed: int = 0, max_ops: int = 64, split: bool = True,
                 time_limit: float = 60.0):
    """Plan a series of scatters, all-to-alls, reduces or broadcasts at the exact optimal steady-state throughput.

    Parameters
    ----------
    platform : Platform
        Its graph view is the LP's graph (routers forward, one-port).
    collective : Series or Collective
        A :class:`~collsched.collectives.Series` of a scatter, all-to-all,
        all-to-many, reduce or broadcast.
    seed : int
        Unused (the LP and its decomposition are deterministic).
    max_ops : int
        Largest number of operations per period of the exact period
        ``T = lcm(denominators)``; beyond it a fixed period with ``max_ops``
        operations' worth of time is used (section 4.6) and the status is
        FEASIBLE, the exact LP optimum remaining the bound.
    split : bool
        Split messages across matchings (else whole messages per slot).
    time_limit : float
        Seconds for HiGHS; beyond it the status is LIMIT.

    Returns
    -------
    PeriodicSchedule
        ``throughput``, ``period``, ``activities`` exact; ``bound`` the LP
        optimum; ``message`` HiGHS's status and the LP size.

    Raises
    ------
    ValueError
        If an option is out of range.
    SteadyStateError
        If a host is unreachable or the throughput is zero.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> c = cs.Series(cs.AllToAll(senders=p.hosts, size=1), count=6)
    >>> s = steady_state(p, c)
    >>> s.throughput, s.message.split(";")[0]
    (Fraction(1, 2), 'HiGHS: Optimal')
    >>> cs.validate(p, c, s)
    """
    if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 1:
        raise ValueError(f"steady_state option max_ops={max_ops!r} must be an integer >= 1")
    if not isinstance(split, bool):
        raise ValueError(f"steady_state option split={split!r} must be a bool")
    if not time_limit > 0:
        raise ValueError(f"steady_state option time_limit={time_limit!r} must be positive")
    base = collective.base
    base.validate(platform)
    if isinstance(base, (Scatter, AllToAll, AllToMany)):
        return _flows(platform, base, max_ops=max_ops, split=split, time_limit=time_limit)
    if isinstance(base, Reduce):
        return _reduce(platform, base, max_ops=max_ops, split=split, time_limit=time_limit)
    if isinstance(base, Broadcast):
        return _broadcast(platform, base, max_ops=max_ops, split=split, time_limit=time_limit)
    raise CollectiveError(f"steady_state does not schedule a {base.kind}")
