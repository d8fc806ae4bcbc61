"""Study ``permutations``: seed 002's Tables 1-3, ours beside the paper's.

All-to-many exchanges decomposed into partial permutations
(:mod:`collsched.algorithms.permutations`), on a 64-node hypercube (32 for
Table 3) with e-cube routing, simulated under the Circuit model (a message
holds every link direction of its route). The hypercube's links have the
iPSC/860's order of magnitude (2.8 MB/s, 150 us per hop of latency), not a
calibration: compare trends and ratios, not milliseconds. The same
schedules are also costed on the iPSC/860 model of
:mod:`collsched.algorithms.permutations.ipsc` (half-duplex nodes, a
pairwise exchange for one message time), which gives the winner of each
(d, message size) cell beside the paper's; Table 2's heap variants are run
under three lambda rules (the first trial value, the paper's best measured
trial, and the planner's estimate); and a last table gives, per finding of
the paper, ours and whether it holds. Each sampled
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
from ..algorithms.permutations.heaps import paper_lambdas
from ..algorithms.permutations.ipsc import ipsc_time
from ..algorithms.registry import get
from .base import Report, StudyOptions, Table, study

__all__ = ["run", "PLATFORM"]

#: Link bandwidth (bytes/s) and per-hop latency (s) of the simulated hypercubes.
PLATFORM = {"bandwidth": 2.8e6, "latency": 1.5e-4}
UNIFORM = ("ac", "lp", "rs_n", "rs_np", "rs_nl", "rs_nlp")
NONUNIFORM = ("ac", "lp", "rs_nlp", "rs_nlph", "rs_nlh")
HEAPS = ("rs_nlh", "rs_nlph")
#: Message sizes of the winner table: the paper's 1 KB and 128 KB, and the 128 B of its finding 1.
WINNER_SIZES = (128, 1024, 131072)

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
    """One COM matrix ``(com_spec, dim, units, one_port, algorithms, seed, extra)`` on the ``2**dim``-node hypercube.

    Builds the matrix (see :func:`_com`) and its exchange for every unit
    size, plans each algorithm (``seed``) on the first, and simulates every
    plan at every size under ``Circuit()`` (and ``Circuit(one_port=True)``
    if ``one_port``). Returns ``{"bound": {(unit, model): ms}, "algorithms":
    {name: (phases, planning ms, {(unit, model): ms})}, "stats": com_stats}``,
    plus, if ``"ipsc" in extra``, ``"ipsc": {(size, name, pairwise): ms}``
    (:func:`~collsched.algorithms.permutations.ipsc.ipsc_time` at each of
    :data:`WINNER_SIZES`), if ``"ipsc_units" in extra``, ``"ipsc_units":
    {(unit, name): ms}`` (the same at the cell's units, pairwise advantage
    on), and if ``"lambdas" in extra``, ``"lambdas":
    {(heap variant, lambda): (phases, {unit: Circuit ms}, {unit: iPSC ms})}``
    for each of the paper's trial lambdas.
    """
    spec, dim, units, one_port, algorithms, seed, extra = cell
    p = _hypercube(dim)
    com = _com(spec)
    mods = {"circuit": models.Circuit()}
    if one_port:
        mods["one_port"] = models.Circuit(one_port=True)
    cs_ = {u: samples.to_alltomany(com, p.hosts, unit=u) for u in units}
    bound = {(u, name): _bound(p, c, model) for u, c in cs_.items() for name, model in mods.items()}
    out, ipsc, lam, plans = {}, {}, {}, {}
    sized = {u: cs_.get(u) or samples.to_alltomany(com, p.hosts, unit=u) for u in WINNER_SIZES} \
        if "ipsc" in extra else {}
    for a in algorithms:
        s, ms = _plan(p, cs_[units[0]], a, seed)
        phases = s.params.get("iterations", len(s)) if a == "lp" else len(s)
        comm = {(u, name): _comm(p, s, c, a, model) for u, c in cs_.items() for name, model in mods.items()}
        out[a] = (phases, ms, comm)
        lam[a] = s.params.get("lam")
        plans[a] = s
        for u, c in sized.items():
            for pw in (True, False):
                ipsc[u, a, pw] = ipsc_time(p, s, c, scheme=paper.SCHEME[a], pairwise=pw) * 1e3
    result = {"bound": bound, "algorithms": out, "stats": samples.com_stats(com), "lam": lam}
    if "ipsc" in extra:
        result["ipsc"] = ipsc
    if "ipsc_units" in extra:
        result["ipsc_units"] = {(u, a): ipsc_time(p, s_, c, scheme=paper.SCHEME[a]) * 1e3
                                for a, s_ in plans.items() for u, c in cs_.items()}
    if "lambdas" in extra:
        lams = {}
        for a in HEAPS:
            for lam in paper_lambdas(len(p.hosts)):
                s = get(a).function(p, cs_[units[0]], seed=seed, lam=lam)
                lams[a, lam] = (len(s), {u: _comm(p, s, c, a, mods["circuit"]) for u, c in cs_.items()},
                                {u: ipsc_time(p, s, c, scheme=paper.SCHEME[a]) * 1e3 for u, c in cs_.items()})
        result["lambdas"] = lams
    return result


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
               " the iPSC/860's advantage of the P variants is costed in the winner table below (ipsc_time)."))
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


def _mean(v) -> float:
    return float(np.mean(v)) if len(v) else float("nan")


def _paper_winner(d: int, size: int) -> str | None:
    """The algorithm of least time in Table 1's cell, or the one finding 1 names for 128 B at d = 32."""
    if size in (1024, 131072):
        col = 0 if size == 1024 else 1
        return min(paper.TABLE1[d], key=lambda a: paper.TABLE1[d][a][col])
    return "ac" if size == 128 and d == 32 else None


