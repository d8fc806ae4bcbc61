"""Liquid-schedule search on the Swiss-T1-like testbed, and the heuristic on a 1,024-host fat tree (seed 001).

Part 1: every testbed traffic of ``collsched study liquid`` (one per distinct
liquid throughput): time of the search (the Rust core, lengths Λ, Λ+1, ...
until a schedule is found, i.e. ``shortest``) per traffic, p50, p90, max,
and how many are solved (liquid, or proved optimal). Targets: all solved,
p90 under 10 ms, none over 1 s.

Part 2: an all-to-all of 1,024 hosts on a two-level fat tree (32 leaves of
32 hosts, d-mod-k routing; 32 spines: non-blocking, and 8 spines:
oversubscribed 4:1) with the heuristic: length, Λ, gap, time (traffic
building and steps). Target: within 2% of Λ in under 60 s.

Run: ``PYTHONPATH=python .venv/bin/python benchmarks/bench_liquid.py [--quick]``
"""

import time

import numpy as np

import collsched as cs
from collsched.algorithms.liquid.fallback import heuristic_steps, shortest
from collsched.algorithms.liquid.traffic import traffic_of
from collsched.schedules.base import Status
from collsched.studies.liquid import _canonical, swiss_t1_testbed

from _cli import parser, run


def testbed_rows():
    p, cfg, paths, group, counts, n_tr, lam = swiss_t1_testbed()
    canon = _canonical(counts, group, cfg["nodes_per_switch"])
    g = np.gcd(n_tr, lam)
    order = np.argsort(canon, kind="stable")
    _, first = np.unique(np.stack([n_tr // g, lam // g], axis=1)[order], axis=0, return_index=True)
    return p, cfg, counts, [int(r) for r in order[first]]


def part1():
    p, cfg, counts, rows = testbed_rows()
    S, per = cfg["switches"], cfg["nodes_per_switch"]
    times, liquid, optimal, nodes = [], 0, 0, []
    for row in rows:
        hosts = [f"h{s * per + j}" for s in range(S) for j in range(int(counts[row, s]))]
        X = traffic_of(p, cs.AllToAll(senders=hosts, size=1))
        t = time.perf_counter()
        r = shortest(X)
        times.append(time.perf_counter() - t)
        nodes.append(r.nodes)
        liquid += r.liquid
        optimal += r.status is Status.OPTIMAL and not r.liquid
    t = np.array(times) * 1e3
    print(f"testbed traffics: {len(rows)}   liquid: {liquid}   optimal, not liquid: {optimal}   "
          f"unsolved: {len(rows) - liquid - optimal}")
    print(f"search time ms: p50 {np.percentile(t, 50):.3f}   p90 {np.percentile(t, 90):.3f}   max {t.max():.1f}   "
          f"over 1 s: {int((t > 1000).sum())}   categories visited: max {max(nodes)}")


def part2(quick):
    leaves, per = (8, 8) if quick else (32, 32)
    for spines in (per, per // 4):
        p = cs.topologies.fat_tree(leaves, per, spines=spines, bandwidth=1.25e9)
        c = cs.AllToAll(senders=p.hosts, size=1e6)
        t0 = time.perf_counter()
        X = traffic_of(p, c)
        t1 = time.perf_counter()
        steps = heuristic_steps(X)
        t2 = time.perf_counter()
        lam = X.duration
        print(f"fat tree {leaves}x{per}, {spines} spines: {len(X)} transfers, Λ = {lam}, heuristic {len(steps)} steps, "
              f"gap {(len(steps) - lam) / lam:.2%}; traffic {t1 - t0:.1f} s, steps {t2 - t1:.1f} s")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="part 2 on an 8x8 fat tree instead of 32x32")
    quick = ap.parse_args().quick
    run(lambda: (part1(), part2(quick)))
