"""The program every MPI rank runs: ``python -m collsched.runtime JOB.json`` (its ``__main__`` calls :func:`main`).

The job file (written by :mod:`.launch`) lists the world's ranks (node ids)
and tasks: programs to execute (:mod:`.execute`) and MPI collectives to time
(:mod:`.baselines`), each ``repeat`` times. For each task the ranks it uses
form a communicator (its rank ``i`` is the task's rank ``i``); before each
repetition they meet at a barrier and take the same time 0 (rank 0's clock,
broadcast: every rank runs on one machine, whose monotonic clock all
processes share). World rank 0 gathers the timings and the verification
problems of every rank and writes ``task-N.json`` into the job's folder
(atomically).

An exception on any rank is written to stderr as one line starting with
:data:`MARK`, the rank, its node id and its host, then the job is aborted (``MPI_Abort``); the
launcher turns that line into one :class:`~collsched.runtime.launch.RunError`.

Examples
--------
>>> MARK
'collsched-rank-error'
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
import socket
import sys
import time

from ..fileformat import atomic_write

__all__ = ["MARK", "main"]

MARK = "collsched-rank-error"


class _OnDemand(dict):
    """A store that holds every value (no collective given: only messages are checked)."""

    def __missing__(self, key):
        from .payload import content

        value, segment = key
        self[key] = content(value, segment)
        return self[key]


def _program_task(comm, task: dict, world: list[str]):
    from mpi4py import MPI

    from ..schedules.program_io import load_program
    from ..schedules.values import Piece, Value
    from . import payload
    from .execute import RankPlan, check_finals, check_received, execute

    prog = load_program(task["program"])
    me = world[comm.rank]
    color = 0 if me in prog.ranks else MPI.UNDEFINED
    sub = comm.Split(color, prog.ranks.index(me) if me in prog.ranks else 0)
    reps = int(task["repeat"])
    times, problems = [], []
    if sub != MPI.COMM_NULL:
        r = sub.rank
        plan = RankPlan(prog, r, tag_ub=int(sub.Get_attr(MPI.TAG_UB) or 32767))
        initial = [Value(*row[1:]) for row in task.get("initial") or () if row[0] == r]
        finals = [Piece(Value(*row[1:5]), row[5], row[6]) for row in task.get("final") or () if row[0] == r]
        lat = task.get("latency")
        fault = task.get("fault") or {}
        buffers = requests = None  # made at the first repetition, refilled and started at the next ones
        for rep in range(reps):
            store = {} if task.get("initial") is not None else _OnDemand()
            for v in initial:
                for s in range(prog.denominator):
                    store[(v, s)] = payload.content(v, s)
            if fault.get("rank") == me and fault.get("what") == "raise":
                raise RuntimeError("injected failure (fault='raise')")
            if fault.get("rank") == me and fault.get("what") == "hang":
                time.sleep(1e6)
            if fault.get("rank") == me and fault.get("what") == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            buffers = plan.buffers(rep, into=buffers)
            if requests is None:
                requests = plan.requests(sub, buffers)
            sub.Barrier()
            t0 = sub.bcast(time.perf_counter(), root=0)
            start, end, received = execute(
                sub, plan, store=store, rep=rep, t0=t0, speed=float(task["speed"][r]), buffers=buffers,
                compute=task["compute"], latency=None if lat is None else lat[r],
                corrupt=fault.get("rank") == me and fault.get("what") == "corrupt",
                poll=float(task.get("poll", 0.0)), requests=requests)
            times.append((start, end))
            found = check_received(plan, received, rep) + check_finals(finals, store, prog.denominator)
            problems += [f"rank {r} ({me}) repetition {rep}: {p}" for p in found]
        for request in requests or ():
            if request is not None:
                request.Free()
        sub.Free()
    gathered = comm.gather((times, problems), root=0)
    if comm.rank != 0:
        return None
    import numpy as np

    start = np.full((reps, prog.n_ops), np.nan)
    end = np.full((reps, prog.n_ops), np.nan)
    problems = []
    for t, p in gathered:
        problems += p
        for rep, (s, e) in enumerate(t):
            for i, x in s.items():
                start[rep, i] = x
            for i, x in e.items():
                end[rep, i] = x
    return {"start": start.tolist(), "end": end.tolist(), "problems": problems}


def _baseline_task(comm, task: dict, world: list[str]):
    from .baselines import run_baseline_rank

    times, problems = run_baseline_rank(comm, task, world)
    gathered = comm.gather((times, problems), root=0)
    if comm.rank != 0:
        return None
    import numpy as np

    reps = int(task["repeat"])
    start = np.full(reps, np.inf)
    end = np.zeros(reps)
    problems = []
    for t, p in gathered:
        problems += p
        for rep, (s, e) in enumerate(t):
            start[rep], end[rep] = min(start[rep], s), max(end[rep], e)
    return {"start": start.tolist(), "end": end.tolist(), "problems": problems}


def _pingpong_task(comm, task: dict, world: list[str]):
    from .pingpong import pingpong_rank

    return pingpong_rank(comm, task, world)


_KINDS = {"program": _program_task, "baseline": _baseline_task, "pingpong": _pingpong_task}


def main(argv: list[str] | None = None) -> int:
    """Run the job file named by ``argv[0]`` on this MPI rank.

    Parameters
    ----------
    argv : list of str, optional
        ``[job_file]``; default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 (an exception aborts the whole MPI job instead).

    Examples
    --------
    >>> callable(main)
    True
    """
    args = sys.argv[1:] if argv is None else argv
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    with open(args[0], encoding="utf-8") as f:
        job = json.load(f)
    world = job["world"]
    sigterm = _leave_marks(job["out"], comm.rank)
    try:
        if comm.size != len(world):
            raise RuntimeError(f"the job has {comm.size} MPI ranks for {len(world)} nodes")
        for n, task in enumerate(job["tasks"]):
            result = _KINDS[task["kind"]](comm, task, world)
            if comm.rank == 0:
                atomic_write(os.path.join(job["out"], f"task-{n}.json"), json.dumps(result))
            comm.Barrier()
    except BaseException as exc:  # noqa: BLE001 - any failure aborts the job, naming the rank
        name = world[comm.rank] if comm.rank < len(world) else "?"
        text = " ".join(str(exc).split()) or type(exc).__name__
        sys.stderr.write(f"{MARK} {comm.rank} {name} {socket.gethostname()}: {type(exc).__name__}: {text}\n")
        sys.stderr.flush()
        comm.Abort(3)
    _mark(job["out"], comm.rank, "done")
    sigterm.close()
    return 0


def _mark(folder: str, rank: int, what: str) -> None:
    with open(os.path.join(folder, f"rank-{rank}.{what}"), "w", encoding="utf-8") as f:
        f.write(f"{socket.gethostname()} {os.getpid()}\n")


def _leave_marks(folder: str, rank: int):
    """``rank-R.started`` now, ``rank-R.done`` at the end; ``rank-R.sigterm`` gets a traceback if mpirun ends the rank.

    A rank that started, is not done and whose ``sigterm`` file is empty
    died of a signal it could not catch (SIGKILL: killed by hand, or by the
    kernel out of memory); :mod:`.launch` names it when mpirun's own words
    do not. ``faulthandler`` writes from the signal handler itself, even
    while the rank is blocked inside MPI.
    """
    _mark(folder, rank, "started")
    sigterm = open(os.path.join(folder, f"rank-{rank}.sigterm"), "w", encoding="utf-8")  # noqa: SIM115
    faulthandler.register(signal.SIGTERM, file=sigterm, all_threads=False, chain=True)
    return sigterm


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
