"""Time reading, checking and simulating TE-CCL's 32-GPU MSCCL file (3,886 steps) on mi250(2) (target < 1 s), and
how forest exports pack into thread blocks.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl.py``; prints the best of 5 runs of each phase, then for each
forest export (the forest as ``msccl.fit_chunks`` makes it fit, and what it changed): thread blocks (most on one GPU, all GPUs), channels, the longest block, ``nop`` steps, the export time,
and the makespan under Fluid of the Program without signals and of the file read back.
"""

from __future__ import annotations

import time
from pathlib import Path

import collsched as cs
from collsched.interop import msccl

from _cli import parser, run

FILE = Path(__file__).resolve().parents[1] / "tests" / "interop" / "data" / "teccl_amd_32.xml"


def best(f, repeat: int = 5) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    g = cs.topologies.mi250(2)
    t_parse, algo = best(lambda: msccl.parse(FILE))
    t_read, imp = best(lambda: msccl.to_program(algo, g, size=2 ** 25))
    t_check, _ = best(lambda: msccl.check(FILE, g, size=2 ** 25))
    t_sim, r = best(lambda: cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()))
    print(f"{FILE.name}: {algo.n_steps} steps, {imp.program.n_ops} ops")
    print(f"parse            {t_parse * 1e3:8.1f} ms")
    print(f"to_program       {t_read * 1e3:8.1f} ms")
    print(f"check (all)      {t_check * 1e3:8.1f} ms   (parse + lint + to_program + validate)")
    print(f"simulate (Fluid) {t_sim * 1e3:8.1f} ms   makespan {r.makespan * 1e6:.1f} us for 32 MiB blocks")
    print(f"read+check+simulate {(t_check + t_sim) * 1e3:8.1f} ms (target < 1000 ms)")
    exports()


def exports() -> None:
    from collsched.interop.msccl.fit import rounding
    from collsched.interop.msccl.threadblocks import drop_signals

    fluid = cs.models.Fluid()
    cases = [("dgx2(1)", cs.topologies.dgx2(1), cs.AllGather, {}),
             ("dgx2(1)", cs.topologies.dgx2(1), cs.AllReduce, {"chunks": 4}),
             ("ndv2(2)", cs.topologies.ndv2(2), cs.AllReduce, {"chunks": 4}),
             ("ndv2(1)", cs.topologies.ndv2(1), cs.AllGather, {})]
    print("forest export          | tbs/gpu max | tbs total | channels | longest tb | nops | export ms | Fluid us: "
          "program w/o signals -> file")
    for name, g, kind, options in cases:
        c = kind(participants=g.hosts, size=2 ** 20)
        planned = cs.plan(g, c, algorithm="forest", **options)
        fitted = msccl.fit_chunks(g, c, planned)   # chunks of whole bytes: ndv2(1)'s shares rounded, fewer chunks
        program = fitted.lower(g, c)
        t, text = best(lambda: msccl.to_xml(g, c, program), repeat=1)
        algo = msccl.parse_text(text)
        imp = msccl.to_program(algo, g, size=c.size)
        tbs = [len(x.tbs) for x in algo.gpus]
        steps = [st for x in algo.gpus for tb in x.tbs for st in tb.steps]
        longest = max(len(tb.steps) for x in algo.gpus for tb in x.tbs)
        before = cs.simulate(g, drop_signals(program), c, model=fluid).makespan
        after = cs.simulate(g, imp.program, imp.collective, model=fluid).makespan
        label = f"{kind.__name__} {name} {options or ''}"
        if fitted is not planned:
            label += f" (fit_chunks: {fitted.chunks} chunks instead of {planned.chunks}{rounding(planned, fitted)})"
        print(f"{label:22s} | {max(tbs):11d} | {sum(tbs):9d} | {algo.nchannels:8d} | {longest:10d} | "
              f"{sum(st.type == 'nop' for st in steps):4d} | {t * 1e3:9.0f} | {before * 1e6:.3f} -> {after * 1e6:.3f}")


if __name__ == "__main__":
    parser(__doc__).parse_args()
    run(main)
