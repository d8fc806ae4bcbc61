"""The registered ``liquid`` algorithm: a liquid schedule, or the shortest one, with its bound.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.switch_ring(4, 2, bandwidth=86e6)
>>> c = cs.AllToAll(senders=p.hosts, size=1e6)
>>> s = liquid(p, c)
>>> s.params["length"] >= s.params["duration"], s.bound.metric
(True, 'makespan')
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

from ...schedules import StepSchedule, Transfer
from ...schedules.base import Bound, Status
from ..registry import register
from .fallback import heuristic_steps, shortest
from .traffic import KINDS, Traffic, traffic_of

__all__ = ["liquid", "to_schedule"]

METHODS = ("exact", "heuristic")


def to_schedule(traffic: Traffic, steps, *, algorithm: str, status: Status = Status.FEASIBLE, message: str = "",
                bound_steps: int | None = None, params: dict | None = None) -> StepSchedule:
    """A StepSchedule of ``steps`` (transfer indices), with durations and the busy-time bound.

    Parameters
    ----------
    traffic : Traffic
    steps : iterable of iterable of int
    algorithm : str
    status : Status
    message : str
    bound_steps : int, optional
        A certified lower bound on the number of steps, recorded in ``params``.
    params : dict, optional
        More parameters to record.

    Returns
    -------
    StepSchedule
        Each step's duration is its slowest transfer's time; the bound is
        the largest resource busy time (``Λ`` steps on identical links).

    Examples
    --------
    >>> X = Traffic(transfers=(("a", "b", 0), ("c", "b", 0)), routes=((0, 1), (2, 1)), resources=("la", "lb", "lc"),
    ...             times=(1.0, 2.0), busy=((1.0, 1.0), (2.0, 2.0)))
    >>> s = to_schedule(X, [[1], [0]], algorithm="x")
    >>> s.durations, s.bound.value, s.params["length"], s.params["duration"]
    ((2.0, 1.0), 3.0, 2, 2)
    """
    steps = [tuple(step) for step in steps if step]
    out = tuple(tuple(Transfer(*traffic.transfers[i]) for i in step) for step in steps)
    durations = tuple(traffic.step_time(step) for step in steps) if traffic.times else None
    info = {"length": len(out), "duration": traffic.duration, "transfers": len(traffic)}
    if bound_steps is not None:
        info["bound_steps"] = bound_steps
    info.update(params or {})
    bound = Bound(traffic.busy_bound, "makespan", "largest link busy time (liquid bound)") if traffic.busy else None
    return StepSchedule(steps=out, durations=durations, algorithm=algorithm, params=info, bound=bound,
                        status=status, message=message)


@register("liquid", family="liquid", kinds=KINDS,
          summary="liquid schedule (bottleneck links always busy), or the shortest schedule")
def liquid(platform, collective, *, seed: int = 0, method: str = "exact", budget: int = 2_000_000,
           symmetry: bool = True) -> StepSchedule:
    """A liquid schedule of the exchange, or the shortest schedule when none exists (seed 001).

    Parameters
    ----------
    platform : Platform
        Its static routes give each transfer's links.
    collective : AllToAll or AllToMany
        Or a :class:`~collsched.collectives.Series` of one (each pair then
        communicates once per instance, as in the paper's Annex A).
    seed : int
        Unused (the search is deterministic).
    method : {"exact", "heuristic"}
        ``exact``: the liquid search, then exact searches for longer lengths
        (Section 4, generalised); ``heuristic``: first fit in
        the caterpillar's order, or the greedy most-loaded-first steps when
        shorter (for traffics too large to search; its gap to Λ is in the message).
    budget : int
        Categories each exact search may visit before it stops (then the
        status is LIMIT and the best schedule found so far is returned).
    symmetry : bool
        Fix one transfer per step during the search (exact; False follows
        the paper to the letter).

    Returns
    -------
    StepSchedule
        Steps of mutually non-congesting transfers; ``params`` holds
        ``length``, ``duration`` (Λ), ``bound_steps`` (certified lower bound
        on the length), ``liquid``, ``nodes`` and ``seconds``; the status is
        OPTIMAL when the length equals the certified bound; ``message`` says
        "length L, bound B". The bound is the largest link busy time.

    Raises
    ------
    ValueError
        If an option has a bad value.
    CollectiveError
        If the collective is not an all-to-all or all-to-many.

    Notes
    -----
    The search minimises the number of steps, the paper's measure on
    identical links. On heterogeneous links each step lasts as long as its
    slowest transfer (``durations``), the bound is the largest link busy
    time, and a schedule of fewest steps need not be the one of least time:
    compare ``sum(durations)`` with ``bound.value``.

    The search is exponential in the worst case; ``budget`` caps it. The
    exact fallback climbs from Λ one length at a time, each failure a proof
    that raises the certified bound.

    References
    ----------
    E. Gabrielyan, R. D. Hersch, "Efficient Construction of Liquid Schedules
    for a Collective Communication" (seed 001), Sections 2-4.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective
    >>> p, c = figure1_platform(), figure1_collective(1e6)
    >>> s = liquid(p, c)
    >>> s.message
    'liquid: length 6, bound 6 (Λ = 6)'
    >>> s.durations[0], round(s.bound.value, 9)
    (0.01, 0.06)
    >>> liquid(p, c, method="greedy")
    Traceback (most recent call last):
    ...
    ValueError: option method must be one of exact, heuristic, got 'greedy'
    """
    if method not in METHODS:
        raise ValueError(f"option method must be one of {', '.join(METHODS)}, got {method!r}")
    if not isinstance(budget, int) or budget < 1:
        raise ValueError(f"option budget must be an integer >= 1, got {budget!r}")
    traffic = traffic_of(platform, collective)
    lam = traffic.duration
    if method == "heuristic":
        steps = heuristic_steps(traffic)
        status = Status.OPTIMAL if len(steps) == lam else Status.FEASIBLE
        gap = (len(steps) - lam) / lam if lam else 0.0
        return to_schedule(traffic, steps, algorithm="liquid", status=status, bound_steps=lam,
                           message=f"heuristic: length {len(steps)}, bound {lam} (Λ = {lam}, gap {gap:.2%})",
                           params={"liquid": len(steps) == lam, "method": method})
    r = shortest(traffic, budget=budget, symmetry=symmetry)
    kind = "liquid" if r.liquid else ("optimal" if r.status is Status.OPTIMAL else "best found")
    return to_schedule(traffic, r.steps, algorithm="liquid", status=r.status, bound_steps=r.bound,
                       message=f"{kind}: length {r.length}, bound {r.bound} (Λ = {lam})",
                       params={"liquid": r.liquid, "method": method, "nodes": r.nodes, "seconds": r.seconds})
