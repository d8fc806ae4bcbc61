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

import math
import time
from fractions import Fraction

from ...collectives import AllGather, AllToAll, AllToMany, Broadcast, Reduce, Scatter
from ...errors import CollectiveError
from ...schedules.base import Bound, Status
from ...schedules.periodic import PeriodicSchedule
from ...schedules.values import Piece
from ..registry import register
from .exact import SteadyStateError
from .lp_alltoall import check_ports, commodities_of, solve_flows
from .periodic import color, decompose_paths, period_of, route_slots, shortest_period, type_amounts, whole_slots
from .periodic import phases as build_phases

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


def _owned_counts(rates: list[Fraction], owner: list[int], owners: int, T: Fraction, tp: Fraction, max_ops: int):
    """:func:`_integer_counts` for routes or trees each serving one of ``owners`` message types or sources.

    Every owner must carry the same number ``q`` of operations per period:
    the least any owner gets; the others' counts are trimmed down to it
    (their last routes or trees first). With the exact period every owner
    already gets ``q`` when its rates sum to ``tp``.
    """
    counts, q, period, exact = _integer_counts(rates, T, tp, max_ops)
    mine: list = [[] for _ in range(owners)]  # each owner's routes or trees, in order
    for i, o in enumerate(owner):
        mine[o].append(i)
    q = min(sum(counts[i] for i in own) for own in mine)
    if q < 1:
        raise SteadyStateError(f"no operation fits a fixed period of {float(period):.3g} s", fix="raise max_ops")
    for own in mine:  # trim every owner down to q operations
        extra = sum(counts[i] for i in own) - q
        for i in reversed(own):
            if not extra:
                break
            cut = min(extra, counts[i])
            counts[i] -= cut
            extra -= cut
    return counts, q, period, exact


#: Further plans, ``(applies(base, ports, method) -> bool, function(platform, base, **options))``, registered by
#: their modules (:mod:`.plan_trees`, :mod:`.plan_reductions`), which build on this one's helpers; the first
#: that applies plans, before the LPs of this module.
LOWERINGS: list = []

#: The ``method`` option: ``"auto"`` lets a registered plan apply, ``"lp"`` keeps the steady-state LPs.
METHODS = ("auto", "lp")

#: Largest number of operations per period the whole-message variant may scale up to.
WHOLE_MAX_OPS = 4096


def _assemble(build, counts: list[int], q: int, split: bool, timings: dict, parts=None):
    """One period's slots from ``build(counts, q, tag) -> (items, work, deps)``: (slots, denominator, q, scale).

    ``build`` names the instance of every task through ``tag(key, t, stage)``
    (``key`` unique to the task, ``t`` its operation in the period, ``stage``
    the periods it trails its operation's first one) and gives each task's
    predecessors in ``deps``; the slots are laid out first, then
    :func:`_stages` sets each task's stage from where its predecessors fall.

    With ``split`` messages are cut at the matchings' boundaries (pieces);
    without, the period is scaled so that every matching carries whole
    messages (seed 000, Fig. 4(b)), or, when that scale is too large, each
    message goes whole into the slot where it starts.

    ``parts`` ``(part_of, n)``: every task carries only fragment
    ``part_of(key)`` of ``n`` of its value (:func:`_fragments`).
    """
    t0 = time.perf_counter()
    tags: list = []

    def tag(key, t, stage):
        tags.append((key, t, stage))
        return len(tags) - 1

    items, work, deps = build(counts, q, tag)
    if split:
        slots, den = route_slots(items, split=True, timings=timings)
        slots, den, q2, scale = _with_tasks(_by_depth(slots, tags), work), den, q, 1
    else:
        weights = {e: sum((x[1] for x in msgs), Fraction(0)) for e, msgs in items.items() if msgs}
        t1 = time.perf_counter()
        mats = color(weights)
        timings["colouring"] = timings.get("colouring", 0.0) + time.perf_counter() - t1
        amounts = type_amounts(items, mats)
        scale = period_of(amounts.values())
        if q * scale <= max(WHOLE_MAX_OPS, q):
            items2, work2, deps = build([c * scale for c in counts], q * scale, tag)
            whole = _by_depth(whole_slots(items2, mats, amounts, scale), tags)
            slots, den, q2 = _with_tasks(whole, work2), 1, q * scale
        else:
            slots, _ = route_slots(items, split=False, timings=timings)
            slots, den, q2, scale = _with_tasks(_by_depth(slots, tags), work), 1, q, 1
    if parts:
        slots, den = _fragments(slots, tags, den, *parts)
    slots = _stages(slots, tags, deps, q2)
    timings["slots"] = time.perf_counter() - t0 - timings.get("colouring", 0.0)
    return slots, den, q2, scale


