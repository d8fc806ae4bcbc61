"""Hierarchical broadcast on a grid: logical clusters, an intra model per cluster, an inter-cluster heuristic.

Seed 003's framework, end to end, for a :class:`~collsched.collectives.Broadcast`:

1. the logical clusters: given, the platform's own, or found by
   :func:`~collsched.platform.clustering.lowekamp` on its latency matrix;
2. their pLogP parameters (:class:`~.params.GridParams`, given or read off
   the platform's matrix view);
3. per cluster, the fastest model of Table 1 and its segment count
   (:func:`~.intra.choose`), whose predicted time is ``T_k``;
4. the inter-cluster tree of the heuristic (:mod:`.inter`);
5. one hierarchical :class:`~collsched.schedules.TreeSchedule` (fields
   ``clusters`` and ``intra``), with a :class:`~collsched.schedules.Bound`:
   the exhaustive optimum over inter-cluster trees for up to ``exhaustive``
   clusters, else the shortest-path arrival bound ``max_k (d_k + T_k)``.

The coordinator of the source's cluster is the source; of every other
cluster, its first host (its representative).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.grid_of_clusters([3, 2, 2], seed=1)
>>> c = cs.Broadcast(source="h3", targets=p.hosts, size=1e6)
>>> s = cs.plan(p, c, algorithm="ecef")
>>> s.root, s.clusters[1], dict(s.intra)["h3"]
('h3', ('h3', 'h4'), 'flat:1')
>>> cs.validate(p, c, s)
>>> s.bound.name
'exhaustive optimum over inter-cluster trees (pLogP model)'
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...errors import CollschedError
from ...platform.clustering import logical_clusters
from ...schedules import Bound, Status, TreeSchedule
from ..registry import register
from . import inter
from .intra import CHOICE, children, choose
from .params import GridParams

__all__ = ["hierarchical_broadcast", "flat_tree", "fef", "ecef", "ecef_la", "ecef_lat", "ecef_lat_max"]


def _clusters(platform, collective, clusters, params, rho) -> tuple[tuple[str, ...], ...]:
    if params is not None:
        groups = params.clusters
    elif clusters is not None:
        groups = tuple(tuple(c) for c in clusters)
    else:
        groups = platform.clusters or logical_clusters(platform, rho=rho)
    wanted = set(collective.hosts)
    known = {h for g in groups for h in g}
    missing = [h for h in collective.base.hosts if h not in known]
    if missing:
        raise CollschedError(f"host {missing[0]!r} of the broadcast is in no cluster",
                             fix="give clusters that cover every host")
    return tuple(tuple(h for h in g if h in wanted) for g in groups if any(h in wanted for h in g))


def hierarchical_broadcast(platform, collective, heuristic: str, *, clusters: Sequence[Sequence[str]] | None = None,
                           params: GridParams | None = None, rho: float = 0.3, models: Sequence[str] = CHOICE,
                           max_segments: int = 64, exhaustive: int = 7) -> TreeSchedule:
    """Plan a hierarchical broadcast with the inter-cluster heuristic ``heuristic``.

    Parameters
    ----------
    platform : Platform
    collective : Broadcast
        A single broadcast.
    heuristic : str
        One of :data:`.inter.HEURISTICS`.
    clusters : sequence of sequences of str, optional
        The logical clusters; default: ``params.clusters``, else the
        platform's, else :func:`~collsched.platform.clustering.logical_clusters`.
    params : GridParams, optional
        Measured pLogP parameters; default: read off the platform.
    rho : float
        Clustering tolerance rate, when clusters are found.
    models : sequence of str
        Intra-cluster models to choose from.
    max_segments : int
        Largest segment count the intra search tries.
    exhaustive : int
        Up to this many clusters, the exhaustive optimum is the bound (and the status is
        OPTIMAL when the heuristic reaches it).

    Returns
    -------
    TreeSchedule
        Hierarchical (``clusters``, ``intra``); ``params`` records the
        heuristic, the predicted makespan (``predicted``) and the intra
        times ``T``.

    Raises
    ------
    CollschedError
        If a host of the broadcast is in no cluster.
    ValueError
        If an option is bad.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.grid_of_clusters([2, 2, 2, 2], seed=4)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    >>> s = hierarchical_broadcast(p, c, "flat_tree")
    >>> s.children["h0"][:3], s.bound.gap(s.params["predicted"]) >= 0
    (('h2', 'h4', 'h6'), True)
    """
    if heuristic not in inter.HEURISTICS:
        raise ValueError(f"hierarchical option heuristic={heuristic!r} is not one of {inter.HEURISTICS}")
    if isinstance(exhaustive, bool) or not isinstance(exhaustive, int) or exhaustive < 0:
        raise ValueError(f"hierarchical option exhaustive={exhaustive!r} is not an integer >= 0")
    base = collective.base
    if collective.kind != "broadcast":
        raise CollschedError(f"hierarchical heuristics plan a single broadcast, not a {collective.kind}")
    groups = _clusters(platform, collective, clusters, params, rho)
    # step 1: coordinators (the source in its cluster, else the representative), the source's cluster first
    src = next(k for k, g in enumerate(groups) if base.source in g)
    groups = tuple((base.source,) + tuple(h for h in g if h != base.source) if k == src else g
                   for k, g in enumerate(groups))
    perm = [src] + [k for k in range(len(groups)) if k != src]
    # step 2: pLogP parameters
    gp = params if params is not None else GridParams.from_platform(platform, groups)
    where = {h: k for k, c in enumerate(gp.clusters) for h in c}
    pk = [where[g[0]] for g in groups]            # our cluster k is cluster pk[k] of the parameters
    # step 3: the fastest intra model of each cluster
    choices = [choose(len(g), base.size, gp.intra[pk[k]], models=models, max_segments=max_segments)
               for k, g in enumerate(groups)]
    # step 4: the inter-cluster schedule, cluster perm[0] = the source's as root
    L, g = gp.matrices(base.size)
    idx = np.array([pk[k] for k in perm])
    L, g = L[np.ix_(idx, idx)][None], g[np.ix_(idx, idx)][None]
    T = np.array([[choices[k].time for k in perm]])
    senders, receivers = inter.schedule(heuristic, L, g, T)
    predicted = float(inter.completion(L, g, T, senders, receivers)[0])
    # step 5: the bound
    if len(groups) <= exhaustive:
        value = min(predicted, inter.optimum(L[0], g[0], T[0], incumbent=predicted * (1 + 1e-12))[0])
        bound = Bound(value, "makespan", "exhaustive optimum over inter-cluster trees (pLogP model)")
        status = Status.OPTIMAL if predicted <= value * (1 + 1e-9) else Status.FEASIBLE
    else:
        bound = Bound(float(inter.arrival_bound(L, g, T)[0]), "makespan",
                      "max over clusters of shortest inter-cluster arrival + intra time (pLogP model)")
        status = Status.FEASIBLE
    # step 6: one tree: coordinators' inter children first, in round order, then the cluster's tree
    kids: dict[str, list[str]] = {}
    for i, j in zip(senders[0], receivers[0]):
        kids.setdefault(groups[perm[i]][0], []).append(groups[perm[j]][0])
    for k, grp in enumerate(groups):
        for r, cs in children(choices[k].algorithm, len(grp)).items():
            kids.setdefault(grp[r], []).extend(grp[c] for c in cs)
    return TreeSchedule(root=base.source, children={u: tuple(v) for u, v in kids.items()}, clusters=groups,
                        intra={grp[0]: choices[k].spec for k, grp in enumerate(groups)}, algorithm=heuristic,
                        params={"heuristic": heuristic, "predicted": predicted,
                                "T": [ch.time for ch in choices]},
                        bound=bound, status=status,
                        message=f"predicted makespan {predicted:.6g} s under pLogP; {len(groups)} clusters")


def _registered(name: str, summary: str):
    def plan(platform, collective, *, seed: int = 0, clusters=None, params=None, rho: float = 0.3,
             models: Sequence[str] = CHOICE, max_segments: int = 64, exhaustive: int = 7) -> TreeSchedule:
        return hierarchical_broadcast(platform, collective, name, clusters=clusters, params=params, rho=rho,
                                      models=models, max_segments=max_segments, exhaustive=exhaustive)

    plan.__name__ = plan.__qualname__ = name
    plan.__doc__ = f"""{summary}

    Seed 003, section 5.2: see :mod:`collsched.algorithms.hierarchical.inter`;
    the options are those of :func:`hierarchical_broadcast` (``seed`` is unused).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.grid_of_clusters([2, 3, 1], seed=2)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e5)
    >>> cs.validate(p, c, cs.plan(p, c, algorithm="{name}"))
    """
    return register(name, family="hierarchical", kinds=("broadcast",), series=False, summary=summary)(plan)


flat_tree = _registered("flat_tree", "grid broadcast: the root's cluster serves every cluster in turn (baseline)")
fef = _registered("fef", "grid broadcast: Fastest Edge First between clusters (Bhat et al.)")
ecef = _registered("ecef", "grid broadcast: Early Completion Edge First between clusters")
ecef_la = _registered("ecef_la", "grid broadcast: ECEF with look-ahead (min next transfer)")
ecef_lat = _registered("ecef_lat", "grid broadcast: ECEF-LAt, look-ahead with intra-cluster times (min)")
ecef_lat_max = _registered("ecef_lat_max", "grid broadcast: ECEF-LAT, look-ahead with intra-cluster times (max)")
