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

**Order and shortcuts.** Switches are split fewest arcs first. A switch
between two nodes whose arcs pair up (a NIC between its GPU and the IB
switch) splits whole without a flow (admissible by a one-line argument,
``_Splitter.split_pairs_of_two``). A switch whose equal arcs all go to and
from participants (an NVSwitch, an IB switch after its NICs) is tried as a
sparse *circulant*: in-arc ``k`` to out-arcs ``k + o`` for 1, 2, 4, ...
offsets ``o``, each try checked with ``N`` flows. Otherwise pairs are split
one at a time, the largest admissible amount each (ForestColl), the most
constrained first (an arc with one allowed partner goes to it: d-mod-k
routes in a fat tree need this), then one spread splitting of the rest.

**What cannot be split** (a route restriction, a switch on no route, a
switch whose in and out capacities differ) is dropped and the rate
recomputed on what is left (:func:`~.cut_bound.best_rate`). When that
lowers the rate, the switch is split again aiming lower (the target
bisected six times; the best rate reached is kept): a switch with more
capacity out than in cannot replicate data as the cut bound lets it, and
at the cut bound's rate no pair may be admissible at all. The cut bound
``x*`` stays the stated bound (valid for any schedule); the result names
every drop. Measured (``tests/gpu/test_forest.py``): on random meshes with
shortest-path routes the trees reach the best rate of any packing along
the routes (a slow LP reference); on random one-way stars (switch not
Eulerian) 33 of 300 cases fall short of it (the bisection and the greedy
order are not exact there).

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
>>> s = split_switches(capacity_graph(p, p.hosts), p)
>>> Fraction(s.rate, s.scale), s.bound, s.dropped
(Fraction(1, 1), Fraction(1, 1), ())
>>> sorted((s.nodes[u], s.nodes[t]) for u, t in s.arcs), set(s.arcs.values())
([('h0', 'h1'), ('h1', 'h2'), ('h2', 'h0')], {2})
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from ..._core import FlowNetwork
from ...platform.model import Platform
from ...platform.routes import pair_routes
from .capacity import CapacityGraph, capacity_graph, flow_network  # noqa: F401 (capacity_graph: doctests)
from .cut_bound import best_rate

