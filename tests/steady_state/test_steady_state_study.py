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
