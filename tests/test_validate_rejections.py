"""Every rejection of the validator reaches the user through ``cs.validate`` as one line naming the rank, the
operation and the value at fault.

One test per rejection class (the core's ``Invalid`` and ``StructureError`` variants, and the checks
``schedules/validate.py`` adds: byte counts, task costs, ranks and hosts, the collective a schedule was planned
for). The programs are written as program documents, so that every operation, dependency and message id is
explicit; the Rust tests (``crates/core/tests/validate_rejections.rs``) check the core's verdicts exactly.
"""

import pytest

import collsched as cs
from collsched.schedules.program_io import program_from_dict

P = cs.topologies.star(4)  # hosts h0 .. h3: value indices are host indices
REDUCE = cs.Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, task_cost=10)


def v(a, b, start=0, end=1):
    """The piece ``v[a..b]@0 [start, end)`` as a program document writes it."""
    return [1, 0, a, b, start, end]


def m(src, dst, start=0, end=1):
    """The piece ``m[h_src→h_dst]@0 [start, end)``."""
    return [0, 0, src, dst, start, end]


def program(ops, ranks=("h0", "h1", "h2"), denominator=1):
    """A program from rows ``[rank, kind, peer, msg, size, deps, pieces]`` (deps are op indices)."""
    return program_from_dict({"name": "t", "ranks": list(ranks), "denominator": denominator, "ops": ops})


def rejection(collective, prog, **options) -> str:
    """The one-line message ``cs.validate`` raises."""
    with pytest.raises(cs.ValidationError) as info:
        cs.validate(P, collective, prog, **options)
    text = str(info.value)
    assert "\n" not in text and text.startswith("program 't': ")
    return text.removeprefix("program 't': ")


def reduce_program(first, second, first_cost=10, deps=((3,), (4,))):
    """h1 and h2 send their operands to h0 (ops 0-3); h0 runs the combinations ``first`` and ``second`` (ops 4, 5)."""
    return program([["h1", "send", "h0", 0, 8, [], [v(1, 1)]],
                    ["h0", "recv", "h1", 0, 8, [], []],
                    ["h2", "send", "h0", 1, 8, [], [v(2, 2)]],
                    ["h0", "recv", "h2", 1, 8, [1], []],
                    ["h0", "compute", None, None, first_cost, list(deps[0]), first],
                    ["h0", "compute", None, None, 10, list(deps[1]), second]])


IN_ORDER = [v(0, 0), v(1, 1), v(0, 1)]
THEN_V2 = [v(0, 1), v(2, 2), v(0, 2)]


def test_the_reduce_in_operand_order_is_valid():
    cs.validate(P, REDUCE, reduce_program(IN_ORDER, THEN_V2))


# --- operand order and combinations (Invalid::BadCombine) ---------------------------------------

@pytest.mark.parametrize("first, second, op, expected", [
    # v1 ⊕ v0 for v0 ⊕ v1: adjacent operands commuted
    ([v(1, 1), v(0, 0), v(0, 1)], THEN_V2, 2,
     "inputs are not adjacent in operand order: v[1..1]@0 ⊕ v[0..0]@0 → v[0..1]@0"),
    # v2 ⊕ v[0..1]: adjacent blocks commuted
    (IN_ORDER, [v(2, 2), v(0, 1), v(0, 2)], 3,
     "inputs are not adjacent in operand order: v[2..2]@0 ⊕ v[0..1]@0 → v[0..2]@0"),
    # v0 ⊕ v2: not adjacent (v1 skipped)
    ([v(0, 0), v(2, 2), v(0, 2)], [v(0, 2), v(1, 1), v(0, 2)], 2,
     "inputs are not adjacent in operand order: v[0..0]@0 ⊕ v[2..2]@0 → v[0..2]@0"),
    # v2 ⊕ v0: not adjacent and commuted
    ([v(2, 2), v(0, 0), v(0, 2)], [v(0, 2), v(1, 1), v(0, 2)], 2,
     "inputs are not adjacent in operand order: v[2..2]@0 ⊕ v[0..0]@0 → v[0..2]@0"),
    ([v(0, 0), v(1, 1), v(0, 2)], THEN_V2, 2,
     "the output is not the union of the inputs: v[0..0]@0 ⊕ v[1..1]@0 → v[0..2]@0"),
    ([v(0, 0), v(0, 0)], THEN_V2, 2, "a combination needs two inputs and one output: v[0..0]@0 → v[0..0]@0"),
    ([v(0, 0), m(1, 0), v(0, 1)], THEN_V2, 2,
     "only partial results v[k..m] can be combined: v[0..0]@0 ⊕ m[h1→h0]@0 → v[0..1]@0"),
    ([v(0, 0), [1, 1, 1, 1, 0, 1], v(0, 1)], THEN_V2, 2,
     "inputs and output must be the same instance and fragment: v[0..0]@0 ⊕ v[1..1]@1 → v[0..1]@0"),
], ids=["adjacent swapped", "adjacent blocks swapped", "not adjacent", "not adjacent and swapped", "not the union",
        "one input", "a block", "another instance"])
