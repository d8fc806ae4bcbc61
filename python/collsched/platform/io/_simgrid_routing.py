"""SimGrid's routing semantics over a zone tree read by :mod:`._simgrid_parse`.

A port of what SimGrid (3.3x, ``src/kernel/routing/``) does to find the
route between two hosts, so that a platform file means the same route here
as in SimGrid:

* ``NetZoneImpl::get_global_route``: find the common ancestor zone of the
  two ends; inside one zone, the zone's local route; otherwise the local
  route between the two child zones holding the ends, completed by the
  routes from the source to the route's source gateway and from its
  destination gateway to the destination;
* Full: the declared routes only (a symmetrical route also declares its
  reverse: links reversed, UP and DOWN swapped);
* Floyd and Dijkstra: shortest paths over the declared routes, each route an
  edge whose weight is its **number of links** (SimGrid's choice, not the
  latency), with SimGrid's tie-breaks (Floyd-Warshall in declaration order
  with strict improvement; Dijkstra with a heap ordered by (cost, graph node
  id) where graph nodes are numbered in order of first mention in a route);
  consecutive zone routes whose gateways differ are joined by the route
  between the gateways;
* Cluster (star): the links UP of the source then the links DOWN of the
  destination, each link once;
* None: no route.

Bypass routes are not supported (the reader rejects them).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np

from ...errors import FormatError
from ._simgrid_parse import Hop, SgPlatform, SgZone

__all__ = ["SimgridRoutes"]


@dataclass(frozen=True)
class _Local:
    """A route inside one zone, with its gateways when it joins two sub-zones."""

    hops: tuple[Hop, ...]
    gw_src: str | None = None
    gw_dst: str | None = None


class SimgridRoutes:
    """The routes SimGrid computes for a platform.

    Parameters
    ----------
    sg : SgPlatform
    source : str
        The file name, for error messages.

    Raises
    ------
    FormatError
        If a zone declares two routes between the same ends (SimGrid refuses it).
    """

    def __init__(self, sg: SgPlatform, source: str):
        self.sg = sg
        zones = sg.zones.values()
        self._tables = {z.id: _table(sg, z, source) for z in zones if z.routing in ("full", "floyd", "dijkstra")}
        self._floyd = {z.id: _floyd(z, self._tables[z.id]) for z in zones if z.routing == "floyd"}
        self._trees: dict[tuple[str, str], tuple[list[float], list[int], list[str]]] = {}
        self._cache: dict[tuple[str, str], tuple[Hop, ...] | None] = {}

    def route(self, src: str, dst: str) -> tuple[Hop, ...] | None:
        """The hops ``(link, up)`` of the route between two distinct hosts or routers, or None if there is none."""
        key = (src, dst)
        if key not in self._cache:
            self._cache[key] = self._global(src, dst)
        return self._cache[key]

    def _global(self, src: str, dst: str) -> tuple[Hop, ...] | None:
        common, src_ancestor, dst_ancestor = _ancestors(self.sg.nodes[src].zone, self.sg.nodes[dst].zone)
        if src_ancestor is dst_ancestor:
            local = self._local(common, src, dst)
            return None if local is None else local.hops
        local = self._local(common, src_ancestor.id, dst_ancestor.id)
        if local is None or local.gw_src is None or local.gw_dst is None:
            return None
        before = () if src == local.gw_src else self.route(src, local.gw_src)
        after = () if local.gw_dst == dst else self.route(local.gw_dst, dst)
        if before is None or after is None:
            return None
        return before + local.hops + after

    def _local(self, zone: SgZone, src: str, dst: str) -> _Local | None:
        if zone.routing == "none":
            return None
        if zone.routing == "star":
            return _star(zone, src, dst)
        if zone.routing == "full":
            return self._tables[zone.id].get((src, dst))
        path = self._floyd_path(zone, src, dst) if zone.routing == "floyd" else self._dijkstra_path(zone, src, dst)
        return None if path is None else self._chain(path)

    def _chain(self, edges: list[_Local]) -> _Local | None:
        """Join the routes of a shortest path, adding the route between gateways where they differ."""
        hops: list[Hop] = []
        for k, edge in enumerate(edges):
            previous = edges[k - 1].gw_dst if k else None
            if previous is not None and edge.gw_src is not None and previous != edge.gw_src:
                between = self.route(previous, edge.gw_src)
                if between is None:
                    return None
                hops.extend(between)
            hops.extend(edge.hops)
        return _Local(tuple(hops), edges[0].gw_src, edges[-1].gw_dst)

    def _floyd_path(self, zone: SgZone, src: str, dst: str) -> list[_Local] | None:
        index, pred = self._floyd[zone.id]
        table = self._tables[zone.id]
        s, cur = index[src], index[dst]
        path: list[_Local] = []
        while cur != s:
            p = int(pred[s, cur])
            if p < 0 or len(path) > len(index):
                return None
            path.append(table[(zone.members[p], zone.members[cur])])
            cur = p
        return path[::-1]

    def _dijkstra_path(self, zone: SgZone, src: str, dst: str) -> list[_Local] | None:
        table = self._tables[zone.id]
        key = (zone.id, src)
        if key not in self._trees:
            self._trees[key] = _dijkstra(table, src)
        cost, pred, names = self._trees[key]
        if dst not in names or src not in names:
            return None
        gid = {name: i for i, name in enumerate(names)}
        v = gid[dst]
        if math.isinf(cost[v]):
            return None
        path: list[_Local] = []
        while v != gid[src]:
            path.append(table[(names[pred[v]], names[v])])
            v = pred[v]
        return path[::-1]


def _table(sg: SgPlatform, zone: SgZone, source: str) -> dict[tuple[str, str], _Local]:
    """The declared routes of a zone, with the reverse of each symmetrical one, in SimGrid's insertion order."""
    table: dict[tuple[str, str], _Local] = {}
    for r in zone.routes:
        entries = [((r.src, r.dst), _Local(r.hops, r.gw_src, r.gw_dst))]
        if r.symmetrical and r.src != r.dst:
            entries.append(((r.dst, r.src), _Local(sg.reverse(r.hops), r.gw_dst, r.gw_src)))
        for i, (key, local) in enumerate(entries):
            if key in table:
                fix = ("routes are symmetrical by default: remove the reverse route or write symmetrical=\"NO\""
                       if i or r.symmetrical else "declare each route once")
                raise FormatError(f"second route from {key[0]!r} to {key[1]!r} in zone {zone.id!r}",
                                  where=f"{source}:{r.line}", fix=fix)
            table[key] = local
    return table


