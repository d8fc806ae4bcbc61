"""Which synchronisation modes a comparison runs a step schedule with, and how large each mode's program is.

A step schedule lowers with barriers, ready signals or per-sender order
(:data:`~collsched.schedules.steps.SYNC_MODES`); :func:`collsched.compare.compare`
runs it in each mode that fits the operation limit and the time left, and
keeps the best.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> s = cs.plan(p, c, algorithm="caterpillar")
>>> modes_to_try(s, p, c, float("inf"), 50)
(['post_all', 'ready'], ['sync barrier not run: its program would have 0.0 M operations > the limit of 5e-05 M (max_ops)'])
"""

from __future__ import annotations

import time

from .algorithms.calibration import OP_SECONDS
from .schedules import StepSchedule
from .schedules.steps import SYNC_MODES, step_shape

__all__ = ["duration_text", "modes_to_try", "program_size"]


def duration_text(x: float) -> str:
    """A duration for a message: ``412 s``, ``3.2 s``, ``0.05 s``.

    Examples
    --------
    >>> duration_text(412.4), duration_text(3.21), duration_text(0.0512)
    ('412 s', '3.2 s', '0.051 s')
    """
    return f"{x:.0f} s" if x >= 10 else f"{x:.2g} s"


def modes_to_try(schedule, platform, collective, deadline: float, max_ops: int) -> tuple[list, list[str]]:
    """The synchronisation modes to try, smallest program first (not those over the operation limit or the time
    left), and why not the others.

    The mode of the smallest program always runs, so that the candidate has a result.

    Parameters
    ----------
    schedule : Schedule
        Only a :class:`~collsched.schedules.StepSchedule` has modes; any other gives ``[None]``.
    platform, collective
        What the schedule is lowered for.
    deadline : float
        ``time.perf_counter()`` by which the comparison should end; a mode estimated
        (:data:`~collsched.algorithms.calibration.OP_SECONDS` per operation) to end after it is not tried.
    max_ops : int
        The largest program a mode other than the smallest may lower to.

    Returns
    -------
    (list, list of str)
        The modes to try, and one note per mode left out.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = cs.plan(p, c, algorithm="caterpillar")
    >>> modes_to_try(s, p, c, float("inf"), 10**6)
    (['post_all', 'ready', 'barrier'], [])
    >>> modes_to_try(cs.plan(p, cs.Scatter(source="h0", targets=p.hosts, size=1), algorithm="linear"), p, c, 0.0, 1)
    ([None], [])
    """
    if not isinstance(schedule, StepSchedule):
        return [None], []
    ops = _sizes(schedule, platform, collective)
    cheapest = min(SYNC_MODES, key=lambda sync: ops[sync])
    kept, notes = [], []
    for sync in SYNC_MODES:
        seconds, left = ops[sync] * OP_SECONDS, deadline - time.perf_counter()
        if sync != cheapest and ops[sync] > max_ops:
            notes.append(f"sync {sync} not run: its program would have {ops[sync] / 1e6:.1f} M operations "
                         f"> the limit of {max_ops / 1e6:g} M (max_ops)")
        elif sync != cheapest and seconds > left:
            notes.append(f"sync {sync} not run: {ops[sync] / 1e6:.1f} M operations, estimated {duration_text(seconds)} "
                         f"> {duration_text(left)} left of the budget")
        else:
            kept.append(sync)
    return sorted(kept, key=lambda sync: ops[sync]), notes


def program_size(schedule: StepSchedule, platform, collective, sync: str) -> int:
    """The number of operations of ``schedule.lower(platform, collective, sync=sync)``, without lowering it.

    Exact for schedules of direct messages (a reduction's combining steps
    add computations it does not count): two operations per transfer, four
    with ready signals, and with barriers ``2 n ceil(log2 n)`` more between
    consecutive steps (``n`` ranks).

    Parameters
    ----------
    schedule : StepSchedule
    platform : Platform
    collective : Collective
    sync : {"barrier", "ready", "post_all"}

    Returns
    -------
    int

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = cs.plan(p, c, algorithm="caterpillar")
    >>> [(program_size(s, p, c, sync), s.lower(p, c, sync=sync).n_ops) for sync in SYNC_MODES]
    [(56, 56), (48, 48), (24, 24)]
    """
    return _sizes(schedule, platform, collective)[sync]


def _sizes(schedule: StepSchedule, platform, collective) -> dict[str, int]:
    """:func:`program_size` of every mode of :data:`SYNC_MODES`, from one pass over the steps."""
    groups, transfers = step_shape(schedule.steps, collective.count)
    n = len(platform.hosts)
    return {"post_all": 2 * transfers, "ready": 4 * transfers,
            "barrier": 2 * transfers + max(0, groups - 1) * 2 * n * (n - 1).bit_length()}
