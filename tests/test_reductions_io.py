"""ReduceScatter and AllReduce as files: the collective document, ``new_collective`` and ``collsched collective new``."""

import json

import pytest

import collsched as cs
from collsched.collective_io import collective_from_json, collective_to_json, new_collective
from test_cli import collective_doc, platform_doc, run, write


@pytest.mark.parametrize("collective", [
    cs.ReduceScatter(participants=["h2", "h0", "h1"], size=1e6, task_cost=2e6),
    cs.AllReduce(participants=["h1", "h0"], size=8, commutative=False),
    cs.Series(cs.AllReduce(participants=["h0", "h1", "h2"], size=8, task_cost=3), count=5),
])
def test_collective_documents_round_trip(collective):
    assert collective_from_json(collective_to_json(collective)) == collective


def test_the_document_fields_and_their_defaults():
    doc = collective_to_json(cs.ReduceScatter(participants=["a", "b"], size=8))
    assert '"type": "reducescatter", "participants": ["a", "b"], "size": 8.0, "task_cost": 0.0, ' \
           '"commutative": true' in doc
    body = {"type": "allreduce", "participants": ["a", "b"], "size": "1MB"}
    assert collective_from_json(json.dumps(collective_doc(body))) == cs.AllReduce(participants=["a", "b"], size=1e6)


@pytest.mark.parametrize("body, words", [
    ({"type": "reducescatter", "participants": ["a", "a"], "size": 8},
     "c.json: collective.participants: reducescatter participants lists 'a' twice"),
    ({"type": "allreduce", "participants": ["a"], "size": 8}, "allreduce participants has 1 host"),
    ({"type": "allreduce", "participants": ["a", "b"], "size": -8}, "c.json: collective.size"),
    ({"type": "allreduce", "participants": ["a", "b"], "size": 8, "task_cost": -1}, "c.json: collective.task_cost"),
    ({"type": "reducescatter", "participants": ["a", "b"], "size": 8, "commutative": "no"},
     "c.json: collective.commutative"),
])
def test_bad_documents_are_one_line(body, words):
    with pytest.raises(cs.FormatError) as info:
        collective_from_json(json.dumps(collective_doc(body)), where="c.json")
    assert words in str(info.value) and "\n" not in str(info.value)


def test_new_collective_makes_both():
    assert new_collective("reducescatter", ["b", "a"], size="64KiB", task_cost="1Mf", count=2) == \
        cs.Series(cs.ReduceScatter(participants=["b", "a"], size=65536, task_cost=1e6), count=2)
    assert new_collective("allreduce", ["a", "b"], size=8, commutative=False) == \
        cs.AllReduce(participants=["a", "b"], size=8, commutative=False)
    with pytest.raises(cs.CollschedError, match="a allreduce takes no target"):
        new_collective("allreduce", ["a", "b"], size=1, target="a")
    with pytest.raises(cs.CollschedError, match="a reduce takes no commutative"):
        new_collective("reduce", ["a", "b"], size=1, commutative=True)


def test_cli_collective_new(tmp_path, capsys):
    out = tmp_path / "rs.json"
    code, stdout, stderr = run(["collective", "new", "reducescatter", "--participants", "a,b,c", "--size", "1MB",
                                "--task-cost", "2Mf", "-o", str(out)], capsys)
    assert code == 0, stderr
    assert "reducescatter on 3 hosts, 1MB block per rank (3MB vectors), at least 6MB sent per operation" in stdout
    assert cs.load_collective(out) == cs.ReduceScatter(participants=["a", "b", "c"], size=1e6, task_cost=2e6)
    plat = write(tmp_path, "p.json", platform_doc())
    code, stdout, stderr = run(["collective", "new", "allreduce", "--platform", plat, "--size", "8", "--ordered",
                                "--count", "4", "-o", str(out)], capsys)
    assert code == 0, stderr
    assert "series of 4 allreduce on 3 hosts, 8B vector per rank, at least 24B sent per operation" in stdout
    assert cs.load_collective(out) == cs.Series(cs.AllReduce(participants=["a", "b", "c"], size=8,
                                                             commutative=False), count=4)
    code, _, stderr = run(["collective", "new", "allreduce", "--participants", "a,b", "--size", "8", "--source", "a",
                           "-o", str(out)], capsys)
    assert code == 2 and "a allreduce takes no source" in stderr and stderr.strip().count("\n") == 0
