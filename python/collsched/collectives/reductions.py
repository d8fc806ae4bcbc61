"""The reductions of GPU fabrics: :class:`ReduceScatter` and :class:`AllReduce`.

Participant ``P_i`` holds operand vector ``i``; the operator is commutative
(``commutative=True``, a sum: values are :func:`~collsched.schedules.values.reduced`
sets ``Σ{...}@t`` that combine when disjoint) or only associative
(``commutative=False``, seed 000's operator: values are partial results
``v[k..m]@t`` that combine adjacent and in order). Operands and results are
whole vectors; what moves are fragments of them (pieces of a program's
denominator), reduced fragment by fragment.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(3)
>>> rs = ReduceScatter(participants=["h2", "h0", "h1"], size=1e6)
>>> rs.validate(p)
>>> initial, final = rs.instance_values(p, 0)
>>> initial[0], final[1]
(('h2', Σ{0}@0), ('h0', Σ{0..2}@0[1/3:2/3]))
>>> AllReduce(participants=["h0", "h1"], size=8, commutative=False).instance_values(p, 1)
([('h0', v[0..0]@1), ('h1', v[1..1]@1)], [('h0', v[0..1]@1), ('h1', v[0..1]@1)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from ..errors import CollectiveError
from ..schedules.values import Part, Value, partial, reduced
from .base import Collective, _hosts, _positive

__all__ = ["ReduceScatter", "AllReduce"]


@dataclass(frozen=True)
class _Reduction(Collective):
    """What a ReduceScatter and an AllReduce share: participants, sizes, the operator."""

    participants: tuple[str, ...]
    size: float
    task_cost: float = 0.0
    commutative: bool = True

    def __post_init__(self):
        participants = _hosts(f"{self.kind} participants", self.participants)
        if len(participants) < 2:
            raise CollectiveError(f"{self.kind} participants has {len(participants)} host",
                                  fix="name at least two: with one, nothing moves")
        object.__setattr__(self, "participants", participants)
        object.__setattr__(self, "size", _positive(f"{self.kind} size", self.size))
        cost = self.task_cost
        if isinstance(cost, bool) or not isinstance(cost, (int, float, np.floating, np.integer)) \
                or not math.isfinite(cost) or cost < 0:
            raise CollectiveError(f"{self.kind} task_cost is {cost!r}", fix="give a finite number of flop >= 0")
        object.__setattr__(self, "task_cost", float(cost))
        if not isinstance(self.commutative, (bool, np.bool_)):
            raise CollectiveError(f"{self.kind} commutative is {self.commutative!r}", fix="give True or False")
        object.__setattr__(self, "commutative", bool(self.commutative))

    @property
    def hosts(self) -> tuple[str, ...]:
        """The participants, in operand order."""
        return self.participants

    def pairs(self):
        return ((a, b) for a in self.participants for b in self.participants if a != b)

    def operand(self, inst: int, i: int) -> Value:
        """Operand ``i`` of instance ``inst`` (what ``P_i`` starts with).

        Parameters
        ----------
        inst : int
            The instance.
        i : int
            Operand (participant) position, ``0 .. N-1``.

        Returns
        -------
        Value
            ``Σ{i}@inst`` if commutative, else ``v[i..i]@inst``.

        Raises
        ------
        CollectiveError
            If ``i`` is not a participant position.

        Examples
        --------
        >>> AllReduce(participants=["h0", "h1"], size=8).operand(0, 1)
        Σ{1}@0
        >>> AllReduce(participants=["h0", "h1"], size=8, commutative=False).operand(2, 1)
        v[1..1]@2
        """
        n = len(self.participants)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < n:
            raise CollectiveError(f"{self.kind} has no operand {i!r}", fix=f"operand positions are 0..{n - 1}")
        return reduced(inst, [int(i)]) if self.commutative else partial(inst, int(i), int(i))

    def result(self, inst: int) -> Value:
        """The full reduction of instance ``inst``: ``Σ{0..N-1}@inst`` or ``v[0..N-1]@inst``.

        Parameters
        ----------
        inst : int
            The instance.

        Returns
        -------
        Value

        Examples
        --------
        >>> ReduceScatter(participants=["h0", "h1", "h2"], size=8).result(0)
        Σ{0..2}@0
        """
        n = len(self.participants)
        return reduced(inst, range(n)) if self.commutative else partial(inst, 0, n - 1)

    def direct_value(self, platform, inst, src, dst):
        """The operand of ``src`` (a direct message carries fragments of it)."""
        if src == dst or src not in self.participants or dst not in self.participants:
            raise CollectiveError(f"{self.kind} has no message {src}->{dst}",
                                  fix="send between distinct participants")
        return self.operand(inst, self.participants.index(src))

    def task_cost_of(self, k: int, l: int, m: int) -> float:
        """Flop of combining two whole vectors (``v[k..l] ⊕ v[l+1..m]``, or any two disjoint sets): ``task_cost``.

        Parameters
        ----------
        k, l, m : int
            Operand positions (the cost does not depend on them).

        Returns
        -------
        float

        Examples
        --------
        >>> AllReduce(participants=["h0", "h1"], size=8, task_cost=5).task_cost_of(0, 0, 1)
        5.0
        """
        return self.task_cost


@dataclass(frozen=True)
class ReduceScatter(_Reduction):
    """Participant ``P_j`` ends with block ``j`` (``size`` bytes) of the reduction of everyone's vector.

    Parameters
    ----------
    participants : sequence of str
        ``P_0 .. P_{N-1}``, at least two hosts, each once; ``P_i`` holds
        operand ``i`` and receives block ``i`` of the result.
    size : float
        Bytes of one participant's result block (NCCL's ``recvcount`` times
        the element size); the operand vectors are ``N · size`` bytes.
    task_cost : float
        Flop to combine two whole (``N · size``-byte) vectors; a fragment
        costs pro rata. Default 0.
    commutative : bool
        True (default): a commutative operator (values ``Σ{...}``);
        False: seed 000's ordered operator (values ``v[k..m]``).

    Raises
    ------
    CollectiveError
        Fewer than two participants, one listed twice, a non-host name,
        ``size <= 0`` or ``task_cost < 0``.

    Notes
    -----
    Values: ``P_i`` starts with its operand (:meth:`operand`) and must end
    with the fragment ``[j/N, (j+1)/N)`` of :meth:`result`, a
    :class:`~collsched.schedules.values.Part`; a program expresses it only
    with a denominator that is a multiple of ``N``. Every value weighs
    ``N · size`` bytes whole. :attr:`total_bytes` is ``N · (N - 1) · size``:
    every fragment ``j`` of ``P_i``'s vector (``j != i``) must leave ``P_i``,
    alone or combined.

    Examples
    --------
    >>> c = ReduceScatter(participants=["h0", "h1", "h2"], size=8, task_cost=30)
    >>> c.total_bytes, c.value_size(c.result(0)), c.block(1)
    (48.0, 24.0, (Fraction(1, 3), Fraction(2, 3)))
    >>> ReduceScatter(participants=["h0"], size=8)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: reducescatter participants has 1 host (name at least two: with one, nothing moves)
    >>> ReduceScatter(participants=["h0", "h1"], size=8, task_cost=-1)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: reducescatter task_cost is -1 (give a finite number of flop >= 0)
    """

    kind: ClassVar[str] = "reducescatter"

    def block(self, j: int) -> tuple[Fraction, Fraction]:
        """The fraction ``[j/N, (j+1)/N)`` of the result that ``P_j`` must end with.

        Parameters
        ----------
        j : int
            Participant position.

        Returns
        -------
        (Fraction, Fraction)

        Examples
        --------
        >>> ReduceScatter(participants=["a", "b"], size=8).block(0)
        (Fraction(0, 1), Fraction(1, 2))
        """
        n = len(self.participants)
        return Fraction(j, n), Fraction(j + 1, n)

    def instance_values(self, platform, inst):
        result = self.result(inst)
        return ([(h, self.operand(inst, i)) for i, h in enumerate(self.participants)],
                [(h, Part(result, *self.block(j))) for j, h in enumerate(self.participants)])

    def value_size(self, value):
        return len(self.participants) * self.size

    @property
    def total_bytes(self):
        n = len(self.participants)
        return n * (n - 1) * self.size


@dataclass(frozen=True)
class AllReduce(_Reduction):
    """Every participant ends with the whole reduction of everyone's ``size``-byte vector.

    Parameters
    ----------
    participants : sequence of str
        ``P_0 .. P_{N-1}``, at least two hosts, each once; ``P_i`` holds operand ``i``.
    size : float
        Bytes of the whole vector (operand and result).
    task_cost : float
        Flop to combine two whole vectors; a fragment costs pro rata. Default 0.
    commutative : bool
        True (default): a commutative operator (values ``Σ{...}``);
        False: seed 000's ordered operator (values ``v[k..m]``).

    Raises
    ------
    CollectiveError
        Fewer than two participants, one listed twice, a non-host name,
        ``size <= 0`` or ``task_cost < 0``.

    Notes
    -----
    Values: ``P_i`` starts with its operand (:meth:`operand`) and must end
    with all of :meth:`result`, in fragments of any split. Every value
    weighs ``size`` bytes whole. :attr:`total_bytes` is ``N · size``: every
    operand leaves its participant, alone or combined (as a reduce counts
    each operand once).

    Examples
    --------
    >>> c = AllReduce(participants=["h0", "h1", "h2"], size=8)
    >>> c.total_bytes, c.value_size(c.operand(0, 2))
    (24.0, 8.0)
    >>> AllReduce(participants=["h0", "h1", "h0"], size=8)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: allreduce participants lists 'h0' twice
    >>> AllReduce(participants=["h0", "h1"], size=0)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: allreduce size is 0 (sizes and costs must be finite and > 0)
    """

    kind: ClassVar[str] = "allreduce"

    def instance_values(self, platform, inst):
        result = self.result(inst)
        return ([(h, self.operand(inst, i)) for i, h in enumerate(self.participants)],
                [(h, result) for h in self.participants])

    def value_size(self, value):
        return self.size

    @property
    def total_bytes(self):
        return len(self.participants) * self.size
