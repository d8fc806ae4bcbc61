"""Fluid model at scale: all-to-all on a star and on a two-level fat tree.

For N = 64, 128, 256, 1024 hosts and two ways of issuing the messages —
everything in flight at once, or each sender one message after the other
(caterpillar order) — prints the wall time of ``cs.simulate`` under
``Fluid()`` and the peak memory of the process, and, up to N = 128, the same
case in SimGrid (``backend="simgrid"``, when its bindings are installed)
with the ratio of wall times and the relative difference of makespans.
Targets: at least 100 times faster than SimGrid at N = 128 with the same
makespan; N = 1024 under 30 s and 2 GB. Each case runs in its own process,
so that its peak memory is its own.

Run: ``.venv/bin/python benchmarks/bench_simulate_fluid.py [N ...]``.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

SIMGRID_UP_TO = 128


def platform(topology: str, n: int):
    import collsched as cs

    if topology == "star":
        return cs.topologies.star(n, bandwidth=1.25e8, latency=1e-5)
    return cs.topologies.fat_tree(n // 16, 16, bandwidth=1.25e8, latency=1e-5)


def run_case(topology: str, n: int, mode: str, backend: str) -> dict:
    import collsched as cs
    from programs import caterpillar

    p = platform(topology, n)
    program = caterpillar(p.hosts, 1e6, sequential=(mode == "sequential"))
    start = time.perf_counter()
    result = cs.simulate(p, program, model=cs.models.Fluid(), backend=backend)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB (Linux reports kB)
    return dict(wall=wall, makespan=result.makespan, events=result.events, peak_mb=peak)


def in_child(*args: str) -> dict | None:
    out = subprocess.run([sys.executable, __file__, "--case", *args], capture_output=True, text=True,
                         cwd=Path(__file__).parent)
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(sizes: list[int]) -> None:
    print(f"{'topology':<9} {'N':>5} {'mode':<11} {'ours s':>8} {'peak MB':>8} {'simgrid s':>10} "
          f"{'ratio':>7} {'makespan diff':>14}")
    for topology in ("star", "fat_tree"):
        for n in sizes:
            for mode in ("in_flight", "sequential"):
                ours = in_child(topology, str(n), mode, "collsched")
                if "error" in ours:
                    print(f"{topology:<9} {n:>5} {mode:<11} error: {ours['error']}")
                    continue
                row = f"{topology:<9} {n:>5} {mode:<11} {ours['wall']:>8.2f} {ours['peak_mb']:>8.0f}"
                if n <= SIMGRID_UP_TO:
                    sg = in_child(topology, str(n), mode, "simgrid")
                    if "error" in sg:
                        row += f" {'n/a':>10}  ({sg['error'][:60]})"
                    else:
                        diff = abs(sg["makespan"] - ours["makespan"]) / ours["makespan"]
                        row += f" {sg['wall']:>10.2f} {sg['wall'] / ours['wall']:>7.0f} {diff:>14.1e}"
                print(row, flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--case"]:
        topology, n, mode, backend = sys.argv[2:6]
        print(json.dumps(run_case(topology, int(n), mode, backend)))
    else:
        main([int(a) for a in sys.argv[1:]] or [64, 128, 256, 1024])
