"""The gpu-fabrics study (issue 15), quick version: its tables and the claims they carry."""

import pytest

from collsched.studies.base import StudyOptions
from collsched.studies.gpu_fabrics import GIGABYTE, TECCL, run


@pytest.fixture(scope="module")
def report():
    return run(StudyOptions(quick=True))


def _rows(table, **where):
    cols = table.columns
    return [dict(zip(cols, r)) for r in table.rows if all(dict(zip(cols, r))[k] == v for k, v in where.items())]


def test_tables_and_plot(report):
    assert [t.title for t in report.tables] == ["1 GB collectives, simulated (Fluid)", "exact optimum and solve time",
                                                "findings"]
    assert report.tables[0].plot == ("fabric", ("algbw GB/s",), "algorithm")


def test_exact_optima_of_the_quick_fabrics(report):
    opt = report.table("exact optimum and solve time")
    # dgx2(1): every GPU receives 15 blocks over its 125 GB/s switch link: x* = 125e9/15, algbw = 16 x*
    dgx2 = _rows(opt, fabric="dgx2(1)", collective="allgather")[0]
    assert dgx2["optimum algbw GB/s"] == pytest.approx(400 / 3, abs=1e-3)
    # ndv2(2): the one 12.5 GB/s link between chassis carries 8 blocks of 1 GB / 16 each way: 40 ms, 25 GB/s
    assert _rows(opt, fabric="ndv2(2)", collective="allgather")[0]["optimum algbw GB/s"] == 25.0
    a2a = _rows(opt, fabric="ndv2(2)", collective="alltoall")[0]
    assert a2a["exact rate (bytes/s per root, or op/s)"] == "25/8 op/s"


def test_every_algorithm_ran_and_forest_meets_the_bound_on_ndv2(report):
    t = report.table("1 GB collectives, simulated (Fluid)")
    ours = [r for r in _rows(t, fabric="ndv2(2)") if r["algorithm"] == "forest"]
    assert {r["collective"] for r in ours} == {"allgather", "reducescatter", "allreduce"}
    assert all(r["source"] == "collsched, Fluid" for r in _rows(t) if not r["algorithm"].startswith("TE-CCL"))
    ag = _rows(t, fabric="ndv2(2)", collective="allgather", algorithm="forest")[0]
    assert 40.0 <= ag["time ms"] <= 40.0 * 1.01          # the bandwidth bound, 1 GB / 25 GB/s, plus latency
    teccl = _rows(t, fabric="ndv2(2)", collective="allgather", algorithm="TE-CCL Fast")[0]
    assert teccl["time ms"] == 1e3 * TECCL["ndv2(2)", "allgather"]["Fast"][0] and teccl["plan s"] == 43.4


def test_findings_are_computed_from_the_rows(report):
    f = {r[0]: r[1] for r in report.table("findings").rows}
    assert f["ndv2(2) allgather: ours <= TE-CCL's published time (within 2%: partly)"] == "holds"
    assert f["ndv2(2) allreduce: ours <= the best baseline (simulated)"] == "holds"
    assert f["ndv2(2) allgather: TE-CCL's published time is at least our exact bound"] == "holds"
    assert GIGABYTE == 1e9


def test_teccl_ndv2_alltoall_is_flagged_as_a_15_gpu_run(report):
    rows = {r[0]: r for r in report.table("findings").rows}
    row = rows["ndv2(2) alltoall: TE-CCL's published time is at least our exact bound"]
    assert row[1] == "does not compare" and "switch_indices = [0]" in row[2] and "our bound 320.000 ms" in row[2]
