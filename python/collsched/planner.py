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
collsched.errors.CollschedError: algorithm 'caterpillar' does not apply to a broadcast (applicable: binomial, linear)
>>> cs.plan(p, cs.Broadcast(source="h1", targets=p.hosts, size=1e6), algorithm="binomial", depth=3)
Traceback (most recent call last):
...
ValueError: algorithm 'binomial' has no option 'depth' (options: seed)
"""

from __future__ import annotations

import dataclasses
import inspect

from .algorithms import registry
from .errors import CollschedError
from .schedules import Schedule

__all__ = ["plan", "DEFAULT_ALGORITHM"]

# What an MPI library would run; the planner that ranks every algorithm by
# simulation arrives with the simulator.
DEFAULT_ALGORITHM = {"reduce": "binomial", "broadcast": "binomial", "scatter": "binomial", "gather": "binomial",
                     "alltoall": "caterpillar", "alltomany": "caterpillar"}


def plan(platform, collective, algorithm: str | None = None, *, seed: int = 0, **options) -> Schedule:
    """A schedule for ``collective`` on ``platform``.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    algorithm : str, optional
        A registered name (see :func:`collsched.algorithms.names`); by default
        the MPI-library algorithm for the collective's kind (:data:`DEFAULT_ALGORITHM`).
    seed : int
        For randomised algorithms.
    **options
        Options of the algorithm, keyword-only; an unknown one raises ValueError.

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
        Unknown algorithm, or one that does not apply to the collective.
    CollectiveError, PlatformError
        The collective does not fit the platform.
    ValueError
        An option the algorithm does not take.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Reduce(participants=p.hosts, target="h0", size=1e6, task_cost=1e6)
    >>> s = cs.plan(p, c)
    >>> s.algorithm, s.root, dict(s.children)
    ('binomial', 'h0', {'h0': ('h1', 'h2'), 'h2': ('h3',)})
    >>> cs.validate(p, c, s)
    >>> s = cs.plan(p, cs.AllToAll(senders=p.hosts, size=1e3))
    >>> s.shape, s.algorithm, len(s)
    ('steps', 'caterpillar', 3)
    >>> cs.plan(p, cs.Scatter(source="h9", targets=p.hosts, size=1e3))
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: scatter participant 'h9' is not in platform 'star-4' (hosts are h0, h1, h2, h3)
    """
    collective.validate(platform)
    name = algorithm or DEFAULT_ALGORITHM[collective.base.kind]
    algo = registry.get(name)
    if not algo.applies_to(collective):
        applicable = ", ".join(a.name for a in registry.applicable(collective)) or "none"
        what = "a series of " + collective.base.kind if collective.kind == "series" else "a " + collective.kind
        raise CollschedError(f"algorithm {name!r} does not apply to {what} (applicable: {applicable})")
    accepted = [p for p, v in inspect.signature(algo.function).parameters.items() if v.kind == v.KEYWORD_ONLY]
    for key in options:
        if key not in accepted:
            raise ValueError(f"algorithm {name!r} has no option {key!r} (options: {', '.join(accepted)})")
    schedule = algo.function(platform, collective, seed=seed, **options)
    return dataclasses.replace(schedule, collective=collective)
