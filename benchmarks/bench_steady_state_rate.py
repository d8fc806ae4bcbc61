"""Seed 000's theorem by simulation, on random heterogeneous platforms: simulated steady-state rate / claimed rate.

For each family (series of scatters, all-to-alls, reduces, broadcasts,
all-gathers) it plans ``steady_state`` on N random platforms (the property
tests' generator, ``tests/steady_state/random_platforms.py``: 3-6 hosts of
different speeds, 0-2 routers, directed links of different bandwidths,
busy CPUs, no latencies), simulates 20 and 40 periods' worth of operations
(doubled until two windows agree) under the port model's executor —
``OnePort(sync=True, cost="edges")`` for ``ports="one"`` (the LPs' model),
``Fluid()`` for ``ports="multi"`` — and prints:

* exact: how many planned with the exact period; for those the worst
  ratio and the largest relative deviation of the simulated steady-state rate to the schedule's throughput
  (the exact LP optimum TP when the status is OPTIMAL);
* optimal: how many of those are OPTIMAL (a multicast broadcast or
  all-gather may pack below TP: FEASIBLE, and its throughput is what it runs at);
* fixed: how many needed a fixed period (section 4.6), how many of them
  simulate at or above the Proposition 3 floor (the rate the rounded routes
  or trees give minus card / T_fixed), and their worst simulated rate / TP.

With ``ports="multi"`` it then plans each family on the GPU fabrics of
``collsched.topologies`` (blocks of 1 MB, their own latencies) and prints
the exact LP optimum (as algorithm bandwidth: bytes a participant receives
per second), the status, the schedule's throughput / TP, the simulated
steady-state rate under ``Fluid()`` / the schedule's throughput, and the
seconds to plan and to simulate. Each link direction pays its latency once
per period, which the planner makes at most 1/1000 of the period.

Run: ``.venv/bin/python benchmarks/bench_steady_state_rate.py [N] [--ports one|multi|both] [--fabrics a,b]
[--time-limit S]`` (default 200, both, ``dgx2:1,ndv2:2,dgx_a100:2,mi250:2,dgx2:2``, 60 s); an LP that HiGHS
does not solve within the time limit prints its status and message.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

import collsched as cs
from collsched.simulation.steady import steady_rate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "steady_state"))
from random_platforms import KINDS, random_platform, random_series  # noqa: E402

MODELS = {"one": cs.models.OnePort(sync=True, cost="edges"), "multi": cs.models.Fluid()}
FABRICS = "dgx2:1,ndv2:2,dgx_a100:2,mi250:2,dgx2:2"
GPU_KINDS = ("scatter", "alltoall", "broadcast", "allgather")


def random_table(n: int, ports: str) -> None:
    print(f"ports={ports!r}, {n} random platforms, simulated under {MODELS[ports]}")
    print(f"{'family':<10} {'exact':>5} {'optimal':>7} {'worst rate/thr':>15} {'max |rate/thr-1|':>16} "
          f"{'fixed':>5} {'>= floor':>8} {'worst rate/TP':>13} {'seconds':>8}")
    for kind in KINDS:
        t0 = time.perf_counter()
        ratios, fixed, optimal = [], [], 0
        for seed in range(n):
            p = random_platform(seed)
            c = random_series(p, kind, seed)
            s = cs.plan(p, c, algorithm="steady_state", max_ops=16, ports=ports)
            cs.validate(p, c, s)
            rate = steady_rate(p, s, c, model=MODELS[ports]).rate
            if s.params["period_kind"] == "exact":
                ratios.append(rate / s.throughput)
                optimal += s.status is cs.Status.OPTIMAL
            else:
                floor = Fraction(s.params["rounded_from"]) - Fraction(s.params["loss_bound"])
                fixed.append((rate >= floor * (1 - Fraction(1, 10**9)), rate / s.bound.value))
        worst = f"{float(min(r for _, r in fixed)):.6f}" if fixed else "-"
        print(f"{kind:<10} {len(ratios):>5} {optimal:>7} {float(min(ratios)):>15.12f} "
              f"{float(max(abs(r - 1) for r in ratios)):>16.2e} "
              f"{len(fixed):>5} {sum(ok for ok, _ in fixed):>8} {worst:>13} {time.perf_counter() - t0:>8.1f}",
              flush=True)


def _collective(kind: str, hosts: list, size: float):
    return {"scatter": cs.Scatter(source=hosts[0], targets=hosts, size=size),
            "alltoall": cs.AllToAll(senders=hosts, size=size),
            "broadcast": cs.Broadcast(source=hosts[0], targets=hosts, size=size),
            "allgather": cs.AllGather(participants=hosts, size=size)}[kind]


def fabric_table(fabrics: str, size: float = 1e6, time_limit: float = 60.0) -> None:
    print(f"\nports='multi' on GPU fabrics, blocks of {size:.0e} B, simulated under Fluid() with their latencies")
    print(f"{'fabric':<11} {'family':<10} {'TP (op/s)':>18} {'algbw GB/s':>10} {'status':<8} {'thr/TP':>8} "
          f"{'rate/thr':>12} {'q':>3} {'plan s':>7} {'sim s':>7}")
    for spec in fabrics.split(","):
        name, arg = spec.split(":")
        p = getattr(cs.topologies, name)(int(arg))
        hosts = list(p.hosts)
        for kind in GPU_KINDS:
            c = cs.Series(_collective(kind, hosts, size), count=10)
            t0 = time.perf_counter()
            s = cs.plan(p, c, algorithm="steady_state", ports="multi", time_limit=time_limit)
            t1 = time.perf_counter()
            if s.bound is None:  # HiGHS's time limit, or no exact certificate
                print(f"{spec:<11} {kind:<10} {s.status.value}: {s.message}  ({t1 - t0:.1f} s)", flush=True)
                continue
            r = steady_rate(p, s, c, model=MODELS["multi"])
            t2 = time.perf_counter()
            tp = s.bound.value
            # bytes every receiver gets per operation: one block (scatter, broadcast) or one from each other host
            per_op = size * (len(hosts) - 1 if kind in ("alltoall", "allgather") else 1)
            print(f"{spec:<11} {kind:<10} {str(tp):>18} {float(tp) * per_op / 1e9:>10.3f} {s.status.value:<8} "
                  f"{float(s.throughput / tp):>8.4f} {float(r.rate / s.throughput):>12.9f} {s.ops_per_period:>3} "
                  f"{t1 - t0:>7.2f} {t2 - t1:>7.1f}{'' if r.settled else ' (not settled)'}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=200, help="random platforms per family (0: none)")
    ap.add_argument("--ports", choices=("one", "multi", "both"), default="both")
    ap.add_argument("--fabrics", default=FABRICS, help="GPU fabrics NAME:SIZE, comma-separated ('' for none)")
    ap.add_argument("--time-limit", type=float, default=60.0, help="seconds for HiGHS on each fabric's LP")
    args = ap.parse_args()
    for ports in ("one", "multi") if args.ports == "both" else (args.ports,):
        if args.n:
            random_table(args.n, ports)
    if args.ports != "one" and args.fabrics:
        fabric_table(args.fabrics, time_limit=args.time_limit)


if __name__ == "__main__":
    main()
