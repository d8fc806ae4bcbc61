"""Bad input: clear errors or statuses, never a wrong "optimal"."""

from fractions import Fraction as F

import pytest

import collsched as cs
from collsched.algorithms.steady_state.exact import SteadyStateError
from collsched.algorithms.steady_state.lp_alltoall import solve_flows
from collsched.algorithms.steady_state.lp_reduce import solve_reduce
from collsched.errors import CollectiveError, PlatformError
from collsched.platform.model import Link, Node, Platform


def one_way():
    nodes = [Node("a"), Node("b"), Node("c")]
    return Platform(nodes, [Link("ab", 1e6, 0, ends=("a", "b"), directed=True),
                            Link("cb", 1e6, 0, ends=("c", "b"), directed=True)], name="one-way")


def test_unreachable_target_says_which():
    p = one_way()
    c = cs.Series(cs.Scatter(source="a", targets=["b", "c"], size=1), count=2)
    with pytest.raises((SteadyStateError, PlatformError), match="'c' is unreachable from host 'a'"):
        cs.plan(p, c, algorithm="steady_state")


def test_unreachable_participant_says_which():
    p = one_way()
    c = cs.Series(cs.Reduce(participants=["a", "b"], target="a", size=1, task_cost=1), count=2)
    with pytest.raises((SteadyStateError, PlatformError), match="'a' is unreachable from host 'b'"):
        cs.plan(p, c, algorithm="steady_state")


def test_non_positive_sizes_are_refused():
    with pytest.raises(CollectiveError):
        cs.Scatter(source="h0", targets=["h1"], size=0)
    with pytest.raises(CollectiveError, match="partial size"):
        cs.Reduce(participants=["h0", "h1"], target="h0", size=1, partial_sizes={(0, 1): 0.0})
    with pytest.raises(SteadyStateError, match="size 0"):
        solve_flows(cs.topologies.star(2), [("h0", "h1", 0)])


def test_lp_level_reachability_on_the_graph_view():
    p = one_way()
    with pytest.raises(SteadyStateError, match="'c' is unreachable from 'a'"):
        solve_flows(p, [("a", "c", 1)])
    with pytest.raises(SteadyStateError, match="participant 'b' cannot reach target 'a'"):
        solve_reduce(p, cs.Reduce(participants=["a", "b"], target="a", size=1))


def test_lp_limit_is_a_status_not_an_optimum():
    p = cs.topologies.tiers(seed=3)
    c = cs.Series(cs.Reduce(participants=p.hosts[:10], target=p.hosts[0], size=1e6, task_cost=1e6), count=2)
    s = cs.plan(p, c, algorithm="steady_state", time_limit=1e-6)
    assert s.status is cs.Status.LIMIT
    assert "Time limit" in s.message and "best float objective so far" in s.message


@pytest.mark.parametrize("opts,name", [(dict(max_ops=0), "max_ops"), (dict(split="no"), "split"),
                                       (dict(time_limit=0), "time_limit")])
def test_options_are_checked_first(opts, name):
    p = cs.topologies.star(2)
    c = cs.Series(cs.Scatter(source="h0", targets=["h1"], size=1), count=2)
    with pytest.raises(ValueError, match=name):
        cs.plan(p, c, algorithm="steady_state", **opts)


def test_zero_throughput_cannot_be_built():
    """Zero bandwidths or speeds are refused by the platform: a zero optimum never reaches the LP."""
    with pytest.raises(PlatformError, match="bandwidth 0"):
        Platform([Node("a"), Node("b")], [Link("ab", 0, 0, ends=("a", "b"))], name="zero")
    with pytest.raises(PlatformError, match="speed 0"):
        Platform([Node("a", speed=0), Node("b")], [Link("ab", 1e6, 0, ends=("a", "b"))], name="zero")


def test_coefficients_beyond_floating_point_are_refused():
    p = Platform([Node("a", speed=1e-300), Node("b", speed=1e-300)], [Link("ab", 1e6, 0, ends=("a", "b"))], name="far")
    c = cs.Series(cs.Reduce(participants=["a", "b"], target="a", size=1, task_cost=1e300), count=2)
    with pytest.raises(SteadyStateError, match="out of floating-point range"):
        cs.plan(p, c, algorithm="steady_state")


@pytest.mark.parametrize("make", [lambda: cs.Reduce(participants=["h0", "h1"], target="h0", size=1, task_cost=-1),
                                  lambda: cs.Broadcast(source="h0", targets=["h1"], size=0),
                                  lambda: cs.AllToMany({("h0", "h1"): 0.0}),
                                  lambda: cs.AllToAll(senders=["h0", "h1"], size=-1)])
def test_non_positive_sizes_and_costs_of_every_kind(make):
    with pytest.raises(CollectiveError, match="must be finite and > 0"):
        make()


def test_limit_keeps_what_was_found_and_no_optimum():
    p = cs.topologies.tiers(seed=3)
    c = cs.Series(cs.AllToAll(senders=p.hosts[:6], size=1e6), count=2)
    s = cs.plan(p, c, algorithm="steady_state", time_limit=1e-6)
    assert s.status is cs.Status.LIMIT and s.bound is None and s.throughput == 0
    assert not s.slots
    with pytest.raises(Exception):
        cs.validate(p, c, s)


def test_fixed_period_says_so_and_keeps_the_exact_bound():
    """Two hosts whose processors both compute at every optimum (section 4.6's fixed period is then forced).

    Communication is nearly free, so TP = speed(a) + speed(b) tasks per
    second and every optimum computes at rate 10^6 on a and 1,000,001 on b:
    two reduction trees whose weights need a period of 2,000,001 operations,
    more than ``max_ops``, whatever optimal vertex the solver returns.
    """
    p = Platform([Node("a", speed=1e6), Node("b", speed=1.000001e6)], [Link("ab", 1e12, 0, ends=("a", "b"))],
                 name="two-cpus")
    c = cs.Series(cs.Reduce(participants=["a", "b"], target="a", size=1, task_cost=1e6), count=4)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=4)
    assert s.bound.value == s.activities["TP"] == F(2000001, 1000000)
    assert s.params["period_kind"] == "fixed" and sorted(s.params["tree_weights"]) == ["1000000", "1000001"]
    assert "exact period needs a 7-digit number of operations" in s.message and "stays the bound" in s.message
    assert s.throughput < s.bound.value and s.status is cs.Status.FEASIBLE
    cs.validate(p, c, s)
