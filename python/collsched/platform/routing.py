"""Static routing: how a host reaches another, as a sequence of link hops.

Three schemes, each a small frozen object that a :class:`~collsched.platform.Platform`
binds (validates against itself) when it is built:

* :class:`ShortestPath` — shortest path over links with ends, by hop count or
  by latency, with a deterministic tie-break;
* :class:`RouteTable` — an explicit table of routes between hosts (SimGrid's
  ``Full`` routing), symmetric by default;
* :class:`ECube` — dimension-order routing on a hypercube.

Examples
--------
>>> from collsched.platform import Platform, Node, Link
>>> nodes = [Node("a"), Node("b"), Node("c")]
>>> links = [Link("ab", 1e9, ends=("a", "b")), Link("bc", 1e9, ends=("b", "c")),
...          Link("ac", 1e9, latency=1.0, ends=("a", "c"))]
>>> Platform(nodes, links).route("a", "c")
('ac',)
>>> Platform(nodes, links, ShortestPath("latency")).route("a", "c")
('ab', 'bc')
>>> Platform(nodes, links, RouteTable({("a", "c"): ["ab", "bc"]})).route("c", "a")
('bc', 'ab')
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from ..errors import PlatformError

if TYPE_CHECKING:  # pragma: no cover
    from .model import Hop, Platform

__all__ = ["Routing", "ShortestPath", "RouteTable", "ECube", "DModK"]


class Routing(ABC):
    """A static routing scheme.

    A :class:`~collsched.platform.Platform` calls :meth:`bind` once when it
    is built, then :meth:`route` once per host pair it is asked about, and
    caches the answer. A scheme is an immutable value: it compares equal to
    another with the same parameters (platforms compare their routings), and
    keeps whatever it derives from a platform in that platform, not in itself,
    so one scheme may serve several platforms.

    Examples
    --------
    A scheme that only lets hosts joined by one link talk:

    >>> from collsched.platform import Link, Node, Platform
    >>> class OneHop(Routing):
    ...     def bind(self, platform):
    ...         pass
    ...     def route(self, platform, src, dst):
    ...         hops = [(link.id, link.ends[0] == src) for n, link in platform.neighbours(src) if n == dst]
    ...         return tuple(hops[:1]) or None
    >>> p = Platform([Node("a"), Node("b"), Node("c")],
    ...              [Link("ab", 1e9, ends=("a", "b")), Link("bc", 1e9, ends=("b", "c"))], OneHop())
    >>> p.route_hops("b", "a"), p.has_route("a", "c")
    ((('ab', False),), False)
    """

    @abstractmethod
    def bind(self, platform: Platform) -> None:
        """Check the scheme against ``platform``; raise :class:`PlatformError` if it cannot work.

        Called by the :class:`~collsched.platform.Platform` constructor, once,
        after the nodes and links are checked; a scheme that precomputes
        something stores it in the platform here.

        Parameters
        ----------
        platform : Platform
            The platform being built (its nodes, links and hosts are final).

        Returns
        -------
        None

        Raises
        ------
        PlatformError
            If the scheme cannot route on ``platform`` (then the platform is not built).

        Examples
        --------
        Shortest paths need every link to have ends:

        >>> from collsched.platform import Link, Node, Platform
        >>> Platform([Node("a"), Node("b")], [Link("x", 1e9)], ShortestPath())
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': link 'x' has no ends, so shortest-path routing cannot use it (give its ends or use a route table)
        >>> Platform([Node("a"), Node("b")], [Link("x", 1e9)], RouteTable({("a", "b"): ["x"]})).route("b", "a")
        ('x',)
        """

    @abstractmethod
    def route(self, platform: Platform, src: str, dst: str) -> tuple[Hop, ...] | None:
        """Hops from host ``src`` to host ``dst`` (distinct), or None if unreachable.

        Call :meth:`Platform.route_hops <collsched.platform.Platform.route_hops>`
        rather than this: it checks the hosts, handles ``src == dst``, caches
        the route and raises on an unreachable pair.

        Parameters
        ----------
        platform : Platform
            A platform this scheme is bound to.
        src, dst : str
            Distinct hosts of ``platform``.

        Returns
        -------
        tuple of (str, bool) or None
            ``(link id, forward)`` hops in path order, or None if ``dst``
            cannot be reached from ``src``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.hypercube(2)
        >>> p.routing.route(p, "h0", "h3")
        (('e0-1', True), ('e1-3', True))
        >>> p.routing.route(p, "h3", "h0")
        (('e2-3', False), ('e0-2', False))
        """


def _hop_between(platform: Platform, u: str, v: str) -> Hop | None:
    """The first link (in link order) that carries traffic from node u to node v."""
    for w, link in platform.neighbours(u):
        if w == v:
            return (link.id, link.ends[0] == u)
    return None


@dataclass(frozen=True)
class ShortestPath(Routing):
    """Shortest paths over the links that have ends.

    Parameters
    ----------
    metric : {"hops", "latency"}
        Minimise the number of hops, or the latency sum (then the hop count).

    Notes
    -----
    Tie-break: Dijkstra's algorithm settles nodes at equal cost in node
    declaration order, explores each node's links in link declaration order,
    and replaces a node's predecessor only on a strict improvement; so among
    equal-cost routes the one through the earliest-declared nodes wins. The
    result depends only on the platform, never on hashing or timing. Routes
    pass through routers and hosts alike. One Dijkstra per source host,
    computed on first use and cached: O(E log V) per source.

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> nodes = [Node("a"), Node("b"), Node("c")]
    >>> links = [Link("ab", 1e9, ends=("a", "b")), Link("bc", 1e9, ends=("b", "c")),
    ...          Link("ac", 1e9, latency=1.0, ends=("a", "c"))]
    >>> Platform(nodes, links, ShortestPath("hops")).route("a", "c")
    ('ac',)
    >>> Platform(nodes, links, ShortestPath("latency")).route("a", "c")
    ('ab', 'bc')
    >>> ShortestPath("hops") == ShortestPath()
    True
    """

    metric: str = "hops"

    def __post_init__(self):
        if self.metric not in ("hops", "latency"):
            raise PlatformError(f"unknown shortest-path metric {self.metric!r}", fix="use 'hops' or 'latency'")

    def bind(self, platform: Platform) -> None:
        """Check that every link of ``platform`` has ends (routes are searched over them).

        Parameters
        ----------
        platform : Platform
            The platform being built.

        Returns
        -------
        None

        Raises
        ------
        PlatformError
            Naming the first link without ends.

        Examples
        --------
        >>> from collsched.platform import Link, Node, Platform
        >>> Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b")), Link("x", 1e9)])
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': link 'x' has no ends, so shortest-path routing cannot use it (give its ends or use a route table)
        """
        unbound = [link.id for link in platform.links.values() if link.ends is None]
        if unbound:
            raise PlatformError(f"link {unbound[0]!r} has no ends, so shortest-path routing cannot use it",
                                where=f"platform {platform.name!r}", fix="give its ends or use a route table")

    def route(self, platform: Platform, src: str, dst: str) -> tuple[Hop, ...] | None:
        """The shortest route from ``src`` to ``dst``, ties broken as the class Notes say.

        Parameters
        ----------
        platform : Platform
            The platform this scheme is bound to (its routing).
        src, dst : str
            Distinct hosts.

        Returns
        -------
        tuple of (str, bool) or None
            ``(link id, forward)`` hops, or None if ``dst`` is unreachable.

        Notes
        -----
        The shortest-path tree of ``src`` is computed on first use and kept in
        the platform, whatever the metric; call this only with the
        platform's own routing (or use :meth:`Platform.route_hops
        <collsched.platform.Platform.route_hops>`).

        Examples
        --------
        Hop count ties: ``h0`` reaches ``h3`` in two hops either way round the
        square, and the route through the earlier-declared node ``h1`` wins:

        >>> from collsched.platform import Link, Node, Platform
        >>> p = Platform([Node(f"h{i}") for i in range(4)],
        ...              [Link("01", 1e9, ends=("h0", "h1")), Link("02", 1e9, ends=("h0", "h2")),
        ...               Link("13", 1e9, ends=("h1", "h3")), Link("23", 1e9, ends=("h2", "h3"))])
        >>> p.routing.route(p, "h0", "h3")
        (('01', True), ('13', True))
        >>> p.routing.route(p, "h3", "h0")
        (('13', False), ('01', False))
        """
        parent, hop = self.trees(platform, [src])
        index = _node_index(platform)
        node, home = index[dst], index[src]
        if parent[0, node] < 0:
            return None
        links = _link_ids(platform)
        hops: list[Hop] = []
        while node != home:
            arc = int(hop[0, node])
            hops.append((links[arc >> 1], not arc & 1))
            node = int(parent[0, node])
        return tuple(reversed(hops))

    def trees(self, platform: Platform, sources) -> tuple[np.ndarray, np.ndarray]:
        """The shortest-path trees of ``sources``, computed in the Rust core and cached per platform.

        Parameters
        ----------
        platform : Platform
        sources : sequence of str
            Node ids.

        Returns
        -------
        parent, arc : numpy.ndarray
            ``len(sources) x len(platform.nodes)`` arrays over the nodes in
            declaration order: each node's predecessor on its route from the
            source (-1 for the source and unreachable nodes), and the hop
            into it, as ``2 * link index + (0 forward, 1 backward)``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> parent, arc = p.routing.trees(p, ["h0"])
        >>> list(p.nodes), parent[0].tolist()
        (['h0', 'h1', 'h2', 'sw'], [-1, 3, 3, 0])
        >>> [(list(p.links)[a >> 1], not a & 1) for a in arc[0, 1:].tolist()]
        [('l1', False), ('l2', False), ('l0', True)]
        """
        from .. import _core

        cache = _shortest_path_trees(platform)
        missing = [src for src in dict.fromkeys(sources) if (self.metric, src) not in cache]
        if missing:
            index = _node_index(platform)
            ptr, node, arc, latency = _graph_arrays(platform)
            parent, hop = _core.shortest_path_trees(ptr, node, arc, latency,
                                                    np.array([index[m] for m in missing], dtype=np.int64),
                                                    by_latency=self.metric == "latency")
            n = len(index)
            for k, src in enumerate(missing):
                cache[(self.metric, src)] = (parent[k * n:(k + 1) * n], hop[k * n:(k + 1) * n])
        rows = [cache[(self.metric, src)] for src in sources]
        return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def _shortest_path_trees(platform: Platform) -> dict:
    trees = platform.__dict__.get("_sp_trees")
    if trees is None:
        trees = platform.__dict__["_sp_trees"] = {}
    return trees


def _node_index(platform: Platform) -> dict[str, int]:
    index = platform.__dict__.get("_node_index")
    if index is None:
        index = platform.__dict__["_node_index"] = {n: i for i, n in enumerate(platform.nodes)}
    return index


def _link_ids(platform: Platform) -> tuple[str, ...]:
    links = platform.__dict__.get("_link_ids")
    if links is None:
        links = platform.__dict__["_link_ids"] = tuple(platform.links)
    return links


def _graph_arrays(platform: Platform):
    """The graph of links with ends in CSR form, each node's arcs in link declaration order (cached)."""
    arrays = platform.__dict__.get("_sp_graph")
    if arrays is None:
        index = _node_index(platform)
        link_index = {lid: i for i, lid in enumerate(platform.links)}
        ptr, node, arc, latency = [0], [], [], []
        for u in platform.nodes:
            for v, link in platform.neighbours(u):
                node.append(index[v])
                arc.append(2 * link_index[link.id] + (link.ends[0] != u))
                latency.append(link.latency)
            ptr.append(len(node))
        arrays = platform.__dict__["_sp_graph"] = (np.array(ptr, dtype=np.int64), np.array(node, dtype=np.int64),
                                                    np.array(arc, dtype=np.int64), np.array(latency, dtype=np.float64))
    return arrays


@dataclass(frozen=True, eq=False)
class RouteTable(Routing):
    """An explicit table of routes between hosts.

    Parameters
    ----------
    routes : mapping
        ``(src, dst) -> sequence of link ids`` or of ``(link id, forward)`` hops.
        A link given by id alone is traversed forward if it has no ends or if
        its ends say so from the previous node; a route whose links with ends
        do not form a path from ``src`` to ``dst`` is rejected.
    symmetric : bool
        If True (SimGrid's default), a missing ``(dst, src)`` route is the
        reverse of ``(src, dst)``.
    fallback : Routing, optional
        Used for pairs the table does not list (e.g. ShortestPath()).

    Examples
    --------
    Links without ends, as in a SimGrid ``Full`` zone:

    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("x", 1e9), Link("y", 1e9)],
    ...              RouteTable({("a", "b"): ["x"], ("a", "c"): ["x", "y"]}))
    >>> p.route("c", "a"), p.has_route("b", "c")
    (('y', 'x'), False)

    A table that overrides one pair, shortest paths elsewhere:

    >>> nodes = [Node("a"), Node("b"), Node("c")]
    >>> links = [Link("ab", 1e9, ends=("a", "b")), Link("bc", 1e9, ends=("b", "c")), Link("ac", 1e9, ends=("a", "c"))]
    >>> p = Platform(nodes, links, RouteTable({("a", "c"): ["ab", "bc"]}, symmetric=False, fallback=ShortestPath()))
    >>> p.route("a", "c"), p.route("c", "a")
    (('ab', 'bc'), ('ac',))
    """

    routes: Mapping[tuple[str, str], Sequence] = field(default_factory=dict)
    symmetric: bool = True
    fallback: Routing | None = None

    def __eq__(self, other):
        if not isinstance(other, RouteTable):
            return NotImplemented
        return (self.symmetric == other.symmetric and self.fallback == other.fallback
                and _normal(self.routes) == _normal(other.routes))

    def bind(self, platform: Platform) -> None:
        """Resolve every route of the table to hops, check it, and bind the fallback.

        Parameters
        ----------
        platform : Platform
            The platform being built; the resolved hops are stored in it.

        Returns
        -------
        None

        Raises
        ------
        PlatformError
            If a route names an unknown node or link, starts or ends at a
            router, is empty, uses a directed link backwards, or its links
            with ends do not form a path from ``src`` to ``dst``; or if the
            fallback cannot bind.

        Examples
        --------
        >>> from collsched.platform import Link, Node, Platform
        >>> nodes = [Node("a"), Node("b"), Node("c")]
        >>> links = [Link("ab", 1e9, ends=("a", "b")), Link("bc", 1e9, ends=("b", "c"))]
        >>> Platform(nodes, links, RouteTable({("a", "c"): ["bc", "ab"]}))
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': route a->c: link 'bc' does not start at 'a' (list the links in path order)
        >>> Platform(nodes, links, RouteTable({("a", "c"): ["ab"]}))
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': route a->c ends at 'b', not at 'c'
        """
        hops: dict[tuple[str, str], tuple[Hop, ...]] = {}
        for (src, dst), route in self.routes.items():
            where = f"route {src}->{dst}"
            for end in (src, dst):
                if end not in platform.nodes:
                    raise PlatformError(f"{where} names unknown node {end!r}", where=f"platform {platform.name!r}")
                if not platform.nodes[end].is_host:
                    raise PlatformError(f"{where}: {end!r} is a router, not a host", where=f"platform {platform.name!r}")
            hops[(src, dst)] = _resolve(platform, src, dst, route, where)
        if self.symmetric:
            for (src, dst), route in list(hops.items()):
                if (dst, src) not in hops:
                    if any(platform.links[link].directed for link, _ in route):
                        continue  # a directed link cannot carry the way back; that pair needs its own route
                    hops[(dst, src)] = tuple((link, not fwd) for link, fwd in reversed(route))
        # resolved hops belong to the platform (one table may serve several platforms)
        platform.__dict__.setdefault("_table_hops", {})[id(self)] = MappingProxyType(hops)
        if self.fallback is not None:
            self.fallback.bind(platform)

    def route(self, platform: Platform, src: str, dst: str) -> tuple[Hop, ...] | None:
        """The table's route (or its reverse, if symmetric), else the fallback's, else None.

        Parameters
        ----------
        platform : Platform
            A platform this table is bound to.
        src, dst : str
            Distinct hosts.

        Returns
        -------
        tuple of (str, bool) or None
            ``(link id, forward)`` hops; a reversed route runs the links in
            reverse order, each in the other direction.

        Examples
        --------
        >>> from collsched.platform import Link, Node, Platform
        >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("x", 1e9), Link("y", 1e9)],
        ...              RouteTable({("a", "c"): ["x", ("y", False)]}))
        >>> p.routing.route(p, "a", "c"), p.routing.route(p, "c", "a")
        ((('x', True), ('y', False)), (('y', True), ('x', False)))
        >>> p.routing.route(p, "a", "b") is None
        True
        """
        hops = platform.__dict__["_table_hops"][id(self)].get((src, dst))
        if hops is None and self.fallback is not None:
            return self.fallback.route(platform, src, dst)
        return hops

    def __repr__(self) -> str:
        return f"RouteTable({len(self.routes)} routes, symmetric={self.symmetric}, fallback={self.fallback!r})"


def _normal(routes: Mapping) -> dict:
    """Routes with every hop as a link id or a ``(link id, forward)`` tuple, for comparison."""
    return {tuple(k): tuple(h if isinstance(h, str) else (h[0], bool(h[1])) for h in v) for k, v in routes.items()}


def _resolve(platform: Platform, src: str, dst: str, route: Sequence, where: str) -> tuple[Hop, ...]:
    """Turn a route of link ids or (link, forward) pairs into checked hops."""
    at = src
    out: list[Hop] = []
    for item in route:
        link_id, forward = (item, None) if isinstance(item, str) else (item[0], bool(item[1]))
        link = platform.links.get(link_id)
        if link is None:
            raise PlatformError(f"{where} names unknown link {link_id!r}", where=f"platform {platform.name!r}")
        if link.ends is None:
            out.append((link_id, True if forward is None else forward))
            at = None
            continue
        if forward is None:
            forward = at is None or link.ends[0] == at or link.ends[1] != at
        if link.directed and not forward:
            raise PlatformError(f"{where} uses directed link {link_id!r} backwards", where=f"platform {platform.name!r}")
        tail, head = link.ends if forward else link.ends[::-1]
        if at is not None and tail != at:
            raise PlatformError(f"{where}: link {link_id!r} does not start at {at!r}",
                                where=f"platform {platform.name!r}", fix="list the links in path order")
        at = head
        out.append((link_id, forward))
    if not out:
        raise PlatformError(f"{where} is empty", where=f"platform {platform.name!r}", fix="list the links of the route")
    if at is not None and at != dst:
        raise PlatformError(f"{where} ends at {at!r}, not at {dst!r}", where=f"platform {platform.name!r}")
    return tuple(out)


@dataclass(frozen=True, eq=False)
class ECube(Routing):
    """Dimension-order (e-cube) routing on a hypercube.

    Parameters
    ----------
    address : mapping
        Node id -> hypercube address (0 .. 2**dimension - 1), one per node.

    Notes
    -----
    From ``a`` to ``b``, the bits where the addresses differ are corrected one
    at a time from the lowest dimension to the highest; each hop uses the link
    between the two neighbouring nodes (Ranka and Wang 1993, Section 2).

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.hypercube(3)
    >>> p.routing == ECube({f"h{i}": i for i in range(8)})
    True
    >>> p.route("h5", "h2")
    ('e4-5', 'e4-6', 'e2-6')
    """

    address: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "_node", {a: n for n, a in self.address.items()})

    def __eq__(self, other):
        return isinstance(other, ECube) and dict(self.address) == dict(other.address)

    def bind(self, platform: Platform) -> None:
        """Check that the addresses form a hypercube of ``platform``'s links and cover every host.

        Parameters
        ----------
        platform : Platform
            The platform being built.

        Returns
        -------
        None

        Raises
        ------
        PlatformError
            If the number of addressed nodes is not a power of two, the
            addresses are not ``0 .. 2**d - 1`` each once, an addressed node
            is unknown, two nodes one bit apart have no link, or a host has
            no address.

        Examples
        --------
        >>> from collsched.platform import Link, Node, Platform
        >>> nodes = [Node("a"), Node("b"), Node("c"), Node("d")]
        >>> links = [Link("ab", 1e9, ends=("a", "b")), Link("cd", 1e9, ends=("c", "d")),
        ...          Link("ac", 1e9, ends=("a", "c"))]
        >>> Platform(nodes, links, ECube({"a": 0, "b": 1, "c": 2, "d": 3}))
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': e-cube: no link from 'b' to 'd' (a hypercube links nodes one bit apart)
        """
        size = len(self.address)
        if size == 0 or size & (size - 1):
            raise PlatformError(f"e-cube routing needs 2**d addressed nodes, got {size}")
        if sorted(self.address.values()) != list(range(size)):
            raise PlatformError("e-cube addresses must be 0 .. 2**d - 1, each once")
        for node in self.address:
            if node not in platform.nodes:
                raise PlatformError(f"e-cube address given for unknown node {node!r}")
        for node, a in self.address.items():
            bit = 1
            while bit < size:
                if _hop_between(platform, node, self._node[a ^ bit]) is None:
                    raise PlatformError(f"e-cube: no link from {node!r} to {self._node[a ^ bit]!r}",
                                        where=f"platform {platform.name!r}", fix="a hypercube links nodes one bit apart")
                bit <<= 1
        for h in platform.hosts:
            if h not in self.address:
                raise PlatformError(f"host {h!r} has no e-cube address")

    def route(self, platform: Platform, src: str, dst: str) -> tuple[Hop, ...]:
        """Correct the differing address bits of ``src`` and ``dst``, lowest first.

        Parameters
        ----------
        platform : Platform
            A platform this scheme is bound to.
        src, dst : str
            Distinct hosts.

        Returns
        -------
        tuple of (str, bool)
            One hop per differing bit (a hypercube is connected, so never None).

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.hypercube(3)
        >>> p.routing.route(p, "h0", "h6")
        (('e0-2', True), ('e2-6', True))
        """
        a, b = self.address[src], self.address[dst]
        hops = []
        bit = 1
        while a != b:
            if (a ^ b) & bit:
                hops.append(_hop_between(platform, self._node[a], self._node[a ^ bit]))
                a ^= bit
            bit <<= 1
        return tuple(hops)

    def __repr__(self) -> str:
        return f"ECube({len(self.address)} nodes)"


@dataclass(frozen=True, eq=False)
class DModK(Routing):
    """D-mod-k routing on a two-level fat tree (leaf and spine switches).

    Parameters
    ----------
    leaf : mapping
        Host id -> the leaf switch it hangs from.
    spines : sequence of str
        The spine switches, in order.

    Notes
    -----
    A transfer between hosts of one leaf goes up to the leaf and down again;
    to a host of another leaf it climbs to spine ``t mod S``, ``t`` being the
    destination's rank (its index in ``platform.hosts``) and ``S`` the number
    of spines, which spreads destinations evenly over the spines and makes
    shift permutations non-blocking (Zahavi 2010). Each hop uses the first
    link declared between its two nodes. Routes are computed on demand, in
    O(1) memory per platform, where an explicit table would hold O(N²).

    References
    ----------
    E. Zahavi, "D-Mod-K routing providing non-blocking traffic for shift
    permutations on real life fat trees", CCIT Report 776, Technion, 2010.

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.fat_tree(2, 2, spines=2)
    >>> isinstance(p.routing, DModK)
    True
    >>> p.route("h0", "h3"), p.route("h0", "h2"), p.route("h0", "h1")
    (('l0', 'leaf0-spine1', 'leaf1-spine1', 'l3'), ('l0', 'leaf0-spine0', 'leaf1-spine0', 'l2'), ('l0', 'l1'))
    """

    leaf: Mapping[str, str] = field(default_factory=dict)
    spines: tuple[str, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "leaf", MappingProxyType(dict(self.leaf)))
        object.__setattr__(self, "spines", tuple(self.spines))

    def __eq__(self, other):
        return isinstance(other, DModK) and dict(self.leaf) == dict(other.leaf) and self.spines == other.spines

    def bind(self, platform: Platform) -> None:
        """Check that every host has a leaf, and every leaf a link to its hosts and to every spine.

        Raises
        ------
        PlatformError
            Naming the host, leaf or spine at fault.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.fat_tree(2, 1)
        >>> from collsched.platform import Platform
        >>> Platform(p.nodes.values(), p.links.values(), DModK({"h0": "leaf0"}, ("spine0",)))
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'platform': d-mod-k routing gives host 'h1' no leaf
        """
        where = f"platform {platform.name!r}"
        if not self.spines:
            raise PlatformError("d-mod-k routing needs at least one spine", where=where)
        for h in platform.hosts:
            if h not in self.leaf:
                raise PlatformError(f"d-mod-k routing gives host {h!r} no leaf", where=where)
        for h, leaf in self.leaf.items():
            for a, b in ((h, leaf), (leaf, h)):
                if a not in platform.nodes or b not in platform.nodes or _hop_between(platform, a, b) is None:
                    raise PlatformError(f"d-mod-k routing: no link from {a!r} to {b!r}", where=where)
        for leaf in set(self.leaf.values()):
            for spine in self.spines:
                for a, b in ((leaf, spine), (spine, leaf)):
                    if b not in platform.nodes or _hop_between(platform, a, b) is None:
                        raise PlatformError(f"d-mod-k routing: no link from {a!r} to {b!r}", where=where)

    def route(self, platform: Platform, src: str, dst: str) -> tuple[Hop, ...]:
        """Up to ``src``'s leaf, via spine ``index(dst) mod S`` if the leaves differ, down to ``dst``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.fat_tree(2, 2, spines=2)
        >>> p.routing.route(p, "h3", "h0")
        (('l3', True), ('leaf1-spine0', True), ('leaf0-spine0', False), ('l0', False))
        """
        up, down = self.leaf[src], self.leaf[dst]
        nodes = [src, up]
        if up != down:
            nodes += [self.spines[platform.host_index(dst) % len(self.spines)], down]
        nodes.append(dst)
        return tuple(_hop_between(platform, a, b) for a, b in zip(nodes, nodes[1:]))

    def __repr__(self) -> str:
        return f"DModK({len(self.leaf)} hosts, {len(self.spines)} spines)"
