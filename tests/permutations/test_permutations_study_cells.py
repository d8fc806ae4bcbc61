"""The permutations study's samples run as cells: a process pool gives the serial tables, a rerun reuses them."""

from collsched.studies import run_study

def _timed(title, column):  # wall times of the planning calls: the only cells allowed to differ
    return column == "sched ours" or (title == "Table 1: scheduling time (ms)" and column == "ours")


def _tables(report):
    out = []
    for t in report.tables:
        keep = [j for j, c in enumerate(t.columns) if not _timed(t.title, c)]
        out.append((t.title, tuple(tuple(r[j] for j in keep) for r in t.rows)))
    return out


def test_a_process_pool_gives_the_serial_tables(tmp_path):
    serial = run_study("permutations", quick=True, out=tmp_path / "1", workers=1)
    pooled = run_study("permutations", quick=True, out=tmp_path / "2", workers=2)
    assert _tables(pooled) == _tables(serial)
    ticks = []
    again = run_study("permutations", quick=True, out=tmp_path / "2", workers=2, progress=lambda *t: ticks.append(t))
    assert ticks == [("permutations samples", 4, 4)]  # every sample read back, none computed
    assert again.tables == pooled.tables
    assert any(f.endswith(".png") for f in pooled.files)
