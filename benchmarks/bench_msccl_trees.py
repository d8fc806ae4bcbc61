"""The forest's tree packing: the Rust core against the pure-Python reference it replaced, on GPU fabrics.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_trees.py [FABRIC:BOXES ...]`` (default ``mi250:2``). For each
fabric, the four packings the forest of an all-reduce asks for (``pack_forest``'s split graph and
``shallow_trees``' direct routes, all-gather and reduce-scatter) are captured, then packed by
``trees.pack_spanning_trees`` (the core) and ``trees._reference`` in the same run. One line each: nodes, arcs,
trees, the flows the reference asked, the CPU seconds of both and their ratio, and whether the results are equal
(they must be); the load average last (a machine shared with other jobs: compare the ratios, not the seconds).
"""

from __future__ import annotations

import os
import time
from fractions import Fraction

import collsched as cs
from collsched._core import FlowNetwork
from collsched.algorithms.gpu import forest, lower_shallow, trees
from collsched.errors import CollschedError

from _cli import fabric, parser, run


class _Counting:
    """A FlowNetwork that counts its max_flow calls (the extension type cannot be subclassed)."""

    INFINITE = FlowNetwork.INFINITE
    calls = 0

    def __init__(self, n: int):
        self._net = FlowNetwork(n)

    def __getattr__(self, name):
        return getattr(self._net, name)

    def max_flow(self, *args):
        _Counting.calls += 1
        return self._net.max_flow(*args)


def captured(fabric: str, boxes: int) -> list[tuple[str, int, dict, int]]:
    """The packings the forest asks for on the fabric: (label, n, capacity, rate)."""
    asked: list = []

    def spy(label):
        def pack(n, capacity, rate):
            asked.append((label, n, dict(capacity), rate))
            return trees.pack_spanning_trees(n, capacity, rate)
        return pack

    g = getattr(cs.topologies, fabric)(boxes)
    saved = forest.pack_spanning_trees, lower_shallow.pack_spanning_trees
    try:
        for kind in ("allgather", "reducescatter"):
            forest.pack_spanning_trees = spy(f"{kind} split graph")
            f = forest.pack_forest(g, g.hosts, kind=kind)
            lower_shallow.pack_spanning_trees = spy(f"{kind} direct routes")
            lower_shallow.shallow_trees(g, g.hosts, kind, Fraction(f.throughput))
    finally:
        forest.pack_spanning_trees, lower_shallow.pack_spanning_trees = saved
    return asked


def main(fabrics: list[str]) -> None:
    for spec in fabrics:
        fabric, boxes = spec.split(":")
        for label, n, capacity, rate in captured(fabric, int(boxes)):
            results, seconds = [], []
            for f in (trees.pack_spanning_trees, trees._reference):
                _Counting.calls = 0
                trees.FlowNetwork = _Counting
                t = time.process_time()
                try:
                    results.append(f(n, capacity, rate))
                except CollschedError as err:
                    results.append(str(err))
                finally:
                    trees.FlowNetwork = FlowNetwork
                seconds.append(time.process_time() - t)
            print(f"{fabric}({boxes}) {label}: {n} nodes, {len(capacity)} arcs, {len(results[0])} trees; reference "
                  f"{_Counting.calls:,} flows, {seconds[1]:.3f} s CPU; core {seconds[0]:.3f} s CPU "
                  f"({seconds[1] / max(seconds[0], 1e-9):.1f}x); {'equal' if results[0] == results[1] else 'DIFFERENT'}",
                  flush=True)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabrics", nargs="*", type=fabric, default=["mi250:2"], help="fabrics as name:count (default: %(default)s)")
    run(main, ap.parse_args().fabrics)
