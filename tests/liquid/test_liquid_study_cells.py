"""The liquid study's testbed traffics run as cells: a process pool gives the serial tables, a rerun reuses them."""

from collsched.studies import run_study

TIMED = ("share under 0.1 s", "p50 / p90 / max (ms)",   # wall times: the only cells allowed to differ
         "Search: > 90% of traffics under 0.1 s; 355 of 363 have a liquid schedule")


def _tables(report):
    return [(t.title, tuple(r for r in t.rows if r[0] not in TIMED)) for t in report.tables]


def test_a_process_pool_gives_the_serial_tables(tmp_path):
    serial = run_study("liquid", quick=True, out=tmp_path / "1", workers=1)
    pooled = run_study("liquid", quick=True, out=tmp_path / "2", workers=2)
    assert _tables(pooled) == _tables(serial)
    ticks = []
    again = run_study("liquid", quick=True, out=tmp_path / "2", workers=2, progress=lambda *t: ticks.append(t))
    assert ticks == [("liquid testbed", 1, 1), ("liquid traffics", 6, 6), ("liquid wirings", 7, 7),
                     ("liquid search space", 4, 4)]  # every cell read back, none computed
    assert again.tables == pooled.tables
    assert any(f.endswith(".png") for f in pooled.files)
