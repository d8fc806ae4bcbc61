"""Benchmark of the orderings family: planning time of matching rounds and the open-shop list schedule.

Run: ``PYTHONPATH=python python benchmarks/bench_orderings.py``. Prints, per N,
the planning CPU time (s, ``time.process_time``) of ``open_shop`` (Rust core), the pure-Python
reference loop, ``greedy``, ``matching`` (scipy assignment per round) and the
preemptive Birkhoff-von Neumann decomposition (small N only), plus the
planned open-shop makespan over the open-shop bound.
"""

from __future__ import annotations

import time

import numpy as np

from collsched.algorithms.orderings.listsched import _open_shop_python, greedy_rounds, open_shop_orders
from collsched.algorithms.orderings.matching import matching_rounds
from collsched.algorithms.orderings.preemptive import bvn_steps

from _cli import parser, run


def _matrix(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    o = rng.choice([1.0, 5.0, 10.0], size=n)
    cost = o[:, None] + 1.0 + o[None, :]
    mask = ~np.eye(n, dtype=bool)
    return np.where(mask, cost, 0.0), mask


def _time(f, *args):
    """CPU seconds of this process (the Rust core runs in it): robust to other load on the machine."""
    t = time.process_time()
    out = f(*args)
    return time.process_time() - t, out


def main(sizes=(256, 1024)) -> None:
    print(f"{'N':>6} {'open_shop':>10} {'python':>9} {'greedy':>9} {'matching':>9} {'bvn':>9} {'plan/bound':>10}")
    for n in sizes:
        cost, mask = _matrix(n)
        bound = max(cost.sum(0).max(), cost.sum(1).max())
        t_os, (_, makespan) = _time(open_shop_orders, cost, mask, 0)
        t_py = _time(_open_shop_python, cost, mask, 0)[0] if n <= 256 else float("nan")
        t_gr = _time(greedy_rounds, cost, mask)[0] if n <= 256 else float("nan")
        t_ma = _time(matching_rounds, cost, mask)[0]
        t_bv = _time(bvn_steps, cost)[0] if n <= 64 else float("nan")
        print(f"{n:>6} {t_os:>10.4f} {t_py:>9.3f} {t_gr:>9.3f} {t_ma:>9.3f} {t_bv:>9.3f} {makespan / bound:>10.4f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, default=[64, 256, 1024], help="N (default: %(default)s)")
    run(main, tuple(ap.parse_args().sizes))
