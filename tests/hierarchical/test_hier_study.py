"""The grid-broadcast study runs in quick mode, through the runner, and shows the paper's findings."""

from typer.testing import CliRunner

from collsched.cli import app
from collsched.studies.base import StudyOptions, get_study


def test_grid_broadcast_study_quick():
    report = get_study("grid-broadcast").run(StudyOptions(quick=True))
    assert [t.title for t in report.tables][-1] == "findings"
    fig_b = report.table("Figure 4b: up to 50 clusters")
    assert fig_b.plot[0] == "clusters" and "ecef_lat_max" in fig_b.plot[1]
    for row in fig_b.rows:
        mean = dict(zip(fig_b.columns, row))
        assert mean["flat_tree"] == max(mean[h] for h in ("flat_tree", "fef", "ecef", "ecef_la", "ecef_lat",
                                                          "ecef_lat_max"))
    gaps = report.table("gap to the optimum")
    assert all(g >= -1e-9 for row in gaps.rows for g in row[3:])
    marks = dict((r[0], r[2]) for r in report.table("findings").rows)
    assert marks["flat tree worst"].startswith("yes") and marks["ECEF family alike"].startswith("yes")


def test_grid_broadcast_study_cli(tmp_path):
    result = CliRunner().invoke(app, ["study", "grid-broadcast", "--quick", "--samples", "10", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert any(p.suffix == ".csv" for p in tmp_path.rglob("*"))
