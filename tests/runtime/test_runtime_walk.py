"""The walk's per-rank table and the runtime's pre-built buffers, against the program they come from (no MPI needed)."""

import numpy as np
import pytest

import collsched as cs
from collsched.runtime import payload
from collsched.runtime.execute import RankPlan
from collsched.runtime.walk import RankOps
from collsched.schedules.program import COMPUTE, RECV, SEND
from conftest import shapes


@pytest.fixture(scope="module")
def programs():
    p, items = shapes(4)
    return [(label, s.lower(p, c).renumbered()) for label, s, c in items]


def test_the_table_is_the_program(programs):
    """Position j of the table is op ops[j]: its kind, peer, tag, dependency count; nexts and firsts by position."""
    for label, prog in programs:
        for r in range(len(prog.ranks)):
            ops = RankOps(prog, r, peers=[10 + k for k in range(len(prog.ranks))], tag_ub=7)
            kinds, peers, tags, counts, nexts, firsts = ops.table
            assert ops.ops == [int(i) for i in prog.ops_of(r)], label
            for j, i in enumerate(ops.ops):
                op = prog.op(i)
                assert kinds[j] == int(prog.op_kind[i]), label
                if kinds[j] in (SEND, RECV):
                    assert peers[j] == 10 + int(prog.op_peer[i]) and tags[j] == op.msg % 7, label
                else:
                    assert kinds[j] == COMPUTE and peers[j] == tags[j] == -1, label
                assert counts[j] == len(op.after), label
                assert sorted(ops.ops[x] for x in nexts[j]) == sorted(
                    int(k) for k in ops.ops if i in prog.op(int(k)).after), label
            assert [ops.ops[j] for j in firsts] == [i for i in ops.ops if not prog.op(i).after], label
            assert firsts == sorted(firsts), label  # a heap already, popped in program order


def test_a_rank_without_operations_has_an_empty_table(programs):
    _, prog = programs[0]
    assert RankOps(prog, None).table == ([], [], [], [], [], []) and RankOps(prog, None).ops == []


def test_buffers_hold_the_fillers_at_the_message_sizes(programs):
    """A send's buffer: its header's room, then the filler of (message, repetition); a receive's: the same size."""
    for label, prog in programs:
        send_op, _ = prog.message_ops()
        for r in range(len(prog.ranks)):
            plan = RankPlan(prog, r)
            bufs = plan.buffers(5)
            assert set(bufs) == {i for i in plan.ops if plan.kind[i] in (SEND, RECV)}, label
            for i, buf in bufs.items():
                msg = int(prog.op_msg[i])
                head = 8 * payload.header_words(prog.op(int(send_op[msg])).pieces)
                assert buf.dtype == np.uint8, label
                assert buf.shape[0] == payload.message_bytes(prog.op_size[i], head // 8), label
                if plan.kind[i] == SEND:
                    assert np.array_equal(buf[head:], payload.filler(buf.shape[0] - head, msg, 5)), label


def test_refilled_buffers_are_the_same_arrays_with_the_new_fillers(programs):
    """buffers(rep, into=old) rewrites old's sends in place (persistent requests stay valid): equal to buffers(rep)."""
    for label, prog in programs:
        for r in range(len(prog.ranks)):
            plan = RankPlan(prog, r)
            old = plan.buffers(1)
            arrays = dict(old)
            again = plan.buffers(6, into=old)
            fresh = plan.buffers(6)
            assert again is old and all(again[i] is arrays[i] for i in arrays), label
            for i in fresh:
                head = 8 * payload.header_words(plan.pieces[i]) if plan.kind[i] == SEND else fresh[i].shape[0]
                assert again[i].shape == fresh[i].shape and np.array_equal(again[i][head:], fresh[i][head:]), label


def test_header_positions_are_payload_header_order(programs):
    """header_at puts each content where payload.header puts it: written through it, the words are equal."""
    for label, prog in programs:
        for r in range(len(prog.ranks)):
            plan = RankPlan(prog, r)
            for i, (n, at) in plan.header_at.items():
                store = {(p.value, s): payload.content(p.value, s)
                         for p in plan.pieces[i] for s in range(p.start, p.end)}
                words = np.zeros(n, dtype=np.int64)
                for key, a, b, square in at:
                    words[a:b] = store[key].reshape(-1)
                    assert square == (store[key].shape == (2, 2)), label
                assert n == payload.header_words(plan.pieces[i]), label
                assert np.array_equal(words, payload.header(plan.pieces[i], store)), label
