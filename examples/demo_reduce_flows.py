"""The demo's reduce: every applicable algorithm compared, the best one's flows drawn on the platform.

As seed 000's Figure 10 maps a schedule onto its Tiers platform: links are as
wide as their bandwidth and coloured by how busy the chosen schedule keeps
them; the busiest link is outlined.

Run: ``.venv/bin/python examples/demo_reduce_flows.py [OUTPUT.png]`` (default: docs/img/demo-reduce-flows.png).
"""

import sys
from pathlib import Path

import collsched as cs
from collsched.compare import compare
from collsched.demo import demo_collectives, demo_platform
from collsched.report.platform_flows import busiest_link, platform_flows


def main(out: Path) -> Path:
    p = demo_platform()
    cmp = compare(p, demo_collectives(p)["reduce"], model=cs.models.OnePort(sync=True))
    best = cmp.best
    print(f"{best.algorithm} reduce on {p.name}: makespan {best.achieved:.4f} s, bound {float(cmp.bound.value):.4f} s,"
          f" busiest link {busiest_link(best.result)}")
    return platform_flows(p, best.result, out, schedule=best.schedule)


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent.parent / "docs/img/demo-reduce-flows.png"))
