"""The routed view, vectorised: routes between many pairs of nodes at once, as numpy arrays.

Programs, bounds and the platform's own matrix view need, per pair of
nodes, the route's latency sum, its bottleneck bandwidth, and its hops
(link, direction). An all-to-all of 1,024 hosts has a million messages, so
routes are computed once per distinct pair of ranks and messages index into
them (:func:`unique_pairs`). Ranks may be routers (they appear in
store-and-forward programs): routes between nodes that are not both hosts
follow the platform's shortest-path routing when it has one, else the fewest
hops of the graph view.

Fluid channels: link ``l`` has channels ``2l`` and ``2l + 1``. A full-duplex
link carries its forward hops (``ends[0] -> ends[1]``) on ``2l`` and its
backward hops on ``2l + 1``; a shared link (and a directed one) carries every
hop on ``2l``. The same numbering gives the link-direction resources of
the Circuit model.

This module knows platforms only; what programs need on top of it (message
end points, link busy times) is in :mod:`collsched.simulation.routes`.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(3)
>>> r = pair_routes(p, p.hosts, [0, 2], [2, 0])
>>> r.hops(0), r.hops(1)
([('l0', True), ('l2', False)], [('l2', True), ('l0', False)])
>>> channels(p, r.hop_link, r.hop_fwd).tolist()
[0, 5, 4, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..errors import PlatformError

if TYPE_CHECKING:  # pragma: no cover
    from .model import Platform

__all__ = ["PairRoutes", "pair_routes", "host_routes", "first_unreachable", "first_unreachable_indices", "channels", "sharing_codes", "link_numbers",
           "unique_pairs"]

_I = np.int64


@dataclass(frozen=True, eq=False)
class PairRoutes:
    """Routes between pairs of ranks, CSR over pairs.

    Attributes
    ----------
    link_ids : tuple of str
        The platform's link ids; ``hop_link`` indexes them.
    src, dst : int64 arrays (one per pair)
        Rank indices.
    latency, bandwidth : float64 arrays
        Latency sum (s) and bottleneck bandwidth (bytes/s; ``inf`` when the
        route is empty, from a rank to itself).
    hop_ptr : int64 array
        Hops of pair ``k``: ``hop_ptr[k] .. hop_ptr[k+1]``.
    hop_link, hop_fwd : arrays
        Link index and direction (True: from ``ends[0]``) of each hop.

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.star(2, bandwidth=1e6, latency=1e-3)
    >>> r = pair_routes(p, p.hosts, [0], [1])
    >>> r.latency.tolist(), r.bandwidth.tolist(), r.n_pairs
    ([0.002], [1000000.0], 1)
    """

    link_ids: tuple[str, ...]
    src: np.ndarray
    dst: np.ndarray
    latency: np.ndarray
    bandwidth: np.ndarray
    hop_ptr: np.ndarray
    hop_link: np.ndarray
    hop_fwd: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(self.src.shape[0])

    @property
    def hop_pair(self) -> np.ndarray:
        """Pair index of each hop."""
        return np.repeat(np.arange(self.n_pairs, dtype=_I), np.diff(self.hop_ptr))

    def hops(self, k: int) -> list[tuple[str, bool]]:
        """Hops of pair ``k`` as ``(link id, forward)``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(2)
        >>> pair_routes(p, p.hosts, [1], [1]).hops(0)
        []
        """
        lo, hi = int(self.hop_ptr[k]), int(self.hop_ptr[k + 1])
        return [(self.link_ids[int(l)], bool(f)) for l, f in zip(self.hop_link[lo:hi], self.hop_fwd[lo:hi])]


def _node_hops(platform: Platform, a: str, b: str) -> tuple[tuple[str, bool], ...]:
    """Hops from node ``a`` to node ``b`` when one of them is a router (see the module doc)."""
    if a == b:
        return ()
    from .routing import ShortestPath

    if isinstance(platform.routing, ShortestPath):
        hops = platform.routing.route(platform, a, b)
    else:
        hops = _fewest_hops(platform, a, b)
    if hops is None:
        raise PlatformError(f"node {b!r} is unreachable from node {a!r}", where=f"platform {platform.name!r}",
                            fix="connect them or add a route")
    return tuple(hops)


def _fewest_hops(platform: Platform, a: str, b: str):
    import networkx as nx

    g = platform.graph()
    if a not in g or b not in g:
        return None
    try:
        path = nx.shortest_path(g, a, b)
    except nx.NetworkXNoPath:
        return None
    out = []
    for u, v in zip(path[:-1], path[1:]):
        link = platform.links[g.edges[u, v]["links"][0]]
        out.append((link.id, link.ends[0] == u))
    return out


def pair_routes(platform: Platform, ranks: Sequence[str], src, dst) -> PairRoutes:
    """Routes from ``ranks[src[k]]`` to ``ranks[dst[k]]`` for every ``k``.

    Parameters
    ----------
    platform : Platform
    ranks : sequence of str
        Node ids (hosts or routers) of the ranks.
    src, dst : array_like of int
        Rank indices, one pair per entry (give distinct pairs: each is routed).

    Returns
    -------
    PairRoutes

    Raises
    ------
    PlatformError
        If a destination is unreachable from its source.

    Notes
    -----
    One Python-level route lookup per pair (the platform caches routes); the
    rest is vectorised.

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.hypercube(3, bandwidth=1e6, latency=1e-6)
    >>> r = pair_routes(p, p.hosts, [0, 1], [7, 1])
    >>> r.hop_ptr.tolist(), r.latency.tolist()
    ([0, 3, 3], [3e-06, 0.0])
    """
    src = np.asarray(src, dtype=_I).reshape(-1)
    dst = np.asarray(dst, dtype=_I).reshape(-1)
    link_ids = tuple(platform.links)
    n = src.shape[0]
    found = _from_table(platform, ranks, src, dst)
    hop_ptr, hop_link, hop_fwd = found if found is not None else _hops(platform, ranks, src, dst)
    lat_of, bw_of = link_numbers(platform)
    owner = np.repeat(np.arange(n, dtype=_I), np.diff(hop_ptr))
    latency = np.bincount(owner, weights=lat_of[hop_link], minlength=n).astype(np.float64)
    bandwidth = np.full(n, np.inf)
    if hop_link.shape[0]:   # the bottleneck of each non-empty route: a segment minimum
        nonempty = np.flatnonzero(np.diff(hop_ptr) > 0)
        bandwidth[nonempty] = np.minimum.reduceat(bw_of[hop_link], hop_ptr[nonempty])
    return PairRoutes(link_ids, src, dst, latency, bandwidth, hop_ptr, hop_link, hop_fwd)


def _hops(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """(hop_ptr, hop_link, hop_fwd) of the pairs, by the fastest way the platform's routing allows."""
    found = _tree_routes(platform, ranks, src, dst)
    if found is None:
        found = _dmodk_routes(platform, ranks, src, dst)
    if found is None:
        found = _ecube_routes(platform, ranks, src, dst)
    return found if found is not None else _routes_one_by_one(platform, ranks, src, dst)


