"""End-to-end cost of steady-state planning: LP build + HiGHS + exact recovery + periodic schedule + lowering.

Cases (issue 4): scatter on Tiers-like platforms of about 30, 100, 300 and
1,000 nodes (a source and 16 targets among the hosts); reduce with 8, 16 and
24 participants on about 30 nodes; all-to-all among 16, 32 and 64 hosts of a
star. Per case it prints the LP size, the status, and where the time goes:

* build: LP construction (Python) and handing it to HiGHS;
* solve: HiGHS (for the reduce: on the restricted LPs of its reduction
  trees, with the trees' pricing in floats, ``tree_pricing.py``);
* recovery: the exact basic solution and duals, in rationals (for the
  reduce: the restricted LP's, and the dual completed to the whole LP);
* certificate: the exact primal, dual and gap checks;
* decomposition: paths (scatter, all-to-all) or reduction trees;
* colouring: the weighted edge colouring (Rust core);
* slots: the period's slots around it; phases: initialisation and clean-up;
* lowering: the Program of 8 operations.

Seconds are wall-clock per stage; the total is also given in CPU seconds of
this process, which a loaded machine disturbs less. With ``--lowering``,
each case's schedule is also lowered both ways, column-wise
(``PeriodicSchedule.lower``) and through the ProgramBuilder
(``lower_with_builder``), the two programs checked equal, and the
microseconds per operation of each printed (``--count`` operations).

Targets: 1,000-node scatter under 10 s; 16-participant reduce under 10 s;
issue 17: all-to-all of 64 hosts and reduce of 24 participants under 2 s,
lowering at most 1 µs per operation.

Run: ``.venv/bin/python benchmarks/bench_steady_state.py [--quick] [--only TEXT] [--lowering] [--count K] [--verbose]``
(``--only`` keeps the cases whose name contains TEXT, e.g. ``"64 hosts"``; ``--verbose`` prints each case's exact
throughput and a digest of its activities, which two versions of the code must agree on).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time

import collsched as cs
from collsched.algorithms.steady_state import steady_state

TIERS = {  # about that many nodes -> tiers() parameters
    30: dict(),
    100: dict(wan_nodes=6, mans=4, man_nodes=4, lans_per_man=3, lan_hosts=5),
    300: dict(wan_nodes=8, mans=6, man_nodes=5, lans_per_man=5, lan_hosts=7),
    1000: dict(wan_nodes=10, mans=10, man_nodes=6, lans_per_man=10, lan_hosts=8),
}
STAGES = ("build", "solve", "recovery", "certificate", "decomposition", "colouring", "slots", "phases")
TARGETS = {"scatter, Tiers-like ~1000 nodes": 10.0, "reduce, 16 participants": 10.0,
           "reduce, 24 participants": 2.0, "all-to-all, 64 hosts (star)": 2.0}


def run_case(name, p, c, count: int = 8, lowering: bool = False, verbose: bool = False) -> float:
    """Plan and lower one case; print one line (and the lowering's, with ``lowering``; the exact optimum and a digest
    of the activities, with ``verbose``); return the end-to-end seconds."""
    series = cs.Series(c, count=count)
    t0, c0 = time.perf_counter(), time.process_time()
    s = steady_state(p, series, time_limit=600.0)
    t1 = time.perf_counter()
    s.lower(p, series)
    total, cpu = time.perf_counter() - t0, time.process_time() - c0
    tm = dict(s.params.get("timings", {}))
    tm["lowering"] = total - (t1 - t0)
    rows, cols, nnz = s.params.get("lp_size", (0, 0, 0))
    parts = "  ".join(f"{k} {tm.get(k, 0.0):6.2f}" for k in STAGES + ("lowering",))
    target = TARGETS.get(name)
    met = "met" if total < (target or 0) else "MISSED"
    verdict = "" if target is None else f"  (target < {target:g} s: {met} on wall time)"
    print(f"{name:34s} {len(p.nodes):5d} {rows:7d} {cols:8d} {nnz:9d}  {s.status.value:8s} "
          f"total {total:7.2f}s (CPU {cpu:7.2f}s) | {parts}{verdict}", flush=True)
    if verbose:  # what two versions must agree on: the exact optimum, and a digest of the schedule's activities
        digest = hashlib.sha256(repr(sorted((repr(k), str(v)) for k, v in s.activities.items())).encode()).hexdigest()
        print(f"    throughput {s.throughput} ops/s, canonical optimum: {s.params.get('canonical')}, "
              f"activities sha256 {digest[:16]}", flush=True)
    if lowering:
        lowering_case(p, s, series)
    return total


def lowering_case(p, s, series) -> None:
    """Lower ``s`` column-wise and through the ProgramBuilder; check the programs equal; print µs per operation."""
    from collsched.schedules.periodic import lower_with_builder

    t0 = time.perf_counter()
    fast = s.lower(p, series)
    t1 = time.perf_counter()
    slow = lower_with_builder(s, p, series.count)
    t2 = time.perf_counter()
    n = fast.n_ops
    print(f"    lowering {series.count} operations, {n} ops: column-wise {(t1 - t0) / n * 1e6:.2f} us/op "
          f"({t1 - t0:.3f} s), ProgramBuilder {(t2 - t1) / n * 1e6:.2f} us/op ({t2 - t1:.3f} s), "
          f"programs equal: {fast == slow}; load average {os.getloadavg()[0]:.2f}", flush=True)


def main(quick: bool = False, only: str = "", lowering: bool = False, count: int = 8, verbose: bool = False) -> None:
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':34s} {'nodes':>5s} {'rows':>7s} {'columns':>8s} {'nonzeros':>9s}  status    seconds")

    def case(name, p, c):
        if only in name:
            run_case(name, p, c, count, lowering, verbose)

    for n, kw in TIERS.items():
        if quick and n > 100:
            continue
        p = cs.topologies.tiers(seed=1, **kw)
        hosts = list(p.hosts)
        case(f"scatter, Tiers-like ~{n} nodes", p,
             cs.Scatter(source=hosts[0], targets=hosts[1:17], size=1e7))
    p24 = cs.topologies.tiers(seed=1, lan_hosts=6)  # 4 LANs x 6 = 24 hosts, 34 nodes
    p = cs.topologies.tiers(seed=1)
    for k in (8, 16, 24):
        if quick and k > 8:
            continue
        q = p if k <= len(p.hosts) else p24
        hosts = list(q.hosts)
        case(f"reduce, {k} participants", q,
             cs.Reduce(participants=hosts[:k], target=hosts[0], size=1e7, task_cost=1e7))
    for n in (16, 32, 64):
        if quick and n > 16:
            continue
        p = cs.topologies.star(n, bandwidth=1.25e8, latency=1e-5)
        case(f"all-to-all, {n} hosts (star)", p, cs.AllToAll(senders=list(p.hosts), size=1e6))
    print(f"load average {os.getloadavg()[0]:.2f}")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the smaller cases only")
    ap.add_argument("--only", default="", help="the cases whose name contains this text")
    ap.add_argument("--lowering", action="store_true", help="also time the lowering both ways")
    ap.add_argument("--count", type=int, default=8, help="operations of each series")
    ap.add_argument("--verbose", action="store_true", help="also print the exact optimum and the activities' digest")
    args = ap.parse_args()
    main(quick=args.quick, only=args.only, lowering=args.lowering, count=args.count, verbose=args.verbose)
