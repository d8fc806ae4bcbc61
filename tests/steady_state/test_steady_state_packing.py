"""Broadcast trees: an exact packing of arborescences of total weight TP (Edmonds' branching theorem)."""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.steady_state.lp_broadcast import pack_trees, solve_broadcast
from collsched.algorithms.steady_state.packing import max_flow, pack_arborescences
from collsched.errors import CollschedError


def check_packing(cap, root, k, trees):
    nodes = {x for e in cap for x in e} | {root}
    assert sum(w for w, _ in trees) == k
    used = {}
    for w, parent in trees:
        assert w > 0
        assert set(parent) == nodes - {root}  # spanning
        for v in parent:  # an arborescence: every node leads back to the root
            seen, x = set(), v
            while x != root:
                assert x not in seen
                seen.add(x)
                x = parent[x]
        for v, u in parent.items():
            used[(u, v)] = used.get((u, v), 0) + w
    assert all(x <= cap[e] for e, x in used.items())


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 10_000), density=st.floats(0.3, 1.0))
def test_random_digraphs_pack_exactly_min_cut(n, seed, density):
    rng = np.random.default_rng(seed)
    cap = {}
    for a in range(n):
        for b in range(n):
            if a != b and (rng.random() < density or b == a + 1):
                cap[(a, b)] = F(int(rng.integers(0, 7)), int(rng.integers(1, 5)))
    k = min(max_flow(cap, (0,), v)[0] for v in range(1, n))
    if k == 0:
        with pytest.raises(CollschedError, match="cut from 0"):
            pack_arborescences(cap, 0, F(1))
        return
    check_packing(cap, 0, k, pack_arborescences(cap, 0, k))


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 6), seed=st.integers(0, 10_000))
def test_broadcast_on_random_complete_graphs_packs_tp(n, seed):
    p = cs.topologies.fully_connected(n, bandwidth=[1e6, 8e6], latency=0, seed=seed)
    c = cs.Broadcast(source="h0", targets=list(p.hosts[1:]), size=1e6)
    b = solve_broadcast(p, c)
    trees = pack_trees(b)
    assert sum(w for w, _ in trees) == b.throughput
    s = cs.plan(p, cs.Series(c, count=12), algorithm="steady_state")
    assert s.bound.value == b.throughput
    assert s.throughput <= b.throughput
    assert (s.status is cs.Status.OPTIMAL) == (s.throughput == b.throughput)
    if s.params["period_kind"] == "fixed":  # float bandwidths: an astronomically long exact period (section 4.6)
        assert "fixed period" in s.message and "stays the bound" in s.message
    else:
        assert s.status is cs.Status.OPTIMAL
    cs.validate(p, cs.Series(c, count=12), s)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_broadcast_on_random_tiers_is_exact_or_says_feasible(seed):
    p = cs.topologies.tiers(seed=seed, wan_nodes=2, mans=1, man_nodes=2, lans_per_man=2, lan_hosts=2)
    rng = np.random.default_rng(seed)
    hosts = [p.hosts[i] for i in rng.permutation(len(p.hosts))[:4]]
    c = cs.Broadcast(source=hosts[0], targets=hosts[1:], size=1e5)
    b = solve_broadcast(p, c)
    trees = pack_trees(b)
    packed = sum(w for w, _ in trees)
    assert packed <= b.throughput
    used = {}
    for w, tree in trees:
        assert all(t in tree for t in c.targets)
        for v, (u, _) in tree.items():
            used[(u, v)] = used.get((u, v), 0) + w
    assert all(x <= b.usage[e] for e, x in used.items())
    s = cs.plan(p, cs.Series(c, count=8), algorithm="steady_state", max_ops=8)
    if s.status is cs.Status.OPTIMAL:
        assert s.throughput == b.throughput == packed
    cs.validate(p, cs.Series(c, count=8), s)


def test_small_example_two_trees():
    """A source feeding a and b, which relay to each other: TP = 1 needs both trees s→a→b and s→b→a."""
    cap = {("s", "a"): F(1, 2), ("s", "b"): F(1, 2), ("a", "b"): F(1, 2), ("b", "a"): F(1, 2)}
    trees = pack_arborescences(cap, "s", F(1))
    check_packing(cap, "s", 1, trees)
    assert sorted(sorted(t.items()) for _, t in trees) == [[("a", "b"), ("b", "s")], [("a", "s"), ("b", "a")]]


