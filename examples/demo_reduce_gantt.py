"""The demo's reduce, planned with MPICH's binomial tree, simulated under OnePort, drawn as a Gantt chart.

Run: ``.venv/bin/python examples/demo_reduce_gantt.py [OUTPUT.png]`` (default: docs/img/demo-reduce-gantt.png).
"""

import sys
from pathlib import Path

import collsched as cs
from collsched.demo import demo_collectives, demo_platform
from collsched.report.gantt import gantt


def main(out: Path) -> Path:
    p = demo_platform()
    reduce = demo_collectives(p)["reduce"]
    schedule = cs.plan(p, reduce, algorithm="binomial")
    cs.validate(p, reduce, schedule)
    result = cs.simulate(p, schedule, model=cs.models.OnePort(sync=True))
    print(f"binomial reduce on {p.name}: makespan {result.makespan:.4f} s, {result.events} events")
    return gantt(result, out, platform=p, title=f"binomial reduce of 10 MB over {len(p.hosts)} hosts (OnePort)")


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "docs/img/demo-reduce-gantt.png"))
