"""Study ``permutations``: seed 002's Tables 1-3, ours beside the paper's.

All-to-many exchanges decomposed into partial permutations
(:mod:`collsched.algorithms.permutations`), on a 64-node hypercube (32 for
Table 3) with e-cube routing, simulated under the Circuit model (a message
holds every link direction of its route). The hypercube's links have the
iPSC/860's order of magnitude (2.8 MB/s, 150 us per hop of latency), not a
calibration: compare trends and ratios, not milliseconds.

Examples
--------
>>> from collsched.studies.base import StudyOptions
>>> r = run(StudyOptions(quick=True, samples=1))
>>> [t.title for t in r.tables][:2]
['Table 1: phases (n = 64)', 'Table 1: communication time (ms)']
"""

from __future__ import annotations

import math
import time

import numpy as np

from .. import models, topologies
from ..algorithms.permutations import paper, samples
from ..algorithms.registry import get
from .base import Report, StudyOptions, Table, study

__all__ = ["run", "PLATFORM"]

#: Link bandwidth (bytes/s) and per-hop latency (s) of the simulated hypercubes.
PLATFORM = {"bandwidth": 2.8e6, "latency": 1.5e-4}
UNIFORM = ("ac", "lp", "rs_n", "rs_np", "rs_nl", "rs_nlp")
NONUNIFORM = ("ac", "lp", "rs_nlp", "rs_nlph", "rs_nlh")

try:  # written by the orderings engineer at the same time
    from ..bounds import exchange_bound
except ImportError:  # pragma: no cover
    exchange_bound = None


def _plan(p, c, algo, seed):
    t0 = time.perf_counter()
    s = get(algo).function(p, c, seed=seed)
    return s, (time.perf_counter() - t0) * 1e3


def _comm(p, s, c, algo, model):
    from ..simulation import simulate
    return simulate(p, s.lower(p, c, sync=paper.SCHEME[algo]), c, model=model).makespan * 1e3


def _bound(p, c, model):
    return exchange_bound(p, c, model=model).value * 1e3 if exchange_bound is not None else float("nan")


def _r(x, k=2):
    return None if x is None else (round(float(x), k) if math.isfinite(float(x)) else None)


