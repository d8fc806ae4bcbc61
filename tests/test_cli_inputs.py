"""Making inputs: ``collsched collective new``, its Python twin, the files in examples/, and the README's CLI block."""

import re
import shlex
import shutil
from pathlib import Path

import pytest

import collsched as cs
from collsched.collective_io import new_collective

from test_cli import run

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def readme_cli_commands():
    """The commands of the README's "On the command line" block, comments removed."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## On the command line\n\n```\n(.*?)```", text, re.S).group(1)
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


SLOW_OR_MPI = ("study", "run", "demo")  # minutes, MPI, or tested in test_cli.py


def test_readme_cli_block_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    commands = readme_cli_commands()
    assert [c[0] for c in commands] == ["collsched"] * len(commands)
    ran = 0
    for argv in commands:
        if argv[1] in SLOW_OR_MPI:
            continue
        code, out, err = run(argv[1:], capsys)
        assert code == 0, (argv, err)
        ran += 1
    assert ran >= 13
    # the files the README makes are those examples/ holds
    for name in ("tiers.json", "reduce.json", "scatter-series.json", "alltoall.json"):
        assert (tmp_path / name).read_text() == (EXAMPLES / name).read_text(), name


@pytest.mark.parametrize("argv, expected", [
    (["scatter", "--participants", "a,b", "--participants", "c", "--size", "1MB", "--source", "b"],
     cs.Scatter(source="b", targets=["a", "b", "c"], size=1e6)),
    (["broadcast", "--participants", "a,b,c", "--size", "8"], cs.Broadcast(source="a", targets=["a", "b", "c"], size=8)),
    (["gather", "--participants", "a,b,c", "--size", "1kB", "--target", "c"],
     cs.Gather(sources=["a", "b", "c"], target="c", size=1e3)),
    (["reduce", "--participants", "c,a,b", "--size", "64KiB", "--task-cost", "1Gf", "--count", "10"],
     cs.Series(cs.Reduce(participants=["c", "a", "b"], target="c", size=65536, task_cost=1e9), count=10)),
    (["alltoall", "--participants", "a,b,c", "--size", "1MB", "--receivers", "a,b"],
     cs.AllToAll(senders=["a", "b", "c"], receivers=["a", "b"], size=1e6)),
])
def test_collective_new_writes_what_it_says(tmp_path, capsys, argv, expected):
    out_file = tmp_path / "c.json"
    code, out, err = run(["collective", "new", *argv, "-o", str(out_file)], capsys)
    assert code == 0, err
    assert out.startswith(f"wrote {out_file}: ")
    assert cs.load_collective(out_file) == expected


def test_new_collective_is_the_python_twin():
    assert new_collective("gather", ["a", "b"], size="1kB", target="b") == cs.Gather(sources=["a", "b"], target="b",
                                                                                      size=1e3)


@pytest.mark.parametrize("argv, expected", [
    (["reduce", "--participants", "a,b", "--size", "1MB", "--source", "a"], "a reduce takes no source (its options: target, task_cost)"),
    (["gossip", "--participants", "a,b", "--size", "1MB"], "cannot make a collective of kind 'gossip'"),
    (["scatter", "--size", "1MB"], "no participants (give --participants h0,h1,... or --platform FILE)"),
    (["scatter", "--participants", "a,b", "--size", "1 parsec"], "cannot read '1 parsec' as a size"),
    (["gather", "--participants", "a,,b", "--size", "1"], "--participants 'a,,b' has an empty name"),
])
def test_collective_new_bad_input_is_one_line(tmp_path, capsys, argv, expected):
    code, _, err = run(["collective", "new", *argv, "-o", str(tmp_path / "c.json")], capsys)
    assert code == 2 and expected in err and err.count("\n") == 1, err
    assert not (tmp_path / "c.json").exists()


def test_collective_new_checks_hosts_against_the_platform(tmp_path, capsys):
    platform = str(EXAMPLES / "tiers.json")
    code, _, err = run(["collective", "new", "gather", "--platform", platform, "--participants", "h0,h99",
                        "--size", "1", "-o", str(tmp_path / "c.json")], capsys)
    assert code == 2 and "'h99'" in err and err.count("\n") == 1
    code, _, err = run(["collective", "new", "broadcast", "--platform", platform, "--size", "1",
                        "-o", str(tmp_path / "c.json")], capsys)
    assert code == 0 and cs.load_collective(tmp_path / "c.json").targets == cs.load_platform(platform).hosts


def test_example_files_plan_and_validate(tmp_path, capsys):
    for name in ("reduce.json", "scatter-series.json", "alltoall.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
        code, _, err = run(["plan", str(EXAMPLES / "tiers.json"), str(tmp_path / name), "-a",
                            "steady_state" if name.startswith("scatter") else "linear" if name == "reduce.json"
                            else "caterpillar", "-o", str(tmp_path / "s.json")], capsys)
        assert code == 0, (name, err)
