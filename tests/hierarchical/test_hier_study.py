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
    findings = report.table("findings")
    assert findings.columns == ("finding", "paper", "ours", "holds", "why")
    marks = {r[0]: r[3] for r in findings.rows}
    assert set(marks.values()) <= {"holds", "partly", "does not hold"}
    assert marks["Fig. 4: flat tree"] == "holds" and marks["Fig. 4: ECEF family"] == "holds"
    # FEF: within a few percent of ECEF with the g + L weight; clearly worse weighted by latency or without T_k
    assert marks["Fig. 4: FEF"] == "does not hold"
    assert marks["Fig. 4: FEF, latency weight"] == "holds" and marks["Fig. 4: FEF, T_k = 0"] == "holds"
    # Fig. 3: below 50% at the assumed 50 MB/s WAN; ECEF and ECEF-LAT reach it at 25 MB/s
    assert marks["Fig. 3: gain"] == "does not hold" and marks["Fig. 3: gain, WAN 25 MB/s"] == "partly"
    wan = report.table("Figure 3 with other WAN bandwidths (assumed)")
    row = dict(zip(wan.columns, wan.rows[0]))
    assert row["WAN MB/s"] == 25.0 and row["ecef"] == "56%" and row["fef"] == "36%"
    # the paper's clustering rule finds Table 3's six clusters in every +-2% noisy draw, with both rules
    assert report.table("clustering of noisy Table-3 matrices").rows == (("2%", "lowekamp", 15, 15, 6, 6),
                                                                         ("2%", "pairwise", 15, 15, 6, 6))


def test_grid_broadcast_study_cli(tmp_path):
    result = CliRunner().invoke(app, ["study", "grid-broadcast", "--quick", "--samples", "10", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert any(p.suffix == ".csv" for p in tmp_path.rglob("*"))
