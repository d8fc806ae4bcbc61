"""Series of broadcasts: the LP of Beaumont, Legrand, Marchal and Robert (IPDPS 2004), and a tree packing.

Variables per time unit: for every target ``t``, a flow ``x_t(i→j)`` of
messages from the source to ``t`` (net inflow ``TP`` at ``t``, conservation
elsewhere); the edge usage ``n(i→j) >= x_t(i→j)`` for every ``t`` (one copy
of a message serves every target downstream); one-port on ``n``:
``Σ_j n(i→j) δ c(i,j) <= 1`` for sends and likewise for receives. Its
optimum bounds the throughput of any broadcast schedule.

The schedule packs broadcast trees (arborescences from the source reaching
every target) greedily into ``n``: a shortest-path tree over the edges with
capacity left, weighted by the smallest capacity it uses, until none is
left. When every node is a target this is Edmonds' setting, where a packing
of total weight ``TP`` exists; the greedy packing may fall short of it, and
with routers or non-target hosts (Steiner trees) ``TP`` may not be reachable
at all: the schedule's status then says FEASIBLE, with the LP as its bound.

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

from ...schedules.base import Status
from .exact import LinearProgram, LPSolution, SteadyStateError, solve
from .lp_alltoall import Network, _check_reachable, network, one_port_rows

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
    sol = solve(lp, time_limit=time_limit)
    if sol.status is not Status.OPTIMAL:
        return BroadcastSolution(Fraction(0), {}, {}, sol, lp.size, net, src, targets)
    if sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths")
    usage = {e: sol.x[j] for e, j in ncol.items() if sol.x[j]}
    flows = {k: sol.x[j] for k, j in xcol.items() if sol.x[j]}
    return BroadcastSolution(sol.objective, usage, flows, sol, lp.size, net, src, targets)


def pack_trees(b: BroadcastSolution) -> list[tuple[Fraction, dict]]:
    """Greedy packing of broadcast trees into the edge usage: ``(rate, {node: (parent, depth)})``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    >>> b = solve_broadcast(p, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1))
    >>> sum(w for w, _ in pack_trees(b)) == b.throughput
    True
    """
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
