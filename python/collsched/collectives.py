"""Collectives: what must be communicated, as pure data.

Each collective names the hosts it involves and the sizes it moves, and says
what every host holds before (:meth:`~Collective.initial_values`) and must hold
after (:meth:`~Collective.final_values`) as symbolic values
(:class:`collsched.schedules.values.Value`), which is what
:func:`collsched.validate` checks programs against.

* :class:`Scatter` — the source sends a distinct message to every target;
* :class:`Gather` — every source sends a distinct message to the target;
* :class:`Broadcast` — the source sends the same message to every target;
* :class:`Reduce` — participants ``P_0 .. P_{n-1}`` (ordered) hold ``v_0 ..
  v_{n-1}``; the target must get ``v_0 ⊕ v_1 ⊕ ... ⊕ v_{n-1}`` for a
  non-commutative, associative ``⊕``; ``v[k..m]`` is a partial result;
* :class:`AllToAll` — every sender sends a distinct message to every receiver
  (a receiver subset gives all-to-some; a size matrix gives non-uniform sizes);
* :class:`AllToMany` — a sparse personalized exchange (COM matrix);
* :class:`Series` — ``count`` independent instances of a collective, pipelined.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(4)
>>> c = Scatter(source="h0", targets=["h1", "h2", "h3"], size=1e6)
>>> c.validate(p)
>>> c.total_bytes
3000000.0
>>> Series(c, count=10).total_bytes
30000000.0
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, Iterator, Mapping, Sequence

import numpy as np

from .errors import CollectiveError
from .schedules.values import Value, block, partial

if TYPE_CHECKING:  # pragma: no cover
    from .platform import Platform

__all__ = ["Collective", "Scatter", "Gather", "Broadcast", "Reduce", "AllToAll", "AllToMany", "Series",
           "COLLECTIVE_KINDS"]


def _positive(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
            or not math.isfinite(value) or value <= 0:
        raise CollectiveError(f"{name} is {value!r}", fix="sizes and costs must be finite and > 0")
    return float(value)


def _hosts(name: str, hosts: Sequence[str], *, allow_empty: bool = False) -> tuple[str, ...]:
    if isinstance(hosts, str):
        raise CollectiveError(f"{name} is the string {hosts!r}", fix="give a list of host ids")
    hosts = tuple(hosts)
    if not hosts and not allow_empty:
        raise CollectiveError(f"{name} is empty", fix="name at least one host")
    seen = set()
    for h in hosts:
        if not isinstance(h, str) or not h:
            raise CollectiveError(f"{name} contains {h!r}", fix="host ids are non-empty strings")
        if h in seen:
            raise CollectiveError(f"{name} lists {h!r} twice")
        seen.add(h)
    return hosts


class Collective(ABC):
    """Common interface of every collective (see the module docstring).

    A collective is frozen data: the hosts it involves and the bytes it
    moves. The methods below say which host pairs must communicate
    (:meth:`pairs`), what every host holds before and after
    (:meth:`values`), what a direct message carries (:meth:`direct_value`)
    and what a value weighs (:meth:`sizer`); schedules are lowered and
    validated through them. Subclasses document only what differs.

    Attributes
    ----------
    kind : str
        ``"scatter"``, ``"gather"``, ``"broadcast"``, ``"reduce"``,
        ``"alltoall"``, ``"alltomany"`` or ``"series"`` (a class attribute).
    hosts : tuple of str
        Every host involved.
    count : int
        Number of instances.
    base : Collective
        What one instance performs.
    total_bytes : float
        Bytes that leave their origin, over all instances.

    Examples
    --------
    >>> from collsched.collectives import COLLECTIVE_KINDS
    >>> sorted(COLLECTIVE_KINDS)
    ['alltoall', 'alltomany', 'broadcast', 'gather', 'reduce', 'scatter', 'series']
    >>> g = Gather(sources=["h1", "h2"], target="h0", size=10)
    >>> isinstance(g, Collective), g.kind, g.hosts, g.count
    (True, 'gather', ('h0', 'h1', 'h2'), 1)
    """

    kind: ClassVar[str]

    @property
    @abstractmethod
    def hosts(self) -> tuple[str, ...]:
        """Every host the collective involves, without repeats, in a stable order."""

    @property
    def count(self) -> int:
        """Number of instances (1, or the count of a :class:`Series`)."""
        return 1

    @property
    def base(self) -> Collective:
        """The collective one instance performs (itself, or a Series' collective)."""
        return self

    @abstractmethod
    def pairs(self) -> Iterator[tuple[str, str]]:
        """Ordered host pairs that must be able to communicate (for reachability).

        Returns
        -------
        iterator of (str, str)
            ``(src, dst)`` pairs, each once, never a host with itself: the
            messages of a scatter, gather, broadcast or all-to-all, and
            ``(participant, target)`` for a reduce.

        Examples
        --------
        >>> list(Gather(sources=["h1", "h2"], target="h0", size=10).pairs())
        [('h1', 'h0'), ('h2', 'h0')]
        >>> list(Reduce(participants=["h0", "h1", "h2"], target="h1", size=8).pairs())
        [('h0', 'h1'), ('h2', 'h1')]
        """

    @abstractmethod
    def instance_values(self, platform: Platform, inst: int) -> tuple[list[tuple[str, Value]], list[tuple[str, Value]]]:
        """``(initial, final)`` lists of ``(host, value)`` for instance ``inst``.

        Parameters
        ----------
        platform : Platform
            Gives host indices (:meth:`~collsched.platform.Platform.host_index`),
            which name the symbolic values.
        inst : int
            The instance, ``0 .. count - 1``; it tags every value ``@inst``.

        Returns
        -------
        initial, final : list of (str, Value)
            What each host holds before, and must hold after, this instance.

        Raises
        ------
        PlatformError
            If a host of the collective is not a host of ``platform``.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> Gather(sources=["h1", "h2"], target="h0", size=10).instance_values(p, 1)
        ([('h1', m[1→0]@1), ('h2', m[2→0]@1)], [('h0', m[1→0]@1), ('h0', m[2→0]@1)])
        >>> Reduce(participants=["h0", "h1", "h2"], target="h0", size=8).instance_values(p, 0)
        ([('h0', v[0..0]@0), ('h1', v[1..1]@0), ('h2', v[2..2]@0)], [('h0', v[0..2]@0)])
        """

    def direct_value(self, platform: Platform, inst: int, src: str, dst: str) -> Value:
        """The value a direct message from ``src`` to ``dst`` carries in instance ``inst``.

        Step and order schedules name their transfers by ``(src, dst, inst)``;
        this is the value such a transfer carries when it names no values of
        its own.

        Parameters
        ----------
        platform : Platform
            Gives the host indices of the value.
        inst : int
            The instance.
        src, dst : str
            Sending and receiving hosts.

        Returns
        -------
        Value
            The block ``m[src→dst]@inst``; for a broadcast, the source's
            message ``m[source→*]@inst`` (whoever forwards it).

        Raises
        ------
        CollectiveError
            If the collective has no such message (e.g. a reduce, whose messages carry partial results).

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> Scatter(source="h0", targets=["h1", "h2"], size=10).direct_value(p, 2, "h0", "h2")
        m[0→2]@2
        >>> Broadcast(source="h0", targets=["h1", "h2"], size=10).direct_value(p, 0, "h1", "h2")
        m[0→*]@0
        >>> Scatter(source="h0", targets=["h1", "h2"], size=10).direct_value(p, 0, "h1", "h2")
        Traceback (most recent call last):
        ...
        collsched.errors.CollectiveError: scatter has no message h1->h2: it sends from 'h0' to its targets
        """
        raise CollectiveError(f"a {self.kind} has no direct message {src}->{dst}",
                              fix="name the values each transfer carries")

    def value_size(self, value: Value) -> float:
        """Bytes of a whole symbolic value (collectives whose sizes need host indices override :meth:`sizer`).

        Parameters
        ----------
        value : Value
            A value of this collective (see :meth:`values`).

        Returns
        -------
        float
            Its size in bytes: ``size`` for a scatter, gather or broadcast,
            :meth:`Reduce.partial_size` for a partial result of a reduce.

        Raises
        ------
        CollectiveError
            For :class:`AllToAll` and :class:`AllToMany`, whose sizes depend
            on host indices; use :meth:`sizer` for every collective.

        Examples
        --------
        >>> from collsched.schedules.values import partial
        >>> r = Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, partial_sizes={(0, 1): 16})
        >>> r.value_size(partial(0, 0, 1)), r.value_size(partial(0, 0, 2))
        (16.0, 8.0)
        """
        raise CollectiveError(f"the size of {value!r} in a {self.kind} depends on the platform's host indices",
                              fix="use collective.sizer(platform)")

    def sizer(self, platform: Platform):
        """A function ``value -> bytes`` for the values of this collective on ``platform``.

        Parameters
        ----------
        platform : Platform
            The platform whose host indices name the values.

        Returns
        -------
        callable
            ``sizer(value) -> float``: bytes of a whole value. The validator
            and the lowerings weigh every message with it.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> a = AllToAll(senders=["h0", "h1", "h2"], size=[[0, 1, 2], [3, 0, 4], [5, 6, 0]])
        >>> weigh = a.sizer(p)
        >>> weigh(a.direct_value(p, 0, "h2", "h1"))
        6.0
        >>> Scatter(source="h0", targets=["h1"], size=10).sizer(p)(block(0, 0, 1))
        10.0
        """
        return self.value_size

    @property
    @abstractmethod
    def total_bytes(self) -> float:
        """Bytes that leave their origin, summed over messages (a lower bound on traffic)."""

    def initial_values(self, platform: Platform) -> list[tuple[str, Value]]:
        """What each host holds before the collective, as ``(host, value)`` pairs.

        Parameters
        ----------
        platform : Platform
            Gives the host indices of the values.

        Returns
        -------
        list of (str, Value)
            Over every instance; a host may appear several times.

        Examples
        --------
        >>> from collsched import topologies
        >>> Scatter(source="h0", targets=["h1", "h2"], size=10).initial_values(topologies.star(3))
        [('h0', m[0→1]@0), ('h0', m[0→2]@0)]
        """
        return self.values(platform)[0]

    def final_values(self, platform: Platform) -> list[tuple[str, Value]]:
        """What each host must hold after the collective, as ``(host, value)`` pairs.

        Parameters
        ----------
        platform : Platform
            Gives the host indices of the values.

        Returns
        -------
        list of (str, Value)
            Over every instance; a host may appear several times.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(3)
        >>> Scatter(source="h0", targets=["h1", "h2"], size=10).final_values(p)
        [('h1', m[0→1]@0), ('h2', m[0→2]@0)]
        >>> Broadcast(source="h0", targets=["h1", "h2"], size=10).final_values(p)
        [('h1', m[0→*]@0), ('h2', m[0→*]@0)]
        """
        return self.values(platform)[1]

    def values(self, platform: Platform) -> tuple[list[tuple[str, Value]], list[tuple[str, Value]]]:
        """``(initial, final)`` over every instance.

        Parameters
        ----------
        platform : Platform
            Gives the host indices of the values.

        Returns
        -------
        initial, final : list of (str, Value)
            :meth:`instance_values` of instances ``0 .. count - 1``, concatenated;
            what :func:`collsched.validate` checks a program against.

        Examples
        --------
        >>> from collsched import topologies
        >>> p = topologies.star(2)
        >>> initial, final = Series(Scatter(source="h0", targets=["h1"], size=10), count=3).values(p)
        >>> initial
        [('h0', m[0→1]@0), ('h0', m[0→1]@1), ('h0', m[0→1]@2)]
        >>> final[-1]
        ('h1', m[0→1]@2)
        """
        initial, final = [], []
        for t in range(self.count):
            i, f = self.instance_values(platform, t)
            initial += i
            final += f
        return initial, final

    def validate(self, platform: Platform) -> None:
        """Check the collective against a platform.

        Parameters
        ----------
        platform : Platform
            The platform the collective will run on.

        Returns
        -------
        None

        Raises
        ------
        CollectiveError
            A participant is unknown or a router.
        PlatformError
            A host that the collective needs is unreachable from another.

        Examples
        --------
        >>> from collsched import topologies
        >>> c = Scatter(source="h0", targets=["h1", "h2"], size=10)
        >>> c.validate(topologies.star(3))
        >>> c.validate(topologies.star(2))
        Traceback (most recent call last):
        ...
        collsched.errors.CollectiveError: scatter participant 'h2' is not in platform 'star-2' (hosts are h0, h1)
        >>> Gather(sources=["h1"], target="sw", size=10).validate(topologies.star(2))
        Traceback (most recent call last):
        ...
        collsched.errors.CollectiveError: gather participant 'sw' is a router in platform 'star-2' (only hosts take part in collectives)
        """
        for h in self.hosts:
            if h not in platform.nodes:
                raise CollectiveError(f"{self.kind} participant {h!r} is not in platform {platform.name!r}",
                                      fix=f"hosts are {_preview(platform.hosts)}")
            if not platform.nodes[h].is_host:
                raise CollectiveError(f"{self.kind} participant {h!r} is a router in platform {platform.name!r}",
                                      fix="only hosts take part in collectives")
        platform.check_reachable(self.pairs(), needed_by=f"the {self.kind}")


def _preview(items: Sequence[str], k: int = 4) -> str:
    shown = ", ".join(items[:k])
    return shown + (", ..." if len(items) > k else "")


@dataclass(frozen=True)
class _FromSource(Collective):
    """What a scatter and a broadcast share: a source, targets, a message size."""

    source: str
    targets: tuple[str, ...]
    size: float

    def __post_init__(self):
        object.__setattr__(self, "targets", _hosts(f"{self.kind} targets", self.targets))
        object.__setattr__(self, "source", _hosts(f"{self.kind} source", [self.source])[0])
        object.__setattr__(self, "size", _positive(f"{self.kind} size", self.size))

    @property
    def hosts(self):
        return (self.source,) + tuple(t for t in self.targets if t != self.source)

    def pairs(self):
        return ((self.source, t) for t in self.targets if t != self.source)

    def value_size(self, value):
        return self.size


@dataclass(frozen=True)
class Scatter(_FromSource):
    """The source sends a distinct message of ``size`` bytes to every target.

    Examples
    --------
    >>> Scatter(source="h0", targets=["h1", "h2"], size=10).hosts
    ('h0', 'h1', 'h2')
    """

    kind: ClassVar[str] = "scatter"

    def instance_values(self, platform, inst):
        s = platform.host_index(self.source)
        blocks = [(t, block(inst, s, platform.host_index(t))) for t in self.targets]
        return [(self.source, v) for _, v in blocks], blocks

    def direct_value(self, platform, inst, src, dst):
        if src != self.source or dst not in self.targets:
            raise CollectiveError(f"scatter has no message {src}->{dst}: it sends from {self.source!r} to its targets")
        return block(inst, platform.host_index(src), platform.host_index(dst))

    @property
    def total_bytes(self):
        return self.size * sum(t != self.source for t in self.targets)


@dataclass(frozen=True)
class Gather(Collective):
    """Every source sends a distinct message of ``size`` bytes to the target.

    Examples
    --------
    >>> Gather(sources=["h1", "h2"], target="h0", size=10).total_bytes
    20.0
    """

    sources: tuple[str, ...]
    target: str
    size: float
    kind: ClassVar[str] = "gather"

    def __post_init__(self):
        object.__setattr__(self, "sources", _hosts("gather sources", self.sources))
        object.__setattr__(self, "target", _hosts("gather target", [self.target])[0])
        object.__setattr__(self, "size", _positive("gather size", self.size))

    @property
    def hosts(self):
        return (self.target,) + tuple(s for s in self.sources if s != self.target)

    def pairs(self):
        return ((s, self.target) for s in self.sources if s != self.target)

    def instance_values(self, platform, inst):
        d = platform.host_index(self.target)
        blocks = [(s, block(inst, platform.host_index(s), d)) for s in self.sources]
        return blocks, [(self.target, v) for _, v in blocks]

    def value_size(self, value):
        return self.size

    def direct_value(self, platform, inst, src, dst):
        if dst != self.target or src not in self.sources:
            raise CollectiveError(f"gather has no message {src}->{dst}: it sends from its sources to {self.target!r}")
        return block(inst, platform.host_index(src), platform.host_index(dst))

    @property
    def total_bytes(self):
        return self.size * sum(s != self.target for s in self.sources)


@dataclass(frozen=True)
class Broadcast(_FromSource):
    """The source sends the same ``size`` bytes to every target.

    Examples
    --------
    >>> Broadcast(source="h0", targets=["h1", "h2"], size=10).total_bytes
    10.0
    """

    kind: ClassVar[str] = "broadcast"

    def instance_values(self, platform, inst):
        v = block(inst, platform.host_index(self.source), -1)
        return [(self.source, v)], [(t, v) for t in self.targets]

    def direct_value(self, platform, inst, src, dst):
        return block(inst, platform.host_index(self.source), -1)

    @property
    def total_bytes(self):
        return self.size


@dataclass(frozen=True)
class Reduce(Collective):
    """Ordered participants hold ``v_0 .. v_{n-1}``; the target gets ``v[0..n-1]``.

    The operator is associative but not commutative: partial results
    ``v[k..m] = v_k ⊕ ... ⊕ v_m`` combine only as ``v[k..l] ⊕ v[l+1..m]``.

    Parameters
    ----------
    participants : sequence of str
        ``P_0 .. P_{n-1}`` in operand order.
    target : str
        The host that must receive ``v[0..n-1]`` (a participant or not).
    size : float
        Bytes of every partial result (``δ`` in seed 000), unless ``partial_sizes`` says otherwise.
    task_cost : float
        Flop of one combination ``T(k,l,m)``, unless ``task_costs`` says otherwise.
    partial_sizes : mapping, optional
        ``(k, m) -> bytes`` for partial results whose size differs.
    task_costs : mapping, optional
        ``(k, l, m) -> flop`` for tasks whose cost differs.

    Examples
    --------
    >>> r = Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, task_cost=100)
    >>> r.partial_size(0, 2), r.task_cost_of(0, 0, 2)
    (8.0, 100.0)
    """

    participants: tuple[str, ...]
    target: str
    size: float
    task_cost: float = 0.0
    partial_sizes: Mapping[tuple[int, int], float] = field(default_factory=dict)
    task_costs: Mapping[tuple[int, int, int], float] = field(default_factory=dict)
    kind: ClassVar[str] = "reduce"

    def __post_init__(self):
        object.__setattr__(self, "participants", _hosts("reduce participants", self.participants))
        object.__setattr__(self, "target", _hosts("reduce target", [self.target])[0])
        object.__setattr__(self, "size", _positive("reduce size", self.size))
        if self.task_cost != 0:
            object.__setattr__(self, "task_cost", _positive("reduce task_cost", self.task_cost))
        n = len(self.participants)
        sizes = {}
        for (k, m), s in dict(self.partial_sizes).items():
            if not 0 <= k <= m < n:
                raise CollectiveError(f"reduce partial_sizes names v[{k}..{m}] outside 0..{n - 1}")
            sizes[(k, m)] = _positive(f"reduce partial size of v[{k}..{m}]", s)
        costs = {}
        for (k, l, m), c in dict(self.task_costs).items():
            if not 0 <= k <= l < m < n:
                raise CollectiveError(f"reduce task_costs names T({k},{l},{m}), not a task of 0..{n - 1}")
            costs[(k, l, m)] = _positive(f"reduce cost of T({k},{l},{m})", c)
        object.__setattr__(self, "partial_sizes", MappingProxyType(sizes))
        object.__setattr__(self, "task_costs", MappingProxyType(costs))

    def __eq__(self, other):
        if not isinstance(other, Reduce):
            return NotImplemented
        return (self.participants, self.target, self.size, self.task_cost, dict(self.partial_sizes),
                dict(self.task_costs)) == (other.participants, other.target, other.size, other.task_cost,
                                            dict(other.partial_sizes), dict(other.task_costs))

    __hash__ = None  # type: ignore[assignment]

    def partial_size(self, k: int, m: int) -> float:
        """Bytes of ``v[k..m]``.

        Parameters
        ----------
        k, m : int
            Operand positions, ``0 <= k <= m < n``.

        Returns
        -------
        float
            ``partial_sizes[(k, m)]`` if given, else ``size``.

        Examples
        --------
        >>> r = Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, partial_sizes={(0, 2): 24})
        >>> r.partial_size(0, 2), r.partial_size(1, 2)
        (24.0, 8.0)
        """
        return self.partial_sizes.get((k, m), self.size)

    def task_cost_of(self, k: int, l: int, m: int) -> float:
        """Flop of ``T(k,l,m)``: ``v[k..m] = v[k..l] ⊕ v[l+1..m]``.

        Parameters
        ----------
        k, l, m : int
            Operand positions, ``0 <= k <= l < m < n``.

        Returns
        -------
        float
            ``task_costs[(k, l, m)]`` if given, else ``task_cost``.

        Examples
        --------
        >>> r = Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, task_cost=100,
        ...            task_costs={(0, 1, 2): 300})
        >>> r.task_cost_of(0, 1, 2), r.task_cost_of(0, 0, 1)
        (300.0, 100.0)
        """
        return self.task_costs.get((k, l, m), self.task_cost)

    @property
    def hosts(self) -> tuple[str, ...]:
        """Participants, then the target if it is not one of them."""
        extra = () if self.target in self.participants else (self.target,)
        return self.participants + extra

    def pairs(self):
        return ((p, self.target) for p in self.participants if p != self.target)

    def instance_values(self, platform, inst):
        n = len(self.participants)
        return ([(h, partial(inst, k, k)) for k, h in enumerate(self.participants)],
                [(self.target, partial(inst, 0, n - 1))])

    def value_size(self, value):
        return self.partial_size(value.a, value.b)

    @property
    def total_bytes(self):
        return self.size * sum(p != self.target for p in self.participants)


@dataclass(frozen=True)
class AllToAll(Collective):
    """Every sender sends a distinct message to every receiver (not to itself).

    Parameters
    ----------
    senders, receivers : sequence of str
        A receiver subset of the senders gives all-to-some.
    size : float or matrix
        Bytes per message, or a ``len(senders) x len(receivers)`` matrix of
        sizes (0 means no message; the diagonal pairs a host with itself and
        is ignored).

    Examples
    --------
    >>> a = AllToAll(senders=["h0", "h1", "h2"], receivers=["h0", "h1"], size=5)
    >>> a.messages()
    [('h0', 'h1', 5.0), ('h1', 'h0', 5.0), ('h2', 'h0', 5.0), ('h2', 'h1', 5.0)]
    """

    senders: tuple[str, ...]
    receivers: tuple[str, ...] | None = None
    size: float | np.ndarray = 1.0
    kind: ClassVar[str] = "alltoall"

    def __post_init__(self):
        senders = _hosts("alltoall senders", self.senders)
        receivers = senders if self.receivers is None else _hosts("alltoall receivers", self.receivers)
        object.__setattr__(self, "senders", senders)
        object.__setattr__(self, "receivers", receivers)
        if np.ndim(self.size) == 0:
            object.__setattr__(self, "size", _positive("alltoall size", self.size))
        else:
            m = np.array(self.size, dtype=float)
            if m.shape != (len(senders), len(receivers)):
                raise CollectiveError(f"alltoall size matrix has shape {m.shape}",
                                      fix=f"give {len(senders)} rows (senders) x {len(receivers)} columns (receivers)")
            if not np.all(np.isfinite(m)) or np.any(m < 0):
                raise CollectiveError("alltoall size matrix has a negative or non-finite entry")
            m.setflags(write=False)
            object.__setattr__(self, "size", m)
        if not self.messages():
            raise CollectiveError("alltoall has no message", fix="give positive sizes between distinct hosts")

    def __eq__(self, other):
        if not isinstance(other, AllToAll):
            return NotImplemented
        return (self.senders, self.receivers) == (other.senders, other.receivers) and \
            np.array_equal(np.asarray(self.size), np.asarray(other.size))

    __hash__ = None  # type: ignore[assignment]

    def messages(self) -> list[tuple[str, str, float]]:
        """``(sender, receiver, bytes)`` for every message, sender-major.

        Returns
        -------
        list of (str, str, float)
            Pairs of distinct hosts with a positive size, senders in their
            order, each sender's receivers in theirs.

        Examples
        --------
        >>> a = AllToAll(senders=["h0", "h1"], size=[[0, 5], [0, 0]])
        >>> a.messages()
        [('h0', 'h1', 5.0)]
        """
        return list(self._messages)

    @cached_property
    def _messages(self) -> tuple[tuple[str, str, float], ...]:
        sizes = np.broadcast_to(np.asarray(self.size, dtype=float), (len(self.senders), len(self.receivers)))
        return tuple((s, r, float(sizes[i, j])) for i, s in enumerate(self.senders)
                     for j, r in enumerate(self.receivers) if s != r and sizes[i, j] > 0)

    @property
    def hosts(self):
        return self.senders + tuple(r for r in self.receivers if r not in self.senders)

    def pairs(self):
        return ((s, r) for s, r, _ in self.messages())

    def instance_values(self, platform, inst):
        blocks = [(s, r, block(inst, platform.host_index(s), platform.host_index(r))) for s, r, _ in self.messages()]
        return [(s, v) for s, _, v in blocks], [(r, v) for _, r, v in blocks]

    def direct_value(self, platform, inst, src, dst):
        a, b = platform.host_index(src), platform.host_index(dst)
        if (a, b) not in self.size_table(platform):
            raise CollectiveError(f"{self.kind} has no message {src}->{dst}")
        return block(inst, a, b)

    def sizer(self, platform):
        table = self.size_table(platform)
        return lambda value: table[(value.a, value.b)]

    def size_table(self, platform: Platform) -> dict[tuple[int, int], float]:
        """``(sender index, receiver index) -> bytes`` in platform host indices (cached for the last platform).

        Parameters
        ----------
        platform : Platform
            Gives the host indices.

        Returns
        -------
        dict of (int, int) to float
            One entry per message; do not modify it (it is cached).

        Raises
        ------
        PlatformError
            If a host of the collective is not a host of ``platform``.

        Examples
        --------
        >>> from collsched import topologies
        >>> a = AllToAll(senders=["h2", "h0"], size=7)
        >>> a.size_table(topologies.star(3))
        {(2, 0): 7.0, (0, 2): 7.0}
        """
        cached = self.__dict__.get("_size_table")
        if cached is None or cached[0] is not platform:
            table = {(platform.host_index(s), platform.host_index(r)): size for s, r, size in self.messages()}
            cached = (platform, table)
            object.__setattr__(self, "_size_table", cached)
        return cached[1]

    @property
    def total_bytes(self):
        return float(sum(size for _, _, size in self.messages()))


@dataclass(frozen=True)
class AllToMany(Collective):
    """A sparse personalized exchange: the COM matrix as ``{(src, dst): bytes}``.

    Examples
    --------
    >>> c = AllToMany({("h0", "h1"): 10, ("h2", "h1"): 20})
    >>> c.hosts, c.total_bytes
    (('h0', 'h1', 'h2'), 30.0)
    """

    sizes: Mapping[tuple[str, str], float]
    kind: ClassVar[str] = "alltomany"

    def __post_init__(self):
        sizes = {}
        for key, size in dict(self.sizes).items():
            if not (isinstance(key, tuple) and len(key) == 2):
                raise CollectiveError(f"alltomany key {key!r} is not a (source, destination) pair")
            src, dst = _hosts("alltomany pair", key)
            sizes[(src, dst)] = _positive(f"alltomany size of {src}->{dst}", size)
        if not sizes:
            raise CollectiveError("alltomany has no message", fix="give at least one (source, destination) pair")
        object.__setattr__(self, "sizes", MappingProxyType(sizes))

    def __eq__(self, other):
        return isinstance(other, AllToMany) and dict(self.sizes) == dict(other.sizes)

    __hash__ = None  # type: ignore[assignment]

    def messages(self) -> list[tuple[str, str, float]]:
        """``(source, destination, bytes)`` for every message, in the order given.

        Returns
        -------
        list of (str, str, float)
            The entries of :attr:`sizes`.

        Examples
        --------
        >>> AllToMany({("h0", "h1"): 10, ("h2", "h1"): 20}).messages()
        [('h0', 'h1', 10.0), ('h2', 'h1', 20.0)]
        """
        return [(s, d, size) for (s, d), size in self.sizes.items()]

    @property
    def hosts(self):
        seen: dict[str, None] = {}
        for s, d in self.sizes:
            seen.setdefault(s)
            seen.setdefault(d)
        return tuple(seen)

    def pairs(self):
        return iter(self.sizes)

    instance_values = AllToAll.instance_values
    size_table = AllToAll.size_table
    sizer = AllToAll.sizer
    direct_value = AllToAll.direct_value

    @property
    def total_bytes(self):
        return float(sum(self.sizes.values()))


@dataclass(frozen=True)
class Series(Collective):
    """``count`` independent instances of ``collective``, to be pipelined.

    Instance ``t`` of every value is tagged ``@t``.

    Examples
    --------
    >>> s = Series(Broadcast(source="h0", targets=["h1"], size=1), count=3)
    >>> s.count, s.base.kind
    (3, 'broadcast')
    """

    collective: Collective
    count: int = 1
    kind: ClassVar[str] = "series"

    def __post_init__(self):
        if isinstance(self.collective, Series):
            raise CollectiveError("a series of series", fix="multiply the counts instead")
        if not isinstance(self.collective, Collective):
            raise CollectiveError(f"series of {self.collective!r}, which is not a collective")
        if isinstance(self.count, bool) or not isinstance(self.count, (int, np.integer)) or self.count < 1:
            raise CollectiveError(f"series count is {self.count!r}", fix="give an integer >= 1")

    @property
    def base(self):
        return self.collective

    @property
    def hosts(self):
        return self.collective.hosts

    def pairs(self):
        return self.collective.pairs()

    def instance_values(self, platform, inst):
        return self.collective.instance_values(platform, inst)

    def value_size(self, value):
        return self.collective.value_size(value)

    def sizer(self, platform):
        return self.collective.sizer(platform)

    def direct_value(self, platform, inst, src, dst):
        return self.collective.direct_value(platform, inst, src, dst)

    @property
    def total_bytes(self):
        return self.count * self.collective.total_bytes


COLLECTIVE_KINDS = {c.kind: c for c in (Scatter, Gather, Broadcast, Reduce, AllToAll, AllToMany, Series)}
