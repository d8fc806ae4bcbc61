"""Series of broadcasts and all-gathers: the LP of Beaumont, Legrand, Marchal and Robert (IPDPS 2004), tree packing.

Variables per time unit: for every target ``t``, a flow ``x_t(i→j)`` of
messages from the source to ``t`` (net inflow ``TP`` at ``t``, conservation
elsewhere); the edge usage ``n(i→j) >= x_t(i→j)`` for every ``t`` (one copy
of a message serves every target downstream); one-port on ``n``:
``Σ_j n(i→j) δ c(i,j) <= 1`` for sends and likewise for receives
(``ports="one"``), or ``n(i→j) δ c(i,j) <= 1`` on every link direction
(``ports="multi"``). Its optimum bounds the throughput of any broadcast
schedule under that port model.

An all-gather is ``N`` broadcasts, one per participant, at one rate
(:func:`solve_allgather`): each source ``P_i`` has its own usage ``n_i`` and
flows, and the port rows bound the sum over sources. Each source's usage
is packed into trees on its own (their sum stays within the capacities).

The schedule packs broadcast trees (arborescences from the source reaching
every target) into ``n`` (:func:`pack_trees`). Edmonds' branching theorem
says a packing of total weight ``TP`` exists among arborescences spanning a
node set ``S`` when every node of ``S`` has ``λ_n(source, v) >= TP`` inside
``S``: every target has it (its flow ``x_t <= n`` carries ``TP``), so ``S``
is the largest such set (nodes below ``TP`` dropped until none is); if it
keeps every target, :func:`~.packing.pack_arborescences` packs exactly
``TP`` (checked) and the trees are pruned to the targets. Otherwise some
router or non-target host carries only part of a target's flow: the
problem is then a multicast, for which the LP bound need not be reachable
(NP-hard, seed 000 section 7); a greedy packing is used and the schedule's
status says FEASIBLE, with the exact LP optimum as its bound.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
>>> b = solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1))
>>> b.throughput, b.solution.certified
(Fraction(1, 1), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from ...errors import CollschedError
from ...schedules.base import Status
from .canonical import solve_canonical
from .exact import LinearProgram, LPSolution, SteadyStateError
from .lp_alltoall import Network, _check_reachable, check_ports, network, port_rows
from .packing import max_flow, pack_arborescences

__all__ = ["BroadcastSolution", "solve_broadcast", "broadcast_rows", "AllGatherSolution", "solve_allgather",
           "pack_trees"]


@dataclass
class BroadcastSolution:
    """The exact optimum of the broadcast LP.

    Attributes
    ----------
    throughput : Fraction
    usage : dict
        ``(u, v) -> n(u→v)``, messages per second on the edge.
    flows : dict
        ``(u, v, target) -> x_t(u→v)``.
    solution : LPSolution
    size : tuple
    network : Network

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1"], size=1)).usage
    {('h0', 'h1'): Fraction(1, 1)}
    """

    throughput: Fraction
    usage: dict
    flows: dict
    solution: LPSolution
    size: tuple
    network: Network
    source: str
    targets: list


def _solve(platform, sources: list, targets: dict, size: Fraction, ports: str, time_limit: float):
    """The LP of broadcasts from ``sources`` at one rate, sharing the capacities; its canonical optimum.

    Returns ``(solution, lp size, network, usage columns {(source, u, v)}, flow columns {(source, u, v, t)})``.
    One source keeps the column names of the single broadcast (``("n", u, v)``), so its canonical optimum
    (whose tie-break weights hash the names) does not change.
    """
    net = network(platform)
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    busy: dict = {}
    ncol, xcol = broadcast_rows(lp, tp, net, sources, targets, size, busy, tag=() if len(sources) == 1 else None)
    port_rows(lp, net, busy, ports)
    # the canonical optimum: least busy time of the links, then the tie-break (canonical.py)
    sol = solve_canonical(lp, {j: sec for cols in busy.values() for j, sec in cols.items()}, time_limit=time_limit)
    if sol.status is Status.OPTIMAL and sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths")
    return sol, lp.size, net, ncol, xcol


def broadcast_rows(lp: LinearProgram, tp: int, net: Network, sources: list, targets: dict, size: Fraction,
                   busy: dict, tag: tuple | None = None) -> tuple[dict, dict]:
    """Broadcasts from ``sources`` (each to ``targets[source]``) at rate ``tp``: their columns and rows in ``lp``.

    Source ``r``'s columns are named ``("n", *tag, u, v)`` and ``("x", *tag,
    u, v, t)`` with ``tag`` the given prefix followed by ``r`` (``tag=None``:
    ``(r,)``; ``tag=()`` with one source: no tag, the names of a single
    broadcast). Their seconds per unit of rate go to ``busy`` for the port
    rows. Returns the usage columns ``{(r, u, v)}`` and flow columns ``{(r,
    u, v, t)}``.

    Raises
    ------
    SteadyStateError
        If a target is unreachable from its source.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> lp = LinearProgram(); tp = lp.column("TP")
    >>> ncol, xcol = broadcast_rows(lp, tp, network(p), ["h0"], {"h0": ["h1"]}, Fraction(1), {}, tag=("ag",))
    >>> [lp.names[j] for j in ncol.values()], [lp.names[j] for j in xcol.values()]
    ([('n', 'ag', 'h0', 'h0', 'h1')], [('x', 'ag', 'h0', 'h0', 'h1', 'h1')])
    """
    _check_reachable(net, [(r, t) for r in sources for t in targets[r]])
    ncol: dict = {}
    xcol: dict = {}
    for r in sources:
        mark = (r,) if tag is None else tag if len(sources) == 1 and tag == () else (*tag, r)
        mine = {e: lp.column(("n", *mark, *e)) for e in net.edges if e[1] != r}
        for e, j in mine.items():
            ncol[(r, *e)] = j
            busy.setdefault(e, {})[j] = size * net.cost[e]
        for t in targets[r]:
            for e in mine:
                if e[0] == t:
                    continue
                j = xcol[(r, e[0], e[1], t)] = lp.column(("x", *mark, e[0], e[1], t))
                lp.row({mine[e]: 1, j: -1, lp.column(("slack", "n", *mark, e[0], e[1], t)): -1}, 0)
            for n in net.nodes:
                if n == r:
                    continue
                coefs: dict = {}
                for e in net.in_edges[n]:
                    if (r, e[0], e[1], t) in xcol:
                        coefs[xcol[(r, e[0], e[1], t)]] = 1
                for e in net.out_edges[n]:
                    if (r, e[0], e[1], t) in xcol:
                        coefs[xcol[(r, e[0], e[1], t)]] = -1
                if n == t:
                    coefs[tp] = Fraction(-1)
                if coefs:
                    lp.row(coefs, 0)
    return ncol, xcol


def _part(sol, size, net, ncol, xcol, source, targets) -> BroadcastSolution:
    """One source's share of a solution, as a single broadcast's solution."""
    if sol.status is not Status.OPTIMAL:
        return BroadcastSolution(Fraction(0), {}, {}, sol, size, net, source, targets)
    usage = {(u, v): sol.x[j] for (r, u, v), j in ncol.items() if r == source and sol.x[j]}
    flows = {(u, v, t): sol.x[j] for (r, u, v, t), j in xcol.items() if r == source and sol.x[j]}
    return BroadcastSolution(sol.objective, usage, flows, sol, size, net, source, targets)


def solve_broadcast(platform, broadcast, *, ports: str = "one", time_limit: float = 60.0) -> BroadcastSolution:
    """Build and solve the series-of-broadcasts LP exactly.

    Parameters
    ----------
    platform : Platform
    broadcast : Broadcast
    ports : {"one", "multi"}
        One-port nodes (seed 000) or every link direction its own capacity
        (:func:`~.lp_alltoall.port_rows`).
    time_limit : float

    Returns
    -------
    BroadcastSolution

    Raises
    ------
    SteadyStateError
        If a target is unreachable or the throughput is zero.
    ValueError
        If ``ports`` is not a port model.

    Examples
    --------
    On a star the switch relays: one-port, it sends one copy at a time;
    multi-port, it sends to every target at once.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> bc = cs.Broadcast(source="h0", targets=["h1", "h2"], size=1)
    >>> solve_broadcast(p, bc).throughput, solve_broadcast(p, bc, ports="multi").throughput
    (Fraction(1, 2), Fraction(1, 1))
    """
    check_ports(ports)
    src = broadcast.source
    targets = [t for t in broadcast.targets if t != src]
    out = _solve(platform, [src], {src: targets}, Fraction(broadcast.size), ports, time_limit)
    return _part(*out, src, targets)


@dataclass
class AllGatherSolution:
    """The exact optimum of the all-gather LP: one broadcast per participant, at one rate, sharing the capacities.

    Attributes
    ----------
    throughput : Fraction
        All-gathers per second.
    parts : tuple of BroadcastSolution
        Participant ``P_i``'s broadcast (its usage ``n_i`` and flows), in
        participant order; each part's ``throughput`` is the all-gather's.
    solution : LPSolution
    size : tuple
    network : Network

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> a = solve_allgather(p, cs.AllGather(participants=p.hosts, size=1))
    >>> a.throughput, [part.source for part in a.parts]
    (Fraction(1, 2), ['h0', 'h1', 'h2'])
    """

    throughput: Fraction
    parts: tuple
    solution: LPSolution
    size: tuple
    network: Network


def solve_allgather(platform, allgather, *, ports: str = "one", time_limit: float = 60.0) -> AllGatherSolution:
    """Build and solve the series-of-all-gathers LP exactly: ``N`` broadcasts of the participants' blocks.

    Every participant ``P_i`` broadcasts its block to the others; each has
    its own usage ``n_i(u→v) >= x_{i,t}(u→v)`` and flows, and the port rows
    bound ``Σ_i n_i(u→v) · size · c(u, v)`` (one-port: per node and side;
    multi-port: per link direction). ``TP`` is the rate of every
    broadcast, so the optimum is the all-gathers per second.

    Parameters
    ----------
    platform : Platform
    allgather : AllGather
    ports : {"one", "multi"}
    time_limit : float

    Returns
    -------
    AllGatherSolution

    Raises
    ------
    SteadyStateError
        If a participant is unreachable from another, or the throughput is zero.
    ValueError
        If ``ports`` is not a port model.

    Examples
    --------
    Three hosts on a switch, one-port: each receives two blocks a period,
    and the switch handles six; multi-port: each host link carries one
    block up and two down.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> c = cs.AllGather(participants=p.hosts, size=1)
    >>> solve_allgather(p, c).throughput, solve_allgather(p, c, ports="multi").throughput
    (Fraction(1, 6), Fraction(1, 2))
    """
    check_ports(ports)
    hosts = list(allgather.participants)
    targets = {r: [t for t in hosts if t != r] for r in hosts}
    out = _solve(platform, hosts, targets, Fraction(allgather.size), ports, time_limit)
    sol, size, net = out[:3]
    parts = tuple(_part(*out, r, targets[r]) for r in hosts)
    tp = sol.objective if sol.status is Status.OPTIMAL else Fraction(0)
    return AllGatherSolution(tp, parts, sol, size, net)


def pack_trees(b: BroadcastSolution, *, partial: bool = False) -> list[tuple[Fraction, dict]]:
    """Broadcast trees packed into the edge usage: ``(rate, {node: (parent, depth)})``, exact when possible.

    ``depth`` is the hop of the edge ``parent → node`` (0 out of the source).
    The rates sum to exactly ``TP`` when Edmonds' theorem applies (module
    docstring); else they come from a greedy packing and may sum to less.
    With ``partial`` (the multi-port planner's choice), before the greedy
    packing the largest ``k < TP`` among the nodes' ``λ`` values for which
    the node set keeping ``λ >= k`` still holds every target is packed
    exactly (Edmonds), and the greedy packing goes on in what it leaves.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> b = solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1))
    >>> sum(w for w, _ in pack_trees(b)) == b.throughput
    True
    """
    cap = {e: x for e, x in b.usage.items() if x > 0}
    nodes = {x for e in cap for x in e} | {b.source}
    span, inside = _spanned(cap, nodes, b.source, b.throughput)
    if all(t in span for t in b.targets):
        trees = [(w, _prune(parent, b.source, b.targets))
                 for w, parent in pack_arborescences(inside, b.source, b.throughput)]
        _check_packing(trees, b)
        return trees
    if partial:
        levels = sorted({max_flow(cap, (b.source,), v)[0] for v in nodes if v != b.source}, reverse=True)
        for k in (k for k in levels if 0 < k < b.throughput):
            span, inside = _spanned(cap, nodes, b.source, k)
            if all(t in span for t in b.targets):
                trees = [(w, _prune(parent, b.source, b.targets))
                         for w, parent in pack_arborescences(inside, b.source, k)]
                rest = dict(cap)
                for w, tree in trees:
                    for v, (u, _) in tree.items():
                        rest[(u, v)] -= w
                trees += _greedy(rest, b.source, b.targets, b.throughput - k)
                _check_packing(trees, b, exact=False)
                return trees
    return _greedy(cap, b.source, b.targets, b.throughput)


def _spanned(cap: dict, nodes: set, source, k) -> tuple[set, dict]:
    """The largest node set in which every node keeps ``λ(source, v) >= k``, and the capacities inside it."""
    span = set(nodes)
    while True:
        inside = {e: x for e, x in cap.items() if e[0] in span and e[1] in span}
        low = {v for v in span if v != source and max_flow(inside, (source,), v)[0] < k}
        if not low:
            return span, inside
        span -= low


def _prune(parent: dict, source, targets) -> dict:
    """The arborescence cut down to the paths reaching ``targets``, each edge with its hop."""
    tree: dict = {}
    for t in targets:
        path = [t]
        while path[-1] != source:
            path.append(parent[path[-1]])
        path.reverse()
        for d, (u, v) in enumerate(zip(path, path[1:])):
            tree[v] = (u, d)
    return tree


def _check_packing(trees: list, b: BroadcastSolution, exact: bool = True) -> None:
    """Total weight ``TP`` (at most, unless ``exact``) and every edge within its usage ``n``, exactly."""
    total = sum((w for w, _ in trees), Fraction(0))
    used: dict = {}
    for w, tree in trees:
        for v, (u, _) in tree.items():
            used[(u, v)] = used.get((u, v), 0) + w
    over = [e for e, x in used.items() if x > b.usage.get(e, 0)]
    if (total != b.throughput if exact else total > b.throughput) or over:
        raise CollschedError(f"broadcast tree packing of weight {total} (TP {b.throughput}) exceeds n on {over}")


def _greedy(cap: dict, source, targets, limit: Fraction) -> list[tuple[Fraction, dict]]:
    """Shortest-path trees over the edges with usage left, each weighted by the smallest it uses, up to ``limit``."""
    cap = dict(cap)
    out = []
    total = Fraction(0)
    while total < limit:
        g = nx.DiGraph([e for e, v in cap.items() if v > 0])
        if source not in g or any(t not in g for t in targets):
            break
        paths = nx.single_source_shortest_path(g, source)
        if any(t not in paths for t in targets):
            break
        tree: dict = {}
        for t in targets:
            path = paths[t]
            for d, (u, v) in enumerate(zip(path, path[1:])):
                tree[v] = (u, d)
        w = min(min(cap[(u, v)] for v, (u, _) in tree.items()), limit - total)
        for v, (u, _) in tree.items():
            cap[(u, v)] -= w
        out.append((w, tree))
        total += w
    return out
