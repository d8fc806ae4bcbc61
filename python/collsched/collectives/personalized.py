"""Personalized collectives: every message is distinct (scatter, gather, all-to-all, all-to-many)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, ClassVar, Mapping

import numpy as np

from ..errors import CollectiveError
from ..schedules.values import block
from .base import Collective, _FromSource, _hosts, _positive

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform

__all__ = ['Scatter', 'Gather', 'AllToAll', 'AllToMany']


def _frozen_array(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


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
        if not self._grid()[0].shape[0]:
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

    def _grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sender position, receiver position, bytes) of every message, sender-major (computed once)."""
        cached = self.__dict__.get("_grid_cache")
        if cached is None:
            sizes = np.broadcast_to(np.asarray(self.size, dtype=float), (len(self.senders), len(self.receivers)))
            ids = {h: i for i, h in enumerate(dict.fromkeys(self.senders + self.receivers))}
            same = np.array([ids[s] for s in self.senders])[:, None] == \
                np.array([ids[r] for r in self.receivers])[None, :]
            rows, cols = np.nonzero((sizes > 0) & ~same)   # row-major: sender-major, each sender's receivers in order
            cached = tuple(_frozen_array(a) for a in (rows, cols, sizes[rows, cols]))
            object.__setattr__(self, "_grid_cache", cached)
        return cached

    @cached_property
    def _messages(self) -> tuple[tuple[str, str, float], ...]:
        rows, cols, size = self._grid()
        return tuple(zip([self.senders[i] for i in rows.tolist()], [self.receivers[j] for j in cols.tolist()],
                         size.tolist()))

    def message_columns(self, platform: Platform) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`messages` as arrays in ``platform``'s host indices: ``(src, dst, bytes)`` (cached for the last platform).

        Parameters
        ----------
        platform : Platform
            Gives the host indices.

        Returns
        -------
        src, dst : int64 arrays
        size : float64 array
            Message ``k`` of :meth:`messages` goes from host ``src[k]`` to
            host ``dst[k]`` with ``size[k]`` bytes; read-only (cached).

        Raises
        ------
        PlatformError
            If a host of the collective is not a host of ``platform``.

        Examples
        --------
        >>> from collsched import topologies
        >>> a = AllToAll(senders=["h2", "h0"], receivers=["h0", "h1"], size=[[7, 0], [0, 5]])
        >>> [x.tolist() for x in a.message_columns(topologies.star(3))]
        [[2, 0], [0, 1], [7.0, 5.0]]
        """
        cached = self.__dict__.get("_columns_cache")
        if cached is None or cached[0] is not platform:
            rows, cols, size = self._grid()
            senders = np.array([platform.host_index(h) for h in self.senders], dtype=np.int64)
            receivers = np.array([platform.host_index(h) for h in self.receivers], dtype=np.int64)
            cached = (platform, (_frozen_array(senders[rows]), _frozen_array(receivers[cols]), size))
            object.__setattr__(self, "_columns_cache", cached)
        return cached[1]

    @property
    def hosts(self):
        senders = set(self.senders)
        return self.senders + tuple(r for r in self.receivers if r not in senders)

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
        return float(sum(self._grid()[2].tolist()))


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

    def message_columns(self, platform: Platform) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`messages` as arrays in ``platform``'s host indices (see :meth:`AllToAll.message_columns`).

        Examples
        --------
        >>> from collsched import topologies
        >>> [x.tolist() for x in AllToMany({("h2", "h1"): 10}).message_columns(topologies.star(3))]
        [[2], [1], [10.0]]
        """
        cached = self.__dict__.get("_columns_cache")
        if cached is None or cached[0] is not platform:
            src = np.array([platform.host_index(s) for s, _ in self.sizes], dtype=np.int64)
            dst = np.array([platform.host_index(d) for _, d in self.sizes], dtype=np.int64)
            size = np.array(list(self.sizes.values()), dtype=np.float64)
            cached = (platform, tuple(_frozen_array(a) for a in (src, dst, size)))
            object.__setattr__(self, "_columns_cache", cached)
        return cached[1]

    instance_values = AllToAll.instance_values
    size_table = AllToAll.size_table
    sizer = AllToAll.sizer
    direct_value = AllToAll.direct_value

    @property
    def total_bytes(self):
        return float(sum(self.sizes.values()))
