"""``collsched run`` and ``collsched calibrate``: a schedule file over MPI, measured beside simulated."""

import collsched as cs
from conftest import needs_emulation, needs_mpi
from test_cli import run as cli

pytestmark = needs_mpi


def files(tmp_path):
    p = cs.topologies.star(4)
    c = cs.Gather(sources=p.hosts, target="h2", size=2e4)
    cs.save_platform(p, tmp_path / "p.json")
    cs.save_collective(c, tmp_path / "c.json")
    cs.save_schedule(cs.plan(p, c, algorithm="binomial"), tmp_path / "s.json")
    return [str(tmp_path / n) for n in ("p.json", "c.json", "s.json")]


def test_run_prints_measured_beside_simulated(tmp_path, capsys):
    plot = tmp_path / "cmp.png"
    code, out, err = cli(["run", *files(tmp_path), "--repeat", "2", "--baseline", "--plot", str(plot)], capsys)
    assert code == 0, err
    assert "every byte verified (2 repetitions)" in out
    assert "fluid (simulated)" in out and "makespan" in out
    assert "MPI_Gather: makespan" in out
    assert plot.stat().st_size > 1000


def test_calibrate_writes_a_measured_platform(tmp_path, capsys):
    p, _, _ = files(tmp_path)
    out_path = tmp_path / "m.json"
    code, out, err = cli(["calibrate", p, "-o", str(out_path), "--repeat", "2"], capsys)
    assert code == 0, err
    measured = cs.load_platform(out_path)
    assert measured.hosts == ("h0", "h1", "h2", "h3") and len(measured.links) == 12
    assert "6 pairs measured" in out
    c = cs.Broadcast(source="h0", targets=measured.hosts, size=1e6)  # a plan for the network as measured
    cs.validate(measured, c, cs.plan(measured, c, algorithm="binomial"))


def test_bad_option_is_one_line(tmp_path, capsys):
    code, out, err = cli(["run", *files(tmp_path), "--compute", "fast"], capsys)
    assert code == 2
    assert err.strip() == "collsched: error: --compute 'fast' is not allowed (give one of model, real)"


@needs_emulation
def test_run_on_the_emulated_network(tmp_path, capsys):
    code, out, err = cli(["run", *files(tmp_path), "--repeat", "1", "--emulate"], capsys)
    assert code == 0, err
    assert "over MPI (emulated star-4)" in out and "every byte verified" in out
