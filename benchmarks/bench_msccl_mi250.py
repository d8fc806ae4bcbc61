"""The forest on mi250(2) (32 GPUs, 445 trees) at 4 kB: planned, made ready for MSCCL and checked, timed.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_mi250.py [KIND ...]`` (``ag``, ``rs``, ``ar``; all three by
default). One line per kind: the CPU seconds (and wall seconds) of ``cs.plan(..., algorithm="forest")``,
``msccl.ready`` (fit, merge, cut, export, simulate) and ``msccl.check_text``, the file's makespan under Fluid and
whether it equals the exported Program's to the last bit; the load average last (a machine shared with other jobs:
the wall seconds grow with it, the CPU seconds much less). Point ``PYTHONPATH`` at another checkout to compare.
"""

from __future__ import annotations

import argparse
import os
import time

import collsched as cs
from collsched.interop import msccl

from _cli import parser, run

KINDS = {"ag": cs.AllGather, "rs": cs.ReduceScatter, "ar": cs.AllReduce}


def kind(name: str) -> str:
    """A KIND argument, checked (argparse's ``choices`` refuses an empty ``nargs="*"``)."""
    if name not in KINDS:
        raise argparse.ArgumentTypeError(f"{name!r} is not a kind: give ag, rs or ar")
    return name


def main(kinds: list[str]) -> None:
    g = cs.topologies.mi250(2)
    for kind in kinds:
        c = KINDS[kind](participants=g.hosts, size=4096)
        marks = [(time.process_time(), time.perf_counter())]
        s = cs.plan(g, c, algorithm="forest")
        marks.append((time.process_time(), time.perf_counter()))
        r = msccl.ready(g, c, s)
        marks.append((time.process_time(), time.perf_counter()))
        imported = msccl.check_text(r.text, g, size=c.size).imported
        marks.append((time.process_time(), time.perf_counter()))
        t_file = cs.simulate(g, imported.program, c, model=cs.models.Fluid()).makespan
        cpu = [b[0] - a[0] for a, b in zip(marks, marks[1:])]
        wall = [b[1] - a[1] for a, b in zip(marks, marks[1:])]
        print(f"mi250(2) {kind} 4 kB forest, {len(s.trees)} trees: plan {cpu[0]:.1f} s, ready {cpu[1]:.1f} s, check "
              f"{cpu[2]:.1f} s CPU, {sum(cpu):.1f} s in all ({sum(wall):.1f} s wall); file {t_file * 1e6:.3f} us "
              f"{'=' if t_file == r.makespan else '!='} exported program {r.makespan * 1e6:.3f} us; "
              f"load average {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("kinds", nargs="*", type=kind, help="ag, rs or ar (default: all three)")
    run(main, ap.parse_args().kinds or list(KINDS))
