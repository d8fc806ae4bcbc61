"""A sparse all-to-many exchange on a hypercube, decomposed into partial permutations (seed 002), under Circuit.

Every one of 32 hosts of a 5-cube (iPSC/860-like links: 2.8 MB/s, 150 us per
hop, e-cube routing) sends 32 KB to 6 random others. Each algorithm of the
permutations family splits the exchange into phases; each is run with the
execution scheme the paper reports for it (S1: a ready signal per transfer;
S2: every receive posted, every send at once), simulated under the Circuit
model (a transfer holds every link of its route), and compared with the
bound (the most loaded link direction). The Gantt chart shows RS_NL.

Run: ``.venv/bin/python examples/permutations_hypercube.py [OUTPUT.png]`` (default: permutations-hypercube.png).
"""

import sys
from pathlib import Path

import collsched as cs
from collsched.algorithms.permutations import ALGORITHMS
from collsched.algorithms.permutations.paper import SCHEME
from collsched.algorithms.permutations.samples import random_com, to_alltomany
from collsched.report.gantt import gantt

NAMES = {"post_all": "S2", "ready": "S1"}


def main(out: Path) -> Path:
    platform = cs.topologies.hypercube(5, bandwidth=2.8e6, latency=1.5e-4)
    exchange = to_alltomany(random_com(32, 6, seed=1), platform.hosts, unit=32 * 1024)
    model = cs.models.Circuit()
    drawn = None
    for name in ALGORITHMS:
        schedule = cs.plan(platform, exchange, algorithm=name, seed=1)
        program = schedule.lower(platform, exchange, sync=SCHEME[name])
        cs.validate(platform, exchange, program)
        result = cs.simulate(platform, program, model=model)
        phases = f"{'at once':>10}" if name == "ac" else f"{len(schedule):3} phases"   # AC does not schedule
        print(f"{name:8} {NAMES[SCHEME[name]]}  {phases} (d = {schedule.params['max_degree']})  "
              f"makespan {result.makespan * 1e3:7.1f} ms  gap to bound {schedule.bound.gap(result.makespan):5.2f}")
        if name == "rs_nl":
            drawn = result
    print(f"bound: {schedule.bound.value * 1e3:.1f} ms ({schedule.bound.name})")
    return gantt(drawn, out, platform=platform, max_links=4,
                 title=f"RS_NL on a 5-cube, 6 messages of 32 KB per host (Circuit, S2), "
                       f"makespan {drawn.makespan * 1e3:.0f} ms")


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("permutations-hypercube.png")))
