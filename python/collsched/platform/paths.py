"""Least-latency and widest paths of the graph view, from many sources at once, as numpy tables.

Bounds on schedules that may relay data (trees do) take, per pair of
nodes, the least latency sum over every path of the graph view
(:meth:`Platform.graph <collsched.platform.Platform.graph>`), not only over
the static route, and the widest path: the largest bottleneck bandwidth of
any path. :func:`graph_paths` computes both for a set of sources in one go:
the least latencies by scipy's Dijkstra (all sources in one call, in C),
the widest paths, when every edge of the graph view has a reverse edge of
the same bandwidth (links with ends that are not ``directed``), by
Kruskal's order: edges widest first, joining two components at a
bandwidth ``w`` makes ``w`` the widest path between every node of one and
every node of the other (the widest path of an undirected graph runs along
a maximum spanning tree). With one-way edges, one search per source on the
bottleneck instead (:func:`widest_by_search`).

Both tables are exact: the latency of a path is summed edge by edge from
the source, as networkx's Dijkstra sums it, and a bottleneck is a minimum.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(3, bandwidth=1e6, latency=1e-3)
>>> t = graph_paths(p, ["h0"])
>>> t.nodes
('h0', 'h1', 'h2', 'sw')
>>> t.least[0].tolist(), t.widest[0].tolist()
([0.0, 0.002, 0.002, 0.001], [inf, 1000000.0, 1000000.0, 1000000.0])
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .model import Platform

__all__ = ["GraphPaths", "graph_paths", "widest_by_search"]


@dataclass(frozen=True, eq=False)
class GraphPaths:
    """Least latency and widest bottleneck from each source to every node of the graph view.

    Attributes
    ----------
    sources : tuple of str
        Row ``i`` of the tables is ``sources[i]``.
    nodes : tuple of str
        Column ``j`` is ``nodes[j]`` (the graph view's nodes, in its order).
    least : ndarray, shape (len(sources), len(nodes))
        Least latency sum (s) over the graph view's paths; ``inf`` where unreachable, 0 from a source to itself.
    widest : ndarray, shape (len(sources), len(nodes))
        Largest bottleneck bandwidth (bytes/s) of a path; 0 where unreachable, ``inf`` from a source to itself.

    Examples
    --------
    >>> from collsched import topologies
    >>> t = graph_paths(topologies.star(2, bandwidth=1e6, latency=1e-3), ["h1"])
    >>> t.row("h1"), t.column("sw"), float(t.least[t.row("h1"), t.column("h0")])
    (0, 2, 0.002)
    """

    sources: tuple[str, ...]
    nodes: tuple[str, ...]
    least: np.ndarray
    widest: np.ndarray

    def row(self, source: str) -> int:
        """The row of ``source`` (KeyError if it is not one).

        Examples
        --------
        >>> from collsched import topologies
        >>> graph_paths(topologies.star(3), ["h2", "h0"]).row("h0")
        1
        """
        return self._rows[source]

    def column(self, node: str) -> int:
        """The column of ``node`` (KeyError if it is not a node of the graph view).

        Examples
        --------
        >>> from collsched import topologies
        >>> graph_paths(topologies.star(3), ["h2"]).column("sw")
        3
        """
        return self._columns[node]

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {s: i for i, s in enumerate(self.sources)}

    @cached_property
    def _columns(self) -> dict[str, int]:
        return {x: j for j, x in enumerate(self.nodes)}


def graph_paths(platform: Platform, sources: Sequence[str]) -> GraphPaths:
    """Least latency and widest bottleneck from every one of ``sources`` to every node of the graph view.

    Parameters
    ----------
    platform : Platform
    sources : sequence of str
        Nodes of the graph view (duplicates are kept once).

    Returns
    -------
    GraphPaths

    Raises
    ------
    networkx.NodeNotFound
        If a source is not a node of the graph view (as networkx's Dijkstra says it).

    Notes
    -----
    Least latencies: Dijkstra from every source, O(S · E log V) in C.
    Widest paths: O(E log E + S · V) when every edge has a reverse edge of
    the same bandwidth, else :func:`widest_by_search` (O(S · E log V) in
    Python).

    Examples
    --------
    Two paths from ``a`` to ``c``: the direct one has the least latency,
    the one through ``b`` the widest bottleneck.

    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b"), Node("c")],
    ...              [Link("ab", 4e6, 1e-3, ends=("a", "b")), Link("bc", 3e6, 1e-3, ends=("b", "c")),
    ...               Link("ac", 1e6, 1e-3, ends=("a", "c"))])
    >>> t = graph_paths(p, ["a", "c"])
    >>> t.least.tolist()
    [[0.0, 0.001, 0.001], [0.001, 0.001, 0.0]]
    >>> t.widest.tolist()
    [[inf, 4000000.0, 3000000.0], [3000000.0, 3000000.0, inf]]
    """
    sources = tuple(dict.fromkeys(sources))
    cache = platform.__dict__.setdefault("_graph_paths", {})  # a platform is sealed: its tables never change
    if sources not in cache:
        if len(cache) >= 4:
            cache.pop(next(iter(cache)))
        cache[sources] = _graph_paths(platform, sources)
    return cache[sources]


def _graph_paths(platform: Platform, sources: tuple[str, ...]) -> GraphPaths:
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import dijkstra

    g = platform._graph
    nodes = tuple(g.nodes)
    column = {n: j for j, n in enumerate(nodes)}
    for s in sources:
        if s not in column:
            import networkx as nx

            raise nx.NodeNotFound(f"Node {s} not found in graph")
    rows = np.array([column[s] for s in sources], dtype=np.int64)
    edges = list(g.edges(data=True))
    u = np.array([column[a] for a, _, _ in edges], dtype=np.int64)
    v = np.array([column[b] for _, b, _ in edges], dtype=np.int64)
    latency = np.array([e["latency"] for _, _, e in edges], dtype=np.float64)
    bandwidth = np.array([e["bandwidth"] for _, _, e in edges], dtype=np.float64)
    n = len(nodes)
    # one entry per edge (the graph view has at most one edge per ordered pair): explicit zeros are edges
    graph = csr_array((latency, (u, v)), shape=(n, n))
    least = dijkstra(graph, directed=True, indices=rows) if sources else np.zeros((0, n))
    least = np.asarray(least, dtype=np.float64).reshape(len(sources), n)
    if _symmetric(u, v, bandwidth):
        widest = _widest_undirected(u, v, bandwidth, rows, n)
    else:
        widest = widest_by_search(platform, sources)
    least.flags.writeable = widest.flags.writeable = False  # shared by every caller of the cache
    return GraphPaths(sources, nodes, least, widest)


def _symmetric(u: np.ndarray, v: np.ndarray, bandwidth: np.ndarray) -> bool:
    """Every edge u -> v has an edge v -> u of the same bandwidth."""
    forward = np.lexsort((v, u))
    backward = np.lexsort((u, v))
    return bool(np.array_equal(u[forward], v[backward]) and np.array_equal(v[forward], u[backward])
                and np.array_equal(bandwidth[forward], bandwidth[backward]))


def _widest_undirected(u: np.ndarray, v: np.ndarray, bandwidth: np.ndarray, rows: np.ndarray, n: int) -> np.ndarray:
    """Widest paths of a graph whose edges all go both ways alike: Kruskal's order, widest edge first."""
    widest = np.zeros((rows.shape[0], n))
    row_of = np.full(n, -1, dtype=np.int64)
    row_of[rows] = np.arange(rows.shape[0])
    comp = list(range(n))                       # component of each node
    members = [[x] for x in range(n)]           # nodes of each component
    source_rows = [[int(row_of[x])] if row_of[x] >= 0 else [] for x in range(n)]
    for e in np.argsort(-bandwidth, kind="stable").tolist():
        a, b = comp[int(u[e])], comp[int(v[e])]
        if a == b:
            continue
        w = float(bandwidth[e])
        # every path between the two components crosses an edge no wider than this one: w is their widest path
        if source_rows[a]:
            widest[np.ix_(source_rows[a], members[b])] = w
        if source_rows[b]:
            widest[np.ix_(source_rows[b], members[a])] = w
        if len(members[a]) < len(members[b]):
            a, b = b, a
        for x in members[b]:
            comp[x] = a
        members[a] += members[b]
        source_rows[a] += source_rows[b]
        members[b], source_rows[b] = [], []
    widest[np.arange(rows.shape[0]), rows] = np.inf
    return widest


def widest_by_search(platform: Platform, sources: Sequence[str]) -> np.ndarray:
    """Widest paths by one search per source on the bottleneck (Dijkstra with a max-heap of bandwidths).

    Parameters
    ----------
    platform : Platform
    sources : sequence of str
        Nodes of the graph view.

    Returns
    -------
    ndarray, shape (len(sources), number of nodes of the graph view)
        As :attr:`GraphPaths.widest`, columns in the graph view's node order.

    Examples
    --------
    A one-way link: ``b`` cannot reach ``a``.

    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b")], [Link("ab", 2e6, ends=("a", "b"), directed=True)])
    >>> widest_by_search(p, ["a", "b"]).tolist()
    [[inf, 2000000.0], [0.0, inf]]
    """
    g = platform._graph
    column = {x: j for j, x in enumerate(g.nodes)}
    widest = np.zeros((len(sources), len(column)))
    for i, s in enumerate(sources):
        best = {s: np.inf}
        heap = [(-np.inf, s)]
        while heap:
            neg, x = heapq.heappop(heap)
            if -neg < best.get(x, 0.0):
                continue
            for y, e in g.adj[x].items():
                w = min(-neg, e["bandwidth"])
                if w > best.get(y, 0.0):
                    best[y] = w
                    heapq.heappush(heap, (-w, y))
        for x, w in best.items():
            widest[i, column[x]] = w
    return widest
