"""Every algorithm that applies, planned, validated, simulated and ranked against one bound.

:func:`compare` is what ``cs.plan(platform, collective)`` runs when no
algorithm is named, what ``collsched compare`` prints and what the demo's
report draws. Each registered algorithm that applies to the collective
(:func:`collsched.algorithms.applicable`) is planned, its program checked
by :func:`collsched.validate` and simulated under one model; candidates
are ranked by makespan (one instance) or throughput (a series), and each
gets its gap to the bound of the comparison: the tightest bound known to
hold for every schedule under the comparison's model, that is
:func:`collsched.bounds.collective_bound` under that model, tightened by
any schedule's own bound that holds under it too
(:func:`collsched.bounds.own_model`). A schedule's own bound and status are
claims under the model its algorithm plans for; where that is not the
comparison's model they are shown labelled with their own model, and never
used for a gap or a status. A candidate's status under the comparison's
model is OPTIMAL only where it meets the comparison's bound (within
:data:`OPTIMAL_TOLERANCE`). For a series, each candidate also gets its
steady-state rate (:func:`collsched.simulation.steady.steady_rate`: the
marginal rate between two series lengths, start-up excluded) and its gap,
besides the rate of the series' ``count`` operations. A step schedule is
run with each synchronisation mode (barriers, ready signals, per-sender
order: seed 002's S1 and S2) and keeps the best, recorded as ``params["sync"]`` so that ``lower()`` reproduces it;
a mode whose makespan provably exceeds the best so far (:func:`collsched.bounds.sync_bound`) is not run.
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
>>> print(cmp.table().text())   # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
algorithm | makespan s | gap | status | own bound | own status (model) | plan + sim ms
binomial | 3 | +0.0% | feasible | – | – | ...
linear | 3.001 | +0.0% | feasible | – | – | ...
  model: OnePort(sync=True, cost='linear', ties='fixed')
  bound: 3 s (bytes h0 must send over its links), the tightest known to hold for every schedule under this
  model; gap and status are against it
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable, Sequence

import numpy as np

from .algorithms import registry
from .bounds import collective_bound, own_model, sync_bound
from .collectives import Series
from .errors import CollschedError
from .schedules import Bound, Schedule, Status
from .schedules.steps import SYNC_MODES, DirectSteps, StepSchedule
from .sync_modes import duration_text, modes_to_try, program_size
from .schedules.trace import SimResult
from .schedules.validate import lower_any, validate
from .simulation import Fluid, Model, simulate
from .simulation.steady import SteadyRate, steady_rate

__all__ = ["Candidate", "Comparison", "ComparisonTable", "compare", "default_budget", "program_size", "DEFAULT_MODEL",
           "OPTIMAL_TOLERANCE", "MAX_OPS"]

#: The model of :func:`compare` when none is given: max-min fair sharing of links, SimGrid's CM02.
DEFAULT_MODEL = Fluid()

#: A candidate is OPTIMAL under the comparison's model when its gap to the comparison's bound is at most this.
OPTIMAL_TOLERANCE = 1e-9

#: The largest program (operations) a synchronisation mode may lower to, besides the smallest mode's (memory bound).
MAX_OPS = 6_000_000


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
        Wall time of planning, and of lowering + validating + simulating
        (the steady-state runs included).
    error : str or None
        Why the candidate failed (``"planning: ..."``, ``"validation: ..."``, ``"simulation: ..."``).
    steady : SteadyRate or None
        For a series: the steady-state (marginal) rate and the start-up
        and clean-up it implies, simulated under the comparison's model.
    steady_gap : float or None
        :meth:`Bound.gap` of the steady-state rate against the comparison's bound.
    status : Status or None
        Under the comparison's model: OPTIMAL when ``gap`` or ``steady_gap``
        is at most :data:`OPTIMAL_TOLERANCE` (the schedule meets a bound that
        holds for every schedule), FEASIBLE otherwise, ERROR when it failed.
        The schedule's own ``status`` is a claim under its own model
        (:func:`collsched.bounds.own_model`).
    skipped : str or None
        Why the candidate was not run: its estimated time
        (:meth:`~collsched.algorithms.registry.Algorithm.estimate`) did not fit
        the comparison's budget.
    notes : tuple of str
        What was left out of a candidate that ran (a synchronisation mode
        whose program would exceed the budget or the operation limit).

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
    steady: SteadyRate | None = None
    steady_gap: float | None = None
    status: Status | None = None
    skipped: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        """True when the schedule was planned, validated and simulated.

        Examples
        --------
        >>> Candidate("x", "baselines", None, None, 1.0, None, 0.0, 0.0).valid
        True
        >>> Candidate("x", "baselines", None, None, None, None, 0.0, 0.0, skipped="estimated 9 s > budget 1 s").valid
        False
        """
        return self.error is None and self.skipped is None

    @property
    def status_text(self) -> str:
        """The status under the comparison's model, as a table shows it.

        ``"optimal"`` (the ``count`` operations meet the bound),
        ``"optimal in steady state"`` (only the steady-state rate does),
        ``"feasible"``, or ``"failed (stage)"``.

        Examples
        --------
        >>> Candidate("x", "baselines", None, None, 1.0, 0.0, 0.0, 0.0, status=Status.OPTIMAL).status_text
        'optimal'
        >>> Candidate("x", "baselines", None, None, None, None, 0.0, 0.0, "planning: no").status_text
        'failed (planning)'
        >>> skipped = Candidate("x", "baselines", None, None, None, None, 0.0, 0.0, skipped="estimated 9 s > budget 1 s")
        >>> skipped.status_text
        'skipped: estimated 9 s > budget 1 s'
        """
        if self.skipped is not None:
            return f"skipped: {self.skipped}"
        if not self.valid:
            stage = (self.error or "").split(":", 1)[0].strip()
            return f"failed ({stage})" if stage else "failed"
        if self.status is not Status.OPTIMAL:
            return "feasible"
        return "optimal" if _meets(self.gap) else "optimal in steady state"


def _meets(gap: float | None) -> bool:
    return gap is not None and gap <= OPTIMAL_TOLERANCE


@dataclass(frozen=True)
class ComparisonTable:
    """A comparison as a table: the one every renderer prints (terminal, HTML).

    Attributes
    ----------
    header : tuple of str
    rows : tuple of tuple of str
        One per candidate, best first; every number formatted.
    numeric : tuple of bool
        Per column, whether it holds numbers (right-aligned).
    notes : tuple of str
        What the table's numbers are: the model, the bound and why, and
        what the columns measure.

    Examples
    --------
    >>> t = ComparisonTable(("a", "b"), (("x", "1"),), (False, True), ("model: m",))
    >>> print(t.text())
    a | b
    x | 1
      model: m
    """

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]
    notes: tuple[str, ...]

    def column(self, name: str) -> list[str]:
        """The cells of the column headed ``name``, top to bottom.

        Raises
        ------
        KeyError
            No such column.

        Examples
        --------
        >>> ComparisonTable(("a", "b"), (("x", "1"),), (False, True), ()).column("b")
        ['1']
        """
        if name not in self.header:
            raise KeyError(f"no column {name!r} (columns: {', '.join(self.header)})")
        i = self.header.index(name)
        return [row[i] for row in self.rows]

    def text(self) -> str:
        """Plain text: the header, one line per row (cells joined by `` | ``), then the notes indented.

        Examples
        --------
        >>> print(ComparisonTable(("a",), (("x",),), (False,), ()).text())
        a
        x
        """
        lines = [" | ".join(self.header)] + [" | ".join(row) for row in self.rows]
        return "\n".join(lines + ["  " + note for note in self.notes])


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
            why = "; ".join(f"{c.algorithm}: {c.error or c.status_text}" for c in self.candidates) \
                or "no algorithm applies"
            raise CollschedError(f"no schedule for the {self.collective.kind}", fix=why)
        return self.candidates[0]

    def rows(self) -> list[tuple]:
        """One row per candidate: algorithm, family, own bound, achieved, gap, plan s, simulate s, status.

        The own bound is given only where it holds for every schedule under
        the comparison's model (:func:`collsched.bounds.own_model`), else
        None; :meth:`table` shows every own bound, labelled with its model.
        The status is ``"ok"`` or the candidate's error.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> cmp = compare(p, cs.Gather(sources=p.hosts, target="h0", size=1e6), algorithms=["linear"])
        >>> cmp.rows()[0][0], cmp.rows()[0][-1]
        ('linear', 'ok')
        """
        return [(c.algorithm, c.family, _own_bound_here(c, self.model, self.metric),
                 c.achieved, c.gap, c.plan_seconds, c.simulate_seconds, "ok" if c.valid else c.error or c.status_text)
                for c in self.candidates]

    def table(self) -> ComparisonTable:
        """The comparison as a table, every number labelled with the model it holds under.

        Columns: algorithm; the achieved makespan, or for a series
        the rate of its ``count`` operations (start-up and clean-up
        included); its gap to :attr:`bound`; for a series also the
        steady-state rate, its gap, and the start-up plus clean-up time;
        the status under this comparison's model; the schedule's own bound
        and, beside it, the model it holds under with the schedule's own
        status there (the labels of :class:`collsched.bounds.OwnModel`);
        planning + simulation time (ms). The family is the
        candidate's :attr:`Candidate.family` (the bars show it).

        Returns
        -------
        ComparisonTable

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
        >>> c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=1), count=4)
        >>> t = compare(p, c, model=cs.models.OnePort(cost="edges"), algorithms=["steady_state"]).table()
        >>> t.header[1:7]
        ('rate of 4 ops/s', 'gap', 'steady ops/s', 'steady gap', 'start-up s', 'status')
        >>> t.rows[0][1:7]
        ('0.4444', '+12.5%', '0.5', '+0.0%', '1', 'optimal in steady state')
        >>> t.rows[0][7:9]
        ('0.5', 'optimal (steady-state LP)')
        """
        series = self.metric == "throughput"
        unit = "ops/s" if series else "s"
        achieved = f"rate of {self.collective.count} {unit}" if series else "makespan s"
        header = ["algorithm", achieved, "gap"]
        if series:
            header += ["steady ops/s", "steady gap", "start-up s"]
        header += ["status", "own bound", "own status (model)", "plan + sim ms"]
        rows = []
        for c in self.candidates:
            row = [c.algorithm, _fmt(c.achieved), _pct(c.gap)]
            if series:
                s = c.steady
                row += [_fmt(None if s is None else float(s.rate)), _pct(c.steady_gap),
                        _fmt(None if s is None else s.startup)]
            own = None if c.schedule is None else own_model(c.schedule)
            bound = None if c.schedule is None else c.schedule.bound
            row += [c.status_text, "–" if bound is None else _fmt(float(bound.value)),
                    "–" if own is None else f"{c.schedule.status.value} ({own.label})",
                    f"{_ms(c.plan_seconds)} + {_ms(c.simulate_seconds)}"]
            rows.append(tuple(row))
        numeric = tuple(h not in ("algorithm", "status", "own status (model)") for h in header)
        return ComparisonTable(tuple(header), tuple(rows), numeric, tuple(self.notes()))

    def notes(self) -> list[str]:
        """What the numbers of :meth:`table` are: the model, the bound and why it is the one used.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), algorithms=["linear"]).notes()[0]
        "model: Fluid(one_port=False, ties='fixed')"
        """
        unit = "ops/s" if self.metric == "throughput" else "s"
        b = self.bound
        notes = [f"model: {self.model!r}"]
        if b is None:
            notes.append("bound: none known under this model (no gap, no status optimal)")
        else:
            notes.append(f"bound: {_fmt(float(b.value))} {unit} ({b.name}), the tightest known to hold for every "
                         "schedule under this model; gap and status are against it")
        unused: dict[tuple[str, str], list[str]] = {}
        for c in self.candidates:
            own = None if c.schedule is None else own_model(c.schedule)
            if own is not None and c.schedule.bound is not None and not _holds(c.schedule, self.model, self.metric):
                unused.setdefault((c.schedule.bound.name, own.label), []).append(c.algorithm)
        for (name, label), names in unused.items():
            notes.append(f"own bound of {', '.join(names)} ({name}; model: {label}): not a bound on every schedule "
                         "under this model, so shown beside it, never used for a gap or a status")
        for c in self.candidates:
            notes.extend(f"{c.algorithm}: {note}" for note in c.notes)
        if self.metric == "throughput":
            notes.append(f"rate of {self.collective.count}: {self.collective.count} operations / simulated makespan, "
                         "start-up and clean-up included; steady-state: marginal rate (K2 - K1) / (makespan(K2) - "
                         "makespan(K1)) between two simulated lengths; start-up s: what K2 operations take beyond "
                         "K2 / steady-state rate (start-up plus clean-up)")
        return notes


def _achieved(result: SimResult, metric: str) -> float:
    return float(result.throughput) if metric == "throughput" else float(result.makespan)


def _why(exc: Exception) -> str:
    """The error's message; for anything but a CollschedError (a bug), its type too."""
    return str(exc) if isinstance(exc, CollschedError) else f"internal error {type(exc).__name__}: {exc}"


