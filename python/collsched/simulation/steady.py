"""The steady-state rate of a series, measured by simulation: the marginal rate between two series lengths.

A series of ``K`` operations takes ``start-up + K / rate + clean-up`` once
it runs in steady state; the start-up and clean-up do not depend on ``K``,
so two lengths ``K1 < K2`` give the steady-state rate as
``(K2 - K1) / (makespan(K2) - makespan(K1))`` (seed 000, §3.4: the periodic
schedule reaches the LP throughput ``TP`` asymptotically; this is the
number that must equal ``TP``). A pipeline may take a while to settle: its
first periods can run faster than the steady state (resources that are not
the bottleneck work ahead) or slower, so by default the lengths double —
20 and 40 periods, then 40 and 80, up to 1280 — until two successive windows
give the same rate and, in both, no rank's send port, receive port or CPU
was held longer than the makespan grew; that rate is the steady state's.

Why the second condition: each of those resources is exclusive, so in any
run its busy time is at most the makespan. If over a window a resource's
busy time grows faster than the makespan, the idle time it had (a finite
amount, spent waiting during the start-up or the clean-up) is being used
up, and once it is gone the makespan grows at least as fast as that
resource is loaded: the window is a transient, however many windows agree
before that. It happens when the last resource of a pipeline is loaded
more than the resources upstream: it falls behind them by a constant
amount per operation, and while its backlog still fits in the time it
idles at the end, the makespan grows at the upstream's rate (a fixed-period
reduce whose target's receive port is loaded 107/3 s per period and the
sender upstream 35.5 s ran at 15/35.5 between 20 and 80 periods, above
both its own throughput 45/107 and the LP bound 43/102, and at 45/107 from
160 periods on; ``test_a_window_where_a_port_outgrows_the_makespan_is_transient``).
The rate of the ``K``
operations themselves, start-up and clean-up included, is
``K / makespan(K)``; it approaches the steady-state rate as ``K`` grows.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1, latency=0)
>>> c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=1), count=10)
>>> s = cs.plan(p, c, algorithm="steady_state")
>>> r = steady_rate(p, s, model=cs.models.OnePort(cost="edges"))
>>> abs(r.rate / s.throughput - 1) < 1e-9, r.counts, r.settled
(True, (20, 40), True)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["SteadyRate", "steady_rate", "STEADY_PERIODS", "MAX_PERIODS"]

#: Series lengths, in periods of a periodic schedule, of the first window the marginal rate is measured over.
STEADY_PERIODS = (20, 40)
#: The longest series (in periods) the settling windows go to.
MAX_PERIODS = 1280
#: Two windows agree when their rates differ by at most this, relatively.
SETTLED = Fraction(1, 10**9)


@dataclass(frozen=True)
class SteadyRate:
    """Two simulated series lengths and the rates they give.

    Attributes
    ----------
    counts : (int, int)
        The series lengths ``K1 < K2`` of the window the rate is measured over.
    makespans : (float, float)
        Their simulated makespans (s).
    rate : Fraction
        ``(K2 - K1) / (makespan(K2) - makespan(K1))``, operations per second
        in steady state (exact arithmetic on the float makespans; compare
        with a relative tolerance).
    series_rate : float
        ``K2 / makespan(K2)``: the rate of the ``K2`` operations, start-up
        and clean-up included.
    settled : bool
        The window after this one gave the same rate (to 1e-9), and in
        neither window did a rank's busy time grow more than the makespan
        (see ``busiest``): the pipeline had settled. False when the lengths
        were given, or when :data:`MAX_PERIODS` was reached first.
    busiest : float
        The largest growth, from ``K1`` to ``K2`` operations, of the time a
        rank's send port, receive port or CPU was held (s). At most
        ``makespan(K2) - makespan(K1)`` in steady state; more means the
        window is a transient (that resource's idle time is being used up).

    Examples
    --------
    >>> r = SteadyRate((1, 2), (3.0, 4.0), Fraction(1), 0.5, True)
    >>> r.startup
    2.0
    """

    counts: tuple[int, int]
    makespans: tuple[float, float]
    rate: Fraction
    series_rate: float
    settled: bool = False
    busiest: float = 0.0

    @property
    def startup(self) -> float:
        """Seconds the ``K2`` operations take beyond ``K2 / rate`` (start-up plus clean-up).

        Rounding noise of the float makespans (below 1e-9 of the longer one) reads as 0.
        """
        if not self.rate:
            return float("inf")
        extra = self.makespans[1] - float(self.counts[1] / self.rate)
        return 0.0 if abs(extra) <= 1e-9 * self.makespans[1] else extra


def steady_rate(platform, schedule, collective=None, *, model, counts: tuple[int, int] | None = None,
                engine: str = "core") -> SteadyRate:
    """Simulate ``schedule`` at several series lengths and return the steady-state (marginal) rate.

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
        Measure over exactly these lengths ``K1 < K2``. By default the
        windows start at :data:`STEADY_PERIODS` periods' worth of operations
        (``ops_per_period`` each for a periodic schedule, else one) and
        double until two successive ones agree and neither is a transient
        (``busiest`` within the makespan's growth), up to :data:`MAX_PERIODS`.
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
    >>> abs(r.rate / s.throughput - 1) < 1e-9, r.settled
    (True, False)
    """
    from ..collectives import Series
    from . import simulate

    collective = schedule.answering(collective)
    if not isinstance(collective, Series):
        raise ValueError(f"steady_rate needs a series, not a {collective.kind}")
    if counts is not None:
        k1, k2 = counts
        if not (isinstance(k1, int) and isinstance(k2, int) and 0 < k1 < k2):
            raise ValueError(f"steady_rate counts={counts!r} must be two increasing positive integers")
    runs: dict[int, tuple[float, np.ndarray]] = {}

    def run(k: int) -> tuple[float, np.ndarray]:
        """Makespan of ``k`` operations, and every rank's send, receive and CPU busy times."""
        if k not in runs:
            r = simulate(platform, schedule, Series(collective.base, count=k), model=model, engine=engine)
            runs[k] = r.makespan, np.concatenate([r.send_busy, r.recv_busy, r.cpu_busy])
        return runs[k]

    def window(k1: int, k2: int) -> SteadyRate:
        (s1, b1), (s2, b2) = run(k1), run(k2)
        d = Fraction(s2) - Fraction(s1)
        rate = Fraction(k2 - k1) / d if d > 0 else Fraction(0)
        busiest = float(np.max(b2 - b1, initial=0.0))
        return SteadyRate((k1, k2), (s1, s2), rate, k2 / s2 if s2 > 0 else float("inf"), busiest=busiest)

    def steady(w: SteadyRate) -> bool:
        """No exclusive resource was held longer than the makespan grew (to 1e-9 of the makespan)."""
        return w.busiest - (w.makespans[1] - w.makespans[0]) <= float(SETTLED) * w.makespans[1]

    if counts is not None:
        return window(*counts)
    q = getattr(schedule, "ops_per_period", 1)
    before = window(STEADY_PERIODS[0] * q, STEADY_PERIODS[1] * q)
    while before.counts[1] < MAX_PERIODS * q:
        now = window(before.counts[1], 2 * before.counts[1])
        if abs(now.rate - before.rate) <= SETTLED * abs(now.rate) and steady(before) and steady(now):
            return dataclasses.replace(before, settled=True)
        before = now
    return before