def test_a_bad_combination_names_its_rank_op_and_values(first, second, op, expected):
    text = rejection(REDUCE, reduce_program(first, second))
    assert text == f"rank h0 op {op} (compute) is not a valid reduction: {expected}"


# --- use before arrival (Invalid::NotHeld, Invalid::NotWaited) -----------------------------------

def test_using_an_operand_before_its_receive_names_the_receive():
    # h0 combines v0 ⊕ v1 (op 0) before it receives v1 (op 2), and does not wait for it
    prog = program([["h0", "compute", None, None, 10, [], [v(0, 0), v(1, 1), v(0, 1)]],
                    ["h1", "send", "h0", 0, 8, [], [v(1, 1)]],
                    ["h0", "recv", "h1", 0, 8, [], []]])
    c = cs.Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=10)
    assert rejection(c, prog) == ("rank h0 op 0 (compute) uses v[1..1]@0 without waiting for "
                                  "rank h0 op 1 (recv msg 0 from h1), which brings it")


def test_using_an_operand_that_never_arrives():
    prog = program([["h0", "compute", None, None, 10, [], [v(0, 0), v(1, 1), v(0, 1)]]])
    c = cs.Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=10)
    assert rejection(c, prog) == "rank h0 op 0 (compute) uses v[1..1]@0, which its rank does not hold then"


def test_forwarding_before_arrival():
    # h1 forwards m[h0→h2] (op 0) before it receives it (op 1)
    prog = program([["h1", "send", "h2", 1, 8, [], [m(0, 2)]],
                    ["h2", "recv", "h1", 1, 8, [], []],
                    ["h0", "send", "h1", 0, 8, [], [m(0, 2)]],
                    ["h1", "recv", "h0", 0, 8, [0], []]])
    c = cs.Scatter(source="h0", targets=["h2"], size=8)
    assert rejection(c, prog) == ("rank h1 op 0 (send msg 1 to h2) uses m[h0→h2]@0 without waiting for "
                                  "rank h1 op 1 (recv msg 0 from h0), which brings it")


def test_forwarding_after_arrival_without_waiting_for_it():
    # the receive (h1 op 0) happens to run before the forward (h1 op 2), which only waits for a computation
    prog = program([["h0", "send", "h1", 0, 8, [], [m(0, 2)]],
                    ["h1", "recv", "h0", 0, 8, [], []],
                    ["h1", "compute", None, None, 1, [], []],
                    ["h1", "send", "h2", 1, 8, [2], [m(0, 2)]],
                    ["h2", "recv", "h1", 1, 8, [], []]])
    c = cs.Scatter(source="h0", targets=["h2"], size=8)
    assert rejection(c, prog) == ("rank h1 op 2 (send msg 1 to h2) uses m[h0→h2]@0 without waiting for "
                                  "rank h1 op 0 (recv msg 0 from h0), which brings it")


# --- duplicate delivery (Invalid::Duplicate) ------------------------------------------------------

def test_delivering_twice_names_both_receives():
    # h0 sends m[h0→h2] to h2 directly (msg 0) and through h1 (msgs 1, 2)
    prog = program([["h0", "send", "h2", 0, 8, [], [m(0, 2)]],
                    ["h2", "recv", "h0", 0, 8, [], []],
                    ["h0", "send", "h1", 1, 8, [0], [m(0, 2)]],
                    ["h1", "recv", "h0", 1, 8, [], []],
                    ["h1", "send", "h2", 2, 8, [3], [m(0, 2)]],
                    ["h2", "recv", "h1", 2, 8, [1], []]])
    c = cs.Scatter(source="h0", targets=["h2"], size=8)
    assert rejection(c, prog) == ("rank h2 op 1 (recv msg 2 from h1) delivers m[h0→h2]@0 again "
                                  "(rank h2 op 0 (recv msg 0 from h0) already brought it)")


def test_delivering_what_a_rank_starts_with():
    # h1 sends the broadcast value back to its source
    everyone = [0, 0, 0, -1, 0, 1]
    prog = program([["h0", "send", "h1", 0, 8, [], [everyone]],
                    ["h1", "recv", "h0", 0, 8, [], []],
                    ["h1", "send", "h0", 1, 8, [1], [everyone]],
                    ["h0", "recv", "h1", 1, 8, [0], []]])
    c = cs.Broadcast(source="h0", targets=["h1"], size=8)
    assert rejection(c, prog) == "rank h0 op 1 (recv msg 1 from h1) delivers m[h0→*]@0 again (it held from the start)"


