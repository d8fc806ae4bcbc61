"""Tests of schedules and programs as JSON documents, and of the GOAL export (collsched.schedules.io)."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.errors import FormatError, ScheduleError
from collsched.schedules import (Bound, OrderSchedule, PeriodicSchedule, PeriodicTask, PeriodicTransfer, Piece,
                                 ProgramBuilder, Slot, Status, StepSchedule, Transfer, TreeSchedule, Value,
                                 block, partial, validate)
from collsched.schedules.io import (load_program, load_schedule, program_from_json, program_to_goal, program_to_json,
                                    save_goal, save_program, save_schedule, schedule_from_json, schedule_to_json)

FAST = settings(max_examples=30, deadline=None)
HOSTS = ["h0", "h1", "h2", "h3", "h4", "n\u00e9"]


# --- random schedules and programs -------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=8)
fractions = st.fractions(min_value=0, max_value=1000, max_denominator=10**6)
positive = st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_infinity=False)
values = st.builds(Value, st.sampled_from([0, 1]), st.integers(-3, 20), st.integers(-1, 9), st.integers(-1, 9))
pieces = st.builds(Piece, values, st.integers(0, 5), st.integers(6, 12))
host_pairs = st.tuples(st.sampled_from(HOSTS), st.sampled_from(HOSTS)).filter(lambda p: p[0] != p[1])

common = st.fixed_dictionaries({
    "algorithm": st.text(max_size=8), "message": st.text(max_size=20),
    "params": st.dictionaries(st.text(max_size=6), json_values, max_size=4),
    "status": st.sampled_from(list(Status)),
    "bound": st.none() | st.builds(Bound, st.floats(0, 1e9) | fractions | st.integers(0, 10**20),
                                   st.sampled_from(["makespan", "throughput"]), st.text(max_size=10)),
})


@st.composite
def transfers(draw):
    src, dst = draw(host_pairs)
    part = st.none() | st.tuples(st.integers(0, 3), st.integers(4, 8))
    carried = st.none() | st.lists(values, max_size=3).map(tuple)
    return Transfer(src, dst, draw(st.integers(0, 9)), draw(part), draw(carried))


@st.composite
def step_schedules(draw):
    steps = draw(st.lists(st.lists(transfers(), max_size=4), max_size=4))
    durations = draw(st.none() | st.lists(positive, min_size=len(steps), max_size=len(steps)))
    return StepSchedule(steps=steps, durations=durations, denominator=draw(st.integers(1, 9)), **draw(common))


@st.composite
def order_schedules(draw):
    orders = {}
    for sender in draw(st.lists(st.sampled_from(HOSTS), unique=True, max_size=4)):
        dests = st.sampled_from([h for h in HOSTS if h != sender])
        orders[sender] = draw(st.lists(dests | st.tuples(dests, st.integers(1, 5)), max_size=4))
    return OrderSchedule(orders=orders, **draw(common))


@st.composite
def tree_schedules(draw):
    nodes = draw(st.lists(st.sampled_from(HOSTS), min_size=1, unique=True))
    children: dict[str, list[str]] = {}
    for i, node in enumerate(nodes[1:], start=1):
        children.setdefault(nodes[draw(st.integers(0, i - 1))], []).append(node)
    clusters = draw(st.none() | st.just([nodes[: len(nodes) // 2], nodes[len(nodes) // 2:]]))
    return TreeSchedule(root=nodes[0], children=children, segments=draw(st.integers(1, 8)), clusters=clusters,
                        intra=draw(st.dictionaries(st.sampled_from(nodes), st.sampled_from(["binomial", "linear"]))),
                        **draw(common))


@st.composite
def slots(draw):
    moves = st.builds(PeriodicTransfer, st.sampled_from(HOSTS), st.sampled_from(HOSTS),
                      st.lists(values | pieces, max_size=3).map(tuple), positive)
    tasks = st.builds(PeriodicTask, st.sampled_from(HOSTS), st.lists(values | pieces, max_size=2).map(tuple),
                      values | pieces, positive)
    return Slot(draw(fractions), tuple(draw(st.lists(moves, max_size=3))), tuple(draw(st.lists(tasks, max_size=2))))


@st.composite
def periodic_schedules(draw):
    pattern = draw(st.lists(slots(), max_size=3))
    period = sum((s.duration for s in pattern), Fraction(0)) + draw(fractions) + Fraction(1, 7)
    return PeriodicSchedule(throughput=draw(fractions), period=period, ops_per_period=draw(st.integers(1, 4)),
                            activities=draw(st.dictionaries(st.text(max_size=6), fractions, max_size=4)),
                            slots=pattern, init=draw(st.lists(slots(), max_size=2)),
                            cleanup=draw(st.lists(slots(), max_size=2)), denominator=draw(st.integers(1, 9)),
                            trees=draw(st.lists(st.tuples(fractions, tree_schedules()), max_size=2)), **draw(common))


@st.composite
def programs(draw):
    ranks = draw(st.lists(st.sampled_from(HOSTS), min_size=2, unique=True))
    b = ProgramBuilder(ranks, denominator=draw(st.integers(1, 4)), name=draw(st.text(max_size=6)))
    mine: dict[str, list[int]] = {r: [] for r in ranks}
    for _ in range(draw(st.integers(0, 12))):
        src, dst = draw(st.lists(st.sampled_from(ranks), min_size=2, max_size=2, unique=True))
        after = draw(st.none() | st.lists(st.sampled_from(mine[src]), unique=True) if mine[src] else st.none())
        kw = {} if after is None else {"after": after}
        if draw(st.booleans()):
            send, recv = b.send(src, dst, draw(st.lists(values | pieces, max_size=3)), draw(positive), **kw)
            mine[src].append(send)
            mine[dst].append(recv)
        else:
            mine[src].append(b.compute(src, draw(st.lists(values, max_size=2)), draw(values), draw(positive), **kw))
    return b.build()


schedules = st.one_of(step_schedules(), order_schedules(), tree_schedules(), periodic_schedules())


@FAST
@given(schedules)
def test_schedule_round_trip_is_exact(s):
    text = schedule_to_json(s)
    back = schedule_from_json(text)
    assert back == s and type(back) is type(s)
    if s.bound is not None:  # Fraction(1, 2) == 0.5: check the types survive too
        assert type(back.bound.value) is type(s.bound.value)
    assert schedule_to_json(back) == text


@FAST
@given(programs())
def test_program_round_trip_is_exact(p):
    text = program_to_json(p)
    back = program_from_json(text)
    assert back == p
    assert program_to_json(back) == text
    assert_goal_matches(p, program_to_goal(p))


@pytest.mark.parametrize("algorithm, collective", [
    ("binomial", cs.Reduce(participants=["h0", "h1", "h2", "h3"], target="h2", size=1e6, task_cost=3e6)),
    ("binomial", cs.Series(cs.Broadcast(source="h1", targets=["h0", "h1", "h2", "h3"], size=1e5), count=3)),
    ("linear", cs.Scatter(source="h0", targets=["h1", "h2", "h3"], size=10)),
    ("caterpillar", cs.AllToAll(senders=["h0", "h1", "h2", "h3"], size=1e3)),
])
def test_planned_schedules_and_programs(tmp_path, algorithm, collective):
    p = cs.topologies.star(4)
    s = cs.plan(p, collective, algorithm=algorithm)
    save_schedule(s, tmp_path / "s.json")
    assert load_schedule(tmp_path / "s.json") == s
    prog = s.lower(p, collective)
    save_program(prog, tmp_path / "p.json")
    back = load_program(tmp_path / "p.json")
    assert back == prog
    validate(p, collective, back)
    assert_goal_matches(prog, program_to_goal(prog))


def test_periodic_schedule_lowers_after_a_round_trip():
    p = cs.topologies.star(3)
    hop1 = PeriodicTransfer("h0", "h1", (block(0, 0, 2),), 1e3)
    hop2 = PeriodicTransfer("h1", "h2", (Piece(block(-1, 0, 2), 0, 1),), 1e3)
    s = PeriodicSchedule(throughput=Fraction(1000), period=Fraction(1, 1000),
                         slots=(Slot(Fraction(1, 1000), (hop1, hop2)),), algorithm="relay",
                         bound=Bound(Fraction(1000), "throughput", "LP optimum"))
    text = schedule_to_json(s)
    assert '"throughput": "1000/1"' in text and '"period": "1/1000"' in text and '"value": "1000/1"' in text
    back = schedule_from_json(text)
    c = cs.Series(cs.Scatter(source="h0", targets=["h2"], size=1e3), count=4)
    validate(p, c, back)
    assert back.lower(p, c) == s.lower(p, c)


def test_step_transfer_rows_leave_out_defaults():
    s = StepSchedule(steps=[[Transfer("a", "b"), Transfer("a", "c", inst=2), Transfer("b", "c", part=(0, 1)),
                             Transfer("c", "a", values=(partial(0, 1, 2),))]], denominator=2)
    body = json.loads(schedule_to_json(s))["schedule"]
    assert body["steps"] == [[["a", "b"], ["a", "c", 2], ["b", "c", 0, [0, 1]], ["c", "a", 0, None, [[1, 0, 1, 2]]]]]


# --- GOAL ------------------------------------------------------------------------------

GOLDEN = """\
// collsched program "demo"; ranks ["a", "b", "c"]; sizes in bytes (rounded up); calc in ns
num_ranks 3

