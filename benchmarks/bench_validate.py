"""Symbolic validation speed: caterpillar all-to-all programs on a star of N hosts.

Prints, per N: operations, time to plan and lower (Python), time to validate
(the Rust core plus the Python checks around it), and validated operations
per second. Run: ``.venv/bin/python benchmarks/bench_validate.py [N ...]``.
"""

from __future__ import annotations

import time

import collsched as cs

from _cli import parser, run


def measure(n: int) -> tuple[int, float, float]:
    p = cs.topologies.star(n)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    start = time.perf_counter()
    program = cs.plan(p, c, "caterpillar").lower(p, c, sync="post_all")
    lowered = time.perf_counter()
    cs.validate(p, c, program)
    done = time.perf_counter()
    return program.n_ops, lowered - start, done - lowered


def main(sizes: list[int]) -> None:
    print(f"{'N':>6} {'ops':>10} {'lower s':>9} {'validate s':>11} {'ops/s validated':>16}")
    for n in sizes:
        ops, lower, check = measure(n)
        print(f"{n:>6} {ops:>10} {lower:>9.3f} {check:>11.3f} {ops / check:>16,.0f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, default=[64, 256, 512], help="N (default: %(default)s)")
    run(main, ap.parse_args().sizes)
