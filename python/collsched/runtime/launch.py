"""Launching an MPI job: ``mpirun`` under a timeout, one clear error, no stray process.

:func:`launch` writes a job file, starts ``mpirun`` (Open MPI) in a session
of its own running :mod:`collsched.runtime.worker` on every rank, waits at
most ``timeout`` seconds, and reads back one result per task. Whatever
happens, every process of the session is gone when it returns: on a timeout
the session gets ``SIGTERM``, then ``SIGKILL``. A rank that raises makes
the whole job abort, and :func:`launch` raises one :class:`RunError`
naming that rank.

As root, Open MPI needs ``OMPI_ALLOW_RUN_AS_ROOT=1`` and
``OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1`` (set here); more ranks than cores need
``--oversubscribe`` (always given), and ranks then yield the CPU when idle.

Examples
--------
>>> cmd = mpirun_command(4, ["python", "-m", "collsched.runtime", "job.json"])
>>> cmd[1:4]
['-n', '4', '--oversubscribe']
>>> RunError("rank 3 (h3) failed").args[0]
'rank 3 (h3) failed'
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Sequence

from ..errors import CollschedError
from ..fileformat import atomic_write
from .worker import MARK

__all__ = ["RunError", "launch", "mpirun_command", "mpi_available"]


class RunError(CollschedError):
    """An MPI run failed: a rank raised, data arrived wrong, the job timed out, or MPI is missing.

    Examples
    --------
    >>> str(RunError("rank 2 (h2): RuntimeError: boom", fix="see the rank's program"))
    "rank 2 (h2): RuntimeError: boom (see the rank's program)"
    """


def mpi_available() -> str | None:
    """Why MPI runs are impossible here (None if ``mpirun`` and mpi4py are both found).

    Examples
    --------
    >>> mpi_available() is None or isinstance(mpi_available(), str)
    True
    """
    if shutil.which("mpirun") is None:
        return "mpirun was not found (install Open MPI: apt-get install openmpi-bin libopenmpi-dev)"
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install mpi4py)"
    return None


def mpirun_command(n: int, program: Sequence[str], *, mca: Sequence[tuple[str, str]] = ()) -> list[str]:
    """The ``mpirun`` command line that runs ``program`` on ``n`` ranks of this machine.

    Parameters
    ----------
    n : int
        Number of ranks.
    program : sequence of str
        The command every rank runs.
    mca : sequence of (str, str)
        Extra ``--mca`` settings (they override the defaults).

    Returns
    -------
    list of str

    Examples
    --------
    >>> cmd = mpirun_command(2, ["true"], mca=[("btl", "tcp,self")])
    >>> cmd[cmd.index("btl") + 1], cmd[-1]
    ('tcp,self', 'true')
    """
    settings = {"pml": "ob1", "btl_vader_single_copy_mechanism": "none", "mpi_yield_when_idle": "1"}
    settings.update(dict(mca))
    cmd = [shutil.which("mpirun") or "mpirun", "-n", str(n), "--oversubscribe", "--bind-to", "none"]
    for k, v in settings.items():
        cmd += ["--mca", k, v]
    return cmd + list(program)


def _session_pids(sid: int) -> list[int]:
    """Processes of session ``sid`` (read from /proc)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


def _kill_session(sid: int) -> None:
    """SIGTERM then SIGKILL every process of session ``sid``."""
    for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 0.0)):
        pids = _session_pids(sid)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + pause
        while pause and _session_pids(sid) and time.monotonic() < deadline:
            time.sleep(0.05)


