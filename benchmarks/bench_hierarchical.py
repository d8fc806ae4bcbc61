"""Benchmark of the inter-cluster broadcast heuristics (seed 003): every heuristic on 50 clusters, 10,000 grids.

Run: ``PYTHONPATH=python python benchmarks/bench_hierarchical.py [clusters] [grids]``.
Prints, per heuristic, the CPU time (s, ``time.process_time``) of planning
all grids (numpy, vectorised across grids) and their mean completion time,
then the total against the 60 s target; then the exhaustive optimum's
time per grid on 8 clusters.
"""

from __future__ import annotations

import time

import numpy as np

from collsched.algorithms.hierarchical.inter import HEURISTICS, completion, optimum, schedule
from collsched.studies.grid_broadcast import random_grids

from _cli import parser, run

TARGET = 60.0


def main(n: int = 50, grids: int = 10_000) -> None:
    L, g, T = random_grids(np.random.default_rng(0), grids, n)
    print(f"{n} clusters, {grids} random grids (seed 003, section 7)")
    print(f"{'heuristic':>14} {'cpu s':>8} {'mean completion s':>18}")
    total = 0.0
    best = np.full(grids, np.inf)
    for h in HEURISTICS:
        t = time.process_time()
        done = completion(L, g, T, *schedule(h, L, g, T))
        dt = time.process_time() - t
        total += dt
        best = np.minimum(best, done)
        print(f"{h:>14} {dt:>8.2f} {done.mean():>18.4f}")
    print(f"{'all':>14} {total:>8.2f}   target < {TARGET:.0f} s: {'met' if total < TARGET else 'MISSED'}")
    L8, g8, T8 = random_grids(np.random.default_rng(1), 50, 8)
    incumbent = np.min([completion(L8, g8, T8, *schedule(h, L8, g8, T8)) for h in HEURISTICS], axis=0)
    t = time.process_time()
    for b in range(50):
        optimum(L8[b], g8[b], T8[b], incumbent=incumbent[b] * (1 + 1e-12))
    print(f"exhaustive optimum, 8 clusters: {(time.process_time() - t) / 50 * 1e3:.1f} ms per grid (50 grids)")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("clusters", nargs="?", type=int, default=50)
    ap.add_argument("grids", nargs="?", type=int, default=10_000)
    args = ap.parse_args()
    run(main, args.clusters, args.grids)
