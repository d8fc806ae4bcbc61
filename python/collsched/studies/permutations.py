"""Study ``permutations``: seed 002's Tables 1-3, ours beside the paper's.

All-to-many exchanges decomposed into partial permutations
(:mod:`collsched.algorithms.permutations`), on a 64-node hypercube (32 for
Table 3) with e-cube routing, simulated under the Circuit model (a message
holds every link direction of its route). The hypercube's links have the
iPSC/860's order of magnitude (2.8 MB/s, 150 us per hop of latency), not a
calibration: compare trends and ratios, not milliseconds. Each sampled
COM matrix is one cell of the study runner
(:meth:`~collsched.studies.base.StudyOptions.map`), run in parallel and
kept for a rerun.

Examples
--------
>>> from collsched.studies.base import StudyOptions
>>> r = run(StudyOptions(quick=True, samples=1))
>>> [t.title for t in r.tables][:2]
['Table 1: phases (n = 64)', 'Table 1: communication time (ms)']
"""

from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=None)
def _hypercube(dim: int):
    """The simulated ``2**dim``-node hypercube, built once per process."""
    return topologies.hypercube(dim, **PLATFORM)


def _com(spec: tuple) -> np.ndarray:
    """A COM matrix from its spec: ``("random", n, d, seed, max_size)`` or ``("cfd", seed)``."""
    if spec[0] == "random":
        _, n, d, seed, max_size = spec
        return samples.random_com(n, d, seed=seed, max_size=max_size)
    return samples.cfd_like_com(seed=spec[1])


def _run_sample(cell: tuple) -> dict:
    """One COM matrix ``(com_spec, dim, units, one_port, algorithms, seed)`` on the ``2**dim``-node hypercube.

    Builds the matrix (see :func:`_com`) and its exchange for every unit
    size, plans each algorithm (``seed``) on the first, and simulates every
    plan at every size under ``Circuit()`` (and ``Circuit(one_port=True)``
    if ``one_port``). Returns ``{"bound": {(unit, model): ms}, "algorithms":
    {name: (phases, planning ms, {(unit, model): ms})}, "stats": com_stats}``.
    """
    spec, dim, units, one_port, algorithms, seed = cell
    p = _hypercube(dim)
    com = _com(spec)
    mods = {"circuit": models.Circuit()}
    if one_port:
        mods["one_port"] = models.Circuit(one_port=True)
    cs_ = {u: samples.to_alltomany(com, p.hosts, unit=u) for u in units}
    bound = {(u, name): _bound(p, c, model) for u, c in cs_.items() for name, model in mods.items()}
    out = {}
    for a in algorithms:
        s, ms = _plan(p, cs_[units[0]], a, seed)
        phases = s.params.get("iterations", len(s)) if a == "lp" else len(s)
        comm = {(u, name): _comm(p, s, c, a, model) for u, c in cs_.items() for name, model in mods.items()}
        out[a] = (phases, ms, comm)
    return {"bound": bound, "algorithms": out, "stats": samples.com_stats(com)}


def _uniform(ds, n_samples, one_port, results):
    """Table 1's three tables from the uniform samples' results (``n_samples`` per ``d``, in ``ds`` order)."""
    phases, sched, comm, bound = {}, {}, {}, {}
    runs = iter(results)
    for d in ds:
        for _ in range(n_samples):
            r = next(runs)
            for (size, name), v in r["bound"].items():
                bound.setdefault((d, size, name), []).append(v)
            for a, (ph, ms, times) in r["algorithms"].items():
                phases.setdefault((d, a), []).append(ph)
                sched.setdefault((d, a), []).append(ms)
                for (size, name), v in times.items():
                    comm.setdefault((d, size, a, name), []).append(v)
    mean = lambda v: float(np.mean(v)) if v else float("nan")  # noqa: E731
    t_phases = Table(
        "Table 1: phases (n = 64)",
        ("d", "d + log d", *[f"{a} {w}" for a in ("lp", "rs_n", "rs_np", "rs_nl", "rs_nlp") for w in ("ours", "paper")]),
        tuple((d, _r(d + math.log2(d)), *[v for a in ("lp", "rs_n", "rs_np", "rs_nl", "rs_nlp")
                                           for v in (_r(mean(phases[d, a])), paper.TABLE1[d][a][2])]) for d in ds),
        notes=(f"{n_samples} random d-regular COM matrices per d (the paper: 50).",
               "d + log d is the paper's upper bound on RS_N's phases; no schedule has fewer than d phases.",
               "LP goes through n - 1 = 63 xor phases whatever d (empty phases are dropped from our schedules).",
               "L variants avoid link contention on the e-cube routes, which costs ~1-3 phases, as in the paper."),
        plot=("d", ("d + log d", *[f"{a} ours" for a in ("lp", "rs_n", "rs_np", "rs_nl", "rs_nlp")])))
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
               " one core of today; paper: a 40 MHz i860.",),
        plot=("d", ("ours",), "algorithm"))
    return t_phases, t_comm, t_sched


