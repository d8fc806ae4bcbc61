"""ReduceScatter and AllReduce: constructors, commutative values, program storage, and the validator.

The validator accepts the direct programs (``algorithms/baselines/reduce_scatter.py``) for N = 2..9,
commutative and ordered, one instance and a series, on any participant order; it rejects each kind of wrong
reduction with one line naming the rank, the operation and the value. Programs written by hand are program
documents, so that every operation is explicit.
"""

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched import _core
from collsched.algorithms.baselines.reduce_scatter import direct, direct_program
from collsched.schedules.program import ProgramBuilder
from collsched.schedules.program_io import program_from_dict, program_from_json, program_to_json
from collsched.schedules.validate import set_table
from collsched.schedules.values import (REDUCED, Part, Piece, Value, combine, combine_commutative, operands,
                                        partial, reduced, reduced_mask)

P = cs.topologies.star(4)
HOSTS = ["h0", "h1", "h2", "h3"]


# --- constructors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [cs.ReduceScatter, cs.AllReduce])
def test_constructor_errors_are_one_line_each(cls):
    kind = cls.kind
    cases = [
        (dict(participants=["h0"], size=8), f"{kind} participants has 1 host (name at least two: with one, nothing moves)"),
        (dict(participants=["h0", "h1", "h0"], size=8), f"{kind} participants lists 'h0' twice"),
        (dict(participants=["h0", "h1"], size=0), f"{kind} size is 0 (sizes and costs must be finite and > 0)"),
        (dict(participants=["h0", "h1"], size=8, task_cost=-1.5),
         f"{kind} task_cost is -1.5 (give a finite number of flop >= 0)"),
        (dict(participants=["h0", "h1"], size=8, commutative="yes"),
         f"{kind} commutative is 'yes' (give True or False)"),
    ]
    for kwargs, message in cases:
        with pytest.raises(cs.CollectiveError) as info:
            cls(**kwargs)
        assert str(info.value) == message


@pytest.mark.parametrize("cls", [cs.ReduceScatter, cs.AllReduce])
def test_platform_errors_name_the_participant(cls):
    with pytest.raises(cs.CollectiveError) as info:
        cls(participants=["h0", "sw"], size=8).validate(P)
    assert str(info.value) == (f"{cls.kind} participant 'sw' is a router in platform 'star-4' "
                               "(only hosts take part in collectives)")
    with pytest.raises(cs.CollectiveError) as info:
        cls(participants=["h0", "h9"], size=8).validate(P)
    assert str(info.value).startswith(f"{cls.kind} participant 'h9' is not in platform 'star-4'")


def test_values_of_a_reduce_scatter():
    c = cs.ReduceScatter(participants=["h3", "h1", "h0"], size=10, task_cost=6)
    initial, final = c.instance_values(P, 2)
    assert initial == [("h3", reduced(2, [0])), ("h1", reduced(2, [1])), ("h0", reduced(2, [2]))]
    full = reduced(2, [0, 1, 2])
    assert final == [("h3", Part(full, Fraction(0), Fraction(1, 3))), ("h1", Part(full, Fraction(1, 3), Fraction(2, 3))),
                     ("h0", Part(full, Fraction(2, 3), Fraction(1)))]
    assert c.value_size(full) == 30.0 and c.total_bytes == 60.0
    assert list(c.pairs()) == [(a, b) for a in c.participants for b in c.participants if a != b]


def test_values_of_an_ordered_all_reduce():
    c = cs.AllReduce(participants=["h1", "h0", "h2"], size=10, commutative=False)
    initial, final = c.instance_values(P, 0)
    assert initial == [("h1", partial(0, 0, 0)), ("h0", partial(0, 1, 1)), ("h2", partial(0, 2, 2))]
    assert final == [(h, partial(0, 0, 2)) for h in ["h1", "h0", "h2"]]
    assert c.value_size(partial(0, 0, 2)) == 10.0 and c.total_bytes == 30.0


