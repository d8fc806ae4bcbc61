"""The collectives of GPU fabrics: :class:`AllGather`.

An all-gather is ``N`` broadcasts at once: participant ``i``'s block is the
broadcast value ``m[i→*]@t`` (``block(t, host_index(P_i), -1)``, as
:class:`~collsched.collectives.Broadcast` names its message), so the
validator checks it with no new kind of value. ReduceScatter and AllReduce
are in :mod:`collsched.collectives.reductions`.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(3)
>>> c = AllGather(participants=["h2", "h0", "h1"], size=1e6)
>>> c.validate(p)
>>> c.total_bytes, c.received_bytes
(3000000.0, 2000000.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ..errors import CollectiveError
from ..schedules.values import Value, block
from .base import Collective, _hosts, _positive

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform

__all__ = ["AllGather"]


@dataclass(frozen=True)
class AllGather(Collective):
    """Each participant contributes ``size`` bytes; every participant ends with all ``N`` blocks.

    Parameters
    ----------
    participants : sequence of str
        ``P_0 .. P_{N-1}``, at least two hosts, each once; the order is the
        order of the blocks in every participant's result (and the ring
        order of the ``ring`` baseline).
    size : float
        Bytes of one participant's block (NCCL's ``sendcount`` times the
        element size); the result is ``N · size`` bytes per participant.

    Raises
    ------
    CollectiveError
        Fewer than two participants, one listed twice, a non-host name, or ``size <= 0``.

    Notes
    -----
    Values: ``P_i`` starts with ``m[i→*]@t`` (host indices of the platform)
    and must end with ``m[j→*]@t`` for every participant ``j``. A direct
    message ``P_i → P_j`` carries ``P_i``'s own block; a relay names the
    blocks it carries. :attr:`total_bytes` counts each block once, as a
    broadcast counts its message once (``N · size``); every participant must
    receive :attr:`received_bytes` ``= (N - 1) · size``, so at least
    ``N · (N - 1) · size`` bytes are delivered in all.

    Examples
    --------
    >>> c = AllGather(participants=["h0", "h1", "h2"], size=8)
    >>> c.hosts, list(c.pairs())[:3]
    (('h0', 'h1', 'h2'), [('h0', 'h1'), ('h0', 'h2'), ('h1', 'h0')])
    >>> AllGather(participants=["h0"], size=8)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: allgather participants has 1 host (name at least two: with one, nothing moves)
    >>> AllGather(participants=["h0", "h1", "h0"], size=8)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: allgather participants lists 'h0' twice
    >>> AllGather(participants=["h0", "h1"], size=0)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: allgather size is 0 (sizes and costs must be finite and > 0)
    """

    participants: tuple[str, ...]
    size: float
    kind: ClassVar[str] = "allgather"

    def __post_init__(self):
        participants = _hosts("allgather participants", self.participants)
        if len(participants) < 2:
            raise CollectiveError(f"allgather participants has {len(participants)} host",
                                  fix="name at least two: with one, nothing moves")
        object.__setattr__(self, "participants", participants)
        object.__setattr__(self, "size", _positive("allgather size", self.size))

    @property
    def hosts(self) -> tuple[str, ...]:
        """The participants, in order."""
        return self.participants

    @property
    def received_bytes(self) -> float:
        """Bytes every participant must receive: ``(N - 1) · size``."""
        return (len(self.participants) - 1) * self.size

    def pairs(self):
        return ((a, b) for a in self.participants for b in self.participants if a != b)

    def block_of(self, platform: Platform, inst: int, host: str) -> Value:
        """The block ``host`` contributes to instance ``inst``: ``m[host→*]@inst``.

        Parameters
        ----------
        platform : Platform
            Gives the host index.
        inst : int
            The instance.
        host : str
            A participant.

        Returns
        -------
        Value

        Raises
        ------
        CollectiveError
            If ``host`` is not a participant.

        Examples
        --------
        >>> from collsched import topologies
        >>> AllGather(participants=["h2", "h0"], size=8).block_of(topologies.star(3), 1, "h2")
        m[2→*]@1
        """
        if host not in self.participants:
            raise CollectiveError(f"allgather has no block of {host!r}", fix="name one of its participants")
        return block(inst, platform.host_index(host), -1)

    def instance_values(self, platform, inst):
        blocks = [(h, self.block_of(platform, inst, h)) for h in self.participants]
        return blocks, [(h, v) for h in self.participants for _, v in blocks]

    def direct_value(self, platform, inst, src, dst):
        if src == dst or dst not in self.participants:
            raise CollectiveError(f"allgather has no message {src}->{dst}", fix="send between distinct participants")
        return self.block_of(platform, inst, src)

    def value_size(self, value):
        return self.size

    @property
    def total_bytes(self):
        return len(self.participants) * self.size
