"""Export a forest all-reduce lowered in rounds (dgx2(2), 16 MB) to MSCCL, read it back, and time the race check.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_rounds.py [CHUNKS ...]`` (default 1 4); prints, per number of
chunks the forest is cut into: ops, messages cut to one step (``MAX_COUNT`` chunks), the export and check times, the
makespan under Fluid of the Program without signals, of the cut Program and of the file read back; then, on the last
file, the race check by vector clocks against the quadratic bit sets it replaced (same run, same steps): time,
and peak memory allocated (tracemalloc, a second run).
"""

from __future__ import annotations

import time
import tracemalloc

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.deadlock import order
from collsched.interop.msccl.races import _any_race, _first_race_exact, accesses
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals

from _cli import parser, run


def main(chunks_list) -> None:
    g = cs.topologies.dgx2(2)
    c = cs.AllReduce(participants=g.hosts, size=16e6)
    fluid = cs.models.Fluid()
    last = None
    print("chunks | ops | messages -> cut | export s | check s | Fluid us: program w/o signals, cut program, file")
    for chunks in chunks_list:
        s = cs.plan(g, c, algorithm="forest", chunks=chunks)
        program = drop_signals(s.lower(g, c)).renumbered()
        unit, scale, _ = chunk_grid(program, "allreduce", len(g.hosts))
        cut = split_messages(program, unit=unit, scale=scale)
        t = time.perf_counter()
        text = msccl.to_xml(g, c, s)
        t_export = time.perf_counter() - t
        t = time.perf_counter()
        imp = msccl.check_text(text, g, size=c.size).imported
        t_check = time.perf_counter() - t
        times = [cs.simulate(g, p, c, model=fluid).makespan * 1e6 for p in (program, cut, imp.program)]
        print(f"{chunks:6d} | {program.n_ops} | {program.n_messages} -> {cut.n_messages} | {t_export:8.1f} | "
              f"{t_check:7.1f} | {times[0]:.2f}, {times[1]:.2f}, {times[2]:.2f}")
        last = imp
    acc, tb, waits, gpu, sequence = race_inputs(last.algo)
    for name, f in (("vector clocks", _any_race), ("bit sets", _first_race_exact)):
        t = time.perf_counter()
        out = f(acc, tb, waits, gpu, sequence)
        seconds = time.perf_counter() - t
        tracemalloc.start()
        f(acc, tb, waits, gpu, sequence)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"race check, {len(acc)} steps, {name}: {seconds:.2f} s, peak {peak / 1e6:.0f} MB allocated ({out})")


def race_inputs(algo):
    """What :func:`~collsched.interop.msccl.races.first_race` is given for a file: accesses, blocks, waits, GPUs,
    an order (a step waits for the previous step of its block, its ``depid``, and a receive for its send)."""
    steps = [st for x in algo.gpus for tb in x.tbs for st in tb.steps]
    index = {(st.gpu, st.tb, st.s): k for k, st in enumerate(steps)}
    blocks = {(x.id, tb.id): tb for x in algo.gpus for tb in x.tbs}
    waits = [([k - 1] if st.s > 0 else []) + ([index[(st.gpu, st.depid, st.deps)]] if st.depid >= 0 else [])
             for k, st in enumerate(steps)]
    queues: dict = {}   # a receive waits for its send: the next one of its peer on its channel, in order
    for k, st in enumerate(steps):
        tb = blocks[(st.gpu, st.tb)]
        if st.type in ("s", "rcs", "rrs", "rrcs") and st.cnt > 0:
            queues.setdefault((st.gpu, tb.send, tb.chan), []).append(k)
    for k, st in enumerate(steps):
        tb = blocks[(st.gpu, st.tb)]
        if st.type in ("r", "rcs", "rrs", "rrc", "rrcs") and st.cnt > 0:
            waits[k].append(queues[(tb.recv, st.gpu, tb.chan)].pop(0))
    acc = [accesses(st, lambda b, o: (b, o)) for st in steps]
    tb, gpu = [st.tb for st in steps], [st.gpu for st in steps]
    sequence = order(waits, lambda i: steps[i].where)
    return acc, tb, waits, gpu, sequence


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("chunks", nargs="*", type=int, default=[1, 4], help="chunk counts (default: %(default)s)")
    run(main, ap.parse_args().chunks)