def _score(achieved: float, metric: str) -> float:
    """Smaller is better: the makespan, or minus the throughput."""
    return -achieved if metric == "throughput" else achieved


def _fmt(x) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{float(x):.4g}"


def _ms(seconds: float) -> str:
    ms = 1e3 * seconds
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.1f}"


def _pct(gap: float | None) -> str:
    return "–" if gap is None else f"{gap:+.1%}"


def _holds(schedule: Schedule | None, model: Model, metric: str) -> bool:
    """Whether a schedule's own bound bounds every schedule under ``model`` (and measures ``metric``)."""
    if schedule is None or schedule.bound is None or schedule.bound.metric != metric:
        return False
    own = own_model(schedule)
    return own is not None and own.holds_under(model)


def _own_bound_here(c: Candidate, model: Model, metric: str) -> float | None:
    return float(c.schedule.bound.value) if _holds(c.schedule, model, metric) else None


def _tightest(bound: Bound | None, candidates, model: Model, metric: str) -> Bound | None:
    """``bound`` or a candidate's own bound that holds under ``model`` and is tighter (beyond 1e-12 relative)."""
    for c in candidates:
        if not _holds(c.schedule, model, metric):
            continue
        own = c.schedule.bound
        value = float(own.value)
        tighter = bound is None or (value > float(bound.value) * (1 + 1e-12) if metric == "makespan"
                                    else value < float(bound.value) * (1 - 1e-12))
        if tighter:
            bound = Bound(own.value, metric, f"{own.name}, {c.algorithm}'s own, which holds under this model")
    return bound