def _uniform(options: StudyOptions, ds, n_samples, p):
    phases = {(d, a): [] for d in ds for a in UNIFORM}
    sched = {(d, a): [] for d in ds for a in UNIFORM}
    comm = {}
    bound = {}
    one_port = not options.quick
    mods = {"circuit": models.Circuit()}
    if one_port:
        mods["one_port"] = models.Circuit(one_port=True)
    for d in ds:
        for k in range(n_samples):
            seed = options.seed * 100_003 + 1_000 * d + k
            com = samples.random_com(64, d, seed=seed)
            cs_ = {size: samples.to_alltomany(com, p.hosts, unit=size) for size in (1024, 131072)}
            for size, c in cs_.items():
                for name, model in mods.items():
                    bound.setdefault((d, size, name), []).append(_bound(p, c, model))
            for a in UNIFORM:
                s, ms = _plan(p, cs_[1024], a, seed)
                phases[d, a].append(s.params.get("iterations", len(s)) if a == "lp" else len(s))
                sched[d, a].append(ms)
                for size, c in cs_.items():
                    for name, model in mods.items():
                        comm.setdefault((d, size, a, name), []).append(_comm(p, s, c, a, model))
    mean = lambda v: float(np.mean(v)) if v else float("nan")  # noqa: E731
    t_phases = Table(
        "Table 1: phases (n = 64)",
        ("d", "d + log d", *[f"{a} {w}" for a in ("lp", "rs_n", "rs_np", "rs_nl", "rs_nlp") for w in ("ours", "paper")]),
        tuple((d, _r(d + math.log2(d)), *[v for a in ("lp", "rs_n", "rs_np", "rs_nl", "rs_nlp")
                                           for v in (_r(mean(phases[d, a])), paper.TABLE1[d][a][2])]) for d in ds),
        notes=(f"{n_samples} random d-regular COM matrices per d (the paper: 50).",
               "d + log d is the paper's upper bound on RS_N's phases; no schedule has fewer than d phases.",
               "LP goes through n - 1 = 63 xor phases whatever d (empty phases are dropped from our schedules).",
               "L variants avoid link contention on the e-cube routes, which costs ~1-3 phases, as in the paper."))
    rows = []
    for d in ds:
        for size, col in ((1024, 0), (131072, 1)):
            for a in UNIFORM:
                ours = mean(comm[d, size, a, "circuit"])
                b = mean(bound[d, size, "circuit"])
                row = [d, "1K" if size == 1024 else "128K", a, "S1" if paper.SCHEME[a] == "ready" else "S2", _r(ours)]
                if one_port:
                    row.append(_r(mean(comm[d, size, a, "one_port"])))
                row += [paper.TABLE1[d][a][col], _r(b), _r(ours / b - 1 if b > 0 else float("nan"), 3)]
                rows.append(tuple(row))
    cols = ("d", "size", "algorithm", "scheme", "ours") + (("ours one-port",) if one_port else ()) + \
        ("paper", "bound", "gap")
    t_comm = Table(
        "Table 1: communication time (ms)", cols, tuple(rows),
        notes=("ours: simulated under Circuit() on a 64-node hypercube (2.8 MB/s, 150 us per hop);"
               " ours one-port: Circuit(one_port=True), one send and one receive per node as on the iPSC/860.",
               "paper: measured on the iPSC/860; S1 (ready signal) for LP, RS_NP, RS_NLP; S2 (post all) otherwise.",
               "bound: collsched.bounds.exchange_bound under Circuit() (largest link-direction load); gap = ours / bound - 1."
               if exchange_bound is not None else "bound: collsched.bounds is not available; compare phases with max degree.",
               "Pairwise exchanges gain nothing under the Circuit model (links are full duplex, ports independent):"
               " the paper's S1 advantage of the P variants is an iPSC/860 idiosyncrasy we do not model."))
    t_sched = Table(
        "Table 1: scheduling time (ms)", ("d", "algorithm", "ours", "paper"),
        tuple((d, a, _r(mean(sched[d, a]), 3), paper.TABLE1[d][a][3]) for d in ds for a in UNIFORM if a != "ac"),
        notes=("ours: wall time of the Python call (COM compression and routes in Python, decomposition in Rust),"
               " one core of today; paper: a 40 MHz i860.",))
    return t_phases, t_comm, t_sched


def _nonuniform(options: StudyOptions, p, coms, units, paper_row):
    """Phases, communication per unit and scheduling time per algorithm, averaged over ``coms``."""
    phases, sched, comm, bound = {}, {}, {}, {}
    model = models.Circuit()
    for k, com in enumerate(coms):
        seed = options.seed * 100_003 + k
        cs_ = {u: samples.to_alltomany(com, p.hosts, unit=u) for u in units}
        for u, c in cs_.items():
            bound.setdefault(u, []).append(_bound(p, c, model))
        for a in NONUNIFORM:
            s, ms = _plan(p, cs_[units[0]], a, seed)
            phases.setdefault(a, []).append(s.params.get("iterations", len(s)) if a == "lp" else len(s))
            sched.setdefault(a, []).append(ms)
            for u, c in cs_.items():
                comm.setdefault((a, u), []).append(_comm(p, s, c, a, model))
    rows = []
    for a in NONUNIFORM:
        pr = paper_row(a)
        row = [a, "S1" if paper.SCHEME[a] == "ready" else "S2", _r(np.mean(phases[a])), pr[len(units)]]
        for j, u in enumerate(units):
            ours = float(np.mean(comm[a, u]))
            b = float(np.mean(bound[u]))
            row += [_r(ours), pr[j], _r(ours / b - 1 if b > 0 else float("nan"), 3)]
        row += [_r(np.mean(sched[a]), 3), pr[len(units) + 1]]
        rows.append(tuple(row))
    cols = ["algorithm", "scheme", "phases ours", "phases paper"]
    for u in units:
        cols += [f"comm {u} ours", f"comm {u} paper", f"gap {u}"]
    cols += ["sched ours", "sched paper"]
    return tuple(cols), rows, {u: float(np.mean(bound[u])) for u in units}


