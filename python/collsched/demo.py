"""The built-in demo: every algorithm compared on a Tiers-like heterogeneous platform, with an HTML report.

:func:`demo` plans, validates and simulates every applicable algorithm
(:func:`collsched.compare.compare`) for a series of reduces, a series of
scatters, an all-to-all and a broadcast across the platform's LANs (a grid
broadcast), each under the model its family was designed for
(:data:`DEMO_MODELS`), and ranks them against a bound valid under that
model. The grid broadcast runs on a grid of clusters (:func:`demo_grid`),
the others on the Tiers-like platform (:func:`demo_platform`). ``collsched demo`` prints the tables and writes the report.

Examples
--------
>>> sections = demo(seed=1, quick=True)
>>> [s.label for s in sections]
['reduce series', 'scatter series', 'alltoall', 'grid broadcast']
>>> all(s.comparison.best.valid for s in sections)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import topologies
from .algorithms import registry
from .collectives import AllToAll, Broadcast, Reduce, Scatter, Series
from .compare import Comparison, compare
from .simulation import models

__all__ = ["DemoSection", "DEMO_MODELS", "DEMO_SECTIONS", "demo_platform", "demo_grid", "demo_collectives", "demo"]

#: The model each demo collective is compared under: the steady-state LPs describe one-port store-and-forward
#: (``OnePort(cost="edges")``); exchanges and broadcasts share links (``Fluid``, SimGrid's model).
DEMO_MODELS = {"reduce": models.OnePort(), "reduce series": models.OnePort(cost="edges"),
               "scatter series": models.OnePort(cost="edges"), "alltoall": models.Fluid(),
               "grid broadcast": models.Fluid()}

#: The comparisons :func:`demo` runs, in order, each with the platform it runs on.
DEMO_SECTIONS = {"reduce series": "tiers", "scatter series": "tiers", "alltoall": "tiers", "grid broadcast": "grid"}


@dataclass(frozen=True)
class DemoSection:
    """One comparison of the demo.

    Examples
    --------
    >>> DemoSection("x", None).label
    'x'
    """

    label: str
    comparison: Comparison


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


def demo_collectives(platform, *, count: int = 400) -> dict[str, object]:
    """The collectives the demo compares, by label (the keys of :data:`DEMO_MODELS`).

    Parameters
    ----------
    platform : Platform
        The collectives involve all its hosts; ``hosts[0]`` is the root
        (the last host is the target of the reduce series).
    count : int
        Operations of each series.

    Returns
    -------
    dict of str to Collective
        ``"reduce"`` (10 MB, one instance), ``"reduce series"``, ``"scatter series"``
        (1 MB blocks), ``"alltoall"`` (100 kB blocks) and ``"grid broadcast"`` (10 MB).

    Examples
    --------
    >>> from collsched import topologies
    >>> coll = demo_collectives(topologies.star(3), count=4)
    >>> list(coll)
    ['reduce', 'reduce series', 'scatter series', 'alltoall', 'grid broadcast']
    >>> coll["reduce series"].count, coll["reduce series"].base.target
    (4, 'h2')
    """
    hosts = platform.hosts
    return {
        "reduce": Reduce(participants=hosts, target=hosts[0], size=1e7, task_cost=1e7),
        "reduce series": Series(Reduce(participants=hosts, target=hosts[-1], size=1e6, task_cost=1e6), count=count),
        "scatter series": Series(Scatter(source=hosts[0], targets=hosts, size=1e6), count=count),
        "alltoall": AllToAll(senders=hosts, size=1e5),
        "grid broadcast": Broadcast(source=hosts[0], targets=hosts, size=1e7),
    }


def demo_grid(seed: int = 1):
    """The grid of the demo's broadcast: 32 hosts in 8 homogeneous clusters of 2 to 6, a WAN link per pair.

    Inter-cluster latencies of 1 to 15 ms and bandwidths of 1 to 100 MB/s,
    as in seed 003's simulations (:func:`collsched.topologies.grid_of_clusters`).

    Examples
    --------
    >>> g = demo_grid()
    >>> g.name, len(g.hosts), len(g.clusters)
    ('demo-grid', 32, 8)
    """
    return topologies.grid_of_clusters([6, 3, 5, 2, 4, 6, 2, 4], seed=seed, name="demo-grid")


def demo(seed: int = 1, *, quick: bool = False, progress: Callable[[str, str], None] | None = None) -> list[DemoSection]:
    """Compare every applicable algorithm for each collective of :data:`DEMO_SECTIONS`, on its platform.

    Parameters
    ----------
    seed : int
        Seed of the platform (:func:`demo_platform`) and of the algorithms.
    quick : bool
        Series of 8 operations instead of 400 (for tests).
    progress : callable, optional
        ``progress(label, algorithm)`` before each algorithm is planned
        (label: the section's).

    Returns
    -------
    list of DemoSection
        Reduce series, scatter series, all-to-all (on :func:`demo_platform`)
        and grid broadcast (on :func:`demo_grid`), in that order.

    Examples
    --------
    >>> s = demo(quick=True)[0]
    >>> s.comparison.metric, s.comparison.bound.name
    ('throughput', 'steady-state LP optimum (one-port, graph view)')
    """
    platforms = {"tiers": demo_platform(seed), "grid": demo_grid(seed)}
    count = 8 if quick else 400
    sections = []
    for label, where in DEMO_SECTIONS.items():
        platform = platforms[where]
        collective = demo_collectives(platform, count=count)[label]
        step = None
        if progress is not None:
            names = [a.name for a in registry.applicable(collective)]

            def step(done, total, name, label=label, names=names):
                if done < total:   # compare reports what finished: name the one that starts next
                    progress(label, names[done])

        sections.append(DemoSection(label, compare(platform, collective, model=DEMO_MODELS[label], seed=seed,
                                                   progress=step)))
    return sections