def test_series_of_each():
    for base in (cs.ReduceScatter(participants=HOSTS, size=8), cs.AllReduce(participants=HOSTS, size=8)):
        s = cs.Series(base, count=3)
        initial, final = s.values(P)
        assert len(initial) == 12 and len(final) == 12
        assert final[-1][0] == "h3" and (final[-1][1].value if base.kind == "reducescatter" else final[-1][1]) \
            == reduced(2, range(4))
        assert s.total_bytes == 3 * base.total_bytes


# --- values ----------------------------------------------------------------------------------------------

def test_reduced_values_of_hundreds_of_operands():
    v = reduced(0, range(0, 600, 3))
    assert v.kind == REDUCED and v.b == 0 and operands(v) == tuple(range(0, 600, 3))
    assert reduced_mask(0, v.a) == v
    assert combine(reduced(0, range(300)), reduced(0, [300]), reduced(0, [400])) == reduced(0, [*range(301), 400])
    assert repr(reduced(1, range(256))) == "Σ{0..255}@1"
    assert pickle.loads(pickle.dumps(v)) == v and type(v.a) is int and len(v) == 4
    assert repr(reduced(1, range(0, 40, 2))) == "Σ{0,2,4,6,8,10,12,...,38 (20 operands)}@1"


def test_combining_overlapping_or_foreign_reductions_raises():
    with pytest.raises(ValueError, match=r"their operand sets overlap \(operand 299 would count twice\)"):
        combine_commutative(reduced(0, range(300)), reduced(0, [299]))
    with pytest.raises(ValueError, match="not reductions of one instance"):
        combine(reduced(0, [0]), partial(0, 1, 1))
    with pytest.raises(ValueError, match="give at least two"):
        combine(reduced(0, [0]))


# --- program storage and JSON ----------------------------------------------------------------------------

def test_program_stores_masks_in_a_table_and_round_trips():
    c = cs.Series(cs.AllReduce(participants=HOSTS, size=8, task_cost=4), count=2)
    prog = direct_program(P, c)
    # one entry per distinct set: 4 singletons and the full set
    assert sorted(prog.operand_sets) == [1, 2, 4, 8, 15]
    assert prog.pieces.dtype == np.int64 and prog.pieces[:, 2].max() < 5
    back = program_from_json(program_to_json(prog))
    assert back == prog and list(back) == list(prog) and pickle.loads(pickle.dumps(prog)) == prog
    cs.validate(P, c, back)


def test_program_json_writes_masks_as_hex_and_old_documents_load():
    b = ProgramBuilder(["a", "b"])
    b.send("a", "b", [reduced(0, [0, 3, 5, 300])], size=8)
    doc = program_to_json(b.build())
    assert f'"{hex((1 << 300) | 0b101001)}"' in doc
    old = '{"format": "collsched", "version": 1, "kind": "program", "ranks": ["a", "b"], ' \
          '"ops": [["a", "send", "b", 0, 8, [], [[1, 0, 0, 1, 0, 1]]], ["b", "recv", "a", 0, 8, [], []]]}'
    assert program_from_json(old).operand_sets == ()
    bad = old.replace("[1, 0, 0, 1, 0, 1]", "[2, 0, 41, 0, 0, 1]")
    with pytest.raises(cs.FormatError, match=r'for kind 2, a the hex mask of the operands, e\.g\. "0x29"'):
        program_from_json(bad)


def test_schedule_json_round_trips_reductions():
    s = direct(P, cs.AllReduce(participants=HOSTS, size=8))
    from collsched.schedules.io import schedule_from_json, schedule_to_json
    assert schedule_from_json(schedule_to_json(s)) == s


# --- the validator accepts ... ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", range(2, 10))
@pytest.mark.parametrize("kind", [cs.ReduceScatter, cs.AllReduce])
@pytest.mark.parametrize("commutative", [True, False])
def test_direct_programs_validate(n, kind, commutative):
    p = cs.topologies.star(n)
    c = kind(participants=p.hosts, size=1e3, task_cost=7, commutative=commutative)
    cs.validate(p, c, direct_program(p, c))
    cs.validate(p, cs.Series(c, count=3), direct_program(p, cs.Series(c, count=3)), rendezvous=True)


