"""What every schedule shape shares: the algorithm that made it, its bound, its status.

Examples
--------
>>> b = Bound(2.0, "makespan", "largest send sum")
>>> b.gap(2.5)
0.25
>>> Bound(10, "throughput", "LP optimum").gap(8)
0.25
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from ..errors import ScheduleError

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform
    from .program import Program

__all__ = ["Status", "Bound", "Schedule", "METRICS"]

METRICS = ("makespan", "throughput")


class Status(str, enum.Enum):
    """How good a result is known to be (scipy ``milp`` style).

    Members: ``OPTIMAL`` (proved optimal for its model), ``FEASIBLE`` (valid,
    optimality unknown), ``LIMIT`` (a search stopped at a time or node limit
    with the best result so far), ``INFEASIBLE`` (no result exists) and
    ``ERROR`` (the solver failed). A member is also its string value, as
    files store it.

    Examples
    --------
    >>> Status("optimal") is Status.OPTIMAL
    True
    >>> Status.LIMIT == "limit", [s.value for s in Status]
    (True, ['optimal', 'feasible', 'limit', 'infeasible', 'error'])
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    LIMIT = "limit"
    INFEASIBLE = "infeasible"
    ERROR = "error"


@dataclass(frozen=True)
class Bound:
    """A bound a schedule is measured against.

    Parameters
    ----------
    value : float or Fraction
        A lower bound on the makespan (seconds) or an upper bound on the
        throughput (operations per second).
    metric : {"makespan", "throughput"}
    name : str
        What the bound is (e.g. "largest per-node send sum").

    Raises
    ------
    ValueError
        If ``metric`` is not one of :data:`METRICS`.

    Examples
    --------
    >>> b = Bound(2.0, "makespan", "largest send sum")
    >>> b.value, b.metric
    (2.0, 'makespan')
    >>> Bound(1.0, "latency", "x")
    Traceback (most recent call last):
    ...
    ValueError: bound metric 'latency' is not one of ('makespan', 'throughput')
    """

    value: float | Fraction
    metric: str
    name: str

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ValueError(f"bound metric {self.metric!r} is not one of {METRICS}")

    def gap(self, achieved: float) -> float:
        """Relative distance of ``achieved`` from the bound (0 means the bound is reached).

        Parameters
        ----------
        achieved : float
            The makespan (s) or throughput (operations/s) a schedule achieves.

        Returns
        -------
        float
            ``achieved / value - 1`` for a makespan, ``value / achieved - 1``
            for a throughput: how much worse than the bound, as a fraction
            (never negative when the bound is valid).

        Examples
        --------
        >>> Bound(2.0, "makespan", "largest send sum").gap(3.0)
        0.5
        >>> Bound(10, "throughput", "LP optimum").gap(10)
        0.0
        """
        if self.metric == "makespan":
            return float(achieved) / float(self.value) - 1.0
        return float(self.value) / float(achieved) - 1.0


def _frozen_params(params: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(params or {}))


@dataclass(frozen=True, kw_only=True)
class Schedule(ABC):
    """Base of the four shapes; subclasses add their data and :meth:`lower`.

    Attributes
    ----------
    algorithm : str
        The registered name of what made it (``binomial``, ``liquid``, ...).
    params : mapping
        The options it was made with.
    bound : Bound or None
        The bound it was planned against, where known.
    status : Status
        OPTIMAL when proved optimal for its model, else FEASIBLE (or LIMIT when a search stopped early).
    message : str
        The planner's or solver's own words.
    collective : Collective or None
        The collective it answers (set by :func:`collsched.plan`), so that
        ``lower(platform)`` and ``cs.simulate(platform, schedule)`` need not be
        told again; not part of equality.

    Examples
    --------
    >>> import collsched as cs
    >>> s = cs.plan(cs.topologies.star(3), cs.Gather(sources=["h1", "h2"], target="h0", size=1e3), algorithm="binomial")
    >>> s.collective.kind
    'gather'
    >>> s.lower(cs.topologies.star(3)).n_messages
    2
    >>> isinstance(s, Schedule), s.shape, s.algorithm, s.status
    (True, 'tree', 'binomial', <Status.FEASIBLE: 'feasible'>)
    >>> s.bound is None, dict(s.params), s.message
    (True, {}, '')
    """

    shape: ClassVar[str]
    algorithm: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    bound: Bound | None = None
    status: Status = Status.FEASIBLE
    message: str = ""
    collective: Collective | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "params", _frozen_params(self.params))
        object.__setattr__(self, "status", Status(self.status))

    def answering(self, collective: Collective | None) -> Collective:
        """``collective`` if given, else the one the schedule was planned for.

        Raises
        ------
        ScheduleError
            If neither is known.

        Examples
        --------
        >>> from collsched.collectives import Broadcast
        >>> from collsched.schedules import TreeSchedule
        >>> TreeSchedule(root="a").answering(None)
        Traceback (most recent call last):
        ...
        collsched.errors.ScheduleError: the schedule does not know its collective (pass it, or plan with collsched.plan)
        >>> b = Broadcast(source="a", targets=["b"], size=1)
        >>> TreeSchedule(root="a", collective=b).answering(None) is b
        True
        """
        if collective is not None:
            return collective
        if self.collective is None:
            raise ScheduleError("the schedule does not know its collective", fix="pass it, or plan with collsched.plan")
        return self.collective

    @abstractmethod
    def lower(self, platform: Platform, collective: Collective | None = None, **options) -> Program:
        """The program that executes this schedule for ``collective`` on ``platform``.

        Parameters
        ----------
        platform : Platform
            Its hosts are the program's ranks, in rank order.
        collective : Collective, optional
            The collective the schedule was planned for (a series lowers
            every instance); by default :attr:`collective`.
        **options
            Shape-specific lowering options, e.g. ``sync`` of
            :meth:`StepSchedule.lower <collsched.schedules.StepSchedule.lower>`.

        Returns
        -------
        Program
            Check it with :func:`collsched.validate`.

        Raises
        ------
        ScheduleError
            If the schedule cannot carry the collective (wrong root, a host
            it does not reach, a kind the shape cannot lower).
        CollectiveError
            If a transfer names a message the collective does not have.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
        >>> prog = cs.plan(p, c, algorithm="linear").lower(p, c)
        >>> prog
        <Program 'linear': 3 ranks, 4 ops, 2 messages>
        >>> prog.op(2)
        Op(2: h0 send msg 1 to h2 1000B [m[0→*]@0[0:1]] after (0,))
        """