def _judged(c: Candidate, bound: Bound | None) -> Candidate:
    """The candidate with its gaps to ``bound`` and its status under the comparison's model."""
    if c.skipped is not None:
        return replace(c, status=Status.LIMIT)
    if not c.valid:
        return replace(c, status=Status.ERROR)
    gap = bound.gap(c.achieved) if bound is not None and c.achieved > 0 else None
    rate = None if c.steady is None else float(c.steady.rate)
    steady_gap = bound.gap(rate) if bound is not None and rate else None
    optimal = _meets(gap) or _meets(steady_gap)
    return replace(c, gap=gap, steady_gap=steady_gap, status=Status.OPTIMAL if optimal else Status.FEASIBLE)


#: Why :func:`~collsched.bounds.sync_bound` is a floor, as a note says it.
_FLOOR_WHY = {
    "ready": "each rank's steps in sequence, each message at least its ready signal's latency, then its least "
             "latency plus bytes over its widest path",
    "barrier": "steps in sequence, each at least its slowest message alone and its busiest link's bytes, each "
               "barrier at least its rounds' latencies",
}


def _candidate(platform, collective, algo, model: Model, metric: str, seed: int, steady: bool,
               deadline: float = math.inf, max_ops: int = 0) -> Candidate:
    start = time.perf_counter()
    try:
        schedule = replace(algo.function(platform, collective, seed=seed), collective=collective)
    except Exception as exc:  # one algorithm's failure, even a bug, is a row: the others still count
        return Candidate(algo.name, algo.family, None, None, None, None, time.perf_counter() - start, 0.0,
                         f"planning: {_why(exc)}")
    planned = time.perf_counter()
    schedule = _as_columns(schedule, platform, collective)
    stage = "validation"
    notes: list[str] = []
    try:
        best = None
        # a step schedule runs with barriers, ready signals (S1) or per-sender order (S2): keep the best (the first
        # of SYNC_MODES among equals); a mode whose makespan provably exceeds the best so far is not run
        modes, notes = modes_to_try(schedule, platform, collective, deadline, max_ops or MAX_OPS)
        for sync in modes:
            floor = None if best is None or metric != "makespan" else sync_bound(platform, collective, schedule, sync,
                                                                                  model=model)
            if floor is not None and floor > best[1].makespan * (1 + 1e-9):
                notes.append(f"sync {sync} not run: its makespan is at least {floor:.4g} s ({_FLOOR_WHY[sync]}) "
                             f"> {best[1].makespan:.4g} s with sync {best[0].params['sync']}")
                continue
            if sync is not None:
                schedule = replace(schedule, params={**schedule.params, "sync": sync})
            stage = "validation"
            program = lower_any(platform, collective, schedule)
            validate(platform, collective, program)
            stage = "simulation"
            result = simulate(platform, program, collective, model=model, seed=seed)
            rank = (_score(_achieved(result, metric), metric), SYNC_MODES.index(sync) if sync is not None else 0)
            if best is None or rank < best[2]:
                best = (schedule, result, rank)
        schedule, result, _ = best
        rate = None
        if metric == "throughput" and steady:
            stage = "steady-state simulation"
            rate = steady_rate(platform, schedule, collective, model=model)
    except Exception as exc:
        return Candidate(algo.name, algo.family, schedule, None, None, None, planned - start,
                         time.perf_counter() - planned, f"{stage}: {_why(exc)}", notes=tuple(notes))
    return Candidate(algo.name, algo.family, schedule, result, _achieved(result, metric), None, planned - start,
                     time.perf_counter() - planned, steady=rate, notes=tuple(notes))