@settings(max_examples=30)
@given(st.permutations(range(6)).flatmap(lambda hosts: st.tuples(
    st.just(hosts), st.integers(2, 6), st.permutations(range(6)))), st.booleans())
def test_any_participant_order_and_any_combination_order_validate(drawn, all_reduce):
    hosts, n, order = drawn
    p = cs.topologies.star(6)
    participants = [f"h{i}" for i in hosts[:n]]
    kind = cs.AllReduce if all_reduce else cs.ReduceScatter
    c = kind(participants=participants, size=60, task_cost=12)
    cs.validate(p, c, direct_program(p, c, order=[k for k in order if k < n]))
    ordered = kind(participants=participants, size=60, commutative=False)
    cs.validate(p, ordered, direct_program(p, ordered))


# --- ... and rejects, in one line -------------------------------------------------------------------------

def r(mask, start=0, end=1, inst=0):
    """A reduction piece as a program document writes it."""
    return [2, inst, hex(mask), 0, start, end]


def program(ops, ranks=("h0", "h1", "h2"), denominator=1):
    return program_from_dict({"name": "t", "ranks": list(ranks), "denominator": denominator, "ops": ops})


def rejection(collective, prog, **options) -> str:
    with pytest.raises(cs.ValidationError) as info:
        cs.validate(P, collective, prog, **options)
    text = str(info.value)
    assert "\n" not in text and text.startswith("program 't': ")
    return text.removeprefix("program 't': ")


AR2 = cs.AllReduce(participants=["h0", "h1"], size=8, task_cost=10)


def pair_exchange(compute0, compute1=None, deps=(1,)):
    """h0 and h1 swap halves (denominator 2: h0 keeps [0, 1), h1 keeps [1, 2)), reduce, then swap results."""
    compute1 = compute1 or [r(0b10, 1, 2), r(0b01, 1, 2), r(0b11, 1, 2)]
    return program([["h0", "send", "h1", 0, 4, [], [r(0b01, 1, 2)]],
                    ["h0", "recv", "h1", 1, 4, [], []],
                    ["h0", "compute", None, None, 5, list(deps), compute0],
                    ["h0", "send", "h1", 2, 4, [2], [r(0b11, 0, 1)]],
                    ["h0", "recv", "h1", 3, 4, [1], []],
                    ["h1", "send", "h0", 1, 4, [], [r(0b10, 0, 1)]],
                    ["h1", "recv", "h0", 0, 4, [], []],
                    ["h1", "compute", None, None, 5, [6], compute1],
                    ["h1", "send", "h0", 3, 4, [7], [r(0b11, 1, 2)]],
                    ["h1", "recv", "h0", 2, 4, [6], []]], ranks=("h0", "h1"), denominator=2)


GOOD0 = [r(0b01, 0, 1), r(0b10, 0, 1), r(0b11, 0, 1)]


def test_the_pair_exchange_is_valid():
    cs.validate(P, AR2, pair_exchange(GOOD0))


def test_overlapping_sets_are_rejected():
    prog = pair_exchange([r(0b01, 0, 1), r(0b11, 0, 1), r(0b11, 0, 1)])
    assert rejection(AR2, prog) == ("rank h0 op 2 (compute) is not a valid reduction: the inputs' operand sets "
                                    "overlap: Σ{0}@0 part [0/2, 1/2) ⊕ Σ{0,1}@0 part [0/2, 1/2) → "
                                    "Σ{0,1}@0 part [0/2, 1/2)")


def test_an_output_that_is_not_the_union_is_rejected():
    prog = pair_exchange([r(0b01, 0, 1), r(0b10, 0, 1), r(0b111, 0, 1)])
    assert rejection(AR2, prog).endswith("is not a valid reduction: the output is not the union of the inputs: "
                                         "Σ{0}@0 part [0/2, 1/2) ⊕ Σ{1}@0 part [0/2, 1/2) → Σ{0..2}@0 part [0/2, 1/2)")


def test_a_reduction_of_another_instance_is_rejected():
    prog = pair_exchange([r(0b01, 0, 1), r(0b10, 0, 1, inst=1), r(0b11, 0, 1)])
    assert "inputs and output must be the same instance and fragment: Σ{0}@0 part [0/2, 1/2) ⊕ Σ{1}@1 part" \
        in rejection(AR2, prog)