def test_delivering_an_overlapping_fragment():
    prog = program([["h0", "send", "h1", 0, 4, [], [m(0, 1, 0, 1)]],
                    ["h1", "recv", "h0", 0, 4, [], []],
                    ["h0", "send", "h1", 1, 8, [0], [m(0, 1, 0, 2)]],
                    ["h1", "recv", "h0", 1, 8, [1], []]], denominator=2)
    c = cs.Scatter(source="h0", targets=["h1"], size=8)
    assert rejection(c, prog) == ("rank h1 op 1 (recv msg 1 from h0) delivers m[h0→h1]@0 again "
                                  "(rank h1 op 0 (recv msg 0 from h0) already brought it)")


def test_computing_a_value_twice():
    text = rejection(REDUCE, reduce_program(IN_ORDER, IN_ORDER))
    assert text == "rank h0 op 3 (compute) delivers v[0..1]@0 again (rank h0 op 2 (compute) already brought it)"


# --- what every rank must end with (Invalid::Missing) ----------------------------------------------

def test_a_value_never_delivered():
    text = rejection(REDUCE, reduce_program(IN_ORDER, [v(1, 1), v(2, 2), v(1, 2)]))
    assert text == "rank h0 ends without v[0..2]@0 (it never receives it)"


def test_a_value_delivered_in_part():
    prog = program([["h0", "send", "h1", 0, 4, [], [m(0, 1, 1, 2)]], ["h1", "recv", "h0", 0, 4, [], []]],
                   denominator=2)
    text = rejection(cs.Scatter(source="h0", targets=["h1"], size=8), prog)
    assert text == "rank h1 ends without m[h0→h1]@0 (it holds only 1/2 of it)"


# --- deadlock (Invalid::Deadlock) ------------------------------------------------------------------

SCATTER_01 = cs.Scatter(source="h0", targets=["h1"], size=8)


def test_receives_that_wait_for_each_other_deadlock():
    prog = program([["h0", "recv", "h1", 1, 0, [], []],
                    ["h1", "recv", "h0", 0, 0, [], []],
                    ["h0", "send", "h1", 0, 8, [0], [m(0, 1)]],
                    ["h1", "send", "h0", 1, 0, [1], []]], ranks=("h0", "h1"))
    assert rejection(SCATTER_01, prog) == ("deadlock: rank h0 op 0 (recv msg 1 from h1), rank h1 op 0 "
                                           "(recv msg 0 from h0), rank h0 op 1 (send msg 0 to h1) can never run "
                                           "(a cycle of waits)")


def test_sends_before_receives_deadlock_only_under_rendezvous():
    prog = program([["h0", "send", "h1", 0, 8, [], [m(0, 1)]],
                    ["h1", "send", "h0", 1, 0, [], []],
                    ["h0", "recv", "h1", 1, 0, [0], []],
                    ["h1", "recv", "h0", 0, 8, [1], []]], ranks=("h0", "h1"))
    cs.validate(P, SCATTER_01, prog)
    assert rejection(SCATTER_01, prog, rendezvous=True) == (
        "deadlock: rank h0 op 0 (send msg 0 to h1), rank h1 op 0 (send msg 1 to h0), "
        "rank h0 op 1 (recv msg 1 from h1) can never run (a cycle of waits)")


# --- byte counts and task costs (schedules/validate.py) ---------------------------------------------

def test_a_message_whose_bytes_are_not_what_it_carries():
    prog = program([["h0", "send", "h1", 0, 5, [], [m(0, 1)]], ["h1", "recv", "h0", 0, 5, [], []]])
    assert rejection(SCATTER_01, prog) == "rank h0 op 0 (send msg 0 to h1) declares 5 bytes but its pieces weigh 8"


def test_a_fragment_weighs_its_share():
    prog = program([["h0", "send", "h1", 0, 8, [], [m(0, 1, 0, 1)]], ["h1", "recv", "h0", 0, 8, [], []],
                    ["h0", "send", "h1", 1, 4, [0], [m(0, 1, 1, 2)]], ["h1", "recv", "h0", 1, 4, [1], []]],
                   denominator=2)
    assert rejection(SCATTER_01, prog) == "rank h0 op 0 (send msg 0 to h1) declares 8 bytes but its pieces weigh 4"


def test_a_task_whose_cost_is_not_the_reduces():
    text = rejection(REDUCE, reduce_program(IN_ORDER, THEN_V2, first_cost=5))
    assert text == "rank h0 op 2 (compute) computes T(0,0,1) with cost 5 but the reduce says 10"


# --- ranks and hosts ---------------------------------------------------------------------------------

