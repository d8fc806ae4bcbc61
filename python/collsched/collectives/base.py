"""What every collective shares: the :class:`Collective` interface and the checks of hosts and sizes."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterator, Sequence

import numpy as np

from ..errors import CollectiveError
from ..schedules.values import Value, block

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform

__all__ = ["Collective"]


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
        ``"alltoall"``, ``"alltomany"``, ``"allgather"``, ``"reducescatter"``, ``"allreduce"`` or
        ``"series"`` (a class attribute).
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
    >>> from collsched.collectives import COLLECTIVE_KINDS, Gather
    >>> sorted(COLLECTIVE_KINDS)
    ['allgather', 'allreduce', 'alltoall', 'alltomany', 'broadcast', 'gather', 'reduce', 'reducescatter', 'scatter', 'series']
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
        >>> from collsched.collectives import Gather, Reduce
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
            What each host holds before, and must hold after, this instance;
            a final entry may be a :class:`~collsched.schedules.values.Part`
            (a fraction of a value: a ReduceScatter's block).

        Raises
        ------
        PlatformError
            If a host of the collective is not a host of ``platform``.

        Examples
        --------
        >>> from collsched.collectives import Gather, Reduce
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
        >>> from collsched.collectives import Scatter, Broadcast
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
        >>> from collsched.collectives import Reduce
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
        >>> from collsched.collectives import Scatter, AllToAll
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
        >>> from collsched.collectives import Scatter
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
        >>> from collsched.collectives import Scatter, Broadcast
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
        >>> from collsched.collectives import Scatter, Series
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
        >>> from collsched.collectives import Scatter, Gather
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
        if self.__dict__.get("_valid_on") is platform:  # both are immutable: checked once per platform
            return
        for h in self.hosts:
            if h not in platform.nodes:
                raise CollectiveError(f"{self.kind} participant {h!r} is not in platform {platform.name!r}",
                                      fix=f"hosts are {_preview(platform.hosts)}")
            if not platform.nodes[h].is_host:
                raise CollectiveError(f"{self.kind} participant {h!r} is a router in platform {platform.name!r}",
                                      fix="only hosts take part in collectives")
        columns = getattr(self.base, "message_columns", None)   # an exchange: its pairs as arrays
        if columns is not None:
            src, dst, _ = columns(platform)
            platform.check_reachable_indices(src, dst, needed_by=f"the {self.kind}")
        else:
            platform.check_reachable(self.pairs(), needed_by=f"the {self.kind}")
        object.__setattr__(self, "_valid_on", platform)


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
