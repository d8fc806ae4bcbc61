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
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform
    from .program import Program

__all__ = ["Status", "Bound", "Schedule", "METRICS"]

METRICS = ("makespan", "throughput")


class Status(str, enum.Enum):
    """How good a result is known to be (scipy ``milp`` style)."""

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
    """

    value: float | Fraction
    metric: str
    name: str

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ValueError(f"bound metric {self.metric!r} is not one of {METRICS}")

    def gap(self, achieved: float) -> float:
        """Relative distance of ``achieved`` from the bound (0 means the bound is reached)."""
        if self.metric == "makespan":
            return float(achieved) / float(self.value) - 1.0
        return float(self.value) / float(achieved) - 1.0


def _frozen_params(params: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(params or {}))


@dataclass(frozen=True, kw_only=True)
class Schedule:
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
    """

    shape: ClassVar[str]
    algorithm: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    bound: Bound | None = None
    status: Status = Status.FEASIBLE
    message: str = ""

    def __post_init__(self):
        object.__setattr__(self, "params", _frozen_params(self.params))
        object.__setattr__(self, "status", Status(self.status))

    def lower(self, platform: Platform, collective: Collective, **options) -> Program:
        """The program that executes this schedule for ``collective`` on ``platform``."""
        raise NotImplementedError  # pragma: no cover - every shape overrides it
