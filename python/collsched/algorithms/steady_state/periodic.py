"""From an exact LP optimum to a periodic schedule: period, matchings, slots, lowering (seed 000, §3.3-3.4).

1. **Period.** Seed 000's ``T`` = lcm of the denominators of every
   activity, divided by the gcd of the resulting counts
   (:func:`shortest_period`): the shortest period in which every route or
   tree carries whole operations; ``TP·T`` operations start per period.
   When that count exceeds ``max_ops`` (floating-point platform data give
   huge denominators), a fixed period is used instead (§4.6): each route or
   tree of rate ``r`` gets ``floor(r·T_fixed)`` operations.
2. **Routes.** Each message type's flow is decomposed into paths (the
   circulations left over carry nothing and are dropped); every operation of
   the period is assigned a path (reduces: a reduction tree; broadcasts: an
   arborescence). Each hop or task runs some ``stage`` periods after its
   operation's first (relative instance ``t - stage·q``): the same period as
   its predecessor when the predecessor's last slot comes before its first
   one, the next period otherwise (``plan._stages``), so a relay forwards
   only what it already holds.
3. **Matchings.** The bipartite send/receive multigraph of one period (edge
   weight = seconds of transfer on that edge) is made weight-regular and
   peeled into perfect matchings (:func:`color`); their durations sum to the
   largest one-port load, at most ``T``.
4. **Slots.** Each matching becomes a :class:`~collsched.schedules.periodic.Slot`;
   the edge's messages are laid end to end on the edge's timeline and each
   slot carries the pieces that fall into its interval (split messages, in
   units of ``1/denominator``). Without splitting (``split=False``) a
   message goes whole into the slot where it starts.
5. **Init and clean-up** (§3.4, :func:`phases`). A task of stage ``s``
   runs ``s`` periods after its operation's first, so before the first full
   period every relay must already hold what that period forwards: the
   initialisation sends it along the same routes; after the last full period
   the clean-up carries every message still on its way to its destination
   (one slot per transfer or computation as in the paper, or the pattern's
   matchings restricted to the operations that exist). Both
   take a time that depends on the pattern, not on the number ``K`` of
   operations, so ``K`` operations take ``init + R·T + cleanup`` with
   ``R = ceil(K/q) - lag`` full periods: §3.4's asymptotic optimality.

Examples
--------
>>> from fractions import Fraction as F
>>> mats = color({("a", "b"): F(2), ("a", "c"): F(1), ("d", "b"): F(1)})
>>> sum(d for d, _ in mats)
Fraction(3, 1)
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import networkx as nx

from ...schedules.periodic import PeriodicTask, PeriodicTransfer, Slot
from ...schedules.values import Piece, Value

__all__ = ["period_of", "shortest_period", "decompose_paths", "color", "route_slots", "type_amounts", "whole_slots",
           "phases"]


def period_of(values) -> int:
    """The lcm of the denominators of ``values`` (Fractions).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> period_of([F(1, 4), F(1, 6), F(2)])
    12
    """
    t = 1
    for v in values:
        t = math.lcm(t, Fraction(v).denominator)
    return t


def shortest_period(values, multiple_of=None) -> Fraction:
    """The shortest period ``T`` (a multiple of ``multiple_of``) in which every rate ``v`` gives ``v·T`` whole.

    Seed 000 takes ``T = lcm`` of the denominators; every ``v·T`` then is an
    integer, and so is every ``v·T/g`` with ``g`` the gcd of those integers:
    ``T/g`` is the shortest such period (the rates that are integer
    combinations of ``values`` — routes, trees — stay whole too). For the
    paper's examples both coincide.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> shortest_period([F(1, 4), F(1, 6)]), shortest_period([F(125, 4032), F(250, 4032)])
    (Fraction(12, 1), Fraction(4032, 125))
    >>> shortest_period([F(1, 2)], multiple_of=F(4032, 125))
    Fraction(4032, 1)
    """
    values = [Fraction(v) for v in values if v]
    t = Fraction(period_of(values))
    g = 0
    for v in values:
        g = math.gcd(g, int(v * t))
    t = t / g if g else t
    if multiple_of is not None:
        m = Fraction(multiple_of)
        t = Fraction(math.lcm(t.numerator, m.numerator), math.gcd(t.denominator, m.denominator))
    return t


def decompose_paths(flow: dict, src, dst) -> list[tuple[Fraction, tuple]]:
    """Decompose one commodity's edge flow ``{(u, v): rate}`` into ``(rate, path)`` from ``src`` to ``dst``.

    Circulations left when no path remains are dropped (they deliver nothing).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> decompose_paths({("s", "a"): F(1), ("a", "t"): F(1), ("s", "t"): F(1, 2)}, "s", "t")
    [(Fraction(1, 2), ('s', 't')), (Fraction(1, 1), ('s', 'a', 't'))]
    """
    rest = {e: v for e, v in flow.items() if v > 0}
    out = []
    while True:
        g = nx.DiGraph()
        g.add_edges_from(rest)
        if src not in g or dst not in g or not nx.has_path(g, src, dst):
            return out
        path = tuple(nx.shortest_path(g, src, dst))
        hops = list(zip(path, path[1:]))
        r = min(rest[e] for e in hops)
        for e in hops:
            rest[e] -= r
            if rest[e] == 0:
                del rest[e]
        out.append((r, path))


def color(weights: dict) -> list[tuple[Fraction, list]]:
    """Weighted edge colouring of a bipartite graph: matchings ``(duration, [(u, v), ...])``.

    ``weights`` maps ``(sender, receiver)`` to a positive duration. The graph
    is made weight-regular (degree ``Δ`` = the largest weighted degree) with
    dummy edges, then perfect matchings are peeled off, each for the
    smallest weight it covers; the durations sum to ``Δ``. Dummy edges are
    left out of the returned matchings.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> color({("a", "b"): F(1)})
    [(Fraction(1, 1), [('a', 'b')])]
    """
    try:
        from ... import _core
        native = getattr(_core, "weighted_edge_coloring", None)
    except ImportError:  # pragma: no cover
        native = None
    if native is not None:
        res = _color_native(native, weights)
        if res is not None:
            return res
    return _color_python(weights)


def _regular(weights: dict):
    """Left and right nodes, real weights and dummy weights (kept apart) of the weight-regular graph."""
    senders = sorted({u for u, _ in weights}, key=str)
    receivers = sorted({v for _, v in weights}, key=str)
    n = max(len(senders), len(receivers))
    S = [("s", u) for u in senders] + [("s", ("dummy", i)) for i in range(n - len(senders))]
    R = [("r", v) for v in receivers] + [("r", ("dummy", i)) for i in range(n - len(receivers))]
    real: dict = {}
    deg: dict = {}
    for (u, v), x in weights.items():
        if x > 0:
            real[(("s", u), ("r", v))] = real.get((("s", u), ("r", v)), 0) + Fraction(x)
            deg[("s", u)] = deg.get(("s", u), 0) + Fraction(x)
            deg[("r", v)] = deg.get(("r", v), 0) + Fraction(x)
    delta = max(deg.values(), default=Fraction(0))
    ds = [[a, delta - deg.get(a, 0)] for a in S]
    dr = [[b, delta - deg.get(b, 0)] for b in R]
    i = j = 0
    dummy: dict = {}
    while i < len(ds) and j < len(dr):
        if ds[i][1] == 0:
            i += 1
            continue
        if dr[j][1] == 0:
            j += 1
            continue
        x = min(ds[i][1], dr[j][1])
        key = (ds[i][0], dr[j][0])
        dummy[key] = dummy.get(key, 0) + x
        ds[i][1] -= x
        dr[j][1] -= x
    return S, R, real, dummy


def _color_python(weights: dict) -> list[tuple[Fraction, list]]:
    S, R, real, dummy = _regular(weights)
    # the matching runs on integer labels: networkx iterates sets of nodes, and the order of a set of strings
    # changes with PYTHONHASHSEED, that of small integers does not (the same input, the same slots)
    label = {x: i for i, x in enumerate(S + R)}
    out = []
    while real:
        g = nx.Graph()
        g.add_nodes_from(range(len(label)))
        g.add_edges_from((label[a], label[b]) for a, b in real)
        g.add_edges_from((label[a], label[b]) for a, b in dummy)
        m = nx.bipartite.hopcroft_karp_matching(g, top_nodes=range(len(S)))
        pairs = [(a, R[m[i] - len(S)]) for i, a in enumerate(S) if i in m]
        if len(pairs) != len(S):  # pragma: no cover - König: a regular bipartite graph has one
            raise RuntimeError("no perfect matching in a weight-regular bipartite graph")
        # each pair is peeled from its real part if it has one, else from its dummy part
        part = {e: (real if e in real else dummy) for e in pairs}
        eps = min(part[e][e] for e in pairs)
        for e in pairs:
            part[e][e] -= eps
            if part[e][e] == 0:
                del part[e][e]
        edges = [(a[1], b[1]) for a, b in pairs if part[(a, b)] is real]
        if edges:
            out.append((eps, edges))
    return out


def _color_native(native, weights: dict):
    """The Rust colouring on integer weights (a common denominator); None if they do not fit in 63 bits."""
    items = [(k, Fraction(v)) for k, v in weights.items() if v > 0]
    if not items:
        return []
    den = period_of(v for _, v in items)
    ints = [int(v * den) for _, v in items]
    if sum(ints) * (2 * len(items) + 2) >= 2**63:
        return None
    senders = sorted({u for (u, _), _ in items}, key=str)
    receivers = sorted({v for (_, v), _ in items}, key=str)
    si = {u: i for i, u in enumerate(senders)}
    ri = {v: i for i, v in enumerate(receivers)}
    try:
        mats = native([si[u] for (u, _), _ in items], [ri[v] for (_, v), _ in items], ints,
                      len(senders), len(receivers))
    except OverflowError:  # pragma: no cover - guarded above
        return None
    return [(Fraction(d, den), [items[e][0] for e in edges]) for d, edges in mats]


def _type(value):
    """A message type: the value without its instance."""
    return value._replace(inst=0)


def type_amounts(items: dict, mats: list) -> dict:
    """``(matching, edge, type) -> messages`` (a Fraction) that the matching carries of that type on that edge.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from collsched.schedules.values import block
    >>> items = {("a", "b"): [(block(0, 0, 1), F(1), 8.0), (block(1, 0, 1), F(1), 8.0)]}
    >>> type_amounts(items, [(F(1, 2), [("a", "b")]), (F(3, 2), [("a", "b")])])
    {(0, ('a', 'b'), m[0→1]@0): Fraction(1, 2), (1, ('a', 'b'), m[0→1]@0): Fraction(3, 2)}
    """
    out: dict = {}
    for e, msgs in items.items():
        cuts = []
        pos = Fraction(0)
        for k, (d, edges) in enumerate(mats):
            if e in edges:
                cuts.append((k, pos, pos + d))
                pos += d
        t = Fraction(0)
        for value, sec, _ in msgs:
            for k, a, b in cuts:
                lo, hi = max(a, t), min(b, t + sec)
                if lo < hi:
                    key = (k, e, _type(value))
                    out[key] = out.get(key, 0) + (hi - lo) / sec
            t += sec
    return out


def whole_slots(items: dict, mats: list, amounts: dict, scale: int) -> list:
    """The variant without split messages (seed 000, Fig. 4(b)): the period scaled by ``scale``.

    ``items`` are the messages of the scaled period (``scale`` times as many
    of each type on each edge); matching ``k`` lasts ``scale`` times longer
    and carries ``amounts[k, e, type] · scale`` whole messages of each type,
    an integer by the choice of ``scale`` (the lcm of the amounts'
    denominators).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from collsched.schedules.values import block
    >>> mats = [(F(1, 2), [("a", "b")]), (F(1, 2), [("a", "b")])]
    >>> items = {("a", "b"): [(block(0, 0, 1), F(1, 2), 8.0), (block(1, 0, 1), F(1, 2), 8.0)]}
    >>> amounts = {(0, ("a", "b"), block(0, 0, 1)): F(1, 2), (1, ("a", "b"), block(0, 0, 1)): F(1, 2)}
    >>> [len(s.transfers) for s in whole_slots(items, mats, amounts, 2)]
    [1, 1]
    """
    queues: dict = {}
    for e, msgs in items.items():
        for value, _, size in msgs:
            queues.setdefault((e, _type(value)), []).append((value, size))
    heads = {key: 0 for key in queues}
    slots = []
    for k, (d, edges) in enumerate(mats):
        transfers = []
        for e in edges:
            for (kk, ee, ty), amount in amounts.items():
                if kk != k or ee != e:
                    continue
                n = amount * scale
                if n.denominator != 1:
                    raise ValueError(f"scale {scale} leaves {n} messages in a matching")
                q = queues[(e, ty)]
                take = q[heads[(e, ty)]:heads[(e, ty)] + int(n)]
                heads[(e, ty)] += int(n)
                for value, size in take:
                    transfers.append(PeriodicTransfer(e[0], e[1], [value], size))
        slots.append(Slot(d * scale, transfers))
    return slots


def route_slots(items: dict, split: bool = True, max_denominator: int = 2**40, timings: dict | None = None):
    """Slots of one period from the messages on each edge.

    Parameters
    ----------
    items : dict
        ``(u, v) -> [(value, seconds, bytes), ...]``: the edge's messages of
        one period, in order (``value`` with a relative instance).
    split : bool
        Split messages across matchings (exact durations); else whole
        messages go into the slot where they start.
    max_denominator : int
        Above this piece denominator, messages are not split.
    timings : dict, optional
        Seconds of the colouring are added to its ``"colouring"`` entry.

    Returns
    -------
    (list of Slot, int)
        The slots and the piece denominator.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from collsched.schedules.values import block
    >>> slots, den = route_slots({("a", "b"): [(block(0, 0, 1), F(1), 8.0)]})
    >>> len(slots), den, slots[0].duration
    (1, 1, Fraction(1, 1))
    """
    weights = {e: sum((x[1] for x in msgs), Fraction(0)) for e, msgs in items.items() if msgs}
    t0 = time.perf_counter()
    mats = color(weights)
    if timings is not None:
        timings["colouring"] = timings.get("colouring", 0.0) + time.perf_counter() - t0
    # exact integer time: one unit is 1/D seconds, D the lcm of every duration's denominator
    D = period_of([d for d, _ in mats] + [x[1] for msgs in items.values() for x in msgs])
    # each edge's timeline: matching k covers [pos, pos + d) of it
    cuts: dict = {e: [] for e in weights}
    for k, (d, edges) in enumerate(mats):
        di = int(d * D)
        for e in edges:
            start = cuts[e][-1][2] if cuts[e] else 0
            cuts[e].append((k, start, start + di))
    # messages and matchings both lie end to end on the edge's timeline: one sweep finds their overlaps
    secs = {e: [int(x[1] * D) for x in msgs] for e, msgs in items.items()}
    overlaps = {e: _sweep(secs[e], cuts.get(e, [])) for e in items}
    den = 1
    if split:
        for e in items:
            for i, _, lo, hi, t in overlaps[e]:
                sec = secs[e][i]
                for x in (lo, hi):
                    if t < x < t + sec:
                        den = math.lcm(den, sec // math.gcd(x - t, sec))
        if den > max_denominator:
            split, den = False, 1
    per_slot: list[dict] = [dict() for _ in mats]
    for e, msgs in items.items():
        last = None
        for i, k, lo, hi, t in overlaps[e]:
            value, _, size = msgs[i]
            if split:
                if lo < hi:
                    sec = secs[e][i]
                    a, b = (lo - t) * den // sec, (hi - t) * den // sec
                    per_slot[k].setdefault(e, []).append((Piece(value, a, b), size * (b - a) / den))
            elif i != last:  # whole, in the slot where it starts
                per_slot[k].setdefault(e, []).append((value, size))
                last = i
    slots = []
    for (d, _), msgs in zip(mats, per_slot):
        transfers = []
        for (u, v), lst in msgs.items():
            # one transfer per instance: lowering keeps or skips a transfer as a whole
            by_inst: dict = {}
            for x, sz in lst:
                inst = (x.value if isinstance(x, Piece) else x).inst
                by_inst.setdefault(inst, []).append((x, sz))
            for group in by_inst.values():
                transfers.append(PeriodicTransfer(u, v, [x for x, _ in group], sum(sz for _, sz in group)))
        slots.append(Slot(d, transfers))
    return slots, den


def _sweep(secs: list, cuts: list) -> list:
    """``(message index, matching, lo, hi, message start)`` for each overlap of two end-to-end timelines.

    ``secs`` are the messages' durations laid from time 0; ``cuts`` are
    ``(matching, start, end)`` in order. A message starting exactly where
    the last cut ends (no room left) is given to that cut, empty.
    """
    out = []
    j = 0
    t = 0
    for i, sec in enumerate(secs):
        end = t + sec
        while j < len(cuts) and cuts[j][2] <= t:
            j += 1
        if j == len(cuts):
            if cuts:
                out.append((i, cuts[-1][0], t, t, t))
        else:
            jj = j
            while jj < len(cuts) and cuts[jj][1] < end:
                k, a, b = cuts[jj]
                out.append((i, k, max(a, t), min(b, end), t))
                jj += 1
        t = end
    return out


def _inst(x) -> int:
    return x.value.inst if isinstance(x, Piece) else x.inst


def _moved(items, offset: int) -> list:
    """Values or pieces moved by ``offset`` instances (built directly: ``_replace`` is several times slower)."""
    out = []
    for x in items:
        if isinstance(x, Piece):
            v = x.value
            out.append(Piece(Value(v[0], v[1] + offset, v[2], v[3]), x.start, x.end))
        else:
            out.append(Value(x[0], x[1] + offset, x[2], x[3]))
    return out


def phases(slots, q: int, lag: int, cost: dict, speed: dict, *, sequential: bool = False) -> tuple[tuple, tuple]:
    """The initialisation and clean-up phases of a pattern (seed 000, §3.4), one operation per slot.

    The pattern runs in full from its first period when the initialisation
    has done what the ``lag`` periods before it would have done for
    instances ``>= 0`` (a virtual period ``p`` in ``-lag .. -1`` reads ``@t``
    as instance ``(p + lag)·q + t``); the clean-up does what the ``lag``
    periods after the last full one would do for the instances already
    started (instances ``< lag·q``, counted from the first one the full
    periods leave unfinished). Going period by period, every relay forwards
    only what it already holds, and both phases last a time that does not
    depend on the number of operations (§3.4).

    With ``sequential``, each transfer or computation gets its own slot, in
    the paper's order (the lowering keeps that order on each port and CPU;
    transfers on different ports may overlap). Without (the
    default), each slot of those periods keeps the transfers and
    computations of the instances that exist: still a one-port matching, so
    each phase lasts at most ``lag`` periods — the improvement the paper
    says its sequential phases "could easily" take (§3.3).

    Parameters
    ----------
    slots : sequence of Slot
        One period of the pattern (relative instances).
    q : int
        Operations per period.
    lag : int
        :meth:`PeriodicSchedule.lag` of the pattern.
    cost : dict
        ``(u, v) -> seconds per byte`` (exact), for the slots' durations.
    speed : dict
        ``host -> flop/s`` (exact), for computations.
    sequential : bool
        One transfer or computation per slot (else the matchings, filtered).

    Returns
    -------
    (tuple of Slot, tuple of Slot)
        ``init`` (absolute instances) and ``cleanup`` (instances counted from
        the first unfinished one).

    Examples
    --------
    A relay forwarding in period ``p`` what it received in ``p - 1``: the
    initialisation sends instance 0 to the relay, the clean-up forwards the
    last instance.

    >>> from fractions import Fraction as F
    >>> from collsched.schedules.values import block
    >>> hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1.0)
    >>> hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1.0)
    >>> init, cleanup = phases([Slot(F(1), [hop1, hop2])], 1, 1, {("h0", "h1"): F(1), ("h1", "h2"): F(1)}, {},
    ...                        sequential=True)
    >>> [t.pieces for s in init for t in s.transfers], [t.pieces for s in cleanup for t in s.transfers]
    ([(m[0→2]@0,)], [(m[0→2]@0,)])
    """
    # each transfer and task once: its pieces and the range of its relative instances
    pattern = []
    for slot in slots:
        ts = [(t, t.pieces) for t in slot.transfers]
        ks = [(k, k.inputs + (k.output,)) for k in slot.tasks]
        pattern.append((slot.duration, [(t, ps, min(map(_inst, ps)), max(map(_inst, ps))) for t, ps in ts],
                        [(k, ps, min(map(_inst, ps)), max(map(_inst, ps))) for k, ps in ks]))
    init, cleanup = [], []
    for phase, periods, hi in ((init, range(-lag, 0), None), (cleanup, range(0, lag), lag * q)):
        for p in periods:
            offset = (p + lag) * q
            for duration, ts, ks in pattern:
                transfers = [PeriodicTransfer(t.src, t.dst, _moved(ps, offset), t.size) for t, ps, lo, up in ts
                             if lo + offset >= 0 and (hi is None or up + offset < hi)]
                tasks = []
                for k, ps, lo, up in ks:
                    if lo + offset >= 0 and (hi is None or up + offset < hi):
                        moved = _moved(ps, offset)
                        tasks.append(PeriodicTask(k.node, moved[:-1], moved[-1], k.cost))
                if not sequential:
                    if transfers or tasks:
                        phase.append(Slot(duration, transfers, tasks))
                    continue
                phase.extend(Slot(Fraction(t.size) * cost[(t.src, t.dst)], [t]) for t in transfers)
                phase.extend(Slot(Fraction(t.cost) / speed[t.node], [], [t]) for t in tasks)
    return tuple(init), tuple(cleanup)
