"""Seed 004's orderings of an all-to-all under send/receive overheads, against the open-shop bound.

Twenty workstations whose sending and receiving overheads are drawn from
{1, 5, 10} (seed 004, section 5), a network latency of 1, messages whose
size costs nothing. Every ordering algorithm (and the caterpillar) is
planned, validated and simulated under the synchronous and the asynchronous
one-port model with random tie-breaking, each sender sending in its order
(step schedules are lowered with ``sync="post_all"``, as the study does), and
compared with the open-shop bound of each model. Synchronously the order
matters (a sender that picks a busy receiver waits); asynchronously it
hardly does. The picture shows both, bound as dashed lines.

Run: ``.venv/bin/python examples/orderings_overheads.py [OUTPUT.png]`` (default: orderings-overheads.png).
"""

import sys
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import collsched as cs
from collsched.algorithms.orderings import overhead_platform
from collsched.bounds import exchange_bound

ALGORITHMS = ("caterpillar", "random", "rspb", "orspb", "matching", "greedy", "open_shop")
MODELS = {"synchronous": cs.models.OnePort(sync=True, cost="overheads", ties="random"),
          "asynchronous": cs.models.OnePort(sync=False, cost="overheads", ties="random")}


def main(out: Path) -> Path:
    overheads = np.random.default_rng(4).choice([1.0, 5.0, 10.0], size=20)
    platform = overhead_platform(overheads, latency=1.0)
    exchange = cs.AllToAll(senders=platform.hosts, size=1)
    makespans = {label: [] for label in MODELS}
    bounds = {label: exchange_bound(platform, exchange, model=m).value for label, m in MODELS.items()}
    for name in ALGORITHMS:
        schedule = cs.plan(platform, exchange, algorithm=name, seed=1)
        cs.validate(platform, exchange, schedule)
        program = schedule.lower(platform, exchange, sync="post_all") if schedule.shape == "steps" \
            else schedule.lower(platform, exchange)
        line = f"{name:12}"
        for label, model in MODELS.items():
            makespan = cs.simulate(platform, program, model=model, seed=1).makespan
            makespans[label].append(makespan)
            line += f"  {label} makespan {makespan:4.0f} (gap {makespan / bounds[label] - 1:5.1%})"
        print(line)
    print("open-shop bounds: " + ", ".join(f"{label} {value:.0f}" for label, value in bounds.items()))
    return _draw(makespans, bounds, out)


def _draw(makespans: dict, bounds: dict, out: Path) -> Path:
    fig = Figure(figsize=(9, 4.5), dpi=150)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x = np.arange(len(ALGORITHMS))
    for k, (label, colour) in enumerate(zip(MODELS, ("#3b75af", "#ef8636"))):
        ax.bar(x + (k - 0.5) * 0.38, makespans[label], width=0.38, color=colour, label=label)
        ax.axhline(bounds[label], color=colour, linestyle="--", linewidth=1.2, label=f"{label} open-shop bound")
    ax.set_xticks(x, ALGORITHMS)
    ax.set_ylabel("makespan (time units)")
    ax.set_title("all-to-all of 20 nodes, overheads 1/5/10, latency 1 (seed 004's model)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out)
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("orderings-overheads.png")))