def test_reducing_before_the_fragment_arrives_is_rejected():
    prog = pair_exchange(GOOD0, deps=())
    assert rejection(AR2, prog) == ("rank h0 op 2 (compute) uses Σ{1}@0 part [0/2, 1/2) without waiting for "
                                    "rank h0 op 1 (recv msg 1 from h1), which brings it")


def test_a_missing_fragment_is_named_with_its_range():
    # h1 never sends its reduced half back: h0 ends without Σ{0,1} on [1/2, 1)
    prog = program([["h0", "send", "h1", 0, 4, [], [r(0b01, 1, 2)]],
                    ["h0", "recv", "h1", 1, 4, [], []],
                    ["h0", "compute", None, None, 5, [1], GOOD0],
                    ["h0", "send", "h1", 2, 4, [2], [r(0b11, 0, 1)]],
                    ["h1", "send", "h0", 1, 4, [], [r(0b10, 0, 1)]],
                    ["h1", "recv", "h0", 0, 4, [], []],
                    ["h1", "compute", None, None, 5, [5], [r(0b10, 1, 2), r(0b01, 1, 2), r(0b11, 1, 2)]],
                    ["h1", "recv", "h0", 2, 4, [5], []]], ranks=("h0", "h1"), denominator=2)
    assert rejection(AR2, prog) == "rank h0 ends without Σ{0,1}@0 (it holds only 1/2 of it)"
    # the same program is a valid reduce-scatter: h0 must end with [0, 1/2) only, h1 with [1/2, 1)
    rs = cs.ReduceScatter(participants=["h0", "h1"], size=4, task_cost=10)
    cs.validate(P, rs, prog)
    # without h1's reduction, h1 ends without its block
    lazy = program([["h0", "send", "h1", 0, 4, [], [r(0b01, 1, 2)]],
                    ["h0", "recv", "h1", 1, 4, [], []],
                    ["h0", "compute", None, None, 5, [1], GOOD0],
                    ["h1", "send", "h0", 1, 4, [], [r(0b10, 0, 1)]],
                    ["h1", "recv", "h0", 0, 4, [], []]], ranks=("h0", "h1"), denominator=2)
    assert rejection(rs, lazy) == "rank h1 ends without Σ{0,1}@0 part [1/2, 2/2) (it never receives it)"


def test_a_denominator_that_cannot_express_the_blocks_is_rejected():
    c = cs.ReduceScatter(participants=["h0", "h1", "h2"], size=8)
    prog = direct_program(P, cs.ReduceScatter(participants=["h0", "h1"], size=8))
    with pytest.raises(cs.ValidationError) as info:
        cs.validate(P, c, prog)
    assert str(info.value) == ("program 'direct': denominator 2 cannot express the part [0, 1/3) of Σ{0..2}@0 "
                               "that host h0 must end with (lower with a denominator that is a multiple of 3)")


def test_a_non_commutative_program_combining_out_of_order_is_rejected():
    c = cs.AllReduce(participants=["h0", "h1", "h2"], size=9, commutative=False)
    text = str(pytest.raises(cs.ValidationError, cs.validate, P, c, direct_program(P, c, order=[0, 2, 1])).value)
    assert text == ("program 'direct': rank h0 op 4 (compute) is not a valid reduction: inputs are not adjacent in "
                    "operand order: v[0..0]@0 part [0/3, 1/3) ⊕ v[2..2]@0 part [0/3, 1/3) ⊕ v[1..1]@0 part "
                    "[0/3, 1/3) → v[0..2]@0 part [0/3, 1/3)")


def test_a_commutative_reduction_in_an_ordered_collective_is_rejected():
    ordered = cs.AllReduce(participants=["h0", "h1"], size=8, task_cost=10, commutative=False)
    assert rejection(ordered, pair_exchange(GOOD0)) == "rank h0 op 0 (send msg 0 to h1) uses Σ{0}@0 part [1/2, 2/2), " \
        "which its rank does not hold then"


