"""Instructions per call of collsched.mpi's calls and of mpi4py's own, counted by callgrind (one process, 8 B).

On 8 ranks over 2 cores, a small collective's time follows the CPU work
every rank does per call (``bench_mpi_small.py``: its ``cpu`` columns), and
on a loaded machine wall-clock figures move by more than the difference
sought; an instruction count does not. For each variant this script runs
itself under ``valgrind --tool=callgrind`` twice, with ``--calls`` and
``--calls + --more`` calls after ten of warm-up (singleton MPI, one
process, ``PYTHONHASHSEED=0``, one BLAS thread), and prints the difference
of the two totals divided by ``--more``: the instructions of one call, the
start-up cancelled out. Variants (float64, 8 bytes): mpi4py's
``comm.Allreduce(x, o, MPI.SUM)`` and ``csmpi.allreduce(comm, x, o,
MPI.SUM)``; ``comm.Bcast(x, 0)``, ``comm.Bcast((x, MPI.BYTE), 0)`` (the form
collsched.mpi's fast path calls) and ``csmpi.bcast(comm, x, 0)``.

Run: ``.venv/bin/python benchmarks/bench_mpi_instructions.py [--calls 1000] [--more 10000] [--variants mpi,ours]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

from _cli import parser, run

VARIANTS = ("allreduce:mpi4py", "allreduce:ours", "bcast:mpi4py", "bcast:mpi4py-bytes", "bcast:ours")


def _calls(variant: str, calls: int) -> None:
    """Run ``calls`` calls of ``variant`` after ten of warm-up (the process callgrind counts)."""
    import warnings

    import numpy as np
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    w, s = MPI.COMM_WORLD, MPI.SUM
    x = np.arange(1.0)
    o = np.empty_like(x)
    f = {"allreduce:mpi4py": lambda: w.Allreduce(x, o, s), "allreduce:ours": lambda: csmpi.allreduce(w, x, o, s),
         "bcast:mpi4py": lambda: w.Bcast(x, 0), "bcast:mpi4py-bytes": lambda: w.Bcast((x, MPI.BYTE), 0),
         "bcast:ours": lambda: csmpi.bcast(w, x, 0)}[variant]
    for _ in range(10):
        f()
    for _ in range(calls):
        f()


def collected(text: str) -> int:
    """The instructions callgrind collected, from its summary on stderr.

    Examples
    --------
    >>> collected("==12== Events    : Ir\\n==12== Collected : 2,150,961,655\\n")
    2150961655
    """
    found = re.search(r"Collected : ([\d,]+)", text)
    if found is None:
        raise RuntimeError(f"no callgrind summary in: {text[-400:]}")
    return int(found.group(1).replace(",", ""))


def _count(variant: str, calls: int, where: str) -> int:
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(sys.path))
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(where, 'callgrind.out')}",
           sys.executable, os.path.abspath(__file__), "--run", variant, str(calls)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return collected(done.stderr)


def main(argv=None) -> int:
    """Count every chosen variant's instructions per call (two callgrind runs each) and print them.

    Examples
    --------
    >>> main(["--variants", "nope"])
    2
    """
    ap = parser(__doc__)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--more", type=int, default=10000)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of " + ", ".join(VARIANTS))
    ap.add_argument("--run", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _calls(args.run[0], int(args.run[1]))
        return 0
    chosen = args.variants.split(",")
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown:
        print(f"bench_mpi_instructions: --variants: no variant {', '.join(unknown)} (give some of "
              f"{', '.join(VARIANTS)})", file=sys.stderr)
        return 2
    where = tempfile.mkdtemp(prefix="collsched-bench-mpi-instructions-")
    print(f"instructions per call (callgrind, one process, 8 B float64; ({args.calls + args.more} calls - "
          f"{args.calls} calls) / {args.more}); load average {os.getloadavg()[0]:.2f}")
    for variant in chosen:
        few, many = (_count(variant, n, where) for n in (args.calls, args.calls + args.more))
        print(f"{variant:<20} {(many - few) / args.more:>9.0f}")
    return 0


if __name__ == "__main__":
    run(lambda: sys.exit(main()))
