"""The platform model: hosts, routers, links, and how hosts reach each other.

A :class:`Platform` is pure data, built once, validated when built and
immutable afterwards (like a SimGrid platform file). It holds

* **nodes** — hosts, which run programs and have a compute ``speed`` (flop/s)
  and optional per-message ``send_overhead``/``recv_overhead`` (s), and
  routers, which only forward;
* **links** — each with a ``bandwidth`` (bytes/s) and a ``latency`` (s),
  optional ``ends`` (the two nodes it joins), and a sharing policy:
  ``full_duplex`` (each direction is an independent channel), ``shared``
  (both directions share one capacity) or ``fatpipe`` (every flow gets the
  full bandwidth); ``directed`` links carry traffic from ``ends[0]`` to
  ``ends[1]`` only;
* a **routing** (:mod:`collsched.platform.routing`) that gives the static
  route between two hosts as a sequence of hops ``(link id, forward)``.

and derives, once and cached, the *routed view* (:meth:`Platform.route`), the
*matrix view* (:meth:`Platform.latency_matrix`,
:meth:`Platform.bandwidth_matrix`) and the *graph view*
(:meth:`Platform.graph`).

Examples
--------
>>> from collsched.platform import Platform, Node, Link
>>> p = Platform(
...     [Node("a"), Node("b"), Node("s", kind="router")],
...     [Link("la", bandwidth=1e8, latency=1e-5, ends=("a", "s")),
...      Link("lb", bandwidth=5e7, latency=3e-5, ends=("s", "b"))])
>>> p.hosts
('a', 'b')
>>> p.route("a", "b")
('la', 'lb')
>>> p.latency("a", "b"), p.bandwidth("a", "b")
(4e-05, 50000000.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from ..errors import PlatformError
from .routes import first_unreachable, first_unreachable_indices, pair_routes

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

    from .routing import Routing

__all__ = ["Node", "Link", "Hop", "Platform", "HOST", "ROUTER", "SHARING_POLICIES"]

HOST = "host"
ROUTER = "router"
SHARING_POLICIES = ("full_duplex", "shared", "fatpipe")

Hop = tuple[str, bool]
"""One hop of a route: ``(link id, forward)``; ``forward`` is True when the
hop goes from ``ends[0]`` to ``ends[1]`` (for a link without ends, it names
the direction as SimGrid's UP/DOWN does: the way back of a symmetric route
uses the other direction)."""


@dataclass(frozen=True)
class Node:
    """A host (runs programs) or a router (forwards only).

    Parameters
    ----------
    id : str
        Unique name.
    kind : {"host", "router"}
    speed : float
        Compute speed in flop/s (hosts).
    send_overhead, recv_overhead : float
        Per-message CPU overheads in seconds (the model of seed 004); 0 if unknown.

    Attributes
    ----------
    is_host : bool
        True for a host, False for a router.

    Notes
    -----
    A node is checked when a :class:`Platform` is built from it, not before:
    a bad speed or kind raises :class:`~collsched.errors.PlatformError` there.

    Examples
    --------
    >>> Node("h0", speed=2e9)
    Node(id='h0', kind='host', speed=2000000000.0, send_overhead=0.0, recv_overhead=0.0)
    >>> Node("h0").is_host, Node("sw", kind="router").is_host
    (True, False)
    """

    id: str
    kind: str = HOST
    speed: float = 1e9
    send_overhead: float = 0.0
    recv_overhead: float = 0.0

    @property
    def is_host(self) -> bool:
        return self.kind == HOST


@dataclass(frozen=True)
class Link:
    """A network link.

    Parameters
    ----------
    id : str
        Unique name.
    bandwidth : float
        Bytes per second, finite and positive.
    latency : float
        Seconds, finite and non-negative.
    ends : tuple of str, optional
        The two nodes the link joins. Links without ends can only be used by
        an explicit route table (as in SimGrid files).
    sharing : {"full_duplex", "shared", "fatpipe"}
    directed : bool
        If True, the link carries traffic from ``ends[0]`` to ``ends[1]`` only.

    Notes
    -----
    Like a :class:`Node`, a link is checked when a :class:`Platform` is
    built from it.

    Examples
    --------
    >>> up = Link("up", bandwidth=1.25e8, latency=1e-5, ends=("h0", "sw"), directed=True)
    >>> up.ends, up.sharing
    (('h0', 'sw'), 'full_duplex')
    >>> from collsched import units
    >>> Link("wan", bandwidth=units.parse("10Gbps", "bandwidth"), latency=units.parse("5ms", "time")).bandwidth
    1250000000.0
    """

    id: str
    bandwidth: float
    latency: float = 0.0
    ends: tuple[str, str] | None = None
    sharing: str = "full_duplex"
    directed: bool = False

    def other_end(self, node: str) -> str:
        """The end of the link that is not ``node``.

        Parameters
        ----------
        node : str
            One end of the link.

        Returns
        -------
        str
            The other end (``ends[0]`` for any ``node`` that is not ``ends[0]``).

        Examples
        --------
        >>> Link("l", 1e9, ends=("a", "b")).other_end("a")
        'b'
        """
        assert self.ends is not None
        return self.ends[1] if node == self.ends[0] else self.ends[0]


def _finite(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _check_id(kind: str, ident: object) -> None:
    if not isinstance(ident, str) or not ident:
        raise PlatformError(f"{kind} id {ident!r} is not a non-empty string", fix="name every node and link")


class Platform:
    """A sealed, validated platform.

    Parameters
    ----------
    nodes : iterable of Node
        Hosts and routers; hosts keep the order given (it is the rank order).
    links : iterable of Link
    routing : Routing, optional
        Defaults to :class:`~collsched.platform.routing.ShortestPath` by hop count.
    name : str
    clusters : sequence of sequences of str, optional
        A partition of the hosts into (logical) clusters, if known.

    Raises
    ------
    PlatformError
        Duplicate ids, unknown nodes named by a link, bad numbers, bad routing.

    Examples
    --------
    Two hosts behind a router, in two clusters:

    >>> p = Platform([Node("a"), Node("b"), Node("r", kind="router")],
    ...              [Link("la", 1e8, 1e-5, ends=("a", "r")), Link("lb", 1e8, 1e-5, ends=("r", "b"))],
    ...              name="pair", clusters=[["a"], ["b"]])
    >>> p
    <Platform 'pair': 2 hosts, 1 routers, 2 links, routing ShortestPath(metric='hops')>
    >>> p.hosts, p.routers, p.clusters
    (('a', 'b'), ('r',), (('a',), ('b',)))
    >>> p.nodes["r"].is_host, p.links["la"].bandwidth
    (False, 100000000.0)
    >>> Platform([Node("a"), Node("a")], [])
    Traceback (most recent call last):
    ...
    collsched.errors.PlatformError: duplicate node id 'a' (give every node a unique id)
    """

    __slots__ = ("_nodes", "_links", "_hosts", "_routers", "_routing", "_name", "_clusters",
                 "_host_index", "_incident", "_routes", "__dict__")

    def __init__(self, nodes: Iterable[Node], links: Iterable[Link], routing: Routing | None = None,
                 *, name: str = "platform", clusters: Sequence[Sequence[str]] | None = None):
        from .routing import ShortestPath

        nodes, links = list(nodes), list(links)
        self._nodes = MappingProxyType(_check_nodes(nodes))
        self._links = MappingProxyType(_check_links(links, self._nodes))
        self._hosts = tuple(n.id for n in nodes if n.kind == HOST)
        self._routers = tuple(n.id for n in nodes if n.kind == ROUTER)
        if not self._hosts:
            raise PlatformError("the platform has no host", fix="add at least one node of kind 'host'")
        self._host_index = MappingProxyType({h: i for i, h in enumerate(self._hosts)})
        self._name = name
        self._clusters = None if clusters is None else _check_clusters(clusters, self._host_index)
        incident: dict[str, list[tuple[str, Link]]] = {n: [] for n in self._nodes}
        for link in links:
            if link.ends is not None:
                a, b = link.ends
                incident[a].append((b, link))
                if not link.directed:
                    incident[b].append((a, link))
        self._incident = MappingProxyType({n: tuple(v) for n, v in incident.items()})
        self._routes: dict[tuple[str, str], tuple[Hop, ...] | None] = {}
        self._routing = routing if routing is not None else ShortestPath()
        self._routing.bind(self)

    def __setattr__(self, key, value):
        if hasattr(self, "_routing") and key in self.__slots__:
            raise AttributeError("a Platform is sealed; build a new one instead")
        object.__setattr__(self, key, value)

    # --- the data -----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def nodes(self) -> Mapping[str, Node]:
        """All nodes by id (hosts and routers), read-only."""
        return self._nodes

    @property
    def links(self) -> Mapping[str, Link]:
        """All links by id, read-only."""
        return self._links

    @property
    def hosts(self) -> tuple[str, ...]:
        """Host ids in rank order."""
        return self._hosts

    @property
    def routers(self) -> tuple[str, ...]:
        return self._routers

    @property
    def routing(self) -> Routing:
        return self._routing

    @property
    def clusters(self) -> tuple[tuple[str, ...], ...] | None:
        """The partition of hosts into clusters, if the platform has one."""
        return self._clusters

    def host_index(self, host: str) -> int:
        """Rank of a host (its position in :attr:`hosts`).

        Parameters
        ----------
        host : str
            A host id.

        Returns
        -------
        int
            ``hosts.index(host)``, in O(1); symbolic values name hosts by it.

        Raises
        ------
        PlatformError
            If ``host`` is not a host of this platform.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> p.host_index("h2")
        2
        >>> p.host_index("sw")
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: 'sw' is a router, not a host, in platform 'star-3'
        """
        try:
            return self._host_index[host]
        except KeyError:
            raise PlatformError(_unknown_host_message(self, host)) from None

    def neighbours(self, node: str) -> tuple[tuple[str, Link], ...]:
        """``(neighbour, link)`` pairs that ``node`` can send to directly, in link order.

        Parameters
        ----------
        node : str
            A node id (host or router).

        Returns
        -------
        tuple of (str, Link)
            One pair per link with ends at ``node`` that can carry traffic
            away from it (a directed link only from ``ends[0]``); links
            without ends are never listed.

        Raises
        ------
        KeyError
            If ``node`` is not a node of the platform.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> [(n, link.id) for n, link in p.neighbours("sw")]
        [('h0', 'l0'), ('h1', 'l1'), ('h2', 'l2')]
        >>> d = Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b"), directed=True)])
        >>> len(d.neighbours("a")), len(d.neighbours("b"))
        (1, 0)
        """
        return self._incident[node]

    # --- the routed view ------------------------------------------------------------
    def route_hops(self, src: str, dst: str) -> tuple[Hop, ...]:
        """The static route from host ``src`` to host ``dst`` as ``(link, forward)`` hops.

        Parameters
        ----------
        src, dst : str
            Host ids.

        Returns
        -------
        tuple of (str, bool)
            Hops (:data:`Hop`) in path order; ``forward`` is True when the hop goes
            from the link's ``ends[0]`` to its ``ends[1]``. Empty when
            ``src == dst``. Computed by the routing on first use, then cached.

        Raises
        ------
        PlatformError
            If either host is unknown or ``dst`` is unreachable from ``src``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> p.route_hops("h0", "h2")
        (('l0', True), ('l2', False))
        >>> p.route_hops("h2", "h0")
        (('l2', True), ('l0', False))
        """
        key = (src, dst)
        if key not in self._routes:
            self.host_index(src)
            self.host_index(dst)
            self._routes[key] = () if src == dst else self._routing.route(self, src, dst)
        hops = self._routes[key]
        if hops is None:
            raise PlatformError(f"host {dst!r} is unreachable from host {src!r}", where=f"platform {self._name!r}",
                                fix="connect them or add a route")
        return hops

    def route(self, src: str, dst: str) -> tuple[str, ...]:
        """Link ids of the static route from ``src`` to ``dst`` (empty if equal).

        Parameters
        ----------
        src, dst : str
            Host ids.

        Returns
        -------
        tuple of str
            Link ids in path order (:meth:`route_hops` without the directions).

        Raises
        ------
        PlatformError
            As :meth:`route_hops`.

        Examples
        --------
        >>> from collsched import topologies
        >>> topologies.hypercube(3).route("h0", "h7")
        ('e0-1', 'e1-3', 'e3-7')
        """
        return tuple(link for link, _ in self.route_hops(src, dst))

    def has_route(self, src: str, dst: str) -> bool:
        """True if ``dst`` is reachable from ``src``.

        Parameters
        ----------
        src, dst : str
            Host ids.

        Returns
        -------
        bool
            False also when either is not a host of the platform.

        Examples
        --------
        >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))])
        >>> p.has_route("a", "b"), p.has_route("a", "c"), p.has_route("a", "zz")
        (True, False, False)
        """
        try:
            self.route_hops(src, dst)
        except PlatformError:
            return False
        return True

    def check_reachable(self, pairs: Iterable[tuple[str, str]], *, needed_by: str = "the collective") -> None:
        """Raise :class:`PlatformError` naming the first pair with no route.

        Parameters
        ----------
        pairs : iterable of (str, str)
            ``(src, dst)`` host pairs, e.g. :meth:`Collective.pairs <collsched.collectives.Collective.pairs>`.
        needed_by : str
            Who needs the routes, for the message.

        Returns
        -------
        None

        Raises
        ------
        PlatformError
            If some ``dst`` is unreachable from its ``src`` (or either is not a host).

        Examples
        --------
        >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))], name="split")
        >>> p.check_reachable([("a", "b"), ("b", "a")])
        >>> p.check_reachable([("a", "b"), ("c", "a")], needed_by="the gather")
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'split': host 'a' is unreachable from host 'c', which the gather needs (connect them or add a route)
        """
        pairs = list(pairs)
        k = first_unreachable(self, pairs)
        if k is not None:
            self._unreachable(*pairs[k], needed_by)

    def check_reachable_indices(self, src, dst, *, needed_by: str = "the collective") -> None:
        """:meth:`check_reachable` of the pairs ``(hosts[src[k]], hosts[dst[k]])``, given as host-index arrays.

        Examples
        --------
        >>> p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))], name="split")
        >>> p.check_reachable_indices([0, 2], [1, 0], needed_by="the gather")
        Traceback (most recent call last):
        ...
        collsched.errors.PlatformError: platform 'split': host 'a' is unreachable from host 'c', which the gather needs (connect them or add a route)
        """
        src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
        k = first_unreachable_indices(self, src, dst)
        if k is not None:
            self._unreachable(self.hosts[int(src[k])], self.hosts[int(dst[k])], needed_by)

    def _unreachable(self, a: str, b: str, needed_by: str):
        raise PlatformError(f"host {b!r} is unreachable from host {a!r}, which {needed_by} needs",
                            where=f"platform {self._name!r}", fix="connect them or add a route")

    def latency(self, src: str, dst: str) -> float:
        """Sum of link latencies along the route (0 from a host to itself).

        Parameters
        ----------
        src, dst : str
            Host ids.

        Returns
        -------
        float
            Seconds.

        Raises
        ------
        PlatformError
            As :meth:`route_hops`.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3, latency=1e-5)
        >>> p.latency("h0", "h2"), p.latency("h1", "h1")
        (2e-05, 0.0)
        """
        return float(sum(self._links[link].latency for link in self.route(src, dst)))

    def bandwidth(self, src: str, dst: str) -> float:
        """Bottleneck bandwidth along the route (``inf`` from a host to itself).

        Parameters
        ----------
        src, dst : str
            Host ids.

        Returns
        -------
        float
            Bytes per second: the smallest bandwidth of the route's links
            (contention with other messages is not counted).

        Raises
        ------
        PlatformError
            As :meth:`route_hops`.

        Examples
        --------
        >>> p = Platform([Node("a"), Node("b"), Node("s", kind="router")],
        ...              [Link("la", 1e8, ends=("a", "s")), Link("lb", 5e7, ends=("s", "b"))])
        >>> p.bandwidth("a", "b"), p.bandwidth("a", "a")
        (50000000.0, inf)
        """
        route = self.route(src, dst)
        return min((self._links[link].bandwidth for link in route), default=math.inf)

    def transfer_time(self, src: str, dst: str, size: float) -> float:
        """Linear α-β time of one message alone on the network: latency + size / bandwidth.

        Parameters
        ----------
        src, dst : str
            Host ids.
        size : float
            Bytes.

        Returns
        -------
        float
            Seconds; 0 from a host to itself.

        Raises
        ------
        PlatformError
            As :meth:`route_hops`.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(2, bandwidth=1e6, latency=1e-3)
        >>> p.transfer_time("h0", "h1", 1e6)
        1.002
        """
        return 0.0 if src == dst else self.latency(src, dst) + size / self.bandwidth(src, dst)

    # --- the matrix view ------------------------------------------------------------
    def latency_matrix(self, hosts: Sequence[str] | None = None) -> np.ndarray:
        """Pairwise route latencies (s) between ``hosts`` (default: all, in rank order).

        Parameters
        ----------
        hosts : sequence of str, optional
            Rows and columns of the matrix; default :attr:`hosts`.

        Returns
        -------
        numpy.ndarray
            ``m[i, j] = latency(hosts[i], hosts[j])``; 0 on the diagonal.

        Raises
        ------
        PlatformError
            If a pair has no route.

        Examples
        --------
        >>> from collsched import topologies
        >>> topologies.star(3, latency=1e-5).latency_matrix(["h0", "h2"])
        array([[0.e+00, 2.e-05],
               [2.e-05, 0.e+00]])
        """
        return self._pair_matrix(hosts)[0]

    def bandwidth_matrix(self, hosts: Sequence[str] | None = None) -> np.ndarray:
        """Pairwise bottleneck bandwidths (bytes/s); ``inf`` on the diagonal.

        Parameters
        ----------
        hosts : sequence of str, optional
            Rows and columns of the matrix; default :attr:`hosts`, in rank order.

        Returns
        -------
        numpy.ndarray
            ``m[i, j] = bandwidth(hosts[i], hosts[j])``.

        Raises
        ------
        PlatformError
            If a pair has no route.

        Examples
        --------
        >>> from collsched import topologies
        >>> topologies.star(2, bandwidth=1e8).bandwidth_matrix().tolist()
        [[inf, 100000000.0], [100000000.0, inf]]
        """
        return self._pair_matrix(hosts)[1]

    def _pair_matrix(self, hosts: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray]:
        """(latency, bandwidth) of every pair's route, n x n, in one vectorised pass over the routing trees."""
        hosts = list(self._hosts if hosts is None else hosts)
        for h in hosts:
            if h not in self._hosts:
                raise PlatformError(_unknown_host_message(self, h))
        n = len(hosts)
        src, dst = np.divmod(np.arange(n * n), n)
        routes = pair_routes(self, hosts, src, dst)
        return routes.latency.reshape(n, n), routes.bandwidth.reshape(n, n)

    # --- the graph view -------------------------------------------------------------
    def graph(self) -> nx.DiGraph:
        """The graph view, for store-and-forward models and flow LPs (a fresh copy).

        When every link has ends, nodes are hosts and routers and there is one
        edge per direction a link can carry; parallel links between the same
        two nodes are merged (bandwidths add, latency is the smallest). When
        some links have no ends (a route-table platform), nodes are hosts and
        each routed pair is an edge with the route's bottleneck bandwidth and
        latency sum. Edge attributes: ``bandwidth``, ``latency``, ``cost``
        (seconds per byte, ``1/bandwidth``) and ``links`` (tuple of link ids).

        Returns
        -------
        networkx.DiGraph
            A copy the caller may modify.

        Examples
        --------
        >>> from collsched import topologies
        >>> g = topologies.star(3, bandwidth=1e6).graph()
        >>> sorted(g.successors("sw"))
        ['h0', 'h1', 'h2']
        >>> g.edges["h0", "sw"]["cost"]
        1e-06
        """
        return self._graph.copy()

    @cached_property
    def _graph(self) -> nx.DiGraph:
        import networkx as nx

        g = nx.DiGraph(name=self._name)
        if all(link.ends is not None for link in self._links.values()):
            for node in self._nodes.values():
                g.add_node(node.id, kind=node.kind)
            for link in self._links.values():
                a, b = link.ends
                for u, v in ((a, b),) if link.directed else ((a, b), (b, a)):
                    if g.has_edge(u, v):
                        e = g.edges[u, v]
                        e["bandwidth"] += link.bandwidth
                        e["latency"] = min(e["latency"], link.latency)
                        e["links"] += (link.id,)
                    else:
                        g.add_edge(u, v, bandwidth=link.bandwidth, latency=link.latency, links=(link.id,))
        else:
            for h in self._hosts:
                g.add_node(h, kind=HOST)
            for a in self._hosts:
                for b in self._hosts:
                    if a != b and self.has_route(a, b):
                        g.add_edge(a, b, bandwidth=self.bandwidth(a, b), latency=self.latency(a, b),
                                   links=self.route(a, b))
        for _, _, e in g.edges(data=True):
            e["cost"] = 1.0 / e["bandwidth"]
        return g

    # --- equality, display ----------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Platform):
            return NotImplemented
        return (self._name == other._name and list(self._nodes.values()) == list(other._nodes.values())
                and list(self._links.values()) == list(other._links.values())
                and self._routing == other._routing and self._clusters == other._clusters)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"<Platform {self._name!r}: {len(self._hosts)} hosts, {len(self._routers)} routers, "
                f"{len(self._links)} links, routing {self._routing!r}>")


