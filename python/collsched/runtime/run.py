"""``cs.run``: execute schedules, programs and MPI's own collectives for real, in one MPI job.

Examples
--------
>>> import collsched as cs
>>> from collsched.runtime import mpi_available
>>> p = cs.topologies.star(4, bandwidth="1GBps", latency="1us")
>>> c = cs.Reduce(participants=["h2", "h0", "h3", "h1"], target="h0", size=4096, task_cost=1e3)
>>> if mpi_available() is None:
...     r = cs.run(p, cs.plan(p, c, algorithm="binomial"), c)
...     assert r.verified and r.makespan > 0 and r.result.backend == "mpi"
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..collectives import Collective, Series
from ..schedules.program import Program
from ..schedules.program_io import save_program
from ..schedules.values import Part
from ..schedules.validate import lower_any
from .baselines import BASELINE_CALLS, baseline_task
from .launch import RunError, launch
from .result import RunResult

__all__ = ["run", "run_many", "run_baseline", "MPICollective", "COMPUTE_MODES", "POLL"]

COMPUTE_MODES = ("model", "real")
POLL = 2e-4
"""Default ``poll`` (seconds) with an emulated network or more ranks than cores."""


@dataclass(frozen=True)
class MPICollective:
    """An item of :func:`run_many`: MPI's own implementation of ``collective`` (see :mod:`.baselines`).

    Examples
    --------
    >>> import collsched as cs
    >>> MPICollective(cs.Broadcast(source="h0", targets=["h1"], size=8)).collective.kind
    'broadcast'
    """

    collective: Collective


def _check(repeat, timeout, compute) -> None:
    if isinstance(repeat, bool) or not isinstance(repeat, (int, np.integer)) or repeat < 1:
        raise ValueError(f"run option repeat={repeat!r} is not an integer >= 1")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"run option timeout={timeout!r} is not a positive number of seconds")
    if compute not in COMPUTE_MODES:
        raise ValueError(f"run option compute={compute!r} is not one of {', '.join(map(repr, COMPUTE_MODES))}")


def run_many(platform, items: Sequence, *, repeat: int = 1, timeout: float = 120.0, compute: str = "model",
             emulation=None, latency: bool | None = None, poll: float | None = None, fault: dict | None = None,
             check: bool = True) -> list[RunResult]:
    """Execute several items in one MPI job (one launch costs about a second); one result per item.

    Parameters
    ----------
    platform : Platform
    items : sequence
        Each a ``(schedule_or_program, collective)`` pair (collective may be
        None for a program: then only message contents are checked, not
        what ranks end with), or an :class:`MPICollective`.
    repeat : int
        Repetitions of each item; the result is the median one.
    timeout : float
        Seconds the whole job may take.
    compute : {"model", "real"}
        ``"model"``: a computation lasts ``cost / speed`` of its rank (it sleeps
        after the real matrix products); ``"real"``: only the products.
    emulation : Emulation, optional
        An emulated network (:class:`~collsched.runtime.emulation.Emulation`, entered).
    latency : bool, optional
        Wait each route's latency before posting a send (default: with an emulation only).
    poll : float, optional
        Seconds a rank sleeps between tests for completions; 0 waits in
        ``MPI_Waitsome`` (Open MPI spins). Default: :data:`POLL` with an
        emulation or with more ranks than cores (spinning ranks would take
        the CPU from the working ones), else 0.
    fault : dict, optional
        Fault injection for tests: ``{"rank": node id, "what": "raise" | "corrupt" | "hang" | "kill"}``:
        the rank raises, flips a byte of its first message, never finishes, or dies of SIGKILL.
    check : bool
        Raise :class:`RunError` if any item is not verified (else return it with its problems).

    Returns
    -------
    list of RunResult

    Raises
    ------
    RunError
        MPI is missing, a rank failed (naming it), a timeout, or (with ``check``) wrong data.
    ValueError
        A bad option.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.runtime import mpi_available
    >>> p = cs.topologies.star(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e4)
    >>> if mpi_available() is None:
    ...     ours, mpi = run_many(p, [(cs.plan(p, c, algorithm="binomial"), c), MPICollective(c)])
    ...     assert ours.verified and mpi.verified and mpi.what == "MPI_Bcast"
    """
    import tempfile

    _check(repeat, timeout, compute)
    if latency is None:
        latency = emulation is not None
    if poll is not None and (isinstance(poll, bool) or not isinstance(poll, (int, float)) or not 0 <= poll < 1):
        raise ValueError(f"run option poll={poll!r} is not a number of seconds in [0, 1)")
    network = "local" if emulation is None else f"emulated {emulation.platform.name}"
    prepared = []  # (kind, program or task, count)
    for item in items:
        if isinstance(item, MPICollective):
            prepared.append(("baseline", baseline_task(platform, item.collective, repeat=repeat), item.collective))
            continue
        schedule, collective = item
        if not isinstance(schedule, Program):
            collective = schedule.answering(collective)
        prepared.append(("program", lower_any(platform, collective, schedule), collective))
    used = {r for kind, x, _ in prepared for r in (x.ranks if kind == "program" else x["ranks"])}
    nodes = emulation.world if emulation is not None else tuple(platform.nodes)
    world = [n for n in nodes if n in used]
    missing = sorted(used - set(world))
    if missing:
        where = "the emulated platform" if emulation is not None else f"platform {platform.name!r}"
        raise RunError(f"ranks {', '.join(missing[:4])} are not nodes of {where}",
                       fix="run the schedules on the platform they were planned on")
    if poll is None:
        poll = POLL if emulation is not None or len(world) > (os.cpu_count() or 1) else 0.0
    with tempfile.TemporaryDirectory(prefix="collsched-programs-") as folder:
        tasks = []
        for n, (kind, x, collective) in enumerate(prepared):
            if kind == "baseline":
                tasks.append(x)
                continue
            path = os.path.join(folder, f"program-{n}.json")
            save_program(x, path)
            tasks.append(_program_task(platform, x, collective, path, repeat, compute, latency, fault) | {"poll": poll})
        answers = launch(world, tasks, timeout=timeout, emulation=emulation)
    results = []
    for (kind, x, collective), answer in zip(prepared, answers):
        count = collective.count if isinstance(collective, Series) else None
        if kind == "baseline":
            results.append(RunResult.of_baseline(BASELINE_CALLS[x["op"]], x["ranks"], platform, answer["start"],
                                                 answer["end"], answer["problems"], network=network, count=count))
        else:
            results.append(RunResult.of_program(x, platform, np.array(answer["start"]), np.array(answer["end"]),
                                                answer["problems"], network=network, count=count))
    if check:
        for r in results:
            if not r.verified:
                more = f" (and {len(r.problems) - 1} more)" if len(r.problems) > 1 else ""
                raise RunError(f"{r.what!r} over MPI delivered wrong data: {r.problems[0]}{more}")
    return results


def _program_task(platform, program: Program, collective, path, repeat, compute, latency, fault) -> dict:
    task = {"kind": "program", "program": path, "repeat": int(repeat), "compute": compute, "fault": fault,
            "speed": [float(platform.nodes[r].speed or 1e9) if r in platform.nodes else 1e9 for r in program.ranks]}
    if collective is not None:
        index = {r: i for i, r in enumerate(program.ranks)}
        initial, final = collective.values(platform)
        task["initial"] = [[index[h], *v] for h, v in initial if h in index]
        task["final"] = [[index[h], *_segments(item, program)] for h, item in final if h in index]
    if latency:
        pairs = {(int(a), int(b)) for a, b, k in zip(program.op_rank, program.op_peer, program.op_kind) if k == 0}
        lat = [[0.0] * len(program.ranks) for _ in program.ranks]
        for a, b in pairs:
            lat[a][b] = _latency(platform, program.ranks[a], program.ranks[b])
        task["latency"] = lat
    return task


def _segments(item, program: Program) -> list[int]:
    """``(kind, inst, a, b, start, end)`` of a final value or Part, in segments of the program's denominator."""
    if not isinstance(item, Part):
        return [*item, 0, program.denominator]
    units = item.in_units(program.denominator)
    if units is None:
        raise RunError(f"program {program.name!r} (denominator {program.denominator}) cannot hold {item!r}",
                       fix="lower with a denominator that is a multiple of the number of participants")
    return [*item.value, *units]


