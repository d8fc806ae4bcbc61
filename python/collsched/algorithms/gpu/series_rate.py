"""The steady rate of a forest series, read from one simulation: completion times of instances in the full pipeline.

A series lowered in rounds (:class:`~collsched.schedules.ForestSchedule`,
``messages="round"``, one chunk) sends the stage-``g`` pieces of instance
``t`` in round ``t + g``: rounds ``0 .. S-2`` fill the pipeline (``S``
stages), rounds ``count .. count+S-2`` drain it, and in between every
round carries one instance's load on every link. The instances whose
rounds all lie in the full part are ``S-1 .. count-S``; their completion
times (the end of the last receive or combination that touches them) are
one period apart, so the steady rate is ``w / (T[k+w] - T[k])`` over
``k = S-1`` and ``k + w = count - S``. The marginal rate between two series
lengths (:func:`collsched.simulation.steady.steady_rate`) measures the same
thing with two simulations, but only once both lengths are well past the
fill and drain (series of ``S`` rounds or more on each side).

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules import ForestSchedule, ForestTree
>>> p = cs.topologies.star(2, bandwidth=100, latency=0)
>>> t = [ForestTree("h0", 100, [("h0", "h1")]), ForestTree("h1", 100, [("h1", "h0")])]
>>> f = ForestSchedule(participants=("h0", "h1"), trees=t, throughput=100, rate_bound=100)
>>> c = cs.Series(cs.AllGather(participants=["h0", "h1"], size=100), count=steady_count(f, 4))
>>> prog = f.lower(p, c)
>>> times = completion_times(prog, cs.simulate(p, prog, model=cs.models.Fluid()).trace, c.count)
>>> times.tolist()
[1.0, 2.0, 3.0, 4.0, 5.0]
>>> steady_window(f, c.count), series_rate(f, c, times)
((0, 4), 1.0)
"""

from __future__ import annotations

import numpy as np

__all__ = ["steady_count", "steady_window", "completion_times", "series_rate"]


def _stages(schedule) -> int:
    return max((g for g, *_ in schedule.stage_arcs()), default=0) + 1


def steady_count(schedule, width: int) -> int:
    """The series length whose full pipeline holds ``width + 1`` instances: ``2 (S - 1) + width + 1``.

    Parameters
    ----------
    schedule : ForestSchedule
        One chunk per instance.
    width : int
        Periods to measure over, >= 1.

    Returns
    -------
    int

    Examples
    --------
    >>> from collsched.schedules import ForestSchedule, ForestTree
    >>> t = [ForestTree("a", 1, [("a", "b"), ("b", "c")]), ForestTree("b", 1, [("b", "a"), ("a", "c")]),
    ...      ForestTree("c", 1, [("c", "a"), ("a", "b")])]
    >>> steady_count(ForestSchedule(participants=("a", "b", "c"), trees=t, throughput=1, rate_bound=1), 10)
    13
    """
    return 2 * (_stages(schedule) - 1) + width + 1


def steady_window(schedule, count: int) -> tuple[int, int]:
    """The first and last instance whose rounds all lie in the full pipeline of a series of ``count``.

    Parameters
    ----------
    schedule : ForestSchedule
    count : int

    Returns
    -------
    (int, int)
        ``(S - 1, count - S)``.

    Raises
    ------
    ValueError
        The series is too short to have two such instances.

    Examples
    --------
    >>> from collsched.schedules import ForestSchedule, ForestTree
    >>> t = [ForestTree("a", 1, [("a", "b")]), ForestTree("b", 1, [("b", "a")])]
    >>> steady_window(ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1), 1)
    Traceback (most recent call last):
    ...
    ValueError: a series of 1 has no two instances in the full pipeline (make it at least 2: steady_count)
    """
    stages = _stages(schedule)
    first, last = stages - 1, count - stages
    if last <= first:
        raise ValueError(f"a series of {count} has no two instances in the full pipeline "
                         f"(make it at least {2 * stages}: steady_count)")
    return first, last


def completion_times(program, trace, count: int) -> np.ndarray:
    """Per instance of a series, when its last piece arrived or was combined.

    Parameters
    ----------
    program : Program
    trace : Trace
        Of ``program`` (:attr:`SimResult.trace <collsched.schedules.trace.SimResult>`).
    count : int
        Instances.

    Returns
    -------
    numpy.ndarray
        Seconds, one per instance: the latest end of a receive of a message
        carrying a piece of it, or of a computation combining one.

    Examples
    --------
    See the module docstring.
    """
    send, recv = program.message_ops()
    end = np.asarray(trace.end, dtype=float).copy()
    has_recv = send >= 0
    end[send[has_recv]] = np.asarray(trace.end)[recv[has_recv]]  # a message's pieces arrive when it is received
    owner = np.repeat(np.arange(program.n_ops), np.diff(program.piece_ptr))
    times = np.zeros(count)
    np.maximum.at(times, program.pieces[:, 1], end[owner])
    return times


def series_rate(schedule, collective, times: np.ndarray) -> float:
    """The steady rate over the full pipeline, relative to the rate ``schedule`` claims (1.0: exactly it).

    Parameters
    ----------
    schedule : ForestSchedule
        Its claimed rate is :meth:`~collsched.schedules.ForestSchedule.operations_per_second`.
    collective : Series
        The series simulated.
    times : numpy.ndarray
        :func:`completion_times` of a series of ``len(times)``.

    Returns
    -------
    float
        ``(k2 - k1) / (times[k2] - times[k1])`` over :func:`steady_window`, divided by the claimed rate.

    Examples
    --------
    See the module docstring.
    """
    k1, k2 = steady_window(schedule, len(times))
    return float((k2 - k1) / (times[k2] - times[k1]) / float(schedule.operations_per_second(collective)))
