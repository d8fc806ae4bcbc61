"""The front door: ``plan(platform, collective, algorithm=...)``.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> s = cs.plan(p, cs.Broadcast(source="h1", targets=p.hosts, size=1e6), algorithm="binomial")
>>> s.algorithm, s.root
('binomial', 'h1')
>>> cs.plan(p, cs.Broadcast(source="h1", targets=p.hosts, size=1e6), algorithm="caterpillar")
Traceback (most recent call last):
...
collsched.errors.CollschedError: algorithm 'caterpillar' does not apply to a broadcast (applicable: binomial...)
>>> cs.plan(p, cs.Broadcast(source="h1", targets=p.hosts, size=1e6), algorithm="binomial", depth=3)
Traceback (most recent call last):
...
ValueError: algorithm 'binomial' has no option 'depth' (options: seed)
"""

from __future__ import annotations

import dataclasses
import inspect

from .algorithms import registry
from .schedules import Schedule

__all__ = ["plan", "best_of", "MPI_ALGORITHM"]

#: What an MPI library would run for each kind of collective (the baseline every comparison shows).
MPI_ALGORITHM = {"reduce": "binomial", "broadcast": "binomial", "scatter": "binomial", "gather": "binomial",
                 "alltoall": "caterpillar", "alltomany": "caterpillar", "allgather": "ring", "reducescatter": "ring",
                 "allreduce": "ring"}


def plan(platform, collective, algorithm: str | None = None, *, seed: int = 0, model=None,
         budget: float | None = None, **options) -> Schedule:
    """A schedule for ``collective`` on ``platform``: the named algorithm's, or the best of all.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    algorithm : str, optional
        A registered name (see :func:`collsched.algorithms.names`). Without
        one, every algorithm that applies is planned, validated and
        simulated under ``model`` (:func:`collsched.compare.compare`) and the
        best is returned, carrying the comparison's bound (valid under
        ``model``) and, in ``params``, its gap and the model.
    seed : int
        For randomised algorithms.
    model : Model, optional
        The model the best is chosen under (Fluid by default); only without ``algorithm``.
    budget : float, optional
        Seconds the comparison may take; only without ``algorithm``. An
        algorithm whose estimated time does not fit is skipped (see
        :func:`collsched.compare.compare`; default
        :func:`collsched.compare.default_budget`).
    **options
        Options of the named algorithm, keyword-only; an unknown one raises ValueError.

    Returns
    -------
    Schedule
        The algorithm's schedule (its shape depends on the algorithm: a
        :class:`~collsched.schedules.TreeSchedule` for ``binomial`` and
        ``linear``, a :class:`~collsched.schedules.StepSchedule` for
        ``caterpillar``); check it with :func:`collsched.validate`.

    Raises
    ------
    CollschedError
        Unknown algorithm, or one that does not apply to the collective;
        without ``algorithm``, every candidate failing.
    CollectiveError, PlatformError
        The collective does not fit the platform.
    ValueError
        An option the algorithm does not take, or options without an algorithm.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Reduce(participants=p.hosts, target="h0", size=1e6, task_cost=1e6)
    >>> s = cs.plan(p, c, algorithm="binomial")
    >>> s.algorithm, s.root, dict(s.children)
    ('binomial', 'h0', {'h0': ('h1', 'h2'), 'h2': ('h3',)})
    >>> cs.validate(p, c, s)
    >>> best = cs.plan(p, c, model=cs.models.OnePort())
    >>> best.bound.metric, best.params["model"], best.params["gap"] >= 0
    ('makespan', "OnePort(sync=True, cost='linear', ties='fixed')", True)
    >>> cs.plan(p, cs.Scatter(source="h9", targets=p.hosts, size=1e3))
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: scatter participant 'h9' is not in platform 'star-4' (hosts are h0, h1, h2, h3)
    """
    collective.validate(platform)
    if algorithm is None:
        if options:
            raise ValueError(f"options {sorted(options)} need an algorithm (plan(..., algorithm=NAME, ...))")
        from .compare import compare

        return best_of(compare(platform, collective, model=model, seed=seed, steady=False, budget=budget))
    if model is not None:
        raise ValueError("model= chooses among algorithms: give it without algorithm=")
    if budget is not None:
        raise ValueError("budget= limits the comparison of every algorithm: give it without algorithm=")
    algo = registry.get(algorithm)
    if not algo.applies_to(collective):
        from .compare import not_applicable

        raise not_applicable(algorithm, collective)
    accepted = [p for p, v in inspect.signature(algo.function).parameters.items() if v.kind == v.KEYWORD_ONLY]
    for key in options:
        if key not in accepted:
            raise ValueError(f"algorithm {algorithm!r} has no option {key!r} (options: {', '.join(accepted)})")
    schedule = algo.function(platform, collective, seed=seed, **options)
    return dataclasses.replace(schedule, collective=collective)


def best_of(comparison) -> Schedule:
    """The best schedule of a comparison, carrying the comparison's bound and, in ``params``, its model and gap.

    Parameters
    ----------
    comparison : Comparison
        From :func:`collsched.compare.compare`.

    Returns
    -------
    Schedule
        The best valid candidate's schedule: ``bound`` the comparison's
        (valid under its model), ``params["model"]``, ``params["gap"]`` and
        ``params["achieved"]`` added.

    Raises
    ------
    CollschedError
        If every candidate failed.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> s = best_of(compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)))
    >>> s.algorithm, s.params["model"]
    ('binomial', "Fluid(one_port=False, ties='fixed')")
    """
    best = comparison.best
    params = dict(best.schedule.params, model=repr(comparison.model), gap=best.gap, achieved=best.achieved)
    return dataclasses.replace(best.schedule, bound=comparison.bound or best.schedule.bound, params=params)