def _winners(ds, n_samples, results) -> tuple[Table, dict]:
    """The winner per (d, size) on the iPSC/860 model, with and without the pairwise advantage, and the paper's."""
    times: dict = {}
    for i, d in enumerate(ds):
        for r in results[i * n_samples:(i + 1) * n_samples]:
            for (u, a, pw), v in r["ipsc"].items():
                times.setdefault((d, u, a, pw), []).append(v)
    win = {}
    rows = []
    for d in ds:
        for u in WINNER_SIZES:
            m = {pw: {a: _mean(times[d, u, a, pw]) for a in UNIFORM} for pw in (True, False)}
            best = {pw: min(m[pw], key=m[pw].get) for pw in (True, False)}
            win[d, u] = best[True]
            win["pairs", d, u] = (m[True]["rs_nlp"], m[False]["rs_nlp"], m[True]["rs_nl"])
            rows.append((d, u, best[True], _r(m[True][best[True]]), best[False], _r(m[False][best[False]]),
                         _r(m[True]["rs_nlp"]), _r(m[True]["lp"]), _r(m[True]["ac"]), _paper_winner(d, u)))
    return Table(
        "Table 1: winner per cell (iPSC/860 model, ms)",
        ("d", "size", "winner", "winner ms", "winner no pairwise", "ms no pairwise", "rs_nlp", "lp", "ac",
         "paper winner"), tuple(rows),
        notes=("Costed by collsched.algorithms.permutations.ipsc.ipsc_time: half-duplex nodes, circuit-switched"
               " routes, a handshake of one route latency per message (S1's ready signal; S2's long-message"
               " protocol over 100 B), list-scheduled in schedule order; the same schedules as the tables above.",
               "winner: with the iPSC/860's pairwise exchange costing one message time (pairwise=True);"
               " winner no pairwise: every exchange is two messages.",
               "paper winner: least time in Table 1's cell; at 128 B only finding 1's d = 32 cell is named (AC)."),
        plot=None), win


def _best_measured(lambdas: dict, a: str, lams) -> tuple:
    """The paper's rule for one sample: per unit size, the least simulated time over the trial lambdas.

    Returns ``(phases, {unit: ms}, None, lambda)``, phases and lambda those of the best trial at unit 2048.
    """
    units = lambdas[a, lams[0]][1]
    at = min(lams, key=lambda lam: lambdas[a, lam][1][2048])
    return lambdas[a, at][0], {u: min(lambdas[a, lam][1][u] for lam in lams) for u in units}, None, at


