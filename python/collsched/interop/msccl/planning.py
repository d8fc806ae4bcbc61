"""Planning in MSCCL's execution model: a schedule whose planned time is the exported file's, exactly.

:func:`~collsched.interop.msccl.ready.ready` makes a schedule fit the runtime
after it was planned (a forest's shares rounded, signals dropped, messages
merged, cut or serialised), so the file's time differs from the plan's.
:func:`plan` plans within the runtime's model instead, so that nothing has to
change:

* **The forest** (step 1) is planned as usual (its trees and their LP rate,
  :func:`collsched.plan`); (step 2) for each grid ``1/K`` of
  :data:`~collsched.interop.msccl.fit.GRIDS`, finest first, its tree shares
  are put on the grid by :func:`grid_shares`: the integer units ``u_j`` (a
  root's add up to ``K``) that give the trees the highest throughput

  .. math:: T_K = \\max_u \\min_\\ell \\frac{K\\, b_\\ell}{\\sum_j u_j L_{j\\ell}},

  ``b_ℓ`` the bandwidth of link direction ``ℓ`` and ``L_jℓ`` the times tree
  ``j`` crosses it (its up-tree too, for an all-reduce: the loads the
  planner's rate counts, :func:`~collsched.algorithms.gpu.lower_shallow.link_loads`),
  a mixed-integer program that HiGHS solves (``T_K`` is then recomputed
  exactly from the units; the LP relaxation and HiGHS's dual bound bound
  it from above, and so does the forest's ``rate_bound``); (step 3) the forest on
  that grid, in its chunks (or, when the planner chose them, fewer of
  :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES`), is exported as
  it is (``msccl.ready(..., exact=True)``) and kept if the export changes
  nothing: its chunks whole bytes within 65,536 per loop, its messages
  within 71 chunks, packed into thread blocks without merging or
  serialising, and each thread block's order adding no time. Then the
  schedule's planned time (its Program under ``Fluid``) *is* the file's.
* **A baseline** (ring, recursive doubling, ...) is lowered for MSCCL
  without its messages without data (the runtime has none, and its
  connections order what they carried:
  :func:`~collsched.interop.msccl.threadblocks.drop_signals`), and that
  Program is what is planned and exported: its time is the file's
  wherever the export changes nothing else (every baseline of
  ``tests/interop/test_msccl_roundtrip.py``).

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.star(3)
>>> c = cs.AllGather(participants=g.hosts, size=2**20)
>>> p = plan(g, c, algorithm="ring")
>>> p.ready.changes, p.ready.makespan == p.ready.planned_makespan
((), True)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...errors import CollschedError
from ...schedules import ForestSchedule
from ...schedules.base import Status
from ...schedules.forest import ForestTree
from .fit import GRIDS
from .lint import LimitError
from .ready import Ready, ready
from .threadblocks import drop_signals

__all__ = ["GridShares", "Planned", "grid_shares", "plan", "NODE_LIMIT"]

NODE_LIMIT = 2000
"""Branch-and-bound nodes HiGHS may explore per grid (:func:`grid_shares`): a node limit, not a time limit, so that
the result is the same on any machine; past it the best units found are taken, status LIMIT."""


@dataclass(frozen=True)
class GridShares:
    """A forest's tree shares on the grid ``1/k`` with the highest throughput (:func:`grid_shares`).

    Attributes
    ----------
    k : int
    schedule : ForestSchedule
        The trees with ``units[j] > 0``, weight ``units[j] / k · throughput``.
    units : tuple of int
        Per tree of the forest given, its share in ``1/k``.
    throughput : Fraction
        Exact: ``min_ℓ k b_ℓ / Σ_j units[j] L_jℓ``.
    relaxation : float
        The LP relaxation's throughput (shares free): no grid does better.
    dual_bound : float
        HiGHS's bound on the grid's best throughput (= ``throughput`` when OPTIMAL, to its tolerance).
    status : Status
        OPTIMAL, or LIMIT when :data:`NODE_LIMIT` stopped the search.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> s = grid_shares(g, cs.plan(g, c, algorithm="forest"), 4)
    >>> s.k, s.units, s.throughput == s.schedule.throughput, s.status.value
    (4, (4, 4, 4), True, 'optimal')
    """

    k: int
    schedule: ForestSchedule
    units: tuple
    throughput: Fraction
    relaxation: float
    dual_bound: float
    status: Status


def _tree_loads(platform, forest: ForestSchedule) -> list[dict]:
    """Per tree, the times it crosses each link direction (its up-tree too, for an all-reduce)."""
    from ...algorithms.gpu.lower_shallow import link_loads

    both = forest.kind == "allreduce"
    return [link_loads(platform, [(u, v, Fraction(1)) for u, v in t.arcs + (t.up_arcs if both else ())])
            for t in forest.trees]


def grid_shares(platform, forest: ForestSchedule, k: int, *, node_limit: int = NODE_LIMIT) -> GridShares:
    """The forest's trees with shares on the grid ``1/k`` that carry the highest throughput (module docstring).

    Parameters
    ----------
    platform : Platform
        The forest's.
    forest : ForestSchedule
    k : int
        The grid, >= 1.
    node_limit : int
        HiGHS's branch-and-bound nodes (:data:`NODE_LIMIT`).

    Returns
    -------
    GridShares

    Raises
    ------
    CollschedError
        ``k`` not an integer >= 1, or HiGHS finds no units (it always should: one tree per root carrying ``k`` is
        feasible).

    Notes
    -----
    Variables ``u_j`` (integers in ``0..k``) and ``z``; minimise ``z`` subject to ``Σ_j u_j L_jℓ / b_ℓ <= z`` for
    every link direction ``ℓ`` and ``Σ_{j of root r} u_j = k`` for every root: ``T_K = k / z``. Rows are scaled by
    the largest bandwidth. The throughput is recomputed in exact arithmetic from the integer units.

    Examples
    --------
    On a 3-host star (125 MB/s links), ``h0``'s first tree leaves ``h0`` twice. Its shares 1/3, 2/3 carry
    ``T = 125e6 · 3/7`` bytes/s; rounded to 1/2 each (:func:`~collsched.interop.msccl.fit.round_shares`) they claim
    ``T · 8/9``; the best units on the grid of 1/2 put all of ``h0``'s block on its second tree and carry 62.5 MB/s,
    the LP relaxation's rate (``T · 7/6``).

    >>> import collsched as cs
    >>> from collsched.interop.msccl import round_shares
    >>> g = cs.topologies.star(3)
    >>> T = Fraction(125 * 10**6 * 3, 7)
    >>> t = [ForestTree("h0", T / 3, [("h0", "h2"), ("h0", "h1")]),
    ...      ForestTree("h0", 2 * T / 3, [("h0", "h1"), ("h1", "h2")]),
    ...      ForestTree("h1", T, [("h1", "h0"), ("h0", "h2")]), ForestTree("h2", T, [("h2", "h0"), ("h2", "h1")])]
    >>> f = ForestSchedule(participants=("h0", "h1", "h2"), trees=t, throughput=T, rate_bound=2 * T)
    >>> r = grid_shares(g, f, 2)
    >>> r.units, r.status.value, r.throughput, r.relaxation
    ((0, 2, 2, 2), 'optimal', Fraction(62500000, 1), 62500000.0)
    >>> round_shares(f, 2).throughput == T * Fraction(8, 9), r.throughput == T * Fraction(7, 6)
    (True, True)
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise CollschedError(f"grid {k!r}", fix="give an integer >= 1")
    loads = _tree_loads(platform, forest)
    links = sorted({x for tree in loads for x in tree})
    bandwidth = {x: Fraction(platform.links[x[0]].bandwidth) for x in links}
    top = max(bandwidth.values())
    n = len(forest.trees)
    rows, cols, vals = [], [], []
    for i, x in enumerate(links):   # step 1: every link direction's load over its bandwidth, <= z
        for j, tree in enumerate(loads):
            if x in tree:
                rows.append(i), cols.append(j), vals.append(float(tree[x] * top / bandwidth[x]))
        rows.append(i), cols.append(n), vals.append(-1.0)
    roots = list(forest.participants)
    per_root = np.zeros((len(roots), n + 1))
    for j, t in enumerate(forest.trees):   # step 2: a root's units add up to k
        per_root[roots.index(t.root), j] = 1
    constraints = [LinearConstraint(coo_matrix((vals, (rows, cols)), shape=(len(links), n + 1)), -np.inf, 0),
                   LinearConstraint(per_root, k, k)]
    cost = np.r_[np.zeros(n), 1.0]
    bounds = Bounds(np.zeros(n + 1), np.r_[np.full(n, k), np.inf])
    integral = np.r_[np.ones(n), 0]
    res = milp(cost, constraints=constraints, integrality=integral, bounds=bounds,
               options={"mip_rel_gap": 0, "node_limit": node_limit})
    relaxed = milp(cost, constraints=constraints, bounds=bounds)
    if res.x is None or relaxed.x is None:
        raise CollschedError(f"HiGHS found no shares on the grid 1/{k}: {res.message}")
    units = tuple(int(round(x)) for x in res.x[:n])
    # step 3: the throughput of these units, exact
    load = {x: sum((units[j] * tree[x] for j, tree in enumerate(loads) if x in tree), Fraction(0)) for x in links}
    throughput = min(bandwidth[x] * k / load[x] for x in links if load[x] > 0)
    trees = tuple(ForestTree(t.root, Fraction(u, k) * throughput, t.arcs, t.up)
                  for u, t in zip(units, forest.trees) if u > 0)
    status = Status.OPTIMAL if res.status == 0 else Status.LIMIT
    note = f"tree shares on the grid 1/{k} (msccl.grid_shares, {status.value})"
    schedule = dataclasses.replace(forest, trees=trees, throughput=throughput,
                                   message="; ".join(x for x in (forest.message, note) if x))
    return GridShares(k, schedule, units, throughput, float(k * top / Fraction(relaxed.fun)),
                      float(k * top / Fraction(res.mip_dual_bound)), status)


