"""``collsched validate`` and ``simulate``: a schedule for another collective, and programs with large message ids.

The checks live in the library (``collsched.schedules.validate``, ``schedules.program_io``); these tests show that
the command line gets them: one line, exit code 2, or a normal run.
"""

import json

import pytest

from test_cli import run, write


def collective(body):
    return {"format": "collsched", "version": 1, "kind": "collective", "collective": body}


PLATFORM = {"format": "collsched", "version": 1, "kind": "platform", "name": "p",
            "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "sw", "kind": "router"}],
            "links": [{"id": f"l{h}", "bandwidth": "1GBps", "latency": "10us", "ends": [h, "sw"]} for h in "abc"],
            "routing": {"kind": "shortest_path", "metric": "hops"}}
REDUCE = {"type": "reduce", "participants": ["a", "b", "c"], "target": "a", "size": 8, "task_cost": 10}
SCATTER = {"type": "scatter", "source": "a", "targets": ["a", "b", "c"], "size": 8}


@pytest.fixture
def files(tmp_path, capsys):
    """A platform, a reduce tree schedule planned by ``collsched plan``, and the file names."""
    names = {"platform": write(tmp_path, "p.json", PLATFORM), "reduce": write(tmp_path, "r.json", collective(REDUCE)),
             "schedule": str(tmp_path / "tree.json")}
    code, _, err = run(["plan", names["platform"], names["reduce"], "-a", "binomial", "-o", names["schedule"]], capsys)
    assert code == 0, err
    return names


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_reduce_tree_checked_against_a_scatter_series_is_an_error_naming_both(files, tmp_path, capsys, command):
    scatters = write(tmp_path, "s.json", collective({"type": "series", "count": 3, "of": SCATTER}))
    code, out, err = run([command, files["platform"], scatters, files["schedule"]], capsys)
    assert code == 2 and out == ""
    assert err == (f"collsched: error: {files['schedule']}: schedule 'binomial' was planned for a reduce to a over 3 hosts, not for the "
                   "series of 3 scatter from a over 3 hosts it is checked against (check it against the collective "
                   "it was planned for, or plan one for this collective)\n")


def test_a_reduce_tree_checked_against_its_reduce_or_a_series_of_it_is_valid(files, tmp_path, capsys):
    code, out, _ = run(["validate", files["platform"], files["reduce"], files["schedule"]], capsys)
    assert code == 0 and out.startswith("valid: ")
    reduces = write(tmp_path, "rs.json", collective({"type": "series", "count": 5, "of": REDUCE}))
    code, out, _ = run(["validate", files["platform"], reduces, files["schedule"]], capsys)
    assert code == 0 and out.startswith("valid: ") and "implement the series" in out


def test_a_reduce_of_other_sizes_is_another_collective(files, tmp_path, capsys):
    bigger = write(tmp_path, "r2.json", collective({**REDUCE, "size": 16}))
    code, _, err = run(["validate", files["platform"], bigger, files["schedule"]], capsys)
    assert code == 2 and err.count("\n") == 1
    assert err.endswith("it is checked against (size 8.0, not 16.0) (check it against the collective it was "
                        "planned for, or plan one for this collective)\n")


def program_with_id(msg):
    """A scatter a -> b as a program document whose one message has id ``msg``."""
    return {"format": "collsched", "version": 1, "kind": "program", "name": "big", "ranks": ["a", "b", "c"],
            "ops": [["a", "send", "b", msg, 8, [], [[0, 0, 0, 1, 0, 1]]], ["b", "recv", "a", msg, 8, [], []]]}


@pytest.mark.parametrize("msg", [2**40, 2 * 10**9, 2**63 - 1])
def test_programs_with_large_message_ids_validate_and_simulate(tmp_path, capsys, msg):
    platform = write(tmp_path, "p.json", PLATFORM)
    scatter = write(tmp_path, "c.json", collective({"type": "scatter", "source": "a", "targets": ["b"], "size": 8}))
    prog = write(tmp_path, "prog.json", program_with_id(msg))
    code, out, err = run(["validate", platform, scatter, prog], capsys)
    assert (code, out, err) == (0, "valid: 2 operations, 1 messages implement the scatter\n", "")
    code, out, err = run(["simulate", platform, scatter, prog], capsys)
    assert code == 0 and "makespan" in out and err == ""


@pytest.mark.parametrize("msg, expected", [
    (2**63, "expected a message id below 2**63, found 9223372036854775808 (renumber the messages)"),
    (2**64 + 5, "expected a message id below 2**63, found 18446744073709551621 (renumber the messages)"),
    (-1, "expected a message id >= 0, found -1"),
])
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_message_ids_past_int64_are_one_line_errors(tmp_path, capsys, command, msg, expected):
    platform = write(tmp_path, "p.json", PLATFORM)
    scatter = write(tmp_path, "c.json", collective({"type": "scatter", "source": "a", "targets": ["b"], "size": 8}))
    prog = write(tmp_path, "prog.json", program_with_id(msg))
    code, out, err = run([command, platform, scatter, prog], capsys)
    assert code == 2 and out == ""
    assert err == f"collsched: error: {prog}: ops[0][3]: {expected}\n"


def test_rendezvous_deadlock_is_found_only_when_asked(tmp_path, capsys):
    """a and b both send before they receive: fine with buffered sends, a deadlock with ``--rendezvous``."""
    platform = write(tmp_path, "p.json", PLATFORM)
    scatter = write(tmp_path, "c.json", collective({"type": "scatter", "source": "a", "targets": ["b"], "size": 8}))
    prog = write(tmp_path, "prog.json", {
        "format": "collsched", "version": 1, "kind": "program", "name": "swap", "ranks": ["a", "b", "c"],
        "ops": [["a", "send", "b", 0, 8, [], [[0, 0, 0, 1, 0, 1]]], ["b", "send", "a", 1, 0, [], []],
                ["a", "recv", "b", 1, 0, [0], []], ["b", "recv", "a", 0, 8, [1], []]]})
    assert run(["validate", platform, scatter, prog], capsys)[0] == 0
    code, out, err = run(["validate", platform, scatter, prog, "--rendezvous"], capsys)
    assert code == 2 and out == ""
    assert err == (f"collsched: error: {prog}: program 'swap': deadlock: rank a op 0 (send msg 0 to b), rank b op 0 (send msg 1 "
                   "to a), rank a op 1 (recv msg 1 from b) can never run (a cycle of waits)\n")


def test_lower_refuses_a_schedule_planned_for_another_collective(files, tmp_path, capsys):
    scatters = write(tmp_path, "s.json", collective({"type": "series", "count": 3, "of": SCATTER}))
    code, out, err = run(["lower", files["platform"], scatters, files["schedule"], "-o", str(tmp_path / "prog.json")],
                         capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{files['schedule']}: schedule 'binomial' was planned for a reduce" in err
    assert not (tmp_path / "prog.json").exists()
