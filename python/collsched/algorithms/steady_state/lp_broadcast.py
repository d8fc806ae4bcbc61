"""Series of broadcasts: the LP of Beaumont, Legrand, Marchal and Robert (IPDPS 2004), and a tree packing.

Variables per time unit: for every target ``t``, a flow ``x_t(i→j)`` of
messages from the source to ``t`` (net inflow ``TP`` at ``t``, conservation
elsewhere); the edge usage ``n(i→j) >= x_t(i→j)`` for every ``t`` (one copy
of a message serves every target downstream); one-port on ``n``:
``Σ_j n(i→j) δ c(i,j) <= 1`` for sends and likewise for receives. Its
optimum bounds the throughput of any broadcast schedule.

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
from .lp_alltoall import Network, _check_reachable, network, one_port_rows
from .packing import max_flow, pack_arborescences

__all__ = ["BroadcastSolution", "solve_broadcast", "pack_trees"]


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


def solve_broadcast(platform, broadcast, *, time_limit: float = 60.0) -> BroadcastSolution:
    """Build and solve the series-of-broadcasts LP exactly.

    Parameters
    ----------
    platform : Platform
    broadcast : Broadcast
    time_limit : float

    Returns
    -------
    BroadcastSolution

    Raises
    ------
    SteadyStateError
        If a target is unreachable or the throughput is zero.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1)).throughput
    Fraction(1, 2)
    """
    net = network(platform)
    src = broadcast.source
    targets = [t for t in broadcast.targets if t != src]
    _check_reachable(net, [(src, t) for t in targets])
    size = Fraction(broadcast.size)
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    ncol = {e: lp.column(("n", *e)) for e in net.edges if e[1] != src}
    xcol: dict = {}
    for t in targets:
        for e in ncol:
            if e[0] == t:
                continue
            j = xcol[(e[0], e[1], t)] = lp.column(("x", e[0], e[1], t))
            lp.row({ncol[e]: 1, j: -1, lp.column(("slack", "n", e[0], e[1], t)): -1}, 0)
        for n in net.nodes:
            if n == src:
                continue
            coefs: dict = {}
            for e in net.in_edges[n]:
                if (e[0], e[1], t) in xcol:
                    coefs[xcol[(e[0], e[1], t)]] = 1
            for e in net.out_edges[n]:
                if (e[0], e[1], t) in xcol:
                    coefs[xcol[(e[0], e[1], t)]] = -1
            if n == t:
                coefs[tp] = Fraction(-1)
            if coefs:
                lp.row(coefs, 0)
    one_port_rows(lp, net, {e: {j: size * net.cost[e]} for e, j in ncol.items()})
    # the canonical optimum: least busy time of the links, then the tie-break (canonical.py)
    sol = solve_canonical(lp, {j: size * net.cost[e] for e, j in ncol.items()}, time_limit=time_limit)
    if sol.status is not Status.OPTIMAL:
        return BroadcastSolution(Fraction(0), {}, {}, sol, lp.size, net, src, targets)
    if sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths")
    usage = {e: sol.x[j] for e, j in ncol.items() if sol.x[j]}
    flows = {k: sol.x[j] for k, j in xcol.items() if sol.x[j]}
    return BroadcastSolution(sol.objective, usage, flows, sol, lp.size, net, src, targets)


def pack_trees(b: BroadcastSolution) -> list[tuple[Fraction, dict]]:
    """Broadcast trees packed into the edge usage: ``(rate, {node: (parent, depth)})``, exact when possible.

    ``depth`` is the hop of the edge ``parent → node`` (0 out of the source).
    The rates sum to exactly ``TP`` when Edmonds' theorem applies (module
    docstring); else they come from a greedy packing and may sum to less.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> b = solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1))
    >>> sum(w for w, _ in pack_trees(b)) == b.throughput
    True
    """
    cap = {e: x for e, x in b.usage.items() if x > 0}
    span = {x for e in cap for x in e} | {b.source}
    while True:  # the largest node set in which every node keeps λ >= TP
        inside = {e: x for e, x in cap.items() if e[0] in span and e[1] in span}
        low = {v for v in span if v != b.source and max_flow(inside, (b.source,), v)[0] < b.throughput}
        if not low:
            break
        span -= low
    if all(t in span for t in b.targets):
        trees = [(w, _prune(parent, b.source, b.targets))
                 for w, parent in pack_arborescences(inside, b.source, b.throughput)]
        _check_packing(trees, b)
        return trees
    return _greedy(b)


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


def _check_packing(trees: list, b: BroadcastSolution) -> None:
    """Total weight ``TP`` and every edge within its usage ``n``, exactly."""
    total = sum((w for w, _ in trees), Fraction(0))
    used: dict = {}
    for w, tree in trees:
        for v, (u, _) in tree.items():
            used[(u, v)] = used.get((u, v), 0) + w
    over = [e for e, x in used.items() if x > b.usage.get(e, 0)]
    if total != b.throughput or over:
        raise CollschedError(f"broadcast tree packing of weight {total} (TP {b.throughput}) exceeds n on {over}")


def _greedy(b: BroadcastSolution) -> list[tuple[Fraction, dict]]:
    """Shortest-path trees over the edges with usage left, each weighted by the smallest it uses."""
    cap = dict(b.usage)
    out = []
    total = Fraction(0)
    while total < b.throughput:
        g = nx.DiGraph([e for e, v in cap.items() if v > 0])
        if b.source not in g or any(t not in g for t in b.targets):
            break
        paths = nx.single_source_shortest_path(g, b.source)
        if any(t not in paths for t in b.targets):
            break
        tree: dict = {}
        for t in b.targets:
            path = paths[t]
            for d, (u, v) in enumerate(zip(path, path[1:])):
                tree[v] = (u, d)
        w = min(min(cap[(u, v)] for v, (u, _) in tree.items()), b.throughput - total)
        for v, (u, _) in tree.items():
            cap[(u, v)] -= w
        out.append((w, tree))
        total += w
    return out
