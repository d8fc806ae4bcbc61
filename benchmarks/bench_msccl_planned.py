"""Every algorithm's MSCCL export against its schedule as planned: the two makespans under Fluid and what changed.

Run: ``PYTHONPATH=python python benchmarks/bench_msccl_planned.py [FABRIC ...] [--kinds KIND,...]
[--algorithms A,...] [--planned]`` (``FABRIC``
as the round trip's: ``dgx2``, ``ndv2``, ``dgx_a100`` at 1 MiB, ``mi250`` at 4 kB, ``dgx2:2``,
``ndv2:2``, ``dgx_a100:2``, ``mi250:2`` at 4 kB; default all but ``mi250:2``, whose forest takes minutes).
For every registered algorithm of allgather, reducescatter, allreduce, broadcast, reduce and alltoall (the test
suite exports alltoall's on every fabric but a seeded sample on five), as ``tests/interop/test_msccl_roundtrip.py`` exports them (the forest on one
chassis in 4 chunks, on two its own choice), prints one row: the schedule as planned lowered with its signals under
Fluid (``Ready.planned_makespan``), the file's time (``Ready.makespan``, which the file read back takes exactly),
their ratio, and which of ``msccl.ready``'s changes applied: ``signals`` (messages without data dropped), ``parts``
(a step schedule's parts of messages rounded to a chunk grid, ``msccl.round_parts``), ``fit``
(the forest in fewer chunks or its shares rounded), ``merged``, ``cut`` (to 71 chunks), ``serial`` (serialised on
fewer channels), ``order`` (each thread block's steps in order added time); ``=`` where none did and the two times
are equal to the last bit. A schedule ``to_xml`` refuses prints its one line. Last, the seconds and the load average
(a machine shared with other jobs: the makespans are the model's, the seconds are rough).

``--grids``: under each forest row, per chunk grid, what HiGHS found (``msccl.grid_shares``): its status (``limit``
where ``NODE_LIMIT`` stopped it), the throughput, HiGHS's proven bound on the grid's best and the gap between them.

``--planned``: also the same algorithm planned in MSCCL's model (``msccl.plan``: for the forest the fastest under
Fluid of its shares on each chunk grid and of ``msccl.ready``'s file, ``msccl.fastest_forest`` of the same planned
forest; a baseline without signals): its planned time, the file's, ``=`` when equal to the last bit (else the
changes), for the forest the grid and its throughput over the planner's (or ``ready's`` and what it changed, when
its file was the fastest), and ``<=`` where the file is no slower than ``msccl.ready``'s of the schedule as planned.
"""

from __future__ import annotations

import os
import time

import collsched as cs
from collsched.algorithms import registry
from collsched.errors import CollschedError
from collsched.interop import msccl
from collsched.interop.msccl.fabrics import KINDS, ROUND_TRIP, collective, fabric

from _cli import parser, run

# the first words of each of ready()'s changes -> its column tag
TAGS = (("messages without data dropped", "signals"), ("parts of messages rounded", "parts"), ("the forest in", "fit"), ("the messages each pair", "merged"),
        ("messages of more than", "cut"), ("messages serialised", "serial"), ("each thread block's steps", "order"))


def tags(changes) -> str:
    """The tags of ``changes`` (ready's phrases), comma-separated."""
    return ",".join(tag for x in changes for key, tag in TAGS if key in x) or "="


def planned_columns(g, c, algorithm: str, options: dict, schedule, made) -> str:
    """``msccl.plan``'s columns: planned time, the file's, equal or the changes, the forest's grid (or what
    ``msccl.ready`` changed, when its file was the fastest), and ``<=`` where the file is no slower than ``made``'s
    (``msccl.ready``'s file of the schedule as planned by ``collsched.plan``)."""
    if algorithm == "forest":   # msccl.plan's forest, from the same planned forest and its made-ready file
        p = msccl.fastest_forest(g, c, schedule, fewer="chunks" not in options, made=made)
    else:
        p = msccl.plan(g, c, algorithm=algorithm, **options)
    r = p.ready
    same = "=" if p.same else tags(r.changes)
    grid = "" if p.grid is None else f"1/{p.grid.k}, {float(p.grid.throughput / p.planner_throughput):.4f}"
    if p.made_ready:
        grid = f"ready's ({tags(p.made_ready)})"
    faster = "<=" if r.makespan <= made.makespan else ">"
    return f" {r.planned_makespan * 1e6:.3f} | {r.makespan * 1e6:.3f} | {same} | {grid} | {faster} |"