def launch(world: Sequence[str], tasks: list[dict], *, timeout: float = 60.0, emulation=None,
           python: str | None = None) -> list[dict]:
    """Run ``tasks`` in one MPI job of ``len(world)`` ranks; one result per task.

    Parameters
    ----------
    world : sequence of str
        Node id of each MPI rank.
    tasks : list of dict
        Program or baseline tasks (see :mod:`.worker`).
    timeout : float
        Seconds the whole job may take.
    emulation : Emulation, optional
        Run every rank in its network namespace (:mod:`.emulation`).
    python : str, optional
        The interpreter of the ranks (default: this one).

    Returns
    -------
    list of dict
        Per task: ``start``, ``end`` (seconds, per repetition) and ``problems``.

    Raises
    ------
    RunError
        MPI is missing, a rank raised (naming it), or the job timed out.

    Examples
    --------
    >>> launch(["a"], [], timeout=0) if mpi_available() is None else []   # no task: no job
    []
    """
    why = mpi_available()
    if why is not None:
        raise RunError(why)
    if not tasks:
        return []
    if not timeout > 0:
        raise ValueError(f"run option timeout={timeout!r} is not a positive number of seconds")
    with tempfile.TemporaryDirectory(prefix="collsched-run-") as folder:
        job_path = os.path.join(folder, "job.json")
        atomic_write(job_path, json.dumps({"world": list(world), "tasks": tasks, "out": folder}))
        worker = [python or sys.executable, "-m", "collsched.runtime", job_path]  # runtime/__main__.py: the worker
        env = dict(os.environ, COLLSCHED_RUN_OWNER=str(os.getpid()))  # whose ranks these are (see tests)
        if os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        if emulation is not None:
            cmd = emulation.command(world, worker)
            env.update(emulation.environment())
        else:
            cmd = mpirun_command(len(world), worker)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                start_new_session=True, cwd=folder)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_session(proc.pid)
            proc.communicate()
            raise RunError(f"the MPI job ({len(world)} ranks, {len(tasks)} tasks) did not finish within {timeout:g} s"
                           + _unfinished(folder, world),
                           fix="raise timeout=, or look for a program that waits for a message never sent") from None
        finally:
            if proc.poll() is None:  # interrupted: leave nothing behind
                _kill_session(proc.pid)
                proc.wait()
        _kill_session(proc.pid)  # ranks that outlived mpirun, if any
        text = err.decode(errors="replace")
        if proc.returncode != 0:
            raise _failure(text, out.decode(errors="replace"), proc.returncode, world, silent=_silent_rank(folder, world))
        results = []
        for n in range(len(tasks)):
            path = os.path.join(folder, f"task-{n}.json")
            if not os.path.exists(path):
                raise RunError(f"the MPI job ended without the result of task {n}", fix=_tail(text))
            with open(path, encoding="utf-8") as f:
                results.append(json.load(f))
        return results


def _tail(text: str, k: int = 3) -> str:
    lines = [x for x in text.strip().splitlines() if x.strip() and not set(x.strip()) <= set("-*")]
    return " | ".join(lines[-k:]) if lines else "mpirun printed nothing"


_SIGNALLED = re.compile(r"process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?")
_EXITED = re.compile(r"Process name: \[\[\d+,\d+\],(\d+)\]\s+Exit code:\s+(\d+)")


def _silent_rank(folder: str, world: Sequence[str]) -> tuple[int, str] | None:
    """The first rank that started, did not finish and was not ended by mpirun's SIGTERM, and its host.

    Such a rank died of a signal it could not catch (see ``worker._leave_marks``).
    """
    for rank in range(len(world)):
        path = os.path.join(folder, f"rank-{rank}")
        if not os.path.exists(path + ".started") or os.path.exists(path + ".done"):
            continue
        try:
            ended = os.path.getsize(path + ".sigterm") > 0
        except OSError:
            ended = False
        if not ended:
            with open(path + ".started", encoding="utf-8") as f:
                return rank, (f.read().split() or ["?"])[0]
    return None


_FRAME = re.compile(r'File "([^"]*)", line (\d+) in (\S+)')