def _unknown_host_message(p: Platform, host: object) -> str:
    if host in p.nodes:
        return f"{host!r} is a router, not a host, in platform {p.name!r}"
    return f"unknown host {host!r} in platform {p.name!r}"


def _check_nodes(nodes: list[Node]) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for node in nodes:
        if not isinstance(node, Node):
            raise PlatformError(f"{node!r} is not a Node")
        _check_id("node", node.id)
        if node.id in out:
            raise PlatformError(f"duplicate node id {node.id!r}", fix="give every node a unique id")
        if node.kind not in (HOST, ROUTER):
            raise PlatformError(f"node {node.id!r} has kind {node.kind!r}", fix="use 'host' or 'router'")
        if not _finite(node.speed) or node.speed <= 0:
            raise PlatformError(f"node {node.id!r} has speed {node.speed!r}", fix="give a finite positive flop/s")
        for attr in ("send_overhead", "recv_overhead"):
            value = getattr(node, attr)
            if not _finite(value) or value < 0:
                raise PlatformError(f"node {node.id!r} has {attr} {value!r}", fix="give a finite number of seconds >= 0")
        out[node.id] = node
    return out


def _check_links(links: list[Link], nodes: Mapping[str, Node]) -> dict[str, Link]:
    out: dict[str, Link] = {}
    for link in links:
        if not isinstance(link, Link):
            raise PlatformError(f"{link!r} is not a Link")
        _check_id("link", link.id)
        if link.id in out:
            raise PlatformError(f"duplicate link id {link.id!r}", fix="give every link a unique id")
        if not _finite(link.bandwidth) or link.bandwidth <= 0:
            raise PlatformError(f"link {link.id!r} has bandwidth {link.bandwidth!r}",
                                fix="give a finite positive bandwidth in bytes/s, e.g. '1GBps'")
        if not _finite(link.latency) or link.latency < 0:
            raise PlatformError(f"link {link.id!r} has latency {link.latency!r}",
                                fix="give a finite latency >= 0 in seconds, e.g. '10us'")
        if link.sharing not in SHARING_POLICIES:
            raise PlatformError(f"link {link.id!r} has sharing policy {link.sharing!r}",
                                fix=f"use one of {', '.join(SHARING_POLICIES)}")
        if link.ends is not None:
            if len(link.ends) != 2:
                raise PlatformError(f"link {link.id!r} has ends {link.ends!r}", fix="name exactly two nodes")
            for end in link.ends:
                if end not in nodes:
                    raise PlatformError(f"link {link.id!r} names unknown node {end!r}", fix="declare the node first")
            if link.ends[0] == link.ends[1]:
                raise PlatformError(f"link {link.id!r} joins node {link.ends[0]!r} to itself")
        elif link.directed:
            raise PlatformError(f"link {link.id!r} is directed but has no ends", fix="give its two ends")
        out[link.id] = link
    return out


def _check_clusters(clusters: Sequence[Sequence[str]], index: Mapping[str, int]) -> tuple[tuple[str, ...], ...]:
    seen: set[str] = set()
    out = []
    for group in clusters:
        group = tuple(group)
        if not group:
            raise PlatformError("a cluster is empty", fix="drop it")
        for h in group:
            if h not in index:
                raise PlatformError(f"cluster member {h!r} is not a host")
            if h in seen:
                raise PlatformError(f"host {h!r} is in two clusters", fix="clusters must partition the hosts")
            seen.add(h)
        out.append(group)
    if len(seen) != len(index):
        missing = next(h for h in index if h not in seen)
        raise PlatformError(f"host {missing!r} is in no cluster", fix="clusters must partition the hosts")
    return tuple(out)