@study("permutations", title="All-to-many exchanges as partial permutations (Ranka and Wang 1993)",
       paper="seed 002: S. Ranka, J.-C. Wang, Static and runtime scheduling of unstructured communication, 1993")
def run(options: StudyOptions) -> Report:
    """Tables 1-3 of seed 002 beside ours (see the module docstring).

    Parameters
    ----------
    options : StudyOptions
        ``samples`` per cell (the paper: 50); ``quick``: d = 4 and 16 only,
        one non-uniform density, no one-port column.

    Returns
    -------
    Report
        Tables 1 (phases, communication, scheduling), 2 and 3, and Table 3's matrix statistics.

    Examples
    --------
    >>> from collsched.studies.base import StudyOptions
    >>> r = run(StudyOptions(quick=True, samples=1))
    >>> r.table("Table 1: phases (n = 64)").column("d")
    [4, 16]
    """
    ds = (4, 16) if options.quick else (4, 8, 16, 32, 48)
    n_samples = options.n(50, 1)
    p64 = topologies.hypercube(6, **PLATFORM)
    tables = list(_uniform(options, ds, n_samples, p64))
    # Table 2: non-uniform sizes, COM(i, j) = 1 .. n units
    rows2 = []
    cols2 = None
    for d in ((4,) if options.quick else ds):
        coms = [samples.random_com(64, d, seed=options.seed * 100_003 + 7_000 + 100 * d + k, max_size=64)
                for k in range(n_samples)]
        cols2, rows, _ = _nonuniform(options, p64, coms, (256, 2048), lambda a, d=d: paper.TABLE2[d][a])
        rows2 += [(d, *r) for r in rows]
    tables.append(Table(
        "Table 2: non-uniform sizes (n = 64, ms)", ("d", *cols2), tuple(rows2),
        notes=("COM(i, j) uniform in 1 .. 64 units of 256 or 2048 bytes on d random destinations per node.",
               "RS_NLH / RS_NLPH try the paper's lambdas ((n-1)/n, (n-2)/n, (n-4)/n, ...) and keep the least"
               " estimated time (sum over phases of the slowest piece); the paper kept the best measured one.",
               "That estimate charges a phase only its route latency, so it favours small lambdas (more, smaller"
               " phases) at large d; at lambda = (n-1)/n our phase counts match Table 2 (e.g. 8, 23, 60 for d = 4,"
               " 16, 48 on one sample; tests/permutations/test_permutations_paper.py checks it).",
               "gap: ours / collsched.bounds.exchange_bound(Circuit()) - 1.")))
    # Table 3: a CFD-like matrix on 32 nodes
    p32 = topologies.hypercube(5, **PLATFORM)
    coms = [samples.cfd_like_com(seed=options.seed * 100_003 + k) for k in range(options.n(5, 1))]
    cols3, rows3, _ = _nonuniform(options, p32, coms, (32, 128, 512), lambda a: paper.TABLE3[a])
    tables.append(Table(
        "Table 3: CFD-like matrix (n = 32, ms)", cols3, tuple(rows3),
        notes=("The paper's 53,961-point airplane mesh matrix is not available: ours are random symmetric patterns"
               " with its statistics (next table).",)))
    stats = [samples.com_stats(c) for c in coms]
    tables.append(Table(
        "Table 3: matrix statistics", ("statistic", "ours", "paper"),
        tuple((k, _r(np.mean([s[k] for s in stats])), v) for k, v in paper.TABLE3_STATS.items())))
    return Report("permutations", tuple(tables))
