"""Run an mpi4py program (the user's own script) over ``mpirun``, on this machine or on an emulated network.

The runtime's launcher (:mod:`collsched.runtime.launch`) runs collsched's
own job files; this runs any Python script, one rank per host of the
platform, under the same rules: ``mpirun`` in a session of its own, a
timeout after which every process of the session is killed, the
root-run variables set, and with an emulation
(:class:`~collsched.runtime.emulation.Emulation`) each rank in the network
namespace of its host, MPI over TCP on the emulated links.

Each rank runs the script through this module (``python -m
collsched.mpi.emulated MARKS SCRIPT ARGS...``, :func:`main`), which leaves
the launcher's marks (``rank-R.started``, ``.done``, and the rank's Python
stack in ``.sigterm`` when it is ended by SIGTERM) in a folder of the run,
and turns an exception the script lets out into one line naming the rank
and its host (:data:`collsched.runtime.worker.MARK`), then ends the job
(``MPI_Abort``: the other ranks would otherwise wait for it forever, even
in ``MPI_Finalize``). So a failed run raises one
:class:`~collsched.runtime.launch.RunError` in the launcher's words: the
rank that raised, or the rank killed by a signal (its host and the
signal), or on a timeout every rank still running, its host, where it was
and the signal that ended it.

Examples
--------
>>> cmd = script_command(["h0", "h1"], "app.py", ["--steps", "3"], marks="/tmp/run")
>>> cmd[cmd.index("-n") + 1], cmd[-6:]
('2', ['-m', 'collsched.mpi.emulated', '/tmp/run', 'app.py', '--steps', '3'])
"""

from __future__ import annotations

import faulthandler
import os
import runpy
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
from typing import Sequence

from ..runtime.launch import RunError, _failure, _kill_session, _silent_rank, _unfinished, mpi_available, mpirun_command
from ..runtime.worker import MARK, _leave_marks, _mark

__all__ = ["script_command", "run_script"]


def script_command(world: Sequence[str], script: str, args: Sequence[str] = (), *, emulation=None,
                   python: str | None = None, hostfile: str | None = None, marks: str | None = None) -> list[str]:
    """The command line that runs ``script`` on one rank per node of ``world``.

    Parameters
    ----------
    world : sequence of str
        The host of each rank.
    script : str
        The Python file every rank runs.
    args : sequence of str
        Its arguments.
    emulation : Emulation, optional
        Entered; each rank runs in the namespace of its host.
    python : str, optional
        The interpreter (default: this one).
    hostfile : str, optional
        An Open MPI hostfile: the ranks run on its hosts (without an emulation).
    marks : str, optional
        A folder: each rank runs the script through :func:`main`, which leaves its marks there.

    Returns
    -------
    list of str

    Examples
    --------
    See the module docstring.

    >>> script_command(["a"], "x.py")[-1]
    'x.py'
    >>> script_command(["a", "b"], "x.py", hostfile="hosts")[1:3]
    ['--hostfile', 'hosts']
    """
    wrap = [] if marks is None else ["-m", "collsched.mpi.emulated", marks]
    program = [python or sys.executable, *wrap, script, *args]
    if emulation is not None:
        return emulation.command(list(world), program)
    cmd = mpirun_command(len(world), program)
    return cmd[:1] + ["--hostfile", hostfile] + cmd[1:] if hostfile else cmd


