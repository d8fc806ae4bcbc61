"""Benchmark of the optimal AllGather forest (issue 15): cut bound, switch splitting and tree packing per fabric.

Run: ``PYTHONPATH=python python benchmarks/bench_gpu_forest.py [fabric ...]`` with fabrics
written as ``dgx2:2`` (default: the issue's list, ``dgx_a100:32`` last).
Prints, per fabric: GPUs, the exact optimum ``x*`` (GB/s per root) and
algorithm bandwidth ``N x*``, what the trees reach, the number of trees,
the wall time of :func:`cut_bound` alone and of :func:`pack_forest` (split into
its steps), the process's max RSS so far and the issue's target.
"""

from __future__ import annotations

import resource
import time
from fractions import Fraction

from collsched import topologies
from collsched.algorithms.gpu import check_forest, cut_bound
from collsched.algorithms.gpu.capacity import capacity_graph
from collsched.algorithms.gpu.splitting import split_switches
from collsched.algorithms.gpu.trees import pack_spanning_trees

from _cli import fabric, parser, run

TARGETS = {16: 0.2, 32: 0.2, 64: 1.0, 256: 10.0}
DEFAULT = ["dgx2:2", "ndv2:2", "dgx_a100:2", "mi250:2", "mi250:4", "dgx_a100:32"]


def one_fabric(spec: str) -> None:
    name, size = spec.split(":")
    p = getattr(topologies, name)(int(size))
    n = len(p.hosts)
    t0 = time.perf_counter()
    x, _ = cut_bound(p, p.hosts)
    t_bound = time.perf_counter() - t0
    t0 = time.perf_counter()
    g = capacity_graph(p, p.hosts)
    split = split_switches(g, p)
    t1 = time.perf_counter()
    trees = pack_spanning_trees(len(split.nodes), split.arcs, split.rate)
    t2 = time.perf_counter()
    reached = Fraction(split.rate, split.scale)
    target = TARGETS.get(n)
    met = "" if target is None else f"target < {target:g} s: {'met' if t2 - t0 < target else 'MISSED'}"
    print(f"{name}({size}) {n:>4} GPUs  x* {float(x) / 1e9:9.4f} GB/s  algbw {n * float(x) / 1e9:8.2f} GB/s  "
          f"trees reach x* {reached == x}  {len(trees):>5} trees  bound {t_bound:7.3f} s  "
          f"split {t1 - t0:8.3f} s  pack {t2 - t1:8.3f} s  total {t2 - t0:8.3f} s  "
          f"max RSS so far {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:6.0f} MiB  {met}", flush=True)
    if n <= 64:  # the independent checker on the whole forest (pack_forest builds the same trees)
        from collsched.algorithms.gpu import pack_forest
        check_forest(p, pack_forest(p, p.hosts))


def main(specs: list[str]) -> None:
    for spec in specs or DEFAULT:
        one_fabric(spec)
    print(f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10:.0f} MiB")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabrics", nargs="*", type=fabric, help=f"fabrics as name:count (default: {' '.join(DEFAULT)})")
    run(main, ap.parse_args().fabrics)
