"""Studies at scale: cells on a process pool or a Dask cluster give the serial tables; interrupted runs resume."""

import pytest

from collsched.cli import main
from collsched.studies import run_study
from collsched.studies.base import _STUDIES, Report, Table, study

CALLS = []


def _square(x):
    CALLS.append(x)
    if x == 3 and "interrupt" in CALLS:
        CALLS.remove("interrupt")
        raise KeyboardInterrupt
    return x * x


@pytest.fixture
def squares_study():
    @study("test-squares", title="squares", paper="none")
    def run(options):
        values = options.map(_square, list(range(6)))
        return Report("test-squares", (Table("squares", ("x", "x²"), list(enumerate(values)), plot=("x", ("x²",))),))

    yield
    del _STUDIES["test-squares"]


def test_an_interrupted_study_resumes_without_recomputing(tmp_path, squares_study):
    CALLS.clear()
    CALLS.append("interrupt")
    with pytest.raises(KeyboardInterrupt):
        run_study("test-squares", out=tmp_path, workers=1)
    assert CALLS == [0, 1, 2, 3]  # cell 3 was interrupted
    CALLS.clear()
    report = run_study("test-squares", out=tmp_path, workers=1)
    assert CALLS == [3, 4, 5]
    assert report.table("squares").column("x²") == [0, 1, 4, 9, 16, 25]
    assert sorted(p.rsplit(".", 1)[1] for p in report.files) == ["csv", "png"]
    CALLS.clear()
    run_study("test-squares", out=tmp_path, workers=1, resume=False)
    assert CALLS == [0, 1, 2, 3, 4, 5]
    CALLS.clear()
    run_study("test-squares", out=tmp_path, workers=1, seed=7)  # other options: other cells
    assert len(CALLS) == 6


def tables(report):
    return [(t.title, t.rows) for t in report.tables]


def test_a_process_pool_gives_the_serial_tables(tmp_path, squares_study):
    serial = tables(run_study("test-squares", out=tmp_path / "1", workers=1))
    assert tables(run_study("test-squares", out=tmp_path / "2", workers=2)) == serial
    # a real study's cells pickle and run in spawned workers
    real = [tables(run_study("orderings", quick=True, samples=1, out=tmp_path / str(w), workers=w)) for w in (1, 2)]
    assert real[0] == real[1]


@pytest.mark.dask
def test_a_dask_local_cluster_gives_the_serial_tables(tmp_path, squares_study):
    import sys

    import cloudpickle
    from distributed import Client, LocalCluster

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test file
    serial = tables(run_study("test-squares", out=tmp_path / "s", workers=1))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            assert tables(run_study("test-squares", out=tmp_path / "a", dask=client)) == serial
        # by address, as `collsched study NAME --dask tcp://...` does
        assert tables(run_study("test-squares", out=tmp_path / "b", dask=cluster.scheduler_address)) == serial


def test_cli_study_with_an_unreachable_dask_scheduler(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["study", "orderings", "--quick", "--samples", "1", "--out", str(tmp_path), "--dask", "tcp://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err
    assert len(err.strip().splitlines()) == 1
