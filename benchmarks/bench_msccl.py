"""Time reading, checking and simulating TE-CCL's 32-GPU MSCCL file (3,886 steps) on mi250(2); target < 1 s.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl.py``; prints the best of 5 runs of each phase.
"""

from __future__ import annotations

import time
from pathlib import Path

import collsched as cs
from collsched.interop import msccl

FILE = Path(__file__).resolve().parents[1] / "tests" / "interop" / "data" / "teccl_amd_32.xml"


def best(f, repeat: int = 5) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    g = cs.topologies.mi250(2)
    t_parse, algo = best(lambda: msccl.parse(FILE))
    t_read, imp = best(lambda: msccl.to_program(algo, g, size=2 ** 25))
    t_check, _ = best(lambda: msccl.check(FILE, g, size=2 ** 25))
    t_sim, r = best(lambda: cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()))
    print(f"{FILE.name}: {algo.n_steps} steps, {imp.program.n_ops} ops")
    print(f"parse            {t_parse * 1e3:8.1f} ms")
    print(f"to_program       {t_read * 1e3:8.1f} ms")
    print(f"check (all)      {t_check * 1e3:8.1f} ms   (parse + lint + to_program + validate)")
    print(f"simulate (Fluid) {t_sim * 1e3:8.1f} ms   makespan {r.makespan * 1e6:.1f} us for 32 MiB blocks")
    print(f"read+check+simulate {(t_check + t_sim) * 1e3:8.1f} ms (target < 1000 ms)")


if __name__ == "__main__":
    main()
