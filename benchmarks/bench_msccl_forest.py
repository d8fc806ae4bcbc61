"""The forest's MSCCL exports on two-chassis GPU fabrics: what fits, and its time under Fluid against the schedule's.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_forest.py FABRIC KIND SIZE [CHUNKS]`` (``FABRIC`` one of
dgx2, ndv2, dgx_a100, mi250, two chassis; ``KIND`` ag, rs or ar; ``SIZE`` in bytes; ``CHUNKS`` the forest's, by
default its own choice). Prints one line: the chunks planned and exported (fewer when the export needed
``msccl.fit_chunks``), the grid of the tree shares when ``fit_chunks`` rounded them (``1/K``, and the throughput the
rounded forest claims over the schedule's), the file's ``nchunksperloop``, channels, thread blocks on the busiest GPU,
steps of the longest thread block, and the makespans under Fluid of the schedule (its Program without signals, in the
chunks planned), of the exported schedule's Program without signals, of that Program with its messages cut to
``MAX_COUNT`` chunks, of it with the messages sent together merged first (``merge_concurrent``, which the export does
when the messages do not fit as they are), and of the file read back; the seconds taken (a machine shared with other
jobs: rough); or the one-line error.
"""

from __future__ import annotations

import sys
import time

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.fit import rounding
from collsched.interop.msccl.lint import LimitError
from collsched.interop.msccl.merge import merge_concurrent
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals

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
        fitted = msccl.fit_chunks(g, c, s)
    except LimitError as err:
        print(f"{head}: refused: {err}")
        return
    text = msccl.to_xml(g, c, fitted)
    t2 = time.time()
    result = msccl.check_text(text, g, size=c.size)
    algo = result.imported.algo
    program = drop_signals(fitted.lower(g, c)).renumbered()
    unit, scale, _ = chunk_grid(program, c.kind, len(g.hosts))
    cut = split_messages(program, unit=unit, scale=scale)
    merged = split_messages(merge_concurrent(program, unit=unit, scale=scale), unit=unit, scale=scale)
    t_program, t_cut, t_merged, t_file = (cs.simulate(g, p, c, model=fluid).makespan
                                          for p in (program, cut, merged, result.imported.program))
    print(f"{head}: exported in {fitted.chunks} chunks{rounding(s, fitted)}, nchunksperloop {algo.nchunksperloop}, {algo.nchannels} "
          f"channels, {max(len(x.tbs) for x in algo.gpus)} thread blocks, {max(len(tb.steps) for x in algo.gpus for tb in x.tbs)} "
          f"steps; Fluid: schedule {t_schedule * 1e6:.3f} us, exported program {t_program * 1e6:.3f} us, cut "
          f"{t_cut * 1e6:.3f} us, merged {t_merged * 1e6:.3f} us, file {t_file * 1e6:.3f} us "
          f"({t_file / t_schedule - 1:+.1%}); plan {t1 - t0:.0f} s, export {t2 - t1:.0f} s, check {time.time() - t2:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else None)
