"""Seed 004's experiments: all-to-all and all-to-some orderings under send/receive overheads.

Settings of Chen and Liu (2002), section 5: every node's sending and
receiving overheads are equal and drawn from {1, 5, 10}; the network latency
is 1; messages cost nothing per byte; 100 runs per cell; all-to-all with
N = 30 .. 80 nodes; all-to-some with N = 100 nodes and 10% .. 60% of them
receivers; synchronous and asynchronous one-port models, ties between
senders broken at random. The synchronous experiments run under both
readings of how a busy receiver serves the senders waiting for it
(:mod:`collsched.studies.orderings_sim`): ``fifo`` (``OnePort``'s engine)
and ``random`` (the paper's event loop taken literally). Besides the paper's
four orders (random, caterpillar, RSPB, ORSPB) it runs Bhat et al.'s
matching, greedy and open shop and the asynchronous list schedule
``open_shop_async``, and reports every algorithm's gap to
:func:`collsched.bounds.exchange_bound`; a table of asynchronous orderings
(issue 18's instance, exact optimum by ``async_optimal``) goes beyond the
paper.

Examples
--------
>>> from collsched.studies.base import StudyOptions
>>> r = run(StudyOptions(quick=True, samples=1))
>>> [t.title for t in r.tables][:3]
['all-to-all, synchronous (Figures 6, 7)', 'all-to-all, synchronous, random service (Figures 6, 7)', \
'all-to-all, asynchronous (Figures 8, 9)']
"""

from __future__ import annotations

import numpy as np

from ..algorithms.baselines.caterpillar import caterpillar
from ..algorithms.orderings import (async_optimal, greedy, matching, open_shop, open_shop_async, orspb,
                                    overhead_platform, random_order, rspb)
from ..algorithms.orderings.costs import Exchange
from ..bounds import exchange_bound
from ..collectives import AllToAll
from ..schedules import StepSchedule
from ..simulation import models, simulate
from .base import Report, StudyOptions, Table, study
from .orderings_findings import findings_table
from .orderings_sim import sender_orders, simulate_orders

__all__ = ["run", "TABLE_8", "ALGORITHMS", "ASYNC_INSTANCE"]

ALGORITHMS = {"random": random_order, "caterpillar": caterpillar, "rspb": rspb, "orspb": orspb,
              "matching": matching, "greedy": greedy, "open_shop": open_shop, "open_shop_async": open_shop_async}
PAPER_FOUR = ("random", "caterpillar", "rspb", "orspb")

#: Seed 004, Table 8: average asynchronous all-to-some completion time (N = 100), by receiver share, in the order
#: random, caterpillar, RSPB, ORSPB (the paper's columns are random, RSPB, ORSPB, caterpillar).
TABLE_8 = {10: (992.27, 994, 992.21, 992.76), 20: (993.5, 994, 993.27, 993.14), 30: (994.84, 996, 994.83, 993.96),
           40: (996.23, 996, 996.05, 995.9), 50: (997.93, 1001, 997.36, 996.41), 60: (999.2, 1001, 998.91, 997.78)}

#: Issue 18's instance: send overheads, receive overheads (latency 1, size 1); asynchronous optimum 42 = bound.
ASYNC_INSTANCE = ((10, 1, 5, 1, 10), (1, 10, 5, 10, 1))

EXPERIMENTS = (("sync-a2a", "all-to-all, synchronous (Figures 6, 7)", True, False, "fifo"),
               ("sync-a2a", "all-to-all, synchronous, random service (Figures 6, 7)", True, False, "random"),
               ("async-a2a", "all-to-all, asynchronous (Figures 8, 9)", False, False, None),
               ("sync-a2s", "all-to-some, synchronous (Figures 10, 11)", True, True, "fifo"),
               ("sync-a2s", "all-to-some, synchronous, random service (Figures 10, 11)", True, True, "random"),
               ("async-a2s", "all-to-some, asynchronous (Table 8, Figure 12)", False, True, None))


