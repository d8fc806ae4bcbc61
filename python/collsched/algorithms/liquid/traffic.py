"""Traffics: the transfers of an exchange as sets of links, their loads and duration.

Seed 001 (Gabrielyan and Hersch) models a collective exchange as a *traffic*:
a set of *transfers*, each the set of links of its static route. Two
transfers *congest* when they share a link. The *load* λ(l, X) of a link is
the number of transfers using it, the *duration* Λ(X) the largest load, the
*bottlenecks* the links of load Λ, and the *liquid throughput*
#(X) / Λ(X) times the throughput of one link.

Here a link is a *resource*: one direction of a full-duplex link, or a
shared link as a whole (fat-pipe links never congest and are left out).
A pair that communicates more than once (a series) gives several transfers
with the same links: the paper's Annex A adds virtual links to tell them
apart; indexing the transfers does the same.

On heterogeneous links, a step lasts as long as its slowest transfer, and the
bound is the largest busy time of a resource, Σ bytes / bandwidth
(:attr:`Traffic.busy_bound`), as DESIGN.md asks.

Examples
--------
>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
>>> p = figure1_platform()
>>> X = traffic_of(p, figure1_collective())
>>> len(X), X.duration, sorted(X.bottleneck_names)
(25, 6, ['l11', 'l12'])
>>> X.liquid_throughput(1e8)
416666666.6666667
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from ...collectives import AllToAll
from ...errors import CollectiveError
from ...platform import Link, Node, Platform

__all__ = ["Traffic", "traffic_of", "figure1_platform", "figure1_collective"]

KINDS = ("alltoall", "alltomany")


@dataclass(frozen=True)
class Traffic:
    """A traffic: transfers, the resources (link directions) each one holds, and their loads.

    Parameters
    ----------
    transfers : tuple of (str, str, int)
        ``(src, dst, inst)`` of each transfer.
    routes : tuple of tuple of int
        The resources of each transfer (indices into ``resources``).
    resources : tuple of str
        Names of the resources: a link's id for a shared or directed link
        and for the forward direction (``ends[0]`` to ``ends[1]``) of a
        full-duplex link, ``"l3<"`` for its backward direction.
    times : tuple of float
        Seconds each transfer takes alone (route latency + bytes / bottleneck bandwidth).
    busy : tuple of tuple of float
        Seconds each transfer keeps each of its resources busy (bytes / bandwidth).

    Examples
    --------
    >>> X = Traffic(transfers=(("a", "b", 0), ("c", "b", 0)), routes=((0, 1), (2, 1)),
    ...             resources=("la", "lb", "lc"))
    >>> X.loads, X.duration, X.bottlenecks
    ((1, 2, 1), 2, (1,))
    >>> X.conflicts
    (3, 3)
    """

    transfers: tuple[tuple[str, str, int], ...]
    routes: tuple[tuple[int, ...], ...]
    resources: tuple[str, ...]
    times: tuple[float, ...] = ()
    busy: tuple[tuple[float, ...], ...] = ()

    def __len__(self) -> int:
        return len(self.transfers)

    @cached_property
    def loads(self) -> tuple[int, ...]:
        """λ(l, X) of every resource."""
        loads = [0] * len(self.resources)
        for route in self.routes:
            for r in route:
                loads[r] += 1
        return tuple(loads)

    @property
    def duration(self) -> int:
        """Λ(X), the largest load (0 for an empty traffic)."""
        return max(self.loads, default=0)

    @property
    def bottlenecks(self) -> tuple[int, ...]:
        """Resources whose load is Λ(X)."""
        d = self.duration
        return tuple(i for i, load in enumerate(self.loads) if load == d and d > 0)

    @property
    def bottleneck_names(self) -> tuple[str, ...]:
        """Names of :attr:`bottlenecks`."""
        return tuple(self.resources[i] for i in self.bottlenecks)

    @cached_property
    def link_masks(self) -> tuple[int, ...]:
        """Per transfer, its resources as a bitset (a Python int)."""
        return tuple(sum(1 << r for r in set(route)) for route in self.routes)

    @cached_property
    def conflicts(self) -> tuple[int, ...]:
        """Per transfer, the bitset of transfers it congests with (itself included)."""
        users: list[int] = [0] * len(self.resources)
        for i, route in enumerate(self.routes):
            for r in route:
                users[r] |= 1 << i
        out = []
        for i, route in enumerate(self.routes):
            m = 1 << i
            for r in route:
                m |= users[r]
            out.append(m)
        return tuple(out)

    def liquid_throughput(self, link_throughput: float) -> float:
        """``#(X) / Λ(X)`` times ``link_throughput`` (transfers' bytes per second when each is one unit).

        Examples
        --------
        >>> X = Traffic(transfers=(("a", "b", 0),), routes=((0,),), resources=("l",))
        >>> X.liquid_throughput(86e6)
        86000000.0
        """
        return len(self) / self.duration * link_throughput if self.duration else 0.0

    @property
    def busy_bound(self) -> float:
        """The largest resource busy time in seconds: a lower bound on any schedule's makespan."""
        per = [0.0] * len(self.resources)
        for route, busy in zip(self.routes, self.busy):
            for r, b in zip(route, busy):
                per[r] += b
        return max(per, default=0.0)

    def step_time(self, step) -> float:
        """Seconds a step lasts: its slowest transfer alone (its transfers share no resource).

        Examples
        --------
        >>> X = Traffic(transfers=(("a", "b", 0), ("c", "d", 0)), routes=((0,), (1,)), resources=("x", "y"),
        ...             times=(1.0, 3.0), busy=((1.0,), (3.0,)))
        >>> X.step_time([0, 1])
        3.0
        """
        return max((self.times[i] for i in step), default=0.0)

    def is_simultaneity(self, step) -> bool:
        """True if no two transfers of ``step`` (indices) share a resource.

        Examples
        --------
        >>> X = Traffic(transfers=(("a", "b", 0), ("c", "b", 0)), routes=((0, 1), (2, 1)),
        ...             resources=("la", "lb", "lc"))
        >>> X.is_simultaneity([0]), X.is_simultaneity([0, 1])
        (True, False)
        """
        used = 0
        for i in step:
            if used & self.link_masks[i]:
                return False
            used |= self.link_masks[i]
        return True


