"""The steady-state study runs in quick mode and stands beside the paper's figures."""

from collsched.studies.base import StudyOptions, study_names
from collsched.studies.steady_state import PAPER_FIG12, run


def test_study_quick():
    assert "steady-state" in study_names()
    r = run(StudyOptions(quick=True))
    t = r.table("Tiers-like platforms (Fig. 12)")
    assert "ours (exact)" in t.columns and "paper" in t.columns
    assert t.plot == ("density", ("ours (exact)", "ours (simulated)"))
    assert all(row[-1] == PAPER_FIG12 for row in t.rows)
    # the LP optimum bounds every schedule, the binomial tree included
    assert all(x >= 1 - 1e-9 for x in t.column("ours (exact)"))
    t13 = r.table("complete graph, 10 nodes (Fig. 13)")
    assert len(t13.rows) == 3 and all(x >= 1 - 1e-9 for x in t13.column("ours (exact)"))


def test_study_prints_confidence_intervals_examples_and_findings():
    from fractions import Fraction

    r = run(StudyOptions(quick=True, samples=2, seed=3))
    t = r.table("Tiers-like platforms (Fig. 12)")
    assert t.column("platforms") == [2, 2]
    assert all(h is not None and h >= 0 for h in t.column("exact ± 95%"))
    ex = {row[0]: row for row in r.table("Worked examples").rows}
    assert ex["all-to-all on 3 nodes (A2A_COSTS), TP"][2] == str(Fraction(5, 16))
    assert ex["Fig. 2: series of scatters, TP"][1].startswith("fitted")
    assert ex["Fig. 6: series of reduces, TP"][1].startswith("fitted")
    f = r.table("Findings of seed 000")
    assert len(f.rows) == 6
    assert {v.split(" (")[0] for v in f.column("verdict")} <= {"holds", "partly", "does not hold"}