def _latency(platform, a: str, b: str) -> float:
    """Route latency from ``a`` to ``b``; between a router and a neighbour, their link's."""
    if a in platform.hosts and b in platform.hosts:
        return platform.latency(a, b)
    direct = [link.latency for link in platform.links.values() if link.ends and set(link.ends) == {a, b}]
    return min(direct) if direct else 0.0


def run(platform, schedule_or_program, collective: Collective | None = None, **options) -> RunResult:
    """Execute a schedule or a program over MPI with real buffers; every byte is checked.

    Parameters
    ----------
    platform : Platform
    schedule_or_program : Schedule or Program
    collective : Collective, optional
        Needed to lower a schedule (a planned schedule knows its own); with
        it, every rank's final values are checked too (a reduction against the
        sequential product in operand order).
    **options
        As for :func:`run_many` (``repeat``, ``timeout``, ``compute``,
        ``emulation``, ``latency``, ``fault``, ``check``).

    Returns
    -------
    RunResult

    Raises
    ------
    RunError
        See :func:`run_many`.

    Examples
    --------
    See the module docstring.

    >>> callable(run)
    True
    """
    return run_many(platform, [(schedule_or_program, collective)], **options)[0]


def run_baseline(platform, collective: Collective, **options) -> RunResult:
    """Time MPI's own implementation of ``collective`` (``MPI_Reduce`` with a non-commutative operator, ...).

    Parameters
    ----------
    platform : Platform
    collective : Collective
    **options
        As for :func:`run_many`.

    Returns
    -------
    RunResult
        ``what`` is the MPI call; the trace has one operation per rank.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.runtime import mpi_available
    >>> p = cs.topologies.star(4)
    >>> c = cs.Reduce(participants=["h3", "h1", "h0", "h2"], target="h1", size=320)
    >>> if mpi_available() is None:
    ...     assert run_baseline(p, c).verified
    """
    return run_many(platform, [MPICollective(collective)], **options)[0]
