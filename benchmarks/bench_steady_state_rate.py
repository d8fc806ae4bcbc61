"""Seed 000's theorem by simulation, on random heterogeneous platforms: simulated steady-state rate / claimed rate.

For each family (series of scatters, all-to-alls, reduces, broadcasts) it
plans ``steady_state`` on N random platforms (the property tests'
generator, ``tests/steady_state/random_platforms.py``: 3-6 hosts of
different speeds, 0-2 routers, directed links of different bandwidths,
busy CPUs), simulates 20 and 40 periods' worth of operations under
``OnePort(sync=True, cost="edges")`` (the LPs' model) and prints:

* exact: how many planned with the exact period; for those the worst
  ratio and the largest relative deviation of the simulated steady-state rate to the schedule's throughput
  (the exact LP optimum TP when the status is OPTIMAL);
* optimal: how many of those are OPTIMAL (a multicast broadcast may pack
  below TP: FEASIBLE, and its throughput is what it runs at);
* fixed: how many needed a fixed period (section 4.6), how many of them
  simulate at or above the Proposition 3 floor (the rate the rounded routes
  or trees give minus card / T_fixed), and their worst simulated rate / TP.

Run: ``.venv/bin/python benchmarks/bench_steady_state_rate.py [N]`` (default 200).
"""

from __future__ import annotations

import sys
import time
from fractions import Fraction
from pathlib import Path

import collsched as cs
from collsched.simulation.steady import steady_rate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "steady_state"))
from random_platforms import KINDS, random_platform, random_series  # noqa: E402

MODEL = cs.models.OnePort(sync=True, cost="edges")


def main(n: int) -> None:
    print(f"{'family':<10} {'exact':>5} {'optimal':>7} {'worst rate/thr':>15} {'max |rate/thr-1|':>16} "
          f"{'fixed':>5} {'>= floor':>8} {'worst rate/TP':>13} {'seconds':>8}")
    for kind in KINDS:
        t0 = time.perf_counter()
        ratios, fixed, optimal = [], [], 0
        for seed in range(n):
            p = random_platform(seed)
            c = random_series(p, kind, seed)
            s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
            cs.validate(p, c, s)
            rate = steady_rate(p, s, c, model=MODEL).rate
            if s.params["period_kind"] == "exact":
                ratios.append(rate / s.throughput)
                optimal += s.status is cs.Status.OPTIMAL
            else:
                floor = Fraction(s.params["rounded_from"]) - Fraction(s.params["loss_bound"])
                fixed.append((rate >= floor * (1 - Fraction(1, 10**9)), rate / s.bound.value))
        worst = f"{float(min(r for _, r in fixed)):.6f}" if fixed else "-"
        print(f"{kind:<10} {len(ratios):>5} {optimal:>7} {float(min(ratios)):>15.12f} {float(max(abs(r - 1) for r in ratios)):>16.2e} "
              f"{len(fixed):>5} {sum(ok for ok, _ in fixed):>8} {worst:>13} {time.perf_counter() - t0:>8.1f}",
              flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