def _heap_lambdas(ds, n_samples, results) -> Table:
    """Table 2's heap variants under three lambda rules: (n-1)/n, the paper's (best measured of its trials), ours."""
    rows = []
    for i, d in enumerate(ds):
        rs = results[i * n_samples:(i + 1) * n_samples]
        for a in HEAPS:
            lams = sorted({lam for r in rs for (b, lam) in r["lambdas"] if b == a}, reverse=True)
            rules = {"(n-1)/n": [r["lambdas"][a, lams[0]] + (lams[0],) for r in rs],
                     "paper: best measured": [_best_measured(r["lambdas"], a, lams) for r in rs]}
            est = [(r["algorithms"][a][0], {u: r["algorithms"][a][2][u, "circuit"] for u in (256, 2048)}, None,
                    r["lam"][a]) for r in rs]
            rules["ours: estimate"] = est
            for rule, picks in rules.items():
                pr = paper.TABLE2[d][a]
                rows.append((d, a, rule, _r(_mean([x[3] for x in picks]), 4), _r(_mean([x[0] for x in picks])),
                             pr[2], _r(_mean([x[1][256] for x in picks])), pr[0],
                             _r(_mean([x[1][2048] for x in picks])), pr[1]))
    return Table(
        "Table 2: heap variants by lambda rule (n = 64, ms)",
        ("d", "algorithm", "lambda rule", "lambda", "phases ours", "phases paper", "comm 256 ours", "comm 256 paper",
         "comm 2048 ours", "comm 2048 paper"), tuple(rows),
        notes=("(n-1)/n: the first of the paper's trial values (63/64); paper: each sample and unit keeps the least"
               " simulated time (Circuit()) over the trial values ((n-1)/n, (n-2)/n, (n-4)/n, ..., 3/4), as the"
               " paper kept the best measured one (lambda and phases: those of the best at unit 2048); ours: the"
               " lambda the planner's estimate picks (lam=None).",
               "comm: simulated under Circuit() as in Table 2 above."))


def _ipsc_nonuniform(ds, n_samples, r_table2, r_table3) -> Table:
    """Tables 2 and 3's algorithms costed on the iPSC/860 model (mean ms per cell), beside the paper's."""
    rows = []
    for i, d in enumerate(ds):
        rs = r_table2[i * n_samples:(i + 1) * n_samples]
        for a in NONUNIFORM:
            rows.append(("Table 2", d, a, *[_r(_mean([r["ipsc_units"][u, a] for r in rs])) for u in (256, 2048)],
                         *paper.TABLE2[d][a][:2]))
    for a in NONUNIFORM:
        rows.append(("Table 3", 32, a, *[_r(_mean([r["ipsc_units"][u, a] for r in r_table3])) for u in (128, 512)],
                     *paper.TABLE3[a][1:3]))
    return Table("Tables 2-3 on the iPSC/860 model (ms)",
                 ("table", "d", "algorithm", "small unit ours", "large unit ours", "small unit paper",
                  "large unit paper"), tuple(rows),
                 notes=("Table 2: units 256 and 2048 bytes; Table 3 (d: its 32 nodes): units 128 and 512 bytes.",
                        "ipsc_time with the pairwise advantage, each algorithm under the paper's scheme."))


def _verdict(ok: bool | None, partly: bool = False) -> str:
    return "not run" if ok is None else ("holds" if ok else ("partly" if partly else "does not hold"))


