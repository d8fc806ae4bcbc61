"""Failures over mpirun end the job in one line and leave nothing behind (issue 19, *Bad input* and *Targets*).

Each test runs a small mpi4py script through :func:`collsched.mpi.emulated.run_script`
and asserts the one :class:`~collsched.runtime.launch.RunError` line: ranks whose
sizes differ so that a plan fits on some and not on the others (the planned
ranks' agreement has a deadline, :mod:`collsched.mpi.agreement`), a rank killed
by a signal (on the emulated network: no namespace left), a rank that raises,
and a timeout naming every rank still running, its host, where it waited and
the signal that ended it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time

import pytest

import collsched as cs
from collsched.mpi.emulated import run_script
from collsched.mpi.plans import Plan, PlanSet
from collsched.runtime.launch import RunError

pytestmark = pytest.mark.mpi
HOST = socket.gethostname()

MISMATCH = """
import sys, time
import numpy as np
from mpi4py import MPI
from collsched import mpi as csmpi
from collsched.mpi.calls import last_run
comm = MPI.COMM_WORLD
comm.Barrier()
# a late rank (1 s, within the 3 s deadline) does not end the job: every rank runs the plan
buf = np.arange(1000, dtype=np.float64) if comm.rank == 0 else np.zeros(1000)
if comm.rank == 3:
    time.sleep(1)
csmpi.bcast(comm, buf, root=0, plans=sys.argv[1])
assert last_run() == "plan" and (buf == np.arange(1000)).all()
print("late ok", comm.rank, flush=True)
comm.Barrier()
# ranks 0 and 1 give 8000 bytes (a plan fits), ranks 2 and 3 give 8 bytes (none fits: MPI's own Bcast)
buf = np.zeros(1000 if comm.rank < 2 else 1)
csmpi.bcast(comm, buf, root=0, plans=sys.argv[1])
print("passed the mismatch", comm.rank, flush=True)
"""

KILL = """
import os, signal
from mpi4py import MPI
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.rank == 2:
    os.kill(os.getpid(), signal.SIGKILL)
MPI.COMM_WORLD.Barrier()
"""

RAISE = """
from mpi4py import MPI
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.rank == 1:
    raise ZeroDivisionError("rank 1's own bug")
MPI.COMM_WORLD.Barrier()
"""

HANG = """
import time
from mpi4py import MPI
MPI.COMM_WORLD.Barrier()
if MPI.COMM_WORLD.rank == 1:
    time.sleep(1000)
MPI.COMM_WORLD.Barrier()
"""


def _left(path: str) -> list[int]:
    """Processes still running ``path`` (another job of the suite runs other scripts)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if path.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def _fails(script, hosts, tmp_path, name, args=(), **kwargs) -> tuple[str, float]:
    path = tmp_path / name
    path.write_text(script)
    start = time.monotonic()
    with pytest.raises(RunError) as caught:
        run_script(hosts, str(path), [str(a) for a in args], **kwargs)
    seconds = time.monotonic() - start
    assert _left(str(path)) == []
    return str(caught.value), seconds


def test_a_plan_that_fits_on_some_ranks_only_ends_the_job_in_one_line(tmp_path):
    p = cs.topologies.fully_connected(4)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e4)
    PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1000, high=10**9)], platform=p).save(
        tmp_path / "plans")
    env = {"COLLSCHED_MPI_AGREE_TIMEOUT": "3"}
    text, seconds = _fails(MISMATCH, p.hosts, tmp_path, "mismatch.py", [tmp_path / "plans"], timeout=120, env=env)
    assert re.fullmatch(
        rf"mismatch\.py on 4 ranks: MPI rank ([01]) \(h\1\) on host {re.escape(HOST)} failed: MPICallError: rank \1: "
        r"broadcast of 8000 bytes from root 0 \(plan binomial for 1000\.\.1000000000 bytes\): not every rank joined "
        r"the agreement of this planned call within 3 s: a rank whose size fits no plan runs MPI's own collective "
        r"\(give every rank buffers of the same size\), or a rank stopped or is late \(COLLSCHED_MPI_AGREE_TIMEOUT "
        r"sets the wait\); ending the job", text), text
    assert seconds < 120


