"""collsched.mpi where MPI's own collective runs, against mpi4py's own, 8 local ranks, 8 B .. 64 MB, with an A/A control.

Where no plan fits (no ``plans=``, or a plan folder none of whose plans
fits the size), a ``collsched.mpi`` call checks its arguments and calls
MPI's own collective on its private communicator. This script runs one MPI
job of ``--ranks`` ranks on this machine (shared memory, no emulation; the
launcher's settings, ``mpi_yield_when_idle=1`` and no binding, apply to
every variant alike) and measures, for each of the eight kinds
(``--kinds``: allreduce and reduce with ``MPI.SUM``, bcast, scatter and
gather from root 0, allgather, alltoall, alltoallv with even counts) on
float64, six variants (the size is the largest buffer: see
:func:`buffers`):

- ``mpi``: mpi4py's own (``comm.Allreduce``, ``comm.Bcast``, ...);
- ``mpi'``: the very same call again, timed as a separate variant: the
  **A/A control**. Its ratio to ``mpi`` must come out at 1 within its
  confidence interval; if it does not, the harness is biased;
- ``ours``: ``collsched.mpi`` without ``plans=``;
- ``plans``: ``collsched.mpi`` with a plan folder whose plans are for sizes
  of 1 TB and up (none fits: the path with no agreement);
- ``persist``: ``collsched.mpi.persistent`` of the call (no ``plans=``), made
  once and started in every call of the block (``n/a`` for alltoallv,
  which it does not take: the ordinary call again);
- ``private``: mpi4py's own on ``collsched.mpi``'s private communicator
  (a duplicate, with the receive of its abort channel posted).

Fairness. Each variant is one lambda that calls one callable (the
persistent call too), and every variant writes into the **same** output
array (so that no variant owns a better-placed or warmer buffer; each
result is then checked bitwise against mpi4py's, one call per variant on
a cleared output). A **block** is ``k`` calls in a row of one variant,
timed on each rank by its own clock; ``k`` is chosen once per row so that a
block of mpi4py's call lasts about ``--block-ms`` (at most ``--calls``, at
least one). A **round** is one block of each variant, back to back after
an untimed barrier, in the order of a row of a Williams square
(:func:`order`): over six rounds each variant takes each place once and
follows each other variant once, so that neither its place nor the block
before it favours a variant. A block's time is the mean over the ranks of their times (and its CPU time the sum of the ranks' CPU times:
the ``cpu`` columns, mpi4py's call's and the ratios of ``ours`` and of the
A/A control). For each variant the
ratio to ``mpi``'s block **in the same round** is taken, and the median
of those paired ratios is printed with its 95% confidence interval
(distribution-free: order statistics of the binomial, :func:`median_ci`).
The number of rounds is ``--rounds`` or what fits in ``--seconds`` per
row, whichever is fewer, at least 18, a multiple of six.

Verdict per row (issue 19: at most 10% slower): ``met`` when the
interval's upper end is at most 1.10, ``NOT met`` when its lower end is
above 1.10, ``open`` otherwise. The load average at the start and end is
printed.

Run: ``.venv/bin/python benchmarks/bench_mpi_small.py [--ranks 8] [--rounds 400] [--seconds 10] [--block-ms 10]
[--calls 1000] [--max 64MB] [--sizes 8B,1KB] [--kinds bcast,alltoallv]``.
"""

from __future__ import annotations

import argparse
import json
import math
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