def _as_columns(schedule, platform, collective):
    """A step schedule of whole direct messages of one exchange with its steps as columns (DirectSteps), once.

    Its lowering in each synchronisation mode and its floors then read the
    columns instead of every Transfer object again; the schedule is the
    same (DirectSteps compare equal to the steps they hold). Any other
    schedule is returned as it is.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = cs.plan(p, c, algorithm="matching")
    >>> fast = _as_columns(s, p, c)
    >>> type(fast.steps).__name__, fast == s, fast.lower(p, c, sync="ready") == s.lower(p, c, sync="ready")
    ('DirectSteps', True, True)
    """
    if not isinstance(schedule, StepSchedule) or isinstance(schedule.steps, DirectSteps) or collective.count != 1 \
            or collective.kind not in ("alltoall", "alltomany"):  # only exchanges lower from columns
        return schedule
    index = {h: i for i, h in enumerate(platform.hosts)}
    flat = [t for step in schedule.steps for t in step]
    if any(t.part is not None or t.values is not None or t.inst != 0 or t.src not in index or t.dst not in index
           for t in flat):
        return schedule
    ptr = np.zeros(len(schedule.steps) + 1, dtype=np.int64)
    np.cumsum([len(step) for step in schedule.steps], out=ptr[1:])
    src = np.fromiter((index[t.src] for t in flat), np.int64, len(flat))
    dst = np.fromiter((index[t.dst] for t in flat), np.int64, len(flat))
    return replace(schedule, steps=DirectSteps(platform.hosts, ptr, src, dst, np.zeros(len(flat), np.int64)))


