"""The baselines' two lowerings without signals for MSCCL: the step schedule's ``sync="post_all"``, and ``drop_signals``.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_sync.py [FABRIC:BOXES] [SIZE]`` (default ``ndv2:1``, 1 MiB).
For every registered algorithm but the forest of allgather, reducescatter and allreduce whose Program sends messages
without data (signals), prints one row: its schedule type, the signals, and for a step schedule lowered with
``sync="post_all"`` (no signals; each sender's messages in order) what ``msccl.ready`` changes, its planned time
and the file's under Fluid and whether they are equal to the last bit; then the file's time of the schedule as
planned, whose signals the export drops (``drop_signals``: what waited for a signal waits for what it waited for),
which is what ``msccl.plan`` plans for a baseline. Last, the seconds and the load average.
"""

from __future__ import annotations

import dataclasses
import os
import time

import collsched as cs
from collsched.algorithms import registry
from collsched.interop import msccl
from collsched.interop.msccl.threadblocks import drop_signals
from collsched.schedules import StepSchedule

from _cli import fabric, parser, run

KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}


def main(spec: str, size: float) -> None:
    name, _, boxes = spec.partition(":")
    g = getattr(cs.topologies, name)(int(boxes))
    start = time.time()
    print(f"| {spec}, {size:g} B | schedule | signals | post_all: changes | planned (us) | file (us) | = | "
          "drop_signals: file (us) |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, make in KINDS.items():
        c = make(participants=g.hosts, size=size)
        for a in registry.applicable(make(participants=["h0", "h1", "h2"], size=1.0)):
            if a.name == "forest":
                continue
            s = cs.plan(g, c, algorithm=a.name)
            lowered = s.lower(g, c)
            signals = lowered.n_messages - drop_signals(lowered).n_messages
            if not signals:
                continue
            row = f"| {kind} {a.name} | {type(s).__name__} | {signals} |"
            if isinstance(s, StepSchedule):
                r = msccl.ready(g, c, dataclasses.replace(s, params={**dict(s.params), "sync": "post_all"}))
                row += (f" {'; '.join(r.changes) or '()'} | {r.planned_makespan * 1e6:.3f} | {r.makespan * 1e6:.3f} |"
                        f" {'=' if r.makespan == r.planned_makespan else '!='} |")
            else:
                row += " | | | |"
            print(f"{row} {msccl.ready(g, c, s).makespan * 1e6:.3f} |", flush=True)
    print(f"{time.time() - start:.0f} s, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabric", nargs="?", type=fabric, default="ndv2:1")
    ap.add_argument("size", nargs="?", type=float, default=2 ** 20, help="bytes")
    args = ap.parse_args()
    run(main, args.fabric, args.size)
