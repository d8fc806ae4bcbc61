"""Fit the cost model of every registered algorithm (``collsched.algorithms.calibration.COSTS``).

Each algorithm is compared alone (planned, lowered, validated and simulated
under Fluid, every synchronisation mode, as ``collsched compare`` does) on a
fat tree of n hosts for its first collective kind, at several n; the wall
times are fitted as ``seconds = coefficient * n ** exponent`` (least squares
on the logarithms). The script prints each measurement and the fitted table,
ready to paste into ``calibration.py``. Figures depend on the machine and its
load: say so beside them.

Run: ``PYTHONPATH=python python benchmarks/bench_scale_calibrate.py [n ...]`` (default n: 32 64 128).
"""

from __future__ import annotations

import math
import time

import numpy as np

import collsched as cs
from collsched.algorithms import registry
from collsched.collective_io import new_collective
from collsched.compare import compare

from _cli import parser, run


def collective_of(kind: str, hosts: tuple[str, ...]):
    """A collective of ``kind`` on ``hosts`` (1 MB messages), as the calibration runs it (an all-to-many as an all-to-all)."""
    size = 1e6
    return new_collective("alltoall" if kind == "alltomany" else kind, hosts, size=size,
                          task_cost=size if kind == "reduce" else None)


def platform_of(n: int):
    """A two-level fat tree of ``n`` hosts (leaves of 8 or 16 hosts)."""
    per = 16 if n >= 128 else 8
    return cs.topologies.fat_tree(n // per, per)


def measure(sizes, names=None, limit: float = 120.0) -> dict[str, list[tuple[int, float]]]:
    """Per algorithm, ``(n, seconds)`` of a comparison of it alone; an algorithm stops growing past ``limit`` s."""
    out: dict[str, list[tuple[int, float]]] = {}
    for name in names or registry.names():
        algo = registry.get(name)
        if not algo.single:
            continue  # steady-state algorithms schedule series; not calibrated here
        for n in sizes:
            p = platform_of(n)
            c = collective_of(algo.kinds[0], p.hosts)
            start = time.perf_counter()
            cmp = compare(p, c, algorithms=[name], budget=math.inf)
            seconds = time.perf_counter() - start
            cand = cmp.candidates[0]
            print(f"{name:22s} {algo.kinds[0]:13s} n={n:5d} {seconds:8.2f} s {'ok' if cand.valid else cand.error[:60]}",
                  flush=True)
            out.setdefault(name, []).append((n, seconds))
            if seconds > limit:
                break
    return out


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """``(coefficient, exponent)`` of ``seconds = coefficient * n ** exponent``, least squares on the logarithms."""
    x = np.log([n for n, _ in points])
    y = np.log([max(t, 1e-4) for _, t in points])
    if len(points) < 2:
        return float(np.exp(y[0]) / points[0][0]), 1.0
    exponent, log_c = np.polyfit(x, y, 1)
    exponent = max(float(exponent), 0.0)
    return float(np.exp(np.mean(y - exponent * x))), exponent


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [32, 64, 128]
    results = measure(sizes)
    when = time.strftime("%Y-%m-%d")
    print("\nCOSTS = {")
    for name, points in results.items():
        coefficient, exponent = fit(points)
        runs = ", ".join(f"{n}: {t:.2f} s" for n, t in points)
        print(f'    "{name}": Cost({coefficient:.3g}, {exponent:.2f}, "{when}, fat tree, {runs}"),')
    print("}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, default=[32, 64, 128], help="n (default: %(default)s)")
    run(main, ap.parse_args().sizes)
