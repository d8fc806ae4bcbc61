"""collsched.mpi where MPI's own collective runs, against mpi4py's own, 8 local ranks, 8 B .. 64 MB, with an A/A control.

Where no plan fits (no ``plans=``, or a plan folder none of whose plans
fits the size), a ``collsched.mpi`` call checks its arguments and calls
MPI's own collective on its private communicator. This script runs one MPI
job of ``--ranks`` ranks on this machine (shared memory, no emulation) and
measures, for each of the eight kinds (``--kinds``: allreduce and reduce
with ``MPI.SUM``, bcast, scatter and gather from root 0, allgather,
alltoall, alltoallv with even counts) on float64, six variants (the size is
the largest buffer: see :func:`buffers`):

- ``mpi``: mpi4py's own (``comm.Allreduce``, ``comm.Bcast``, ...);
- ``mpi'``: the same again, timed as a separate variant: the **A/A control**,
  whose ratio to ``mpi`` is the harness's noise floor on this machine;
- ``ours``: ``collsched.mpi`` without ``plans=``;
- ``plans``: ``collsched.mpi`` with a plan folder whose plans are for sizes
  of 1 TB and up (none fits: the path with no agreement);
- ``persist``: ``collsched.mpi.persistent`` of the call (no ``plans=``), made
  once and started in every call of the block: where MPI's own runs, the
  private communicator's mpi4py method with its arguments bound, no Python
  of collsched's per call (``n/a`` for alltoallv, which it does not take);
- ``private``: mpi4py's own on ``collsched.mpi``'s private communicator
  (a duplicate, with the receive of its abort channel posted): what the
  communicator costs, without collsched's Python.

Each variant is one lambda that calls what it measures, with the same
arguments, so that the harness adds the same Python to each. A **block**
is ``--calls`` calls in a row of one variant (at most 64 MB / size of
them, at least one), started after a barrier and timed as the slowest
rank's time per call. A **round** is one block of each
variant, in an order rotated every round (so that no variant always
follows another); ``--rounds`` rounds. Each ratio printed is the median,
over the rounds, of the ratio of the two variants' blocks in the same
round; the A/A column shows the median and, in brackets, the 10th and 90th
percentiles of ``mpi'`` / ``mpi``. Results are checked bitwise equal.
The load average at the start and end is printed.

Run: ``.venv/bin/python benchmarks/bench_mpi_small.py [--ranks 8] [--rounds 15] [--calls 200] [--max 64MB]
[--sizes 8B,1KB] [--kinds bcast,alltoallv]``.
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
KINDS = ("allreduce", "bcast", "reduce", "allgather", "scatter", "gather", "alltoall", "alltoallv")
VARIANTS = ("mpi", "mpi'", "ours", "plans", "persist", "private")


def calls_per_block(size: int, calls: int) -> int:
    """Up to ``calls`` calls per block, at most 64 MB / ``size`` of them, at least one.

    Examples
    --------
    >>> [calls_per_block(s, 200) for s in (8, 1 << 20, 16 << 20, 64 << 20)]
    [200, 64, 4, 1]
    """
    return max(1, min(calls, (64 << 20) // size))


def rotation(round_: int) -> list[int]:
    """The order of the variants in round ``round_``: rotated by one each round.

    Examples
    --------
    >>> rotation(0), rotation(1), rotation(7)
    ([0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 0], [1, 2, 3, 4, 5, 0])
    """
    k = round_ % len(VARIANTS)
    return [(k + i) % len(VARIANTS) for i in range(len(VARIANTS))]


def paired(a: list[float], b: list[float]) -> np.ndarray:
    """The ratios ``a[r] / b[r]`` of two variants' blocks in the same rounds.

    Examples
    --------
    >>> paired([2.0, 3.0], [1.0, 2.0]).tolist()
    [2.0, 1.5]
    """
    return np.asarray(a) / np.asarray(b)


def _block(comm, fn, calls: int) -> float:
    from mpi4py import MPI

    comm.Barrier()
    began = time.perf_counter()
    for _ in range(calls):
        fn()
    took = (time.perf_counter() - began) / calls
    return comm.allreduce(took, op=MPI.MAX)


def buffers(kind: str, size: int, me: int, n: int, root: int = 0):
    """``(send, make_output)`` of one kind: ``size`` bytes of float64 in the largest buffer (at least one per block).

    The size is the broadcast buffer, a reduction's operand, the root's
    buffer of ``scatter`` and ``gather``, what every rank receives in
    ``allgather``, what every rank sends in ``alltoall`` and ``alltoallv``
    (even counts). ``make_output()`` makes a fresh output (the broadcast
    buffer itself, a copy of ``send`` at the root).

    Examples
    --------
    >>> send, make = buffers("gather", 64, 0, 4)
    >>> send.nbytes, make().nbytes
    (16, 64)
    """
    x = np.random.default_rng(me).integers(-1000, 1000, max(n, size // 8)).astype(np.float64)
    block = x[: x.size // n]
    whole = np.tile(block, n)
    send = {"allreduce": x, "bcast": x, "reduce": x, "allgather": block, "scatter": whole if me == root else None,
            "gather": block, "alltoall": whole, "alltoallv": whole}[kind]
    make = {"allreduce": lambda: np.empty_like(x), "bcast": lambda: x.copy(), "reduce": lambda: np.empty_like(x),
            "allgather": lambda: np.empty_like(whole), "scatter": lambda: np.empty_like(block),
            "gather": lambda: np.empty_like(whole) if me == root else None, "alltoall": lambda: np.empty_like(whole),
            "alltoallv": lambda: np.empty_like(whole)}[kind]
    return send, make


def variants(kind: str, comm, private, send, outs: list, plans: str, csmpi, MPI) -> list:
    """The six variants' calls, one lambda each with no other Python between it and the call measured.

    ``comm`` is the application's communicator, ``private`` collsched.mpi's
    private duplicate of it; ``outs[i]`` variant ``i``'s output array. For
    ``alltoallv`` (which ``persistent`` does not take) the ``persist`` variant
    is the ordinary call again.
    """
    o0, o1, o2, o3, o4, o5 = outs
    sum_ = MPI.SUM
    persistent = {"allreduce": lambda o: csmpi.persistent(csmpi.allreduce, comm, send, o, sum_),
                  "bcast": lambda o: csmpi.persistent(csmpi.bcast, comm, o, 0),
                  "reduce": lambda o: csmpi.persistent(csmpi.reduce, comm, send, o, sum_, 0),
                  "allgather": lambda o: csmpi.persistent(csmpi.allgather, comm, send, o),
                  "scatter": lambda o: csmpi.persistent(csmpi.scatter, comm, send, o, 0),
                  "gather": lambda o: csmpi.persistent(csmpi.gather, comm, send, o, 0),
                  "alltoall": lambda o: csmpi.persistent(csmpi.alltoall, comm, send, o)}
    if kind == "allreduce":
        f, g = csmpi.allreduce, comm.Allreduce
        fns = [lambda: g(send, o0, sum_), lambda: g(send, o1, sum_), lambda: f(comm, send, o2, sum_),
               lambda: f(comm, send, o3, sum_, plans=plans), None, lambda: private.Allreduce(send, o5, sum_)]
    elif kind == "bcast":
        f, g = csmpi.bcast, comm.Bcast
        fns = [lambda: g(o0, 0), lambda: g(o1, 0), lambda: f(comm, o2, 0), lambda: f(comm, o3, 0, plans=plans), None,
               lambda: private.Bcast(o5, 0)]
    elif kind == "reduce":
        f, g = csmpi.reduce, comm.Reduce
        fns = [lambda: g(send, o0, sum_, 0), lambda: g(send, o1, sum_, 0), lambda: f(comm, send, o2, sum_, 0),
               lambda: f(comm, send, o3, sum_, 0, plans=plans), None, lambda: private.Reduce(send, o5, sum_, 0)]
    elif kind in ("allgather", "alltoall"):
        f, g = getattr(csmpi, kind), getattr(comm, kind.capitalize())
        h = getattr(private, kind.capitalize())
        fns = [lambda: g(send, o0), lambda: g(send, o1), lambda: f(comm, send, o2),
               lambda: f(comm, send, o3, plans=plans), None, lambda: h(send, o5)]
    elif kind in ("scatter", "gather"):
        f, g, h = getattr(csmpi, kind), getattr(comm, kind.capitalize()), getattr(private, kind.capitalize())
        fns = [lambda: g(send, o0, 0), lambda: g(send, o1, 0), lambda: f(comm, send, o2, 0),
               lambda: f(comm, send, o3, 0, plans=plans), None, lambda: h(send, o5, 0)]
    else:
        f, g = csmpi.alltoallv, comm.Alltoallv
        counts = [send.size // comm.size] * comm.size
        fns = [lambda: g([send, counts], [o0, counts]), lambda: g([send, counts], [o1, counts]),
               lambda: f(comm, send, counts, o2, counts), lambda: f(comm, send, counts, o3, counts, plans=plans),
               lambda: f(comm, send, counts, o4, counts), lambda: private.Alltoallv([send, counts], [o5, counts])]
    if fns[4] is None:
        fns[4] = persistent[kind](o4)
    return fns


def rank_main(out: str, rounds: int, sizes: list[int], calls: int, plans: str, kinds: list[str]) -> None:
    """One rank of the measuring job (this file run by mpirun with ``--rank``)."""
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    from collsched.mpi.calls import private

    world = MPI.COMM_WORLD
    me, n = world.rank, world.size
    mine = private(world).comm
    rows = []
    for size in sizes:
        k = calls_per_block(size, calls)
        for kind in kinds:
            send, make = buffers(kind, size, me, n)
            outs = [make() for _ in VARIANTS]
            fns = variants(kind, world, mine, send, outs, plans, csmpi, MPI)
            for fn in fns:  # warm up: the private communicator, the plan folder, MPI's own algorithm's buffers
                fn()
            times = [[0.0] * rounds for _ in VARIANTS]
            for r in range(rounds):
                for v in rotation(r):
                    times[v][r] = _block(world, fns[v], k)
            same = all(o is None or o.tobytes() == outs[0].tobytes() for o in outs)
            if kind == "reduce" and me != 0:
                same = True  # a reduction's output is the root's
            same = world.allreduce(bool(same), op=MPI.LAND)
            rows.append({"kind": kind, "size": size, "calls": k, "times": times, "equal": bool(same)})
    if me == 0:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(rows, f)


def _size(text: str) -> int:
    units = {"KB": 1 << 10, "MB": 1 << 20, "B": 1}
    for u, k in units.items():
        if text.upper().endswith(u):
            return int(float(text[: -len(u)]) * k)
    return int(text)


def _unfit_plans(n: int, folder: str) -> None:
    """A plan folder for ``n`` ranks, a plan of every kind that has plans, each for 1 TB and up: none fits."""
    import collsched as cs
    from collsched.mpi.plans import Plan, PlanSet

    p = cs.topologies.fully_connected(n)
    h = list(p.hosts)
    made = [(cs.Broadcast(source=h[0], targets=h, size=1e6), "binomial"),
            (cs.Reduce(participants=h, target=h[0], size=1e6), "binomial"),
            (cs.AllReduce(participants=h, size=1e6), "ring"), (cs.AllGather(participants=h, size=1e6), "ring"),
            (cs.Scatter(source=h[0], targets=h, size=1e6), "binomial"),
            (cs.Gather(sources=h, target=h[0], size=1e6), "binomial"),
            (cs.AllToAll(senders=h, size=1e6), "caterpillar")]
    PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm=a), low=1 << 40, high=1 << 41) for c, a in made],
            platform=p).save(folder)


def main(argv=None) -> int:
    """Launch the job and print the table.

    Examples
    --------
    >>> _size("64MB") == 64 << 20
    True
    """
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=200, help="calls per block (at most 64 MB / size)")
    ap.add_argument("--max", default="64MB", help="largest size measured")
    ap.add_argument("--sizes", default=None, help="comma-separated sizes instead of 8B,1KB,64KB,1MB,16MB,64MB")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all eight)")
    ap.add_argument("--rank", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",")
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        print(f"bench_mpi_small: --kinds: no kind {', '.join(unknown)} (give some of {', '.join(KINDS)})",
              file=sys.stderr)
        return 2
    if args.rank:
        rank_main(args.rank[0], args.rounds, [int(s) for s in args.rank[1].split(",")], args.calls, args.rank[2],
                  kinds)
        return 0
    from collsched.runtime.launch import mpirun_command

    sizes = [_size(s) for s in args.sizes.split(",")] if args.sizes else [s for s in SIZES if s <= _size(args.max)]
    where = tempfile.mkdtemp(prefix="collsched-bench-mpi-small-")
    out, plans = os.path.join(where, "rows.json"), os.path.join(where, "plans")
    _unfit_plans(args.ranks, plans)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = mpirun_command(args.ranks, [sys.executable, os.path.abspath(__file__), "--rounds", str(args.rounds),
                                      "--calls", str(args.calls), "--kinds", args.kinds, "--rank", out,
                                      ",".join(map(str, sizes)), plans])
    load0 = os.getloadavg()
    began = time.time()
    subprocess.run(cmd, check=True, env=env)
    load1 = os.getloadavg()
    with open(out, encoding="utf-8") as f:
        rows = json.load(f)
    print(f"{args.ranks} local ranks, shared memory; {args.rounds} rounds of one block per variant (rotated), "
          f"up to {args.calls} calls per block; slowest rank; medians of same-round ratios; "
          f"{time.time() - began:.0f} s; load average {load0[0]:.2f} at start, {load1[0]:.2f} at end")
    print(f"{'kind':<10} {'size':>9} {'calls':>5} {'mpi us':>9} {'ours/mpi':>9} {'plans/mpi':>9} {'pers/mpi':>9} "
          f"{'priv/mpi':>8} {'A/A: mpi`/mpi [p10, p90]':>26}  equal")
    worst = {"ours": 0.0, "plans": 0.0, "persist": 0.0, "A/A": 0.0}
    for r in rows:
        t = r["times"]
        ours, plans_, aa, pers, priv = (np.median(paired(t[v], t[0])) for v in (2, 3, 1, 4, 5))
        lo, hi = np.percentile(paired(t[1], t[0]), [10, 90])
        persisted = r["kind"] != "alltoallv"  # persistent takes the seven other kinds
        for key, val in (("ours", ours), ("plans", plans_), ("persist", pers if persisted else 0.0), ("A/A", aa)):
            worst[key] = max(worst[key], val)
        shown = f"{pers:>9.3f}" if persisted else f"{'n/a':>9}"
        print(f"{r['kind']:<10} {r['size']:>9} {r['calls']:>5} {np.median(t[0]) * 1e6:>9.1f} {ours:>9.3f} "
              f"{plans_:>9.3f} {shown} {priv:>8.3f} {aa:>9.3f} [{lo:.3f}, {hi:.3f}]  {r['equal']}")
    print(f"worst median ratio: ours {worst['ours']:.3f}, plans {worst['plans']:.3f}, persist {worst['persist']:.3f}, "
          f"A/A control {worst['A/A']:.3f} (target <= 1.10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