@pytest.mark.netns
def test_a_killed_rank_ends_the_job_in_one_line_and_leaves_no_namespace(tmp_path):
    from collsched.runtime.emulation import Emulation
    from collsched.runtime.platforms import round_robin_switches

    p = round_robin_switches(2, bandwidth=5e7, trunk_bandwidth=5e6)
    with Emulation(p) as net:
        assert len({n for n in _namespaces() if n.startswith(net.prefix)}) > 4  # a switch or bridge and each host's
        text, _ = _fails(KILL, p.hosts, tmp_path, "kill.py", emulation=net, timeout=120)
    assert text == (f"kill.py on 4 ranks: MPI rank 2 (h2) on host {HOST} was killed by signal 9 (Killed) (a rank "
                    "killed by the system is often out of memory: see dmesg)")
    assert not {n for n in _namespaces() if n.startswith(net.prefix)}  # other jobs' emulations may run meanwhile


def test_a_rank_that_raises_ends_the_job_in_one_line(tmp_path):
    text, _ = _fails(RAISE, ["a", "b", "c"], tmp_path, "bug.py", timeout=120)
    assert text == f"bug.py on 3 ranks: MPI rank 1 (b) on host {HOST} failed: ZeroDivisionError: rank 1's own bug"


def test_a_timeout_names_every_rank_left_its_host_where_it_waited_and_the_signal(tmp_path):
    text, _ = _fails(HANG, ["a", "b", "c"], tmp_path, "hang.py", timeout=20)
    assert text == (f"hang.py on 3 ranks did not finish within 20 s; ended by SIGTERM: rank 0 (a) on host {HOST}, in "
                    f"<module> at hang.py:7, rank 1 (b) on host {HOST}, in <module> at hang.py:6, rank 2 (c) on host "
                    f"{HOST}, in <module> at hang.py:7 (raise timeout=, or look for a rank that waits forever)")


def _namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def test_a_deadline_that_is_not_a_number_raises_before_any_communication(monkeypatch):
    from collsched.mpi import agreement
    from collsched.mpi.agreement import VARIABLE, agree
    from collsched.mpi.calls import MPICallError

    monkeypatch.setattr(agreement, "_READ", [])  # as in a process before its first planned call
    monkeypatch.setenv(VARIABLE, "soon")
    ctx = type("Ctx", (), {"rank": 3, "comm": None})()  # no communicator: any communication would fail otherwise
    with pytest.raises(MPICallError) as caught:
        agree(ctx, None, None, kind="broadcast", size=8, root=0, plan=None, error=MPICallError)
    assert str(caught.value) == ("rank 3: broadcast: COLLSCHED_MPI_AGREE_TIMEOUT='soon' is not a number of seconds "
                                 "(give one, or 0 to wait forever)")
    assert caught.value.rank == 3


def test_the_deadline_thread_ends_the_job_past_the_deadline_within_its_period_and_never_once_disarmed(monkeypatch):
    from collsched.mpi import agreement

    ended = []
    monkeypatch.setattr(agreement, "_end_job", lambda *call: ended.append((time.monotonic(), call)))
    dog = agreement._Watchdog.get()
    # armed and disarmed before its deadline (what agree does around an MPI_Allreduce that returns): nothing ends
    dog.armed = (time.monotonic() + 0.3, ("disarmed",))
    time.sleep(0.1)
    dog.armed = None
    time.sleep(agreement.PERIOD + 0.5)
    assert ended == []
    # armed past its deadline: the job ends, not before the deadline, and at most PERIOD after it (plus the time
    # this loaded machine takes to give the thread a CPU: 1 s allowed)
    deadline = time.monotonic() + 0.2
    dog.armed = (deadline, ("late",))
    while not ended and time.monotonic() < deadline + agreement.PERIOD + 1.0:
        time.sleep(0.01)
    dog.armed = None
    assert ended and ended[0][1] == ("late",)
    assert deadline <= ended[0][0] <= deadline + agreement.PERIOD + 1.0
