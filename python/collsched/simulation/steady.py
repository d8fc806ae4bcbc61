"""The steady-state rate of a series, measured by simulation: the marginal rate between two series lengths.

A series of ``K`` operations takes ``start-up + K / rate + clean-up``; the
start-up and clean-up do not depend on ``K``, so two lengths ``K1 < K2``
give the steady-state rate as ``(K2 - K1) / (makespan(K2) - makespan(K1))``
(seed 000, §3.4: the periodic schedule reaches the LP throughput ``TP``
asymptotically; this is the number that must equal ``TP``). The rate of
the ``K`` operations themselves, start-up and clean-up included, is
``K / makespan(K)``; it approaches the steady-state rate as ``K`` grows.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1, latency=0)
>>> c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=1), count=10)
>>> s = cs.plan(p, c, algorithm="steady_state")
>>> r = steady_rate(p, s, model=cs.models.OnePort(cost="edges"))
>>> abs(r.rate / s.throughput - 1) < 1e-9, r.counts
(True, (20, 40))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["SteadyRate", "steady_rate", "STEADY_PERIODS"]

#: Series lengths, in periods of a periodic schedule, between which the marginal rate is measured (issue's K1, K2).
STEADY_PERIODS = (20, 40)


@dataclass(frozen=True)
class SteadyRate:
    """Two simulated series lengths and the rates they give.

    Attributes
    ----------
    counts : (int, int)
        The series lengths ``K1 < K2`` simulated.
    makespans : (float, float)
        Their simulated makespans (s).
    rate : Fraction
        ``(K2 - K1) / (makespan(K2) - makespan(K1))``, operations per second
        in steady state (exact arithmetic on the float makespans, so that a
        rate equal to an exact throughput compares equal when the makespans
        are exact; compare with a relative tolerance otherwise).
    series_rate : float
        ``K2 / makespan(K2)``: the rate of the ``K2`` operations, start-up
        and clean-up included.
    startup : float
        Seconds the ``K2`` operations take beyond ``K2 / rate`` (start-up
        plus clean-up).

    Examples
    --------
    >>> r = SteadyRate((1, 2), (3.0, 4.0), Fraction(1), 0.5)
    >>> r.startup
    2.0
    """

    counts: tuple[int, int]
    makespans: tuple[float, float]
    rate: Fraction
    series_rate: float

    @property
    def startup(self) -> float:
        return self.makespans[1] - float(self.counts[1] / self.rate) if self.rate else float("inf")


def steady_rate(platform, schedule, collective=None, *, model, counts: tuple[int, int] | None = None,
                engine: str = "core") -> SteadyRate:
    """Simulate ``schedule`` for two series lengths and return the steady-state (marginal) rate.

    Parameters
    ----------
    platform : Platform
    schedule : Schedule
        A schedule of a :class:`~collsched.collectives.Series` (any shape:
        a periodic schedule, or a per-instance one lowered per operation).
    collective : Series, optional
        The series (its ``count`` is replaced); by default the schedule's own.
    model : Model
        The simulator's model (keyword-only, no default: the rate is only
        meaningful under a named model).
    counts : (int, int), optional
        ``K1 < K2``; by default :data:`STEADY_PERIODS` periods' worth of
        operations for a periodic schedule (``ops_per_period`` each), else
        the same numbers of operations.
    engine : str
        Passed to :func:`collsched.simulate`.

    Returns
    -------
    SteadyRate

    Raises
    ------
    ValueError
        If ``counts`` is not two increasing positive integers, or the
        collective is not a series.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> c = cs.Series(cs.Reduce(participants=["h0", "h1"], target="h0", size=1, task_cost=1), count=4)
    >>> s = cs.plan(p, c, algorithm="steady_state")
    >>> r = steady_rate(p, s, model=cs.models.OnePort(cost="edges"), counts=(5, 9))
    >>> abs(r.rate / s.throughput - 1) < 1e-9
    True
    """
    from ..collectives import Series
    from . import simulate

    collective = schedule.answering(collective)
    if not isinstance(collective, Series):
        raise ValueError(f"steady_rate needs a series, not a {collective.kind}")
    if counts is None:
        q = getattr(schedule, "ops_per_period", 1)
        counts = (STEADY_PERIODS[0] * q, STEADY_PERIODS[1] * q)
    k1, k2 = counts
    if not (isinstance(k1, int) and isinstance(k2, int) and 0 < k1 < k2):
        raise ValueError(f"steady_rate counts={counts!r} must be two increasing positive integers")
    spans = []
    for k in (k1, k2):
        c = Series(collective.base, count=k)
        spans.append(simulate(platform, schedule, c, model=model, engine=engine).makespan)
    d = Fraction(spans[1]) - Fraction(spans[0])
    rate = Fraction(k2 - k1) / d if d > 0 else Fraction(0)
    return SteadyRate((k1, k2), (spans[0], spans[1]), rate, k2 / spans[1] if spans[1] > 0 else float("inf"))
