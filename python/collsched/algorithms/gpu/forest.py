"""Throughput-optimal AllGather / ReduceScatter forests on multi-port fabrics, and their independent checker.

:func:`pack_forest` runs ForestColl's three steps: the cut bound ``x*``
(:mod:`.cut_bound`), switch removal by route-consistent edge splitting
(:mod:`.splitting`), and a packing of spanning trees per participant
(:mod:`.trees`). An AllGather uses out-trees (each root's block flows down
its trees); a ReduceScatter in-trees, found as out-trees of the reversed
fabric (each root's result flows up from the leaves). The result
:class:`Forest` says what the trees achieve (``throughput``) and what no
schedule can beat (``bound``); they are equal, and ``note`` empty, unless
some capacity could not be split along the platform's routes (then
``note`` says where and how much, and the trees packed on what was split
are scaled to the largest rate the links carry them at, which can be more
than the rate of what was split). When the trees that fit the routes then
carry less than stars along the routes (:func:`route_stars`: each root
sends its block directly to every other participant), or nothing at all,
the forest is those stars: it never fails while the participants reach
one another along the routes.

Time of one AllGather of total output ``M`` (block ``M/N``) in the
steady state: ``(M/N) / throughput``; algorithm bandwidth ``N · throughput``.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.dgx2(2)
>>> f = pack_forest(p, p.hosts)
>>> f.throughput == f.bound, f.throughput, f.note
(True, Fraction(125000000000, 31), '')
>>> check_forest(p, f)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ...errors import ScheduleError
from ...platform.model import Platform
from .capacity import KINDS, capacity_graph
from .lower_shallow import link_loads
from .splitting import split_switches
from .trees import pack_spanning_trees

__all__ = ["Tree", "Forest", "pack_forest", "route_stars", "check_forest"]


@dataclass(frozen=True)
class Tree:
    """One spanning tree of a forest.

    Attributes
    ----------
    root : str
        The participant whose block (AllGather) or result (ReduceScatter) this tree carries.
    weight : Fraction
        Bytes/s of the root's stream through this tree.
    arcs : tuple of (str, str)
        AllGather: ``(parent, child)`` host pairs, breadth-first from the
        root (parents before children), spanning every participant; data
        flows parent → child along ``platform.route(parent, child)``.
        ReduceScatter: ``(child, parent)`` pairs in the same order (each
        arc's parent is nearer the root); data flows child → parent along
        ``platform.route(child, parent)``, then on to the root.
    
    Examples
    --------
    >>> from collsched import topologies
    >>> pack_forest(topologies.star(3), ["h0", "h1", "h2"]).trees[0].root
    'h0'
    """

    root: str
    weight: Fraction
    arcs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Forest:
    """Spanning trees per root whose weights reach the AllGather/ReduceScatter rate ``throughput``.

    Attributes
    ----------
    kind : str
        ``"allgather"`` or ``"reducescatter"``.
    participants : tuple of str
    trees : tuple of Tree
        Grouped by root; each root's weights sum to ``throughput``.
    throughput : Fraction
        ``x``, bytes/s per root that the trees achieve (exact).
    bound : Fraction
        ``x*``, the cut bound (exact), valid for any schedule under the
        multi-port model; ``>= throughput``.
    note : str
        ``""`` when ``throughput == bound``, else why not (one line).
    elapsed : float
        Seconds spent by :func:`pack_forest`.
    
    Examples
    --------
    >>> from collsched import topologies
    >>> f = pack_forest(topologies.star(3), ["h0", "h1", "h2"])
    >>> f.throughput == f.bound, len(f.trees), f.note
    (True, 3, '')
    """

    kind: str
    participants: tuple[str, ...]
    trees: tuple[Tree, ...]
    throughput: Fraction
    bound: Fraction
    note: str
    elapsed: float


def pack_forest(platform: Platform, participants: Sequence[str], *, kind: str = "allgather") -> Forest:
    """Optimal spanning trees for an AllGather (out-trees) or ReduceScatter (in-trees) among ``participants``.

    Parameters
    ----------
    platform : Platform
        Multi-port model: each direction of each link is its own capacity
        (bandwidth, bytes/s); routers forward; latencies are ignored.
    participants : sequence of str
        Distinct hosts, at least two. Other hosts only forward.
    kind : {"allgather", "reducescatter"}

    Returns
    -------
    Forest
        ``throughput == bound`` (the optimum, exact) unless some capacity
        could not be split along the platform's routes; ``note`` then says
        which and how much, and the trees packed on what was split carry
        the largest rate at which the links hold them (their shares
        kept). Then, if :func:`route_stars`
        carry more than those trees (nothing, when no capacity could be
        split), the trees are those stars and ``note`` says so.

    Raises
    ------
    CollectiveError
        A router as participant, a participant listed twice, fewer than two, an unknown kind.
    PlatformError
        A participant that cannot reach another (both named); a link without ends or a fatpipe.

    Notes
    -----
    Capacities are read exactly (``Fraction(float)``, scaled to integers);
    every flow is an integer maximum flow in the Rust core.

    References
    ----------
    L. Zhao, S. Maleki, A. Shah, Z. Yang, H. Pourreza, A. Krishnamurthy.
    ForestColl: throughput-optimal collective communications on
    heterogeneous network fabrics. arXiv:2402.06787, 2024.

    Examples
    --------
    Three hosts on a switch of 2 bytes/s links: each root sends at 1 byte/s
    down one tree (every host's uplink carries its own block and forwards
    one other), and the ReduceScatter is the mirror image:

    >>> from collsched import topologies
    >>> p = topologies.star(3, bandwidth=2)
    >>> f = pack_forest(p, p.hosts)
    >>> f.throughput, [(t.root, t.weight, t.arcs) for t in f.trees][0]
    (Fraction(1, 1), ('h0', Fraction(1, 1), (('h0', 'h1'), ('h1', 'h2'))))
    >>> r = pack_forest(p, p.hosts, kind="reducescatter")
    >>> r.throughput, r.trees[0].arcs
    (Fraction(1, 1), (('h1', 'h0'), ('h2', 'h1')))
    """
    start = time.perf_counter()
    g = capacity_graph(platform, participants, kind=kind)
    split = split_switches(g, platform)
    bound = split.bound
    throughput = Fraction(split.rate, split.scale)
    names = split.nodes
    trees, why = [], ""
    for r, w, arcs in pack_spanning_trees(len(names), split.arcs, split.rate) if split.rate else ():
        pairs = tuple((names[a], names[b]) if kind == "allgather" else (names[b], names[a]) for a, b in arcs)
        trees.append(Tree(names[r], Fraction(w, split.scale), pairs))
    if trees and throughput < bound:  # the split lost capacity: the links may carry the trees faster
        trees, throughput = _at_link_rate(platform, trees, throughput)
    if throughput < bound:  # stars along the routes may carry more still
        stars, star_rate = route_stars(platform, names, kind)
        if star_rate > throughput:
            why = ("the routes forced stars (no spanning trees fit them), " if split.rate == 0 else
                   f"stars along the routes (the trees that fit them carry {float(throughput):.6g} bytes/s), ")
            trees, throughput = stars, star_rate
    note = "" if throughput == bound else \
        f"{why}below the cut bound by {float(1 - throughput / bound):.3%}: " + "; ".join(split.dropped)
    return Forest(kind, g.participants, tuple(trees), throughput, bound, note, time.perf_counter() - start)


def _at_link_rate(platform: Platform, trees: list[Tree], rate: Fraction) -> tuple[list[Tree], Fraction]:
    """The trees scaled to the largest rate every link direction carries (their shares kept), and that rate.

    Splitting drops the capacity it cannot split along the routes and packs
    the trees at the rate of what is left; the trees themselves, routed on
    the platform, may load no link to its bandwidth at that rate (random
    platform 118, all-gather: packed at 1/8 bytes/s per root, the most
    loaded link, ``P3-P2`` of 0.5 bytes/s, carries two of them: 1/4).
    """
    loads = link_loads(platform, [(u, v, t.weight / rate) for t in trees for u, v in t.arcs])
    carried = min((Fraction(platform.links[link].bandwidth) / load for (link, _), load in loads.items() if load > 0),
                  default=rate)
    if carried <= rate:
        return trees, rate
    return [Tree(t.root, t.weight / rate * carried, t.arcs) for t in trees], carried


def route_stars(platform: Platform, participants: Sequence[str],
                kind: str = "allgather") -> tuple[list[Tree], Fraction]:
    """The forest of stars along the routes: each root exchanges its block directly with every other participant.

    An AllGather star sends root ``r``'s block along ``platform.route(r, d)``
    to every other participant ``d``; a ReduceScatter star receives along
    ``platform.route(d, r)``. Every root streams at the same rate, the
    largest every link direction carries: the least, over link directions,
    of the bandwidth over the number of those routes that cross it (a
    ``shared`` link's two directions counted together,
    :func:`.lower_shallow.link_loads`).

    Parameters
    ----------
    platform : Platform
    participants : sequence of str
        Distinct hosts, each reaching every other along the routes.
    kind : {"allgather", "reducescatter"}

    Returns
    -------
    trees : list of Tree
        One per participant, of weight ``rate``, arcs ordered as ``participants``.
    rate : Fraction
        Bytes/s per root (exact, from the float bandwidths).

    Examples
    --------
    Three hosts on a switch of 2 bytes/s links: every uplink carries its
    block to the two others, every downlink the two others' blocks:

    >>> from collsched import topologies
    >>> trees, rate = route_stars(topologies.star(3, bandwidth=2), ["h0", "h1", "h2"], "reducescatter")
    >>> rate, trees[0].arcs
    (Fraction(1, 1), (('h1', 'h0'), ('h2', 'h0')))
    """
    inward = kind == "reducescatter"
    arcs = {r: tuple((d, r) if inward else (r, d) for d in participants if d != r) for r in participants}
    loads = link_loads(platform, [(u, v, Fraction(1)) for r in participants for u, v in arcs[r]])
    rate = min(Fraction(platform.links[link].bandwidth) / load for (link, _), load in loads.items())
    return [Tree(r, rate, arcs[r]) for r in participants], rate

def check_forest(platform: Platform, forest: Forest) -> None:
    """Check a forest exactly, independently of how it was built.

    Checks that every tree's root is a participant and its arcs form a tree
    rooted there that spans every participant (listed parents first), that
    every weight is positive and each root's weights sum to
    ``throughput``, that ``throughput <= bound``, and that every physical
    link carries at most its bandwidth: the load of a link direction is the
    sum, over trees and arcs whose route (``platform.route``, in the data's
    direction) uses it, of the tree's weight; a ``shared`` link's two
    directions together, a full-duplex link's each on its own.

    Parameters
    ----------
    platform : Platform
    forest : Forest

    Returns
    -------
    None

    Raises
    ------
    ScheduleError
        Naming the first tree, root or link that fails.

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.star(3, bandwidth=2)
    >>> f = pack_forest(p, p.hosts)
    >>> check_forest(p, f)
    >>> import dataclasses
    >>> check_forest(p, dataclasses.replace(f, throughput=f.throughput / 2))
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: the weights of root 'h0' sum to 1 bytes/s, not the throughput 1/2 (fix the weights)
    """
    if forest.kind not in KINDS:
        raise ScheduleError(f"unknown forest kind {forest.kind!r}", fix=f"use one of {', '.join(KINDS)}")
    parts = list(forest.participants)
    members = set(parts)
    if len(members) != len(parts) or len(parts) < 2:
        raise ScheduleError("the participants are not two or more distinct hosts", fix="list each host once")
    if forest.throughput > forest.bound:
        raise ScheduleError(f"throughput {forest.throughput} exceeds the bound {forest.bound}",
                            fix="a forest cannot beat the cut bound")
    total = {h: Fraction(0) for h in parts}
    load: dict = {}
    for k, tree in enumerate(forest.trees):
        where = f"tree {k} (root {tree.root!r})"
        if tree.root not in members:
            raise ScheduleError(f"{where}: the root is not a participant", fix="root trees at participants")
        if not tree.weight > 0:
            raise ScheduleError(f"{where}: weight {tree.weight} is not positive", fix="drop empty trees")
        reached = {tree.root}
        for arc in tree.arcs:
            parent, child = arc if forest.kind == "allgather" else arc[::-1]
            if parent not in reached or child in reached or child not in members:
                raise ScheduleError(f"{where}: arc {arc} does not extend the tree (parent first, child new)",
                                    fix="list arcs from the root down, each participant once")
            reached.add(child)
            for link, fwd in platform.route_hops(*arc):
                key = (link, fwd)
                load[key] = load.get(key, Fraction(0)) + tree.weight
        if reached != members:
            raise ScheduleError(f"{where}: misses {sorted(members - reached)}", fix="span every participant")
        total[tree.root] += tree.weight
    for h in parts:
        if total[h] != forest.throughput:
            raise ScheduleError(f"the weights of root {h!r} sum to {total[h]} bytes/s, not the throughput "
                                f"{forest.throughput}", fix="fix the weights")
    for link_id, link in platform.links.items():
        cap = Fraction(link.bandwidth)
        fw, bw = load.get((link_id, True), 0), load.get((link_id, False), 0)
        over = [(fw + bw, "both directions")] if link.sharing == "shared" else [(fw, "forward"), (bw, "backward")]
        for used, what in over:
            if used > cap:
                raise ScheduleError(f"link {link_id!r} carries {float(used):.6g} bytes/s ({what}), above its "
                                    f"bandwidth {link.bandwidth:.6g}", fix="lower the tree weights")