def test_a_rank_that_is_not_a_node():
    prog = program([["h0", "send", "zz", 0, 8, [], [m(0, 1)]], ["zz", "recv", "h0", 0, 8, [], []]], ranks=("h0", "zz"))
    with pytest.raises(cs.ValidationError, match=r"^program 't' has rank 'zz', which is not in platform 'star-4'$"):
        cs.validate(P, SCATTER_01, prog)


def test_a_host_without_a_rank():
    prog = program([], ranks=("h0",))
    with pytest.raises(cs.ValidationError, match=r"^program 't' has no rank for host 'h1', which must end with "):
        cs.validate(P, SCATTER_01, prog)


# --- malformed programs (StructureError) ---------------------------------------------------------------

@pytest.mark.parametrize("ops, expected", [
    ([["h0", "send", "h1", 0, 8, [], [m(0, 1)]], ["h1", "recv", "h0", 0, 8, [], [m(0, 1)]]],
     "rank h1 op 0 (recv msg 0 from h0) lists pieces; they belong on the send"),
    ([["h0", "send", "h1", 0, 8, [], [m(0, 1)]], ["h2", "recv", "h0", 0, 8, [], []]],
     "message 0: rank h0 op 0 (send msg 0 to h1) and rank h2 op 0 (recv msg 0 from h0) do not name each other"),
    ([["h0", "send", "h1", 2**40, 8, [], [m(0, 1)]]],
     "message 1099511627776 has a send without a receive or the reverse "
     "(at rank h0 op 0 (send msg 1099511627776 to h1))"),
    ([["h0", "send", "h1", 0, 8, [], [m(0, 1, 1, 1)]], ["h1", "recv", "h0", 0, 8, [], []]],
     "rank h0 op 0 (send msg 0 to h1) piece 0 is not a fragment inside [0, 1)"),
], ids=["pieces on a receive", "mismatched ends", "unmatched (sparse id)", "empty fragment"])
def test_a_malformed_program_names_the_op(ops, expected):
    assert rejection(SCATTER_01, program(ops)) == expected


# --- a schedule checked against another collective than its own ----------------------------------------

def test_a_schedule_for_another_collective_names_both():
    reduce_tree = cs.plan(P, cs.Reduce(participants=P.hosts, target="h0", size=8, task_cost=10), algorithm="binomial")
    scatters = cs.Series(cs.Scatter(source="h0", targets=P.hosts, size=8), count=3)
    with pytest.raises(cs.ValidationError) as info:
        cs.validate(P, scatters, reduce_tree)
    assert str(info.value) == ("schedule 'binomial' was planned for a reduce to h0 over 4 hosts, not for the series "
                               "of 3 scatter from h0 over 4 hosts it is checked against (check it against the "
                               "collective it was planned for, or plan one for this collective)")


def test_the_same_kind_with_other_hosts_or_sizes_is_another_collective():
    c = cs.Broadcast(source="h0", targets=P.hosts, size=8)
    s = cs.plan(P, c, algorithm="binomial")
    with pytest.raises(cs.ValidationError, match=r"planned for a broadcast from h0 over 4 hosts, not for the "
                                                 r"broadcast from h0 over 4 hosts it is checked against "
                                                 r"\(size 8.0, not 16.0\)"):
        cs.validate(P, cs.Broadcast(source="h0", targets=P.hosts, size=16), s)
    with pytest.raises(cs.ValidationError, match=r"over 4 hosts, not for the broadcast from h0 over 3 hosts it is "
                                                 r"checked against \(targets \('h0', 'h1', 'h2', 'h3'\), "
                                                 r"not \('h0', 'h1', 'h2'\)\)"):
        cs.validate(P, cs.Broadcast(source="h0", targets=P.hosts[:3], size=8), s)


def test_a_series_count_is_free_and_a_program_is_not_checked():
    c = cs.Gather(sources=P.hosts, target="h1", size=8)
    one = cs.plan(P, c, algorithm="binomial")
    cs.validate(P, cs.Series(c, count=4), one)
    many = cs.plan(P, cs.Series(c, count=4), algorithm="binomial")
    cs.validate(P, c, many)
    cs.validate(P, cs.Series(c, count=2), many)
    # a bare schedule, or a program, does not say what it was planned for: only the validator's verdict counts
    cs.validate(P, c, cs.TreeSchedule(root=one.root, children=one.children))
    cs.validate(P, c, one.lower(P, c))


def test_the_message_reads_an_alltoall():
    c = cs.AllToAll(senders=P.hosts, size=8)
    with pytest.raises(cs.ValidationError, match=r"^schedule 'caterpillar' was planned for an alltoall over 4 hosts, "
                                                 r"not for the gather to h0 over 4 hosts it is checked against"):
        cs.validate(P, cs.Gather(sources=P.hosts, target="h0", size=8), cs.plan(P, c, algorithm="caterpillar"))
