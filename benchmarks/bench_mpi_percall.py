"""What a collsched.mpi call adds to MPI's own where no plan fits: Python per call, in one process (singleton MPI).

For each of the eight kinds (``--kinds``; 8 bytes of float64, the calls
and buffers of ``bench_mpi_small.py``, :func:`bench_mpi_small.variants`) on
``COMM_WORLD`` of this process alone (so that the time is the call's own
and not the waiting of other ranks), times mpi4py's own call, ``collsched.mpi``
without ``plans=``, with a plan folder none of whose plans fits (one plan
of another kind, for 2 ranks), ``collsched.mpi.persistent`` of the call
(made once, started per call; alltoallv: ``n/a``) and mpi4py's own on
collsched.mpi's private communicator, in alternation, best of ``--repeat``
runs of ``--calls`` calls each, and prints each one's time per call and
what it adds to mpi4py's, with the load average.

Run: ``.venv/bin/python benchmarks/bench_mpi_percall.py [--repeat 7] [--calls 20000] [--kinds bcast,allreduce]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_mpi_small import KINDS, buffers, variants  # noqa: E402


def _other_kind_plans(folder: str, kind: str) -> None:
    """A plan folder with one plan for 2 ranks, of another kind than ``kind``: no call of ``kind`` finds a plan."""
    import collsched as cs
    from collsched.mpi.plans import Plan, PlanSet

    p = cs.topologies.fully_connected(2)
    c = (cs.Scatter(targets=p.hosts, source="h0", size=1e6) if kind == "gather"
         else cs.Gather(sources=p.hosts, target="h0", size=1e6))
    PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm="linear" if kind != "gather" else "binomial"), low=1,
                     high=1 << 40)], platform=p).save(folder)


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
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all eight)")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",")
    if set(kinds) - set(KINDS):
        print(f"bench_mpi_percall: --kinds: no kind {', '.join(sorted(set(kinds) - set(KINDS)))} (give some of "
              f"{', '.join(KINDS)})", file=sys.stderr)
        return 2
    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi.calls import private

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    comm = MPI.COMM_WORLD
    where = tempfile.mkdtemp(prefix="collsched-bench-percall-")
    load0 = os.getloadavg()
    rows = []
    for kind in kinds:
        folder = os.path.join(where, f"plans-{kind}")
        _other_kind_plans(folder, kind)
        send, make = buffers(kind, 8, comm.rank, comm.size)
        fns = variants(kind, comm, private(comm).comm, send, make(), folder, csmpi, MPI)
        fns = [fns[i] for i in (0, 2, 3, 4, 5)]  # mpi4py's, no plans=, plans none fits, persistent, private
        for fn in fns:
            fn()
        best = [float("inf")] * len(fns)
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
          f"{'persistent us':>14} {'(+us)':>7} {'private us':>11} {'(+us)':>7}")
    for kind, (mpi, none, unfit, started, priv) in rows:
        pers = (f"{started * 1e6:>14.2f} {(started - mpi) * 1e6:>7.2f}" if kind != "alltoallv"
                else f"{'n/a':>14} {'':>7}")
        print(f"{kind:<10} {mpi * 1e6:>10.2f} {none * 1e6:>12.2f} {(none - mpi) * 1e6:>7.2f} {unfit * 1e6:>20.2f} "
              f"{(unfit - mpi) * 1e6:>7.2f} {pers} {priv * 1e6:>11.2f} {(priv - mpi) * 1e6:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
