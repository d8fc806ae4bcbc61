"""Forest schedules on the GPU fabrics, simulated under ``Fluid``: long-series rates, one 1 GB collective, all-reduce.

Three tables:

1. **Series rate.** For each fabric (``dgx2(2)``, ``ndv2(2)``, ``ndv2(4)``,
   ``dgx_a100(2)``, ``mi250(2)``) and each of AllGather, ReduceScatter,
   AllReduce of 1 GB of total output (``size = 1e9 / N`` per GPU for the
   first two, the 1e9-byte vector for AllReduce): the exact rate the
   schedule claims (GB/s of algorithm bandwidth), the bound's, and the
   simulated rate in the full pipeline over the claimed one
   (:mod:`collsched.algorithms.gpu.series_rate`: one series of
   ``2 (S - 1) + 17`` instances, the rate between the completions of the
   first and last instance whose rounds all have every stage working),
   with the program's messages, operations and the seconds to lower and
   simulate it. Target: >= 0.99 on every fabric.
2. **One 1 GB AllGather** on ``dgx2(2)`` (total output ``M = 1e9`` bytes,
   ``size = M / 32``): the chunk count :func:`plan_forest` chooses, the
   simulated makespan beside the bandwidth bound ``M / algbw*``, the latency
   bound and TE-CCL's published 7.75 ms (target: within 2%); then the
   simulated makespan of other chunk counts (same trees) beside the model's.
3. **One 1 GB AllReduce** on each fabric: simulated makespan, the stated
   lower bound and the gap.

Run: ``.venv/bin/python benchmarks/bench_gpu_forest_schedule.py [--quick]``
(``--quick`` skips the chunk sweep).
"""

from __future__ import annotations

import dataclasses
import time

import collsched as cs
from collsched.algorithms.gpu.plan import makespan_model
from collsched.algorithms.gpu.series_rate import completion_times, series_rate, steady_count

from _cli import parser, run

FABRICS = {"dgx2(2)": lambda: cs.topologies.dgx2(2), "ndv2(2)": lambda: cs.topologies.ndv2(2),
           "ndv2(4)": lambda: cs.topologies.ndv2(4), "dgx_a100(2)": lambda: cs.topologies.dgx_a100(2),
           "mi250(2)": lambda: cs.topologies.mi250(2)}
M = 1e9
#: Periods the series rate is measured over, in the full pipeline.
WIDTH = 16
TECCL_DGX2_AG_MS = 7.75
FLUID = cs.models.Fluid()


def collective(kind: str, hosts):
    n = len(hosts)
    if kind == "allgather":
        return cs.AllGather(participants=hosts, size=M / n)
    if kind == "reducescatter":
        return cs.ReduceScatter(participants=hosts, size=M / n)
    return cs.AllReduce(participants=hosts, size=M)


def series_rates() -> None:
    print(f"{'fabric':<12} {'collective':<14} {'claimed GB/s':>12} {'bound GB/s':>11} {'sim/claimed':>12} {'count':>5} "
          f"{'messages':>9} {'ops':>8} {'lower s':>8} {'sim s':>7}  (Fluid, full pipeline)")
    for name, make in FABRICS.items():
        p = make()
        for kind in ("allgather", "reducescatter", "allreduce"):
            base = collective(kind, list(p.hosts))
            s = cs.plan(p, cs.Series(base, count=2), algorithm="forest")
            c = cs.Series(base, count=steady_count(s, WIDTH))
            t0 = time.perf_counter()
            prog = s.lower(p, c)
            t1 = time.perf_counter()
            trace = cs.simulate(p, prog, model=FLUID).trace
            t2 = time.perf_counter()
            rate = series_rate(s, c, completion_times(prog, trace, c.count))
            ops = s.operations_per_second(c)
            print(f"{name:<12} {kind:<14} {float(ops) * M / 1e9:>12.3f} {float(s.bound.value) * M / 1e9:>11.3f} "
                  f"{rate:>12.6f} {c.count:>5} {prog.n_messages:>9} {prog.n_ops:>8} {t1 - t0:>8.2f} {t2 - t1:>7.2f}"
                  f"  {s.messages}", flush=True)


def one_allgather(sweep: bool) -> None:
    p = cs.topologies.dgx2(2)
    c = collective("allgather", list(p.hosts))
    t0 = time.perf_counter()
    s = cs.plan(p, c, algorithm="forest")
    t1 = time.perf_counter()
    r = cs.simulate(p, s, model=FLUID)
    t2 = time.perf_counter()
    bw, lat = s.params["bandwidth_bound"], s.params["latency_bound"]
    print(f"\n1 GB AllGather on dgx2(2): {len(s.trees)} trees, chunks {s.chunks} (chosen)")
    print(f"  simulated makespan {r.makespan * 1e3:.4f} ms; bandwidth bound M/algbw* {bw * 1e3:.4f} ms, latency bound "
          f"{lat * 1e6:.2f} us, sum {(bw + lat) * 1e3:.4f} ms; TE-CCL {TECCL_DGX2_AG_MS} ms: ratio "
          f"{r.makespan * 1e3 / TECCL_DGX2_AG_MS:.4f}; plan {t1 - t0:.2f} s, simulate {t2 - t1:.2f} s")
    if not sweep:
        return
    print(f"  {'chunks':>6} {'model ms':>9} {'simulated ms':>12} {'/ TE-CCL':>9} {'messages':>9}")
    for chunks in (32, 64, 128, 256, 512):
        sc = dataclasses.replace(s, chunks=chunks)  # the chosen trees, cut otherwise
        prog = sc.lower(p, c)
        sim = cs.simulate(p, prog, model=FLUID).makespan
        print(f"  {chunks:>6} {makespan_model(p, sc, c, chunks) * 1e3:>9.4f} {sim * 1e3:>12.4f} "
              f"{sim * 1e3 / TECCL_DGX2_AG_MS:>9.4f} {prog.n_messages:>9}", flush=True)


def allreduce() -> None:
    print(f"\n{'fabric':<12} {'1 GB AllReduce ms':>17} {'bound ms':>9} {'gap':>7} {'chunks':>6} {'messages':>9} "
          f"{'plan s':>7} {'lower s':>8} {'sim s':>7}")
    for name, make in FABRICS.items():
        p = make()
        c = collective("allreduce", list(p.hosts))
        t0 = time.perf_counter()
        s = cs.plan(p, c, algorithm="forest")
        t1 = time.perf_counter()
        prog = s.lower(p, c)
        t2 = time.perf_counter()
        r = cs.simulate(p, prog, model=FLUID)
        t3 = time.perf_counter()
        print(f"{name:<12} {r.makespan * 1e3:>17.4f} {float(s.bound.value) * 1e3:>9.4f} "
              f"{s.bound.gap(r.makespan):>7.3f} {s.chunks:>6} {prog.n_messages:>9} {t1 - t0:>7.2f} {t2 - t1:>8.2f} "
              f"{t3 - t2:>7.2f}", flush=True)


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="skip the chunk sweep")
    quick = ap.parse_args().quick

    def main() -> None:
        series_rates()
        one_allgather(sweep=not quick)
        allreduce()

    run(main)
