"""OnePort engine speed: a caterpillar all-to-all of N hosts (N = 1,024: 1,047,552 sends).

Prints operations, the time of the Rust event loop alone and its operations
per second (target: >= 5 million), and the time of the whole
``cs.simulate`` call (routes, stage compilation, engine, result).
Run: ``.venv/bin/python benchmarks/bench_simulate_oneport.py [N ...]``.
"""

from __future__ import annotations

import time

import collsched as cs
from collsched import _core
from collsched.simulation.compile import Context
from _cli import parser, run
from programs import caterpillar


def measure(n: int, model) -> dict:
    p = cs.topologies.star(n)
    program = caterpillar(p.hosts, 1e5, sequential=True)
    if n <= 256:  # the same program the planner's caterpillar implements
        cs.validate(p, cs.AllToAll(senders=p.hosts, size=1e5), program)
    table = model._compile(Context(program, p))
    start = time.perf_counter()
    _core.simulate(len(program.ranks), program.op_rank, program.op_kind, program.op_peer, program.op_msg,
                   program.dep_ptr, program.dep_idx, *table.arrays(), table.n_resources, table.capacities, tie="fixed")
    engine = time.perf_counter() - start
    start = time.perf_counter()
    result = cs.simulate(p, program, model=model)
    whole = time.perf_counter() - start
    return dict(ops=program.n_ops, engine=engine, whole=whole, makespan=result.makespan, events=result.events)


def main(sizes: list[int]) -> None:
    print(f"{'N':>6} {'model':<34} {'ops':>10} {'engine s':>9} {'Mops/s':>7} {'simulate s':>11} {'makespan s':>11}")
    for n in sizes:
        for model in (cs.models.OnePort(sync=True), cs.models.OnePort(sync=False)):
            m = measure(n, model)
            print(f"{n:>6} {model!r:<34} {m['ops']:>10} {m['engine']:>9.3f} {m['ops'] / m['engine'] / 1e6:>7.2f} "
                  f"{m['whole']:>11.3f} {m['makespan']:>11.6g}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, default=[256, 1024], help="N (default: %(default)s)")
    run(main, ap.parse_args().sizes)