def _floyd(zone: SgZone, table: dict[tuple[str, str], _Local]) -> tuple[dict[str, int], np.ndarray]:
    """SimGrid's FloydZone::do_seal: Floyd-Warshall on link counts, strict improvement, members in creation order."""
    index = {m: i for i, m in enumerate(zone.members)}
    n = len(index)
    cost = np.full((n, n), np.inf)
    pred = np.full((n, n), -1, dtype=np.int64)
    for (src, dst), local in table.items():
        cost[index[src], index[dst]] = len(local.hops)
        pred[index[src], index[dst]] = index[src]
    for c in range(n):  # row and column c do not change during step c, so each step is one vectorised update
        through = cost[:, c, None] + cost[None, c, :]
        better = through < cost
        cost = np.where(better, through, cost)
        pred = np.where(better, pred[c][None, :], pred)
    return index, pred


def _dijkstra(table: dict[tuple[str, str], _Local], src: str) -> tuple[list[float], list[int], list[str]]:
    """SimGrid's DijkstraZone::get_local_route from ``src``: costs, predecessors and graph node names."""
    names: list[str] = []
    gid: dict[str, int] = {}
    out: dict[int, list[tuple[int, int]]] = {}
    for a, b in table:
        for name in (a, b):
            if name not in gid:
                gid[name] = len(names)
                names.append(name)
                out[gid[name]] = []
        out[gid[a]].append((gid[b], len(table[(a, b)].hops)))
    if src not in gid:
        return [], [], names
    cost = [math.inf] * len(names)
    pred = [0] * len(names)
    cost[gid[src]] = 0.0
    heap = [(cost[i], i) for i in range(len(names))]
    heapq.heapify(heap)
    while heap:
        _, v = heapq.heappop(heap)
        for u, weight in out[v]:
            if cost[v] + weight < cost[u]:
                pred[u] = v
                cost[u] = cost[v] + weight
                heapq.heappush(heap, (cost[u], u))
    return cost, pred, names


def _star(zone: SgZone, src: str, dst: str) -> _Local:
    """StarZone::get_local_route: links UP of ``src``, then links DOWN of ``dst``, each link once."""
    hops: list[Hop] = []
    for hop in zone.star.get(src, ((), ()))[0] + zone.star.get(dst, ((), ()))[1]:
        if hop not in hops:
            hops.append(hop)
    return _Local(tuple(hops))


def _ancestors(src_zone: SgZone, dst_zone: SgZone) -> tuple[SgZone, SgZone, SgZone]:
    """SimGrid's find_common_ancestors: (common ancestor, child of it holding src, child holding dst)."""
    if src_zone is dst_zone:
        return src_zone, src_zone, src_zone
    paths = []
    for zone in (src_zone, dst_zone):
        path = []
        while zone is not None:
            path.append(zone)
            zone = zone.parent
        paths.append(path)
    path_src, path_dst = paths
    parent = None
    while len(path_src) > 1 and len(path_dst) > 1 and path_src[-1] is path_dst[-1]:
        parent = path_src.pop()
        path_dst.pop()
    src_ancestor, dst_ancestor = path_src[-1], path_dst[-1]
    return (src_ancestor if src_ancestor is dst_ancestor else parent), src_ancestor, dst_ancestor