def test_broadcast_schedule_carries_its_weighted_trees(tmp_path):
    from collsched.schedules.io import load_schedule, save_schedule

    p = cs.topologies.fully_connected(4, bandwidth=1, latency=0)
    c = cs.Series(cs.Broadcast(source="h0", targets=["h1", "h2", "h3"], size=1), count=12)
    s = cs.plan(p, c, algorithm="steady_state")
    assert s.status is cs.Status.OPTIMAL
    T = F(s.params["lp_period"])
    assert sum(w for w, _ in s.trees) == s.bound.value * T          # integer weights per period, total TP·T
    assert all(w.denominator == 1 for w, _ in s.trees)
    assert all(t.root == "h0" for _, t in s.trees)
    save_schedule(s, tmp_path / "b.json")
    assert load_schedule(tmp_path / "b.json").trees == s.trees
    cs.validate(p, c, s)


def test_multicast_through_relays_is_exact_or_says_feasible():
    """Fig. 2's graph as a broadcast: P_a may relay part of one target's flow, where no exact packing is guaranteed.

    What every optimum of the LP satisfies: the bound is TP = 4/7, the packed
    rate is at most the bound, the status is FEASIBLE (and the message says
    why) exactly when it is below, the schedule validates and simulates at
    its own rate.
    """
    from test_steady_state_paper import figure2

    from collsched.simulation.steady import steady_rate

    p = figure2()
    c = cs.Series(cs.Broadcast(source="Ps", targets=["P0", "P1"], size=1), count=12)
    s = cs.plan(p, c, algorithm="steady_state")
    assert s.bound.value == F(4, 7)
    assert F(s.params["packed_rate"]) == s.throughput <= s.bound.value
    assert (s.status is cs.Status.FEASIBLE) == (s.throughput < s.bound.value) == ("below the LP optimum" in s.message)
    assert s.status in (cs.Status.OPTIMAL, cs.Status.FEASIBLE)
    cs.validate(p, c, s)
    r = steady_rate(p, s, model=cs.models.OnePort(cost="edges"))
    assert abs(r.rate / s.throughput - 1) < 1e-9


def test_multicast_canonical_choice_packs_the_bound():
    """The planner's own choice on Fig. 2's graph (least link busy time, proven unique) packs exactly TP = 4/7."""
    from test_steady_state_paper import figure2

    b = solve_broadcast(figure2(), cs.Broadcast(source="Ps", targets=["P0", "P1"], size=1))
    assert b.solution.unique
    assert b.usage == {("Ps", "Pa"): F(1, 7), ("Ps", "Pb"): F(4, 7), ("Pa", "P0"): F(1, 7), ("Pb", "P0"): F(3, 7),
                       ("Pb", "P1"): F(4, 7)}
    assert sum(w for w, _ in pack_trees(b)) == b.throughput == F(4, 7)


def test_multicast_packing_below_the_bound_says_so():
    """An optimum whose usage has P_a relay part of P0's flow to P_b (HiGHS 1.11's vertex): the greedy packs less.

    Edmonds' theorem does not apply (P_a, not a target, has a cut below TP),
    so the greedy packing runs; here it finds 3/7 of the 4/7 (an exact
    packing exists: Ps→Pa→{P0, Pb→P1} at 1/7 and Ps→Pb→{P0, P1} at 3/7).
    """
    from collsched.algorithms.steady_state.lp_broadcast import BroadcastSolution
    from test_steady_state_paper import figure2

    b = solve_broadcast(figure2(), cs.Broadcast(source="Ps", targets=["P0", "P1"], size=1))
    usage = {("Ps", "Pa"): F(1, 7), ("Ps", "Pb"): F(3, 7), ("Pa", "P0"): F(1, 7), ("Pa", "Pb"): F(1, 7),
             ("Pb", "P0"): F(3, 7), ("Pb", "P1"): F(4, 7)}
    other = BroadcastSolution(b.throughput, usage, {}, b.solution, b.size, b.network, b.source, b.targets)
    trees = pack_trees(other)
    assert sum(w for w, _ in trees) == F(3, 7) < b.throughput
    used: dict = {}
    for w, tree in trees:
        assert w > 0 and all(t in tree for t in b.targets)
        for v, (u, _) in tree.items():
            used[(u, v)] = used.get((u, v), 0) + w
    assert all(x <= usage[e] for e, x in used.items())
