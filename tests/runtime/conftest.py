"""Shared by the runtime tests: their groups (skipped without MPI, naming the package); one batched MPI job per rank count.

``needs_mpi`` and ``needs_emulation`` are the ``mpi`` and ``netns`` markers of
``tests/conftest.py``, which skips them where Open MPI (``openmpi-bin``),
mpi4py, root or ``iproute2`` is missing and reports each group at the end.
"""

import os
import subprocess

import pytest

import collsched as cs

needs_mpi = pytest.mark.mpi
needs_emulation = pytest.mark.netns


def shapes(n: int):
    """``(label, schedule, collective)`` for every schedule shape on ``n`` hosts of a star."""
    p = cs.topologies.star(n, bandwidth="1GBps", latency="1us")
    hosts = list(p.hosts)
    operand_order = hosts[1::2] + hosts[0::2]  # not the host order: the reduce must follow it
    a2a = cs.AllToAll(senders=hosts, size=2e3)
    red = cs.Reduce(participants=operand_order, target=hosts[1], size=4096, task_cost=1e4)
    bc = cs.Broadcast(source=hosts[2], targets=hosts, size=3e4)
    sc = cs.Series(cs.Scatter(source=hosts[0], targets=hosts, size=1e3), count=3)
    sr = cs.Series(cs.Reduce(participants=operand_order, target=hosts[0], size=512, task_cost=1e3), count=2)
    items = [("steps round_robin", a2a, "round_robin"), ("steps rs_n", a2a, "rs_n"),
             ("orders caterpillar", a2a, "caterpillar"), ("orders open_shop", a2a, "open_shop"),
             ("tree binomial reduce", red, "binomial"), ("tree binomial broadcast", bc, "binomial"),
             ("periodic steady_state scatter", sc, "steady_state"),
             ("periodic steady_state reduce", sr, "steady_state")]
    return p, [(label, cs.plan(p, c, algorithm=a, seed=1), c) for label, c, a in items]


def namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def worker_processes() -> list[int]:
    """Ranks launched by this process that are still alive (others may run the suite at the same time)."""
    mine = f"COLLSCHED_RUN_OWNER={os.getpid()}".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"-m\0collsched.runtime\0" not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mine in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found
