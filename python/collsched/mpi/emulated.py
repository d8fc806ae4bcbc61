"""Run an mpi4py program (the user's own script) over ``mpirun``, on this machine or on an emulated network.

The runtime's launcher (:mod:`collsched.runtime.launch`) runs collsched's
own job files; this runs any Python script, one rank per host of the
platform, under the same rules: ``mpirun`` in a session of its own, a
timeout after which every process of the session is killed, the
root-run variables set, and with an emulation
(:class:`~collsched.runtime.emulation.Emulation`) each rank in the network
namespace of its host, MPI over TCP on the emulated links.

Examples
--------
>>> cmd = script_command(["h0", "h1"], "app.py", ["--steps", "3"])
>>> cmd[cmd.index("-n") + 1], cmd[-3:]
('2', ['app.py', '--steps', '3'])
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Sequence

from ..runtime.launch import RunError, _kill_session, mpi_available, mpirun_command

__all__ = ["script_command", "run_script"]


def script_command(world: Sequence[str], script: str, args: Sequence[str] = (), *, emulation=None,
                   python: str | None = None, hostfile: str | None = None) -> list[str]:
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
    program = [python or sys.executable, script, *args]
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
    cmd = script_command(world, script, args, emulation=emulation, hostfile=hostfile)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full, start_new_session=True,
                            text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_session(proc.pid)
        proc.communicate()
        raise RunError(f"{script} on {len(world)} ranks did not finish within {timeout:g} s",
                       fix="raise timeout=, or look for a rank that waits forever") from None
    finally:
        if proc.poll() is None:
            _kill_session(proc.pid)
            proc.wait()
    _kill_session(proc.pid)
    if proc.returncode != 0:
        lines = [line for line in err.strip().splitlines() if line.strip()]
        raised = [line for line in lines if re.match(r"^[A-Za-z_.]*(Error|Exception)\b", line)]
        tail = raised[-1] if raised else " | ".join(lines[-4:])
        raise RunError(f"{script} on {len(world)} ranks exited with code {proc.returncode}: {tail}")
    return out
