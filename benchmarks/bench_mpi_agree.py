"""The agreement of a planned collsched.mpi call, with its deadline, against MPI's blocking ``MPI_Allreduce`` alone.

A planned call agrees before it runs (:func:`collsched.mpi.agreement.agree`:
a blocking ``Allreduce`` of 9 int64, element-wise minimum, while a thread
keeps the deadline). Compared: the ``Allreduce`` alone (what the agreement
was before it had a deadline), ``agree``, and the design set aside, an
``Iallreduce`` polled (``Test``, then ``sched_yield``) until a deadline. On
``--ranks`` local ranks (one job), per round, ``--calls`` of each variant
in a rotated order, each block after a barrier, timed as the slowest
rank's time per call; prints the median over ``--rounds`` rounds of each
and of its ratio to the ``Allreduce`` within a round, with the load
average (``agree, no deadline`` is ``agree`` with the deadline switched
off: what the Python around the ``Allreduce`` costs, whatever the thread).
First, in this process alone, what the deadline's bookkeeping costs per
call: ``agree`` around an ``Allreduce`` that does nothing, less that
``Allreduce`` alone (a function call), best of 7 runs of 100,000 each,
alternated (the same measure runs with any version of ``agree``: give
``--ranks 0`` to print this line alone). A call where no plan fits runs
none of this.

Run: ``.venv/bin/python benchmarks/bench_mpi_agree.py [--ranks 8] [--rounds 15] [--calls 200]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def _rank(rounds: int, calls: int) -> None:
    import numpy as np
    from mpi4py import MPI

    from collsched.mpi import agreement
    from collsched.mpi.agreement import agree
    from collsched.mpi.calls import MPICallError

    comm = MPI.COMM_WORLD.Dup()
    ctx = type("Ctx", (), {"comm": comm, "rank": comm.rank, "mpi": MPI})()
    mine, agreed = np.arange(9, dtype=np.int64), np.zeros(9, dtype=np.int64)

    def blocking():
        comm.Allreduce(mine, agreed, op=MPI.MIN)

    def watched():
        agree(ctx, mine, agreed, kind="bench", size=0, root=None, plan=None, error=MPICallError)

    def polled():
        request = comm.Iallreduce(mine, agreed, op=MPI.MIN)
        deadline = time.monotonic() + 300
        while not request.Test():
            if time.monotonic() > deadline:
                comm.Abort(3)
            os.sched_yield()

    def unwatched():
        read, agreement._READ[:] = agreement._READ[:], [None]  # the deadline as VARIABLE=0 sets it
        try:
            agree(ctx, mine, agreed, kind="bench", size=0, root=None, plan=None, error=MPICallError)
        finally:
            agreement._READ[:] = read

    variants = [("Allreduce", blocking), ("agree (Allreduce, deadline thread)", watched),
                ("agree, no deadline", unwatched), ("Iallreduce polled", polled)]
    rows = []
    for r in range(rounds):
        times = {}
        for name, f in variants[r % len(variants):] + variants[:r % len(variants)]:
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(calls):
                f()
            times[name] = comm.allreduce((time.perf_counter() - t0) / calls, op=MPI.MAX)
        rows.append(times)
    if comm.rank == 0:
        import statistics

        print(f"{comm.size} ranks, {rounds} rounds of {calls} calls each (median of the rounds):")
        for name, _ in variants:
            us = statistics.median(t[name] for t in rows) * 1e6
            ratio = statistics.median(t[name] / t["Allreduce"] for t in rows)
            print(f"  {name:<36} {us:9.1f} us per call, {ratio:.2f} x Allreduce")


def _bookkeeping(calls: int = 100_000, repeat: int = 7) -> float:
    """Seconds per call that ``agree`` adds to an ``Allreduce`` doing nothing, in this process (best of ``repeat``)."""
    import numpy as np

    from collsched.mpi.agreement import agree
    from collsched.mpi.calls import MPICallError

    comm = type("Comm", (), {"Allreduce": lambda self, a, b, op: None})()
    ctx = type("Ctx", (), {"comm": comm, "rank": 0, "mpi": type("MPI", (), {"MIN": None})})()
    mine = agreed = np.zeros(9, dtype=np.int64)
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for k in (0, 1):
            t0 = time.perf_counter()
            if k:
                for _ in range(calls):
                    agree(ctx, mine, agreed, kind="bench", size=0, root=None, plan=None, error=MPICallError)
            else:
                for _ in range(calls):
                    comm.Allreduce(mine, agreed, op=None)
            best[k] = min(best[k], (time.perf_counter() - t0) / calls)
    return best[1] - best[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--rank", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.rank:
        _rank(args.rounds, args.calls)
        return
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"the deadline's bookkeeping, one process: {_bookkeeping() * 1e6:.2f} us per call "
          f"(agree less its Allreduce, best of 7 x 100,000)")
    if args.ranks == 0:
        return
    from collsched.mpi.emulated import run_script

    out = run_script([f"h{i}" for i in range(args.ranks)], os.path.abspath(__file__),
                     ["--rank", "--rounds", str(args.rounds), "--calls", str(args.calls)], timeout=1800)
    sys.stdout.write(out)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
