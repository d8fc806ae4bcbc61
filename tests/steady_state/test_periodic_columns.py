"""The column-wise lowering of periodic schedules against the ProgramBuilder's (the reference), program for program."""

from fractions import Fraction as F

import pytest
from test_steady_state_paper import figure2, figure6

import collsched as cs
from collsched.errors import ScheduleError
from collsched.schedules.periodic import PeriodicSchedule, PeriodicTask, PeriodicTransfer, Slot, lower_with_builder
from collsched.schedules.periodic_columns import periodic_program
from collsched.schedules.values import Piece, block, partial, reduced


def tiers():
    return cs.topologies.tiers(seed=1)


def cases():
    star = cs.topologies.star(6, bandwidth=1.25e8, latency=1e-5)
    hosts = list(tiers().hosts)
    yield "alltoall", star, cs.AllToAll(senders=star.hosts, size=1e6), {}
    yield "alltoall multi", star, cs.AllToAll(senders=star.hosts, size=1e6), {"ports": "multi"}
    yield "scatter", tiers(), cs.Scatter(source=hosts[0], targets=hosts[1:6], size=1e7), {}
    yield "reduce", tiers(), cs.Reduce(participants=hosts[:5], target=hosts[0], size=1e7, task_cost=1e7), {}
    small = cs.topologies.star(4, bandwidth=1e9, latency=1e-6)
    yield "allreduce multi", small, cs.AllReduce(participants=small.hosts, size=4e6), {"ports": "multi"}
    yield "broadcast multi", star, cs.Broadcast(source="h0", targets=star.hosts[1:], size=1e6), {"ports": "multi"}
    yield "fig2 sequential", figure2(), cs.Scatter(source="Ps", targets=["P0", "P1"], size=1), {"phases": "sequential"}
    yield "fig6 pipelined", figure6(), cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1, task_cost=1), \
        {"phases": "pipelined"}


CASES = {name: rest for name, *rest in cases()}


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("count", [1, 2, 7])
def test_planned_schedules_lower_to_the_builder_s_program(name, count):
    p, base, options = CASES[name]
    c = cs.Series(base, count=count)
    s = cs.plan(p, c, algorithm="steady_state", **options)
    assert isinstance(s, PeriodicSchedule)
    fast = periodic_program(s, s.ranks(p), count)
    assert fast is not None and fast == lower_with_builder(s, p, count) == s.lower(p, c)
    assert fast.n_ops > 0
    cs.validate(p, c, fast)


def test_phased_schedules_with_more_operations_than_periods():
    p = figure6()
    c = cs.Series(cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1, task_cost=1), count=60)
    s = cs.plan(p, c, algorithm="steady_state", phases="sequential")
    assert s.init and s.cleanup and s.lag() >= 1
    assert s.lower(p, c) == lower_with_builder(s, p, 60)


def test_hand_made_pattern_with_pieces_reductions_and_shared_links():
    """Fragments that overlap in part, commutative reductions (operand sets), a relay, two messages on one link
    direction per slot (multi-port: one message), computations that outlast their slot."""
    p = cs.topologies.star(3)
    half = [Piece(block(0, 0, 2), 0, 1), Piece(block(0, 0, 2), 1, 2)]
    relay = [Piece(block(-1, 0, 2), 0, 2)]
    slots = [Slot(F(1, 2), [PeriodicTransfer("h0", "h1", [half[0]], 5e2), PeriodicTransfer("h0", "h1", [half[1]], 5e2),
                            PeriodicTransfer("h1", "h2", relay, 1e3),
                            PeriodicTransfer("h2", "h0", [reduced(0, [1, 2])], 8.0)],
                  [PeriodicTask("h0", [reduced(0, [0]), reduced(0, [1, 2])], reduced(0, [0, 1, 2]), 10.0)]),
             Slot(F(1, 2), [PeriodicTransfer("h2", "h1", [partial(-1, 0, 1)], 4.0)],
                  [PeriodicTask("h1", [partial(-1, 0, 1), partial(-2, 2, 2)], partial(-2, 0, 2), 3.0)])]
    for ports in ("one", "multi"):
        s = PeriodicSchedule(throughput=1, period=1, slots=slots, denominator=2, ports=ports, algorithm="hand")
        for count in (1, 3, 6):
            fast = periodic_program(s, s.ranks(p), count)
            slow = lower_with_builder(s, p, count)
            assert fast == slow and fast.operand_sets == slow.operand_sets
        assert fast.operand_sets == (0b110, 0b1, 0b111)


def test_a_node_that_is_not_a_rank_is_left_to_the_builder_which_names_it():
    s = PeriodicSchedule(period=1, slots=[Slot(1, [PeriodicTransfer("h0", "nowhere", [block(0, 0, 1)], 1.0)])])
    p = cs.topologies.star(2)
    assert periodic_program(s, s.ranks(p), 2) is None
    with pytest.raises(ScheduleError, match="'nowhere' is not a rank"):
        s.lower(p, cs.Series(cs.Scatter(source="h0", targets=["h1"], size=1.0), count=2))
