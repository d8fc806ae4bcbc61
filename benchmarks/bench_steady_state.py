"""End-to-end cost of steady-state planning: LP build + HiGHS + exact recovery + periodic schedule.

Cases (issue 4): scatter on Tiers-like platforms of ~30, 100, 300 and 1,000
nodes (source and 16 targets among the hosts); reduce with 8, 16 and 24
participants on ~30 nodes; all-to-all among 16, 32 and 64 hosts of a star.
Prints, per case, the LP size and where the time goes: build (LP
construction, Python), HiGHS, exact (basis re-solve in rationals and the
certificate), periodic (decomposition, colouring, slots).

Run: ``PYTHONPATH=python python benchmarks/bench_steady_state.py [--quick]``
"""

from __future__ import annotations

import sys
import time

import collsched as cs
from collsched.algorithms.steady_state import steady_state

TIERS = {  # name -> tiers() parameters giving about that many nodes
    30: dict(),
    100: dict(wan_nodes=6, mans=4, man_nodes=4, lans_per_man=3, lan_hosts=5),
    300: dict(wan_nodes=8, mans=6, man_nodes=5, lans_per_man=5, lan_hosts=7),
    1000: dict(wan_nodes=10, mans=10, man_nodes=6, lans_per_man=10, lan_hosts=8),
}


def run_case(name, p, c):
    t0 = time.perf_counter()
    s = steady_state(p, cs.Series(c, count=8), time_limit=120.0)
    total = time.perf_counter() - t0
    tm = s.params.get("timings", {})
    solve, exact = tm.get("solve", 0.0), tm.get("exact", 0.0)
    rows, cols, nnz = s.params.get("lp_size", (0, 0, 0))
    print(f"{name:34s} {len(p.nodes):5d} {rows:7d} {cols:8d} {nnz:9d}  {s.status.value:8s} "
          f"total {total:7.2f}s  HiGHS {solve:6.2f}s  exact {exact:6.2f}s  build+periodic {total - solve - exact:6.2f}s")


def main(quick: bool = False) -> None:
    print(f"{'case':34s} {'nodes':>5s} {'rows':>7s} {'columns':>8s} {'nonzeros':>9s}  status")
    for n, kw in TIERS.items():
        if quick and n > 100:
            continue
        p = cs.topologies.tiers(seed=1, **kw)
        hosts = list(p.hosts)
        run_case(f"scatter, Tiers-like ~{n} nodes", p, cs.Scatter(source=hosts[0], targets=hosts[1:17], size=1e7))
    p = cs.topologies.tiers(seed=1)
    for k in (8, 16, 24):
        if quick and k > 8:
            continue
        hosts = list(p.hosts)
        if k > len(hosts):
            p2 = cs.topologies.tiers(seed=1, lan_hosts=6)  # 4 LANs x 6 = 24 hosts, 34 nodes
            hosts2 = list(p2.hosts)
            run_case(f"reduce, {k} participants", p2, cs.Reduce(participants=hosts2[:k], target=hosts2[0],
                                                                    size=1e7, task_cost=1e7))
            continue
        run_case(f"reduce, {k} participants", p, cs.Reduce(participants=hosts[:k], target=hosts[0],
                                                            size=1e7, task_cost=1e7))
    for n in (16, 32, 64):
        if quick and n > 16:
            continue
        p = cs.topologies.star(n, bandwidth=1.25e8, latency=1e-5)
        run_case(f"all-to-all, {n} hosts (star)", p, cs.AllToAll(senders=list(p.hosts), size=1e6))


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
