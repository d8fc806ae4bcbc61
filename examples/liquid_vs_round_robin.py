"""A liquid schedule against round-robin on a Swiss-T1-like K-ring (seed 001), simulated under Fluid.

Twelve nodes (switches 0, 1 and 2 of the study's 8-switch ring) exchange 5 MB
with each other. The liquid schedule keeps the bottleneck links busy all the
time and reaches the liquid throughput; round-robin ignores the routes and
congests. The Gantt chart shows the liquid schedule, with the utilisation of
the busiest links below (the bottlenecks stay at 100%).

Run: ``.venv/bin/python examples/liquid_vs_round_robin.py [OUTPUT.png]`` (default: liquid-vs-round-robin.png).
"""

import sys
from pathlib import Path

import collsched as cs
from collsched.algorithms.liquid import traffic_of
from collsched.report.gantt import gantt
from collsched.studies.liquid import swiss_t1


def main(out: Path) -> Path:
    platform, config = swiss_t1()
    hosts = [f"h{4 * switch + k}" for switch in (0, 1, 2) for k in range(4)]
    exchange = cs.AllToAll(senders=hosts, size=5e6)
    traffic = traffic_of(platform, exchange)
    liquid_mbps = traffic.liquid_throughput(config["bandwidth"]) / 1e6
    print(f"{len(traffic)} transfers, duration Λ = {traffic.duration}, bottlenecks {', '.join(traffic.bottleneck_names)}")
    print(f"liquid throughput: {liquid_mbps:.1f} MB/s")
    results = {}
    for name in ("liquid", "round_robin", "random_steps"):
        schedule = cs.plan(platform, exchange, algorithm=name, seed=1)
        cs.validate(platform, exchange, schedule)
        result = cs.simulate(platform, schedule, model=cs.models.Fluid())
        results[name] = result
        mbps = exchange.total_bytes / result.makespan / 1e6
        print(f"{name:12} {len(schedule):3} steps  makespan {result.makespan:.3f} s  {mbps:6.1f} MB/s "
              f"({mbps / liquid_mbps:.0%} of liquid)")
    return gantt(results["liquid"], out, platform=platform, ranks=hosts, max_links=4,
                 title=f"liquid all-to-all of 5 MB, 12 nodes of a Swiss-T1-like ring (Fluid), "
                       f"makespan {results['liquid'].makespan:.2f} s")


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("liquid-vs-round-robin.png")))
