"""Shallow trees for one large collective: spanning trees packed on every direct route, not on a split graph.

One collective is pipelined in chunks through its trees, and a chunk needs
a round per arc of the deepest tree before the pipeline is full: deep trees
cost time that a series never sees. ForestColl's switch removal
(:mod:`.splitting`) splits each switch off into a few large logical arcs
(on ``dgx2(2)`` a ring through each chassis), and trees packed on that graph
are paths of up to 19 arcs. Here every pair of participants whose static
route crosses no other participant gets a logical arc, each link direction
being shared equally by the routes that cross it (capacity of ``u→v``:
``min`` over its route's link directions ``e`` of ``capacity(e) / routes(e)``,
so no link is ever over-subscribed); behind one switch that is a complete
graph, on which the packing (:func:`.trees.pack_spanning_trees`) grows
stars. The equal shares may lose capacity where routes of unequal demand
share a link: the packing is then asked for the rate of the optimal forest
and raises if the shares cannot carry it, and the caller keeps the deep
trees.

Examples
--------
>>> from fractions import Fraction
>>> from collsched import topologies
>>> p = topologies.dgx2(1)
>>> trees = shallow_trees(p, p.hosts, "allgather", Fraction(125 * 10**9, 15))
>>> len(trees), max(len(t.arcs) for t in trees), trees[0].arcs[:2]
(16, 15, (('h0', 'h1'), ('h0', 'h2')))
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

from ...errors import CollschedError
from ...schedules import ForestTree
from .trees import pack_spanning_trees

__all__ = ["shallow_trees", "direct_capacities", "reduce_depth", "link_loads"]


def direct_capacities(platform, participants: Sequence[str]) -> dict[tuple[str, str], Fraction]:
    """Capacity of each direct route between participants, every link direction shared equally by the routes on it.

    Parameters
    ----------
    platform : Platform
    participants : sequence of str

    Returns
    -------
    dict
        ``(u, v) -> bytes/s`` for every ordered pair whose route crosses no
        other participant (exact fractions of the links' float bandwidths).

    Examples
    --------
    >>> from collsched import topologies
    >>> caps = direct_capacities(topologies.star(3, bandwidth=4), ["h0", "h1", "h2"])
    >>> caps[("h0", "h1")], len(caps)
    (Fraction(2, 1), 6)
    """
    members = set(participants)
    routes: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    users: dict[tuple[str, bool], int] = {}
    for u in participants:
        for v in participants:
            if u == v:
                continue
            hops = platform.route_hops(u, v)
            node, crossed = u, False
            for link, forward in hops[:-1]:
                a, b = platform.links[link].ends
                node = b if node == a else a
                crossed |= node in members
            if crossed:
                continue
            keys = [(link, bool(forward) or platform.links[link].sharing != "full_duplex") for link, forward in hops]
            routes[(u, v)] = keys
            for key in keys:
                users[key] = users.get(key, 0) + 1
    return {pair: min(Fraction(platform.links[link].bandwidth) / users[(link, fwd)] for link, fwd in keys)
            for pair, keys in routes.items()}


def shallow_trees(platform, participants: Sequence[str], kind: str, rate: Fraction) -> list[ForestTree] | None:
    """Spanning trees of weight ``rate`` per root packed on :func:`direct_capacities`, or None if they cannot carry it.

    Parameters
    ----------
    platform : Platform
    participants : sequence of str
    kind : {"allgather", "reducescatter"}
        Out-trees, or in-trees (arcs ``(child, parent)``, data flowing up the routes ``child → parent``).
    rate : Fraction
        Bytes/s per root.

    Returns
    -------
    list of ForestTree or None
        None when the equal shares of the links do not pass the cut condition at ``rate``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from collsched import topologies
    >>> p = topologies.star(3)
    >>> trees = shallow_trees(p, p.hosts, "allgather", Fraction(62500000))
    >>> len(trees), trees[0].root, trees[0].arcs
    (3, 'h0', (('h0', 'h1'), ('h0', 'h2')))
    """
    caps = direct_capacities(platform, participants)
    index = {p: i for i, p in enumerate(participants)}
    if kind == "reducescatter":  # pack out-trees on the reversed graph: arc v→u stands for the route u→v
        caps = {(v, u): c for (u, v), c in caps.items()}
    scale = math.lcm(rate.denominator, *(c.denominator for c in caps.values()))
    capacity = {(index[u], index[v]): int(c * scale) for (u, v), c in caps.items()}
    try:
        packed = pack_spanning_trees(len(participants), capacity, int(rate * scale))
    except CollschedError:
        return None
    out = []
    for r, w, arcs in packed:
        pairs = tuple((participants[a], participants[b]) if kind == "allgather" else (participants[b], participants[a])
                      for a, b in arcs)
        out.append(ForestTree(participants[r], Fraction(w, scale), pairs))
    return out


def reduce_depth(platform, trees: Sequence[ForestTree], kind: str) -> list[ForestTree]:
    """The trees with nodes moved up to shallower parents wherever every link still carries its load.

    Parameters
    ----------
    platform : Platform
    trees : sequence of ForestTree
        Out-trees (``kind="allgather"``) or in-trees (``"reducescatter"``), weights in bytes/s.
    kind : {"allgather", "reducescatter"}

    Returns
    -------
    list of ForestTree
        The same roots and weights; in each tree, breadth first from the
        root, every node is given the shallowest parent ``q`` (shallower
        than its own) such that moving it (and its subtree) there keeps the
        load of every link direction within its bandwidth: the route
        ``q → v`` gains the tree's weight, the route from the old parent
        loses it (for in-trees, the routes ``v → q`` and ``v → p``). So the
        forest still carries the rate it did, and a chunk crosses fewer arcs.

    Examples
    --------
    A chain ``h0 → h1 → h2`` on a star with room to spare becomes a star:

    >>> from collsched import topologies
    >>> t = reduce_depth(topologies.star(3), [ForestTree("h0", 1, [("h0", "h1"), ("h1", "h2")])], "allgather")
    >>> t[0].arcs
    (('h0', 'h1'), ('h0', 'h2'))
    """
    inward = kind == "reducescatter"
    # exact integer arithmetic: weights and capacities in units of 1/scale bytes/s
    scale = math.lcm(*(t.weight.denominator for t in trees),
                     *(Fraction(link.bandwidth).denominator for link in platform.links.values()))
    loads = {k: int(x * scale) for k, x in link_loads(platform, [(u, v, t.weight) for t in trees
                                                                 for u, v in t.arcs]).items()}
    capacity = {key: int(Fraction(platform.links[key[0]].bandwidth) * scale) for key in loads}
    route: dict[tuple[str, str], dict] = {}

    def hops(a: str, b: str) -> dict:  # link directions crossed by the route a→b, times crossed
        if (a, b) not in route:
            route[(a, b)] = {k: int(x) for k, x in link_loads(platform, [(a, b, Fraction(1))]).items()}
            for key in route[(a, b)]:
                capacity.setdefault(key, int(Fraction(platform.links[key[0]].bandwidth) * scale))
        return route[(a, b)]

    out = []
    for t in trees:
        weight = int(t.weight * scale)
        parent = {(u if inward else v): (v if inward else u) for u, v in t.arcs}
        order = _breadth_first(t.root, parent)
        depth = {t.root: 0}
        for v in order[1:]:
            depth[v] = depth[parent[v]] + 1
        for v in order[1:]:
            p = parent[v]
            for q in order:
                if depth[q] >= depth[p]:
                    break
                new, old = (hops(v, q), hops(v, p)) if inward else (hops(q, v), hops(p, v))
                delta = {k: weight * (new.get(k, 0) - old.get(k, 0)) for k in set(new) | set(old)}
                if all(loads.get(k, 0) + d <= capacity[k] for k, d in delta.items() if d > 0):
                    for k, d in delta.items():
                        loads[k] = loads.get(k, 0) + d
                    parent[v] = q
                    break
            depth[v] = depth[parent[v]] + 1
        order = _breadth_first(t.root, parent)
        out.append(ForestTree(t.root, t.weight, tuple((v, parent[v]) if inward else (parent[v], v)
                                                      for v in order[1:])))
    return out


def link_loads(platform, arcs) -> dict[tuple[str, bool], Fraction]:
    """Bytes/s each link direction carries when each ``(u, v, w)`` of ``arcs`` streams ``w`` along the route ``u→v``.

    Parameters
    ----------
    platform : Platform
    arcs : iterable of (str, str, Fraction)

    Returns
    -------
    dict
        ``(link id, forward)`` → load; a shared or directed link counts
        every hop as forward; fatpipe links (never shared) are left out.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> link_loads(p, [("h0", "h1", Fraction(2)), ("h2", "h1", Fraction(1))])[("l1", False)]
    Fraction(3, 1)
    """
    loads: dict[tuple[str, bool], Fraction] = {}
    for u, v, w in arcs:
        for link, forward in platform.route_hops(u, v):
            sharing = platform.links[link].sharing
            if sharing == "fatpipe":
                continue
            key = (link, bool(forward) or sharing != "full_duplex")
            loads[key] = loads.get(key, Fraction(0)) + w
    return loads


def _breadth_first(root: str, parent: dict[str, str]) -> list[str]:
    """The nodes of the tree given by ``parent``, breadth first from ``root`` (children in name order)."""
    children: dict[str, list[str]] = {}
    for v, p in sorted(parent.items()):
        children.setdefault(p, []).append(v)
    order = [root]
    for u in order:
        order.extend(children.get(u, ()))
    return order
