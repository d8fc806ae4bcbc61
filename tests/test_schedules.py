"""The four schedule shapes lower to programs that the validator accepts (or rejects for the right reason)."""

from fractions import Fraction

import pytest

import collsched as cs
from collsched.errors import CollectiveError, ScheduleError
from collsched.schedules import (SYNC_MODES, OrderSchedule, PeriodicSchedule, PeriodicTask, PeriodicTransfer, Slot,
                                 StepSchedule, Transfer, TreeSchedule, block, partial)


@pytest.fixture
def star():
    return cs.topologies.star(5)


@pytest.mark.parametrize("sync", SYNC_MODES)
def test_split_messages_across_steps(star, sync):
    """RS_NLH-style: a message cut in two parts sent in different steps."""
    c = cs.AllToMany({("h0", "h1"): 300, ("h2", "h1"): 100, ("h3", "h4"): 50})
    steps = [[Transfer("h0", "h1", part=(0, 2)), Transfer("h3", "h4")],
             [Transfer("h2", "h1")],
             [Transfer("h0", "h1", part=(2, 3))]]
    s = StepSchedule(steps=steps, denominator=3, algorithm="split")
    prog = s.lower(star, c, sync=sync)
    cs.validate(star, c, prog)
    sizes = sorted(prog.op_size[(prog.op_kind == 0) & (prog.op_size > 0)].tolist())
    assert sizes == [50.0, 100.0, 100.0, 200.0]


def test_missing_part_is_caught(star):
    c = cs.AllToMany({("h0", "h1"): 300})
    s = StepSchedule(steps=[[Transfer("h0", "h1", part=(0, 2))]], denominator=3)
    with pytest.raises(cs.ValidationError, match=r"rank h1 ends without m\[h0→h1\]@0 \(it holds only 2/3 of it\)"):
        cs.validate(star, c, s)


def test_barrier_separates_steps(star):
    c = cs.AllToAll(senders=["h0", "h1"], size=10)
    s = StepSchedule.from_pairs([[("h0", "h1")], [("h1", "h0")]])
    barrier = s.lower(star, c, sync="barrier")
    loose = s.lower(star, c, sync="post_all")
    # 5 ranks: ceil(log2 5) = 3 rounds of 5 empty messages between the two steps
    assert barrier.n_messages - loose.n_messages == 15
    assert barrier.n_data_messages == loose.n_data_messages == 2


def test_ready_signals_precede_each_transfer(star):
    c = cs.AllToAll(senders=["h0", "h1"], size=10)
    prog = StepSchedule.from_pairs([[("h0", "h1"), ("h1", "h0")]]).lower(star, c, sync="ready")
    assert prog.n_messages == 4 and prog.n_data_messages == 2
    data_send = next(op for op in prog if op.kind == "send" and op.pieces and op.rank == "h0")
    ready_recv = prog.op(data_send.after[0])
    assert ready_recv.kind == "recv" and ready_recv.peer == "h1" and ready_recv.size == 0


def test_relay_transfers_name_their_values(star):
    """A scatter through a relay: h0 sends h3's block to h1, which forwards it."""
    c = cs.Scatter(source="h0", targets=["h1", "h3"], size=7)
    v3 = block(0, 0, 3)
    s = StepSchedule(steps=[[Transfer("h0", "h1", values=(block(0, 0, 1), v3))], [Transfer("h1", "h3", values=(v3,))]])
    cs.validate(star, c, s)
    bad = StepSchedule(steps=[[Transfer("h1", "h3", values=(v3,))], [Transfer("h0", "h1", values=(block(0, 0, 1), v3))]])
    with pytest.raises(cs.ValidationError, match=r"rank h1 op 0 \(send msg 0 to h3\) uses m\[h0→h3\]@0"):
        cs.validate(star, c, bad)


def test_reduce_steps_need_explicit_values(star):
    c = cs.Reduce(participants=["h0", "h1"], target="h0", size=1)
    with pytest.raises(CollectiveError, match="a reduce has no direct message h1->h0"):
        StepSchedule.from_pairs([[("h1", "h0")]]).lower(star, c)


def test_order_schedule_series(star):
    c = cs.Series(cs.AllToAll(senders=["h0", "h1", "h2"], receivers=["h0"], size=4), count=2)
    s = OrderSchedule(orders={"h1": ("h0", ("h0", 1)), "h2": (("h0", 1), "h0")})
    cs.validate(star, c, s)
    prog = s.lower(star, c)
    sends = [op for op in prog if op.kind == "send" and op.rank == "h2"]
    assert [op.pieces[0].value.inst for op in sends] == [1, 0]
    assert sends[1].after == (sends[0].index,)