def _run_cell(cell: tuple) -> dict[str, dict[str, tuple[float, float]]]:
    """One run of a cell ``(n, share, sync, k, seed)``: per service and algorithm, the makespan and its gap.

    Service ``"engine"``: :func:`collsched.simulate` under ``OnePort`` (the
    ``fifo`` reading when synchronous); synchronous cells add ``"random"``
    (:func:`~collsched.studies.orderings_sim.simulate_orders`).
    """
    n, share, sync, k, seed = cell
    model = models.OnePort(sync=sync, cost="overheads", ties="random")
    rng = np.random.default_rng([seed, n, int(100 * (share or 1)), int(sync), k])
    p = overhead_platform(rng.choice([1.0, 5.0, 10.0], size=n), latency=1.0)
    hosts = list(p.hosts)
    # all-to-some: a block of consecutive nodes, as in the paper's example (P80 .. P89 of 100)
    start = int(rng.integers(0, n))
    receivers = hosts if share is None else \
        sorted((hosts[(start + i) % n] for i in range(int(round(share * n)))), key=hosts.index)
    c = AllToAll(senders=hosts, receivers=receivers, size=1.0)
    bound = exchange_bound(p, c, model=model).value
    x = Exchange.of(p, c)
    out: dict[str, dict[str, tuple[float, float]]] = {"engine": {}, "random": {}} if sync else {"engine": {}}
    for name, algo in ALGORITHMS.items():
        s = algo(p, c, seed=k)
        prog = s.lower(p, c, sync="post_all") if isinstance(s, StepSchedule) else s.lower(p, c)
        makespan = simulate(p, prog, c, model=model, seed=k).makespan
        out["engine"][name] = (makespan, makespan / bound - 1)
        if sync:
            makespan = simulate_orders(x, sender_orders(x, s), service="random", seed=k)
            out["random"][name] = (makespan, makespan / bound - 1)
    return out


def _async_cell(case: tuple) -> tuple:
    """One row of the asynchronous-orderings table: ``case = (label, send overheads, receive overheads)``."""
    label, o_s, o_r = case
    p = overhead_platform(o_s, recv_overheads=o_r, latency=1.0)
    c = AllToAll(senders=p.hosts, size=1.0)
    model = models.OnePort(sync=False, cost="overheads")
    made = {}
    for name, algo in {**ALGORITHMS, "async_optimal": async_optimal}.items():
        s = algo(p, c, seed=1)
        prog = s.lower(p, c, sync="post_all") if isinstance(s, StepSchedule) else s.lower(p, c)
        made[name] = simulate(p, prog, c, model=model).makespan
    sync_best = min(v for a, v in made.items() if a not in ("open_shop_async", "async_optimal"))
    status = async_optimal(p, c).status.value
    return (label, round(exchange_bound(p, c, model=model).value, 6), round(sync_best, 6),
            round(made["open_shop_async"], 6), round(made["async_optimal"], 6), status)


def _figure_5() -> tuple[float, float]:
    """Seed 004's Figure 5 (P0 sends to P1, P2, P3; S.O. 2, L 1), every overhead assumed 2: (async, sync)."""
    from ..schedules import OrderSchedule

    p = overhead_platform([2, 2, 2, 2], latency=1.0)
    c = AllToAll(senders=["h0"], receivers=["h1", "h2", "h3"], size=1.0)
    s = OrderSchedule(orders={"h0": ("h1", "h2", "h3")}, collective=c)
    return tuple(round(simulate(p, s, c, model=models.OnePort(sync=sync, cost="overheads")).makespan, 9)
                 for sync in (False, True))


def _summary(runs: list[dict], service: str) -> dict[str, tuple[float, float, float]]:
    """Per algorithm: mean and variance of the makespan, and mean gap to the bound, over runs."""
    return {a: (float(np.mean([r[service][a][0] for r in runs])), float(np.var([r[service][a][0] for r in runs])),
                float(np.mean([r[service][a][1] for r in runs]))) for a in ALGORITHMS}


def _rows(cells, paper_of=None):
    rows = []
    for x, cell in cells:
        for name in ALGORITHMS:
            mean, var, gap = cell[name]
            paper = "" if paper_of is None or name not in PAPER_FOUR else paper_of(x, PAPER_FOUR.index(name))
            rows.append((x, name, round(mean, 2), round(var, 2), round(gap, 4), paper))
    return rows


@study("orderings", title="All-to-all and all-to-some orderings under send/receive overheads",
       paper="L.-R. Chen, P. Liu, Empirical studies of collective communication in heterogeneous cluster systems, 2002")
