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
    """One planned schedule of the demo.

    Attributes
    ----------
    collective : str
        Label of the collective (a key of :func:`demo_collectives`).
    algorithm : str
        Registered name of the algorithm that planned it.
    shape : str
        The schedule's shape (``"tree"``, ``"steps"``, ...).
    messages : int
        Messages that carry data (not barrier or ready signals).
    megabytes : float
        Bytes sent by the program, in MB (10^6 bytes), signals included (they weigh 0).
    operations : int
        Operations of the lowered program.
    valid : bool
        Whether the symbolic validator accepted the program.
    detail : str
        ``"validated"``, or the validator's message.
    milliseconds : float
        Wall time to plan, lower and validate (varies from run to run).

    Examples
    --------
    >>> row = next(r for r in demo_rows() if (r.collective, r.algorithm) == ("broadcast", "linear"))
    >>> row.shape, row.messages, row.megabytes, row.valid
    ('tree', 15, 150.0, True)
    """

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
    """The demo's platform: a Tiers-like WAN/MAN/LAN network (see :func:`collsched.topologies.tiers`).

    Parameters
    ----------
    seed : int
        Seed of the random bandwidths, latencies, speeds and redundancy links.

    Returns
    -------
    Platform
        Named ``"demo-tiers"``: 16 hosts ``h0 .. h15`` on four LANs, 14
        routers, latency-shortest-path routing.

    Examples
    --------
    >>> p = demo_platform(seed=1)
    >>> p.name, len(p.hosts), len(p.routers)
    ('demo-tiers', 16, 14)
    >>> demo_platform(seed=1) == p
    True
    """
    return topologies.tiers(seed=seed, name="demo-tiers")


def demo_collectives(platform) -> dict[str, object]:
    """The collectives the demo plans, by label.

    Parameters
    ----------
    platform : Platform
        The collectives involve all its hosts; ``hosts[0]`` is the root
        (the last host is the target of the reduce series).

    Returns
    -------
    dict of str to Collective
        Labels ``"reduce"``, ``"reduce x4"`` (a series of 4), ``"broadcast"``,
        ``"scatter"``, ``"gather"`` and ``"alltoall"``.

    Examples
    --------
    >>> from collsched import topologies
    >>> coll = demo_collectives(topologies.star(3))
    >>> list(coll)
    ['reduce', 'reduce x4', 'broadcast', 'scatter', 'gather', 'alltoall']
    >>> coll["reduce x4"].count, coll["reduce x4"].base.target
    (4, 'h2')
    >>> coll["scatter"].total_bytes
    2000000.0
    """
    hosts = platform.hosts
    return {
        "reduce": Reduce(participants=hosts, target=hosts[0], size=1e7, task_cost=1e7),
        "reduce x4": Series(Reduce(participants=hosts, target=hosts[-1], size=1e6, task_cost=1e6), count=4),
        "broadcast": Broadcast(source=hosts[0], targets=hosts, size=1e7),
        "scatter": Scatter(source=hosts[0], targets=hosts, size=1e6),
        "gather": Gather(sources=hosts, target=hosts[0], size=1e6),
        "alltoall": AllToAll(senders=hosts, size=1e5),
    }


def demo_rows(seed: int = 1, *, families: tuple[str, ...] = ("baselines",)) -> list[DemoRow]:
    """Plan, lower and validate every applicable algorithm of ``families`` for every demo collective.

    Parameters
    ----------
    seed : int
        Seed of the platform (:func:`demo_platform`) and of the algorithms.
    families : tuple of str
        Algorithm families to run (default: the MPI-library baselines; the
        planner that compares every family by simulation is issue 9's).

    Returns
    -------
    list of DemoRow
        One row per (collective, applicable algorithm), collectives in the
        order of :func:`demo_collectives`, algorithms by name. A program the
        validator rejects gives a row with ``valid=False`` rather than an error.

    Examples
    --------
    >>> rows = demo_rows(seed=1)
    >>> [(r.collective, r.algorithm) for r in rows[:3]]
    [('reduce', 'binomial'), ('reduce', 'linear'), ('reduce x4', 'binomial')]
    >>> [(r.messages, r.megabytes) for r in rows if r.collective == "scatter"]
    [(15, 32.0), (15, 15.0)]
    """
    platform = demo_platform(seed)
    rows = []
    for label, collective in demo_collectives(platform).items():
        for algo in (a for a in registry.applicable(collective) if a.family in families):
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
