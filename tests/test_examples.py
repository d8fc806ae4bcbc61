"""Every script in examples/ runs and does what it says."""

import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out.png"
    monkeypatch.setattr(sys, "argv", [str(script), str(out)])
    runpy.run_path(str(script), run_name="__main__")
    assert out.exists() and out.stat().st_size > 10_000
    assert "makespan" in capsys.readouterr().out
