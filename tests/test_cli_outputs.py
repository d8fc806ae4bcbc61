"""Output paths: one rule for every command (the folder exists and is writable, the suffix names a format the
command writes), checked before any work, one line, exit code 2; the demo writes outside the working folder."""

import os
from pathlib import Path

import pytest

import collsched as cs
from collsched import cli_common

from test_cli import run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

# Every input is a file that does not exist: a command that did any work before checking its output
# would fail on its input instead.
MISSING = "missing.json"

COMMANDS = {
    "plan": (["plan", MISSING, MISSING, "-o", "{out}.json"], ".json"),
    "lower": (["lower", MISSING, MISSING, MISSING, "-o", "{out}.goal"], ".goal"),
    "report": (["report", MISSING, MISSING, "-o", "{out}.html"], ".html"),
    "simulate --gantt": (["simulate", MISSING, MISSING, MISSING, "--gantt", "{out}.png"], ".png"),
    "run --plot": (["run", MISSING, MISSING, MISSING, "--plot", "{out}.svg"], ".svg"),
    "calibrate": (["calibrate", MISSING, "-o", "{out}.json"], ".json"),
    "platform generate": (["platform", "generate", "star", "-p", "n=3", "-o", "{out}.xml"], ".xml"),
    "platform convert": (["platform", "convert", MISSING, "{out}.xml"], ".xml"),
    "collective new": (["collective", "new", "scatter", "--platform", MISSING, "--size", "1", "-o", "{out}.json"],
                       ".json"),
    "demo": (["demo", "--quick", "-o", "{out}.html"], ".html"),
    "study --out": (["study", "orderings", "--quick", "--out", "{out}"], None),
}


@pytest.fixture(autouse=True)
def no_work(monkeypatch):
    """The demo and the study would run for seconds: make them fail loudly if the check comes too late."""
    import collsched.demo
    import collsched.studies

    def boom(*args, **kwargs):
        raise AssertionError("work started before the output path was checked")

    monkeypatch.setattr(collsched.demo, "demo", boom)
    monkeypatch.setattr(collsched.demo, "demo_platform", boom)
    monkeypatch.setattr(collsched.studies, "run_study", boom)


def argv_with(case, out):
    argv, _ = COMMANDS[case]
    return [a.replace("{out}", str(out)) for a in argv]


@pytest.mark.parametrize("case", list(COMMANDS))
def test_missing_folder_refused_first(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(argv_with(case, tmp_path / "nodir" / "r"), capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("collsched: error: ")
    assert f"folder {tmp_path / 'nodir'} does not exist (create it first, or write elsewhere)" in err
    assert not (tmp_path / "nodir").exists()


@pytest.mark.parametrize("case", [c for c, (_, suffix) in COMMANDS.items() if suffix])
def test_unsupported_suffix_refused_first(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = [a[:-len(COMMANDS[case][1])] + ".txt" if a.startswith(str(tmp_path)) else a
            for a in argv_with(case, tmp_path / "r")]
    code, _, err = run(argv, capsys)
    assert code == 2 and "cannot tell the format of a '.txt' file (name it ." in err and err.count("\n") == 1, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_unwritable_folder_refused(tmp_path, capsys):  # pragma: no cover - CI runs as root
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o555)
    code, _, err = run(["platform", "generate", "star", "-p", "n=3", "-o", str(folder / "p.json")], capsys)
    assert code == 2 and "is not writable" in err


def test_existing_folder_as_file_refused(tmp_path, capsys):
    (tmp_path / "x.json").mkdir()
    code, _, err = run(["platform", "generate", "star", "-p", "n=3", "-o", str(tmp_path / "x.json")], capsys)
    assert code == 2 and "is a folder" in err


def test_simulate_gantt_no_longer_creates_folders(tmp_path, capsys):
    p, c = str(EXAMPLES / "tiers.json"), str(EXAMPLES / "reduce.json")
    s = str(tmp_path / "s.json")
    assert run(["plan", p, c, "-a", "binomial", "-o", s], capsys)[0] == 0
    code, _, err = run(["simulate", p, c, s, "--gantt", str(tmp_path / "figs" / "g.png")], capsys)
    assert code == 2 and "does not exist" in err and not (tmp_path / "figs").exists()


def test_demo_writes_its_report_outside_the_working_folder(tmp_path, monkeypatch, capsys):
    """``make demo`` at the repository root leaves the tree clean: the report goes to the temporary folder."""
    import tempfile

    import collsched.demo
    from collsched.compare import compare
    from collsched.demo import DemoSection

    p = cs.topologies.star(3)
    section = DemoSection("broadcast", compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)))
    monkeypatch.setattr(collsched.demo, "demo_platform", lambda seed: p)
    monkeypatch.setattr(collsched.demo, "demo", lambda seed, quick, progress: [section])
    work, temp = tmp_path / "repo", tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    code, out, err = run(["demo"], capsys)
    assert code == 0, err
    assert list(work.iterdir()) == []
    assert f"report: {temp / 'collsched-demo.html'}" in out
    assert (temp / "collsched-demo.html").read_text().startswith("<!DOCTYPE html>")


def test_check_output_accepts_the_working_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cli_common.check_output(Path("r.html"), (".html",), option="-o")
    cli_common.check_output(Path("results"), (), option="--out", folder=True)


def test_study_out_that_is_a_file_refused(tmp_path, capsys):
    (tmp_path / "results").write_text("")
    code, _, err = run(["study", "orderings", "--out", str(tmp_path / "results")], capsys)
    assert code == 2 and "is a file, not a folder" in err and err.count("\n") == 1
