"""The forest's MSCCL exports on two-chassis GPU fabrics: what fits, and its time under Fluid against the schedule's.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_forest.py FABRIC KIND SIZE [CHUNKS]`` (``FABRIC`` one of
dgx2, ndv2, dgx_a100, mi250, two chassis; ``KIND`` ag, rs or ar; ``SIZE`` in bytes; ``CHUNKS`` the forest's, by
default its own choice). Prints one line: the forest as planned, what ``msccl.ready`` changed to fit the runtime
(fewer chunks, tree shares on a grid of ``1/K`` with the throughput the rounded forest claims over the schedule's,
messages without data dropped, messages merged or cut), the file's ``nchunksperloop``, channels, thread blocks on
the busiest GPU, steps of the longest thread block, and the makespans under Fluid of the schedule as planned (its
Program without signals), of the Program ``msccl.ready`` says the file runs, and of the file read back (``=`` when
they are equal to the last bit); the seconds taken (a machine shared with other jobs: rough, print the load
average with them); or the one-line error.
"""

from __future__ import annotations

import os
import time

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.lint import LimitError
from collsched.interop.msccl.threadblocks import drop_signals

from _cli import parser, run

KINDS = {"ag": cs.AllGather, "rs": cs.ReduceScatter, "ar": cs.AllReduce}


def main(fabric: str, kind: str, size: float, chunks: int | None) -> None:
    g = getattr(cs.topologies, fabric)(2)
    c = KINDS[kind](participants=g.hosts, size=size)
    fluid = cs.models.Fluid()
    t0 = time.time()
    s = cs.plan(g, c, algorithm="forest", chunks=chunks)
    t_schedule = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=fluid).makespan
    head = f"{fabric}(2) {kind} {size:g} B forest in {s.chunks} chunks ({s.messages})"
    t1 = time.time()
    try:
        r = msccl.ready(g, c, s)
    except LimitError as err:
        print(f"{head}: refused: {err}")
        return
    t2 = time.time()
    result = msccl.check_text(r.text, g, size=c.size)
    algo = result.imported.algo
    t_file = cs.simulate(g, result.imported.program, c, model=fluid).makespan
    same = "=" if t_file == r.makespan else f"!= (relative difference {abs(t_file / r.makespan - 1):.1e})"
    print(f"{head}: {'; '.join(r.changes) or 'exported as planned'}; nchunksperloop {algo.nchunksperloop}, "
          f"{algo.nchannels} channels, {max(len(x.tbs) for x in algo.gpus)} thread blocks, "
          f"{max(len(tb.steps) for x in algo.gpus for tb in x.tbs)} steps; Fluid: schedule {t_schedule * 1e6:.3f} us "
          f"-> exported program {r.makespan * 1e6:.3f} us {same} file {t_file * 1e6:.3f} us "
          f"({t_file / t_schedule - 1:+.1%}); plan {t1 - t0:.0f} s, ready (fit, export, simulate) {t2 - t1:.0f} s, "
          f"check {time.time() - t2:.0f} s; load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabric", choices=["dgx2", "ndv2", "dgx_a100", "mi250"], help="two chassis of this fabric")
    ap.add_argument("kind", choices=list(KINDS))
    ap.add_argument("size", type=float, help="bytes")
    ap.add_argument("chunks", nargs="?", type=int, help="the forest's chunks (default: its own choice)")
    args = ap.parse_args()
    run(main, args.fabric, args.kind, args.size, args.chunks)
