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
