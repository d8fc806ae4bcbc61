"""The NCCL/MPI baselines of AllGather, ReduceScatter and AllReduce on the GPU fabrics: simulated time and cost.

Run: ``PYTHONPATH=python python benchmarks/bench_gpu_baselines.py [fabric:param ...]``
(default ``dgx2:2 ndv2:2 dgx_a100:2 mi250:2``; e.g. ``dgx_a100:32`` for 256 GPUs).
For each fabric and collective of 1 GB (AllReduce: the vector; AllGather and
ReduceScatter: the whole gathered vector, ``size = 1 GB / N`` per GPU),
every baseline with its default options, lowered with ``sync="post_all"``
(data-driven, as NCCL runs), simulated under ``Fluid``: the makespan (ms),
the algorithm bandwidth (GB/s, 1 GB / makespan), and the CPU time (s) of
planning, lowering (with validation) and simulating.
"""

from __future__ import annotations

import time

import collsched as cs
from collsched.algorithms import registry

from _cli import fabric, parser, run

TOTAL = 1e9


def main(fabrics: list[str]) -> None:
    print(f"{'fabric':>12} {'collective':>13} {'algorithm':>19} {'ms':>9} {'GB/s':>7} {'plan s':>7} "
          f"{'lower s':>7} {'valid s':>7} {'sim s':>6}")
    for spec in fabrics:
        name, param = spec.split(":")
        g = getattr(cs.topologies, name)(int(param))
        n = len(g.hosts)
        for kind in (cs.AllGather, cs.ReduceScatter, cs.AllReduce):
            c = kind(participants=g.hosts, size=TOTAL if kind is cs.AllReduce else TOTAL / n)
            for algo in registry.applicable(c):
                if algo.family != "baselines":
                    continue
                t0 = time.process_time()
                s = algo.function(g, c)
                t1 = time.process_time()
                prog = s.lower(g, c, sync="post_all") if hasattr(s, "steps") else s.lower(g, c)
                t2 = time.process_time()
                cs.validate(g, c, prog)
                t3 = time.process_time()
                makespan = cs.simulate(g, prog, c, model=cs.models.Fluid()).makespan
                t4 = time.process_time()
                print(f"{g.name:>12} {c.kind:>13} {algo.name:>19} {makespan * 1e3:>9.3f} "
                      f"{TOTAL / makespan / 1e9:>7.1f} {t1 - t0:>7.2f} {t2 - t1:>7.2f} {t3 - t2:>7.2f} {t4 - t3:>6.2f}",
                      flush=True)


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabrics", nargs="*", type=fabric, default=["dgx2:2", "ndv2:2", "dgx_a100:2", "mi250:2"],
                    help="fabrics as name:count (default: %(default)s)")
    run(main, ap.parse_args().fabrics)