def test_task_cost_and_bytes_are_checked():
    prog = pair_exchange(GOOD0)
    cheap = cs.AllReduce(participants=["h0", "h1"], size=8, task_cost=4)
    assert rejection(cheap, prog) == ("rank h0 op 2 (compute) combines 2 fragments with cost 5 but the allreduce "
                                      "says 2")
    big = cs.AllReduce(participants=["h0", "h1"], size=16, task_cost=10)
    assert rejection(big, prog) == "rank h0 op 0 (send msg 0 to h1) declares 4 bytes but its pieces weigh 8"
    # the ordered operator's tasks of three inputs (direct_program) cost two combinations, pro rata
    ordered = cs.AllReduce(participants=["h0", "h1", "h2"], size=9, task_cost=30, commutative=False)
    dearer = cs.AllReduce(participants=["h0", "h1", "h2"], size=9, task_cost=60, commutative=False)
    text = str(pytest.raises(cs.ValidationError, cs.validate, P, dearer, direct_program(P, ordered)).value)
    assert text == "program 'direct': rank h0 op 4 (compute) combines 3 fragments with cost 20 but the allreduce says 40"


# --- the Python explanation names what the core found -----------------------------------------------------

@pytest.mark.parametrize("compute, code", [
    ([r(0b01, 0, 1), r(0b11, 0, 1), r(0b11, 0, 1)], "bad_combine"),
    ([r(0b01, 0, 1), r(0b10, 0, 1), r(0b111, 0, 1)], "bad_combine"),
    ([r(0b01, 0, 1), [1, 0, 1, 1, 0, 1], r(0b11, 0, 1)], "bad_combine"),
])
def test_python_and_core_agree_on_the_operation(compute, code):
    prog = pair_exchange(compute)
    initial, final = AR2.values(P)
    sets = list(prog.operand_sets)
    from collsched.schedules.validate import _rows
    rank_of = {h: i for i, h in enumerate(prog.ranks)}
    ini = _rows(prog, initial, rank_of, "starts with", sets, P)
    fin = _rows(prog, final, rank_of, "must end with", sets, P)
    ptr, words = set_table(sets)
    cols = [np.asarray(a, dtype=np.int64) for a in (prog.op_rank, prog.op_kind, prog.op_peer, prog.op_msg,
                                                       prog.dep_ptr, prog.dep_idx, prog.piece_ptr)]
    with pytest.raises(_core.ProgramInvalid) as info:
        _core.validate_program(2, *cols, prog.pieces.reshape(-1), prog.denominator, ini, fin,
                               set_ptr=ptr, set_words=words)
    got, details = info.value.args
    assert got == code and details["op"] == 2
    assert rejection(AR2, prog).startswith("rank h0 op 2 (compute) is not a valid reduction: ")


def test_equal_sets_stored_twice_are_one_value():
    import dataclasses
    prog = pair_exchange(GOOD0)
    # a hand-made program whose table lists {0, 1} twice, h0's reduction naming the second copy
    pieces = np.array(prog.pieces)
    out = int(prog.piece_ptr[3]) - 1  # the output row of op 2, h0's reduction
    pieces[out, 2] = len(prog.operand_sets)
    twin = dataclasses.replace(prog, operand_sets=prog.operand_sets + (0b11,), pieces=pieces)
    assert twin.value_of(twin.pieces[out]) == reduced(0, [0, 1]) and twin.pieces[out, 2] != prog.pieces[out, 2]
    cs.validate(P, AR2, twin)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_the_direct_step_schedule_lowers_to_a_valid_program(n):
    """``direct`` names transfers only; lowering forms the reductions (``schedules.combining``, branch ``base``)."""
    pytest.importorskip("collsched.schedules.combining", reason="step schedules of reductions lower with combining.py")
    p = cs.topologies.star(n)
    for kind in (cs.ReduceScatter, cs.AllReduce):
        for commutative in (True, False):
            c = kind(participants=p.hosts[::-1], size=1e3, task_cost=10, commutative=commutative)
            for cc in (c, cs.Series(c, count=2)):
                for sync in ("barrier", "ready", "post_all"):
                    cs.validate(p, cc, direct(p, cc).lower(p, cc, sync=sync))