_TABLE_MAX_HOSTS = 2048   # the table of every host pair: at most 4 M pairs


def _from_table(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """The hops of host pairs read off the table of every host pair (built once per platform), or None.

    A comparison at 1,024 hosts routes the same million pairs for the bound,
    the cost matrices and each simulation; the table routes them once. Used
    when every rank is a host and the pairs are at least a quarter of all
    host pairs; None otherwise, or when some host pair has no route (the
    pairs are then routed directly, which says which one fails).
    """
    n = len(platform.hosts)
    if n > _TABLE_MAX_HOSTS or 4 * len(src) < n * (n - 1) or not len(src):
        return None
    where = platform._host_index
    if not all(r in where for r in ranks):
        return None
    table = platform.__dict__.get("_host_route_table", False)
    if table is False:  # build it once: every ordered pair of hosts, in (a, b) order
        found = host_routes(platform)
        table = None if found is None else (found[0], found[1] >> 1, (found[1] & 1) == 0)
        platform.__dict__["_host_route_table"] = table
    if table is None:
        return None
    full, link, fwd = table
    index = np.fromiter((where[r] for r in ranks), dtype=_I, count=len(ranks))
    key = index[src] * n + index[dst]
    start = full[key]
    count = full[key + 1] - start
    hop_ptr = np.zeros(len(key) + 1, _I)
    np.cumsum(count, out=hop_ptr[1:])
    at = np.repeat(start - hop_ptr[:-1], count) + np.arange(int(hop_ptr[-1]), dtype=_I)
    return hop_ptr, link[at], fwd[at]


def host_routes(platform: Platform) -> tuple[np.ndarray, np.ndarray] | None:
    """The routes of every ordered pair of hosts: CSR ``(hop_ptr, arcs)`` over pairs ``a * n_hosts + b``, or None.

    Each hop is an arc ``2 * link index + (0 forward, 1 backward)``; a pair
    ``(a, a)`` has no hop. None when some pair of hosts has no route. Under
    shortest-path routing the routes are walked off the hosts' trees in the
    Rust core (``collsched._core.tree_routes``: no Python object per pair),
    and so are d-mod-k's on a fat tree (``collsched._core.dmodk_routes``);
    other routings give theirs vectorised (or pair by pair).

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.star(2)
    >>> [x.tolist() for x in host_routes(p)]
    [[0, 0, 2, 4, 4], [0, 3, 2, 1]]
    """
    from . import routing as rt

    hosts = platform.hosts
    n = len(hosts)
    if isinstance(platform.routing, rt.ShortestPath):
        from .. import _core

        parent, arc_in = platform.routing.trees(platform, hosts)
        node_index = rt._node_index(platform)
        host_node = np.array([node_index[h] for h in hosts], dtype=_I)
        return _core.tree_routes(parent.reshape(-1), arc_in.reshape(-1), len(node_index), host_node)
    if isinstance(platform.routing, rt.DModK):
        from .. import _core

        try:
            up, down, leaf, spine, to_spine, from_spine = _dmodk_arcs(platform, hosts)
        except PlatformError:
            return None
        return _core.dmodk_routes(up, down, leaf, spine, to_spine.reshape(-1), from_spine.reshape(-1),
                                  to_spine.shape[1])
    a, b = np.divmod(np.arange(n * n, dtype=_I), n)
    try:
        hop_ptr, hop_link, hop_fwd = _hops(platform, hosts, a, b)
    except PlatformError:
        return None
    return hop_ptr, 2 * hop_link.astype(_I) + ~hop_fwd


def _routes_one_by_one(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """Any routing: one route lookup per pair."""
    index = {lid: i for i, lid in enumerate(platform.links)}
    is_host = [platform.nodes[r].is_host for r in ranks]
    route = platform.route_hops
    hop_lists = [(route(ranks[a], ranks[b]) if a != b else ()) if is_host[a] and is_host[b]
                 else _node_hops(platform, ranks[a], ranks[b]) for a, b in zip(src.tolist(), dst.tolist())]
    counts = np.fromiter(map(len, hop_lists), dtype=_I, count=len(hop_lists))
    hop_ptr = np.zeros(len(hop_lists) + 1, _I)
    np.cumsum(counts, out=hop_ptr[1:])
    flat = [h for hops in hop_lists for h in hops]
    hop_link = np.fromiter((index[l] for l, _ in flat), dtype=_I, count=len(flat))
    hop_fwd = np.fromiter((f for _, f in flat), dtype=bool, count=len(flat))
    return hop_ptr, hop_link, hop_fwd


_TREE_TABLE_LIMIT = 64_000_000   # entries of the (source x node) tables of the fast path


def _tree_routes(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """Shortest-path routing, many pairs: read every route off its source's tree, vectorised (or None).

    The platform's :class:`~collsched.platform.routing.ShortestPath` keeps one
    predecessor tree per source (the routes :meth:`Platform.route_hops` walks);
    the routes of all pairs are the same walks, done for all pairs at once on
    ``(source, node)`` tables, one step per hop.
    """
    from . import routing as rt

    if not isinstance(platform.routing, rt.ShortestPath) or src.shape[0] < 4 * max(len(set(src.tolist())), 1):
        return None
    sources = np.unique(src)
    node_ids = list(platform.nodes)
    if sources.shape[0] * len(node_ids) > _TREE_TABLE_LIMIT:
        return None
    node_index = {n: i for i, n in enumerate(node_ids)}
    # parent[k, v] and hop[k, v] (2 * link + (0 forward, 1 backward)) of source k's tree, from the Rust core
    parent, hop = platform.routing.trees(platform, [ranks[s] for s in sources.tolist()])
    rank_node = np.array([node_index[r] for r in ranks], dtype=np.int64)
    row = np.searchsorted(sources, src)
    home, cur = rank_node[src], rank_node[dst].copy()
    walking = np.flatnonzero(cur != home)
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    while walking.shape[0]:
        h = hop[row[walking], cur[walking]]
        if np.any(h < 0):
            bad = int(walking[np.flatnonzero(h < 0)[0]])
            raise PlatformError(f"node {ranks[dst[bad]]!r} is unreachable from node {ranks[src[bad]]!r}",
                                where=f"platform {platform.name!r}", fix="connect them or add a route")
        levels.append((walking, h))
        cur[walking] = parent[row[walking], cur[walking]]
        walking = walking[cur[walking] != home[walking]]
    counts = np.zeros(src.shape[0], _I)
    for who, _ in levels:
        counts[who] += 1
    hop_ptr = np.zeros(src.shape[0] + 1, _I)
    np.cumsum(counts, out=hop_ptr[1:])
    direction = np.empty(int(hop_ptr[-1]), _I)
    for depth, (who, h) in enumerate(levels):   # level d is the d-th hop from the end
        direction[hop_ptr[who + 1] - 1 - depth] = h
    return hop_ptr, direction // 2, (direction % 2) == 0


def _dmodk_routes(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """D-mod-k routing on a fat tree, many pairs at once (or None for another routing or router ranks).

    The same routes as :meth:`DModK.route <collsched.platform.routing.DModK.route>`: up to the
    source's leaf, through spine ``host index(dst) mod S`` when the leaves differ, down to ``dst``.
    """
    parts = _dmodk_arcs(platform, ranks)
    if parts is None:
        return None
    up, down, leaf, spine, to_spine, from_spine = parts
    far = leaf[src] != leaf[dst]
    counts = np.where(src == dst, 0, np.where(far, 4, 2)).astype(_I)
    hop_ptr = np.zeros(src.shape[0] + 1, _I)
    np.cumsum(counts, out=hop_ptr[1:])
    arcs = np.empty(int(hop_ptr[-1]), _I)
    moving = counts > 0
    first, last = hop_ptr[:-1][moving], hop_ptr[1:][moving] - 1
    arcs[first] = up[src[moving]]
    arcs[last] = down[dst[moving]]
    via = spine[dst[far]]
    arcs[hop_ptr[:-1][far] + 1] = to_spine[leaf[src[far]], via]
    arcs[hop_ptr[:-1][far] + 2] = from_spine[via, leaf[dst[far]]]
    return hop_ptr, arcs // 2, (arcs % 2) == 0


def _dmodk_arcs(platform: Platform, ranks: Sequence[str]):
    """The arcs d-mod-k routes are made of, or None for another routing or router ranks.

    ``(up, down, leaf, spine, to_spine, from_spine)``: per rank, its arc up to
    its leaf, down from it, its leaf's number and the spine that routes
    towards it (``host index mod S``); per leaf and spine, the arc between
    them (``to_spine[leaf, spine]``, ``from_spine[spine, leaf]``). Arcs are
    ``2 * link + (0 forward, 1 backward)``, as the routing picks the links.
    """
    from . import routing as rt

    routing = platform.routing
    if not isinstance(routing, rt.DModK) or not all(platform.nodes[r].is_host for r in ranks):
        return None
    leaves = sorted(set(routing.leaf.values()))
    leaf_no = {leaf: j for j, leaf in enumerate(leaves)}
    link_no = {lid: i for i, lid in enumerate(platform.links)}

    def arc(u: str, v: str) -> int:
        link, forward = rt._hop_between(platform, u, v)
        return 2 * link_no[link] + (not forward)

    up = np.array([arc(r, routing.leaf[r]) for r in ranks], dtype=_I)
    down = np.array([arc(routing.leaf[r], r) for r in ranks], dtype=_I)
    leaf = np.array([leaf_no[routing.leaf[r]] for r in ranks], dtype=_I)
    spine = np.array([platform.host_index(r) for r in ranks], dtype=_I) % len(routing.spines)
    to_spine = np.array([[arc(l, sp) for sp in routing.spines] for l in leaves], dtype=_I).reshape(len(leaves), len(routing.spines))
    from_spine = np.array([[arc(sp, l) for l in leaves] for sp in routing.spines],
                          dtype=_I).reshape(len(routing.spines), len(leaves))
    return up, down, leaf, spine, to_spine, from_spine


def _ecube_routes(platform: Platform, ranks: Sequence[str], src: np.ndarray, dst: np.ndarray):
    """E-cube routing on a hypercube, many pairs at once (or None for another routing or router ranks).

    The same routes as :meth:`ECube.route <collsched.platform.routing.ECube.route>`: the
    differing address bits corrected one at a time, lowest first, one level of hops per bit.
    """
    from . import routing as rt

    routing = platform.routing
    if not isinstance(routing, rt.ECube) or not all(platform.nodes[r].is_host for r in ranks):
        return None
    size = len(routing.address)
    bits = size.bit_length() - 1
    node = {a: n for n, a in routing.address.items()}
    link_no = {lid: i for i, lid in enumerate(platform.links)}

    def arc(u: str, v: str) -> int:   # 2 * link + (0 forward, 1 backward), as the routing picks it
        link, forward = rt._hop_between(platform, u, v)
        return 2 * link_no[link] + (not forward)

    # step[x, k]: the hop from the node at address x across dimension k
    step = np.array([[arc(node[x], node[x ^ (1 << k)]) for k in range(bits)] for x in range(size)],
                    dtype=_I).reshape(size, bits)
    address = np.array([routing.address[r] for r in ranks], dtype=_I)
    cur, diff = address[src], address[src] ^ address[dst]
    counts = np.zeros(src.shape[0], _I)
    for k in range(bits):
        counts += (diff >> k) & 1
    hop_ptr = np.zeros(src.shape[0] + 1, _I)
    np.cumsum(counts, out=hop_ptr[1:])
    arcs = np.empty(int(hop_ptr[-1]), _I)
    done = np.zeros(src.shape[0], _I)   # hops of each route written so far
    for k in range(bits):
        on = np.flatnonzero((diff >> k) & 1)
        arcs[hop_ptr[on] + done[on]] = step[cur[on], k]
        cur[on] ^= 1 << k
        done[on] += 1
    return hop_ptr, arcs // 2, (arcs % 2) == 0


def first_unreachable(platform: Platform, pairs: Sequence[tuple[str, str]]) -> int | None:
    """The index of the first pair ``(src, dst)`` with no route (or not two hosts), or None if every pair has one.

    What :meth:`Platform.has_route <collsched.platform.Platform.has_route>`
    says of each pair, without routing every pair: e-cube and d-mod-k
    routings route every pair of hosts (their ``bind`` checked every host
    and link they use); shortest-path routing reaches what the source's
    tree reaches (one tree per source, from the Rust core); any other
    routing is asked pair by pair, up to the first pair without a route.

    Parameters
    ----------
    platform : Platform
    pairs : sequence of (str, str)

    Returns
    -------
    int or None

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))])
    >>> first_unreachable(p, [("a", "b"), ("b", "a"), ("b", "b")]) is None
    True
    >>> first_unreachable(p, [("a", "b"), ("c", "a"), ("a", "c")]), first_unreachable(p, [("a", "zz")])
    (1, 0)
    """
    index = {h: i for i, h in enumerate(platform.hosts)}
    src = np.array([index.get(a, -1) for a, _ in pairs], dtype=_I)
    dst = np.array([index.get(b, -1) for _, b in pairs], dtype=_I)
    return first_unreachable_indices(platform, src, dst)


def first_unreachable_indices(platform: Platform, src: np.ndarray, dst: np.ndarray) -> int | None:
    """:func:`first_unreachable` of pairs given as host indices (``-1``: not a host).

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))])
    >>> first_unreachable_indices(p, np.array([0, 2]), np.array([1, 0]))
    1
    """
    from . import routing as rt

    src, dst = np.asarray(src, dtype=_I), np.asarray(dst, dtype=_I)
    ok = (src >= 0) & (dst >= 0)   # has_route is False for a name that is not a host
    kind = type(platform.routing)
    if kind is rt.ShortestPath:
        moving = np.flatnonzero(ok & (src != dst))
        if moving.shape[0]:
            sources = np.unique(src[moving])
            parent, _ = platform.routing.trees(platform, [platform.hosts[s] for s in sources.tolist()])
            node_index = {n: i for i, n in enumerate(platform.nodes)}
            host_node = np.array([node_index[h] for h in platform.hosts], dtype=_I)
            ok[moving] = parent[np.searchsorted(sources, src[moving]), host_node[dst[moving]]] >= 0
    elif kind not in (rt.ECube, rt.DModK):
        hosts = platform.hosts
        for k, (a, b) in enumerate(zip(src.tolist(), dst.tolist())):
            if a < 0 or b < 0 or not platform.has_route(hosts[a], hosts[b]):
                return k
        return None
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.shape[0] else None


def link_numbers(platform: Platform) -> tuple[np.ndarray, np.ndarray]:
    """(latency, bandwidth) of every link, in link order.

    Examples
    --------
    >>> from collsched import topologies
    >>> [x.tolist() for x in link_numbers(topologies.star(2, bandwidth=1e6, latency=1e-3))]
    [[0.001, 0.001], [1000000.0, 1000000.0]]
    """
    links = list(platform.links.values())
    return (np.array([l.latency for l in links], dtype=np.float64),
            np.array([l.bandwidth for l in links], dtype=np.float64))


def sharing_codes(platform: Platform) -> np.ndarray:
    """Per link: 0 full-duplex, 1 shared, 2 fatpipe (directed links count as shared: one direction).

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b")], [Link("x", 1e9, ends=("a", "b")),
    ...              Link("y", 1e9, ends=("a", "b"), sharing="fatpipe"), Link("z", 1e9, ends=("b", "a"), directed=True)])
    >>> sharing_codes(p).tolist()
    [0, 2, 1]
    """
    code = {"full_duplex": 0, "shared": 1, "fatpipe": 2}
    return np.array([1 if (l.directed and l.sharing == "full_duplex") else code[l.sharing]
                     for l in platform.links.values()], dtype=_I)


def channels(platform: Platform, hop_link: np.ndarray, hop_fwd: np.ndarray) -> np.ndarray:
    """Channel (or link-direction resource) of each hop: ``2l`` or ``2l + 1`` (see the module doc).

    Examples
    --------
    >>> from collsched import topologies
    >>> channels(topologies.star(2), np.array([1, 1]), np.array([True, False])).tolist()
    [2, 3]
    """
    full = sharing_codes(platform)[hop_link] == 0
    return 2 * hop_link + (full & ~hop_fwd)


def unique_pairs(src: np.ndarray, dst: np.ndarray, n_ranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pair of each message, pair sources, pair destinations)``, pairs in (src, dst) order.

    Examples
    --------
    >>> [x.tolist() for x in unique_pairs(np.array([1, 0, 1]), np.array([0, 1, 0]), 2)]
    [[1, 0, 1], [0, 1], [1, 0]]
    """
    r = max(n_ranks, 1)
    key = src.astype(_I) * r + dst.astype(_I)
    if r * r <= max(4 * key.shape[0], 1 << 22):   # a table of all pairs is small: O(n), no sort
        present = np.bincount(key, minlength=r * r) > 0
        keys = np.flatnonzero(present)
        pair = (np.cumsum(present) - 1)[key]
    else:
        keys, pair = np.unique(key, return_inverse=True)
    return pair.reshape(-1).astype(_I), keys // r, keys % r