def _unfinished(folder: str, world: Sequence[str]) -> str:
    r"""Which ranks a timeout ended, on which host, by which signal, and where each one was.

    A rank that started and did not finish was ended by the launcher's
    SIGTERM (its ``rank-R.sigterm`` file then holds the Python stack
    ``faulthandler`` wrote: its innermost line is where the rank waited),
    or, if that file stayed empty, by the SIGKILL that follows a second
    later.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for r, stack in ((0, 'File "/x/walk.py", line 250 in walk'), (1, "")):
    ...     _ = (d / f"rank-{r}.started").write_text("vm 7\n"), (d / f"rank-{r}.sigterm").write_text(stack)
    >>> _unfinished(str(d), ["a", "b"])
    '; ended by SIGTERM: rank 0 (a) on host vm, in walk at walk.py:250; by SIGKILL: rank 1 (b) on host vm'
    >>> _unfinished(tempfile.mkdtemp(), ["a", "b"])
    '; no rank had started (mpirun was still launching them)'
    """
    by: dict[str, list[str]] = {"SIGTERM": [], "SIGKILL": []}
    if not any(os.path.exists(os.path.join(folder, f"rank-{rank}.started")) for rank in range(len(world))):
        return "; no rank had started (mpirun was still launching them)"
    for rank in range(len(world)):
        path = os.path.join(folder, f"rank-{rank}")
        if not os.path.exists(path + ".started") or os.path.exists(path + ".done"):
            continue
        with open(path + ".started", encoding="utf-8") as f:
            host = (f.read().split() or ["?"])[0]
        try:
            with open(path + ".sigterm", encoding="utf-8", errors="replace") as f:
                frame = _FRAME.search(f.read())
        except OSError:
            frame = None
        if frame is None:
            by["SIGKILL"].append(f"rank {rank} ({world[rank]}) on host {host}")
        else:
            file, line, function = frame.groups()
            by["SIGTERM"].append(f"rank {rank} ({world[rank]}) on host {host}, in {function} at "
                                 f"{os.path.basename(file)}:{line}")
    parts = [f"by {sig}: " + ", ".join(ranks) for sig, ranks in by.items() if ranks]
    return "; ended " + "; ".join(parts) if parts else ""


def _failure(err: str, out: str, code: int, world: Sequence[str] = (), *,
             silent: tuple[int, str] | None = None) -> RunError:
    r"""One error for a failed job: the first rank's own words if a rank raised, else which rank died and how.

    Examples
    --------
    >>> str(_failure(MARK + " 2 h2 vm: RuntimeError: boom", "", 3, ["h0", "h1", "h2"]))
    'MPI rank 2 (h2) on host vm failed: RuntimeError: boom'
    >>> str(_failure(MARK + " 1 - vm: MPICallError: rank 1: late", "", 3, ["h0", "h1"]))
    'MPI rank 1 (h1) on host vm failed: MPICallError: rank 1: late'
    >>> text = "mpirun noticed that process rank 3 with PID 0 on node vm exited on signal 9 (Killed)."
    >>> str(_failure(text, "", 137, ["h0", "h1", "h2", "h3"]))
    'MPI rank 3 (h3) on host vm was killed by signal 9 (Killed) (a rank killed by the system is often out of memory: see dmesg)'
    >>> str(_failure("Primary job  terminated normally", "", 137, ["a", "b"], silent=(1, "vm")))
    'MPI rank 1 (b) on host vm died without a word (a signal it could not catch: SIGKILL) (a rank killed by the system is often out of memory: see dmesg)'
    >>> str(_failure("Process name: [[1234,1],2]\n  Exit code:    5", "", 5, ["a", "b", "c"]))
    "MPI rank 2 (c) exited with code 5 (its own output is above mpirun's in the job's stderr)"
    """
    def node(rank: str) -> str:
        return f" ({world[int(rank)]})" if int(rank) < len(world) else ""

    for line in err.splitlines():
        if line.startswith(MARK + " "):
            rank, name, host, what = line[len(MARK) + 1:].split(" ", 3)
            named = node(rank) if name == "-" else f" ({name})"  # "-": a rank of a user's script (mpi.emulated)
            return RunError(f"MPI rank {rank}{named} on host {host.rstrip(':')} failed: {what}")

    text = err + "\n" + out
    killed = _SIGNALLED.search(text)
    if killed:
        rank, host, number, name = killed.groups()
        return RunError(f"MPI rank {rank}{node(rank)} on host {host} was killed by signal {number}"
                        + (f" ({name})" if name else ""),
                        fix="a rank killed by the system is often out of memory: see dmesg")
    if silent is not None:
        rank, host = silent
        return RunError(f"MPI rank {rank}{node(str(rank))} on host {host} died without a word (a signal it could not "
                        "catch: SIGKILL)", fix="a rank killed by the system is often out of memory: see dmesg")
    exited = _EXITED.search(text)
    if exited:
        rank, status = exited.groups()
        return RunError(f"MPI rank {rank}{node(rank)} exited with code {status}",
                        fix="its own output is above mpirun's in the job's stderr")
    return RunError(f"mpirun exited with code {code}: {_tail(err or out)}")
