"""Forest schedules from tree packings: :func:`plan_forest`, registered as ``forest``.

:func:`plan_forest` packs weighted spanning trees per root
(:func:`collsched.algorithms.gpu.forest.pack_forest`: out-trees for an
all-gather, in-trees for a reduce-scatter, the all-gather's out-trees for
an all-reduce) and makes them a
:class:`~collsched.schedules.ForestSchedule`, which lowers them to a program
(its module docstring says how). Where the routes keep the packing below
the cut bound and stars along the routes carry more (or the routes leave no
trees at all), the packing is those stars (:func:`.forest.route_stars`):
the schedule is then FEASIBLE, the cut bound still its bound, and its
``message`` says so and names the nodes that lost capacity. Three things
are decided here:

* **Shares.** Tree ``T`` of root ``r`` carries ``w_T / x`` of ``r``'s block.
  The program's denominator is the lcm of those fractions' denominators
  (times ``chunks``, times ``N`` for reductions); when the lcm exceeds
  :data:`~collsched.schedules.forest.MAX_SHARE_DENOMINATOR`, the shares are
  rounded to multiples of ``1 / 2**19`` (largest remainders, each root's
  still adding up to 1), and the throughput claimed is the rate the rounded
  shares reach: ``min_T w_T / share_T`` (the message says so).
* **All-reduce trees and rate.** The reduce-scatter phase runs at the same
  time as the all-gather phase (chunk after chunk), so every link carries
  both phases' loads. Its in-trees are either the reversed all-gather trees
  (ForestColl's all-reduce) or the reduce-scatter packing's in-trees, paired
  with the all-gather trees piece by piece (each root's shares of both
  packings cut at the union of their boundaries); for each, the rate is the
  largest ``x`` at which every link direction carries its load (each arc
  ``u→v`` of share ``s`` loads the links of its route by ``s·x``), exact,
  and the faster is kept. On a fabric with one-way links (``dgx2``,
  ``ndv2``) a reversed arc may follow a longer route than the arc.
* **Trees and chunks of one large collective.** A series pipelines its
  instances (``chunks=1``); one collective is cut into chunks, and a chunk
  needs a round per arc of the deepest tree before the pipeline is full.
  The packing's trees can be deep (17 arcs on ``dgx2(2)``, where switch
  removal leaves few logical arcs per GPU), so a second forest is packed on
  the direct routes between participants (:mod:`.lower_shallow`, 9 arcs
  there, but 207 trees) where it carries the same rate; for each forest
  :func:`choose_chunks` picks the count that minimises the round model
  :func:`makespan_model` within :data:`MAX_MESSAGES`, and the forest with
  the shorter modelled makespan is kept (on a tie up to float noise, the
  one with fewer rounds: on ``dgx2(1)`` the direct routes' stars in one
  chunk, 7.5007 ms for a 1 GB AllGather, where the packing's rings in 128
  chunks took 7.519 ms and the best baseline 7.503 ms). Measured (1 GB AllGather on
  ``dgx2(2)``, ``Fluid``, ``benchmarks/bench_gpu_forest_schedule.py``):
  the packing's 32 trees in 256 chunks (the choice) take 7.838 ms, 1.1%
  above the bandwidth bound of 7.75 ms (TE-CCL's published figure).

Bounds: the schedule's :attr:`~collsched.schedules.Schedule.bound`, valid
for every schedule under the multi-port model (e.g. ``Fluid``); the Notes of
:func:`plan_forest` say what they are and why they hold.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.dgx2(1)
>>> c = cs.Series(cs.AllGather(participants=p.hosts, size=1e6), count=4)
>>> s = plan_forest(p, c)
>>> s.throughput == s.rate_bound, s.status, s.chunks
(True, <Status.OPTIMAL: 'optimal'>, 1)
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from ...errors import CollschedError
from ...schedules import Bound, ForestSchedule, ForestTree, Status
from ...schedules.forest import FOREST_KINDS, MAX_SHARE_DENOMINATOR
from ..registry import register
from .forest import pack_forest
from .lower_shallow import link_loads, reduce_depth, shallow_trees

__all__ = ["plan_forest", "choose_chunks", "makespan_model", "round_time", "least_cut", "transmission_capacity",
           "latency_bound", "CHUNK_CHOICES",
           "MAX_MESSAGES", "MAX_UNIT_MESSAGES", "ROUNDED_SHARES"]

#: The chunk counts :func:`choose_chunks` picks from.
CHUNK_CHOICES = (1, 2, 4, 8, 16, 32, 64, 128, 256)
#: One collective is cut into no more chunks than keep its program within this many messages.
MAX_MESSAGES = 2**19
#: Unit messages per item above which a series (all-gather, reduce-scatter) or an all-reduce is lowered in rounds
#: (a series whose rounds fall behind its rate, :func:`round_time`, goes as units up to the second).
MAX_UNIT_MESSAGES = (128, 2048)
#: Shares are rounded to multiples of ``1 / ROUNDED_SHARES`` when their lcm is too large.
ROUNDED_SHARES = 2**19


def plan_forest(platform, collective, *, chunks: int | None = None, seed: int = 0,
                window: int = 1) -> ForestSchedule:
    """A forest schedule of an all-gather, reduce-scatter or all-reduce (or a series of one).

    Parameters
    ----------
    platform : Platform
        Multi-port: every link direction is its own capacity.
    collective : AllGather, ReduceScatter or AllReduce, or a Series of one
    chunks : int, optional
        Pieces each tree's share of a block is cut into. By default 1 for a
        series (its instances pipeline), :func:`choose_chunks` for one
        collective.
    seed : int
        Unused (the packing is deterministic).
    window : int
        Rounds of messages in flight from one rank to another (see :class:`~collsched.schedules.ForestSchedule`).

    Returns
    -------
    ForestSchedule
        ``status`` OPTIMAL for a series whose claimed rate equals the bound;
        ``messages`` "unit" for one all-gather or reduce-scatter (units
        hide the latencies between chunks); for a series, and for one
        all-reduce, "unit" when its unit messages per item (instance or
        chunk; a series's units exact, :meth:`~collsched.schedules.ForestSchedule.units`)
        are at most :data:`MAX_UNIT_MESSAGES` (128 for an all-gather
        or reduce-scatter series, 2048 for an all-reduce), else "round";
        but "unit" for a series of at most 2048 unit messages per item
        whose rounds would fall behind its rate (:func:`round_time` above
        1: random platform 2738, all-gather, settled at 0.94915 of its
        claim in rounds, and at the claim as units).
        Measured (``benchmarks/bench_gpu_forest_schedule.py``, ``Fluid``):
        small platforms and all-reduces on ``ndv2`` reach their rate as
        units (exactly, or 1.00003 in the full pipeline on ``ndv2(4)``,
        where rounds gave 0.972), and the larger forests (``dgx2(2)``,
        ``dgx_a100(2)``, ``mi250(2)``) reach 0.999 or more in rounds, where
        units settle slowly or not within the window. ``params``:
        ``chunks``, ``window``, ``messages`` and, for one collective, the
        ``bandwidth_bound`` and ``latency_bound`` (seconds) and the model's
        ``model_makespan``.

    Raises
    ------
    CollschedError
        A collective of another kind.
    ValueError
        ``chunks`` or ``window`` not an integer >= 1.
    CollectiveError, PlatformError
        The collective does not fit the platform (a router as participant, a participant another cannot reach).

    Notes
    -----
    **The bounds.** ``rate_bound`` bounds the bytes/s of each root's
    stream, for every schedule of the collective under the multi-port
    model (every link direction its own capacity, as ``Fluid`` has it):

    * all-gather, reduce-scatter: the cut bound ``x*`` (ForestColl's; exact,
      :func:`.cut_bound.cut_bound`);
    * all-reduce of a ``V``-byte vector (stream ``V/N`` per root): the least
      of three, each a valid bound:

      - ``x*_AG``, the all-gather cut bound: an all-gather of ``V/N``-byte
        blocks is a sum all-reduce of zero-padded vectors, so no all-reduce
        schedule that works for every input is faster than that all-gather;
      - ``λ / N``, ``λ`` the least capacity ``B⁺(S)`` of a cut ``S`` that
        separates two participants (:func:`least_cut`): the result on the
        far side depends on all ``V`` bytes of the operands inside ``S``, so
        at least ``V`` bytes cross (the operands can be combined before they
        cross, so not more);
      - ``E / (2 N (N - 1))``, ``E`` the bytes/s all hosts can send at once
        (or receive, the smaller: :func:`transmission_capacity`): each
        byte of the vector must be sent at least ``2 (N - 1)`` times, from
        host to host (a message carries pieces of the vector or partial
        reductions of them, never a mix of different bytes, as programs
        do). For that byte, think of each message as a one-way call that
        passes on all its sender knows: the calls up to the first moment some
        host knows every operand connect the ``N`` participants (``N - 1``
        calls at least, relays included), and every other participant must
        receive a call after that moment (``N - 1`` more): the one-way
        gossip bound of Harary and Schwenk (1974). So ``2 (N - 1) V`` bytes
        leave hosts, in at least ``2 (N - 1) V / E`` seconds. On one switch
        (``dgx2(1)``: ``E = 16 · 125`` GB/s) this is the rate of the
        reduce-scatter + all-gather trees, which are then optimal; on
        ``dgx2(2)`` it moves the 1 GB bound from 10 ms (``λ``) to 14.76 ms.

    For one collective the bound is a makespan: the largest of
    ``block / rate_bound`` and the latency bound (:func:`latency_bound`: one
    participant's data must reach the farthest other); for a series, a
    throughput: ``rate_bound / block`` operations per second.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.dgx2(1)
    >>> c = cs.AllGather(participants=p.hosts, size=2**20)
    >>> s = plan_forest(p, c, chunks=4)
    >>> s.chunks, float(s.rate_bound) == 125e9 / 15
    (4, True)
    >>> s.bound.metric, s.bound.value == 2**20 / (125e9 / 15)
    ('makespan', True)
    >>> plan_forest(p, c, chunks=0)
    Traceback (most recent call last):
    ...
    ValueError: forest option chunks=0 is not an integer >= 1
    """
    for name, value in (("chunks", chunks), ("window", window)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"forest option {name}={value!r} is not an integer >= 1")
    base = collective.base
    if base.kind not in FOREST_KINDS:
        raise CollschedError(f"the forest algorithm schedules {', '.join(FOREST_KINDS)}, not a {base.kind}")
    collective.validate(platform)
    participants = tuple(base.participants)
    series = collective.kind == "series"
    best = None
    for label, trees, rate, rate_bound, notes in _candidates(platform, participants, base.kind, shallow=not series):
        trees, rate, note = _bounded_shares(trees, participants, rate)
        draft = ForestSchedule(kind=base.kind, participants=participants, trees=tuple(trees), throughput=rate,
                               rate_bound=rate_bound, chunks=chunks or 1, window=window, algorithm="forest",
                               messages=_messages(platform, trees, participants, base.kind, rate, series))
        notes = [n for n in notes + [note] if n]
        if series:
            best = (0.0, draft, chunks or 1, label, notes, 0)
            break
        pieces = chunks or choose_chunks(platform, draft, collective)
        model = makespan_model(platform, draft, collective, pieces)
        rounds = pieces + draft.depth() - 1
        if best is None or (_settled(model), rounds) < (_settled(best[0]), best[5]):
            best = (model, draft, pieces, label, notes, rounds)
    model, draft, chunks, label, notes, _ = best
    block = Fraction(draft.block_bytes(collective))
    rate, rate_bound = draft.throughput, draft.rate_bound
    params = {"chunks": chunks, "window": window, "messages": draft.messages}
    if series:
        bound = Bound(rate_bound / block, "throughput", "multi-port cut bound per root stream, per operation")
        status = Status.OPTIMAL if rate == rate_bound else Status.FEASIBLE
    else:
        bandwidth = float(block / rate_bound)
        latency = latency_bound(platform, participants)
        bound = Bound(max(bandwidth, latency), "makespan", "multi-port cut bound of the bytes, or the latency between "
                      "two participants")
        params.update(trees=label, bandwidth_bound=bandwidth, latency_bound=latency, model_makespan=model)
        status = Status.FEASIBLE
    return dataclasses.replace(draft, chunks=chunks, params=params, bound=bound, status=status,
                               message="; ".join(notes))


def _messages(platform, trees: list[ForestTree], participants, kind: str, rate: Fraction, series: bool) -> str:
    """``"unit"`` or ``"round"`` messages (:class:`~collsched.schedules.ForestSchedule`), as ``plan_forest`` says."""
    if kind != "allreduce" and not series:
        return "unit"
    probe = ForestSchedule(kind=kind, participants=participants, trees=tuple(trees), throughput=rate, rate_bound=rate,
                           messages="unit")
    units = probe.units(series=series)[0]
    per_item = sum(k * len(t.arcs) for k, t in zip(units, trees)) * (2 if kind == "allreduce" else 1)
    if per_item <= MAX_UNIT_MESSAGES[kind == "allreduce"]:
        return "unit"
    if series and per_item <= MAX_UNIT_MESSAGES[1] and round_time(platform, probe) > 1:
        return "unit"  # the rounds would fall behind the claimed rate, the exact units keep it
    return "round"


def round_time(platform, schedule: ForestSchedule) -> Fraction:
    """How long a full round of ``schedule`` in rounds lasts under ``Fluid``, in periods of its claimed rate (exact).

    In the full pipeline of a series in rounds, each pair of ranks sends
    one message per round, carrying its pieces of every tree and stage: at
    the claimed rate ``x``, ``x · Σ share`` bytes a period (the sum over
    the tree arcs on that pair). The model starts all these messages at
    once and shares the links among them as ``Fluid`` does (max-min fair,
    equal shares per message; fatpipe links cap a message), until the last
    ends. Latencies are left out. Equal shares per message are not shares
    in proportion to the pairs' loads: a link that the claim fills is idle
    for a while when, after its smaller messages end, its larger ones are
    held back elsewhere; the round then lasts more than one period, and the
    rounds (each waits for the one before) fall behind the claimed rate.

    Parameters
    ----------
    platform : Platform
    schedule : ForestSchedule
        Its trees, shares and throughput (``throughput`` > 0).

    Returns
    -------
    Fraction
        At most 1 when the rounds keep the claimed rate.

    Examples
    --------
    On one switch every pair has its own links: the rounds keep the pace.

    >>> import collsched as cs
    >>> p = cs.topologies.dgx2(1)
    >>> round_time(p, plan_forest(p, cs.Series(cs.AllGather(participants=p.hosts, size=1e6), count=2)))
    Fraction(1, 1)
    """
    shares = schedule.shares()
    size: dict[tuple[str, str], Fraction] = {}
    for _, j, u, v in schedule.stage_arcs():
        size[(u, v)] = size.get((u, v), Fraction(0)) + shares[j] * schedule.throughput
    channels: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    cap: dict[tuple[str, str], Fraction | None] = {}
    for u, v in size:
        channels[(u, v)], cap[(u, v)] = [], None
        for link, forward in platform.route_hops(u, v):
            spec = platform.links[link]
            if spec.sharing == "fatpipe":
                cap[(u, v)] = min(cap[(u, v)] or Fraction(spec.bandwidth), Fraction(spec.bandwidth))
            else:
                channels[(u, v)].append((link, bool(forward) or spec.sharing != "full_duplex"))
    time = Fraction(0)
    while size:
        rate = _max_min(platform, size, channels, cap)
        step = min(left / rate[pair] for pair, left in size.items())
        time += step
        size = {pair: left - rate[pair] * step for pair, left in size.items() if left > rate[pair] * step}
    return time


def _max_min(platform, flows, channels, cap) -> dict:
    """Progressive filling: the max-min fair rates of ``flows`` on their ``channels`` (and ``cap``), exact."""
    left = {c: Fraction(platform.links[c[0]].bandwidth) for f in flows for c in channels[f]}
    rate = {f: Fraction(0) for f in flows}
    free = set(flows)
    while free:
        users: dict[tuple[str, bool], int] = {}
        for f in free:
            for c in channels[f]:
                users[c] = users.get(c, 0) + 1
        step = min([left[c] / n for c, n in users.items()] +
                   [cap[f] - rate[f] for f in free if cap[f] is not None])
        for f in free:
            rate[f] += step
        for c, n in users.items():
            left[c] -= step * n
        free = {f for f in free if all(left[c] > 0 for c in channels[f]) and (cap[f] is None or rate[f] < cap[f])}
    return rate


def _candidates(platform, participants, kind: str, *, shallow: bool):
    """The forests to choose from: ``(label, trees, rate, rate_bound, notes)``.

    The packing (:func:`.forest.pack_forest`) always; for one collective
    (``shallow``) also the packing on direct routes
    (:func:`.lower_shallow.shallow_trees`) where it carries the same rate,
    with its nodes moved up where the links allow
    (:func:`.lower_shallow.reduce_depth`). On ``dgx2(2)`` (1 GB AllGather,
    ``Fluid``) the packing's trees are up to 19 arcs deep and simulate in
    9.12 ms with 64 chunks; the direct routes' 9 arcs deep, 9.31 ms with
    32 chunks; moving the packing's nodes up (13 arcs) made it slower
    (9.89 ms with 64 chunks), so it is not a candidate.
    """
    kinds = ("reducescatter",) if kind == "reducescatter" else \
        ("allgather",) if kind == "allgather" else ("allgather", "reducescatter")
    packed = {k: pack_forest(platform, participants, kind=k) for k in kinds}
    forests = {"packing": {k: [ForestTree(t.root, t.weight, t.arcs) for t in f.trees] for k, f in packed.items()}}
    if shallow:
        direct = {k: shallow_trees(platform, participants, k, Fraction(f.throughput)) for k, f in packed.items()}
        if all(t is not None for t in direct.values()):
            forests["direct routes"] = {k: reduce_depth(platform, t, k) for k, t in direct.items()}
    first = packed[kinds[0]]
    rate_bound = Fraction(first.bound)
    if kind == "allreduce":  # the bounds of plan_forest's Notes
        n = len(participants)
        rate_bound = min(rate_bound, least_cut(platform, participants) / n)
        spread = transmission_capacity(platform)
        if spread is not None:
            rate_bound = min(rate_bound, spread / (2 * n * (n - 1)))
    for label, by_kind in forests.items():
        rate = Fraction(first.throughput)
        notes = [first.note]
        trees = by_kind[kinds[0]]
        if kind == "allreduce":  # each note says which packing it is about, when its trees are used
            trees, rate, choice = _allreduce_trees(platform, participants, trees, by_kind["reducescatter"])
            up = packed["reducescatter"].note if choice else ""
            notes = [first.note and f"the all-gather packing: {first.note}", choice,
                     up and f"the reduce-scatter packing: {up}"]
        yield label, trees, rate, rate_bound, notes


def _bounded_shares(trees: list[ForestTree], participants, rate: Fraction) -> tuple[list[ForestTree], Fraction, str]:
    """The trees with shares of bounded denominators, the rate they carry, and a note when rounded."""
    totals = {r: sum((t.weight for t in trees if t.root == r), Fraction(0)) for r in participants}
    shares = [t.weight / totals[t.root] for t in trees]
    if math.lcm(*(s.denominator for s in shares)) <= MAX_SHARE_DENOMINATOR:
        return trees, rate, ""
    q = ROUNDED_SHARES
    rounded: list[int] = [0] * len(trees)
    for r in participants:  # largest remainders: each root's shares still add up to q / q
        mine = [j for j, t in enumerate(trees) if t.root == r]
        floors = {j: math.floor(shares[j] * q) for j in mine}
        left = q - sum(floors.values())
        for j in sorted(mine, key=lambda j: -(shares[j] * q - floors[j]))[:left]:
            floors[j] += 1
        for j, k in floors.items():
            rounded[j] = k
    kept = [(t, Fraction(k, q)) for t, k in zip(trees, rounded) if k > 0]
    carried = min(t.weight / s for t, s in kept)
    return ([ForestTree(t.root, s * carried, t.arcs, t.up) for t, s in kept], carried,
            f"tree shares rounded to multiples of 1/{q}: they carry {float(carried):.6g} of the packing's "
            f"{float(rate):.6g} bytes/s per root")


def _allreduce_trees(platform, participants, down: list[ForestTree], up: list[ForestTree]):
    """The all-reduce's trees, the rate both phases reach together, and which pairing gave it.

    Two candidates: the all-gather trees with their reverses as in-trees
    (ForestColl's all-reduce), and the all-gather trees paired with the
    reduce-scatter packing's in-trees (each root's shares of both packings
    cut at the union of their boundaries: one entry per piece, with the
    in-tree and the out-tree that carry it). Each gives the rate ``x`` at
    which every link direction still carries both phases' loads; the faster
    wins (the reversed trees on a tie).
    """
    reversed_ = [(t.root, _share(t, down), t.arcs, None) for t in down]
    paired = []
    for r in participants:
        ins = [(_share(t, up), t.arcs) for t in up if t.root == r]
        outs = [(_share(t, down), t.arcs) for t in down if t.root == r]
        i = j = 0
        left_in, left_out = ins[0][0], outs[0][0]
        while i < len(ins) and j < len(outs):
            piece = min(left_in, left_out)
            paired.append((r, piece, outs[j][1], ins[i][1]))
            left_in, left_out = left_in - piece, left_out - piece
            if not left_in:
                i += 1
                left_in = ins[i][0] if i < len(ins) else 0
            if not left_out:
                j += 1
                left_out = outs[j][0] if j < len(outs) else 0
    best = None
    for name, entries in (("reversed", reversed_), ("paired", paired)):
        arcs = [(u, v, share) for _, share, down_arcs, up_arcs in entries
                for u, v in down_arcs + (up_arcs or tuple((b, a) for a, b in down_arcs))]
        loads = link_loads(platform, arcs)
        rate = min(Fraction(platform.links[link].bandwidth) / load for (link, _), load in loads.items() if load > 0)
        if best is None or rate > best[1]:
            best = ([ForestTree(r, share * rate, down_arcs, up_arcs) for r, share, down_arcs, up_arcs in entries],
                    rate, name)
    trees, rate, name = best
    return trees, rate, ("" if name == "reversed" else
                         "all-reduce: the reduce-scatter phase runs on the reduce-scatter packing's in-trees "
                         "(faster than the reversed all-gather trees here)")


def _share(tree: ForestTree, trees: list[ForestTree]) -> Fraction:
    return tree.weight / sum((t.weight for t in trees if t.root == tree.root), Fraction(0))


def least_cut(platform, participants) -> Fraction:
    """The least capacity ``B⁺(S)`` of a cut ``S`` that separates two participants (exact, from float capacities).

    Every such cut separates ``P_0`` from some ``P_j`` one way or the other,
    so it is the least of the max-flows ``P_0 → P_j`` and ``P_j → P_0``.

    Parameters
    ----------
    platform : Platform
        Its graph view (every link direction a capacity).
    participants : sequence of str

    Returns
    -------
    Fraction
        Bytes/s (capacities read exactly from their floats).

    Examples
    --------
    >>> import collsched as cs
    >>> least_cut(cs.topologies.star(3, bandwidth=8), ["h0", "h1", "h2"])
    Fraction(8, 1)
    """
    import networkx as nx

    g = nx.DiGraph()
    g.add_edges_from((u, v, {"capacity": Fraction(bw)}) for u, v, bw in platform._graph.edges(data="bandwidth"))
    first = participants[0]
    return min(Fraction(nx.maximum_flow_value(g, a, b)) for p in participants[1:] for a, b in ((first, p), (p, first)))


def transmission_capacity(platform) -> Fraction | None:
    """Bytes/s all hosts can send at once, or receive at once (the smaller): the sums of their links' directions.

    Every byte a message carries leaves its sending host on one of the
    host's link directions, and enters the receiving host on another, so
    the bytes the hosts send (or receive) in ``T`` seconds are at most this
    times ``T``. :func:`plan_forest` divides it by ``2 N (N - 1)`` for its
    all-reduce bound (the docstring of :mod:`.plan` says why).

    Parameters
    ----------
    platform : Platform
        Its graph view (every link direction a capacity).

    Returns
    -------
    Fraction or None
        Exact, from the float bandwidths; None when a host has a fatpipe
        link (each flow gets its whole bandwidth: what the host sends is
        not bounded so).

    Examples
    --------
    >>> import collsched as cs
    >>> transmission_capacity(cs.topologies.star(3, bandwidth=8))
    Fraction(24, 1)
    """
    g = platform._graph
    hosts = set(platform.hosts)
    if any(link.sharing == "fatpipe" and (link.ends is None or set(link.ends) & hosts)
           for link in platform.links.values()):
        return None
    out = sum((Fraction(bw) for u, _, bw in g.edges(data="bandwidth") if u in hosts), Fraction(0))
    into = sum((Fraction(bw) for _, v, bw in g.edges(data="bandwidth") if v in hosts), Fraction(0))
    return min(out, into)


def latency_bound(platform, participants) -> float:
    """The largest, over ordered pairs of participants, least latency of a path of the graph view between them.

    Parameters
    ----------
    platform : Platform
    participants : sequence of str

    Returns
    -------
    float
        Seconds: no schedule ends before the farthest participant can hear of the others.

    Examples
    --------
    >>> import collsched as cs
    >>> latency_bound(cs.topologies.star(3, latency=1e-6), ["h0", "h1"])
    2e-06
    """
    import networkx as nx

    g = platform._graph
    return max(nx.single_source_dijkstra_path_length(g, a, weight="latency")[b]
               for a in participants for b in participants if a != b)


def makespan_model(platform, schedule: ForestSchedule, collective, chunks: int) -> float:
    """The round model of one collective's makespan with ``chunks`` pieces per tree share.

    The lowering issues its messages in rounds (the ``Stages`` of
    :mod:`collsched.schedules.forest`): item ``i`` (a chunk) sends its
    stage-``g`` messages in round ``i + g``. The model runs the ``C + S - 1``
    rounds (``S`` stages) one after the other; a round lasts

    * the longest time a link direction needs for the bytes its messages
      carry in that round (the tree shares of a ``1/C`` chunk, routed by
      the platform), but
    * at least the largest route latency of a pair that sends in that round
      (its messages of one round start together, once those of the round
      ``window`` before have ended).

    So the first and last rounds, where few stages work, are short; the
    full rounds last ``block / (x · C)``, or a latency when chunks are so
    small. Computation is left out. The rounds of the simulated pipeline
    overlap (a piece goes on as soon as it arrives), so the model is
    pessimistic about the fill: on ``dgx2(2)`` (1 GB AllGather, the
    packing's 32 trees, 17 stages) it gives 9.27, 8.51, 8.13 and 7.94 ms for
    32, 64, 128 and 256 chunks where ``Fluid`` takes 8.40, 8.08, 7.92 and
    7.84 ms; with 512 chunks the simulation exposes the pairs' latencies
    (8.75 ms), which the model does not see: :data:`CHUNK_CHOICES` stops at
    256.

    Parameters
    ----------
    platform : Platform
    schedule : ForestSchedule
        Its trees, shares and window (its own ``chunks`` is ignored).
    collective : Collective
        One instance.
    chunks : int

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    A chain ``h0 → h1 → h2`` per root on a star of 1 byte/s links: two
    stages; with one chunk, two rounds in which each link carries one or two
    blocks; with two chunks, three rounds of half blocks.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> rings = [("h0", "h1", "h2"), ("h1", "h2", "h0"), ("h2", "h0", "h1")]
    >>> t = [ForestTree(r, "1/2", [(r, a), (a, b)]) for r, a, b in rings]
    >>> s = ForestSchedule(participants=("h0", "h1", "h2"), trees=t, throughput="1/2", rate_bound="1/2")
    >>> c = cs.AllGather(participants=["h0", "h1", "h2"], size=1)
    >>> makespan_model(p, s, c, 1), makespan_model(p, s, c, 2)
    (2.0, 2.0)
    """
    return _model_rounds(_model_tables(platform, schedule, collective), chunks)


def _model_tables(platform, schedule: ForestSchedule, collective):
    """What :func:`makespan_model` needs whatever the chunks: per stage, cumulated link loads and pairs sending."""
    import numpy as np

    block = schedule.block_bytes(collective)
    shares = schedule.shares()
    arcs = schedule.stage_arcs()
    stages = max(g for g, *_ in arcs) + 1
    channel: dict[tuple[str, bool], int] = {}
    pair: dict[tuple[str, str], int] = {}
    route: dict[tuple[str, str], list[tuple[int, float]]] = {}  # per pair: (channel, load per byte/s)
    rows = []  # (stage, channel, bytes per item with one chunk)
    for g, j, u, v in arcs:
        pair.setdefault((u, v), len(pair))
        if (u, v) not in route:
            route[(u, v)] = [(channel.setdefault(key, len(channel)), float(load))
                             for key, load in link_loads(platform, [(u, v, Fraction(1))]).items()]
        rows.extend((g, k, load * block * float(shares[j])) for k, load in route[(u, v)])
    loads = np.zeros((stages + 1, len(channel)))
    for g, k, load in rows:
        loads[g + 1, k] += load
    counts = np.zeros((stages + 1, len(pair)))
    for g, _, u, v in arcs:
        counts[g + 1, pair[(u, v)]] += 1
    capacity = np.array([platform.links[link].bandwidth for link, _ in channel])
    latency = np.array([platform.latency(u, v) for u, v in pair])
    return np.cumsum(loads, axis=0), np.cumsum(counts, axis=0), capacity, latency, stages


def _model_rounds(tables, chunks: int) -> float:
    import numpy as np

    loads, counts, capacity, latency, stages = tables
    rounds = np.arange(chunks + stages - 1)
    first, last = np.maximum(0, rounds - chunks + 1), np.minimum(stages - 1, rounds)
    busy = ((loads[last + 1] - loads[first]) / chunks / capacity).max(axis=1)
    start = (((counts[last + 1] - counts[first]) > 0) * latency).max(axis=1)
    return float(np.maximum(busy, start).sum())


def choose_chunks(platform, schedule: ForestSchedule, collective, choices=CHUNK_CHOICES) -> int:
    """The chunk count of ``choices`` that minimises :func:`makespan_model`, within :data:`MAX_MESSAGES`.

    Parameters
    ----------
    platform : Platform
    schedule : ForestSchedule
    collective : Collective
        One instance.
    choices : sequence of int

    Returns
    -------
    int
        The smallest of the best among the counts whose program has at most
        :data:`MAX_MESSAGES` messages (1 if none has).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2, bandwidth=100, latency=1e-3)
    >>> t = [ForestTree("h0", 100, [("h0", "h1")]), ForestTree("h1", 100, [("h1", "h0")])]
    >>> s = ForestSchedule(participants=("h0", "h1"), trees=t, throughput=100, rate_bound=100)
    >>> choose_chunks(p, s, cs.AllGather(participants=["h0", "h1"], size=100))
    1
    """
    units = schedule.units()[0] if schedule.messages == "unit" else [1] * len(schedule.trees)
    per_chunk = sum(k * len(t.arcs) for k, t in zip(units, schedule.trees)) * (2 if schedule.kind == "allreduce" else 1)
    allowed = [c for c in choices if c * per_chunk <= MAX_MESSAGES] or [1]
    tables = _model_tables(platform, schedule, collective)
    return min(allowed, key=lambda c: (_settled(_model_rounds(tables, c)), c))


def _settled(seconds: float) -> float:
    """``seconds`` to 12 significant digits: models equal but for float noise tie (fewer chunks or rounds win)."""
    return float(f"{seconds:.12g}")


@register("forest", family="gpu", kinds=FOREST_KINDS,
          summary="weighted spanning trees per root (tree packing at the cut bound), pipelined in chunks")
def forest(platform, collective, *, seed: int = 0, chunks: int | None = None) -> ForestSchedule:
    """Weighted spanning trees per root at the multi-port cut bound, each block pipelined in ``chunks`` pieces.

    See :func:`plan_forest` (this is it, registered).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.dgx2(1)
    >>> s = cs.plan(p, cs.AllGather(participants=p.hosts, size=1e6), algorithm="forest", chunks=2)
    >>> s.shape, s.chunks
    ('forest', 2)
    """
    return plan_forest(platform, collective, chunks=chunks, seed=seed)
