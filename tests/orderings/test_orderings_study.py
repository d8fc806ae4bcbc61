"""The orderings study runs in quick mode and reproduces seed 004's Table 8 closely."""

from collsched.studies.base import StudyOptions, get_study
from collsched.studies.orderings import TABLE_8


def test_orderings_study_quick():
    report = get_study("orderings").run(StudyOptions(quick=True))
    titles = [t.title for t in report.tables]
    assert titles[-1] == "findings" and len(titles) == 5
    table8 = report.table("all-to-some, asynchronous (Table 8, Figure 12)")
    for pct, name, mean, var, gap, paper in table8.rows:
        assert gap >= -1e-9 and var >= 0
        if paper != "":
            assert paper == TABLE_8[pct][("random", "caterpillar", "rspb", "orspb").index(name)]
            assert abs(mean - paper) / paper < 0.01       # within 1% of the paper's average