@dataclass(frozen=True)
class Planned:
    """A schedule planned in MSCCL's model (:func:`plan`): what is exported, its export, and how it was found.

    Attributes
    ----------
    algorithm : str
    schedule : Schedule
        As planned: the forest on the grid (:attr:`grid`), or the baseline's schedule.
    exported : Schedule or Program
        What the file is written from: the forest itself, or the baseline's Program without signals.
    ready : Ready
        ``msccl.ready(platform, collective, exported)``: the file, and the planned time (``planned_makespan``)
        and the file's (``makespan``).
    grid : GridShares or None
        The forest's shares (None for a baseline).
    planner_throughput : Fraction or None
        The forest's throughput as :func:`collsched.plan` planned it, shares free.
    rejected : tuple of str
        The forests tried before, finest grid first, and why each was not taken.
    signals : int
        The baseline's messages without data, left out (0 for the forest, which has none).

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=g.hosts, size=2**20)
    >>> p = plan(g, c)
    >>> p.same, p.grid.k, p.schedule is p.exported is p.ready.planned, p.signals
    (True, 32, True, 0)
    """

    algorithm: str
    schedule: object
    exported: object
    ready: Ready
    grid: GridShares | None
    planner_throughput: Fraction | None
    rejected: tuple
    signals: int = 0

    @property
    def same(self) -> bool:
        """True when the file's time is the planned time exactly and the export changed nothing."""
        return not self.ready.changes and self.ready.makespan == self.ready.planned_makespan

    def summary(self) -> str:
        """What was planned, in one line (the times are :meth:`Ready.summary`'s).

        Examples
        --------
        >>> import collsched as cs
        >>> g = cs.topologies.star(3)
        >>> c = cs.AllGather(participants=g.hosts, size=2**20)
        >>> print(plan(g, c, algorithm="ring").summary())
        ring lowered for MSCCL without its 6 messages without data
        """
        if self.grid is None:
            return f"{self.algorithm} lowered for MSCCL without its {self.signals} messages without data"
        g, f = self.grid, self.schedule
        kept = sum(1 for u in g.units if u)
        return (f"forest in {f.chunks} chunks, tree shares on a grid of 1/{g.k} ({kept} of {len(g.units)} trees): "
                f"throughput {float(g.throughput / self.planner_throughput):.4f} of the planner's "
                f"({g.status.value}; LP relaxation {g.relaxation / float(self.planner_throughput):.4f}), "
                f"gap {float(f.rate_bound / g.throughput) - 1:+.1%} to the rate bound")