def run_script(world: Sequence[str], script: str, args: Sequence[str] = (), *, emulation=None, timeout: float = 300.0,
               env: dict | None = None, hostfile: str | None = None) -> str:
    """Run ``script`` over ``mpirun`` and return its standard output; nothing of it is left running afterwards.

    Parameters
    ----------
    world, script, args, emulation, hostfile
        As for :func:`script_command`.
    timeout : float
        Seconds the job may take.
    env : dict, optional
        More environment variables for the ranks.

    Returns
    -------
    str
        What the ranks printed.

    Raises
    ------
    RunError
        MPI is missing, the job failed (the tail of its error output), or it timed out.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> script = pathlib.Path(tempfile.mkdtemp()) / "hello.py"
    >>> _ = script.write_text("from mpi4py import MPI\\nif MPI.COMM_WORLD.rank == 1: print(MPI.COMM_WORLD.size)\\n")
    >>> if mpi_available() is None:
    ...     assert run_script(["h0", "h1"], str(script)) == "2\\n"
    """
    why = mpi_available()
    if why is not None:
        raise RunError(why)
    full = dict(os.environ, **(env or {}))
    full["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    if os.geteuid() == 0:
        full.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if emulation is not None:
        full.update(emulation.environment())
    name = args[0] if script == "-m" and args else os.path.basename(script)
    with tempfile.TemporaryDirectory(prefix="collsched-script-") as marks:
        cmd = script_command(world, script, args, emulation=emulation, hostfile=hostfile, marks=marks)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full, start_new_session=True,
                                text=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_session(proc.pid)
            proc.communicate()
            raise RunError(f"{name} on {len(world)} ranks did not finish within {timeout:g} s"
                           + _unfinished(marks, world),
                           fix="raise timeout=, or look for a rank that waits forever") from None
        finally:
            if proc.poll() is None:
                _kill_session(proc.pid)
                proc.wait()
        _kill_session(proc.pid)
        if proc.returncode != 0:
            failure = _failure(err, out, proc.returncode, world, silent=_silent_rank(marks, world))
            raise RunError(failure.what, where=f"{name} on {len(world)} ranks", fix=failure.fix)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """One rank: run ``SCRIPT ARGS...`` as ``__main__``, leaving the launcher's marks in ``MARKS``.

    ``argv`` is ``[MARKS, SCRIPT, ARGS...]`` or ``[MARKS, "-m", MODULE,
    ARGS...]`` (default ``sys.argv[1:]``);
    the rank number is Open MPI's (``OMPI_COMM_WORLD_RANK``), read before
    MPI starts. An exception out of the script (or ``SystemExit`` with a
    non-zero code) is printed, then written as one line
    ``MARK RANK - HOST: TYPE: TEXT``, and the job is aborted if MPI runs.

    Returns
    -------
    int
        0 once the script has finished.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "ok.py").write_text("import sys; print(sys.argv[1:])")
    >>> main([str(d), str(d / "ok.py"), "x"])
    ['x']
    0
    >>> sorted(p.name for p in d.iterdir())
    ['ok.py', 'rank-0.done', 'rank-0.sigterm', 'rank-0.started']
    >>> main([str(d), "-m", "json.tool", str(d / "missing.json")])
    Traceback (most recent call last):
    ...
    SystemExit: 1
    """
    marks, script, *args = sys.argv[1:] if argv is None else argv
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    sigterm = _leave_marks(marks, rank)
    saved_argv, saved_path = sys.argv, sys.path[:]
    module = args.pop(0) if script == "-m" else None  # "-m MODULE ARGS...", as python takes it
    sys.argv, sys.path[0:0] = [script, *args], [os.getcwd() if module else os.path.dirname(os.path.abspath(script))]
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            _fail(rank, f"SystemExit: the script exited with {exc.code!r}")
    except BaseException as exc:  # noqa: BLE001 - the rank's failure ends the job, in one line
        traceback.print_exc()
        _fail(rank, f"{type(exc).__name__}: {' '.join(str(exc).split()) or type(exc).__name__}")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    _mark(marks, rank, "done")
    faulthandler.unregister(signal.SIGTERM)
    sigterm.close()
    return 0


def _fail(rank: int, what: str) -> None:
    """Write the rank's one line; abort the job if MPI runs (else exit with code 1)."""
    sys.stderr.write(f"{MARK} {rank} - {socket.gethostname()}: {what}\n")
    sys.stderr.flush()
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and not mpi.Is_finalized():
        mpi.COMM_WORLD.Abort(3)
    sys.exit(1)


if __name__ == "__main__":  # pragma: no cover - each rank of run_script
    sys.exit(main())