def order(round_: int) -> list[int]:
    """The order of the variants in round ``round_``: row ``round_ % 6`` of a Williams square.

    Over six rounds in a row, each variant takes each place once and
    follows each other variant once (the first-order carry-over is
    balanced): neither a place in the round nor the variant before it
    favours any variant.

    Examples
    --------
    >>> [order(r) for r in range(2)]
    [[0, 1, 5, 2, 4, 3], [1, 2, 0, 3, 5, 4]]
    >>> rows = [order(r) for r in range(6)]
    >>> sorted({(a[i], a[i + 1]) for a in rows for i in range(5)}) == [(x, y) for x in range(6) for y in range(6) if x != y]
    True
    """
    n = len(VARIANTS)
    first = [0] + [(k + 1) // 2 if k % 2 else n - k // 2 for k in range(1, n)]
    return [(v + round_) % n for v in first]


def paired(a, b) -> np.ndarray:
    """The ratios ``a[r] / b[r]`` of two variants' blocks in the same rounds.

    Examples
    --------
    >>> paired([2.0, 3.0], [1.0, 2.0]).tolist()
    [2.0, 1.5]
    """
    return np.asarray(a) / np.asarray(b)


def median_ci(x, level: float = 0.95) -> tuple[float, float, float]:
    """The median of ``x`` and a distribution-free ``level`` confidence interval for it.

    The interval runs from the ``j``-th smallest to the ``j``-th largest
    value, ``j`` the largest rank such that a Binomial(n, 1/2) falls below
    ``j`` with probability at most (1 - ``level``) / 2: it holds the
    population's median with probability at least ``level`` for any
    continuous distribution of independent samples.

    Examples
    --------
    >>> median_ci([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    (5.0, 2.0, 8.0)
    """
    xs = np.sort(np.asarray(x, dtype=float))
    n = xs.size
    tail, below, j = (1 - level) / 2, 0, 0
    while j < n // 2:
        below += math.comb(n, j)  # P(B <= j) * 2**n
        if below / 2**n > tail:
            break
        j += 1
    j = max(j, 1)  # too few samples for the level: the whole range
    return float(np.median(xs)), float(xs[j - 1]), float(xs[n - j])


def verdict(lo: float, hi: float, target: float = 1.10) -> str:
    """``met`` if the interval is at most ``target``, ``NOT met`` if above it, ``open`` if it straddles it.

    Examples
    --------
    >>> verdict(1.01, 1.04), verdict(1.12, 1.2), verdict(1.05, 1.15)
    ('met', 'NOT met', 'open')
    """
    return "met" if hi <= target else "NOT met" if lo > target else "open"


def plan_row(per_call: float, block_s: float, calls: int, seconds: float, rounds: int) -> tuple[int, int]:
    """``(k, rounds)`` of a row: ``k`` calls per block (about ``block_s``); rounds within ``seconds``, 18 at least.

    The rounds are a multiple of six (whole Williams squares, :func:`order`).

    Examples
    --------
    >>> plan_row(1e-5, 2e-3, 1000, 6.0, 400)
    (200, 396)
    >>> plan_row(0.05, 2e-3, 1000, 6.0, 400)
    (1, 18)
    """
    k = max(1, min(calls, round(block_s / per_call)))
    fits = int(seconds / (len(VARIANTS) * k * per_call))
    return k, max(18, min(rounds, fits)) // 6 * 6


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


def variants(kind: str, comm, private, send, o, plans: str, csmpi, MPI) -> list:
    """The six variants' calls, one lambda each calling one callable, with no other Python around the call measured.

    ``comm`` is the application's communicator, ``private`` collsched.mpi's
    private duplicate of it; ``o`` the output array every variant writes
    (``None`` where the rank has none). For ``alltoallv`` (which
    ``persistent`` does not take) the ``persist`` variant is the ordinary
    call again.

    Examples
    --------
    See :func:`rank_main` (it needs an MPI job).

    >>> len(VARIANTS)
    6
    """
    sum_ = MPI.SUM
    if kind == "allreduce":
        f, g, p = csmpi.allreduce, comm.Allreduce, csmpi.persistent(csmpi.allreduce, comm, send, o, sum_)
        fns = [lambda: g(send, o, sum_), lambda: g(send, o, sum_), lambda: f(comm, send, o, sum_),
               lambda: f(comm, send, o, sum_, plans=plans), lambda: p(), lambda: private.Allreduce(send, o, sum_)]
    elif kind == "bcast":
        f, g, p = csmpi.bcast, comm.Bcast, csmpi.persistent(csmpi.bcast, comm, o, 0)
        fns = [lambda: g(o, 0), lambda: g(o, 0), lambda: f(comm, o, 0), lambda: f(comm, o, 0, plans=plans),
               lambda: p(), lambda: private.Bcast(o, 0)]
    elif kind == "reduce":
        f, g, p = csmpi.reduce, comm.Reduce, csmpi.persistent(csmpi.reduce, comm, send, o, sum_, 0)
        fns = [lambda: g(send, o, sum_, 0), lambda: g(send, o, sum_, 0), lambda: f(comm, send, o, sum_, 0),
               lambda: f(comm, send, o, sum_, 0, plans=plans), lambda: p(), lambda: private.Reduce(send, o, sum_, 0)]
    elif kind in ("allgather", "alltoall"):
        f, g, h = getattr(csmpi, kind), getattr(comm, kind.capitalize()), getattr(private, kind.capitalize())
        p = csmpi.persistent(f, comm, send, o)
        fns = [lambda: g(send, o), lambda: g(send, o), lambda: f(comm, send, o), lambda: f(comm, send, o, plans=plans),
               lambda: p(), lambda: h(send, o)]
    elif kind in ("scatter", "gather"):
        f, g, h = getattr(csmpi, kind), getattr(comm, kind.capitalize()), getattr(private, kind.capitalize())
        p = csmpi.persistent(f, comm, send, o, 0)
        fns = [lambda: g(send, o, 0), lambda: g(send, o, 0), lambda: f(comm, send, o, 0),
               lambda: f(comm, send, o, 0, plans=plans), lambda: p(), lambda: h(send, o, 0)]
    else:
        f, g = csmpi.alltoallv, comm.Alltoallv
        counts = [send.size // comm.size] * comm.size
        fns = [lambda: g([send, counts], [o, counts]), lambda: g([send, counts], [o, counts]),
               lambda: f(comm, send, counts, o, counts), lambda: f(comm, send, counts, o, counts, plans=plans),
               lambda: f(comm, send, counts, o, counts), lambda: private.Alltoallv([send, counts], [o, counts])]
    return fns


def _block(fn, calls: int) -> tuple[float, float]:
    """This rank's wall-clock and CPU time per call of ``calls`` calls of ``fn`` in a row (no barrier)."""
    cpu, began = time.process_time(), time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - began) / calls, (time.process_time() - cpu) / calls


def _clear(kind: str, out, me: int, root: int = 0) -> None:
    """Clear the output before a checked call (a broadcast's root keeps its data)."""
    if out is not None and not (kind == "bcast" and me == root):
        out[...] = 0


def rank_main(out: str, sizes: list[int], args) -> None:
    """One rank of the measuring job (this file run by mpirun with ``--rank``).

    Examples
    --------
    See :func:`main`, which runs it.

    >>> callable(rank_main)
    True
    """
    from mpi4py import MPI

    from collsched import mpi as csmpi

    warnings.simplefilter("ignore", csmpi.FallbackWarning)
    from collsched.mpi.calls import private

    world = MPI.COMM_WORLD
    me, n = world.rank, world.size
    mine = private(world).comm
    rows = []
    for size in sizes:
        for kind in args.kinds.split(","):
            send, make = buffers(kind, size, me, n)
            o = make()
            fns = variants(kind, world, mine, send, o, args.plans, csmpi, MPI)
            for fn in fns:  # warm up: the private communicator, the plan folder, MPI's own algorithm's buffers
                fn()
            probe = max(1, min(args.calls, (1 << 20) // max(size, 1)))
            per_call = world.allreduce(_block(fns[0], probe)[0], op=MPI.MAX)
            k, rounds = plan_row(per_call, args.block_ms * 1e-3, args.calls, args.seconds, args.rounds)
            times, cpu = np.zeros((len(VARIANTS), rounds)), np.zeros((len(VARIANTS), rounds))
            orders = [order(r) for r in range(rounds)]
            for r, placed in enumerate(orders):
                world.Barrier()  # untimed: every round starts with the ranks together
                for v in placed:
                    times[v, r], cpu[v, r] = _block(fns[v], k)
            seen = []
            for fn in fns:  # each variant once on a cleared output, compared with mpi4py's result
                _clear(kind, o, me)
                fn()
                seen.append(None if o is None else o.tobytes())
            same = kind == "reduce" and me != 0 or all(x == seen[0] for x in seen)  # a reduction's output is the root's
            same = world.allreduce(bool(same), op=MPI.LAND)
            every, cpus = world.gather(times, root=0), world.gather(cpu, root=0)
            if me == 0:
                rows.append({"kind": kind, "size": size, "calls": k, "times": np.mean(every, axis=0).tolist(),
                             "cpu": np.sum(cpus, axis=0).tolist(),
                             "equal": bool(same)})
                print(f"bench_mpi_small: {kind} {size} B done ({k} calls x {rounds} rounds)", file=sys.stderr,
                      flush=True)
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
    ap.add_argument("--rounds", type=int, default=400, help="most rounds per row")
    ap.add_argument("--seconds", type=float, default=10.0, help="time per row that bounds the rounds")
    ap.add_argument("--block-ms", type=float, default=10.0, help="about how long a block of mpi4py's calls lasts")
    ap.add_argument("--calls", type=int, default=1000, help="most calls per block")
    ap.add_argument("--max", default="64MB", help="largest size measured")
    ap.add_argument("--sizes", default=None, help="comma-separated sizes instead of 8B,1KB,64KB,1MB,16MB,64MB")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all eight)")
    ap.add_argument("--rank", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    unknown = sorted(set(args.kinds.split(",")) - set(KINDS))
    if unknown:
        print(f"bench_mpi_small: --kinds: no kind {', '.join(unknown)} (give some of {', '.join(KINDS)})",
              file=sys.stderr)
        return 2
    if args.rank:
        args.plans = args.rank[2]
        rank_main(args.rank[0], [int(s) for s in args.rank[1].split(",")], args)
        return 0
    from collsched.runtime.launch import mpirun_command

    sizes = [_size(s) for s in args.sizes.split(",")] if args.sizes else [s for s in SIZES if s <= _size(args.max)]
    where = tempfile.mkdtemp(prefix="collsched-bench-mpi-small-")
    out, plans = os.path.join(where, "rows.json"), os.path.join(where, "plans")
    _unfit_plans(args.ranks, plans)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    options = ["--rounds", str(args.rounds), "--seconds", str(args.seconds), "--block-ms", str(args.block_ms),
               "--calls", str(args.calls), "--kinds", args.kinds]
    cmd = mpirun_command(args.ranks, [sys.executable, os.path.abspath(__file__), *options, "--rank", out,
                                      ",".join(map(str, sizes)), plans])
    load0 = os.getloadavg()
    began = time.time()
    subprocess.run(cmd, check=True, env=env)
    load1 = os.getloadavg()
    with open(out, encoding="utf-8") as f:
        rows = json.load(f)
    print(f"{args.ranks} local ranks, shared memory; per row up to {args.rounds} rounds (at most {args.seconds:g} s) of "
          f"one block per variant (Williams square), blocks of about {args.block_ms:g} ms; mean of the ranks' clocks; "
          f"medians of same-round ratios to mpi4py's own [95% CI]; {time.time() - began:.0f} s; "
          f"load average {load0[0]:.2f} at start, {load1[0]:.2f} at end")
    print(f"{'kind':<10} {'size':>9} {'calls':>5} {'rounds':>6} {'mpi us':>9}  {'ours/mpi [95% CI]':<30} "
          f"{'plans/mpi [95% CI]':<30} {'persist/mpi [95% CI]':<22} {'priv/mpi':>8}  {'A/A mpi`/mpi [95% CI]':<22} "
          f"{'cpu us':>7} {'cpu ours/mpi [95% CI]':<22} {'cpu A/A':>7} equal")
    tally = {"ours": {}, "plans": {}}
    outside = []
    for r in rows:
        t, c = np.asarray(r["times"]), np.asarray(r["cpu"])
        c_ours, c_aa = median_ci(paired(c[2], c[0])), median_ci(paired(c[1], c[0]))
        (ours, plans_, pers, priv, aa) = (median_ci(paired(t[v], t[0])) for v in (2, 3, 4, 5, 1))
        cells = []
        for name, (m, lo, hi) in (("ours", ours), ("plans", plans_)):
            v = verdict(lo, hi)
            tally[name][v] = tally[name].get(v, 0) + 1
            cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}] {v:<7}")
        shown = f"{pers[0]:.3f} [{pers[1]:.3f}, {pers[2]:.3f}]" if r["kind"] != "alltoallv" else "n/a"
        if not aa[1] <= 1.0 <= aa[2]:
            outside.append(f"{r['kind']} {r['size']}")
        print(f"{r['kind']:<10} {r['size']:>9} {r['calls']:>5} {t.shape[1]:>6} {np.median(t[0]) * 1e6:>9.1f}  "
              f"{cells[0]:<30} {cells[1]:<30} {shown:<22} {priv[0]:>8.3f}  "
              f"{f'{aa[0]:.3f} [{aa[1]:.3f}, {aa[2]:.3f}]':<22} {np.median(c[0]) * 1e6:>7.1f} "
              f"{f'{c_ours[0]:.3f} [{c_ours[1]:.3f}, {c_ours[2]:.3f}]':<22} {c_aa[0]:>7.3f} {r['equal']}")
    for name, counts in tally.items():
        print(f"{name}: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in ("met", "open", "NOT met"))
              + f" of {len(rows)} rows (target <= 1.10)")
    print(f"A/A control: {len(rows) - len(outside)} of {len(rows)} intervals hold 1.000"
          + (f" (not: {', '.join(outside)})" if outside else ""))
    return 0

if __name__ == "__main__":
    sys.exit(main())
