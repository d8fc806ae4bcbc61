"""The liquid study runs in quick mode, puts ours beside the paper's, and its testbed is sound."""

import numpy as np

from collsched.studies.base import StudyOptions, get_study
from collsched.studies.liquid import swiss_t1_testbed


def test_study_quick():
    r = get_study("liquid").run(StudyOptions(quick=True))
    ex = r.table("Figure 1: the paper's example")
    rows = {q: (ours, paper) for q, ours, paper in ex.rows}
    for q in ("transfers #(X)", "duration Λ(X)", "liquid schedule length", "round-robin phases"):
        assert rows[q][0] == rows[q][1]
    assert rows["round-robin phases with congestion"] == ("3 4", "3 4")
    tb = dict((q, (o, p)) for q, o, p in r.table("Testbed: node allocations of the Swiss-T1-like network").rows)
    assert tb["node allocations (0..4 nodes on each of 8 switches)"] == (390625, 390625)
    assert tb["distinct liquid throughputs (the testbed)"][1] == 363
    figs = r.table("Figures 8-10: throughput (MB/s) by node count")
    # a liquid schedule on identical links reaches the liquid throughput in the fluid model
    assert all(abs(x - 1) < 1e-6 for x in figs.column("computed / liquid"))
    assert all(x <= 1 + 1e-9 for x in figs.column("round-robin / liquid"))
    search = dict((q, o) for q, o, _ in r.table("Search time").rows)
    assert search["not solved (budget)"] == 0
    # the wiring search (tests/liquid/test_liquid_wiring.py checks its counts), Fig. 4 and the findings
    w = r.table("Swiss-T1 wiring search: distinct throughputs and conflict-graph edges")
    used = [row for row in w.rows if row[-1] == "chosen"]
    assert [(row[3], row[4]) for row in used] == [(37376, tb["distinct liquid throughputs (the testbed)"][0])]
    assert 48704 not in w.column("conflict edges")
    fig4 = dict((q, o) for q, o, _ in r.table("Fig. 4: search space of the full teams").rows)
    assert fig4["traffics"] == 4
    f = r.table("Findings of seed 001")
    assert len(f.rows) == 8 and set(f.column("verdict")) <= {"holds", "partly", "does not hold", "not run"}


def test_testbed_loads_match_the_traffics():
    from collsched.algorithms.liquid.traffic import traffic_of
    from collsched.collectives import AllToAll
    p, cfg, paths, group, counts, n_tr, lam = swiss_t1_testbed()
    rng = np.random.default_rng(0)
    for row in rng.choice(len(counts), 5, replace=False):
        hosts = [f"h{s * 4 + j}" for s in range(8) for j in range(int(counts[row, s]))]
        X = traffic_of(p, AllToAll(senders=hosts, size=1))
        assert (len(X), X.duration) == (n_tr[row], lam[row])
    g = group[len(group) // 2]
    row = int(rng.integers(len(counts)))
    image = np.empty(8, dtype=np.int64)
    image[list(g)] = counts[row]  # switch s's nodes moved to switch g[s]
    match = np.flatnonzero((counts == image).all(axis=1))
    assert lam[match[0]] == lam[row]  # a routing symmetry keeps the duration
