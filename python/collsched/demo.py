"""The built-in demo: a Tiers-like heterogeneous platform and the baselines on it.

For each collective of the demo, every applicable registered algorithm is
planned, lowered to a program and checked by the symbolic validator; the
rows say what each schedule moves and how long planning and checking took.

Examples
--------
>>> rows = demo_rows(seed=1)
>>> {r.collective for r in rows} >= {"reduce", "broadcast", "scatter", "gather", "alltoall"}
True
>>> all(r.valid for r in rows)
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from . import topologies
from .algorithms import registry
from .collectives import AllToAll, Broadcast, Gather, Reduce, Scatter, Series
from .errors import ValidationError
from .schedules.validate import lower_any, validate

__all__ = ["DemoRow", "demo_platform", "demo_collectives", "demo_rows"]


@dataclass(frozen=True)
class DemoRow:
    """One planned schedule of the demo."""

    collective: str
    algorithm: str
    shape: str
    messages: int  # messages that carry data (not barrier or ready signals)
    megabytes: float
    operations: int
    valid: bool
    detail: str
    milliseconds: float


def demo_platform(seed: int = 1):
    """The demo's platform: a Tiers-like WAN/MAN/LAN network (see :func:`collsched.topologies.tiers`)."""
    return topologies.tiers(seed=seed, name="demo-tiers")


def demo_collectives(platform) -> dict[str, object]:
    """The collectives the demo plans, by label."""
    hosts = platform.hosts
    return {
        "reduce": Reduce(participants=hosts, target=hosts[0], size=1e7, task_cost=1e7),
        "reduce x4": Series(Reduce(participants=hosts, target=hosts[-1], size=1e6, task_cost=1e6), count=4),
        "broadcast": Broadcast(source=hosts[0], targets=hosts, size=1e7),
        "scatter": Scatter(source=hosts[0], targets=hosts, size=1e6),
        "gather": Gather(sources=hosts, target=hosts[0], size=1e6),
        "alltoall": AllToAll(senders=hosts, size=1e5),
    }


def demo_rows(seed: int = 1) -> list[DemoRow]:
    """Plan, lower and validate every applicable algorithm for every demo collective."""
    platform = demo_platform(seed)
    rows = []
    for label, collective in demo_collectives(platform).items():
        for algo in registry.applicable(collective):
            start = time.perf_counter()
            schedule = algo.function(platform, collective, seed=seed)
            program = lower_any(platform, collective, schedule)
            try:
                validate(platform, collective, program)
                valid, detail = True, "validated"
            except ValidationError as exc:
                valid, detail = False, str(exc)
            elapsed = (time.perf_counter() - start) * 1e3
            rows.append(DemoRow(label, algo.name, schedule.shape, program.n_data_messages, program.bytes_sent / 1e6,
                                program.n_ops, valid, detail, elapsed))
    return rows
