"""A step schedule's parts of messages rounded onto a chunk grid the MSCCL runtime runs.

A :class:`~collsched.schedules.StepSchedule` may send parts of a message
(``Transfer.part``, in ``1/denominator``): ``open_shop_preemptive`` cuts
each message where its Birkhoff-von Neumann steps preempt it, on a grid of
``2**-40``. MSCCL moves chunks of ``1/nchunksperloop`` of a GPU's buffer, at
most 65,536 per loop and each a whole number of bytes at ``minBytes``
(:class:`~collsched.interop.msccl.lint.ChunkGridError`), and one step moves
at most :data:`~collsched.interop.msccl.lint.MAX_COUNT` chunks. Such parts
become chunks once their bounds are on a coarser grid: :func:`round_parts`
rounds every bound ``b`` of a part to ``round(b · d / denominator)`` in
``1/d``. The rounding is monotone and keeps ``0`` and ``denominator``, so the
parts of a message still cover it exactly once (a part that becomes empty is
dropped, and a step left empty with it); the schedule stays valid, with its
own time. :func:`grid_for` gives the ``d`` :func:`~collsched.interop.msccl.ready.ready`
uses: the finest power of two at which a message is at most one step of
chunks (``d <= MAX_COUNT``: no part is cut again into steps, each of which
would pay the route latency again) and the chunk grid fits.

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules import StepSchedule, Transfer
>>> g = cs.topologies.star(2)
>>> c = cs.AllToAll(senders=g.hosts, size=2**20)
>>> s = StepSchedule(steps=[[Transfer("h0", "h1", part=(0, 3))], [Transfer("h0", "h1", part=(3, 10)),
...                  Transfer("h1", "h0")]], denominator=10)
>>> r = round_parts(s, 4)
>>> r.denominator, [[t.part for t in step] for step in r.steps]
(4, [[(0, 1)], [(1, 4), None]])
>>> cs.validate(g, c, r)
"""

from __future__ import annotations

import dataclasses

from ...errors import CollschedError
from ...schedules import StepSchedule
from ...schedules.base import Status
from .lint import MAX_COUNT, chunk_bytes_finding
from .split import chunks_per_loop
from .xml_read import MAX_CHUNKS

__all__ = ["round_parts", "grid_for"]


def round_parts(schedule: StepSchedule, d: int) -> StepSchedule:
    """``schedule`` with every part's bounds rounded to the nearest multiple of ``1/d`` of its message.

    Parameters
    ----------
    schedule : StepSchedule
    d : int
        The new denominator, >= 1.

    Returns
    -------
    StepSchedule
        Denominator ``d``; a part that rounds to nothing is dropped, and a step left empty; no step durations
        (they were the parts' lengths before rounding); status FEASIBLE (its planned optimality no longer holds), its
        message saying so.

    Raises
    ------
    CollschedError
        ``d`` not an integer >= 1.

    Examples
    --------
    >>> from collsched.schedules import Transfer
    >>> s = StepSchedule(steps=[[Transfer("a", "b", part=(0, 1))], [Transfer("a", "b", part=(1, 8))]], denominator=8)
    >>> r = round_parts(s, 2)   # [0, 1/8) rounds to nothing: its step goes
    >>> len(r.steps), r.steps[0][0].part, r.status.value
    (1, (0, 2), 'feasible')
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 1:
        raise CollschedError(f"grid 1/{d!r}", fix="give an integer >= 1")
    den = schedule.denominator

    def bound(b: int) -> int:   # the nearest multiple of den/d, ties up: exact integer arithmetic
        return (2 * b * d + den) // (2 * den)

    steps = []
    for step in schedule.steps:
        kept = []
        for t in step:   # a whole message (no part) stays whole
            part = t.part and (bound(t.part[0]), bound(t.part[1]))
            if part is None or part[0] < part[1]:
                kept.append(t if part is None else dataclasses.replace(t, part=part))
        if kept:
            steps.append(tuple(kept))
    note = f"parts of messages rounded from 1/{den} to 1/{d} (msccl.round_parts)"
    return dataclasses.replace(schedule, steps=tuple(steps), denominator=d, durations=None, status=Status.FEASIBLE, message="; ".join(x for x in (schedule.message, note) if x))


def grid_for(kind: str, n: int, min_bytes: int, denominator: int) -> int | None:
    """The finest power of two ``d <= min(denominator, MAX_COUNT)`` whose chunk grid the runtime runs, or None.

    A Program whose parts are on ``1/d`` has at most :func:`~collsched.interop.msccl.split.chunks_per_loop`
    ``(kind, n, d)`` chunks per loop (a coarser grid, its divisor, where the parts allow): it fits when that count is
    at most 65,536 and its chunks are whole bytes at ``min_bytes``.

    Parameters
    ----------
    kind : str
        The collective's kind.
    n : int
        GPUs.
    min_bytes : int
        The file's ``minBytes``.
    denominator : int
        The schedule's.

    Returns
    -------
    int or None

    Examples
    --------
    >>> grid_for("alltoall", 8, 8 * 2**20, 2**40), grid_for("alltoall", 32, 32 * 48, 2**40)
    (64, 16)
    >>> grid_for("alltoall", 3, 3, 2**40), grid_for("allreduce", 3, 4, 2**40)   # 1-byte messages: whole ones
    (1, None)
    """
    d = 1 << min(denominator, MAX_COUNT).bit_length() - 1
    while d >= 1:
        nchunks = chunks_per_loop(kind, n, d)[1]
        if nchunks <= MAX_CHUNKS and chunk_bytes_finding(min_bytes, nchunks) is None:
            return d
        d //= 2
    return None
