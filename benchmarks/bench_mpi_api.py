"""collsched.mpi against Open MPI's own collectives, on the user's arrays, on the emulated two-switch network.

The platform is :func:`collsched.runtime.platforms.round_robin_switches`:
8 hosts on two switches (50 MB/s host links) joined by a 5 MB/s trunk,
ranks placed round-robin (rank ``i`` on switch ``i % 2``), emulated with
network namespaces and htb (Linux, root; without them it runs on the local
machine over shared memory, where only the overhead figures mean much).
``collsched plan-suite`` plans broadcast (root 0), reduce (root 0,
``MPI.SUM``) and allreduce (``MPI.SUM``) of ``--size`` bytes; then one MPI
job runs, for each, ``collsched.mpi``'s call and mpi4py's own (``Bcast``,
``Reduce``, ``Allreduce``) on the same float64 arrays, alternating, best of
``--repeat`` each, and checks that the results agree.

Last, the per-call overhead of ``collsched.mpi`` with a cached plan: plan
lookup and binding the prepared program to the call's arrays (no
communication; one process, the worst rank of each plan), and a whole
8-byte call without ``plans=`` against mpi4py's own on local ranks (the
local checks and MPI's own call, against MPI's call alone).

Run: ``.venv/bin/python benchmarks/bench_mpi_api.py [--repeat 3] [--size 1MB] [--local] [--plans DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time

import numpy as np

KINDS = ("broadcast", "reduce", "allreduce")


def rank_main(plans: str, out: str, repeat: int, size: int) -> None:
    """One rank of the measuring job (this file run by mpirun with ``--rank``)."""
    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi.calls import last_run

    comm = MPI.COMM_WORLD
    me = comm.rank
    x = np.random.default_rng(me).integers(-1000, 1000, size // 8).astype(np.float64)
    calls = {
        "broadcast": (lambda b: csmpi.bcast(comm, b, 0, plans=plans), lambda b: comm.Bcast(b, 0)),
        "reduce": (lambda b: csmpi.reduce(comm, x, b, MPI.SUM, 0, plans=plans),
                   lambda b: comm.Reduce(x, b, op=MPI.SUM, root=0)),
        "allreduce": (lambda b: csmpi.allreduce(comm, x, b, MPI.SUM, plans=plans),
                      lambda b: comm.Allreduce(x, b, op=MPI.SUM)),
    }
    result = {}
    for kind in KINDS:
        ours, theirs = calls[kind]
        times = {"ours": [], "mpi": []}
        outs = {}
        for _ in range(repeat):
            for who, fn in (("ours", ours), ("mpi", theirs)):
                buf = x.copy() if kind == "broadcast" else np.zeros_like(x)
                comm.Barrier()
                t = time.perf_counter()
                fn(buf)
                t = comm.allreduce(time.perf_counter() - t, op=MPI.MAX)
                times[who].append(t)
                outs[who] = buf
        same = bool(np.array_equal(outs["ours"], outs["mpi"])) if kind != "reduce" or me == 0 else True
        result[kind] = {"ours": min(times["ours"]), "mpi": min(times["mpi"]), "ran": last_run(),
                        "same": comm.allreduce(same, op=MPI.LAND)}
    if me == 0:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(result, f)


def overhead_main(out: str) -> None:
    """A whole 8-byte allreduce without plans= (MPI's own, no agreement) against mpi4py's own, local ranks."""
    import warnings

    from mpi4py import MPI

    from collsched import mpi as csmpi

    comm = MPI.COMM_WORLD
    small, small_out = np.ones(1), np.empty(1)
    timing = {}
    for who, fn in (("ours", lambda: csmpi.allreduce(comm, small, small_out, MPI.SUM)),
                    ("mpi", lambda: comm.Allreduce(small, small_out, op=MPI.SUM))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(20):
                fn()
            comm.Barrier()
            t = time.perf_counter()
            for _ in range(200):
                fn()
            timing[who] = (time.perf_counter() - t) / 200
    if comm.rank == 0:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(timing, f)


def setup_cost(folder: str, size: int) -> dict:
    """Seconds per call of plan lookup + binding the prepared program to the arrays, worst rank, per kind."""
    from mpi4py import MPI

    from collsched.mpi import load_plans
    from collsched.mpi.layout import Bound, Prepared

    plans = load_plans(folder)
    x = np.ones(size // 8)
    out = np.empty_like(x)
    worst = {}
    for kind in KINDS:
        root = None if kind == "allreduce" else 0
        plan = plans.find(kind, 8, root, x.nbytes, commutative=True)
        if plan is None or plan.use_mpi:
            continue
        for rank in range(plan.n):
            prep = Prepared(plan, rank, tag_ub=2**30)
            t = time.perf_counter()
            for _ in range(1000):
                plans.find(kind, 8, root, x.nbytes, commutative=True)
                Bound(prep, x, out, x.shape[0], MPI.SUM)
            worst[kind] = max(worst.get(kind, 0.0), (time.perf_counter() - t) / 1000)
    return worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--size", default="1MB", help="bytes of each collective (default 1MB)")
    ap.add_argument("--local", action="store_true", help="no emulation: local ranks over shared memory")
    ap.add_argument("--plans", help="reuse this plan folder (else planned into a temporary one)")
    args = ap.parse_args()

    from collsched.mpi import load_plans
    from collsched.mpi.emulated import run_script
    from collsched.mpi.suite import parse_suite, plan_suite
    from collsched.runtime import mpi_available
    from collsched.runtime.emulation import Emulation, emulation_unavailable
    from collsched.runtime.platforms import round_robin_switches
    from collsched.units import parse

    if mpi_available() is not None:
        sys.exit(f"bench_mpi_api: {mpi_available()}")
    size = int(parse(args.size, "size"))
    p = round_robin_switches(4, bandwidth=5e7, trunk_bandwidth=5e6)
    folder = args.plans or tempfile.mkdtemp(prefix="collsched-bench-plans-")
    if not os.path.exists(os.path.join(folder, "index.json")):
        suite = {"collectives": [{"kind": k, "sizes": [size, size]} | ({"root": 0} if k != "allreduce" else {})
                                 for k in KINDS]}
        t = time.perf_counter()
        plan_suite(p, parse_suite(suite, p), folder)
        print(f"plan-suite: {time.perf_counter() - t:.1f} s -> {folder}")
    for plan in load_plans(folder).plans:
        print(f"  {plan.kind}: {'MPI' if plan.use_mpi else plan.algorithm}, simulated {plan.makespan * 1e3:.0f} ms "
              f"against MPI's {plan.mpi_makespan * 1e3:.0f} ms")
    why = "--local" if args.local else emulation_unavailable()
    network = "local ranks (shared memory)" if why else "emulated two-switch network (htb)"
    print(f"{network}: {len(p.hosts)} ranks, {size} bytes, best of {args.repeat}; machine shared with other work")
    out = os.path.join(tempfile.mkdtemp(prefix="collsched-bench-"), "result.json")
    with (contextlib.nullcontext() if why else Emulation(p)) as net:
        run_script(p.hosts, __file__, ["--rank", folder, out, str(args.repeat), str(size)], emulation=net,
                   timeout=900)
    with open(out, encoding="utf-8") as f:
        result = json.load(f)
    print(f"{'collective':<10} {'collsched.mpi':>14} {'Open MPI':>10} {'speed-up':>9}  ran   same result")
    for kind in KINDS:
        r = result[kind]
        print(f"{kind:<10} {r['ours'] * 1e3:>11.1f} ms {r['mpi'] * 1e3:>7.1f} ms {r['mpi'] / r['ours']:>8.2f}x  "
              f"{r['ran']:<5} {r['same']}")
    setup = setup_cost(folder, size)
    print("per-call overhead, plan lookup + binding the prepared program to the arrays (one process, worst rank): "
          + ", ".join(f"{k} {v * 1e6:.1f} us" for k, v in setup.items()))
    run_script(p.hosts, __file__, ["--overhead", out])
    with open(out, encoding="utf-8") as f:
        o = json.load(f)
    print(f"an 8-byte allreduce on 8 local ranks (no plans=: MPI's own, no agreement): "
          f"collsched.mpi {o['ours'] * 1e6:.0f} us, mpi4py's own {o['mpi'] * 1e6:.0f} us")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--rank":
        rank_main(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--overhead":
        overhead_main(sys.argv[2])
    else:
        main()
