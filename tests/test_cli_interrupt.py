"""Ctrl-C: a real SIGINT to ``collsched compare`` and ``collsched study`` ends with one line and exit code 130,
and a study run again goes on from the cells it had finished."""

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import collsched as cs

PYTHON_DIR = Path(cs.__file__).resolve().parent.parent

# A study of 24 cells of 0.1 s each; every computed cell appends its number to $SLOW_LOG.
SLOW_STUDY = textwrap.dedent('''
    import os, time
    from collsched.studies.base import Report, Table, study

    def cell(i):
        time.sleep(0.1)
        with open(os.environ["SLOW_LOG"], "a") as log:
            log.write(f"{i}\\n")
        return i * i

    @study("slow-test", title="slow", paper="none")
    def run(options):
        squares = options.map(cell, list(range(24)))
        return Report("slow-test", (Table("squares", ("n", "n2"), tuple(enumerate(squares))),))
''')

# The CLI, with compare announcing on stderr that it has started (so the SIGINT lands inside it).
CLI = textwrap.dedent('''
    import functools, sys
    import collsched.compare as m
    if "slowstudy" in sys.argv[1:2]:
        sys.argv.pop(1)
        import slowstudy
    original = m.compare
    @functools.wraps(original)
    def compare(*args, **kwargs):
        print("comparing", file=sys.stderr, flush=True)
        return original(*args, **kwargs)
    m.compare = compare
    from collsched.cli import main
    main()
''')


def start(tmp_path, *argv, log=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(PYTHON_DIR)]),
               SLOW_LOG=str(log or tmp_path / "log"))
    return subprocess.Popen([sys.executable, "-c", CLI, *argv], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def wait_for(condition, timeout=60.0):
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "the command did not get there in time"
        time.sleep(0.05)


@pytest.mark.parametrize("command, then", [("compare", "compare fewer with -a NAME"),
                                           ("plan", "plan one with -a NAME")])
def test_ctrl_c_in_compare_is_one_line_and_exit_130(tmp_path, command, then):
    """``compare``, and ``plan`` without an algorithm (which compares them all)."""
    p = cs.topologies.hypercube(7)
    cs.save_platform(p, tmp_path / "hc.json")
    cs.save_collective(cs.AllToAll(senders=p.hosts, size=1e6), tmp_path / "a2a.json")
    argv = ["compare", "hc.json", "a2a.json"] if command == "compare" else ["plan", "hc.json", "a2a.json", "-o", "s.json"]
    proc = start(tmp_path, *argv)
    try:
        assert proc.stderr.readline() == "comparing\n"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert out == ""  # no blank line, no half table
    assert re.fullmatch(r"collsched: interrupted; \d+ of \d+ algorithms done, nothing kept: run it again, "
                        rf"or {then}\n", err), err
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize("workers, group", [(1, False), (2, False), (2, True)])
def test_ctrl_c_in_study_keeps_finished_cells_and_resumes(tmp_path, workers, group):
    """SIGINT to the command alone (``timeout -s INT``), or to its process group with its workers (Ctrl-C)."""
    (tmp_path / "slowstudy.py").write_text(SLOW_STUDY)
    argv = ["slowstudy", "study", "slow-test", "--out", "out", "--workers", str(workers)]
    cells = tmp_path / "out" / "slow-test" / ".cells"
    proc = start(tmp_path, *argv, log=tmp_path / "first")
    try:
        wait_for(lambda: len(list(cells.glob("*/*.pkl"))) >= 3)
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    said = re.fullmatch(r"collsched: interrupted; (\d+) of 24 cells done, kept in out/slow-test/.cells; "
                        r"resume with: collsched study slow-test --out out --workers \d\n", err)
    assert said, err
    kept = len(list(cells.glob("*/*.pkl")))
    assert 3 <= int(said.group(1)) <= kept < 24
    # the same command again computes only the cells not kept
    proc = start(tmp_path, *argv, log=tmp_path / "second")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert len((tmp_path / "second").read_text().split()) == 24 - kept
    assert (tmp_path / "out" / "slow-test" / "squares.csv").read_text().splitlines()[-1] == "23,529"


def fake_compare(stop_after):
    """A compare that reports ``progress(done, total, name)`` after each algorithm and is interrupted after ``stop_after``."""
    names = ["a", "b", "c", "d", "e"]

    def compare(platform, collective, *, algorithms=None, model=None, seed=0, progress=None, budget=None,
                on_start=None):
        progress(0, len(names), "")
        for i, name in enumerate(names):
            if i == stop_after:
                raise KeyboardInterrupt
            progress(i + 1, len(names), name)

    return compare


@pytest.mark.parametrize("stop_after", [0, 2, 4])
def test_an_interrupted_compare_counts_what_finished(monkeypatch, stop_after):
    """Ctrl-C during ``compare``: one line counting the algorithms that finished."""
    import collsched.compare
    from collsched.cli import compare_with_progress
    from collsched.cli_common import Interrupted

    monkeypatch.setattr(collsched.compare, "compare", fake_compare(stop_after))
    p = cs.topologies.star(3)
    with pytest.raises(Interrupted, match=f"^interrupted; {stop_after} of 5 algorithms done, nothing kept"):
        compare_with_progress(p, cs.Broadcast(source="h0", targets=p.hosts, size=1),
                              algorithms=["a", "b", "c", "d", "e"], show=False)
