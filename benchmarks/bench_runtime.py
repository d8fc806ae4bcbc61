"""The MPI runtime on an emulated heterogeneous network: measured beside simulated, and beside MPI's own.

The platform is :func:`collsched.runtime.platforms.round_robin_switches`:
8 hosts on two switches (50 MB/s host links) joined by a 5 MB/s trunk, hosts
placed round-robin. For each collective, every applicable schedule of the
toolkit and MPI's own call run in one MPI job on the emulated network
(network namespaces + htb, Linux and root); the table gives the measured
makespan (median of ``--repeat``), the simulated one (Fluid, and OnePort) and
the ratio of MPI's own call to each. Without emulation (not root) it runs on
the local machine (shared memory), where only the verification and the
executor's overhead mean anything.

Last, the executor's own cost: a caterpillar all-to-all of 1 kB messages on
local ranks, per message per rank: through ``cs.run_many`` on 8 ranks, 8
all-to-alls in a row (the makespan of the median repetition over the
messages a rank sends; the issue's figure), then with the walk run directly
on the same 8 ranks and on 2 ranks (200 all-to-alls), for several ``poll``
values, giving both that figure (median of the repetitions) and the CPU
seconds a rank spent in its walk per message (``time.process_time``, mean
over ranks: Python and MPI, including MPI's spinning while a rank waits
with ``poll=0``), and of that CPU **the executor's own cost**: the CPU
seconds a rank spent in its walk outside ``MPI_Waitsome``/``MPI_Testsome``
(the walk's ``meter``), per message the rank sends, mean over ranks: its
Python, the payload's, and posting each ``Isend``/``Irecv``, without MPI's
progress engine spinning while the rank waits for a message. On 8 ranks
over 2 cores the first figure is mostly the ranks waiting for a core; the
last one is what the rank's own code costs, whatever the load (a rank
pre-empted inside its own code is not charged CPU for it); with
``poll > 0`` it also counts the polling loop (``Testsome`` and
``time.sleep``'s system calls), so the ``poll=0`` lines give the cost per
message. Last, per rank count, the walk alone (``poll=0``, no timing, a
payload that only hands the pre-built buffers): its own CPU per message.

Run: ``.venv/bin/python benchmarks/bench_runtime.py [--repeat 3] [--local] [--plot out.png] [--executor-only]``
(with ``PYTHONPATH`` set to another checkout's ``python/``, the executor lines measure that one: how the
figures of docs/runtime.md compare two versions in one sitting).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import sys
import time

import collsched as cs
from collsched.runtime import MPICollective, comparison_plot, mpi_available, run_many
from collsched.runtime.emulation import Emulation, emulation_unavailable
from collsched.runtime.platforms import round_robin_switches

MB = 1e6


def cases(p):
    hosts = list(p.hosts)
    return [
        ("broadcast 1 MB", cs.Broadcast(source="h0", targets=hosts, size=MB),
         ["binomial", "linear", "flat_tree", "fef", "ecef", "ecef_la"]),
        ("broadcast 1 MB x1", cs.Series(cs.Broadcast(source="h0", targets=hosts, size=MB), count=1),
         ["steady_state"]),
        ("broadcast 1 MB x4", cs.Series(cs.Broadcast(source="h0", targets=hosts, size=MB), count=4),
         ["steady_state", "binomial"]),
        ("scatter 250 kB", cs.Scatter(source="h0", targets=hosts, size=MB / 4), ["binomial", "linear"]),
        ("reduce 256 kB", cs.Reduce(participants=hosts, target="h0", size=MB / 4, task_cost=1e6),
         ["binomial", "linear"]),
        ("alltoall 100 kB", cs.AllToAll(senders=hosts, size=MB / 10), ["caterpillar", "open_shop", "round_robin"]),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--local", action="store_true", help="do not emulate the network")
    ap.add_argument("--plot", help="draw measured beside simulated for the first broadcast")
    ap.add_argument("--executor-only", action="store_true", help="only the executor's cost per message")
    args = ap.parse_args()
    if mpi_available() is not None:
        print(f"skipped: {mpi_available()}")
        return
    if args.executor_only:
        return
    p = round_robin_switches(4)
    emulate = not args.local and emulation_unavailable() is None
    if not args.local and not emulate:
        print(f"no emulation ({emulation_unavailable()}): running on the local machine")
    items, labels = [], []
    for label, c, algorithms in cases(p):
        for a in algorithms:
            try:
                s = cs.plan(p, c, algorithm=a)
            except cs.CollschedError as exc:
                print(f"{label}: {a} not planned: {exc}")
                continue
            items.append((s, c))
            labels.append((label, a))
        items.append(MPICollective(c))
        labels.append((label, "MPI"))
    start = time.perf_counter()
    with (Emulation(p) if emulate else contextlib.nullcontext()) as net:
        results = run_many(p, items, repeat=args.repeat, emulation=net, timeout=900)
    wall = time.perf_counter() - start
    network = "emulated" if emulate else "local"
    print(f"{network} network, {len(items)} items x {args.repeat} repetitions, one MPI job: {wall:.1f} s wall")
    print(f"{'collective':<20} {'schedule':<13} {'measured s':>10} {'Fluid s':>9} {'OnePort s':>9} "
          f"{'meas/Fluid':>10} {'MPI/this':>9} verified")
    mpi_of = {label: r for (label, a), r in zip(labels, results) if a == "MPI"}
    for ((label, a), r), item in zip(zip(labels, results), items):
        if a == "MPI":
            fluid = oneport = float("nan")
        else:
            fluid = cs.simulate(p, item[0], item[1], model=cs.models.Fluid()).makespan
            oneport = cs.simulate(p, item[0], item[1], model=cs.models.OnePort()).makespan
        print(f"{label:<20} {a:<13} {r.makespan:>10.4f} {fluid:>9.4f} {oneport:>9.4f} {r.makespan / fluid:>10.2f} "
              f"{mpi_of[label].makespan / r.makespan:>9.2f} {r.verified}")
    if args.plot:
        first = [(i, a) for i, (label, a) in enumerate(labels) if label == labels[0][0]]
        columns = {a: results[i] for i, a in first if a != "MPI"}
        s, c = items[first[0][0]]
        columns["steady_state (Fluid)"] = cs.simulate(p, s, c, model=cs.models.Fluid())
        print(f"wrote {comparison_plot(columns, args.plot, title=f'{labels[0][0]}, {network}')}")


def overhead(repeat: int) -> None:
    """Seconds per message of the executor (Python + MPI on shared memory), 8 ranks, 1 kB messages."""
    p = cs.topologies.star(8)
    c = cs.Series(cs.AllToAll(senders=p.hosts, size=1e3), count=8)
    s = cs.plan(p, c, algorithm="caterpillar")
    (r,) = run_many(p, [(s, c)], repeat=repeat)
    prog = s.lower(p, c)
    per_rank = prog.n_messages / len(p.hosts)
    print(f"executor: {prog.n_messages} messages of 1 kB on 8 local ranks (2 cores) in {r.makespan:.3f} s: "
          f"{1e6 * r.makespan / per_rank:.0f} us per message per rank, verified {r.verified}")


def _caterpillar(n: int, count: int = 8):
    p = cs.topologies.star(n)
    c = cs.Series(cs.AllToAll(senders=p.hosts, size=1e3), count=count)
    return p, c, cs.plan(p, c, algorithm="caterpillar").lower(p, c)


def walk_rank(n: int, count: int, repeat: int, polls: list[float]) -> None:
    """One rank of the direct measurement (this file run by mpirun with ``--walk``): prints rank 0's JSON line."""
    from mpi4py import MPI

    from collsched.runtime.execute import RankPlan, check_received, execute

    comm = MPI.COMM_WORLD
    _, _, prog = _caterpillar(n, count)
    plan = RankPlan(prog, comm.rank, tag_ub=int(comm.Get_attr(MPI.TAG_UB)))
    out, bad = {}, 0
    persistent = hasattr(plan, "requests")  # an older collsched: buffers made per repetition, or in the run
    buffers = plan.buffers(0) if persistent else None
    requests = plan.requests(comm, buffers) if persistent else None
    for poll in polls:
        spans, cpus, owns = [], [], []
        for rep in range(repeat + 1):  # the first is a warm-up
            store = _store(plan)
            if persistent:
                made = {"buffers": plan.buffers(rep, into=buffers), "requests": requests}
            else:
                made = {"buffers": plan.buffers(rep)} if hasattr(plan, "buffers") else {}
            meter = [0.0, 0]
            if "meter" in inspect.signature(execute).parameters:  # an older collsched has no meter: own = nan
                made["meter"] = meter
            else:
                meter[0] = float("nan")
            comm.Barrier()
            t0 = comm.bcast(time.perf_counter(), root=0)
            cpu = time.process_time()
            _, end, received = execute(comm, plan, store=store, rep=rep, t0=t0, compute="real", poll=poll, **made)
            cpu = time.process_time() - cpu
            bad += len(check_received(plan, received, rep))
            span = comm.reduce(max(end.values(), default=0.0), op=MPI.MAX)
            own = comm.reduce(cpu - meter[0], op=MPI.SUM)
            cpu = comm.reduce(cpu, op=MPI.SUM)
            if rep and comm.rank == 0:
                spans.append(span)
                cpus.append(cpu / n)
                owns.append(own / n)
        out[str(poll)] = (spans, cpus, owns)
    out["bare"] = _bare(comm, plan, buffers, requests, repeat) if persistent else None
    for request in requests or ():
        if request is not None:
            request.Free()
    bad = comm.reduce(bad, op=MPI.SUM)
    if comm.rank == 0:
        print(json.dumps({"messages": prog.n_messages, "results": out, "problems": bad}))