#: Multi-port: the period is scaled until every link direction's latency is at most this share of it.
LATENCY_SHARE = Fraction(1, 1000)


def _assemble_multi(build, counts: list[int], q: int, net, max_ops: int, timings: dict, parts=None):
    """One period of the multi-port model: a single slot, every transfer of the period running at once.

    No matchings: each link direction (each ``channel`` of the network)
    carries its transfers of the period one after another, concurrently with
    the other channels, so the slot lasts as long as the busiest channel's
    work. Every hop then runs one period after the hop it forwards
    (:func:`_stages` with one slot), and the lowering sends a period's
    transfers on one link direction as one message, chained per link
    direction (:class:`~collsched.schedules.periodic.PeriodicSchedule`,
    ``ports="multi"``): one latency per link direction and period. So the
    period is scaled by the least integer that makes the largest latency of
    a link direction it uses at most :data:`LATENCY_SHARE` of it, within
    ``max_ops`` operations per period (scale 1 without latencies). Returns
    ``(slots, denominator, q, scale)`` as :func:`_assemble` does (whole
    messages, or ``parts`` as there).
    """
    from ...schedules.periodic import PeriodicTransfer, Slot

    t0 = time.perf_counter()
    tags: list = []

    def tag(key, t, stage):
        tags.append((key, t, stage))
        return len(tags) - 1

    def period(counts, q):
        items, work, deps = build(counts, q, tag)
        load: dict = {}
        for e, msgs in items.items():
            load[net.channel[e]] = load.get(net.channel[e], 0) + sum((sec for _, sec, _ in msgs), Fraction(0))
        return items, work, deps, max(load.values(), default=Fraction(0))

    items, work, deps, busiest = period(counts, q)
    latency = max((Fraction(net.graph.edges[e]["latency"]) for e in items), default=Fraction(0))
    scale = 1
    if latency and busiest:
        scale = max(1, min(max_ops // q, math.ceil(latency / (LATENCY_SHARE * busiest))))
    if scale > 1:
        tags.clear()
        q *= scale
        items, work, deps, busiest = period([c * scale for c in counts], q)
    transfers = [PeriodicTransfer(e[0], e[1], [value], size) for e, msgs in items.items() for value, _, size in msgs]
    slots, den = _with_tasks([Slot(busiest, transfers)], work), 1
    if parts:
        slots, den = _fragments(slots, tags, den, *parts)
    slots = tuple(_merged(sl) for sl in _stages(slots, tags, deps, q))
    timings["slots"] = time.perf_counter() - t0
    return slots, den, q, scale


def _fragments(slots, tags: list, den: int, part_of, n: int):
    """The slots with every value narrowed to its task's fragment: ``(slots, n · den)``.

    A ReduceScatter's or AllReduce's commodity ``j`` moves and combines only
    block ``j`` of the whole vectors: a piece ``[a, b)`` of ``den`` becomes
    ``[j·den + a, j·den + b)`` of ``n · den`` (a whole value ``[0, den)``),
    with ``j = part_of(key)`` of the task that carries it.

    Examples
    --------
    >>> from collsched.schedules.periodic import PeriodicTransfer, Slot
    >>> from collsched.schedules.values import Piece, partial
    >>> slot = Slot(1, [PeriodicTransfer("a", "b", [Piece(partial(0, 1, 1), 1, 2)], 1)])
    >>> _fragments([slot], [(("rs", 2, 0, 0), 0, 0)], 2, lambda key: key[1], 3)[0][0].transfers[0].pieces
    (v[1..1]@0[5:6],)
    """
    from ...schedules.periodic import PeriodicTask, PeriodicTransfer, Slot

    def narrow(x):
        j = part_of(tags[_tag_of(x)][0])
        if isinstance(x, Piece):
            return Piece(x.value, j * den + x.start, j * den + x.end)
        return Piece(x, j * den, (j + 1) * den)

    out = [Slot(sl.duration, [PeriodicTransfer(t.src, t.dst, [narrow(x) for x in t.pieces], t.size)
                              for t in sl.transfers],
                [PeriodicTask(t.node, [narrow(x) for x in t.inputs], narrow(t.output), t.cost) for t in sl.tasks])
           for sl in slots]
    return out, den * n


def _merged(slot):
    """The slot with one transfer per link direction and instance, carrying every value of it (fewer latencies)."""
    from ...schedules.periodic import PeriodicTransfer, Slot

    groups: dict = {}
    for t in slot.transfers:
        groups.setdefault((t.src, t.dst, _tag_of(t.pieces[0])), []).append(t)  # after _stages: the instance
    transfers = [PeriodicTransfer(u, v, [x for t in ts for x in t.pieces], sum(t.size for t in ts))
                 for (u, v, _), ts in groups.items()]
    return Slot(slot.duration, transfers, slot.tasks)


def _by_depth(slots: list, tags: list) -> list:
    """The matchings in order of the mean depth (hop or tree stage) of what they carry.

    Any order of a period's matchings respects one-port; carrying the first
    hops first lets a message go several hops within one period.
    """
    def depth(slot):
        ds = [tags[_tag_of(x)][2] for t in slot.transfers for x in t.pieces]
        return sum(ds) / len(ds) if ds else 0.0

    return sorted(slots, key=depth)


def _tag_of(x) -> int:
    return (x.value if isinstance(x, Piece) else x).inst


def _retag(x, inst: int):
    if isinstance(x, Piece):
        return Piece(x.value._replace(inst=inst), x.start, x.end)
    return x._replace(inst=inst)


def _stages(slots: tuple, tags: list, deps: dict, q: int) -> tuple:
    """Give every task its stage and its relative instance ``t - stage·q`` (seed 000, §3.3's pipelining).

    A transfer runs in the same period as the transfer it forwards when
    that one's last slot comes before its own first one (a relay forwards
    later in the period what it received earlier), one period later
    otherwise. A computation and what it reads or feeds are always a period
    apart: a computation is not tied to a slot (it runs on its node's CPU
    while the ports go on with the next slots, and may outlast its slot), so
    the value it reads must be there when the period starts, and the value
    it makes is sent in a later period. Then each resource (send port,
    receive port, CPU) runs its activities of a period back to back within
    the period, and the lowered program runs one period every ``T`` seconds
    in steady state (seed 000, §4.3). The pipeline is as shallow as that
    allows, and :meth:`PeriodicSchedule.lag` (the initialisation and
    clean-up) with it.
    """
    from ...schedules.periodic import PeriodicTask, PeriodicTransfer, Slot

    first: dict = {}
    last: dict = {}
    computed = {tags[_tag_of(t.output)][0] for slot in slots for t in slot.tasks}
    for i, slot in enumerate(slots):
        ids = [_tag_of(x) for t in slot.transfers for x in t.pieces] + [_tag_of(t.output) for t in slot.tasks]
        for j in ids:
            key = tags[j][0]
            first.setdefault(key, i)
            last[key] = i
    stage: dict = {}

    def stage_of(key) -> int:
        if key not in stage:
            s = 0
            for p in deps.get(key, ()):
                later = p in computed or key in computed or last[p] >= first[key]
                s = max(s, stage_of(p) + (1 if later else 0))
            stage[key] = s
        return stage[key]

    def inst(x) -> int:
        key, t, _ = tags[_tag_of(x)]
        return t - stage_of(key) * q

    out = []
    for slot in slots:
        transfers = [PeriodicTransfer(t.src, t.dst, [_retag(x, inst(x)) for x in t.pieces], t.size)
                     for t in slot.transfers]
        tasks = [PeriodicTask(t.node, [_retag(x, inst(x)) for x in t.inputs], _retag(t.output, inst(t.output)),
                              t.cost) for t in slot.tasks]
        out.append(Slot(slot.duration, transfers, tasks))
    return tuple(out)


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


def _tree_preds(tree: list) -> list[list[int]]:
    """For each task of a reduction tree (producers listed first), the indices of the tasks it reads from."""
    producer: dict = {}
    out = []
    for x, task in enumerate(tree):
        if task.key[0] == "send":
            _, u, v, k, m = task.key
            needs, made = [(k, m, u)], (k, m, v)
        else:
            _, i, k, l, m = task.key
            needs, made = [(k, l, i), (l + 1, m, i)], (k, m, i)
        out.append([producer[n] for n in needs if n in producer])
        producer[made] = x
    return out


def _as_tree(source: str, tree: dict):
    """A broadcast arborescence ``{node: (parent, depth)}`` as a :class:`TreeSchedule`."""
    from ...schedules.trees import TreeSchedule

    children: dict = {}
    for v, (u, _) in tree.items():
        children.setdefault(u, []).append(v)
    return TreeSchedule(root=source, children={u: tuple(vs) for u, vs in children.items()},
                        algorithm="steady_state")


def busiest_load(slots, speed: dict) -> Fraction:
    """Seconds per period of the busiest resource: the ports (the slots, one after another) or a node's CPU.

    Every resource runs its activities of a period back to back (the
    lowering chains them), so the pattern repeats every ``busiest_load``
    seconds in steady state, and no faster.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from collsched.schedules.periodic import PeriodicTask, Slot
    >>> from collsched.schedules.values import partial
    >>> task = PeriodicTask("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), 3)
    >>> busiest_load([Slot(F(1)), Slot(F(1), (), [task])], {"h0": F(2)})
    Fraction(2, 1)
    >>> busiest_load([Slot(F(1), (), [task])], {"h0": F(1)})
    Fraction(3, 1)
    """
    cpu: dict = {}
    for slot in slots:
        for task in slot.tasks:
            cpu[task.node] = cpu.get(task.node, 0) + Fraction(task.cost) / speed[task.node]
    return max([sum((sl.duration for sl in slots), Fraction(0)), *cpu.values()])


def _finish(platform, *, sol, size, tp, acts, T, q, period, exact, scale, slots, den, items_nodes, params, extra,
            net, trees=(), routes: int = 1, base: Fraction | None = None, ports: str = "one", head: str | None = None,
            bound: Bound | None = None, phased: bool = True):
    """The schedule of the slots: period, phases, status (OPTIMAL when the rate is ``bound``'s, the LP optimum).

    ``head`` replaces the message's HiGHS part when no LP was solved; ``bound`` the LP optimum ``tp``; without
    ``phased`` no initialisation and clean-up are built (the lowering then runs the pattern's first and last
    periods restricted to the instances that exist).
    """
    hosts = set(platform.hosts)
    used = sorted({x for x in items_nodes if x not in hosts})
    params.update(ranks=list(used), period_kind="exact" if exact else "fixed", lp_period=str(T), whole_scale=scale)
    if not exact:
        # Proposition 3: rounding each of the ``routes`` routes or trees down loses less than one operation each
        params.update(fixed_period=str(period * scale), loss_bound=str(Fraction(routes) / period),
                      rounded_from=str(tp if base is None else base))
    # the pattern repeats as soon as its busiest resource is done (the lowering chains each resource's work), so
    # that is the period: T itself when the routes or trees use the LP's whole optimum (some resource is then
    # saturated), shorter when they carry less (§4.6's rounded counts; a multicast packed below the LP)
    length = busiest_load(slots, net.speed)
    thr = Fraction(q) / length
    # §3.4: the initialisation fills every relay, the clean-up drains what is still on its way
    pattern = PeriodicSchedule(period=length, ops_per_period=q, slots=slots, denominator=den, ports=ports)
    t0 = time.perf_counter()
    init, cleanup = build_phases(slots, q, pattern.lag(), net.cost, net.speed,
                                 sequential=params["phases"] == "sequential") if phased else ((), ())
    params["timings"]["phases"] = time.perf_counter() - t0
    fixed = None if exact else _fixed_note(tp, T, length, q, thr, routes, period * scale)
    bound = bound or Bound(tp, "throughput", "steady-state LP optimum (exact)")
    return PeriodicSchedule(
        throughput=thr, period=length, ops_per_period=q, activities=acts, slots=slots, denominator=den,
        init=init, cleanup=cleanup, trees=trees, ports=ports,
        algorithm="steady_state", params=params,
        bound=bound, status=Status.OPTIMAL if thr == bound.value else Status.FEASIBLE,
        message=(_message(sol, size, extra) if head is None else head + extra) + (fixed or ""))


def _fixed_note(tp: Fraction, T: Fraction, period: Fraction, q: int, thr: Fraction, routes: int,
                fixed: Fraction) -> str:
    """What the message says when the exact period was too long and a fixed one replaced it (section 4.6)."""
    ops = tp * T
    digits = len(str(ops.numerator // ops.denominator))
    need = f"{ops}" if ops.denominator == 1 and ops < 10**6 else f"a {digits}-digit number of"
    return (f"; the exact period needs {need} operations (more than max_ops), so a fixed period is used "
            f"(section 4.6): {q} operations every {float(period):.6g} s, throughput {float(thr / tp):.4%} of the "
            f"exact LP optimum, which stays the bound (Proposition 3: rounding loses at most {routes} routes or "
            f"trees / the fixed period {float(fixed):.6g} s of the rate they give)")


def _params(solution, size, elapsed: float, phases: str, ports: str = "one") -> dict:
    """The schedule's params: LP size, HiGHS's words, seconds per stage (``build`` = LP construction), port model."""
    tm = dict(solution.timings)
    tm["build"] = elapsed - sum(tm.get(k, 0.0) for k in ("solve", "recovery", "certificate"))
    tm.pop("input", None)
    return {"lp_size": list(size), "highs_status": solution.highs_status, "timings": tm, "phases": phases,
            "ports": ports}


def _failed(sol, size, params):
    extra = f"; best float objective so far {sol.float_objective}" if sol.status is Status.LIMIT else ""
    return PeriodicSchedule(algorithm="steady_state", params=params, status=sol.status, ports=params["ports"],
                            message=_message(sol, size, extra))


def _slots(build, counts, q, split, params, net, max_ops, parts=None):
    """The period's slots under the schedule's port model: matchings (one-port) or one slot (multi-port)."""
    if params["ports"] == "multi":
        return _assemble_multi(build, counts, q, net, max_ops, params["timings"], parts)
    return _assemble(build, counts, q, split, params["timings"], parts)


def _flows(platform, collective, *, ports: str, max_ops: int, split: bool, time_limit: float, phases: str):
    from ...schedules.values import block

    comms = commodities_of(collective)
    t0 = time.perf_counter()
    f = solve_flows(platform, comms, ports=ports, time_limit=time_limit)
    sol = f.solution
    params = _params(sol, f.size, time.perf_counter() - t0, phases, ports)
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, f.size, params)
    params["canonical"] = "unique" if sol.unique else "not proven unique"  # the LP optimum chosen (canonical.py)
    tp = f.throughput
    acts = {"TP": tp}
    for (u, v, k), val in f.send.items():
        a, b, _ = comms[k]
        acts[f"send({u}->{v}, m[{a}->{b}])"] = val
    for (u, v), val in f.occupation.items():
        acts[f"s({u}->{v})"] = val
    T = shortest_period(v for name, v in acts.items() if not name.startswith("s("))
    t0 = time.perf_counter()
    flows: dict = {}
    for (u, v, k), val in f.send.items():
        flows.setdefault(k, {})[(u, v)] = val
    paths, rates, owner = [], [], []
    for k, (a, b, _) in enumerate(comms):
        for r, path in decompose_paths(flows.get(k, {}), a, b):
            paths.append(path)
            rates.append(r)
            owner.append(k)
    params["timings"]["decomposition"] = time.perf_counter() - t0
    counts, q, period, exact = _owned_counts(rates, owner, len(comms), T, tp, max_ops)
    hosts = {h: i for i, h in enumerate(platform.hosts)}
    net = f.network

    def build(counts, q, tag):
        items: dict = {}
        deps: dict = {}
        nxt = [0] * len(comms)
        for path, n, k in zip(paths, counts, owner):
            a, b, size = comms[k]
            for _ in range(n):
                t = nxt[k]
                for h, e in enumerate(zip(path, path[1:])):
                    key = (k, t, h)
                    deps[key] = [(k, t, h - 1)] if h else []
                    items.setdefault(e, []).append((block(tag(key, t, h), hosts[a], hosts[b]), size * net.cost[e],
                                                    float(size)))
                nxt[k] += 1
        return items, {}, deps

    slots, den, q2, scale = _slots(build, counts, q, split, params, net, max_ops)
    nodes = {x for p in paths for x in p}
    return _finish(platform, sol=sol, size=f.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params, extra="", net=net,
                   routes=len(paths), ports=ports)


def _reduce(platform, reduce, *, ports: str, max_ops: int, split: bool, time_limit: float, phases: str):
    from ...schedules.periodic import PeriodicTask
    from ...schedules.values import partial
    from .lp_reduce import solve_reduce
    from .trees import extract_trees

    t0 = time.perf_counter()
    r = solve_reduce(platform, reduce, ports=ports, time_limit=time_limit)
    sol = r.solution
    params = _params(sol, r.size, time.perf_counter() - t0, phases, ports)
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, r.size, params)
    params["canonical"] = "unique" if sol.unique else "not proven unique"  # the LP optimum chosen (canonical.py)
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
    T = shortest_period(v for name, v in acts.items() if not name.startswith("s("))
    t0 = time.perf_counter()
    trees = extract_trees(r)
    params["timings"]["decomposition"] = time.perf_counter() - t0
    T = shortest_period([w for w, _ in trees], multiple_of=T)  # integer tree weights per period
    counts, q, period, exact = _integer_counts([w for w, _ in trees], T, tp, max_ops)
    net = r.network

    preds = [_tree_preds(tree) for _, tree in trees]

    def build(counts, q, tag):
        items: dict = {}
        work: dict = {}
        deps: dict = {}
        t = 0
        for (_, tree), n, before in zip(trees, counts, preds):
            for _ in range(n):
                for x, task in enumerate(tree):
                    deps[(t, x)] = [(t, p) for p in before[x]]
                    rel = tag((t, x), t, task.stage)
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
        return items, work, deps

    slots, den, q2, scale = _slots(build, counts, q, split, params, net, max_ops)
    params.update(tree_weights=[str(w * T) for w, _ in trees],  # params stay JSON: fractions as strings
                  tree_tasks=[[list(x.key) for x in tr] for _, tr in trees])
    nodes = {x for _, tr in trees for t in tr if t.key[0] == "send" for x in t.key[1:3]}
    return _finish(platform, sol=sol, size=r.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params,
                   extra=f"; {len(trees)} reduction trees", net=net, routes=len(trees), ports=ports)


def _multicast(platform, base, *, ports: str, max_ops: int, split: bool, time_limit: float, phases: str):
    """A series of broadcasts, or of all-gathers (one broadcast per participant): LP, tree packing, slots."""
    from ...schedules.values import block
    from .lp_broadcast import pack_trees, solve_allgather, solve_broadcast

    t0 = time.perf_counter()
    if isinstance(base, Broadcast):
        b = solve_broadcast(platform, base, ports=ports, time_limit=time_limit)
        parts, sol, lp_size, net = [b], b.solution, b.size, b.network
    else:
        a = solve_allgather(platform, base, ports=ports, time_limit=time_limit)
        parts, sol, lp_size, net = list(a.parts), a.solution, a.size, a.network
    params = _params(sol, lp_size, time.perf_counter() - t0, phases, ports)
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, lp_size, params)
    params["canonical"] = "unique" if sol.unique else "not proven unique"  # the LP optimum chosen (canonical.py)
    tp = sol.objective
    acts = {"TP": tp}
    for part in parts:
        mark = "" if len(parts) == 1 else f"[{part.source}]"  # a single broadcast keeps its names
        for (u, v), val in part.usage.items():
            acts[f"n{mark}({u}->{v})"] = val
        for (u, v, t), val in part.flows.items():
            acts[f"x{mark}[{t}]({u}->{v})"] = val
    T = shortest_period(v for name, v in acts.items() if not name.startswith("s("))
    t0 = time.perf_counter()
    packings = [pack_trees(part, partial=ports == "multi") for part in parts]
    params["timings"]["decomposition"] = time.perf_counter() - t0
    trees = [(w, tree, k) for k, packing in enumerate(packings) for w, tree in packing]
    T = shortest_period([w for w, _, _ in trees], multiple_of=T)  # integer tree weights per period
    packed = min(sum((w for w, _ in packing), Fraction(0)) for packing in packings)
    counts, q, period, exact = _owned_counts([w for w, _, _ in trees], [k for _, _, k in trees], len(parts), T,
                                             packed, max_ops)
    size = Fraction(base.size)
    s_idx = [platform.host_index(part.source) for part in parts]

    def build(counts, q, tag):
        items: dict = {}
        deps: dict = {}
        nxt = [0] * len(parts)
        for (_, tree, k), n in zip(trees, counts):
            for _ in range(n):
                t = nxt[k]
                for v, (u, d) in tree.items():
                    deps[(k, t, v)] = [(k, t, u)] if u in tree else []
                    items.setdefault((u, v), []).append((block(tag((k, t, v), t, d), s_idx[k], -1),
                                                         size * net.cost[(u, v)], float(size)))
                nxt[k] += 1
        return items, {}, deps

    slots, den, q2, scale = _slots(build, counts, q, split, params, net, max_ops)
    params.update(packed_rate=str(packed), n_trees=len(trees))
    weighted = tuple((w * T, _as_tree(parts[k].source, tree)) for w, tree, k in trees)  # weights per period
    nodes = {x for _, tr, _ in trees for v, (u, _) in tr.items() for x in (u, v)}
    what = "broadcast trees" if len(parts) == 1 else f"broadcast trees for {len(parts)} sources"
    return _finish(platform, sol=sol, size=lp_size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params,
                   extra=f"; {len(trees)} {what} of total rate {float(packed):.6g}" + (
                       "" if packed == tp else ", below the LP optimum: nodes that are not targets relay part of "
                       "a target's flow (a multicast), where no exact packing is guaranteed"), net=net,
                   trees=weighted, routes=len(trees), base=packed, ports=ports)


@register("steady_state", family="steady_state",
          kinds=("scatter", "alltoall", "alltomany", "reduce", "broadcast", "allgather", "reducescatter", "allreduce"),
          series=True, single=False, summary="exact steady-state LP optimum and its periodic schedule (seed 000)")
def steady_state(platform, collective, *, seed: int = 0, ports: str = "one", max_ops: int = 64, split: bool = True,
                 time_limit: float = 60.0, phases: str = "pipelined", method: str = "auto"):
    """Plan a series of scatters, all-to-alls, reduces, broadcasts, all-gathers, ReduceScatters or AllReduces.

    At the exact optimal throughput of the steady-state LP of the
    collective's family (for ReduceScatters and AllReduces, see
    :mod:`~collsched.algorithms.steady_state.lp_reducescatter` for what it is
    optimal over).

    Parameters
    ----------
    platform : Platform
        Its graph view is the LP's graph (routers are nodes that forward).
    collective : Series or Collective
        A :class:`~collsched.collectives.Series` of a scatter, all-to-all,
        all-to-many, reduce, broadcast, all-gather, ReduceScatter or AllReduce.
    seed : int
        Unused (the LP and its decomposition are deterministic).
    ports : {"one", "multi"}
        The port model of the LP. ``"one"`` (seed 000): a node sends one
        message and receives one at a time; the period is cut into weighted
        matchings (slots); simulate under ``OnePort(sync=True,
        cost="edges")``. ``"multi"`` (GPU fabrics): every link direction is
        its own capacity, hosts send and receive on all their links at once,
        routers forward; the period is one slot in which every transfer runs,
        each link direction carrying its transfers one after another; simulate
        under ``Fluid()``.
    max_ops : int
        Largest number of operations per period of the exact period (the
        shortest with whole counts, see
        :func:`~collsched.algorithms.steady_state.periodic.shortest_period`);
        beyond it a fixed period with ``max_ops`` operations' worth of time
        is used (section 4.6): the status is FEASIBLE unless the rounding
        loses nothing, the message says so, and the exact LP optimum remains
        the bound.
    split : bool
        Split messages across matchings (else whole messages per slot);
        one-port only (multi-port has no matchings and sends whole messages).
    time_limit : float
        Seconds for HiGHS; beyond it the status is LIMIT.
    phases : {"pipelined", "sequential"}
        How the initialisation and clean-up phases (section 3.4) run: the
        periods before the first full one and after the last one, restricted
        to the operations that exist, or one slot per transfer as in the
        paper (see :func:`~collsched.algorithms.steady_state.periodic.phases`).
    method : {"auto", "lp"}
        ``"auto"``: under ``ports="multi"`` an AllGather, or a commutative
        ReduceScatter without task cost, is planned at ForestColl's cut
        bound by spanning-tree packing, a commutative AllReduce without task
        cost by time-sharing a ReduceScatter and an AllGather packing
        (:mod:`~collsched.algorithms.steady_state.plan_trees`; milliseconds;
        exact, except the AllReduce); ``"lp"``: always the steady-state LP.

    Returns
    -------
    PeriodicSchedule
        ``throughput``, ``period``, ``activities`` exact; ``bound`` the LP
        optimum; ``message`` HiGHS's status and the LP size; ``init`` and
        ``cleanup`` the phases.

    Raises
    ------
    ValueError
        If an option is out of range.
    SteadyStateError
        If a host is unreachable or the throughput is zero; under
        ``ports="multi"`` with the tree packing, if the packing along the
        platform's routes cannot reach the cut bound (non-Eulerian switches).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> c = cs.Series(cs.AllToAll(senders=p.hosts, size=1), count=6)
    >>> s = steady_state(p, c)
    >>> s.throughput, s.message.split(";")[0]
    (Fraction(1, 2), 'HiGHS: Optimal')
    >>> cs.validate(p, c, s)

    Multi-port, every host sends on its two links at once:

    >>> m = steady_state(p, c, ports="multi")
    >>> m.throughput, m.ports, len(m.slots)
    (Fraction(1, 1), 'multi', 1)
    >>> cs.validate(p, c, m)
    """
    check_ports(ports)
    if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops < 1:
        raise ValueError(f"steady_state option max_ops={max_ops!r} must be an integer >= 1")
    if not isinstance(split, bool):
        raise ValueError(f"steady_state option split={split!r} must be a bool")
    if not time_limit > 0:
        raise ValueError(f"steady_state option time_limit={time_limit!r} must be positive")
    if phases not in ("pipelined", "sequential"):
        raise ValueError(f"steady_state option phases={phases!r} must be 'pipelined' or 'sequential'")
    if method not in METHODS:
        raise ValueError(f"steady_state option method={method!r} must be 'auto' or 'lp'")
    base = collective.base
    base.validate(platform)
    opts = dict(ports=ports, max_ops=max_ops, split=split, time_limit=time_limit, phases=phases)
    for applies, lower in LOWERINGS:
        if applies(base, ports, method):
            return lower(platform, base, **opts)
    if isinstance(base, (Scatter, AllToAll, AllToMany)):
        return _flows(platform, base, **opts)
    if isinstance(base, Reduce):
        return _reduce(platform, base, **opts)
    if isinstance(base, (Broadcast, AllGather)):
        return _multicast(platform, base, **opts)
    raise CollectiveError(f"steady_state does not schedule {'an' if base.kind[0] in 'aeiou' else 'a'} {base.kind}")