def grid_lines(g, c, forest) -> None:
    """``--grids``: per grid of ``msccl.grid_shares`` for the forest, HiGHS's status, the throughput found, HiGHS's
    proven bound on the grid's best and the LP relaxation's (all over the planner's throughput), the gap between the
    first two, and the CPU seconds of the two solves."""
    from collsched.interop.msccl.fit import GRIDS

    for k in GRIDS:
        cpu = time.process_time()
        s = msccl.grid_shares(g, forest, k)
        cpu = time.process_time() - cpu
        t = float(forest.throughput)
        print(f"|   grid 1/{k}: {s.status.value}, throughput {float(s.throughput) / t:.6f}, HiGHS's bound "
              f"{s.dual_bound / t:.6f} (gap {s.dual_bound / float(s.throughput) - 1:.2%}), LP relaxation "
              f"{s.relaxation / t:.6f}, {cpu:.1f} s CPU |", flush=True)


def main(fabrics: list[str], kinds: list[str], planned: bool, algorithms: list[str] | None = None,
         grids: bool = False) -> None:
    more = " msccl.plan (us) | its file (us) | | grid, throughput | vs file |" if planned else ""
    print(f"| fabric | size | collective | algorithm | planned (us) | file (us) | file/planned | changes |{more}")
    print("|---|---|---|---|---|---|---|---|" + ("---|---|---|---|---|" if planned else ""))
    start = time.time()
    for f in fabrics:
        g, size = fabric(f), ROUND_TRIP[f]
        for kind in kinds:
            c = collective(kind, g, size)
            for a in registry.applicable(KINDS[kind](["h0", "h1", "h2"], 1.0)):
                if algorithms is not None and a.name not in algorithms:
                    continue
                options = {"chunks": 4} if a.name == "forest" and ":" not in f else {}
                head = f"| {f} | {size} | {kind} | {a.name} |"
                try:
                    schedule = cs.plan(g, c, algorithm=a.name, **options)
                    r = msccl.ready(g, c, schedule)
                except CollschedError as err:
                    print(f"{head} | | | refused: {str(err).split(':')[0]} |", flush=True)
                    continue
                print(f"{head} {r.planned_makespan * 1e6:.3f} | {r.makespan * 1e6:.3f} | "
                      f"{r.makespan / r.planned_makespan:.4f} | {tags(r.changes)} |"
                      f"{planned_columns(g, c, a.name, options, schedule, r) if planned else ''}", flush=True)
                if grids and a.name == "forest":
                    grid_lines(g, c, schedule)
    print(f"{time.time() - start:.0f} s, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("fabrics", nargs="*", help="default: all but mi250:2")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated collectives (default: all six)")
    ap.add_argument("--planned", action="store_true", help="also msccl.plan's planned time and file (see above)")
    ap.add_argument("--algorithms", help="comma-separated algorithms (default: every registered one)")
    ap.add_argument("--grids", action="store_true", help="also, under each forest row, HiGHS's result per grid")
    args = ap.parse_args()
    for given, known in ((args.fabrics, ROUND_TRIP), (args.kinds.split(","), KINDS),
                         (args.algorithms.split(",") if args.algorithms else [], registry.names())):
        bad = next((x for x in given if x not in known), None)
        if bad is not None:
            ap.error(f"{bad!r} is not one of {', '.join(known)}")
    run(main, args.fabrics or [f for f in ROUND_TRIP if f != "mi250:2"], args.kinds.split(","), args.planned,
        args.algorithms and args.algorithms.split(","), args.grids)