class _Buffers:
    """A payload that only hands the pre-built buffers: what the walk costs with nothing to write or check."""

    def __init__(self, buffers):
        self.send = self.recv = buffers.__getitem__

    def arrived(self, i, buf):
        pass

    def compute(self, i):
        pass


def _bare(comm, plan, buffers, requests, repeat: int) -> list[float]:
    """The walk alone (``poll=0``, no timing, :class:`_Buffers`): rank 0's list of mean own CPU seconds per run."""
    from mpi4py import MPI

    from collsched.runtime.walk import walk

    owns = []
    for rep in range(repeat + 1):
        meter = [0.0, 0]
        comm.Barrier()
        cpu = time.process_time()
        walk(comm, plan, _Buffers(buffers), meter=meter, started=requests)
        own = comm.reduce(time.process_time() - cpu - meter[0], op=MPI.SUM)
        if rep and comm.rank == 0:
            owns.append(own / comm.size)
    return owns


def _store(plan):
    from collsched.runtime.worker import _OnDemand

    store = _OnDemand()
    for i in plan.ops:  # every content this rank sends, made before time 0 (as cs.run does from the collective)
        for piece in plan.pieces[i]:
            for s in range(piece.start, piece.end):
                store[(piece.value, s)]
    return store


def direct(repeat: int) -> None:
    """The walk on 8 and on 2 local ranks, several poll values: per message per rank, makespan and CPU."""
    import statistics

    from collsched.mpi.emulated import run_script

    polls = [0.0, 2e-5, 2e-4]
    for n, count in ((8, 8), (2, 200)):
        text = run_script([f"h{i}" for i in range(n)], __file__, ["--walk", str(n), str(count), str(repeat)]
                          + [str(x) for x in polls], timeout=600)
        got = json.loads(text.strip().splitlines()[-1])
        per_rank = got["messages"] / n
        for poll in polls:
            spans, cpus, owns = got["results"][str(poll)]
            print(f"executor, walk direct: {got['messages']} messages of 1 kB on {n} local ranks, poll={poll:g}: "
                  f"{1e6 * statistics.median(spans) / per_rank:.0f} us per message per rank (median of {repeat}; "
                  f"best {1e6 * min(spans) / per_rank:.0f}), CPU {1e6 * statistics.median(cpus) / per_rank:.1f} us "
                  f"per message per rank, of which the executor's own (outside Waitsome/Testsome) "
                  f"{1e6 * statistics.median(owns) / per_rank:.1f} us (best {1e6 * min(owns) / per_rank:.1f}), "
                  f"verified {got['problems'] == 0}")
        if got["results"]["bare"] is not None:
            owns = got["results"]["bare"]
            print(f"executor, the walk alone on {n} local ranks (poll=0, no timing, a payload that only hands the "
                  f"pre-built buffers): own CPU (outside Waitsome) {1e6 * statistics.median(owns) / per_rank:.1f} us "
                  f"per message per rank (median of {repeat}; best {1e6 * min(owns) / per_rank:.1f})")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--walk":
        walk_rank(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), [float(x) for x in sys.argv[5:]])
        sys.exit(0)
    main()
    print(f"load average {os.getloadavg()[0]:.1f}")
    overhead(3)
    direct(5)
    print(f"load average {os.getloadavg()[0]:.1f}")