def run(options: StudyOptions) -> Report:
    """Seed 004's four experiment groups (Table 7) under both service readings, and every finding beside ours.

    Parameters
    ----------
    options : StudyOptions
        ``samples`` runs per cell (the paper: 100; quick: 1); quick mode
        keeps N = 30, the 10% receiver share and issue 18's instance only.

    Returns
    -------
    Report
        Six tables (mean, variance and gap to the bound per algorithm and
        size; the synchronous ones twice, ``fifo`` and ``random`` service),
        the asynchronous-orderings table, and the findings: per finding of
        the paper, its statement, ours, holds / partly / does not, and why.

    Examples
    --------
    >>> r = run(StudyOptions(quick=True, samples=1))
    >>> r.table("findings").columns
    ('finding', 'paper', 'ours', 'holds', 'why')
    """
    runs = options.n(100, 1)
    sizes = (30,) if options.quick else (30, 40, 50, 60, 70, 80)
    shares = (10,) if options.quick else (10, 20, 30, 40, 50, 60)
    note_gap = ("gap = simulated makespan / exchange_bound - 1 (open-shop bound of the model), averaged over runs",
                f"{runs} runs per cell; overheads drawn from {{1, 5, 10}} per node, latency 1, ties at random",
                "caterpillar: the baselines' 'caterpillar' steps lowered with sync='post_all' (its per-sender order);"
                " matching likewise")
    service_note = {"fifo": "service fifo: a busy receiver serves waiting senders in the order they became free "
                            "(OnePort's engine, collsched.simulate)",
                    "random": "service random: a busy receiver serves waiting senders in random order (seed 004's "
                              "event loop, section 4.2.2, read literally; collsched.studies.orderings_sim)",
                    None: "asynchronous: each receiver serves arrived messages earliest first (OnePort's engine)"}
    groups = {"sync-a2a": (True, False), "async-a2a": (False, False), "sync-a2s": (True, True),
              "async-a2s": (False, True)}
    xs = {key: shares if a2s else sizes for key, (_, a2s) in groups.items()}
    todo = [(100, x / 100, sync, k, options.seed) if a2s else (x, None, sync, k, options.seed)
            for key, (sync, a2s) in groups.items() for x in xs[key] for k in range(runs)]
    results = iter(options.map(_run_cell, todo, label="orderings runs"))
    raw = {key: [(x, [next(results) for _ in range(runs)]) for x in xs[key]] for key in groups}
    tables, cells_of = [], {}
    for key, title, sync, a2s, service in EXPERIMENTS:
        cells = [(x, _summary(rs, "engine" if service in (None, "fifo") else "random")) for x, rs in raw[key]]
        cells_of[key, service] = cells
        paper_of = (lambda x, i: TABLE_8[x][i]) if key == "async-a2s" else None
        column = "receivers %" if a2s else "N"
        tables.append(Table(title, (column, "algorithm", "ours mean", "ours variance", "gap to bound", "paper"),
                            _rows(cells, paper_of), notes=(service_note[service],) + note_gap,
                            plot=(column, ("ours mean",), "algorithm")))
    o_s, o_r = ASYNC_INSTANCE
    cases = [("issue 18 (5 nodes)", o_s, o_r)]
    if not options.quick:
        rng = np.random.default_rng(options.seed)
        cases += [(f"random 6 nodes #{i}", tuple(rng.choice([1.0, 5.0, 10.0], 6)),
                   tuple(rng.choice([1.0, 5.0, 10.0], 6))) for i in range(4)]
    asyn = Table("asynchronous orderings (beyond the paper)",
                 ("instance", "bound", "best synchronous-planned", "open_shop_async", "async_optimal", "status"),
                 options.map(_async_cell, cases, label="async orderings"),
                 notes=("all-to-all, latency 1, size 1; send and receive overheads differ per node (issue 18's "
                        "instance: o_s = [10, 1, 5, 1, 10], o_r = [1, 10, 5, 10, 1]); simulated under "
                        "OnePort(sync=False, cost='overheads')",
                        "best synchronous-planned: the least of random, caterpillar, RSPB, ORSPB, matching, greedy "
                        "and open_shop (seed 1); async_optimal: exact over all orderings (MILP), 'optimal' = proved"))
    tables.append(asyn)
    tables.append(findings_table(cells_of, TABLE_8, PAPER_FOUR, asyn, _figure_5()))
    return Report("orderings", tuple(tables))
