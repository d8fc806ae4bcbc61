"""The reduce: ordered operands combined by a non-commutative, associative operator (seed 000)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Mapping

from ..errors import CollectiveError
from ..schedules.values import partial
from .base import Collective, _hosts, _positive

__all__ = ['Reduce']


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
