"""Every benchmark answers ``--help`` with its usage and refuses a bad argument in one line (benchmarks/_cli.py).

The scripts run in this process (``runpy``, as ``__main__``): argparse
exits before any work, so each case costs the script's imports only.
"""

from __future__ import annotations

import doctest
import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))
LOCAL = {p.stem for p in BENCHMARKS.glob("*.py")}  # modules the scripts import from their folder (programs, _cli)


@pytest.fixture(autouse=True)
def _own_modules():
    """The benchmarks' ``programs`` is not the tests' ``programs``: each side finds its own."""
    saved = {name: sys.modules.pop(name) for name in LOCAL if name in sys.modules}
    yield
    for name in LOCAL:
        sys.modules.pop(name, None)
    sys.modules.update(saved)


def _exit_status(monkeypatch, script: Path, *args: str) -> int:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    monkeypatch.setattr("sys.argv", [script.name, *args])
    with pytest.raises(SystemExit) as stop:
        runpy.run_path(str(script), run_name="__main__")
    return stop.value.code


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_help_prints_the_usage_and_runs_nothing(script, monkeypatch, capsys):
    assert _exit_status(monkeypatch, script, "--help") in (0, None)
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: {script.name}") and err == ""


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_an_unknown_option_is_one_line_and_exit_2(script, monkeypatch, capsys):
    assert _exit_status(monkeypatch, script, "--no-such-option") == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(f"{script.name}: error: ") and "Traceback" not in err


def test_the_shared_command_line_examples(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import _cli

    assert doctest.testmod(_cli).failed == 0