def traffic_of(platform: Platform, collective) -> Traffic:
    """The traffic of an all-to-all or all-to-many (or a series of one) on a routed platform.

    Parameters
    ----------
    platform : Platform
        Its static routes give each transfer's links.
    collective : AllToAll or AllToMany
        Or a :class:`~collsched.collectives.Series` of one: each instance
        adds its own transfers (the paper's Annex A).

    Returns
    -------
    Traffic
        Transfers instance-major, then in the collective's message order.

    Raises
    ------
    CollectiveError
        If the collective is not an all-to-all or all-to-many.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> X = traffic_of(p, cs.Series(cs.AllToAll(senders=p.hosts), count=2))
    >>> len(X), X.duration
    (12, 4)
    >>> traffic_of(p, cs.Broadcast(source="h0", targets=p.hosts, size=1))
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: liquid schedules need an alltoall or alltomany, not a broadcast
    """
    base = collective.base
    if base.kind not in KINDS:
        raise CollectiveError(f"liquid schedules need an alltoall or alltomany, not a {base.kind}")
    platform.check_reachable(base.pairs(), needed_by=f"the {base.kind}")
    index: dict[str, int] = {}
    hop_info: dict[tuple[str, bool], tuple[int | None, float, float]] = {}  # hop -> (resource, bandwidth, latency)

    def info(hop):
        link_id, forward = hop
        link = platform.links[link_id]
        res = None
        if link.sharing != "fatpipe":
            name = link_id if forward or link.sharing == "shared" or link.directed else f"{link_id}<"
            res = index.setdefault(name, len(index))
        hop_info[hop] = (res, link.bandwidth, link.latency)
        return hop_info[hop]

    transfers, routes, times, busy = [], [], [], []
    for inst in range(collective.count):
        for src, dst, size in base.messages():
            route, costs, lat, bw = [], [], 0.0, math.inf
            for hop in platform.route_hops(src, dst):
                res, b, l = hop_info.get(hop) or info(hop)
                lat, bw = lat + l, min(bw, b)
                if res is not None:
                    route.append(res)
                    costs.append(size / b)
            transfers.append((src, dst, inst))
            routes.append(tuple(route))
            busy.append(tuple(costs))
            times.append(lat + size / bw)
    return Traffic(tuple(transfers), tuple(routes), tuple(index), tuple(times), tuple(busy))


def figure1_platform(bandwidth: float = 1e8) -> Platform:
    """The network of seed 001's Figure 1: 5 transmitters, 5 receivers, 12 links.

    T1..T3 and R1..R3 hang on switch S1, T4, T5, R4, R5 on S2; ``l1..l5``
    carry T1..T5 to their switch, ``l6..l10`` carry the switch to R1..R5,
    ``l12`` goes from S1 to S2 and ``l11`` from S2 to S1 (as the transfers
    of the paper's Figure 6 and Annex B say, e.g. T4→R1 = {l4, l11, l6}).

    Parameters
    ----------
    bandwidth : float
        Of every link (the paper's example: 100 MB/s).

    Returns
    -------
    Platform

    Examples
    --------
    >>> p = figure1_platform()
    >>> p.route("T4", "R1"), p.route("T1", "R4")
    (('l4', 'l11', 'l6'), ('l1', 'l12', 'l9'))
    """
    side = {1: "S1", 2: "S1", 3: "S1", 4: "S2", 5: "S2"}
    nodes = [Node(f"T{i}") for i in range(1, 6)] + [Node(f"R{i}") for i in range(1, 6)]
    nodes += [Node("S1", kind="router"), Node("S2", kind="router")]
    links = [Link(f"l{i}", bandwidth, 0.0, ends=(f"T{i}", side[i]), directed=True) for i in range(1, 6)]
    links += [Link(f"l{5 + i}", bandwidth, 0.0, ends=(side[i], f"R{i}"), directed=True) for i in range(1, 6)]
    links += [Link("l11", bandwidth, 0.0, ends=("S2", "S1"), directed=True),
              Link("l12", bandwidth, 0.0, ends=("S1", "S2"), directed=True)]
    links += [Link(f"b{i}", bandwidth, 0.0, ends=(side[i], f"T{i}"), directed=True) for i in range(1, 6)]
    links += [Link(f"b{5 + i}", bandwidth, 0.0, ends=(f"R{i}", side[i]), directed=True) for i in range(1, 6)]
    return Platform(nodes, links, name="gabrielyan-figure-1")


def figure1_collective(size: float = 1.0) -> AllToAll:
    """The 25-transfer all-to-all of Figure 1: every T_i sends one packet to every R_j.

    Examples
    --------
    >>> len(figure1_collective().messages())
    25
    """
    return AllToAll(senders=[f"T{i}" for i in range(1, 6)], receivers=[f"R{i}" for i in range(1, 6)], size=size)
