"""The symbolic validator: accepts what implements the collective, rejects every mutation that breaks it."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.schedules import ProgramBuilder, block, partial
from collsched.schedules.validate import lower_any
from programs import (data_messages, drop_message, duplicate_message, forwarding_ops, hoist, rows, swap_pieces)

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def baseline_cases(draw):
    """A random platform, a random collective on a random subset of its hosts, and an applicable baseline."""
    family = draw(st.sampled_from(["star", "hypercube", "tiers", "grid"]))
    seed = draw(st.integers(0, 50))
    if family == "star":
        p = cs.topologies.star(draw(st.integers(2, 9)), seed=seed)
    elif family == "hypercube":
        p = cs.topologies.hypercube(draw(st.integers(1, 3)), seed=seed)
    elif family == "tiers":
        p = cs.topologies.tiers(seed=seed)
    else:
        p = cs.topologies.grid_of_clusters([2, 3, 2], seed=seed)
    hosts = draw(st.lists(st.sampled_from(p.hosts), min_size=2, max_size=len(p.hosts), unique=True))
    root = draw(st.sampled_from(p.hosts))
    kind = draw(st.sampled_from(["reduce", "broadcast", "scatter", "gather", "alltoall"]))
    size = draw(st.sampled_from([1.0, 1e3, 1e6]))
    if kind == "reduce":
        c = cs.Reduce(participants=hosts, target=root, size=size, task_cost=size)
    elif kind == "broadcast":
        c = cs.Broadcast(source=root, targets=hosts, size=size)
    elif kind == "scatter":
        c = cs.Scatter(source=root, targets=hosts, size=size)
    elif kind == "gather":
        c = cs.Gather(sources=hosts, target=root, size=size)
    else:
        c = cs.AllToAll(senders=hosts, size=size)
    count = draw(st.sampled_from([1, 1, 3]))
    if count > 1:
        c = cs.Series(c, count=count)
    algorithm = draw(st.sampled_from([a.name for a in cs.algorithms.applicable(c)]))
    return p, c, cs.plan(p, c, algorithm)


@SETTINGS
@given(baseline_cases())
def test_every_baseline_program_validates(case):
    p, c, s = case
    cs.validate(p, c, s)


@SETTINGS
@given(baseline_cases(), st.data())
def test_dropping_a_data_message_is_rejected(case, data):
    p, c, s = case
    prog = lower_any(p, c, s)
    msg = data.draw(st.sampled_from(data_messages(prog)))
    with pytest.raises(cs.ValidationError):
        cs.validate(p, c, drop_message(prog, msg))


@SETTINGS
@given(baseline_cases(), st.data())
def test_duplicating_a_data_message_is_rejected(case, data):
    p, c, s = case
    prog = lower_any(p, c, s)
    msg = data.draw(st.sampled_from(data_messages(prog)))
    with pytest.raises(cs.ValidationError, match="again"):
        cs.validate(p, c, duplicate_message(prog, msg))


@SETTINGS
@given(baseline_cases(), st.data())
def test_reordering_a_forward_before_its_input_is_rejected(case, data):
    p, c, s = case
    prog = lower_any(p, c, s)
    candidates = forwarding_ops(prog)
    if not candidates:  # nothing is forwarded (e.g. a flat tree): no such reordering exists
        return
    op = data.draw(st.sampled_from(candidates))
    with pytest.raises(cs.ValidationError, match="does not hold|without waiting"):
        cs.validate(p, c, hoist(prog, op))


@SETTINGS
@given(baseline_cases(), st.data())
def test_swapping_what_two_messages_carry_is_rejected(case, data):
    p, c, s = case
    prog = lower_any(p, c, s)
    ops = rows(prog)
    carried = {op["msg"]: (op["peer"], op["pieces"]) for op in ops if op["kind"] == 0 and op["pieces"]}
    # messages to different ranks with different contents (two instances of one route may be swapped harmlessly)
    pairs = [(a, b) for a in carried for b in carried
             if a < b and carried[a][0] != carried[b][0] and carried[a][1] != carried[b][1]]
    if not pairs:  # a broadcast: every message carries the same value
        return
    a, b = data.draw(st.sampled_from(pairs))
    with pytest.raises(cs.ValidationError):
        cs.validate(p, c, swap_pieces(prog, a, b))


# --- precise messages -----------------------------------------------------------------------------

@pytest.fixture
def star4():
    return cs.topologies.star(4)


def test_commuting_a_reduction_is_rejected(star4):
    c = cs.Reduce(participants=["h0", "h1", "h2"], target="h0", size=8, task_cost=1)
    b = ProgramBuilder(star4.hosts)
    b.send("h2", "h0", [partial(0, 2, 2)], 8)
    b.send("h1", "h0", [partial(0, 1, 1)], 8)
    # v0 ⊕ v2 skips v1: not adjacent
    b.compute("h0", [partial(0, 0, 0), partial(0, 2, 2)], partial(0, 0, 2), 1)
    with pytest.raises(cs.ValidationError, match=r"rank h0 op 2 \(compute\) is not a valid reduction: "
                                                 r"inputs are not adjacent in operand order"):
        cs.validate(star4, c, b.build())


def test_a_correct_non_commutative_reduction_passes(star4):
    c = cs.Reduce(participants=["h2", "h0", "h1"], target="h0", size=8, task_cost=1)
    b = ProgramBuilder(star4.hosts)
    b.send("h2", "h0", [partial(0, 0, 0)], 8)
    b.send("h1", "h0", [partial(0, 2, 2)], 8)
    b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), 1)
    b.compute("h0", [partial(0, 0, 1), partial(0, 2, 2)], partial(0, 0, 2), 1)
    cs.validate(star4, c, b.build())


def test_a_race_names_the_operation_it_should_wait_for(star4):
    c = cs.Broadcast(source="h0", targets=["h0", "h1", "h2"], size=5)
    b = ProgramBuilder(star4.hosts)
    v = block(0, 0, -1)
    b.send("h0", "h1", [v], 5)
    # h1 forwards without waiting for its receive (after=() overrides the builder's own dependency only
    # when the builder does not know the producer: so we build the race by hand)
    prog = b.build()
    ops = rows(prog)
    ops.append(dict(rank=1, kind=0, peer=2, msg=1, size=5.0, deps=[], pieces=[(*v, 0, 1)]))
    ops.append(dict(rank=2, kind=1, peer=1, msg=1, size=5.0, deps=[], pieces=[]))
    from programs import build
    with pytest.raises(cs.ValidationError, match=r"rank h1 op 1 \(send msg 1 to h2\) uses m\[h0→\*\]@0 "
                                                 r"without waiting for rank h1 op 0 \(recv msg 0 from h0\)"):
        cs.validate(star4, c, build(star4.hosts, ops))


def test_missing_value_names_rank_and_value(star4):
    c = cs.Gather(sources=["h1", "h2"], target="h3", size=1)
    b = ProgramBuilder(star4.hosts)
    b.send("h1", "h3", [block(0, 1, 3)], 1)
    with pytest.raises(cs.ValidationError, match=r"rank h3 ends without m\[h2→h3\]@0 \(it never receives it\)"):
        cs.validate(star4, c, b.build())


def test_wrong_byte_count_is_rejected(star4):
    c = cs.Scatter(source="h0", targets=["h1"], size=100)
    b = ProgramBuilder(star4.hosts)
    b.send("h0", "h1", [block(0, 0, 1)], 10)
    with pytest.raises(cs.ValidationError, match="declares 10 bytes but its pieces weigh 100"):
        cs.validate(star4, c, b.build())


def test_wrong_task_cost_is_rejected(star4):
    c = cs.Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=50)
    b = ProgramBuilder(star4.hosts)
    b.send("h1", "h0", [partial(0, 1, 1)], 8)
    b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), 5)
    with pytest.raises(cs.ValidationError, match=r"computes T\(0,0,1\) with cost 5 but the reduce says 50"):
        cs.validate(star4, c, b.build())


def test_sending_what_one_never_had_is_rejected(star4):
    c = cs.Scatter(source="h0", targets=["h1"], size=1)
    b = ProgramBuilder(star4.hosts)
    b.send("h2", "h1", [block(0, 0, 1)], 1)
    with pytest.raises(cs.ValidationError, match=r"rank h2 op 0 \(send msg 0 to h1\) uses m\[h0→h1\]@0, "
                                                 r"which its rank does not hold then"):
        cs.validate(star4, c, b.build())


def test_deadlock_under_rendezvous_only(star4):
    """Two ranks that both send first: fine with buffered sends, a deadlock with synchronous ones."""
    from programs import build
    c = cs.AllToAll(senders=["h0", "h1"], size=4)
    ops = [dict(rank=0, kind=0, peer=1, msg=0, size=4.0, deps=[], pieces=[(*block(0, 0, 1), 0, 1)]),
           dict(rank=1, kind=0, peer=0, msg=1, size=4.0, deps=[], pieces=[(*block(0, 1, 0), 0, 1)]),
           dict(rank=0, kind=1, peer=1, msg=1, size=4.0, deps=[0], pieces=[]),
           dict(rank=1, kind=1, peer=0, msg=0, size=4.0, deps=[1], pieces=[])]
    mutant = build(star4.hosts, ops)
    cs.validate(star4, c, mutant)
    with pytest.raises(cs.ValidationError, match=r"deadlock: rank h0 op 0 \(send msg 0 to h1\).* can never run"):
        cs.validate(star4, c, mutant, rendezvous=True)


def test_segmented_pieces_must_all_arrive(star4):
    c = cs.Broadcast(source="h0", targets=["h1"], size=8)
    b = ProgramBuilder(star4.hosts, denominator=4)
    v = block(0, 0, -1)
    from collsched.schedules import Piece
    b.send("h0", "h1", [Piece(v, 0, 2)], 4)
    b.send("h0", "h1", [Piece(v, 3, 4)], 2)
    with pytest.raises(cs.ValidationError, match=r"rank h1 ends without m\[h0→\*\]@0 \(it holds only 3/4 of it\)"):
        cs.validate(star4, c, b.build())
    b.send("h0", "h1", [Piece(v, 2, 3)], 2)
    cs.validate(star4, c, b.build())


def test_program_on_a_router_rank_is_checked_against_the_platform(star4):
    c = cs.Scatter(source="h0", targets=["h1"], size=1)
    b = ProgramBuilder(["h0", "h1", "nowhere"])
    b.send("h0", "h1", [block(0, 0, 1)], 1)
    with pytest.raises(cs.ValidationError, match="rank 'nowhere', which is not in platform"):
        cs.validate(star4, c, b.build())