rank 0 {
l1: send 1000b to 1 tag 0
l2: send 334b to 2 tag 1
l2 requires l1
l3: recv 0b from 2 tag 2
}

rank 1 {
l1: recv 1000b from 0 tag 0
l2: calc 1500
l2 requires l1
}

rank 2 {
l1: recv 334b from 0 tag 1
l2: send 0b to 0 tag 2
l2 requires l1
}
"""


def test_goal_golden(tmp_path):
    b = ProgramBuilder(["a", "b", "c"], name="demo")
    b.send("a", "b", [block(0, 0, 1)], 1e3, recv_after=())
    b.send("a", "c", [block(0, 0, 2)], 1e3 / 3, recv_after=())
    b.compute("b", [], None, 3e3)  # waits for the receive (program order)
    b.send("c", "a", (), 0.0, recv_after=())
    prog = b.build()
    speeds = {"a": 1e9, "b": 2e9, "c": 1e9}
    assert program_to_goal(prog, speed=speeds) == GOLDEN
    save_goal(prog, tmp_path / "demo.goal", speed=speeds)
    assert (tmp_path / "demo.goal").read_text() == GOLDEN
    assert_goal_matches(prog, GOLDEN)


def test_goal_errors():
    b = ProgramBuilder(["a", "b"])
    b.send("a", "b", [], 1.0)
    b.compute("b", [], None, 5.0, after=[0])  # op 0 is a's send: GOAL cannot express it
    with pytest.raises(ScheduleError, match="op 2 of rank 'b' depends on op 0 of another rank"):
        program_to_goal(b.build())
    with pytest.raises(ValueError, match="speed of rank 'b' is None"):
        program_to_goal(ProgramBuilder(["a", "b"]).build(), speed={"a": 1e9})


def assert_goal_matches(p, text: str) -> None:
    """Parse GOAL text back and check every op and dependency of ``p`` is there, and nothing else."""
    blocks = re.findall(r"rank (\d+) \{\n(.*?)\}", text, flags=re.S)
    assert text.count("\nnum_ranks ") == 1 and f"num_ranks {len(p.ranks)}\n" in text
    assert [int(r) for r, _ in blocks] == list(range(len(p.ranks)))
    for r, body in blocks:
        ops = [int(i) for i in p.ops_of(int(r))]
        label = {i: f"l{j + 1}" for j, i in enumerate(ops)}
        lines = body.splitlines()
        expected = []
        for i in ops:
            op = p.op(i)
            peer = p.ranks.index(op.peer) if op.peer is not None else None
            expected.append(f"{label[i]}: calc " if op.kind == "compute" else
                            f"{label[i]}: {op.kind} " + ("{}b to {} tag {}" if op.kind == "send" else
                                                         "{}b from {} tag {}").format("{}", peer, op.msg))
            expected += [f"{label[i]} requires {label[d]}" for d in op.after]
        assert len(lines) == len(expected)
        for line, want in zip(lines, expected):
            head, _, tail = want.partition("{}")
            assert line.startswith(head) and line.endswith(tail), (line, want)


# --- bad input: one line, naming the file and the field ---------------------------------

def schedule_error(schedule: dict | str, where: str = "s.json") -> str:
    text = schedule if isinstance(schedule, str) else \
        json.dumps({"format": "collsched", "version": 1, "kind": "schedule", "schedule": schedule})
    with pytest.raises(FormatError) as info:
        schedule_from_json(text, where=where)
    assert "\n" not in str(info.value)
    return str(info.value)


PERIODIC = {"shape": "periodic", "throughput": "1/2", "period": "2/1",
            "slots": [{"duration": "1/1",
                       "transfers": [{"src": "a", "dst": "b", "size": 8, "pieces": [[0, 0, 0, 1]]}]}]}


@pytest.mark.parametrize("schedule, expected", [
    ({"shape": "hexagon"}, "s.json: schedule.shape: 'hexagon' is not one of 'steps', 'orders', 'tree', 'periodic'"),
    ({**PERIODIC, "throughput": "abc"}, "s.json: schedule.throughput: cannot read 'abc' as an exact fraction"),
    ({**PERIODIC, "period": 0.5}, "s.json: schedule.period: cannot read 0.5 as an exact fraction"),
    ({**PERIODIC, "activities": {"x": "1/0"}}, "s.json: schedule.activities.x: cannot read '1/0' as an exact"),
    ({**PERIODIC, "period": "1/4"}, "s.json: schedule.slots: the slots of one period last 1, more than the period 1/4"),
    ({**PERIODIC, "throughput": "-1/2"}, "s.json: schedule: periodic schedule with period 2 and throughput -1/2"),
    ({**PERIODIC, "slots": [{"duration": "1/4", "transfers": [{"src": "a", "dst": "b", "size": -1, "pieces": []}]}]},
     "s.json: schedule.slots[0].transfers[0].size: expected a size >= 0, found -1"),
    ({**PERIODIC, "slots": [{"duration": "1/4", "tasks": [{"node": "a", "cost": 1, "inputs": [[2, 0, 0, 1]],
                                                           "output": [1, 0, 0, 1]}]}]},
     "s.json: schedule.slots[0].tasks[0].inputs[0]: expected [kind, inst, a, b] or [kind, inst, a, b, start, end]"),
    ({**PERIODIC, "trees": [{"weight": "1/2", "tree": {"shape": "steps"}}]},
     "s.json: schedule.trees[0].tree.shape: 'steps' is not one of 'tree'"),
    ({**PERIODIC, "bound": {"value": "x/2", "metric": "throughput", "name": "LP"}},
     "s.json: schedule.bound.value: cannot read 'x/2' as an exact fraction"),
    ({"shape": "steps", "steps": [[["a", "b"], ["c", "c"]]]},
     "s.json: schedule.steps[0][1]: transfer from 'c' to itself"),
    ({"shape": "steps", "steps": [[["a", "b", 0, [3, 1]]]]},
     "s.json: schedule.steps[0][0]: transfer a->b has part (3, 1)"),
    ({"shape": "steps", "steps": [[["a", "b"]]], "durations": [1, 2]},
     "s.json: schedule.durations: step durations must be one finite number >= 0 per step"),
    ({"shape": "orders", "orders": {"a": ["b", ["a", 2]]}}, "s.json: schedule.orders.a: sender 'a' sends to itself"),
    ({"shape": "tree", "root": "a", "children": {"a": ["b"], "c": ["d"]}},
     "s.json: schedule.children: tree node 'c' is not reachable from the root 'a'"),
    ({"shape": "tree", "root": "a", "segments": 0}, "s.json: schedule.segments: expected an integer >= 1, found 0"),
    ({"shape": "tree", "root": "a", "status": "great"}, "s.json: schedule.status: 'great' is not one of 'optimal'"),
    ({"shape": "tree", "root": "a", "childs": {}}, "s.json: schedule.childs: unknown field (did you mean 'children'?)"),
])
def test_bad_schedules(schedule, expected):
    assert schedule_error(schedule).startswith(expected)


def test_bad_schedule_documents():
    text = schedule_to_json(TreeSchedule(root="h0", children={"h0": ("h1",)}))
    assert schedule_error(text[:text.index('"root"')]).endswith("(the file ends too early: it may be truncated)")
    assert schedule_error(text.replace('"kind": "schedule"', '"kind": "platform"')) == (
        "s.json: kind: this is a 'platform' document, expected a 'schedule' document (load it with the reader for "
        "platforms)")
    with pytest.raises(FormatError, match=r"^cannot write schedule params.seeds: a tuple has no exact JSON form"):
        schedule_to_json(OrderSchedule(params={"seeds": (1, 2)}))


OP = ["a", "send", "b", 0, 8.0, [], []]


@pytest.mark.parametrize("ops, expected", [
    ([OP, ["b", "recv", "a", 0, 8.0, [1], []]], "p.json: ops[1][5][0]: op 1 depends on op 1"),
    ([OP, ["b", "recv", "z", 0, 8.0, [], []]], "p.json: ops[1][2]: 'z' is not a rank of the program"),
    ([OP, OP], "p.json: ops[1][3]: message 0 has two sends (every message has one send and one recv)"),
    ([["a", "compute", None, None, -5, [], []]], "p.json: ops[0][4]: expected a flops >= 0, found -5"),
    ([["a", "compute", "b", None, 5, [], []]], "p.json: ops[0][2]: expected null, found 'b'"),
    ([["a", "send", "b", 0, 8.0, []]], "p.json: ops[0]: expected an operation"),
    ([["a", "recv", "b", -1, 8.0, [], []]], "p.json: ops[0][3]: expected a message id >= 0, found -1"),
    ([["a", "recv", None, 0, 8.0, [], []]], "p.json: ops[0][2]: expected a string, found null"),
    ([["a", "sned", "b", 0, 8.0, [], []]], "p.json: ops[0][1]: 'sned' is not one of 'send', 'recv', 'compute'"),
    ([["a", "send", "b", 0, 8.0, [], [[0, 0, 0, 1]]]], "p.json: ops[0][6][0]: expected [kind, inst, a, b, start, end]"),
])
def test_bad_programs(ops, expected):
    text = json.dumps({"format": "collsched", "version": 1, "kind": "program", "ranks": ["a", "b"], "ops": ops})
    with pytest.raises(FormatError) as info:
        program_from_json(text, where="p.json")
    assert str(info.value).startswith(expected)
    assert "\n" not in str(info.value)


def test_bad_program_ranks():
    text = json.dumps({"format": "collsched", "version": 1, "kind": "program", "ranks": ["a", "b", "a"], "ops": []})
    with pytest.raises(FormatError, match=r"^p.json: ranks\[2\]: rank 'a' is listed twice$"):
        program_from_json(text, where="p.json")


def test_a_planned_schedule_keeps_its_collective_through_json(tmp_path):
    import collsched as cs
    p = cs.topologies.star(4)
    c = cs.Series(cs.Reduce(participants=p.hosts, target="h2", size=8, task_cost=3), count=2)
    s = cs.plan(p, c, algorithm="binomial")
    cs.save_schedule(s, tmp_path / "s.json")
    back = cs.load_schedule(tmp_path / "s.json")
    assert back == s and back.collective == c
    cs.validate(p, back.collective, back.lower(p))
