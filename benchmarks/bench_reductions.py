"""Symbolic validation of reductions: the direct all-reduce (``direct_program``) on a star of N hosts.

Every participant reduces its fragment in one task of N inputs, so the
program names N singleton operand sets and the full set ``Σ{0..N-1}``
(N-bit masks: 256 and more participants take several 64-bit words).
Prints, per N: operations, operand sets, time to build the program
(Python), time to validate it (the Rust core plus the Python checks around
it), and validated operations per second. Run:
``.venv/bin/python benchmarks/bench_reductions.py [N ...]``.
"""

from __future__ import annotations

import time

import collsched as cs
from collsched.algorithms.baselines.reduce_scatter import direct_program

from _cli import parser, run


def measure(n: int) -> tuple[int, int, float, float]:
    p = cs.topologies.star(n)
    c = cs.AllReduce(participants=p.hosts, size=1e6, task_cost=1e6)
    start = time.perf_counter()
    program = direct_program(p, c)
    built = time.perf_counter()
    cs.validate(p, c, program)
    done = time.perf_counter()
    return program.n_ops, len(program.operand_sets), built - start, done - built


def main(sizes: list[int]) -> None:
    print(f"{'N':>6} {'ops':>10} {'sets':>6} {'build s':>9} {'validate s':>11} {'ops/s validated':>16}")
    for n in sizes:
        ops, sets, build, check = measure(n)
        print(f"{n:>6} {ops:>10} {sets:>6} {build:>9.3f} {check:>11.3f} {ops / check:>16,.0f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, default=[16, 64, 256], help="N (default: %(default)s)")
    run(main, ap.parse_args().sizes)
