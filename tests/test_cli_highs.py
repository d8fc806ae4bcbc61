"""HiGHS prints nothing on stdout (its banner came from the C++ constructor): not from ``collsched plan``, not
from the library; ``--debug`` lets it speak."""

import subprocess
import sys
from pathlib import Path

import collsched as cs

PYTHON_DIR = str(Path(cs.__file__).resolve().parent.parent)
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def python(code, *argv, cwd):
    """A fresh interpreter (the banner is printed once per process)."""
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": PYTHON_DIR, "PATH": "/usr/bin:/bin"})


def test_plan_steady_state_prints_no_banner(tmp_path):
    out = tmp_path / "s.json"
    cli = "from collsched.cli import main; main()"
    r = python(cli, "plan", str(EXAMPLES / "tiers.json"), str(EXAMPLES / "scatter-series.json"), "-a", "steady_state",
               "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "HiGHS" not in r.stdout and "HiGHS" not in r.stderr
    assert r.stdout == f"wrote {out}: steady_state (periodic), validated\n"
    r = python(cli, "--debug", "plan", str(EXAMPLES / "tiers.json"), str(EXAMPLES / "scatter-series.json"),
               "-a", "steady_state", "-o", str(out), cwd=tmp_path)
    assert r.returncode == 0 and "Running HiGHS" in r.stdout


def test_library_prints_no_banner(tmp_path):
    r = python("import collsched as cs\n"
               "p = cs.topologies.star(4)\n"
               "c = cs.Series(cs.Scatter(source='h0', targets=p.hosts, size=1e6), count=10)\n"
               "print(cs.plan(p, c, algorithm='steady_state').throughput)", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "HiGHS" not in r.stdout and len(r.stdout.splitlines()) == 1
