"""What a collsched.mpi call adds to MPI's own where no plan fits: Python per call, in one process (singleton MPI).

For allreduce (``MPI.SUM``), bcast, reduce and allgather of 8 bytes of
float64 on ``COMM_SELF``-sized ``COMM_WORLD`` (this process alone, so that
the time is the call's own and not the waiting of other ranks), times
mpi4py's own call, ``collsched.mpi`` without ``plans=``, with a plan
folder none of whose plans fits (``bench_mpi_small``'s), and
``collsched.mpi.persistent`` of the call (made once, started per call), in alternation,
best of ``--repeat`` runs of ``--calls`` calls each, and prints each one's
time per call and what it adds to mpi4py's, with the load average.

Run: ``.venv/bin/python benchmarks/bench_mpi_percall.py [--repeat 7] [--calls 20000]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

import numpy as np


def _other_kind_plans(folder: str) -> None:
    """A plan folder with one gather plan for 2 ranks: no call measured here finds a plan in it."""
    import collsched as cs
    from collsched.mpi.plans import Plan, PlanSet

    p = cs.topologies.fully_connected(2)
    c = cs.Gather(sources=p.hosts, target="h0", size=1e6)
    PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm="linear"), low=1, high=1 << 40)], platform=p).save(folder)


def main(argv=None) -> int:
    """Measure and print.

    Examples
    --------
    >>> callable(main)
    True
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args(argv)
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    comm = MPI.COMM_WORLD
    folder = os.path.join(tempfile.mkdtemp(prefix="collsched-bench-percall-"), "plans")
    _other_kind_plans(folder)
    x = np.ones(1)
    out = np.empty(1)
    gathered = np.empty(comm.size)
    variants = {
        "allreduce": (lambda: comm.Allreduce(x, out, op=MPI.SUM),
                      lambda p: csmpi.allreduce(comm, x, out, MPI.SUM, plans=p),
                      csmpi.persistent(csmpi.allreduce, comm, x, out, MPI.SUM)),
        "bcast": (lambda: comm.Bcast(out, 0), lambda p: csmpi.bcast(comm, out, 0, plans=p),
                  csmpi.persistent(csmpi.bcast, comm, out, 0)),
        "reduce": (lambda: comm.Reduce(x, out, op=MPI.SUM, root=0),
                   lambda p: csmpi.reduce(comm, x, out, MPI.SUM, 0, plans=p),
                   csmpi.persistent(csmpi.reduce, comm, x, out, MPI.SUM, 0)),
        "allgather": (lambda: comm.Allgather(x, gathered), lambda p: csmpi.allgather(comm, x, gathered, plans=p),
                      csmpi.persistent(csmpi.allgather, comm, x, gathered)),
    }
    load0 = os.getloadavg()
    rows = []
    for kind, (theirs, ours, started) in variants.items():
        fns = [theirs, lambda: ours(None), lambda: ours(folder), started]
        best = [float("inf")] * 4
        for _ in range(args.repeat):
            for i, fn in enumerate(fns):
                began = time.perf_counter()
                for _ in range(args.calls):
                    fn()
                best[i] = min(best[i], (time.perf_counter() - began) / args.calls)
        rows.append((kind, best))
    load1 = os.getloadavg()
    print(f"one process, 8 B, best of {args.repeat} x {args.calls} calls; load average {load0[0]:.2f} at start, "
          f"{load1[0]:.2f} at end")
    print(f"{'kind':<10} {'mpi4py us':>10} {'no plans us':>12} {'(+us)':>7} {'plans, none fits us':>20} {'(+us)':>7} "
          f"{'persistent us':>14} {'(+us)':>7}")
    for kind, (mpi, none, unfit, started) in rows:
        print(f"{kind:<10} {mpi * 1e6:>10.2f} {none * 1e6:>12.2f} {(none - mpi) * 1e6:>7.2f} {unfit * 1e6:>20.2f} "
              f"{(unfit - mpi) * 1e6:>7.2f} {started * 1e6:>14.2f} {(started - mpi) * 1e6:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
