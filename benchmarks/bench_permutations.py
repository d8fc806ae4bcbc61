"""Scheduling time of RS_N and RS_NLP (seed 002) for n = 64, d = 48 and n = 1,024, d = 64.

Prints, per case, the median wall time of the Rust decomposition alone
(``collsched._core.decompose_permutations``) and of the whole ``cs.plan`` call
(COM compression and, for RS_NLP, the e-cube routes in Python). Target: RS_N
at n = 64, d = 48 under 1 ms (the decomposition).

Run: ``PYTHONPATH=python .venv/bin/python benchmarks/bench_permutations.py``
"""

import statistics
import time

import numpy as np

import collsched as cs
from collsched import _core
from collsched.algorithms.permutations.common import com_matrix, route_resources
from collsched.algorithms.permutations.samples import random_com, to_alltomany

from _cli import parser, run


def median_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    print(f"{'n':>5} {'d':>4} {'algorithm':>9} {'phases':>7} {'core ms':>9} {'plan ms':>9}")
    for dim, d in ((6, 48), (10, 64)):
        p = cs.topologies.hypercube(dim)
        n = len(p.hosts)
        c = to_alltomany(random_com(n, d, seed=1), p.hosts, unit=1024)
        com = com_matrix(p, c)
        path_ptr, path, n_res = route_resources(p, com)
        none = np.zeros(len(com.src) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), 0
        for algo, pairs, links in (("rs_n", False, False), ("rs_nlp", True, True)):
            args = (path_ptr, path, n_res) if links else none
            core = lambda: _core.decompose_permutations(com.n, com.row_ptr, com.dst, com.size, *args,  # noqa: E731
                                                        pairs=pairs, links=links, seed=1)
            phases = int(core()[1].max()) + 1
            repeat = 50 if n <= 64 else 5
            core_ms = median_ms(core, repeat)
            plan_ms = median_ms(lambda: cs.plan(p, c, algorithm=algo, seed=1), max(3, repeat // 10))
            print(f"{n:>5} {d:>4} {algo:>9} {phases:>7} {core_ms:>9.3f} {plan_ms:>9.1f}")


if __name__ == "__main__":
    parser(__doc__).parse_args()
    run(main)
