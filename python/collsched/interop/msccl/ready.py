"""The MSCCL-ready schedule: what a file runs, as a Program the user simulates, compares and is told about.

A schedule as planned is not always what an MSCCL file can run: a forest's
chunks may not fit the runtime (too many per loop, not whole bytes at
``minBytes``, too many messages), nor a step schedule's parts of messages
on a grid of ``2**-40`` (``open_shop_preemptive``'s: rounded onto a grid
of chunks, :mod:`~collsched.interop.msccl.parts`), the runtime has no
message without data,
and messages that run together between two GPUs may need merging (or cutting
to 71 chunks) to fit its thread blocks and channels. :func:`ready` makes
those changes first and returns them as one :class:`Ready`: the schedule
exported (the forest :func:`~collsched.interop.msccl.export.fit_chunks`
makes, with its own claimed throughput, when the planned one does not fit),
the Program the file runs (that schedule lowered, without signals, its
messages merged or cut as packed, and each operation waiting for the one
before it in its thread block,
:func:`~collsched.interop.msccl.threadblocks.in_blocks`), the file, and
that Program's time under ``Fluid``, which the file read back takes
exactly (``tests/interop/test_msccl_ready.py``).

Why a Program and not a new schedule: merging, cutting and the thread-block
order depend on MSCCL's chunk grid and limits, which no schedule shape of
collsched knows (and ``schedules`` may not import ``interop``); the
rounded forest *is* a schedule (a :class:`~collsched.schedules.ForestSchedule`
with its own throughput), the rest is the Program that
:func:`collsched.simulate` and :func:`collsched.compare.compare` take as
they take any other.

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.star(3)
>>> c = cs.AllGather(participants=g.hosts, size=2**20)
>>> r = ready(g, c, cs.plan(g, c, algorithm="ring"))
>>> r.changes
('6 messages without data dropped (the runtime has none)',)
>>> r.makespan == cs.simulate(g, r.program, c, model=cs.models.Fluid()).makespan
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...schedules import ForestSchedule, StepSchedule
from ...schedules.base import Bound
from ...schedules.validate import lower_any

__all__ = ["Ready", "ready"]


@dataclass(frozen=True)
class Ready:
    """A schedule made ready for MSCCL (module docstring).

    Attributes
    ----------
    planned : Schedule or Program
        As given.
    schedule : Schedule or Program
        What is exported: ``planned``, or the forest that fits (fewer chunks,
        tree shares on a coarser grid, its own throughput).
    program : Program
        What the file runs, op for op (without its ``cpy`` and ``nop`` steps, which cost nothing).
    text : str
        The MSCCL XML.
    makespan : float
        ``program`` under ``Fluid`` (s): the file's time.
    planned_makespan : float
        ``planned`` lowered (with its signals) under ``Fluid`` (s).
    bound : Bound or None
        :func:`collsched.bounds.collective_bound` under ``Fluid``.
    changes : tuple of str
        What changed from ``planned`` to ``program``, one phrase each (empty: nothing): the forest fitted,
        messages without data dropped, messages merged, cut or serialised, and the time the thread blocks'
        order adds where it adds any.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(2)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> r = ready(g, c, cs.plan(g, c, algorithm="direct"))
    >>> r.changes, r.makespan == r.planned_makespan, f"{r.gap:+.1%}"
    ((), True, '+0.0%')
    """

    planned: object
    schedule: object
    program: object
    text: str
    makespan: float
    planned_makespan: float
    bound: Bound | None
    changes: tuple

    def write(self, path) -> Path:
        """Write :attr:`text` to ``path`` atomically (as :func:`~collsched.interop.msccl.export.write`); returns it.

        Examples
        --------
        >>> import collsched as cs, pathlib, tempfile
        >>> g = cs.topologies.star(2)
        >>> c = cs.AllGather(participants=g.hosts, size=2**20)
        >>> r = ready(g, c, cs.plan(g, c, algorithm="direct"))
        >>> r.write(pathlib.Path(tempfile.mkdtemp()) / "d.xml").read_text() == r.text
        True
        """
        from .export import _atomic_write

        _atomic_write(Path(path), self.text)
        return Path(path)

    @property
    def gap(self) -> float | None:
        """``makespan`` over the bound, less 1 (None without a bound)."""
        return None if self.bound is None else self.makespan / float(self.bound.value) - 1

    def summary(self) -> str:
        """One line: the file's time under Fluid, its gap, and against the schedule as planned, what changed.

        Examples
        --------
        >>> import collsched as cs
        >>> g = cs.topologies.star(2)
        >>> c = cs.AllReduce(participants=g.hosts, size=2**20)
        >>> print(ready(g, c, cs.plan(g, c, algorithm="direct")).summary())  # doctest: +NORMALIZE_WHITESPACE
        Fluid: the file (its Program) takes 8428.608 us, gap +0.2% to the bound (the contribution of h0 to h1
        alone, over every link of both); the schedule as planned 8448.608 us (-0.2%): 2 messages without data
        dropped (the runtime has none)
        """
        gap = "" if self.bound is None else f", gap {self.gap:+.1%} to the bound ({self.bound.name})"
        change = f" ({self.makespan / self.planned_makespan - 1:+.1%}): " + "; ".join(self.changes) \
            if self.changes else ""
        return (f"Fluid: the file (its Program) takes {self.makespan * 1e6:.3f} us{gap}; the schedule as planned "
                f"{self.planned_makespan * 1e6:.3f} us{change}")


def ready(platform, collective, schedule_or_program, *, strict: bool = False, exact: bool = False,
          name: str = "collsched", proto: str = "Simple", min_bytes: int | None = None,
          max_bytes: int | None = None) -> Ready:
    """The schedule made ready for MSCCL: what is exported, the Program the file runs, the file and its time.

    Parameters
    ----------
    platform, collective, schedule_or_program
        As :func:`~collsched.interop.msccl.export.to_xml`.
    strict : bool
        False (default): a forest schedule whose export does not fit is
        replaced by :func:`~collsched.interop.msccl.export.fit_chunks`'s,
        a step schedule whose parts of messages are too fine a chunk grid
        by its parts rounded onto :func:`~collsched.interop.msccl.parts.grid_for`'s
        grid (:func:`~collsched.interop.msccl.parts.round_parts`; ``changes``
        says how); True: refused, as
        :func:`~collsched.interop.msccl.export.to_xml` refuses it.
    exact : bool
        True: exported as it is or refused (LimitError), never fitted,
        in fewer chunks, merged or serialised (messages of more than 71
        chunks are still cut, and ``changes`` says so): what
        :func:`~collsched.interop.msccl.planning.plan` tries its
        candidates with, so that a refusal costs no merging.
    name, proto, min_bytes, max_bytes
        As :func:`~collsched.interop.msccl.export.to_xml`.

    Returns
    -------
    Ready

    Raises
    ------
    CollschedError
        As :func:`~collsched.interop.msccl.export.to_xml` (with ``strict``,
        or a schedule that is not a forest), or no variant of the forest fits.

    Examples
    --------
    A forest in 8,192 chunks on a 3-GPU star needs more than 32 channels between two GPUs; it is exported in 256.

    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> r = ready(g, c, cs.plan(g, c, algorithm="forest", chunks=8192))
    >>> r.schedule.chunks, r.changes[0]
    (256, 'the forest in 8192 chunks exported in 256 chunks')
    """
    from ...bounds import collective_bound
    from ...simulation import models, simulate
    from .export import _to_xml, check_request, export_as_is, search
    from .fit import GRIDS, rounding
    from .lint import ChunkGridError, LimitError

    options = dict(name=name, proto=proto, min_bytes=min_bytes, max_bytes=max_bytes)
    schedule = schedule_or_program
    check_request(collective, proto)   # before the lowering
    lowered = lower_any(platform, collective, schedule_or_program)   # once: exported (if it fits) and simulated
    changes: tuple = ()
    if exact:
        out = _to_xml(platform, collective, lowered, **options, merge=False)
    elif isinstance(schedule, ForestSchedule) and not strict:
        fitted, out, err = search(platform, collective, schedule, options, grids=True, lowered=lowered)
        if fitted is None:
            raise LimitError(f"{err.what}; the forest does not fit in fewer chunks or with its shares on a grid of "
                             f"1/{GRIDS[0]} .. 1/1 either", fix=err.fix)
        if fitted is not schedule:
            changes = (f"the forest in {schedule.chunks} chunks exported in {fitted.chunks} chunks"
                       f"{rounding(schedule, fitted)}",)
        schedule = fitted
    else:
        try:
            out = export_as_is(platform, collective, schedule, options, lowered=lowered)
        except ChunkGridError as err:
            if strict or not isinstance(schedule, StepSchedule) or schedule.denominator == 1:
                raise
            schedule, changes = _parts_rounded(collective, schedule, err, min_bytes, max_bytes)
            out = export_as_is(platform, collective, schedule, options)
    fluid = models.Fluid()
    makespan = simulate(platform, out.program, collective, model=fluid).makespan
    order: tuple = ()
    if out.program is not out.unordered:   # what the thread blocks' order costs, when it does
        unordered = simulate(platform, out.unordered, collective, model=fluid).makespan
        if unordered != makespan:
            order = (f"each thread block's steps in order ({unordered * 1e6:.3f} us → {makespan * 1e6:.3f} us)",)
    planned = simulate(platform, lowered, collective, model=fluid).makespan
    return Ready(schedule_or_program, schedule, out.program, out.text, makespan, planned,
                 collective_bound(platform, collective, model=fluid), changes + tuple(out.packing) + order)


def _parts_rounded(collective, schedule: StepSchedule, err, min_bytes: int | None, max_bytes: int | None):
    """``(schedule, changes)``: a step schedule whose parts of messages are too fine a chunk grid (``err``), its parts
    rounded onto :func:`~collsched.interop.msccl.parts.grid_for`'s grid, and the phrase that says so; or ``err`` with
    why no grid fits."""
    from .export import _window
    from .lint import MAX_COUNT
    from .parts import grid_for, round_parts

    lo = _window(collective, min_bytes, max_bytes)[0]
    d = grid_for(collective.kind, len(collective.hosts), lo, schedule.denominator)
    if d is None:
        top = 1 << min(schedule.denominator, MAX_COUNT).bit_length() - 1
        raise type(err)(f"{err.what}; nor are they whole chunks with the parts of messages rounded to 1/{top} .. 1/1",
                        fix=err.fix)
    rounded = round_parts(schedule, d)
    parts = (schedule.n_transfers, rounded.n_transfers)
    return rounded, (f"parts of messages rounded from 1/{schedule.denominator} to 1/{d} of a message "
                     f"({parts[0]} parts → {parts[1]})",)