def plan(platform, collective, *, algorithm: str = "forest", chunks: int | None = None,
         node_limit: int = NODE_LIMIT, name: str = "collsched", proto: str = "Simple",
         min_bytes: int | None = None, max_bytes: int | None = None) -> Planned:
    """A schedule planned in MSCCL's execution model, whose planned time the exported file takes exactly.

    Parameters
    ----------
    platform, collective
        As :func:`collsched.plan`; the collective one MSCCL writes
        (:func:`~collsched.interop.msccl.export.to_xml`).
    algorithm : str
        ``"forest"`` (module docstring), or any other algorithm
        :func:`collsched.plan` knows for the collective (lowered without
        signals).
    chunks : int, optional
        The forest's; by default the planner's choice, and fewer where that
        does not export as it is.
    node_limit : int
        :func:`grid_shares`'s.
    name, proto, min_bytes, max_bytes
        As :func:`~collsched.interop.msccl.export.to_xml`.

    Returns
    -------
    Planned
        For the forest, always with ``ready.changes == ()`` and
        ``ready.makespan == ready.planned_makespan``.

    Raises
    ------
    LimitError
        No grid of :data:`~collsched.interop.msccl.fit.GRIDS` (and chunk
        count) exports the forest without a change: the first one's reason.
    CollschedError
        ``chunks`` given for another algorithm than the forest; as
        :func:`collsched.plan` and :func:`~collsched.interop.msccl.ready.ready`.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.ndv2(2)
    >>> c = cs.AllGather(participants=g.hosts, size=4096)
    >>> p = plan(g, c)
    >>> p.ready.changes, p.ready.makespan == p.ready.planned_makespan, p.grid.k
    ((), True, 32)
    """
    from ...algorithms.gpu.plan import CHUNK_CHOICES
    from ...planner import plan as plan_schedule
    from .export import check_request

    check_request(collective, proto)
    if chunks is not None and algorithm != "forest":
        raise CollschedError(f"chunks={chunks!r} is the forest's option, not {algorithm}'s",
                             fix="leave chunks out, or plan algorithm='forest'")
    options = dict(name=name, proto=proto, min_bytes=min_bytes, max_bytes=max_bytes)
    if algorithm != "forest":
        schedule = plan_schedule(platform, collective, algorithm=algorithm)
        lowered = schedule.lower(platform, collective)
        program = drop_signals(lowered).renumbered()
        r = ready(platform, collective, program, **options)
        return Planned(algorithm, schedule, program, r, None, None, (), lowered.n_messages - program.n_messages)
    forest = plan_schedule(platform, collective, algorithm="forest", chunks=chunks)
    counts = [forest.chunks] if chunks is not None else \
        [forest.chunks] + sorted((n for n in CHUNK_CHOICES if n < forest.chunks), reverse=True)
    rejected: list[str] = []
    first_error = None
    for k in GRIDS:
        shares = grid_shares(platform, forest, k, node_limit=node_limit)
        for n in counts:
            candidate = dataclasses.replace(shares.schedule, chunks=n)
            where = f"grid 1/{k}, {n} chunks"
            try:
                r = ready(platform, collective, candidate, exact=True, **options)
            except LimitError as err:
                first_error = first_error or err
                rejected.append(f"{where}: {err.what}")
                continue
            if r.changes or r.makespan != r.planned_makespan:
                rejected.append(f"{where}: " + ("; ".join(r.changes) or "the file's time differs"))
                continue
            return Planned("forest", candidate, candidate, r, shares, forest.throughput, tuple(rejected))
    raise LimitError(f"no grid of 1/{GRIDS[0]} .. 1/1 exports the forest without a change; {rejected[0]}",
                     fix=first_error.fix if first_error is not None else "export it with msccl.ready()")
