"""The permutations study runs in quick mode and puts ours beside Tables 1-3."""

from collsched.algorithms.permutations import paper
from collsched.studies.base import StudyOptions, get_study


def test_study_quick():
    r = get_study("permutations").run(StudyOptions(quick=True, samples=1))
    phases = r.table("Table 1: phases (n = 64)")
    assert phases.column("d") == [4, 16]
    assert phases.column("rs_n paper") == [paper.TABLE1[4]["rs_n"][2], paper.TABLE1[16]["rs_n"][2]]
    assert all(ours >= d for ours, d in zip(phases.column("rs_n ours"), phases.column("d")))
    comm = r.table("Table 1: communication time (ms)")
    assert all(g is None or g >= -1e-9 for g in comm.column("gap"))     # never below the bound
    t2 = r.table("Table 2: non-uniform sizes (n = 64, ms)")
    assert set(t2.column("algorithm")) == {"ac", "lp", "rs_nlp", "rs_nlph", "rs_nlh"}
    stats = r.table("Table 3: matrix statistics")
    assert dict(zip(stats.column("statistic"), stats.column("ours")))["max_len"] == 276


def test_study_quick_prints_winners_lambdas_and_findings():
    from collsched.studies.permutations import _paper_winner

    r = get_study("permutations").run(StudyOptions(quick=True, samples=1))
    win = r.table("Table 1: winner per cell (iPSC/860 model, ms)")
    assert win.column("paper winner") == [_paper_winner(d, u) for d, u in zip(win.column("d"), win.column("size"))]
    assert win.column("paper winner")[1] == "ac" and win.column("paper winner")[2] == "rs_nlp"   # d = 4: 1 KB, 128 KB
    # the winner is the least of the columns it is picked from
    for w, ms, *rest in zip(win.column("winner"), win.column("winner ms"), win.column("rs_nlp"), win.column("lp")):
        assert ms <= min(rest)
    lam = r.table("Table 2: heap variants by lambda rule (n = 64, ms)")
    assert set(lam.column("lambda rule")) == {"(n-1)/n", "paper: best measured", "ours: estimate"}
    assert {x for x, rule in zip(lam.column("lambda"), lam.column("lambda rule")) if rule == "(n-1)/n"} == {0.9844}
    ip = r.table("Tables 2-3 on the iPSC/860 model (ms)")
    assert [(t, d) for t, d in zip(ip.column("table"), ip.column("d"))] == [("Table 2", 4)] * 5 + [("Table 3", 32)] * 5
    f = r.table("Findings of seed 002")
    assert len(f.rows) == 10
    assert set(f.column("verdict")) <= {"holds", "partly", "does not hold", "not run"}
    assert dict(zip(f.column("paper"), f.column("verdict")))["2. LP best for d >= 32 and messages > 1 KB"] == "not run"