def _extra_candidate(platform, collective, name: str, given, model: Model, metric: str, seed: int) -> Candidate:
    """A candidate the caller made (a schedule or a program, e.g. read from an MSCCL file)."""
    start = time.perf_counter()
    stage = "validation"
    try:
        program = lower_any(platform, collective, given)
        validate(platform, collective, program)
        stage = "simulation"
        result = simulate(platform, program, collective, model=model, seed=seed)
    except Exception as exc:
        return Candidate(name, "extra", None, None, None, None, 0.0, time.perf_counter() - start, f"{stage}: {_why(exc)}")
    return Candidate(name, "extra", None, result, _achieved(result, metric), None, 0.0, time.perf_counter() - start)


def _rank(c: Candidate, metric: str) -> tuple:
    if not c.valid:
        return (1, 0.0, c.algorithm)
    return (0, _score(c.achieved, metric), c.algorithm)


def default_budget(collective) -> float:
    """The time budget of a comparison of every algorithm (s): none up to 64 hosts, 60 up to 256, 300 beyond.

    Up to 64 hosts every algorithm runs (seconds each); beyond, the targets
    of a full comparison (issue #17): every algorithm of an all-to-all on
    256 hosts within a minute, on 1,024 hosts within five.

    Parameters
    ----------
    collective : Collective

    Returns
    -------
    float

    Examples
    --------
    >>> from collsched.collectives import AllToAll
    >>> [default_budget(AllToAll(senders=[f"h{i}" for i in range(n)])) for n in (64, 65, 256, 257)]
    [inf, 60.0, 60.0, 300.0]
    """
    n = len(collective.hosts)
    return math.inf if n <= 64 else 60.0 if n <= 256 else 300.0


