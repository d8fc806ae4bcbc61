"""Switch removal by edge splitting, keeping to the platform's static routes.

ForestColl packs spanning trees on a graph of compute nodes only: every
switch ``w`` (a router, or a host that does not take part) is *split off*:
a pair of arcs ``u → w``, ``w → t`` loses ``γ`` of capacity and an arc
``u → t`` gains it, standing for the path through ``w``. A split is
*admissible* when every participant ``v`` keeps ``λ(s, v) >= K = N x``
(``s`` the super source with an arc of ``x`` to each participant). It
lowers only the cuts ``X`` (``s ∈ X``, some participant ``v ∉ X``) with
``u, t ∈ X, w ∉ X`` or ``w ∈ X, u, t ∉ X``, by ``γ``; so the largest
admissible ``γ`` is ``min(c(uw), c(wt), T₁ - K, T₂ - K)`` with

    T₁ = min over participants v ∉ {u, t} of λ({s, u, t} → {w, v}),
    T₂ = min over participants v of λ({s, w} → {u, t, v}),

one maximum-flow question each (asked up to the running minimum,
:meth:`collsched._core.FlowNetwork.min_max_flow`). On a switch whose in
capacity equals its out capacity such splits remove every arc of ``w``
(Bang-Jensen, Frank and Jackson 1995), so the tree packing reaches the cut
bound ``x*``.

**Routes** (collsched-specific). A program sends host-to-host messages along
``platform.route(u, t)``. Each arc carries the physical path it stands for,
and ``(u → w, w → t)`` is split only when the joined path is a contiguous
piece of the route of two participants whose route crosses no other
participant; when both ends are participants it is then their route. A
direct link between two participants that is not their route is not used.
Capacity that cannot be split (a route restriction, a switch whose in and
out capacities differ) is dropped, the rate ``x`` recomputed on what is
left (:func:`~.cut_bound.best_rate`) and splitting goes on at the new rate;
the result says how much was dropped and why.

References
----------
J. Bang-Jensen, A. Frank, B. Jackson. Preserving and increasing local
edge-connectivity in mixed graphs. SIAM J. Discrete Math. 8(2), 1995.
https://doi.org/10.1137/S0895480192237403
L. Zhao et al. ForestColl, arXiv:2402.06787, 2024 (section on switch removal).

Examples
--------
Three GPUs on one switch: the switch splits off (here into a ring) and the rate stays the cut bound:

>>> from collsched import topologies
>>> p = topologies.star(3, bandwidth=2)
>>> s = split_switches(capacity_graph(p, p.hosts), lambda a, b: p.route_hops(a, b))
>>> Fraction(s.rate, s.scale), s.bound, s.dropped
(Fraction(1, 1), Fraction(1, 1), ())
>>> sorted((s.nodes[u], s.nodes[t]) for u, t in s.arcs), set(s.arcs.values())
([('h0', 'h1'), ('h1', 'h2'), ('h2', 'h0')], {2})
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

from .capacity import CapacityGraph, capacity_graph, flow_network  # noqa: F401 (capacity_graph: doctests)
from .cut_bound import best_rate

__all__ = ["SplitGraph", "split_switches"]

Hop = tuple[str, bool]


@dataclass(frozen=True)
class SplitGraph:
    """The participants-only graph left by edge splitting.

    Attributes
    ----------
    nodes : tuple of str
        The participants (node ``i`` is ``nodes[i]``).
    arcs : dict
        ``(u, t) -> capacity`` (int, in units of ``1/scale`` bytes/s); the
        arc stands for the platform route from ``u`` to ``t`` (from ``t`` to
        ``u`` for a ReduceScatter).
    rate : int
        The rate ``x`` (same units) every participant can broadcast at on
        ``arcs``: ``λ(s, v) >= N·rate`` holds for every ``v``.
    scale : int
        Capacity units per byte/s.
    bound : Fraction
        ``x*`` in bytes/s, the cut bound of the platform (>= ``rate / scale``).
    dropped : tuple of str
        One phrase per reason capacity was left out, e.g.
        ``"nvs0: 12.5 GB/s not splittable along routes"``; empty when none was.
    """

    nodes: tuple[str, ...]
    arcs: dict
    rate: int
    scale: int
    bound: Fraction
    dropped: tuple[str, ...]


class _Splitter:
    """The state of one splitting run: logical arcs mirrored in a flow network with a super source."""

    def __init__(self, g: CapacityGraph, rate: Fraction):
        self.g = g
        self.n, self.N = len(g.nodes), g.n_compute
        q = rate.denominator
        self.scale = g.scale * q
        self.rate = rate.numerator
        # logical arcs: tail, head, path (tuple of physical arc ids), capacity; index = network arc id
        self.tail = list(g.tails)
        self.head = list(g.heads)
        self.path = [(i,) for i in range(len(g.tails))]
        self.cap = [c * q for c in g.capacity]
        self.by_key = {(a, b, p): i for i, (a, b, p) in enumerate(zip(self.tail, self.head, self.path))}
        self.net = flow_network(self.n, self.tail, self.head, self.cap)
        self.net_arc = list(range(len(self.cap)))  # logical arc -> its arc in the flow network
        self.s = self.n
        self.source_arcs = [self.net.add_arc(self.s, v, self.rate) for v in range(self.N)]
        self.dropped: list[str] = []

    @property
    def K(self) -> int:
        return self.N * self.rate

    def set_cap(self, i: int, c: int) -> None:
        self.cap[i] = c
        self.net.set_capacity(self.net_arc[i], c)

    def add(self, a: int, b: int, path: tuple, c: int) -> None:
        i = self.by_key.get((a, b, path))
        if i is None:
            i = len(self.cap)
            self.net_arc.append(self.net.add_arc(a, b, 0))
            self.tail.append(a)
            self.head.append(b)
            self.path.append(path)
            self.cap.append(0)
            self.by_key[a, b, path] = i
        self.set_cap(i, self.cap[i] + c)

    def drop(self, arcs: Sequence[int], why: str) -> None:
        lost = sum(self.cap[i] for i in arcs)
        if lost == 0:
            return
        for i in arcs:
            self.set_cap(i, 0)
        self.dropped.append(f"{why}: {_gbps(Fraction(lost, self.scale))} dropped")
        x, _ = best_rate(self.n, self.tail, self.head, self.cap, self.N)
        if x < self.rate:
            q = x.denominator
            self.scale *= q
            self.rate = x.numerator
            for i, c in enumerate(self.cap):
                self.set_cap(i, c * q)
            for a in self.source_arcs:
                self.net.set_capacity(a, self.rate)

    def amount(self, u: int, w: int, t: int, most: int) -> int:
        """The largest admissible split of ``(u → w, w → t)``, at most ``most``."""
        s, N = self.s, self.N
        ut = sorted({u, t})
        queries = [([s] + ut, [w, v]) for v in range(N) if v not in ut]
        queries += [([s, w], sorted(set(ut) | {v})) for v in range(N)]
        value, _ = self.net.min_max_flow(queries, self.K + most)
        return max(0, value - self.K)

    def split(self, w: int, allowed: Callable[[int, int, tuple], bool]) -> None:
        """Split off every admissible pair at switch ``w``; drop what is left."""
        ins = [i for i in range(len(self.cap)) if self.head[i] == w and self.cap[i] > 0]
        outs = [i for i in range(len(self.cap)) if self.tail[i] == w and self.cap[i] > 0]
        for i in ins:
            u = self.tail[i]
            for j in outs:
                if self.cap[i] == 0:
                    break
                t = self.head[j]
                if self.cap[j] == 0 or t == u:
                    continue
                path = self.path[i] + self.path[j]
                if not allowed(u, t, path):
                    continue
                gamma = self.amount(u, w, t, min(self.cap[i], self.cap[j]))
                if gamma > 0:
                    self.set_cap(i, self.cap[i] - gamma)
                    self.set_cap(j, self.cap[j] - gamma)
                    self.add(u, t, path, gamma)
        left = [i for i in ins + outs if self.cap[i] > 0]
        if left:
            cin = sum(self.cap[i] for i in ins)
            cout = sum(self.cap[j] for j in outs)
            why = "not splittable along routes" if cin == cout else "in and out capacities differ"
            self.drop(left, f"{self.g.nodes[w]}: {why}")


def _gbps(x: Fraction) -> str:
    return f"{float(x) / 1e9:.6g} GB/s"


def _route_paths(g: CapacityGraph, route_hops: Callable[[str, str], Sequence[Hop]]):
    """Working-graph paths of the participants' routes, and the set of pieces of those crossing no participant."""
    arc_of = {h: i for i, h in enumerate(g.hops)}
    N = g.n_compute
    full: dict = {}
    pieces: set = set()
    for a in range(N):
        for b in range(N):
            if a == b:
                continue
            if g.kind == "allgather":
                path = tuple(arc_of[h] for h in route_hops(g.nodes[a], g.nodes[b]))
            else:  # the data of arc a -> b flows b -> a: the physical route from b to a, reversed
                path = tuple(arc_of[h] for h in reversed(route_hops(g.nodes[b], g.nodes[a])))
            full[a, b] = path
            if any(g.heads[i] < N for i in path[:-1]):
                continue  # the route crosses another participant: trees never use it as one arc
            L = len(path)
            for i in range(L - 1):
                for j in range(i + 2, L + 1):
                    pieces.add(path[i:j])
    return full, pieces


