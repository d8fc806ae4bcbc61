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
  it from above, and so does the forest's ``rate_bound``); each forest on
  its grid, in its chunks (and, when the planner chose them, fewer of
  :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES`), is a candidate,
  and so (step 4) is the Program of the file
  :func:`~collsched.interop.msccl.ready.ready` makes of the planner's
  forest (fitted, merged, cut: its time under ``Fluid`` is the file's,
  ``tests/interop/test_msccl_ready.py``). Throughput is not the whole time
  (on ``dgx2(2)``, a 4 kB all-reduce on the grid of 1/16 takes 30.776 us,
  on 1/1, with 0.93 of its throughput, 19.442 us), so the candidates are
  ranked by their time under ``Fluid``;
  (step 3) the fastest grid candidate that exports as it is
  (``msccl.ready(..., exact=True)``: its chunks whole bytes within 65,536
  per loop, its messages within 71 chunks, packed into thread blocks
  without merging or serialising, and each thread block's order adding
  no time) is the plan, unless ``msccl.ready``'s file is faster (step 4).
  Either way the schedule's planned time (its Program under ``Fluid``)
  *is* the file's, and the plan is never slower than ``msccl.ready``'s
  file of the planner's forest.
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
from ...schedules.validate import lower_any
from .fit import GRIDS
from .lint import LimitError
from .ready import Ready, ready
from .threadblocks import drop_signals

__all__ = ["GridShares", "Planned", "grid_shares", "plan", "fastest_forest", "exported", "NODE_LIMIT"]

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
        As planned: the forest on the grid (:attr:`grid`), or the forest ``msccl.ready`` exported
        (:attr:`made_ready`), or the baseline's schedule.
    exported : Schedule or Program
        What the file is written from: the forest itself, the Program ``msccl.ready``'s file runs
        (:attr:`made_ready`), or the baseline's Program without signals.
    ready : Ready
        ``msccl.ready(platform, collective, exported)``: the file, and the planned time (``planned_makespan``)
        and the file's (``makespan``), equal.
    grid : GridShares or None
        The forest's shares on its grid (None for a baseline, and for the forest ``msccl.ready`` made).
    planner_throughput : Fraction or None
        The forest's throughput as :func:`collsched.plan` planned it, shares free.
    rejected : tuple of str
        The forest's other candidates, finest grid first (``msccl.ready``'s file last), and why each was not taken
        (refused, changed by the export, or slower: its time).
    signals : int
        The baseline's messages without data, left out (0 for the forest, which has none).
    made_ready : tuple of str
        What ``msccl.ready`` changed from the planner's forest, when its file was the fastest candidate (its
        ``changes``; then :attr:`exported` is the Program that file runs); else empty.
    given_makespan : float or None
        :attr:`schedule` as :func:`collsched.plan` planned it (for the forest, before its shares went on a grid;
        for a baseline, with its messages without data), lowered, under ``Fluid`` (s): what :attr:`exported` is
        compared with. Not the file's time unless equal to ``ready.makespan``.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=g.hosts, size=2**20)
    >>> p = plan(g, c)
    >>> p.same, p.grid.k, p.schedule is p.exported is p.ready.planned, p.signals, p.made_ready
    (True, 32, True, 0, ())
    """

    algorithm: str
    schedule: object
    exported: object
    ready: Ready
    grid: GridShares | None
    planner_throughput: Fraction | None
    rejected: tuple
    signals: int = 0
    made_ready: tuple = ()
    given_makespan: float | None = None

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
        made = "the Program of msccl.ready's file: " + "; ".join(self.made_ready)
        if self.algorithm != "forest":
            return f"{self.algorithm}: {made}" if self.made_ready else \
                f"{self.algorithm} lowered for MSCCL without its {self.signals} messages without data"
        f, tried = self.schedule, len(self.rejected) + 1
        if self.grid is None:
            fastest = f", the fastest under Fluid of {tried} candidates" if self.rejected else ""
            return (f"forest in {f.chunks} chunks, {made if self.made_ready else 'as planned'}{fastest}: "
                    f"throughput {float(f.throughput / self.planner_throughput):.4f} of the planner's")
        g = self.grid
        kept = sum(1 for u in g.units if u)
        bound = "" if g.status is Status.OPTIMAL else \
            f", HiGHS's bound {g.dual_bound / float(self.planner_throughput):.4f}"
        return (f"forest in {f.chunks} chunks, tree shares on a grid of 1/{g.k} ({kept} of {len(g.units)} trees), "
                f"the fastest under Fluid of {tried} candidates: throughput "
                f"{float(g.throughput / self.planner_throughput):.4f} of the planner's "
                f"({g.status.value}{bound}; LP relaxation {g.relaxation / float(self.planner_throughput):.4f}), "
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
        The forest's; by default the planner's choice, and fewer ones of
        :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES` are candidates too.
    node_limit : int
        :func:`grid_shares`'s.
    name, proto, min_bytes, max_bytes
        As :func:`~collsched.interop.msccl.export.to_xml`.

    Returns
    -------
    Planned
        Always with ``ready.changes == ()`` and ``ready.makespan == ready.planned_makespan``; for the forest, the
        fastest under ``Fluid`` of its candidates (module docstring), so never slower than the file
        ``msccl.ready`` makes of the planner's forest.

    Raises
    ------
    LimitError
        No candidate of the forest exports: the first grid's reason.
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
    from ...planner import plan as plan_schedule
    from .export import check_request

    check_request(collective, proto)
    if chunks is not None and algorithm != "forest":
        raise CollschedError(f"chunks={chunks!r} is the forest's option, not {algorithm}'s",
                             fix="leave chunks out, or plan algorithm='forest'")
    options = dict(name=name, proto=proto, min_bytes=min_bytes, max_bytes=max_bytes)
    if algorithm != "forest":
        return _without_signals(platform, collective, plan_schedule(platform, collective, algorithm=algorithm),
                                algorithm, options)
    forest = plan_schedule(platform, collective, algorithm="forest", chunks=chunks)
    return fastest_forest(platform, collective, forest, fewer=chunks is None, node_limit=node_limit, **options)


def fastest_forest(platform, collective, forest: ForestSchedule, *, fewer: bool = False, made: Ready | None = None,
                   node_limit: int = NODE_LIMIT, **options) -> Planned:
    """The fastest export of ``forest`` whose planned time is the file's: :func:`plan`'s forest (steps 2-4).

    Parameters
    ----------
    platform, collective
        As :func:`plan`.
    forest : ForestSchedule
        Planned for them (by :func:`collsched.plan`, or given).
    fewer : bool
        Also the forest in fewer chunks of :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES`.
    made : Ready, optional
        ``msccl.ready(platform, collective, forest, **options)`` when the caller has it (not made again).
    node_limit : int
        :func:`grid_shares`'s.
    **options
        ``name``, ``proto``, ``min_bytes``, ``max_bytes`` of :func:`~collsched.interop.msccl.export.to_xml`.

    Returns
    -------
    Planned
        With ``ready.changes == ()`` and ``ready.makespan == ready.planned_makespan``, no slower than ``made``.

    Raises
    ------
    LimitError
        No candidate exports.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> p = fastest_forest(g, c, cs.plan(g, c, algorithm="forest"))
    >>> p.same, p.ready.makespan <= ready(g, c, cs.plan(g, c, algorithm="forest")).makespan
    (True, True)
    """
    from ...algorithms.gpu.plan import CHUNK_CHOICES
    from ...simulation import models, simulate

    fluid = models.Fluid()
    made_error = None
    if made is None:
        try:   # step 4's candidate: the file msccl.ready makes of the planner's forest, and its time
            made = ready(platform, collective, forest, **options)
        except LimitError as err:
            made_error = err
    given = made.planned_makespan if made is not None else \
        simulate(platform, forest.lower(platform, collective), collective, model=fluid).makespan
    counts = [forest.chunks] + (sorted((n for n in CHUNK_CHOICES if n < forest.chunks), reverse=True) if fewer else [])
    candidates, seen = [], set()
    for k in GRIDS:   # step 2: the grids' shares; each forest on its grid, in each chunk count, simulated
        shares = grid_shares(platform, forest, k, node_limit=node_limit)
        for n in counts:
            key = (tuple(Fraction(u, k) for u in shares.units), n)
            if key in seen:   # the same forest as on a finer grid
                continue
            seen.add(key)
            candidate = dataclasses.replace(shares.schedule, chunks=n)
            t = simulate(platform, candidate.lower(platform, collective), collective, model=fluid).makespan
            candidates.append((t, len(candidates), shares, candidate))
    rejected: dict[int, str] = {}
    first_error = None
    for t, i, shares, candidate in sorted(candidates, key=lambda x: x[:2]):   # step 3: fastest first
        where = f"grid 1/{shares.k}, {candidate.chunks} chunks"
        if made is not None and t > made.makespan:
            break
        try:
            r = ready(platform, collective, candidate, exact=True, **options)
        except LimitError as err:
            first_error = first_error or err
            rejected[i] = f"{where}: {err.what}"
            continue
        if r.changes or r.makespan != r.planned_makespan:
            rejected[i] = f"{where}: " + ("; ".join(r.changes) or "the file's time differs")
            continue
        others = tuple(rejected.get(j, f"grid 1/{x.k}, {y.chunks} chunks: {u * 1e6:.3f} us, slower")
                       for u, j, x, y in candidates if j != i)
        others += ((f"msccl.ready's file of the planner's forest: {made.makespan * 1e6:.3f} us, slower"
                    if made is not None else f"msccl.ready of the planner's forest: {made_error.what}"),)
        return Planned("forest", candidate, candidate, r, shares, forest.throughput, others, given_makespan=given)
    if made is None:
        raise LimitError(f"no grid of 1/{GRIDS[0]} .. 1/1 exports the forest without a change, nor does msccl.ready; "
                         + (rejected[min(rejected)] if rejected else made_error.what),
                         fix=(first_error or made_error).fix)
    # step 4: msccl.ready's file of the planner's forest is the fastest; the plan is the Program that file runs
    others = tuple(rejected.get(j, f"grid 1/{x.k}, {y.chunks} chunks: {u * 1e6:.3f} us, slower")
                   for u, j, x, y in candidates)
    if not made.changes and made.makespan == made.planned_makespan:   # the planner's forest exports as it is
        return Planned("forest", forest, forest, made, None, forest.throughput, others, given_makespan=given)
    return Planned("forest", made.schedule, made.program, _as_planned(made), None, forest.throughput, others,
                   made_ready=made.changes, given_makespan=given)


def _as_planned(r: Ready) -> Ready:
    """``r`` with the Program its file runs as the schedule planned: its planned time is the file's (``r.makespan``,
    that Program under Fluid), and nothing changed from it."""
    return dataclasses.replace(r, planned=r.program, schedule=r.program, planned_makespan=r.makespan, changes=())


def _without_signals(platform, collective, schedule, algorithm: str, options: dict) -> Planned:
    """``schedule`` (any, or a Program) lowered without its messages without data, made ready: a baseline of
    :func:`plan`. Where the export still changes it (merged, cut, the thread blocks' order), the Program the file runs
    is what is planned (:attr:`Planned.made_ready`)."""
    from ...simulation import models, simulate

    lowered = lower_any(platform, collective, schedule)
    program = drop_signals(lowered).renumbered()
    r = ready(platform, collective, program, **options)
    signals = lowered.n_messages - program.n_messages
    given = r.planned_makespan if not signals else \
        simulate(platform, lowered, collective, model=models.Fluid()).makespan
    if not r.changes and r.makespan == r.planned_makespan:
        return Planned(algorithm, schedule, program, r, None, None, (), signals, given_makespan=given)
    return Planned(algorithm, schedule, r.program, _as_planned(r), None, None, (), signals, made_ready=r.changes,
                   given_makespan=given)


def exported(platform, collective, schedule_or_program, *, strict: bool = False, made: Ready | None = None,
             node_limit: int = NODE_LIMIT, **options) -> Planned:
    """What ``collsched msccl export`` writes of a schedule: the schedule it becomes, whose time is the file's.

    A schedule exports as it is only where the runtime runs it as it is. Otherwise the schedule exported is another
    one, and its time, not the given schedule's, is the file's:

    * a schedule that :func:`~collsched.interop.msccl.ready.ready` exports unchanged: itself;
    * a forest that does not: :func:`fastest_forest` of it, in the chunks ``msccl.ready``'s file has (its trees'
      shares on each chunk grid, or the Program of ``msccl.ready``'s file, the fastest under ``Fluid``); with
      ``strict``, where ``msccl.ready`` does not refuse it, the Program its file runs;
    * any other schedule (or Program): the Program ``msccl.ready``'s file runs (without messages without data,
      which the runtime has not, merged or cut where the packing needs it).

    Parameters
    ----------
    platform, collective, schedule_or_program
        As :func:`~collsched.interop.msccl.ready.ready`.
    strict : bool
        As :func:`~collsched.interop.msccl.ready.ready`'s: refuse a forest that does not fit as it is.
    made : Ready, optional
        ``msccl.ready(platform, collective, schedule_or_program, strict=strict, **options)`` when the caller has it.
    node_limit, **options
        As :func:`fastest_forest`.

    Returns
    -------
    Planned
        ``schedule`` the schedule given (or the forest exported); ``exported`` the schedule or Program the file is
        written from; ``ready`` its export, with ``planned_makespan`` (the time reported as the schedule exported's)
        ``== makespan`` (the file's) and no changes; ``made_ready`` what changed from the schedule given;
        ``given_makespan`` the schedule given's time as planned.

    Raises
    ------
    CollschedError
        As :func:`~collsched.interop.msccl.ready.ready`.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> p = exported(g, c, cs.plan(g, c, algorithm="ring"))
    >>> print(p.summary())
    ring: the Program of msccl.ready's file: 6 messages without data dropped (the runtime has none)
    >>> p.same, p.ready.planned_makespan == p.ready.makespan, p.given_makespan > p.ready.makespan
    (True, True, True)
    """
    s = schedule_or_program
    if made is None:
        made = ready(platform, collective, s, strict=strict, **options)
    name = getattr(s, "algorithm", "") or "program"
    forest = isinstance(s, ForestSchedule)
    throughput, given = (s.throughput if forest else None), made.planned_makespan
    if not made.changes and made.makespan == made.planned_makespan:
        return Planned(name, s, s, made, None, throughput, (), given_makespan=given)
    if not forest or strict:
        return Planned(name, made.schedule, made.program, _as_planned(made), None, throughput, (),
                       made_ready=made.changes, given_makespan=given)
    # the grids' candidates in the chunks msccl.ready's file has (fewer than the forest's where those do not fit)
    return fastest_forest(platform, collective, dataclasses.replace(s, chunks=made.schedule.chunks), made=made,
                          node_limit=node_limit, **options)