def _admitted(algos, estimates: dict, budget: float) -> tuple[set[str], float]:
    """The algorithms that fit the budget together, cheapest estimate first (no estimate: always), and their total."""
    admitted, total = set(), 0.0
    for algo in sorted(algos, key=lambda a: estimates[a.name] or 0.0):
        est = estimates[algo.name]
        if est is None or total + est <= budget:
            admitted.add(algo.name)
            total += est or 0.0
    return admitted, total


def _skip_reason(est: float | None, budget: float, left: float, admitted: bool, reserved: float) -> str | None:
    """Why an algorithm estimated at ``est`` s is not run, or None to run it."""
    if est is None:
        return None
    if est > budget:
        return f"estimated {duration_text(est)} > budget {duration_text(budget)}"
    if not admitted:
        return (f"estimated {duration_text(est)} > {duration_text(max(budget - reserved, 0.0))} left of the "
                f"{duration_text(budget)} budget by the cheaper algorithms' estimates")
    if est > left:
        return (f"estimated {duration_text(est)} > {duration_text(max(left, 0.0))} left of the "
                f"{duration_text(budget)} budget")
    return None


def compare(platform, collective, *, model: Model | None = None, algorithms: Sequence[str] | None = None,
            seed: int = 0, steady: bool = True, progress: Callable[[int, int, str], None] | None = None,
            extra: dict | None = None, budget: float | None = None, max_ops: int = MAX_OPS,
            on_start: Callable[[str, float | None, float], None] | None = None) -> Comparison:
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
    steady : bool
        For a series, also simulate each candidate at two more lengths for
        its steady-state rate (:attr:`Candidate.steady`); False skips them
        (faster; the table then shows no steady-state rate).
    progress : callable, optional
        ``progress(done, total, algorithm)``: once with ``(0, total, "")``
        before the first algorithm, then after each algorithm finishes
        (planned, validated and simulated, or failed) with the number done
        so far and its name. An exception it raises, and a
        KeyboardInterrupt, propagate unchanged.
    extra : dict, optional
        More candidates beside the registered algorithms, ``{name: schedule
        or program}`` (e.g. ``{"msccl:ring": imported.program}``), validated
        and simulated like the others (family ``extra``).
    budget : float, optional
        Seconds the comparison may take. Each algorithm's time is estimated
        before it runs (:meth:`~collsched.algorithms.registry.Algorithm.estimate`,
        from its calibrated cost model); the cheapest are admitted while
        their estimates fit together, and an algorithm whose estimate exceeds
        what is left when its turn comes is not run: its row says
        ``skipped: estimated 412 s > budget 60 s``. Within a step schedule,
        a synchronisation mode whose program would not fit what is left is
        not tried (the note says so). Default: :func:`default_budget` when
        ``algorithms`` is None, no limit (``math.inf``) when algorithms are named.
    max_ops : int
        The largest program (operations) a synchronisation mode may lower to
        besides the smallest mode's, which always runs; this bounds memory
        (:data:`MAX_OPS` by default).
    on_start : callable, optional
        ``on_start(algorithm, estimate, eta)`` before each algorithm that
        runs: its estimated seconds (None if unknown) and the estimated
        seconds of it and of all admitted algorithms still to run.

    Returns
    -------
    Comparison
        Its ``bound`` is :func:`~collsched.bounds.collective_bound` under
        ``model``, or a candidate's own bound where that holds under
        ``model`` and is tighter.

    Raises
    ------
    CollschedError
        An unknown name, or a named algorithm that does not apply.
    ValueError
        ``steady`` is not a bool, ``budget`` is not a number > 0, or ``max_ops`` not an integer > 0.
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
    >>> seen = []
    >>> _ = compare(p, c, model=cs.models.OnePort(cost="edges"), algorithms=["binomial", "linear"],
    ...             progress=lambda done, total, name: seen.append((done, total, name)))
    >>> seen
    [(0, 2, ''), (1, 2, 'binomial'), (2, 2, 'linear')]
    >>> compare(p, c, algorithms=["caterpillar"])
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: algorithm 'caterpillar' does not apply to a series of scatter (applicable: ...)

    An algorithm whose estimated time exceeds the budget is skipped, with the reason:

    >>> a2a = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> cmp = compare(p, a2a, algorithms=["caterpillar", "greedy"], budget=1e-9)
    >>> [(c.algorithm, c.status_text) for c in cmp.candidates]  # doctest: +ELLIPSIS
    [('caterpillar', 'skipped: estimated ... s > budget 1e-09 s'),
     ('greedy', 'skipped: estimated ... s > budget 1e-09 s')]
    """
    if not isinstance(steady, bool):
        raise ValueError(f"compare option steady={steady!r} is not a bool")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float))
                               or math.isnan(budget) or budget <= 0):
        raise ValueError(f"compare option budget={budget!r} is not a number of seconds > 0")
    if isinstance(max_ops, bool) or not isinstance(max_ops, int) or max_ops <= 0:
        raise ValueError(f"compare option max_ops={max_ops!r} is not an integer > 0")
    collective.validate(platform)
    model = DEFAULT_MODEL if model is None else model
    if algorithms is None:
        algos = registry.applicable(collective)
    else:
        algos = [registry.get(name) for name in algorithms]
        for a in algos:
            if not a.applies_to(collective):
                raise not_applicable(a.name, collective)
    if budget is None:
        budget = default_budget(collective) if algorithms is None else math.inf
    metric = "throughput" if collective.kind == "series" else "makespan"
    estimates = {a.name: a.estimate(collective) for a in algos}
    admitted, reserved = _admitted(algos, estimates, budget)
    candidates = []
    if progress is not None:
        progress(0, len(algos), "")
    start = time.perf_counter()
    for done, algo in enumerate(algos, 1):
        left = budget - (time.perf_counter() - start)
        est = estimates[algo.name]
        why = _skip_reason(est, budget, left, algo.name in admitted, reserved)
        if why is not None:
            admitted.discard(algo.name)
            candidates.append(Candidate(algo.name, algo.family, None, None, None, None, 0.0, 0.0, skipped=why))
        else:
            if on_start is not None:
                on_start(algo.name, est, sum(estimates[a.name] or 0.0 for a in algos[done - 1:] if a.name in admitted))
            candidates.append(_candidate(platform, collective, algo, model, metric, seed, steady,
                                         time.perf_counter() + left, max_ops))
        if progress is not None:
            progress(done, len(algos), algo.name)
    for name, given in (extra or {}).items():
        candidates.append(_extra_candidate(platform, collective, name, given, model, metric, seed))
    bound = _tightest(collective_bound(platform, collective, model=model), candidates, model, metric)
    candidates = sorted((_judged(c, bound) for c in candidates), key=lambda c: _rank(c, metric))
    return Comparison(platform, collective, model, metric, bound, tuple(candidates))


def not_applicable(name: str, collective) -> CollschedError:
    """The error for an algorithm that does not apply to ``collective`` (listing those that do).

    Examples
    --------
    >>> from collsched.collectives import Broadcast
    >>> print(not_applicable("caterpillar", Broadcast(source="h0", targets=["h1"], size=1)))
    algorithm 'caterpillar' does not apply to a broadcast (applicable: binomial...)
    >>> from collsched.collectives import AllReduce
    >>> print(not_applicable("binomial", AllReduce(participants=["h0", "h1"], size=1)))
    algorithm 'binomial' does not apply to an allreduce (applicable: ...)
    >>> print(not_applicable("steady_state", AllReduce(participants=["h0", "h1"], size=1)))
    algorithm 'steady_state' does not apply to an allreduce (applicable: ...); it plans a series of them: ...
    """
    applicable = ", ".join(a.name for a in registry.applicable(collective)) or "none"
    kind = collective.kind
    what = "a series of " + collective.base.kind if kind == "series" else ("an " if kind[0] in "aeiou" else "a ") + kind
    series = Series(collective, count=2) if kind != "series" else None
    hint = ("; it plans a series of them: make the collective a Series (--count N)"
            if series is not None and any(a.name == name for a in registry.applicable(series)) else "")
    return CollschedError(f"algorithm {name!r} does not apply to {what} (applicable: {applicable}){hint}")
