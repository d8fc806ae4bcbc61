"""collsched.mpi without plans (the delegated path) against mpi4py's own collectives, 8 local ranks, 8 B .. 64 MB.

With no ``plans=``, every ``collsched.mpi`` call checks its arguments
locally and calls MPI's own collective on a private duplicate of the
communicator, with no agreement between ranks. This script runs one MPI job
of ``--ranks`` ranks on this machine (shared memory, no emulation) and, for
allreduce (``MPI.SUM``), bcast (root 0), reduce (``MPI.SUM``, root 0) and
allgather at 8 B, 1 KB, 64 KB, 1 MB, 16 MB and 64 MB of float64 (for allgather, what
every rank receives), times
``collsched.mpi``'s call and mpi4py's own (``Allreduce``, ``Bcast``,
``Reduce``, ``Allgather``) alternately, each timed between barriers as the
slowest rank's time, best of ``--repeat``; it checks that the results are
bitwise equal and prints both times and their ratio (the issue's target:
at most 1.10). With ``--calls N``, a sample is N calls in a row below
1 MB (at most 1 MB / size of them, so 16 at 64 KB) and the time is per
call: on a loaded machine, one 8-byte call between barriers is mostly
scheduling noise.

Run: ``.venv/bin/python benchmarks/bench_mpi_small.py [--ranks 8] [--repeat 5] [--calls 1] [--max 64MB]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

SIZES = (8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20)
KINDS = ("allreduce", "bcast", "reduce", "allgather")


def _timed(comm, fn, calls: int) -> float:
    from mpi4py import MPI

    comm.Barrier()
    began = time.perf_counter()
    for _ in range(calls):
        fn()
    took = (time.perf_counter() - began) / calls
    return comm.allreduce(took, op=MPI.MAX)


def calls_per_sample(size: int, calls: int) -> int:
    """Up to ``calls`` calls per sample below 1 MB, at most 1 MB / ``size`` of them.

    Examples
    --------
    >>> [calls_per_sample(s, 100) for s in (8, 64 << 10, 1 << 20)], calls_per_sample(8, 1)
    ([100, 16, 1], 1)
    """
    return max(1, min(calls, (1 << 20) // size))


def rank_main(out: str, repeat: int, sizes: list[int], per_sample: int = 1) -> None:
    """One rank of the measuring job (this file run by mpirun with ``--rank``)."""
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    comm = MPI.COMM_WORLD
    me, n = comm.rank, comm.size
    rows = []
    for size in sizes:
        k = calls_per_sample(size, per_sample)
        x = np.random.default_rng(me).integers(-1000, 1000, max(1, size // 8)).astype(np.float64)
        block = x[: max(1, x.size // n)]  # allgather: the size is what every rank receives
        one = {"allreduce": lambda b: np.empty_like(x), "bcast": lambda b: x.copy(),
               "reduce": lambda b: np.empty_like(x), "allgather": lambda b: np.empty(n * block.size)}
        calls = {
            "allreduce": (lambda b: csmpi.allreduce(comm, x, b, MPI.SUM), lambda b: comm.Allreduce(x, b, op=MPI.SUM)),
            "bcast": (lambda b: csmpi.bcast(comm, b, 0), lambda b: comm.Bcast(b, 0)),
            "reduce": (lambda b: csmpi.reduce(comm, x, b, MPI.SUM, 0), lambda b: comm.Reduce(x, b, op=MPI.SUM, root=0)),
            "allgather": (lambda b: csmpi.allgather(comm, block, b), lambda b: comm.Allgather(block, b)),
        }
        for kind in KINDS:
            ours, theirs = calls[kind]
            bufs = {"ours": one[kind](None), "mpi": one[kind](None)}
            times = {"ours": [], "mpi": []}
            for _ in range(repeat):
                times["ours"].append(_timed(comm, lambda: ours(bufs["ours"]), k))
                times["mpi"].append(_timed(comm, lambda: theirs(bufs["mpi"]), k))
            same = kind == "reduce" and me != 0 or bufs["ours"].tobytes() == bufs["mpi"].tobytes()
            same = comm.allreduce(bool(same), op=MPI.LAND)
            rows.append({"kind": kind, "size": size, "ours": min(times["ours"]), "mpi": min(times["mpi"]),
                         "equal": bool(same)})
    if me == 0:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(rows, f)


def _size(text: str) -> int:
    units = {"KB": 1 << 10, "MB": 1 << 20, "B": 1}
    for u, k in units.items():
        if text.upper().endswith(u):
            return int(float(text[: -len(u)]) * k)
    return int(text)


def main(argv=None) -> int:
    """Launch the job and print the table.

    Examples
    --------
    >>> _size("64MB") == 64 << 20
    True
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--calls", type=int, default=1, help="calls per sample below 1 MB (at most 1 MB / size)")
    ap.add_argument("--max", default="64MB", help="largest size measured")
    ap.add_argument("--rank", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.rank:
        rank_main(args.rank[0], args.repeat, [int(s) for s in args.rank[1].split(",")], args.calls)
        return 0
    from collsched.runtime.launch import mpirun_command

    sizes = [s for s in SIZES if s <= _size(args.max)]
    out = os.path.join(tempfile.mkdtemp(prefix="collsched-bench-mpi-small-"), "rows.json")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = mpirun_command(args.ranks, [sys.executable, os.path.abspath(__file__), "--repeat", str(args.repeat),
                                      "--calls", str(args.calls), "--rank", out, ",".join(map(str, sizes))])
    subprocess.run(cmd, check=True, env=env)
    with open(out, encoding="utf-8") as f:
        rows = json.load(f)
    print(f"{args.ranks} local ranks, shared memory, best of {args.repeat}, slowest rank, "
          f"{args.calls} call(s) per sample below 1 MB; "
          "collsched.mpi without plans (MPI's own, delegated) vs mpi4py's own")
    print(f"{'kind':<10} {'size':>10} {'collsched.mpi us':>17} {'mpi4py us':>10} {'ratio':>6}  equal")
    worst = 0.0
    for r in rows:
        ratio = r["ours"] / r["mpi"]
        worst = max(worst, ratio)
        print(f"{r['kind']:<10} {r['size']:>10} {r['ours'] * 1e6:>17.1f} {r['mpi'] * 1e6:>10.1f} {ratio:>6.2f}  "
              f"{r['equal']}")
    print(f"worst ratio {worst:.2f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
