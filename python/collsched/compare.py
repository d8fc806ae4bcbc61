"""Every algorithm that applies, planned, validated, simulated and ranked against one bound.

:func:`compare` is what ``cs.plan(platform, collective)`` runs when no
algorithm is named, what ``collsched compare`` prints and what the demo's
report draws. Each registered algorithm that applies to the collective
(:func:`collsched.algorithms.applicable`) is planned, its program checked
by :func:`collsched.validate` and simulated under one model; candidates
are ranked by makespan (one instance) or throughput (a series), and each
gets its gap to the bound of the comparison,
:func:`collsched.bounds.collective_bound` under the same model (a
schedule's own bound may hold under another model, so it is shown, never
used for the gap). A step schedule is run with each synchronisation mode
(barriers, ready signals, per-sender order: seed 002's S1 and S2) and keeps
the best, recorded as ``params["sync"]`` so that ``lower()`` reproduces it.
An algorithm that fails gives a row that says why instead of an exception.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
>>> cmp = compare(p, cs.Scatter(source="h0", targets=p.hosts, size=1e6), model=cs.models.OnePort())
>>> cmp.metric, cmp.best.algorithm, round(cmp.best.achieved, 4), round(cmp.best.gap, 4)
('makespan', 'binomial', 3.0004, 0.0001)
>>> [c.algorithm for c in cmp.candidates]
['binomial', 'linear']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from .algorithms import registry
from .bounds import collective_bound
from .errors import CollschedError
from .schedules import Bound, Schedule, StepSchedule
from .schedules.steps import SYNC_MODES
from .schedules.trace import SimResult
from .schedules.validate import lower_any, validate
from .simulation import Fluid, Model, simulate

__all__ = ["Candidate", "Comparison", "compare", "DEFAULT_MODEL"]

#: The model of :func:`compare` when none is given: max-min fair sharing of links, SimGrid's CM02.
DEFAULT_MODEL = Fluid()


@dataclass(frozen=True)
class Candidate:
    """One algorithm's entry in a :class:`Comparison`.

    Attributes
    ----------
    algorithm, family : str
        Registered name and family.
    schedule : Schedule or None
        None when planning failed.
    result : SimResult or None
        The simulation; None when planning, validation or simulation failed.
    achieved : float or None
        Makespan (s) or throughput (operations/s), by the comparison's metric.
    gap : float or None
        :meth:`Bound.gap` of ``achieved`` against the comparison's bound.
    plan_seconds, simulate_seconds : float
        Wall time of planning, and of lowering + validating + simulating.
    error : str or None
        Why the candidate failed (``"planning: ..."``, ``"validation: ..."``, ``"simulation: ..."``).

    Examples
    --------
    >>> Candidate("x", "baselines", None, None, None, None, 0.0, 0.0, "planning: no").valid
    False
    """

    algorithm: str
    family: str
    schedule: Schedule | None
    result: SimResult | None
    achieved: float | None
    gap: float | None
    plan_seconds: float
    simulate_seconds: float
    error: str | None = None

    @property
    def valid(self) -> bool:
        """True when the schedule was planned, validated and simulated.

        Examples
        --------
        >>> Candidate("x", "baselines", None, None, 1.0, None, 0.0, 0.0).valid
        True
        """
        return self.error is None


@dataclass(frozen=True)
class Comparison:
    """The candidates of one collective on one platform under one model, best first.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> cmp = compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), algorithms=["linear"])
    >>> cmp.best.algorithm, cmp.bound.metric, len(cmp.rows()[0])
    ('linear', 'makespan', 8)
    """

    platform: object
    collective: object
    model: Model
    metric: str
    bound: Bound | None
    candidates: tuple[Candidate, ...]

    @property
    def best(self) -> Candidate:
        """The best valid candidate.

        Raises
        ------
        CollschedError
            If every candidate failed (the message gives each one's reason).

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> compare(p, cs.Reduce(participants=p.hosts, target="h0", size=8, task_cost=1)).best.valid
        True
        """
        if not self.candidates or not self.candidates[0].valid:
            why = "; ".join(f"{c.algorithm}: {c.error}" for c in self.candidates) or "no algorithm applies"
            raise CollschedError(f"no schedule for the {self.collective.kind}", fix=why)
        return self.candidates[0]

    def rows(self) -> list[tuple]:
        """One row per candidate: algorithm, family, own bound, achieved, gap, plan s, simulate s, status.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> cmp = compare(p, cs.Gather(sources=p.hosts, target="h0", size=1e6), algorithms=["linear"])
        >>> cmp.rows()[0][0], cmp.rows()[0][-1]
        ('linear', 'ok')
        """
        return [(c.algorithm, c.family,
                 None if c.schedule is None or c.schedule.bound is None else float(c.schedule.bound.value),
                 c.achieved, c.gap, c.plan_seconds, c.simulate_seconds, "ok" if c.valid else c.error)
                for c in self.candidates]


def _achieved(result: SimResult, metric: str) -> float:
    return float(result.throughput) if metric == "throughput" else float(result.makespan)


def _why(exc: Exception) -> str:
    """The error's message; for anything but a CollschedError (a bug), its type too."""
    return str(exc) if isinstance(exc, CollschedError) else f"internal error {type(exc).__name__}: {exc}"


def _score(achieved: float, metric: str) -> float:
    """Smaller is better: the makespan, or minus the throughput."""
    return -achieved if metric == "throughput" else achieved


def _candidate(platform, collective, algo, model: Model, metric: str, bound: Bound | None, seed: int) -> Candidate:
    start = time.perf_counter()
    try:
        schedule = replace(algo.function(platform, collective, seed=seed), collective=collective)
    except Exception as exc:  # one algorithm's failure, even a bug, is a row: the others still count
        return Candidate(algo.name, algo.family, None, None, None, None, time.perf_counter() - start, 0.0,
                         f"planning: {_why(exc)}")
    planned = time.perf_counter()
    stage = "validation"
    try:
        best = None
        # a step schedule runs with barriers, ready signals (S1) or per-sender order (S2): keep the best
        for sync in SYNC_MODES if isinstance(schedule, StepSchedule) else (None,):
            if sync is not None:
                schedule = replace(schedule, params={**schedule.params, "sync": sync})
            stage = "validation"
            program = lower_any(platform, collective, schedule)
            validate(platform, collective, program)
            stage = "simulation"
            result = simulate(platform, program, collective, model=model, seed=seed)
            if best is None or _score(_achieved(result, metric), metric) < _score(_achieved(best[1], metric), metric):
                best = (schedule, result)
        schedule, result = best
    except Exception as exc:
        return Candidate(algo.name, algo.family, schedule, None, None, None, planned - start,
                         time.perf_counter() - planned, f"{stage}: {_why(exc)}")
    achieved = _achieved(result, metric)
    gap = bound.gap(achieved) if bound is not None and achieved > 0 else None
    return Candidate(algo.name, algo.family, schedule, result, achieved, gap, planned - start,
                     time.perf_counter() - planned)


def _rank(c: Candidate, metric: str) -> tuple:
    if not c.valid:
        return (1, 0.0, c.algorithm)
    return (0, _score(c.achieved, metric), c.algorithm)


def compare(platform, collective, *, model: Model | None = None, algorithms: Sequence[str] | None = None,
            seed: int = 0, progress: Callable[[str], None] | None = None) -> Comparison:
    """Plan, validate and simulate every applicable algorithm (or those named) and rank them.

    Parameters
    ----------
    platform : Platform
    collective : Collective
        One instance (ranked by makespan) or a :class:`~collsched.collectives.Series` (by throughput).
    model : Model, optional
        The simulation model; :data:`DEFAULT_MODEL` (Fluid) by default.
    algorithms : sequence of str, optional
        Registered names to compare; by default every algorithm that applies.
    seed : int
        Seed of randomised algorithms and of random tie-breaking.
    progress : callable, optional
        Called with each algorithm's name before it is planned (for progress bars).

    Returns
    -------
    Comparison

    Raises
    ------
    CollschedError
        An unknown name, or a named algorithm that does not apply.
    CollectiveError, PlatformError
        The collective does not fit the platform.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
    >>> c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e6), count=8)
    >>> cmp = compare(p, c, model=cs.models.OnePort(cost="edges"))
    >>> cmp.metric, cmp.bound.name
    ('throughput', 'steady-state LP optimum (one-port, graph view)')
    >>> cmp.best.algorithm in registry.names()
    True
    >>> compare(p, c, algorithms=["caterpillar"])
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: algorithm 'caterpillar' does not apply to a series of scatter (applicable: ...)
    """
    collective.validate(platform)
    model = DEFAULT_MODEL if model is None else model
    if algorithms is None:
        algos = registry.applicable(collective)
    else:
        algos = [registry.get(name) for name in algorithms]
        for a in algos:
            if not a.applies_to(collective):
                raise not_applicable(a.name, collective)
    metric = "throughput" if collective.kind == "series" else "makespan"
    bound = collective_bound(platform, collective, model=model)
    candidates = []
    for algo in algos:
        if progress is not None:
            progress(algo.name)
        candidates.append(_candidate(platform, collective, algo, model, metric, bound, seed))
    candidates.sort(key=lambda c: _rank(c, metric))
    return Comparison(platform, collective, model, metric, bound, tuple(candidates))


def not_applicable(name: str, collective) -> CollschedError:
    """The error for an algorithm that does not apply to ``collective`` (listing those that do).

    Examples
    --------
    >>> from collsched.collectives import Broadcast
    >>> print(not_applicable("caterpillar", Broadcast(source="h0", targets=["h1"], size=1)))
    algorithm 'caterpillar' does not apply to a broadcast (applicable: binomial...)
    """
    applicable = ", ".join(a.name for a in registry.applicable(collective)) or "none"
    what = "a series of " + collective.base.kind if collective.kind == "series" else "a " + collective.kind
    return CollschedError(f"algorithm {name!r} does not apply to {what} (applicable: {applicable})")