def _nonuniform(results, units, paper_row):
    """Phases, communication per unit and scheduling time per algorithm, averaged over the samples' ``results``."""
    phases, sched, comm, bound = {}, {}, {}, {}
    for r in results:
        for (u, _), v in r["bound"].items():
            bound.setdefault(u, []).append(v)
        for a, (ph, ms, times) in r["algorithms"].items():
            phases.setdefault(a, []).append(ph)
            sched.setdefault(a, []).append(ms)
            for (u, _), v in times.items():
                comm.setdefault((a, u), []).append(v)
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
    ds2 = (4,) if options.quick else ds
    n_samples, n_cfd = options.n(50, 1), options.n(5, 1)
    one_port = not options.quick
    base = options.seed * 100_003
    # every sample is one cell: (COM spec, hypercube dimension, unit sizes, one-port column?, algorithms, seed)
    uniform = [(("random", 64, d, base + 1_000 * d + k, None), 6, (1024, 131072), one_port, UNIFORM,
                base + 1_000 * d + k) for d in ds for k in range(n_samples)]
    table2 = [(("random", 64, d, base + 7_000 + 100 * d + k, 64), 6, (256, 2048), False, NONUNIFORM, base + k)
              for d in ds2 for k in range(n_samples)]
    table3 = [(("cfd", base + k), 5, (32, 128, 512), False, NONUNIFORM, base + k) for k in range(n_cfd)]
    results = options.map(_run_sample, uniform + table2 + table3, label="permutations samples")
    r_uniform, r_table2, r_table3 = (results[:len(uniform)], results[len(uniform):len(uniform) + len(table2)],
                                     results[len(uniform) + len(table2):])
    tables = list(_uniform(ds, n_samples, one_port, r_uniform))
    # Table 2: non-uniform sizes, COM(i, j) = 1 .. n units
    rows2 = []
    cols2 = None
    for i, d in enumerate(ds2):
        cols2, rows, _ = _nonuniform(r_table2[i * n_samples:(i + 1) * n_samples], (256, 2048),
                                     lambda a, d=d: paper.TABLE2[d][a])
        rows2 += [(d, *r) for r in rows]
    tables.append(Table(
        "Table 2: non-uniform sizes (n = 64, ms)", ("d", *cols2), tuple(rows2),
        notes=("COM(i, j) uniform in 1 .. 64 units of 256 or 2048 bytes on d random destinations per node.",
               "RS_NLH / RS_NLPH try the paper's lambdas ((n-1)/n, (n-2)/n, (n-4)/n, ...) and keep the least"
               " estimated time (sum over phases of the slowest piece); the paper kept the best measured one.",
               "That estimate charges a phase only its route latency, so it favours small lambdas (more, smaller"
               " phases) at large d; at lambda = (n-1)/n our phase counts match Table 2 (e.g. 8, 23, 60 for d = 4,"
               " 16, 48 on one sample; tests/permutations/test_permutations_paper.py checks it).",
               "gap: ours / collsched.bounds.exchange_bound(Circuit()) - 1."),
        plot=("d", ("comm 2048 ours",), "algorithm")))
    # Table 3: a CFD-like matrix on 32 nodes
    cols3, rows3, _ = _nonuniform(r_table3, (32, 128, 512), lambda a: paper.TABLE3[a])
    tables.append(Table(
        "Table 3: CFD-like matrix (n = 32, ms)", cols3, tuple(rows3),
        notes=("The paper's 53,961-point airplane mesh matrix is not available: ours are random symmetric patterns"
               " with its statistics (next table).",)))
    stats = [r["stats"] for r in r_table3]
    tables.append(Table(
        "Table 3: matrix statistics", ("statistic", "ours", "paper"),
        tuple((k, _r(np.mean([s[k] for s in stats])), v) for k, v in paper.TABLE3_STATS.items())))
    return Report("permutations", tuple(tables))