__all__ = ["SplitGraph", "split_switches"]


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
        self.into: list[list[int]] = [[] for _ in g.nodes]
        self.outof: list[list[int]] = [[] for _ in g.nodes]
        for i, (a, b) in enumerate(zip(self.tail, self.head)):
            self.outof[a].append(i)
            self.into[b].append(i)
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
            self.outof[a].append(i)
            self.into[b].append(i)
        self.set_cap(i, self.cap[i] + c)

    def drop(self, arcs: Sequence[int], why: str) -> None:
        lost = sum(self.cap[i] for i in arcs)
        if lost == 0:
            return
        for i in arcs:
            self.set_cap(i, 0)
        self.dropped.append(f"{why}: {_gbps(Fraction(lost, self.scale))} of arc capacity dropped")
        x, _ = best_rate(self.n, self.tail, self.head, self.cap, self.N)
        if x < self.rate:
            self.rebase(x.denominator)
            self.rate = x.numerator
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

    def rebase(self, q: int) -> None:
        """Multiply every capacity and the rate by ``q`` (finer units)."""
        if q == 1:
            return
        self.scale *= q
        self.rate *= q
        for i, c in enumerate(self.cap):
            if c:
                self.set_cap(i, c * q)
        for a in self.source_arcs:
            self.net.set_capacity(a, self.rate)

    def admissible(self) -> bool:
        """``λ(s, v) >= K`` for every participant ``v`` (``N`` flows, each stopped at ``K``)."""
        queries = [([self.s], [v]) for v in range(self.N)]
        return self.net.min_max_flow(queries, self.K)[0] >= self.K

    def split_at_once(self, w: int, pairs: list) -> bool:
        """Try one complete splitting of ``w`` spread over the allowed pairs; keep it if admissible.

        Each in-arc is shared among its allowed out-arcs in proportion to
        their capacities (exact after rebasing), clipped by what the out-arcs
        have left; a bipartite maximum flow completes the rest if it can.
        The whole is kept only if every participant keeps ``λ(s, v) >= K``.
        """
        ins = sorted({i for i, _, _ in pairs})
        outs = sorted({j for _, j, _ in pairs})
        partners: dict = {}
        for i, j, _ in pairs:
            partners[i] = partners.get(i, 0) + self.cap[j]
        q = 1
        for i, j, _ in pairs:
            q = math.lcm(q, Fraction(self.cap[i] * self.cap[j], partners[i]).denominator)
        if q > 1 << 20:
            return False
        self.rebase(q)
        cin, cout = dict((i, self.cap[i]) for i in ins), dict((j, self.cap[j]) for j in outs)
        y = {}
        for i, j, _ in pairs:
            share = min(self.cap[i] * self.cap[j] // (partners[i] * q), cin[i], cout[j])
            y[i, j] = share
            cin[i] -= share
            cout[j] -= share
        if any(cin.values()) or any(cout.values()):  # complete by a transport flow over the allowed pairs
            net = FlowNetwork(len(ins) + len(outs) + 2)
            src, dst = len(ins) + len(outs), len(ins) + len(outs) + 1
            row = {i: k for k, i in enumerate(ins)}
            col = {j: len(ins) + k for k, j in enumerate(outs)}
            for i in ins:
                net.add_arc(src, row[i], cin[i])
            for j in outs:
                net.add_arc(col[j], dst, cout[j])
            mid = [net.add_arc(row[i], col[j], FlowNetwork.INFINITE) for i, j, _ in pairs]
            if net.max_flow([src], [dst]) < sum(cin.values()) or sum(cin.values()) != sum(cout.values()):
                return False
            flows = net.arc_flows()
            for (i, j, _), a in zip(pairs, mid):
                y[i, j] += flows[a]
        return self.try_complete([(i, j, path, y[i, j]) for i, j, path in pairs if y[i, j]], ins + outs)

    def try_complete(self, made: list, arcs: list) -> bool:
        """Apply the splits ``made`` ``[(in arc, out arc, path, amount)]``; keep them if admissible, else undo."""
        before = {i: self.cap[i] for i in arcs}
        for i, j, _, c in made:
            self.set_cap(i, self.cap[i] - c)
            self.set_cap(j, self.cap[j] - c)
        for i, j, path, c in made:
            self.add(self.tail[i], self.head[j], path, c)
        if self.admissible():
            return True
        for i, j, path, c in made:  # undo
            k = self.by_key[self.tail[i], self.head[j], path]
            self.set_cap(k, self.cap[k] - c)
        for i, c in before.items():
            self.set_cap(i, c)
        return False

    def split_pairs_of_two(self, pairs: list) -> bool:
        """A switch between two nodes ``a``, ``b`` whose arcs pair up ``a→w→b``, ``b→w→a`` with equal capacities.

        Splitting both pairs whole is admissible without a flow: a cut
        ``X`` lowered by it (``a, b ∈ X ∌ w``, or ``w ∈ X ∌ a, b``) ends with
        the capacity of ``X ∪ {w}`` (or ``X - {w}``) before the split, which
        is at least ``K``.
        """
        ends = {self.tail[i] for i, _, _ in pairs} | {self.head[j] for _, j, _ in pairs}
        ins = [i for i, _, _ in pairs]
        outs = [j for _, j, _ in pairs]
        if len(ends) > 2 or len(set(ins)) != len(ins) or len(set(outs)) != len(outs) \
                or any(self.cap[i] != self.cap[j] for i, j, _ in pairs):
            return False
        w = self.head[ins[0]]
        if sorted(ins) != sorted(k for k in self.into[w] if self.cap[k]) or \
                sorted(outs) != sorted(k for k in self.outof[w] if self.cap[k]):
            return False
        for i, j, path in pairs:
            c = self.cap[i]
            self.set_cap(i, 0)
            self.set_cap(j, 0)
            self.add(self.tail[i], self.head[j], path, c)
        return True

    def split_circulant(self, ins: list, outs: list, allowed: Callable[[int, int, tuple], bool]) -> bool:
        """Equal arcs in and out of the same participants: in-arc ``k`` sends ``c/m`` to out-arcs ``k + o`` for ``m`` offsets ``o``.

        Tried with 1, 2, 4, ... offsets (spread over those allowed for
        every ``k``) until the splitting is admissible: a sparse, balanced
        complete splitting of a symmetric switch in ``N`` flows per try.
        """
        d = len(ins)
        if d < 2 or len(outs) != d or len({self.cap[i] for i in ins + outs}) != 1:
            return False
        if any(self.tail[i] >= self.N for i in ins) or any(self.head[j] >= self.N for j in outs):
            return False  # arcs to other switches: a choice here could leave them no way on along routes
        ins = sorted(ins, key=lambda i: self.tail[i])
        outs = sorted(outs, key=lambda j: self.head[j])
        if [self.tail[i] for i in ins] != [self.head[j] for j in outs]:
            return False
        offsets = [o for o in range(1, d) if all(allowed(self.tail[ins[k]], self.head[outs[(k + o) % d]],
                                                         self.path[ins[k]] + self.path[outs[(k + o) % d]])
                                                 for k in range(d))]
        m = 1
        while offsets and m <= len(offsets):
            chosen = [offsets[(r * len(offsets)) // m] for r in range(m)]
            self.rebase(m // math.gcd(m, self.cap[ins[0]]))
            c = self.cap[ins[0]] // m
            made = [(ins[k], outs[(k + o) % d], self.path[ins[k]] + self.path[outs[(k + o) % d]], c)
                    for k in range(d) for o in chosen]
            if self.try_complete(made, ins + outs):
                return True
            m = len(offsets) if m < len(offsets) <= 2 * m else 2 * m
        return False

    def snapshot(self) -> dict:
        return dict(n=len(self.cap), tail=list(self.tail), head=list(self.head), path=list(self.path),
                    cap=list(self.cap), net_arc=list(self.net_arc), by_key=dict(self.by_key),
                    into=[list(x) for x in self.into], outof=[list(x) for x in self.outof],
                    rate=self.rate, scale=self.scale, dropped=list(self.dropped))

    def restore(self, snap: dict) -> None:
        for i in range(snap["n"], len(self.cap)):
            self.net.set_capacity(self.net_arc[i], 0)
        for key in ("tail", "head", "path", "net_arc", "cap", "dropped"):
            setattr(self, key, list(snap[key]))
        self.by_key = dict(snap["by_key"])
        self.into, self.outof = [list(x) for x in snap["into"]], [list(x) for x in snap["outof"]]
        self.rate, self.scale = snap["rate"], snap["scale"]
        for i, c in enumerate(self.cap):
            self.net.set_capacity(self.net_arc[i], c)
        for a in self.source_arcs:
            self.net.set_capacity(a, self.rate)

    def set_rate(self, x: Fraction) -> None:
        """Aim at rate ``x`` bytes/s (not above the current one): finer units so that it is a whole number."""
        x = x * self.scale
        self.rebase(x.denominator)
        self.rate = x.numerator
        for a in self.source_arcs:
            self.net.set_capacity(a, self.rate)

    def split(self, w: int, allowed: Callable[[int, int, tuple], bool], tries: int = 6) -> None:
        """Split ``w`` off at the current rate; if capacity is left and dropping it lowers the rate, aim lower.

        A switch whose out capacity exceeds its in capacity cannot replicate
        data as the cut bound lets it: splitting at the cut bound's rate may
        find no admissible pair at all. Then the target rate is bisected
        (``tries`` times) between the rate left after dropping and the
        current one, keeping the best rate reached after the drop.
        """
        snap = self.snapshot()
        start = Fraction(self.rate, self.scale)
        self.split_once(w, allowed)
        low = Fraction(self.rate, self.scale)
        if low == start:
            return
        best, high = (low, self.snapshot()), start
        for _ in range(tries):
            mid = (low + high) / 2
            self.restore(snap)
            self.set_rate(mid)
            self.split_once(w, allowed)
            got = Fraction(self.rate, self.scale)
            if got > best[0]:
                best = (got, self.snapshot())
            low, high = (mid, high) if got >= mid else (low, mid)
        self.restore(best[1])

    def split_once(self, w: int, allowed: Callable[[int, int, tuple], bool]) -> None:
        """Split off every admissible pair at switch ``w``; drop what is left."""
        ins = [i for i in self.into[w] if self.cap[i] > 0]
        outs = [i for i in self.outof[w] if self.cap[i] > 0]
        pairs = [(i, j, self.path[i] + self.path[j]) for i in ins for j in outs
                 if self.tail[i] != self.head[j] and allowed(self.tail[i], self.head[j], self.path[i] + self.path[j])]
        if pairs and (self.split_pairs_of_two(pairs) or self.split_circulant(ins, outs, allowed)):
            return
        # one pair at a time, the largest admissible amount (ForestColl), the most constrained pairs first: an
        # arc with one allowed partner must be split with it (routes fix which arcs may meet at w)
        degree: dict = {}
        for i, j, _ in pairs:
            degree[i] = degree.get(i, 0) + 1
            degree[j] = degree.get(j, 0) + 1
        pairs.sort(key=lambda e: (min(degree[e[0]], degree[e[1]]), degree[e[0]] + degree[e[1]]))
        for i, j, path in pairs:
            if self.cap[i] == 0 or self.cap[j] == 0:
                continue
            u, t = self.tail[i], self.head[j]
            gamma = self.amount(u, w, t, min(self.cap[i], self.cap[j]))
            if gamma > 0:
                self.set_cap(i, self.cap[i] - gamma)
                self.set_cap(j, self.cap[j] - gamma)
                self.add(u, t, path, gamma)
        rest = [(i, j, path) for i, j, path in pairs if self.cap[i] and self.cap[j]]
        if rest and sum(self.cap[i] for i in ins) == sum(self.cap[j] for j in outs):
            self.split_at_once(w, rest)  # greedy order stuck: one spread splitting of the rest, if admissible
        left = [i for i in ins + outs if self.cap[i] > 0]
        if left:
            cin = sum(self.cap[i] for i in ins)
            cout = sum(self.cap[j] for j in outs)
            why = "on no route between participants" if not pairs else \
                "not splittable along routes" if cin == cout else "in and out capacities differ"
            self.drop(left, f"{self.g.nodes[w]}: {why}")


def _gbps(x: Fraction) -> str:
    return f"{float(x) / 1e9:.6g} GB/s" if x >= 10**6 else f"{float(x):.6g} bytes/s"


def _route_paths(g: CapacityGraph, platform: Platform):
    """Working-graph paths of the participants' routes, and the set of pieces of those crossing no participant.

    ``full[a, b]`` is the path of the tree arc ``a -> b`` (for a
    ReduceScatter the physical route ``b -> a``, reversed); ``pieces`` holds
    every contiguous piece (two hops or more, not the whole) of the routes
    that cross no other participant.
    """
    N = g.n_compute
    src, dst = np.divmod(np.arange(N * N, dtype=np.int64), N)
    keep = src != dst
    src, dst = src[keep], dst[keep]
    rs = g.kind == "reducescatter"
    routes = pair_routes(platform, g.participants, dst if rs else src, src if rs else dst)
    link_index = {link: k for k, link in enumerate(routes.link_ids)}
    table = np.full((len(routes.link_ids), 2), -1, dtype=np.int64)
    for i, (link, fwd) in enumerate(g.hops):
        table[link_index[link], int(fwd)] = i
    hop_arc = table[routes.hop_link, routes.hop_fwd.astype(np.int64)]
    # the node each hop enters, in the data's direction; a route crosses a participant if one is entered early
    enters = (np.asarray(g.tails) if rs else np.asarray(g.heads))[hop_arc]
    last = np.zeros(hop_arc.shape[0], dtype=bool)
    last[routes.hop_ptr[1:] - 1] = True
    crossing = np.zeros(routes.n_pairs, dtype=bool)
    np.logical_or.at(crossing, routes.hop_pair, (enters < N) & ~last)
    arcs, ptr = hop_arc.tolist(), routes.hop_ptr.tolist()
    full: dict = {}
    pieces: set = set()
    for k, (a, b, cross) in enumerate(zip(src.tolist(), dst.tolist(), crossing.tolist())):
        path = tuple(arcs[ptr[k]:ptr[k + 1]])
        if rs:
            path = path[::-1]
        full[a, b] = path
        L = len(path)
        if cross or L < 3:
            continue
        for i in range(L - 1):
            for j in range(i + 2, L + 1 if i else L):
                pieces.add(path[i:j])
    return full, pieces


def split_switches(g: CapacityGraph, platform: Platform) -> SplitGraph:
    """Remove every non-participant node of ``g`` by route-consistent edge splitting (see the module).

    Parameters
    ----------
    g : CapacityGraph
        From :func:`~.capacity.capacity_graph`.
    platform : Platform
        The platform ``g`` comes from; its static routes (:meth:`Platform.route_hops
        <collsched.platform.Platform.route_hops>`) decide which splits are allowed.

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
    >>> s = split_switches(capacity_graph(p, ["a", "b"]), p)
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
    full, pieces = _route_paths(g, platform)

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
