"""How step schedules of reductions are lowered: a sender forms what it sends from what it holds (combining)."""

import pytest

import collsched as cs
from collsched.schedules import StepSchedule, Transfer
from collsched.schedules.values import partial, reduced


def computes(prog):
    return [op for op in prog if op.kind == "compute"]


def test_ordered_values_are_formed_left_then_right():
    """P_1 holds v1 and receives v0 and v[2..3]; to send v[0..3] it combines v0 ⊕ v1, then ⊕ v[2..3]."""
    p = cs.topologies.star(4)
    c = cs.AllReduce(participants=p.hosts, size=8, task_cost=40, commutative=False)
    up = [[Transfer("h0", "h1", values=[partial(0, 0, 0)]), Transfer("h3", "h2", values=[partial(0, 3, 3)])],
          [Transfer("h2", "h1", values=[partial(0, 2, 3)])],
          [Transfer("h1", "h0", values=[partial(0, 0, 3)]), Transfer("h1", "h2", values=[partial(0, 0, 3)])],
          [Transfer("h2", "h3", values=[partial(0, 0, 3)])]]
    prog = StepSchedule(steps=up).lower(p, c, sync="post_all")
    tasks = [(op.rank, [x.value for x in op.pieces], op.size) for op in computes(prog)]
    assert tasks == [("h2", [partial(0, 2, 2), partial(0, 3, 3), partial(0, 2, 3)], 40.0),
                     ("h1", [partial(0, 0, 0), partial(0, 1, 1), partial(0, 0, 1)], 40.0),
                     ("h1", [partial(0, 0, 1), partial(0, 2, 3), partial(0, 0, 3)], 40.0)]
    cs.validate(p, c, prog, rendezvous=True)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_reduction_tasks_cost_their_fragment(n):
    """Ring reduce-scatter: every participant combines N-1 times a 1/N fragment: (N-1)/N · task_cost each."""
    p = cs.topologies.star(n)
    c = cs.ReduceScatter(participants=p.hosts, size=10.0, task_cost=1e3)
    prog = cs.plan(p, c, algorithm="ring", channels=2).lower(p, c)
    per_rank = {}
    for op in computes(prog):
        per_rank[op.rank] = per_rank.get(op.rank, 0.0) + op.size
    assert per_rank == {h: pytest.approx((n - 1) * 1e3 / n, rel=1e-12) for h in p.hosts}
    cs.validate(p, c, prog)


def test_a_value_formed_once_is_reused():
    """Hierarchical all-reduce: what a GPU reduced in its box it sends across boxes on sub-fragments, combined once."""
    g = cs.topologies.dgx_a100(2)
    c = cs.AllReduce(participants=g.hosts, size=1.0, task_cost=16.0)
    prog = cs.plan(g, c, algorithm="hierarchical").lower(g, c, sync="post_all")
    # each GPU: 7 combines of 1/8 in its box, then 1 of 1/16 across: 7/8 + 1/16 of the task cost
    total = sum(op.size for op in computes(prog))
    assert total == pytest.approx(16 * 16.0 * (7 / 8 + 1 / 16), rel=1e-12)
    cs.validate(g, c, prog)


def test_what_a_schedule_never_brings_is_left_to_the_validator():
    p = cs.topologies.star(4)
    c = cs.AllReduce(participants=p.hosts, size=8)
    s = cs.plan(p, c, algorithm="ring")
    truncated = StepSchedule(steps=s.steps[:-1], denominator=s.denominator)
    with pytest.raises(cs.ValidationError, match="ends without"):
        cs.validate(p, c, truncated.lower(p, c))


def test_a_sender_that_cannot_form_its_value_raises_one_line():
    p = cs.topologies.star(3)
    c = cs.ReduceScatter(participants=p.hosts, size=8)
    s = StepSchedule(steps=[[Transfer("h0", "h1", part=(0, 1), values=[reduced(0, [0, 2])])]], denominator=3)
    with pytest.raises(cs.errors.ScheduleError) as info:
        s.lower(p, c)
    assert str(info.value) == ("rank h0 cannot form Σ{2}@0 on [0/3, 1/3): it holds neither it nor a part of it "
                               "there (send it there first)")


def test_step_schedules_of_other_collectives_are_lowered_as_before():
    p = cs.topologies.star(4)
    c = cs.AllGather(participants=p.hosts, size=8)
    prog = cs.plan(p, c, algorithm="ring").lower(p, c)
    assert computes(prog) == [] and prog.n_data_messages == 12
