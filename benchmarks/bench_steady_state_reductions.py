"""Solve and plan times of ``steady_state`` for ReduceScatter and AllReduce series on the GPU fabrics.

For each fabric (two chassis or nodes of ``dgx2``, ``ndv2``, ``dgx_a100``,
``mi250``) and each collective of 1 MB blocks, multi-port:

* ReduceScatter, commutative: the certified optimum (ForestColl's cut
  bound, exact) and its tree packing, found by ``pack_forest`` (``solve``);
  then the whole periodic schedule (``cs.plan``, with the initialisation and
  clean-up phases) unless ``--no-plan``;
* AllReduce, commutative: the two packings (ReduceScatter and AllGather)
  run in one period, its rate beside the bound (the ReduceScatter's cut
  bound), and the schedule's time unless ``--no-plan``;
* ReduceScatter non-commutative and AllReduce non-commutative: the steady-state LP's size
  (N reduces of interval partial results, and N broadcasts); it is solved
  only below ``--max-columns`` columns (the LP grows as N⁴ times the edges).

Usage::

    PYTHONPATH=python python benchmarks/bench_steady_state_reductions.py [--no-plan] [--max-columns 300000]
"""

from __future__ import annotations

import argparse
import time

import collsched as cs
from collsched.algorithms.gpu.forest import pack_forest
from collsched.algorithms.steady_state.lp_reducescatter import reductions_lp

FABRICS = ("dgx2", "ndv2", "dgx_a100", "mi250")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-plan", action="store_true", help="time the optimum only, not the whole schedule")
    ap.add_argument("--max-columns", type=int, default=300_000, help="solve the LPs below this many columns")
    ap.add_argument("--fabrics", default=",".join(FABRICS))
    args = ap.parse_args()
    for name in args.fabrics.split(","):
        p = getattr(cs.topologies, name)(2)
        n = len(p.hosts)
        t0 = time.perf_counter()
        f = pack_forest(p, p.hosts, kind="reducescatter")
        solve = time.perf_counter() - t0
        algbw = float(f.bound) * n / 1e9
        line = (f"{name}(2) {n} GPUs  ReduceScatter commutative: optimum {float(f.bound) / 1e9:.6g} GB/s per root "
                f"(algbw {algbw:.6g} GB/s), trees reach it: {f.throughput == f.bound}, solve {solve:.3f} s")
        if not args.no_plan:
            c = cs.Series(cs.ReduceScatter(participants=p.hosts, size=1e6), count=4)
            t0 = time.perf_counter()
            s = cs.plan(p, c, algorithm="steady_state", ports="multi")
            line += (f", schedule {time.perf_counter() - t0:.1f} s ({s.status.value}, {s.ops_per_period} ops per "
                     f"period, pipeline lag {s.lag()} periods)")
        print(line, flush=True)
        if not args.no_plan:
            c = cs.Series(cs.AllReduce(participants=p.hosts, size=n * 1e6), count=4)
            t0 = time.perf_counter()
            s = cs.plan(p, c, algorithm="steady_state", ports="multi")
            print(f"{name}(2) {n} GPUs  AllReduce commutative: {float(s.throughput):.6g} op/s of {n} MB, bound "
                  f"{float(s.bound.value):.6g} (gap {float(s.bound.value / s.throughput - 1):.1%}), schedule "
                  f"{time.perf_counter() - t0:.1f} s ({s.status.value}, forests "
                  f"{s.params['timings']['forest']:.3f} s)", flush=True)
        for what, c in [("ReduceScatter ordered", cs.ReduceScatter(participants=p.hosts, size=1e6, commutative=False)),
                        ("AllReduce ordered", cs.AllReduce(participants=p.hosts, size=n * 1e6, commutative=False))]:
            t0 = time.perf_counter()
            lp = reductions_lp(p, c, ports="multi") if n <= 16 else None
            rows, cols, nnz = lp.size if lp is not None else (None, None, None)
            build = time.perf_counter() - t0
            if cols is None:
                print(f"{name}(2) {n} GPUs  {what}: LP not built (N = {n}: ~N^4 x edges columns, millions)")
            elif cols > args.max_columns:
                print(f"{name}(2) {n} GPUs  {what}: LP {rows} x {cols} ({nnz} nonzeros) built in {build:.1f} s, "
                      f"not solved (over --max-columns)")
            else:
                t0 = time.perf_counter()
                s = cs.plan(p, cs.Series(c, count=4), algorithm="steady_state", ports="multi")
                print(f"{name}(2) {n} GPUs  {what}: LP {rows} x {cols}, plan {time.perf_counter() - t0:.1f} s, "
                      f"{s.status.value}, {float(s.throughput):.6g} ops/s")


if __name__ == "__main__":
    main()