def _findings(tables: dict, win: dict, ds) -> Table:
    """One row per finding of seed 002: the paper's statement, ours, holds / partly / does not hold, and why."""
    rows = []
    pairs = {k[1:]: v for k, v in win.items() if k[0] == "pairs"}
    win = {k: v for k, v in win.items() if k[0] != "pairs"}
    ac_cells = [(d, u) for (d, u) in ((4, 1024), (4, 128), (32, 128)) if (d, u) in win]
    ac_wins = [c for c in ac_cells if win[c] == "ac"]
    rows.append(("1. AC best for d <= 4 and small messages (<= 1 KB at d = 4, <= 128 B at d = 32)",
                 "winners at " + ", ".join(f"d={d} {u} B: {win[d, u]}" for d, u in ac_cells),
                 _verdict(len(ac_wins) == len(ac_cells) if ac_cells else None, bool(ac_wins)),
                 "in our model a message holds its sender and its receiver (half duplex) and AC sends in destination"
                 " order, so messages queue at common receivers; on the iPSC/860 an early message may land in a"
                 " system buffer without the receiver, which we do not model"))
    lp_cells = [(d, 131072) for d in ds if d >= 32]
    rows.append(("2. LP best for d >= 32 and messages > 1 KB",
                 ", ".join(f"d={d} 128 KB: {win[c]}" for c in lp_cells for d in [c[0]]) or "d >= 32 not run",
                 _verdict(all(win[c] == "lp" for c in lp_cells) if lp_cells else None),
                 "LP's 63 xor phases are pairwise exchanges without link contention: one message time per phase"))
    other = [c for c in win if c not in ac_cells and c not in lp_cells and c[1] != 128]
    nlp = [c for c in other if win[c] == "rs_nlp"]
    rows.append(("3. RS_NLP best in most other (d, size) cells (1 KB and 128 KB)",
                 f"rs_nlp wins {len(nlp)} of {len(other)}; elsewhere " +
                 ", ".join(f"d={d} {u} B: {win[d, u]}" for d, u in other if win[d, u] != "rs_nlp"),
                 _verdict(len(nlp) == len(other) if other else None, 2 * len(nlp) >= len(other)),
                 "a phase a node takes no part in costs it nothing in our model, so LP's 63 phases cost only their"
                 " messages; the paper's LP pays ~0.44 ms per phase even at d = 4 (34.3 ms against 6.5 ms)"))
    ph = tables["Table 1: phases (n = 64)"]
    over = [d for d, b, n in zip(ph.column("d"), ph.column("d + log d"), ph.column("rs_n ours")) if n > b]
    rows.append(("RS_N needs at most d + log d phases",
                 "means " + ", ".join(f"{n} (d={d})" for d, n in zip(ph.column("d"), ph.column("rs_n ours"))),
                 _verdict(not over), "random d-regular patterns as the paper's; e-cube routes"))
    extra = [round(b - a, 2) for a, b in zip(ph.column("rs_n ours"), ph.column("rs_nl ours"))]
    rows.append(("Avoiding link contention costs a few phases (RS_NL ~1-3 over RS_N)", f"+{extra} phases",
                 _verdict(all(0 <= e <= 3 for e in extra), True), "Check_Path refuses routes sharing a link"))
    big = [(d, *pairs[d, 131072]) for d in ds]
    rows.append(("Pairwise exchanges are worth exploiting on the iPSC/860 (conclusion 4)",
                 "128 KB, rs_nlp with / without the pairwise advantage, rs_nl: " +
                 "; ".join(f"d={d}: {_r(a, 1)} / {_r(b, 1)}, {_r(c, 1)}" for d, a, b, c in big),
                 _verdict(all(a < c for _, a, _, c in big), any(a < c for _, a, _, c in big)),
                 "the advantage (one message time per exchange) is this model's assumption; RS_NLP gains as much as"
                 " its phases hold exchanges, most at large d"))
    t2 = tables["Table 2: non-uniform sizes (n = 64, ms)"]
    by = {(d, a): c for d, a, c in zip(t2.column("d"), t2.column("algorithm"), t2.column("comm 2048 ours"))}
    d2 = sorted({d for d, _ in by if d <= 16})
    by256 = {(d, a): c for d, a, c in zip(t2.column("d"), t2.column("algorithm"), t2.column("comm 256 ours"))}
    lam = tables["Table 2: heap variants by lambda rule (n = 64, ms)"]
    best = {(d, a, u): v for d, a, rule, v256, v2048 in zip(
        lam.column("d"), lam.column("algorithm"), lam.column("lambda rule"), lam.column("comm 256 ours"),
        lam.column("comm 2048 ours")) if rule == "paper: best measured" for u, v in ((256, v256), (2048, v2048))}
    cells = [(d, a, u) for d in d2 for a in HEAPS for u in (256, 2048)]
    wins = [c for c in cells if best[c] < (by256 if c[2] == 256 else by)[c[0], "rs_nlp"]]
    rows.append(("Table 2: heaps (RS_NLH, RS_NLPH) beat RS_NLP for d = 4 .. 16",
                 "the paper's lambda rule, Circuit, units 256 / 2048: " + "; ".join(
                     f"d={d}: rs_nlh {best[d, 'rs_nlh', 256]} / {best[d, 'rs_nlh', 2048]}, rs_nlph"
                     f" {best[d, 'rs_nlph', 256]} / {best[d, 'rs_nlph', 2048]}, rs_nlp {by256[d, 'rs_nlp']} /"
                     f" {by[d, 'rs_nlp']}" for d in d2),
                 _verdict(len(wins) == len(cells), bool(wins)),
                 f"{len(wins)} of {len(cells)} (variant, d, unit) cells; equal-size pieces per phase keep small"
                 " messages from waiting for the largest; RS_NLPH's pairwise exchanges gain nothing under Circuit()"))
    ip = tables["Tables 2-3 on the iPSC/860 model (ms)"]
    ipsc = {(t, d, a): v for t, d, a, v in zip(ip.column("table"), ip.column("d"), ip.column("algorithm"),
                                               ip.column("large unit ours"))}
    dense = sorted({d for d, _ in by if d >= 32})

    def lp_best(cost):
        return all(cost[d, "lp"] <= min(v for (e, a), v in cost.items() if e == d) for d in dense)

    ip2 = {(d, a): v for (t, d, a), v in ipsc.items() if t == "Table 2"}
    rows.append(("Table 2: LP best for d >= 32 with non-uniform sizes",
                 ("unit 2048, Circuit / iPSC/860 model: " + "; ".join(
                     f"d={d}: lp {by[d, 'lp']} / {ip2[d, 'lp']}, best other "
                     f"{min(v for (e, a), v in by.items() if e == d and a != 'lp')} / "
                     f"{min(v for (e, a), v in ip2.items() if e == d and a != 'lp')}" for d in dense))
                 if dense else "d >= 32 not run",
                 _verdict(lp_best(by) and lp_best(ip2), lp_best(by) or lp_best(ip2)) if dense else "not run",
                 "Circuit() gives a pairwise exchange no advantage; the iPSC/860 model does, and charges nothing"
                 " for the phases a node skips"))
    lam = tables["Table 2: heap variants by lambda rule (n = 64, ms)"]
    first = [(d, a, ph, pp) for d, a, rule, ph, pp in zip(lam.column("d"), lam.column("algorithm"),
             lam.column("lambda rule"), lam.column("phases ours"), lam.column("phases paper")) if rule == "(n-1)/n"]
    rows.append(("Table 2: phases of the heap variants (8.16 .. 60.98)",
                 "at lambda = 63/64: " + "; ".join(f"d={d} {a}: {ph} vs {pp}" for d, a, ph, pp in first),
                 _verdict(all(abs(ph - pp) <= 0.1 * pp + 1 for _, _, ph, pp in first)),
                 "the paper's phase counts come out at its first trial value; smaller lambdas cut more pieces"))
    t3 = tables["Table 3: CFD-like matrix (n = 32, ms)"]
    c3 = dict(zip(t3.column("algorithm"), t3.column("comm 512 ours")))
    i3 = {a: v for (t, _, a), v in ipsc.items() if t == "Table 3"}
    rows.append(("Table 3: RS_NLPH better than RS_NLH on the CFD matrix",
                 f"unit 512, Circuit: rs_nlph {c3['rs_nlph']}, rs_nlh {c3['rs_nlh']}; iPSC/860 model: rs_nlph"
                 f" {i3['rs_nlph']}, rs_nlh {i3['rs_nlh']}",
                 _verdict(c3["rs_nlph"] < c3["rs_nlh"] and i3["rs_nlph"] < i3["rs_nlh"],
                          c3["rs_nlph"] < c3["rs_nlh"] or i3["rs_nlph"] < i3["rs_nlh"]),
                 "Circuit() gives a pairwise exchange no advantage, the iPSC/860 model one message time; our"
                 " matrices only share the paper's statistics"))
    return Table("Findings of seed 002", ("paper", "ours", "verdict", "why"), tuple(rows))


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
        Tables 1 (phases, communication, scheduling, winners on the iPSC/860 model), 2 (and its heap
        variants by lambda rule) and 3, Table 3's matrix statistics, and the findings of seed 002.

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
                base + 1_000 * d + k, ("ipsc",)) for d in ds for k in range(n_samples)]
    table2 = [(("random", 64, d, base + 7_000 + 100 * d + k, 64), 6, (256, 2048), False, NONUNIFORM, base + k,
               ("lambdas", "ipsc_units")) for d in ds2 for k in range(n_samples)]
    table3 = [(("cfd", base + k), 5, (32, 128, 512), False, NONUNIFORM, base + k, ("ipsc_units",))
              for k in range(n_cfd)]
    results = options.map(_run_sample, uniform + table2 + table3, label="permutations samples")
    r_uniform, r_table2, r_table3 = (results[:len(uniform)], results[len(uniform):len(uniform) + len(table2)],
                                     results[len(uniform) + len(table2):])
    tables = list(_uniform(ds, n_samples, one_port, r_uniform))
    t_win, win = _winners(ds, n_samples, r_uniform)
    tables.append(t_win)
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
    tables.append(_heap_lambdas(ds2, n_samples, r_table2))
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
    tables.append(_ipsc_nonuniform(ds2, n_samples, r_table2, r_table3))
    tables.append(_findings({t.title: t for t in tables}, win, ds))
    return Report("permutations", tuple(tables))
