"""The multi-port capacity digraph of a platform, in exact integers, and its maximum flows.

Every direction a link can carry is one arc whose capacity is the link's
bandwidth (bytes/s): a full-duplex link gives two arcs, a ``directed`` link
one. A ``shared`` link (one capacity for both directions) gives two arcs of
its whole bandwidth to the *bound* (a relaxation: no schedule puts more on
either direction) and of half of it to the *schedule* (so that any use of
the two halves fits). Nodes are the hosts and routers; the participants
come first (indices ``0 .. N-1``). For a ReduceScatter the arcs are
reversed (data flows against them): an in-tree of the platform is an
out-tree of the reversed graph.

Capacities become integers exactly: every bandwidth is read as the exact
rational value of its float (:class:`fractions.Fraction`) and multiplied by
the least common multiple of the denominators (``scale``), so that
``bandwidth == capacity / scale`` holds exactly.

Examples
--------
>>> from collsched import topologies
>>> g = capacity_graph(topologies.star(3, bandwidth=2.5), ["h0", "h1", "h2"])
>>> g.nodes, g.scale, g.capacity[:2]
(('h0', 'h1', 'h2', 'sw'), 2, (5, 5))
>>> [(g.nodes[a], g.nodes[b]) for a, b in zip(g.tails[:2], g.heads[:2])]
[('h0', 'sw'), ('sw', 'h0')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from ..._core import FlowNetwork
from ...errors import CollectiveError, PlatformError
from ...platform.model import Platform

__all__ = ["CapacityGraph", "capacity_graph", "KINDS", "flow_network"]

KINDS = ("allgather", "reducescatter")


@dataclass(frozen=True)
class CapacityGraph:
    """A platform's capacity digraph for one collective kind (see the module).

    Attributes
    ----------
    kind : str
        ``"allgather"`` (arcs as the links carry data) or ``"reducescatter"`` (reversed).
    participants : tuple of str
        The compute nodes, ``nodes[:N]``.
    nodes : tuple of str
        Participants first, then every other node (routers, other hosts).
    tails, heads : tuple of int
        Arc ends (node indices), in the direction the collective's trees use.
    hops : tuple of (str, bool)
        The physical ``(link id, forward)`` of each arc (for a ReduceScatter, the
        direction the data really flows, the reverse of the arc).
    capacity : tuple of int
        The schedule's capacity of each arc, ``bandwidth * scale`` (half of it for a shared link).
    relaxed : tuple of int
        The bound's capacity (the whole bandwidth also for a shared link).
    scale : int
        Integer capacity units per byte/s.
    """

    kind: str
    participants: tuple[str, ...]
    nodes: tuple[str, ...]
    tails: tuple[int, ...]
    heads: tuple[int, ...]
    hops: tuple[tuple[str, bool], ...]
    capacity: tuple[int, ...]
    relaxed: tuple[int, ...]
    scale: int

    @property
    def n_compute(self) -> int:
        """N, the number of participants."""
        return len(self.participants)


def _check_participants(platform: Platform, participants: Sequence[str], kind: str) -> tuple[str, ...]:
    if kind not in KINDS:
        raise CollectiveError(f"unknown collective kind {kind!r}", fix=f"use one of {', '.join(KINDS)}")
    parts = tuple(participants)
    if len(parts) < 2:
        raise CollectiveError(f"a {kind} needs at least two participants, got {len(parts)}",
                              fix="list two or more hosts")
    seen: set[str] = set()
    for h in parts:
        node = platform.nodes.get(h) if isinstance(h, str) else None
        if node is None:
            raise CollectiveError(f"participant {h!r} is not a node of platform {platform.name!r}",
                                  fix="name hosts of the platform")
        if not node.is_host:
            raise CollectiveError(f"participant {h!r} is a router of platform {platform.name!r}, not a host",
                                  fix="list hosts only (routers forward, they do not compute)")
        if h in seen:
            raise CollectiveError(f"participant {h!r} is listed twice", fix="list each host once")
        seen.add(h)
    return parts


def _reach(n: int, arcs: list[tuple[int, int]], start: int) -> set[int]:
    out: list[list[int]] = [[] for _ in range(n)]
    for a, b in arcs:
        out[a].append(b)
    seen, stack = {start}, [start]
    while stack:
        for b in out[stack.pop()]:
            if b not in seen:
                seen.add(b)
                stack.append(b)
    return seen


def capacity_graph(platform: Platform, participants: Sequence[str], *, kind: str = "allgather") -> CapacityGraph:
    """The exact integer capacity digraph of ``platform`` for a collective among ``participants``.

    Parameters
    ----------
    platform : Platform
        Every link must have ends.
    participants : sequence of str
        Distinct hosts, at least two.
    kind : {"allgather", "reducescatter"}

    Returns
    -------
    CapacityGraph

    Raises
    ------
    CollectiveError
        A participant that is a router, not a node, or listed twice; fewer than two; an unknown kind.
    PlatformError
        A link without ends or of ``fatpipe`` sharing (no finite capacity per
        direction); a participant that cannot reach another (both named).

    Examples
    --------
    >>> from collsched import topologies
    >>> g = capacity_graph(topologies.dgx2(2), [f"h{i}" for i in range(32)])
    >>> len(g.nodes), len(g.capacity), g.scale
    (34, 80, 1)
    >>> capacity_graph(topologies.star(3), ["h0", "sw"])
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: participant 'sw' is a router of platform 'star-3', not a host (list hosts only (routers forward, they do not compute))
    """
    parts = _check_participants(platform, participants, kind)
    inside = set(parts)
    nodes = parts + tuple(v for v in platform.nodes if v not in inside)
    index = {v: i for i, v in enumerate(nodes)}
    arcs: list[tuple[int, int]] = []
    hops: list[tuple[str, bool]] = []
    bw: list[Fraction] = []
    relaxed: list[Fraction] = []
    for link in platform.links.values():
        if link.ends is None:
            raise PlatformError(f"link {link.id!r} has no ends", where=f"platform {platform.name!r}",
                                fix="give every link its two ends (the capacity model needs the graph)")
        if link.sharing == "fatpipe":
            raise PlatformError(f"link {link.id!r} is a fatpipe (no capacity per direction)",
                                where=f"platform {platform.name!r}", fix="use full_duplex or shared links")
        a, b = (index[x] for x in link.ends)
        c = Fraction(link.bandwidth)
        for (u, v), fwd in ((((a, b), True),) if link.directed else (((a, b), True), ((b, a), False))):
            arcs.append((u, v) if kind == "allgather" else (v, u))
            hops.append((link.id, fwd))
            relaxed.append(c)
            bw.append(c / 2 if link.sharing == "shared" and not link.directed else c)
    for start, forward in ((0, True), (0, False)):
        seen = _reach(len(nodes), arcs if forward else [(b, a) for a, b in arcs], start)
        for i in range(1, len(parts)):
            if i not in seen:
                src, dst = (parts[0], parts[i]) if forward else (parts[i], parts[0])
                if kind == "reducescatter":
                    src, dst = dst, src
                raise PlatformError(f"participant {dst!r} cannot be reached from participant {src!r}",
                                    where=f"platform {platform.name!r}", fix="connect them")
    scale = math.lcm(1, *(x.denominator for x in bw + relaxed))
    return CapacityGraph(kind, parts, nodes, tuple(a for a, _ in arcs), tuple(b for _, b in arcs), tuple(hops),
                         tuple(int(x * scale) for x in bw), tuple(int(x * scale) for x in relaxed), scale)


def flow_network(n: int, tails: Sequence[int], heads: Sequence[int], capacity: Sequence[int]) -> FlowNetwork:
    """A :class:`collsched._core.FlowNetwork` of ``n`` nodes plus a super source (node ``n``) and the given arcs.

    Arc ``i`` of the network is arc ``i`` of the lists; the super source has no arc yet.

    Examples
    --------
    >>> net = flow_network(2, [0], [1], [7])
    >>> net.n_nodes, net.max_flow([0], [1])
    (3, 7)
    """
    net = FlowNetwork(n + 1)
    for a, b, c in zip(tails, heads, capacity):
        net.add_arc(a, b, c)
    return net
