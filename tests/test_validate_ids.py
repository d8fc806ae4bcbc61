"""Message ids are labels: any integer 0 <= id < 2**63 validates and simulates, nothing is allocated per id value,
and ids past int64 are one-line errors when a program is read."""

import dataclasses
import json

import numpy as np
import pytest

import collsched as cs
from collsched import _core
from collsched.schedules.program_io import load_program, program_from_json, save_program

P = cs.topologies.star(3)
SCATTER = cs.Scatter(source="h0", targets=["h1", "h2"], size=8)
LARGE = [2**40, 2 * 10**9, 2**63 - 1]


def document(ids):
    """A scatter h0 -> h1, h2 whose two messages have ids ``ids``."""
    return json.dumps({"format": "collsched", "version": 1, "kind": "program", "name": "big",
                       "ranks": ["h0", "h1", "h2"],
                       "ops": [["h0", "send", "h1", ids[0], 8, [], [[0, 0, 0, 1, 0, 1]]],
                               ["h1", "recv", "h0", ids[0], 8, [], []],
                               ["h0", "send", "h2", ids[1], 8, [0], [[0, 0, 0, 2, 0, 1]]],
                               ["h2", "recv", "h0", ids[1], 8, [], []]]})


@pytest.mark.parametrize("msg", LARGE)
def test_a_program_file_with_a_large_id_loads_validates_and_simulates(tmp_path, msg):
    path = tmp_path / "prog.json"
    path.write_text(document([msg, 3]))
    prog = load_program(path)
    assert prog.op_msg.tolist() == [msg, msg, 3, 3]  # kept as written
    cs.validate(P, SCATTER, prog)
    cs.validate(P, SCATTER, prog, rendezvous=True)
    r = cs.simulate(P, prog, SCATTER)
    assert r.trace.msg.tolist() == [msg, msg, 3, 3]
    dense = cs.simulate(P, program_from_json(document([0, 1])), SCATTER)
    assert r.trace.end.tolist() == dense.trace.end.tolist()
    save_program(prog, tmp_path / "again.json")
    assert load_program(tmp_path / "again.json") == prog


@pytest.mark.parametrize("msg, expected", [
    (2**63, "<string>: ops[0][3]: expected a message id below 2**63, found 9223372036854775808 (renumber the messages)"),
    (-5, "<string>: ops[0][3]: expected a message id >= 0, found -5"),
])
def test_ids_outside_int64_are_rejected_when_read(msg, expected):
    with pytest.raises(cs.FormatError) as info:
        program_from_json(document([msg, 1]))
    assert str(info.value) == expected


@pytest.mark.parametrize("msg", LARGE)
def test_a_program_built_with_large_ids_validates(msg):
    b = cs.ProgramBuilder(P.hosts)
    b.send("h0", "h1", [cs.schedules.block(0, 0, 1)], size=8)
    b.send("h0", "h2", [cs.schedules.block(0, 0, 2)], size=8)
    prog = b.build()
    sparse = dataclasses.replace(prog, op_msg=np.array([msg, msg, 7, 7]))
    cs.validate(P, SCATTER, sparse)
    assert sparse.renumbered().op_msg.tolist() == [1, 1, 0, 0]
    assert prog.renumbered() is prog
    # errors name the program's own ids
    broken = dataclasses.replace(sparse, op_size=np.array([8.0, 8.0, 5.0, 5.0]))
    with pytest.raises(cs.ValidationError, match=r"^program '': rank h0 op 1 \(send msg 7 to h2\) declares 5 bytes"):
        cs.validate(P, SCATTER, broken)
    unmatched = dataclasses.replace(sparse, op_kind=np.array([0, 0, 0, 1]))
    with pytest.raises(cs.ValidationError, match=rf"^program '': message {msg} has a send without a receive"):
        cs.validate(P, SCATTER, unmatched)


def test_message_ops_refuses_sparse_ids_before_allocating():
    b = cs.ProgramBuilder(["a", "b"], name="x")
    b.send("a", "b", (), size=8)
    sparse = dataclasses.replace(b.build(), op_msg=np.array([2**62, 2**62]))
    with pytest.raises(cs.ScheduleError) as info:
        sparse.message_ops()
    assert str(info.value) == ("program 'x': op 0 has message id 4611686018427387904, which cannot index an array "
                               "(ids here must be in 0..3) (renumber the messages with Program.renumbered())")
    assert [a.tolist() for a in sparse.renumbered().message_ops()] == [[0], [1]]


@pytest.mark.parametrize("msg", [2, 2**40, 2**63 - 1])
def test_the_core_rejects_ids_it_would_index_by_before_allocating(msg):
    # called directly, the core bounds ids by the number of operations (a program with M messages has 2M ops)
    ints = [np.array(x, dtype=np.int64) for x in ([0, 1], [0, 1], [1, 0], [msg, msg], [0, 0, 0], [], [0, 0, 0])]
    empty = np.zeros(0, dtype=np.int64)
    with pytest.raises(_core.ProgramInvalid) as info:
        _core.validate_program(2, *ints, empty, 1, empty, empty)
    assert info.value.args[0] == "bad_message_id" and info.value.args[1] == {"op": 0, "msg": msg}
