"""Lower bounds on the makespan of personalized exchanges (all-to-all, all-to-some, all-to-many).

:func:`exchange_bound` is the bound every ordering heuristic reports its
gap against (``gap = simulated makespan / bound - 1``). It takes the
largest of:

* the **open-shop bound** (Gonzalez and Sahni 1976; seed 004, section 2:
  "the completion time cannot be less than the sum of sending times or
  receiving times for any processor"): per node, the time its send port
  and its receive port must be held, plus, asynchronously, the least time
  that must pass before the first receive can start or after the last send
  ends;
* the **link bound** where routes matter (``Circuit``: time each link
  direction is held; ``Fluid``: bytes over each channel divided by its
  bandwidth, plus the least latency of the messages crossing it);
* the longest single message alone.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings.costs import overhead_platform
>>> p = overhead_platform([2, 2, 2, 2], latency=1.0)
>>> c = cs.AllToAll(senders=["h0"], receivers=["h1", "h2", "h3"], size=1)
>>> round(exchange_bound(p, c, model=cs.models.OnePort(sync=True, cost="overheads")).value, 6)
15.0
>>> round(exchange_bound(p, c, model=cs.models.OnePort(sync=False, cost="overheads")).value, 6)
9.0
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .algorithms.orderings.exchange_bound import exchange_bound  # re-exported: its home is the exchanges' family
from .errors import CollectiveError
from .platform.paths import GraphPaths, graph_paths
from .schedules.base import Bound
from .simulation.models import Circuit, Fluid, Model, OnePort

__all__ = ["exchange_bound", "collective_bound", "sync_bound", "OwnModel", "own_model"]


def _capacity(platform, node: str, model: Model, out: bool) -> float:
    """Bytes per second a node can send (``out``) or receive: one link at a time under one-port, else all."""
    if isinstance(model, OnePort) and model.cost != "edges" and out and not model.sync:
        return np.inf  # asynchronous: a send holds its port o_s only, not while the bytes flow
    if isinstance(model, OnePort) and model.cost != "edges":
        # every message is one routed transfer, one at a time per port: the fastest route is the limit
        pairs = ((node, h) if out else (h, node) for h in platform.hosts if h != node)
        return max((platform.bandwidth(a, b) for a, b in pairs if platform.has_route(a, b)), default=0.0)
    g = platform._graph
    edges = g.out_edges(node, data="bandwidth") if out else g.in_edges(node, data="bandwidth")
    bws = [bw for _, _, bw in edges]
    if not bws:
        return 0.0
    one_port = isinstance(model, OnePort) or getattr(model, "one_port", False)
    return max(bws) if one_port else sum(bws)


def _one_port(model: Model) -> bool:
    return isinstance(model, OnePort) or getattr(model, "one_port", False)


def _spread_time(platform, node: str, demands: dict[str, float], out: bool) -> float:
    """Least time to move ``demands`` (bytes per other host) out of ``node`` (or into it), links as capacities.

    All at once, by any paths: the largest rate ``r`` at which a flow can
    carry ``r·demand`` to every host, found by bisection on max-flows
    (precise to 0.1%); the time is ``1/r``. It is the largest of
    ``bytes(S) / cut(node, S)`` over every set ``S`` of hosts.
    """
    import networkx as nx

    demands = {h: m for h, m in demands.items() if h != node and m > 0}
    if not demands:
        return 0.0
    g = platform._graph if out else platform._graph.reverse(copy=False)
    h = nx.DiGraph()
    h.add_edges_from((u, v, {"capacity": bw}) for u, v, bw in g.edges(data="bandwidth"))
    sink = ("sink",)
    total = sum(demands.values())

    def carried(rate: float) -> float:
        for x, m in demands.items():
            h.add_edge(x, sink, capacity=rate * m)
        return nx.maximum_flow_value(h, node, sink)

    hi = sum(bw for _, _, bw in g.out_edges(node, data="bandwidth")) / total
    lo = 0.0
    while hi - lo > 1e-3 * hi:
        mid = (lo + hi) / 2
        if carried(mid) >= mid * total * (1 - 1e-12):
            lo = mid
        else:
            hi = mid
    return 1.0 / hi if hi > 0 else np.inf


@dataclass(frozen=True)
class _Paths:
    """Must-travel paths as columns: path ``k`` carries ``size[k]`` bytes from host ``src[k]`` to ``dst[k]``."""

    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray

    @classmethod
    def of(cls, platform, paths: list[tuple[str, str, float]]) -> "_Paths":
        return cls(np.array([platform.host_index(s) for s, _, _ in paths], dtype=np.int64),
                   np.array([platform.host_index(d) for _, d, _ in paths], dtype=np.int64),
                   np.array([m for _, _, m in paths], dtype=np.float64))

    def __len__(self) -> int:
        return int(self.src.shape[0])


def _in_order_met(hosts: np.ndarray) -> np.ndarray:
    """The distinct values of ``hosts`` in the order they first occur."""
    values, first = np.unique(hosts, return_index=True)
    return values[np.argsort(first)]


def _sums(platform, hosts: np.ndarray, size: np.ndarray) -> dict[str, float]:
    """Bytes per host, keyed in the order hosts first occur, each summed in path order (a loop's sums, bit for bit)."""
    total = np.bincount(hosts, weights=size, minlength=len(platform.hosts))
    return {platform.hosts[h]: float(total[h]) for h in _in_order_met(hosts).tolist()}


def _flows_of(platform, collective) -> tuple[_Paths, dict[str, float], dict[str, float]]:
    """(must-travel paths, bytes out per node, bytes in per node) of one instance."""
    kind = collective.kind
    out: dict[str, float] = defaultdict(float)
    into: dict[str, float] = defaultdict(float)
    if kind in ("alltoall", "alltomany"):
        src, dst, size = collective.message_columns(platform)
        moving = src != dst
        if not moving.all():
            src, dst, size = src[moving], dst[moving], size[moving]
        return _Paths(src, dst, size), _sums(platform, src, size), _sums(platform, dst, size)
    if kind in ("scatter", "broadcast"):
        paths = [(collective.source, t, collective.size) for t in collective.targets if t != collective.source]
        if kind == "scatter":
            out[collective.source] = collective.total_bytes
        for _, t, m in paths:
            into[t] += m
    elif kind == "gather":
        paths = [(s, collective.target, collective.size) for s in collective.sources if s != collective.target]
        into[collective.target] = collective.total_bytes
        for s, _, m in paths:
            out[s] += m
    elif kind == "allgather":
        # every block must reach every other participant; each participant receives (N-1)·size, sends its block
        paths = [(a, b, collective.size) for a, b in collective.pairs()]
        for h in collective.participants:
            out[h] = collective.size
            into[h] = collective.received_bytes
    elif kind in ("reducescatter", "allreduce"):
        # P_i's contribution to P_j (fragment j, or the whole vector) must travel from P_i to P_j, alone or
        # combined; P_i sends every part of its vector that another needs, P_j receives a value on every
        # part of its result that holds another's operand (fragments of different positions never combine)
        n, whole = len(collective.participants), collective.value_size(collective.result(0))
        need = whole / n if kind == "reducescatter" else whole
        paths = [(a, b, need) for a, b in collective.pairs()]
        for h in collective.participants:
            out[h] = (n - 1) * need if kind == "reducescatter" else whole
            into[h] = need
    elif kind == "reduce":
        size = min([collective.size, *collective.partial_sizes.values()])
        paths = [(p, collective.target, size) for p in collective.participants if p != collective.target]
        if paths:
            into[collective.target] = size
    else:  # pragma: no cover - every kind is listed above
        raise CollectiveError(f"no bound for a {kind}")
    return _Paths.of(platform, paths), dict(out), dict(into)


def _port_load(platform, model, out: dict, into: dict) -> tuple[float, str]:
    """Largest time a node needs to push its bytes out or take them in, at its link capacity."""
    best = (0.0, "")
    for loads, is_out, what in ((out, True, "send"), (into, False, "receive")):
        for node, m in loads.items():
            cap = _capacity(platform, node, model, is_out)
            t = m / cap if cap > 0 else np.inf
            if t > best[0]:
                best = (t, f"bytes {node} must {what} over its links")
    return best


def _cut_time(platform, node: str, others, m: float, out: bool) -> float:
    """``m`` over the max-flow between ``node`` and the set ``others`` (out of ``node``, or into it)."""
    import networkx as nx

    h = nx.DiGraph()
    for u, v, bw in platform._graph.edges(data="bandwidth"):
        h.add_edge(u, v, capacity=bw) if out else h.add_edge(v, u, capacity=bw)
    sink = ("others",)
    for x in others:
        h.add_edge(x, sink)  # no capacity: unbounded
    flow = nx.maximum_flow_value(h, node, sink)
    return m / flow if flow > 0 else np.inf


def _reduction_spreads(platform, collective) -> list[tuple[float, str]]:
    """Cut bounds of a reduce-scatter or an all-reduce (see :func:`_flows_of` for why the bytes must cross)."""
    n, whole = len(collective.participants), collective.value_size(collective.result(0))
    terms = []
    for h in collective.participants:
        others = [x for x in collective.participants if x != h]
        if collective.kind == "reducescatter":  # fragment j must leave any set around P_i that P_j is not in
            terms.append((_spread_time(platform, h, {x: whole / n for x in others}, True),
                          f"bytes {h} must send across the platform's cuts"))
            terms.append((_cut_time(platform, h, others, whole / n, False),
                          f"bytes {h} must receive across the platform's cuts"))
        else:  # every part of P_i's vector must leave (and a value on every part enter) any set missing a participant
            terms.append((_cut_time(platform, h, others, whole, True), f"bytes {h} must send across the platform's cuts"))
            terms.append((_cut_time(platform, h, others, whole, False),
                          f"bytes {h} must receive across the platform's cuts"))
    return [max(terms, key=lambda t: t[0])]


def _spreads(platform, collective, model: Model) -> list[tuple[float, str]]:
    """Where one node sends to (or receives from) many at once over shared links (Fluid, Circuit): the cut bound."""
    if isinstance(model, OnePort) or model.one_port:
        return []
    if collective.kind in ("reducescatter", "allreduce"):
        return _reduction_spreads(platform, collective)
    if collective.kind not in ("scatter", "gather", "allgather"):
        return []
    if collective.kind == "allgather":  # each participant takes in every other block, over any cut around it
        return [max(((_spread_time(platform, h, {x: collective.size for x in collective.participants}, False),
                      f"bytes {h} must receive across the platform's cuts") for h in collective.participants),
                    key=lambda t: t[0])]
    if collective.kind == "scatter":
        node, out, others = collective.source, True, collective.targets
    else:
        node, out, others = collective.target, False, collective.sources
    demands = {x: collective.size for x in others if x != node}
    return [(_spread_time(platform, node, demands, out), f"bytes {node} must {'send' if out else 'receive'} "
             "across the platform's cuts")]


def _tasks(collective) -> int:
    return len(collective.participants) - 1 if collective.kind == "reduce" and collective.task_cost > 0 else 0


def _alone(platform, collective, model: Model, paths, table: GraphPaths) -> list[tuple[float, str]]:
    """The largest time one must-travel path takes alone (the first such path): a list of at most one term.

    Least latency plus bytes over the widest path of the graph view; where
    a block may be cut into pieces on disjoint paths (reductions, an
    all-gather under multi-port), bytes over what its sender can send and
    its receiver take in instead.
    """
    if not len(paths):
        return []
    reduction = collective.kind in ("reducescatter", "allreduce")
    split = reduction or (collective.kind == "allgather" and not _one_port(model))
    hosts = platform.hosts
    row_of, col_of = np.full(len(hosts), -1, np.int64), np.full(len(hosts), -1, np.int64)
    srcs, dsts = np.unique(paths.src), np.unique(paths.dst)
    row_of[srcs] = [table.row(hosts[h]) for h in srcs.tolist()]
    col_of[dsts] = [table.column(hosts[h]) for h in dsts.tolist()]
    rows, cols = row_of[paths.src], col_of[paths.dst]
    if split:  # a block may be cut into pieces on disjoint paths: its rate is at most what s sends, d takes in
        out, into = np.zeros(len(hosts)), np.zeros(len(hosts))
        out[srcs] = [_capacity(platform, hosts[h], model, True) for h in srcs.tolist()]
        into[dsts] = [_capacity(platform, hosts[h], model, False) for h in dsts.tolist()]
        rate = np.minimum(out[paths.src], into[paths.dst])
    else:
        rate = table.widest[rows, cols]
    if not np.all(rate > 0):  # an unreachable pair (no path, no capacity) divides by zero, as Python's floats do
        raise ZeroDivisionError("float division by zero")
    times = table.least[rows, cols] + paths.size / rate
    k = int(np.argmax(times))  # the first of the largest, as max() over the terms in path order takes it
    s, d = hosts[int(paths.src[k])], hosts[int(paths.dst[k])]
    if split:
        what = f"the contribution of {s} to {d}" if reduction else f"the block {s}->{d}"
        return [(float(times[k]), f"{what} alone, over every link of both")]
    return [(float(times[k]), f"the message {s}->{d} alone on its fastest path")]


def sync_bound(platform, collective, schedule, sync: str, *, model: Model) -> float | None:
    """A lower bound on the makespan of a step schedule lowered with barriers or ready signals, or None.

    With ``sync="barrier"`` every step starts after every rank ended the one
    before; with ``"ready"`` a rank starts step ``k + 1`` once its own ops
    of step ``k`` are done, and a message flows only after its receiver's
    ready signal arrived. Under :class:`~collsched.simulation.Fluid`
    (sends end when their flow ends; a flow waits its route's latency and
    moves at most at its route's bottleneck bandwidth) a message ``s -> d``
    of ``m`` bytes therefore ends no earlier than ``L(s, d) + m / B(s, d)``
    after it may start, with ``L`` the least latency and ``B`` the widest
    bottleneck of the graph view (any route is at least as slow), and a
    ready signal ``L(d, s)`` after its receiver ended its step. The bound is
    the longest chain of these through the steps: with ``T(r)`` the time
    rank ``r`` ends a step (0 before the first), a message of step ``k``
    ends no earlier than ``e = max(T(d) + L(d, s), T(s)) + L(s, d) + m /
    B(s, d)`` (ready) or ``max over ranks of T + max(L(s, d) + m / B(s, d),
    D_k)`` (barrier), and ``T`` of its two ranks becomes at least ``e``;
    ``D_k`` is the largest time a channel of the routes needs for the bytes
    step ``k`` sends through it at its bandwidth (flows share a channel;
    fatpipe links are left out). A barrier's rounds add, between steps, at
    least the sum over rounds ``j`` of the least latency from a rank to the
    rank ``2^j`` after it: a rank's send of round ``j`` ends its latency
    after the rank starts the round (sends end when their flow ends), and
    its round ``j + 1`` waits for it.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    schedule : StepSchedule
    sync : {"barrier", "ready", "post_all"}
    model : Model

    Returns
    -------
    float or None
        None for ``post_all``, a model other than Fluid, or a schedule that is
        not a step schedule of whole direct messages of an all-to-all or
        all-to-many (:func:`~collsched.schedules.steps.direct_transfers`).

    Notes
    -----
    O(transfers) numpy work plus a few operations per step, after the graph
    view's least latencies and widest paths from every sender.

    Examples
    --------
    Two steps on a star of 1 MB/s links of 1 ms: each message takes at
    least 2 ms of latency and 1 s of bytes; its ready signal 2 ms more, or
    the barrier between the steps two rounds of 2 ms.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e6)
    >>> s = cs.plan(p, c, algorithm="caterpillar")
    >>> round(sync_bound(p, c, s, "barrier", model=Fluid()), 9), round(sync_bound(p, c, s, "ready", model=Fluid()), 9)
    (2.008, 2.008)
    >>> all(cs.simulate(p, s.lower(p, c, sync=sync), c).makespan >= sync_bound(p, c, s, sync, model=Fluid())
    ...     for sync in ("barrier", "ready"))
    True
    """
    from .schedules.steps import StepSchedule, direct_transfers

    if sync not in ("barrier", "ready") or not isinstance(model, Fluid) or not isinstance(schedule, StepSchedule):
        return None
    cols = direct_transfers(schedule, platform, collective)
    if cols is None:
        return None
    step, src, dst, size, n_steps = cols
    hosts = platform.hosts
    busy = _step_link_time(platform, step, src, dst, size, n_steps) if sync == "barrier" else None
    table = graph_paths(platform, hosts)
    rows = np.array([table.row(h) for h in hosts], dtype=np.int64)
    columns = np.array([table.column(h) for h in hosts], dtype=np.int64)
    least, widest = table.least[np.ix_(rows, columns)], table.widest[np.ix_(rows, columns)]
    flow = least[src, dst] + size / widest[src, dst]  # at least this long once it may start
    signal = least[dst, src]
    ends = np.zeros(len(hosts))
    bounds = np.searchsorted(step, np.arange(n_steps + 1))
    # a barrier's round j: each rank's empty message to the rank 2^j after it ends its latency after the round
    # starts, and the rank's next round waits for it; so a rank leaves the barrier no earlier than this after it enters
    n = len(hosts)
    ring = np.arange(n)
    rounds = sum(float(least[ring, (ring + (1 << j)) % n].min()) for j in range(max(0, (n - 1).bit_length())))
    for k in range(n_steps):
        lo, hi = bounds[k], bounds[k + 1]
        s, d = src[lo:hi], dst[lo:hi]
        if sync == "barrier":  # and the step's bytes through a link take that link's bandwidth's time
            start = np.maximum(ends.max(), ends + rounds) if k > 0 else ends
            e = np.maximum(start[s], start[d]) + np.maximum(flow[lo:hi], busy[k])
        else:
            e = np.maximum(ends[d] + signal[lo:hi], ends[s]) + flow[lo:hi]
        np.maximum.at(ends, s, e)
        np.maximum.at(ends, d, e)
    return float(ends.max()) if len(ends) else 0.0


def _step_link_time(platform, step, src, dst, size, n_steps: int) -> np.ndarray:
    """Per step, the largest time a channel of the routes needs for the step's bytes through it.

    Under Fluid the flows through a channel share its bandwidth, so the
    bytes a step sends through it take at least bytes / bandwidth; fatpipe
    links give each flow their full bandwidth and are left out, and a
    transfer whose route crosses a channel twice counts it once.
    """
    from .platform.routes import channels, link_numbers, pair_routes, sharing_codes

    routes = pair_routes(platform, platform.hosts, src, dst)
    n_channels = 2 * len(platform.links)
    keep = sharing_codes(platform)[routes.hop_link] != 2
    chan = channels(platform, routes.hop_link, routes.hop_fwd)[keep]
    owner = routes.hop_pair[keep]
    key = np.sort(owner * n_channels + chan)  # (transfer, channel), each once: sorted, repeats dropped
    key = key[np.concatenate(([True], key[1:] != key[:-1]))] if key.shape[0] else key
    owner, chan = np.divmod(key, n_channels)
    load = np.bincount(step[owner] * n_channels + chan, weights=size[owner], minlength=n_steps * n_channels)
    _, bandwidth = link_numbers(platform)
    capacity = np.repeat(bandwidth, 2)
    return (load.reshape(n_steps, n_channels) / capacity).max(axis=1) if n_steps else np.zeros(0)


def _makespan_bound(platform, collective, model: Model) -> tuple[float, str]:
    paths, out, into = _flows_of(platform, collective)
    sources = [platform.hosts[h] for h in _in_order_met(paths.src).tolist()]
    table = graph_paths(platform, [*sources, *getattr(collective, "hosts", ())])
    terms = [_port_load(platform, model, out, into)]
    terms.extend(_spreads(platform, collective, model))
    terms.extend(_alone(platform, collective, model, paths, table))
    if _tasks(collective):
        target = collective.target
        speeds = {h: platform.nodes[h].speed for h in platform.hosts if platform.nodes[h].speed > 0}
        to_target = table.column(target)

        def way(h: str) -> float:  # least latency plus bytes over the widest path from h to the target
            i = table.row(h)
            widest = float(table.widest[i, to_target])
            return float(table.least[i, to_target]) + collective.size / (widest if widest > 0 else np.inf)

        # the last combination runs somewhere, and its result still has to reach the target
        last = min(collective.task_cost / sp + (0.0 if h == target else way(h))
                   for h, sp in speeds.items() if h in table.sources or h == target) if speeds else 0.0
        terms.append((last, "the last combination and its way to the target"))
    if collective.kind == "allreduce":
        # an all-gather of blocks is an all-reduce (sum) of the blocks zero-padded to the whole vector: an
        # all-reduce of size M does the work of an all-gather of M/N per participant, for schedules that do not
        # look at the data
        from .collectives import AllGather

        value, name = _makespan_bound(platform, AllGather(participants=collective.participants,
                                                          size=collective.size / len(collective.participants)), model)
        terms.append((value, f"{name}, of the all-gather of size/N that the all-reduce performs"))
    if collective.kind in ("alltoall", "alltomany"):
        try:
            b = exchange_bound(platform, collective, model=model)
            terms.append((float(b.value), b.name + ", messages sent directly"))
        except ValueError:
            pass
    return max(terms, key=lambda t: t[0])


def _series_bound(platform, series, model: Model) -> tuple[float, str]:
    base = series.base
    if isinstance(model, OnePort) and model.cost == "edges":
        tp = _steady_state_optimum(platform, base)
        if tp is not None:
            return float(tp), "steady-state LP optimum (one-port, graph view)"
    _, out, into = _flows_of(platform, base)
    per_op, name = max([_port_load(platform, model, out, into), *_spreads(platform, base, model)], key=lambda t: t[0])
    if _tasks(base):
        work = _tasks(base) * base.task_cost / sum(platform.nodes[h].speed for h in platform.hosts)
        if work > per_op:
            per_op, name = work, "combinations spread over every host's speed"
    one, one_name = _makespan_bound(platform, base, model)
    if series.count / one < (1.0 / per_op if per_op > 0 else np.inf):
        return series.count / one, f"{series.count} operations after one: {one_name}"
    return 1.0 / per_op, name + ", per operation"


def _steady_state_optimum(platform, base):
    from .algorithms.steady_state.lp_alltoall import commodities_of, solve_flows
    from .algorithms.steady_state.lp_broadcast import solve_broadcast
    from .algorithms.steady_state.lp_reduce import solve_reduce
    from .schedules.base import Status

    if base.kind in ("scatter", "alltoall", "alltomany"):
        sol = solve_flows(platform, commodities_of(base))
    elif base.kind == "reduce":
        sol = solve_reduce(platform, base)
    elif base.kind == "broadcast":
        sol = solve_broadcast(platform, base)
    else:
        return None
    return sol.throughput if sol.solution.status is Status.OPTIMAL else None


def collective_bound(platform, collective, *, model: Model) -> Bound | None:
    """A bound every schedule of ``collective`` meets under ``model``, or None where none is known.

    For one instance, a lower bound on the makespan: the largest of the
    time a message needs alone over the fastest path of the graph view
    (least latency plus bytes over the widest bottleneck, valid for
    schedules that relay), the bytes a node must send or receive over its
    links (one at a time under one-port models), the last combination of a
    reduction and, for exchanges, :func:`exchange_bound` (for schedules
    that send every message directly). For an
    :class:`~collsched.collectives.AllGather`: every participant receives
    ``(N - 1) · size`` bytes — over its fastest single incoming route under
    ``OnePort`` (one receive at a time; its fastest in-link under
    ``cost="edges"``), over all its in-links under ``Fluid`` and
    ``Circuit``, where the bound is the max-flow one (largest over sets
    ``S`` around the participant of the bytes of the blocks outside ``S``
    over the capacity into ``S``); and each block needs the least latency
    to each other participant plus its bytes over the widest path
    (one-port) or over what its sender can send and its receiver take in
    (multi-port: a block may be split over disjoint paths). For a
    :class:`~collsched.collectives.ReduceScatter` (``N`` participants,
    blocks of ``s`` bytes): fragments of different positions never combine,
    so each participant sends at least ``(N - 1) · s`` bytes (a fragment for
    each other, alone or combined) and receives at least ``s``, and the
    fragment ``j`` of ``P_i`` reaches ``P_j`` no faster than the least
    latency plus ``s`` over what ``P_i`` sends and ``P_j`` takes in; under
    ``Fluid`` and ``Circuit`` over cuts as well. For an
    :class:`~collsched.collectives.AllReduce` of ``M`` bytes: each
    participant sends at least ``M`` (every part of its vector must reach
    the others) and receives at least ``M``, the same per pair and over
    cuts; and the bound of an all-gather of ``M / N`` per participant,
    which an all-reduce performs when the blocks are zero-padded to the
    whole vector (valid for schedules that do not look at the data, as
    every program of symbolic values does). Computations are not counted
    for either. For a
    :class:`~collsched.collectives.Series`, an upper bound on the
    throughput: the steady-state LP optimum under ``OnePort(cost="edges")``
    (the model the LP describes); otherwise the per-operation port load or
    compute work, or ``count`` over the single-instance bound.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    model : Model
        ``PLogP`` costs do not come from links: no bound (None).

    Returns
    -------
    Bound or None

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth=1e6, latency=1e-3)
    >>> b = collective_bound(p, cs.Scatter(source="h0", targets=p.hosts, size=1e6), model=cs.models.OnePort())
    >>> round(b.value, 6), b.metric, b.name
    (3.0, 'makespan', 'bytes h0 must send over its links')
    >>> b = collective_bound(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), model=cs.models.Fluid())
    >>> round(b.value, 6), b.name
    (1.002, 'the message h0->h1 alone on its fastest path')
    >>> c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e6), count=10)
    >>> b = collective_bound(p, c, model=cs.models.OnePort(cost="edges"))
    >>> b.value, b.metric
    (0.3333333333333333, 'throughput')
    >>> ag = cs.AllGather(participants=p.hosts, size=1e6)
    >>> [round(collective_bound(p, ag, model=m).value, 6) for m in (cs.models.OnePort(), cs.models.Fluid())]
    [3.0, 3.0]
    >>> rs = cs.ReduceScatter(participants=p.hosts, size=1e6)
    >>> [(round(collective_bound(p, rs, model=m).value, 6), collective_bound(p, rs, model=m).name)
    ...  for m in (cs.models.OnePort(), cs.models.Fluid())]
    [(3.0, 'bytes h0 must send over its links'), (3.0, 'bytes h0 must send over its links')]
    >>> ar = cs.AllReduce(participants=p.hosts, size=1e6)
    >>> b = collective_bound(p, ar, model=cs.models.Fluid())
    >>> round(b.value, 6), b.name
    (1.002, 'the contribution of h0 to h1 alone, over every link of both')
    >>> from collsched.simulation.plogp import PLogPParams
    >>> collective_bound(p, c, model=cs.models.PLogP(PLogPParams(L=1e-3, g=1e-6))) is None
    True
    """
    if not isinstance(model, (OnePort, Circuit, Fluid)):
        return None
    if collective.kind == "series":
        value, name = _series_bound(platform, collective, model)
        return Bound(value, "throughput", name)
    value, name = _makespan_bound(platform, collective, model)
    return Bound(value, "makespan", name)


# --- the models schedules' own bounds and statuses refer to ------------------------------------
@dataclass(frozen=True)
class OwnModel:
    """The model an algorithm plans for: the one its schedules' own bound and status refer to.

    A schedule's ``bound`` and ``status`` are claims under this model. The
    bound is also a bound on every schedule of the collective under each
    simulation model ``m`` with ``holds_under(m)``; under any other model
    it may be beaten (and a status OPTIMAL may be false), so a comparison
    under another model shows it only in a column labelled with this model.

    Attributes
    ----------
    label : str
        The model, as a table prints it: ``"OnePort sync overheads"``
        (``OnePort(sync=True, cost="overheads")``), ``"OnePort sync linear,
        split messages"`` (``OnePort(sync=True, cost="linear")``, a message
        may be cut into parts), ``"Circuit"``, ``"liquid steps"`` (steps of
        link-disjoint transfers, each link busy Σ bytes/bandwidth),
        ``"steady-state LP"`` (one-port store-and-forward on the graph
        view), ``"pLogP, hierarchical trees"`` (pLogP costs, inter-cluster
        trees sending the whole message between coordinators, then each
        cluster's chosen algorithm).
    holds_under : callable
        ``holds_under(model) -> bool``.

    Examples
    --------
    >>> import collsched as cs
    >>> m = OwnModel("Circuit", lambda model: isinstance(model, cs.models.Circuit))
    >>> m.holds_under(cs.models.Circuit()), m.holds_under(cs.models.Fluid())
    (True, False)
    """

    label: str
    holds_under: Callable[[Model], bool]


def _never(model: Model) -> bool:
    return False


def _oneport(cost: str, sync: bool | None = True) -> Callable[[Model], bool]:
    return lambda m: isinstance(m, OnePort) and m.cost == cost and (sync is None or m.sync == sync)


#: Per algorithm name or family: where its own bound was computed. ``open_shop_async`` and ``async_optimal`` plan
#: for the asynchronous model and carry its bound (``algorithms/orderings/asynchronous.py``). The orderings,
#: ``open_shop_preemptive`` and
#: the permutations take :func:`exchange_bound` under the model named (``algorithms/orderings/common.py``,
#: ``preemptive.py``, ``permutations/common.py``); liquid's is the largest link busy time Σ bytes/bandwidth
#: (``Traffic.busy_bound``: below the Fluid and Circuit link loads, which add latency); the steady-state LP's
#: optimum bounds the throughput of any one-port store-and-forward schedule on the graph view; the hierarchical
#: heuristics' bound is the pLogP arrival time over inter-cluster trees that send the whole message between
#: coordinators, plus each cluster's chosen intra-cluster algorithm's predicted time (``inter.arrival_bound``):
#: it bounds only those schedules, under pLogP, so it is never a bound on every schedule of a simulation model.
#: ``forest``'s is the multi-port cut bound (bytes that must cross a cut over the capacity of its links, each
#: link direction its own capacity) or the smallest route latency between two participants: Fluid and Circuit
#: never carry more than a link's bandwidth nor deliver before a route's latency, so it holds under both.
_OWN_MODELS = {
    "forest": OwnModel("multi-port cut bound", lambda m: isinstance(m, (Circuit, Fluid))),
    "open_shop_preemptive": OwnModel("OnePort sync linear, split messages", _oneport("linear")),
    "orderings": OwnModel("OnePort sync overheads", _oneport("overheads")),
    "open_shop_async": OwnModel("OnePort async overheads", _oneport("overheads", False)),
    "async_optimal": OwnModel("OnePort async overheads", _oneport("overheads", False)),
    "permutations": OwnModel("Circuit", lambda m: isinstance(m, Circuit)),
    "liquid": OwnModel("liquid steps", lambda m: isinstance(m, (Circuit, Fluid))),
    "steady_state": OwnModel("steady-state LP", _oneport("edges", None)),
    "hierarchical": OwnModel("pLogP, hierarchical trees", _never),
}


def own_model(schedule) -> OwnModel | None:
    """The model a schedule's own bound and status refer to (None: the schedule claims neither).

    Parameters
    ----------
    schedule : Schedule

    Returns
    -------
    OwnModel or None
        None when the schedule has no bound and is not OPTIMAL; a label
        ``"its algorithm's own model"`` that holds under no simulation
        model when its algorithm is not one this module knows.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> s = cs.plan(p, cs.AllToAll(senders=p.hosts, size=1e3), algorithm="rs_n")
    >>> m = own_model(s)
    >>> m.label, m.holds_under(cs.models.Circuit()), m.holds_under(cs.models.Fluid())
    ('Circuit', True, False)
    >>> own_model(cs.plan(p, cs.Broadcast(source="h0", targets=p.hosts, size=1), algorithm="binomial")) is None
    True
    """
    from .algorithms import registry
    from .schedules.base import Status

    if schedule.bound is None and schedule.status is not Status.OPTIMAL:
        return None
    name = schedule.algorithm
    family = registry.get(name).family if name in registry.names() else None
    if name == "steady_state" and schedule.params.get("ports", "one") != "one":
        return OwnModel("multi-port steady-state LP", _never)
    found = _OWN_MODELS.get(name) or _OWN_MODELS.get(family)
    return found if found is not None else OwnModel("its algorithm's own model", _never)
