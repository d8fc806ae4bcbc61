"""Instructions per call of collsched.mpi's calls and of mpi4py's own, counted by callgrind (one process, 8 B).

On 8 ranks over 2 cores, a small collective's time follows the CPU work
every rank does per call (``bench_mpi_small.py``: its ``cpu`` columns), and
on a loaded machine wall-clock figures move by more than the difference
sought; an instruction count does not. This script runs itself once under
``valgrind --tool=callgrind --dump-before=getppid`` (singleton MPI, one
process, ``PYTHONHASHSEED=0``, one BLAS thread): for each variant in turn,
``--calls`` calls of warm-up, then ``os.getppid()`` (callgrind writes and
zeroes its counts there), then ``--more`` calls, then ``os.getppid()``
again; the count written there divided by ``--more`` is the instructions
of one call (and of its share of the loop calling it, the same for every
variant). Variants (float64, 8 bytes a rank's block): for each
of the eight calls, mpi4py's own as a user writes it (``kind:mpi4py``:
``comm.Allreduce(x, o, MPI.SUM)``, ``comm.Bcast(x, 0)``, ``comm.Reduce(x, o,
MPI.SUM, 0)``, ``comm.Scatter(x, o, 0)``, ``comm.Gather(x, o, 0)``,
``comm.Allgather(x, o)``, ``comm.Alltoall(x, o)``, ``comm.Alltoallv([x,
counts], [o, counts])``) and collsched.mpi's (``kind:ours``, the same
arguments after ``comm``); and ``comm.Bcast((x, MPI.BYTE), 0)``
(``bcast:mpi4py-bytes``, the form collsched.mpi's fast path calls).

Run: ``.venv/bin/python benchmarks/bench_mpi_instructions.py [--calls 100] [--more 2000] [--variants mpi,ours]``.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

from _cli import parser, run

KINDS = ("allreduce", "bcast", "reduce", "scatter", "gather", "allgather", "alltoall", "alltoallv")
VARIANTS = tuple(f"{kind}:{who}" for kind in KINDS for who in ("mpi4py", "ours")) + ("bcast:mpi4py-bytes",)


def _calls(variants: list[str], calls: int, more: int) -> None:
    """For each variant, ``calls`` calls, ``os.getppid()``, ``more`` calls, ``os.getppid()`` (callgrind counts them)."""
    import warnings

    import numpy as np
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    w, s = MPI.COMM_WORLD, MPI.SUM
    x = np.arange(1.0)
    o = np.empty_like(x)
    c = [1]  # alltoallv's counts (one rank)
    f = {"allreduce:mpi4py": lambda: w.Allreduce(x, o, s), "allreduce:ours": lambda: csmpi.allreduce(w, x, o, s),
         "bcast:mpi4py": lambda: w.Bcast(x, 0), "bcast:mpi4py-bytes": lambda: w.Bcast((x, MPI.BYTE), 0),
         "bcast:ours": lambda: csmpi.bcast(w, x, 0),
         "reduce:mpi4py": lambda: w.Reduce(x, o, s, 0), "reduce:ours": lambda: csmpi.reduce(w, x, o, s, 0),
         "scatter:mpi4py": lambda: w.Scatter(x, o, 0), "scatter:ours": lambda: csmpi.scatter(w, x, o, 0),
         "gather:mpi4py": lambda: w.Gather(x, o, 0), "gather:ours": lambda: csmpi.gather(w, x, o, 0),
         "allgather:mpi4py": lambda: w.Allgather(x, o), "allgather:ours": lambda: csmpi.allgather(w, x, o),
         "alltoall:mpi4py": lambda: w.Alltoall(x, o), "alltoall:ours": lambda: csmpi.alltoall(w, x, o),
         "alltoallv:mpi4py": lambda: w.Alltoallv([x, c], [o, c]),
         "alltoallv:ours": lambda: csmpi.alltoallv(w, x, c, o, c)}
    for variant in variants:
        call = f[variant]
        for _ in range(calls):
            call()
        os.getppid()  # callgrind's counts since the last dump are written here, and zeroed
        for _ in range(more):
            call()
        os.getppid()


def collected(text: str) -> int:
    """The instructions of one dump of callgrind (its ``totals:`` line).

    Examples
    --------
    >>> collected("events: Ir\\nsummary: 4614\\ntotals: 4614\\n")
    4614
    """
    found = re.search(r"^totals: (\d+)", text, re.M)
    if found is None:
        raise RuntimeError(f"no callgrind totals in: {text[-400:]}")
    return int(found.group(1))


def _counts(variants: list[str], calls: int, more: int, where: str) -> list[int]:
    """The instructions of each variant's ``more`` calls, from one callgrind run."""
    env = dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join(sys.path))
    out = os.path.join(where, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={out}",
           sys.executable, os.path.abspath(__file__), "--run", ",".join(variants), str(calls), str(more)]
    subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    # dump 1 ends the first warm-up; dump 2k + 2 holds variant k's measured calls, dump 2k + 3 the next warm-up
    counts = []
    for k in range(len(variants)):
        with open(f"{out}.{2 * k + 2}") as f:
            counts.append(collected(f.read()))
    return counts


def main(argv=None) -> int:
    """Count every chosen variant's instructions per call (two callgrind runs each) and print them.

    Examples
    --------
    >>> main(["--variants", "nope"])
    2
    """
    ap = parser(__doc__)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--more", type=int, default=2000)
    ap.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated, of " + ", ".join(VARIANTS))
    ap.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        _calls(args.run[0].split(","), int(args.run[1]), int(args.run[2]))
        return 0
    chosen = args.variants.split(",")
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown:
        print(f"bench_mpi_instructions: --variants: no variant {', '.join(unknown)} (give some of "
              f"{', '.join(VARIANTS)})", file=sys.stderr)
        return 2
    where = tempfile.mkdtemp(prefix="collsched-bench-mpi-instructions-")
    print(f"instructions per call (callgrind, one process, 8 B float64; {args.more} calls counted after "
          f"{args.calls} of warm-up, per variant); load average {os.getloadavg()[0]:.2f}")
    per_call = {}
    for variant, count in zip(chosen, _counts(chosen, args.calls, args.more, where)):
        per_call[variant] = count / args.more
        print(f"{variant:<20} {per_call[variant]:>9.0f}")
    for kind in KINDS:
        if f"{kind}:mpi4py" in per_call and f"{kind}:ours" in per_call:
            print(extra(kind, per_call[f"{kind}:mpi4py"], per_call[f"{kind}:ours"]))
    return 0


def extra(kind: str, theirs: float, ours: float) -> str:
    """One line: what collsched.mpi's call adds to mpi4py's own, in instructions per call and in percent.

    Examples
    --------
    >>> extra("bcast", 4064, 4614)
    'bcast      ours - mpi4py:      +550 (+13.5%)'
    """
    return f"{kind:<10} ours - mpi4py: {ours - theirs:>+9.0f} ({100 * (ours - theirs) / theirs:+.1f}%)"


if __name__ == "__main__":
    run(lambda: sys.exit(main()))