def split_switches(g: CapacityGraph, route_hops: Callable[[str, str], Sequence[Hop]]) -> SplitGraph:
    """Remove every non-participant node of ``g`` by route-consistent edge splitting (see the module).

    Parameters
    ----------
    g : CapacityGraph
        From :func:`~.capacity.capacity_graph`.
    route_hops : callable
        ``(src, dst) -> hops``, the platform's static routes
        (:meth:`Platform.route_hops <collsched.platform.Platform.route_hops>`).

    Returns
    -------
    SplitGraph

    Notes
    -----
    Each pair tried costs up to ``2N`` maximum flows (stopped at the
    running minimum); a switch with ``d`` arcs in and out costs up to
    ``d²`` pairs. The participants' routes are read once (``N²``).

    Examples
    --------
    Two GPUs joined by a one-way link: nothing to split; the bound is the
    slow direction shared by nobody else.

    >>> from collsched.platform import Platform, Node, Link
    >>> p = Platform([Node("a"), Node("b")], [Link("ab", 4, ends=("a", "b"), directed=True),
    ...                                       Link("ba", 2, ends=("b", "a"), directed=True)])
    >>> s = split_switches(capacity_graph(p, ["a", "b"]), p.route_hops)
    >>> s.arcs, s.rate, s.bound
    ({(0, 1): 4, (1, 0): 2}, 2, Fraction(2, 1))
    """
    bound, _ = best_rate(len(g.nodes), g.tails, g.heads, g.relaxed, g.n_compute)
    rate = bound if g.relaxed == g.capacity else best_rate(len(g.nodes), g.tails, g.heads, g.capacity,
                                                            g.n_compute)[0]
    sp = _Splitter(g, rate)
    N = g.n_compute
    if rate < bound:
        sp.dropped.append("shared links: half of each direction's bandwidth kept for the schedule")
    full, pieces = _route_paths(g, route_hops)

    def allowed(u: int, t: int, path: tuple) -> bool:
        return full.get((u, t)) == path if u < N and t < N else path in pieces

    off_route = [i for i in range(len(g.tails)) if g.tails[i] < N and g.heads[i] < N
                 and full[g.tails[i], g.heads[i]] != (i,)]
    sp.drop(off_route, "links between participants off their route")
    degree = [0] * len(g.nodes)
    for a, b in zip(g.tails, g.heads):
        degree[a] += 1
        degree[b] += 1
    for w in sorted(range(N, len(g.nodes)), key=lambda w: (degree[w], w)):
        sp.split(w, allowed)
    arcs: dict = {}
    for i, c in enumerate(sp.cap):
        if c > 0:
            a, b = sp.tail[i], sp.head[i]
            arcs[a, b] = arcs.get((a, b), 0) + c
    return SplitGraph(g.participants, arcs, sp.rate, sp.scale, bound / g.scale, tuple(sp.dropped))
