"""Errors are one line naming the file and the fix: no blank line before them, schedules from another platform."""

from pathlib import Path

import collsched as cs

from test_cli import run

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TIERS = str(EXAMPLES / "tiers.json")


def test_compare_error_has_no_blank_line(tmp_path, capsys):
    code, out, err = run(["compare", TIERS, str(EXAMPLES / "reduce.json"), "-a", "nosuch"], capsys)
    assert code == 2 and out == "" and err.startswith("collsched: error: unknown algorithm 'nosuch'")
    assert err.count("\n") == 1
    star = tmp_path / "star.json"
    cs.save_platform(cs.topologies.star(2), star)
    code, out, err = run(["compare", str(star), str(EXAMPLES / "reduce.json")], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and "'h2'" in err


def test_compare_prints_its_table_without_a_blank_line_first(capsys):
    code, out, _ = run(["compare", TIERS, str(EXAMPLES / "reduce.json"), "-a", "binomial", "-a", "linear"], capsys)
    assert code == 0 and out.splitlines()[0].strip() == "reduce on tiers-30n-seed3"


def test_schedule_from_another_platform_names_the_file_and_the_fix(tmp_path, capsys):
    collective = str(EXAMPLES / "scatter-series.json")
    schedule = str(tmp_path / "s.json")
    cs.save_schedule(cs.plan(cs.load_platform(TIERS), cs.load_collective(collective), algorithm="steady_state"),
                     schedule)
    star = str(tmp_path / "star16.json")
    cs.save_platform(cs.topologies.star(16), star)
    for argv in (["validate", star, collective, schedule], ["simulate", star, collective, schedule],
                 ["lower", star, collective, schedule, "-o", str(tmp_path / "p.json")]):
        code, out, err = run(argv, capsys)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith(f"collsched: error: {schedule}: the schedule names node 'lan")
        assert f"which '{star}' does not have: it was planned for another platform" in err
        assert f"(plan it for this one: collsched plan {star} {collective} -o {schedule})" in err


def test_schedule_of_another_collective_names_the_file(tmp_path, capsys):
    schedule = str(tmp_path / "s.json")
    assert run(["plan", TIERS, str(EXAMPLES / "reduce.json"), "-a", "binomial", "-o", schedule], capsys)[0] == 0
    code, _, err = run(["validate", TIERS, str(EXAMPLES / "alltoall.json"), schedule], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{schedule}: schedule 'binomial' was planned for a reduce" in err
    assert err.endswith("(check it against the collective it was planned for, or plan one for this collective)\n")


def test_exit_code_of_a_command_is_kept(monkeypatch, capsys):
    """``typer.Exit(1)`` inside a command (compare: no valid schedule) exits 1, not 0."""
    from types import SimpleNamespace

    import collsched.cli
    import collsched.compare

    failed = SimpleNamespace(candidates=[SimpleNamespace(valid=False)])
    monkeypatch.setattr(collsched.compare, "compare", lambda *args, **kwargs: failed)
    monkeypatch.setattr(collsched.cli, "comparison_table", lambda comparison, title: "table")
    monkeypatch.setattr(collsched.cli, "comparison_notes", lambda comparison: [])
    code, out, _ = run(["compare", TIERS, str(EXAMPLES / "reduce.json")], capsys)
    assert code == 1 and out == "table\n"