def test_order_schedule_sending_to_itself():
    with pytest.raises(ScheduleError, match="sender 'h1' sends to itself"):
        OrderSchedule(orders={"h1": ("h1",)})


@pytest.mark.parametrize("segments", [1, 2, 5])
def test_segmented_trees(star, segments):
    tree = TreeSchedule(root="h0", children={"h0": ("h1", "h3"), "h1": ("h2",), "h3": ("h4",)}, segments=segments)
    for c in (cs.Broadcast(source="h0", targets=star.hosts, size=1e3),
              cs.Reduce(participants=star.hosts, target="h0", size=1e3, task_cost=10),
              cs.Scatter(source="h0", targets=star.hosts, size=1e3),
              cs.Gather(sources=star.hosts, target="h0", size=1e3)):
        prog = tree.lower(star, c)
        cs.validate(star, c, prog)
        assert prog.n_data_messages == 4 * segments


def test_segmented_reduce_tasks_cost_a_segment_each(star):
    tree = TreeSchedule(root="h0", children={"h0": ("h1",)}, segments=4)
    c = cs.Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=100)
    prog = tree.lower(star, c)
    tasks = [op for op in prog if op.kind == "compute"]
    assert len(tasks) == 4 and {op.size for op in tasks} == {25.0}


def test_non_contiguous_reduce_tree_forwards_several_partials(star):
    """h1 holds v1 and receives v3 from h3: not adjacent, so it forwards both."""
    c = cs.Reduce(participants=["h0", "h1", "h2", "h3"], target="h0", size=8, task_cost=1)
    tree = TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h1": ("h3",)})
    prog = tree.lower(star, c)
    cs.validate(star, c, prog)
    to_root = [op for op in prog if op.kind == "send" and op.rank == "h1"]
    assert [repr(p.value) for p in to_root[0].pieces] == ["v[1..1]@0", "v[3..3]@0"]


def test_tree_shape_errors(star):
    with pytest.raises(ScheduleError, match="tree node 'h2' has two parents"):
        TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h1": ("h2",)})
    with pytest.raises(ScheduleError, match="tree node 'h3' is not reachable from the root"):
        TreeSchedule(root="h0", children={"h0": ("h1",), "h3": ("h4",)})
    tree = TreeSchedule(root="h0", children={"h0": ("h1",)})
    with pytest.raises(ScheduleError, match="the tree does not reach broadcast host 'h2'"):
        tree.lower(star, cs.Broadcast(source="h0", targets=["h1", "h2"], size=1))
    with pytest.raises(ScheduleError, match="rooted at 'h0' but the scatter source is 'h1'"):
        tree.lower(star, cs.Scatter(source="h1", targets=["h0"], size=1))
    with pytest.raises(ScheduleError, match="cannot carry an alltoall collective"):
        tree.lower(star, cs.AllToAll(senders=["h0", "h1"], size=1))


def test_periodic_reduce_pipeline(star):
    """Each period: h1 sends v1 of this period's instance, h0 combines the previous period's."""
    c = cs.Series(cs.Reduce(participants=["h0", "h1"], target="h0", size=10, task_cost=3), count=4)
    slot = Slot(Fraction(1, 10), transfers=(PeriodicTransfer("h1", "h0", (partial(0, 1, 1),), 10),),
                tasks=(PeriodicTask("h0", (partial(-1, 0, 0), partial(-1, 1, 1)), partial(-1, 0, 1), 3),))
    s = PeriodicSchedule(throughput=10, period=Fraction(1, 10), ops_per_period=1, slots=(slot,))
    assert s.lag() == 1 and s.periods_for(4) == 5
    prog = s.lower(star, c)
    cs.validate(star, c, prog)
    assert prog.n_messages == 4 and sum(op.kind == "compute" for op in prog) == 4


def test_periodic_slots_cannot_overflow_the_period():
    with pytest.raises(ScheduleError, match="last 3/2, more than the period 1"):
        PeriodicSchedule(period=1, slots=(Slot(Fraction(1)), Slot(Fraction(1, 2))))


def test_bound_gap():
    s = cs.plan(cs.topologies.star(3), cs.Broadcast(source="h0", targets=["h1", "h2"], size=1), "linear")
    assert s.bound is None and s.status == cs.Status.FEASIBLE
    assert cs.Bound(Fraction(1, 2), "throughput", "LP").gap(0.25) == 1.0


def test_a_computation_with_inputs_needs_an_output():
    from collsched.schedules import ProgramBuilder
    b = ProgramBuilder(["h0"])
    with pytest.raises(ScheduleError, match="with inputs needs an output"):
        b.compute("h0", [partial(0, 0, 0)], None, 1.0)
