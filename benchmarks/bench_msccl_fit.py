"""How long ``msccl.fit_chunks`` takes: the forest all-gather on ``ndv2(1)`` at 1 MiB (64 chunks, not whole bytes).

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_fit.py [LABEL]``. Prints the wall and CPU seconds of
``fit_chunks`` alone (the plan excluded), the chunk count it exports, and the load average: on a shared machine the
wall time is mostly the load; compare CPU seconds, or two checkouts run side by side (``PYTHONPATH`` of each).
"""

from __future__ import annotations

import os
import time

import collsched as cs
from collsched.interop import msccl

from _cli import parser, run


def main(label: str) -> None:
    g = cs.topologies.ndv2(1)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    s = cs.plan(g, c, algorithm="forest")
    wall, cpu = time.time(), time.process_time()
    fitted = msccl.fit_chunks(g, c, s)
    print(f"{label}: fit_chunks {time.time() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, "
          f"{s.chunks} chunks -> {fitted.chunks}; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("label", nargs="?", default="collsched", help="printed at the start of the line (default: %(default)s)")
    run(main, ap.parse_args().label)
