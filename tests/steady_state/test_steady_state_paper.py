"""Seed 000's worked examples, side by side with our numbers.

The figures' edge costs are not in the text; the costs below are our
assumption, chosen (by a search over costs 1..4) so that the LP reproduces
what the text states. The LP optimum's vertex is HiGHS's; TP is unique.
"""

from fractions import Fraction as F

import collsched as cs
from collsched.algorithms.steady_state.lp_alltoall import solve_flows
from collsched.algorithms.steady_state.lp_reduce import solve_reduce
from collsched.algorithms.steady_state.periodic import period_of
from collsched.algorithms.steady_state.trees import extract_trees
from collsched.platform.model import Link, Node, Platform


def figure2():
    """Section 3.2, Fig. 2: P_s scatters to P_0 and P_1 through P_a and P_b (unit messages).

    Assumed costs: c(s,a)=1, c(s,b)=1, c(a,0)=4, c(b,0)=1, c(b,1)=1, c(a,b)=3.
    """
    costs = {("Ps", "Pa"): 1, ("Ps", "Pb"): 1, ("Pa", "P0"): 4, ("Pb", "P0"): 1, ("Pb", "P1"): 1, ("Pa", "Pb"): 3}
    nodes = [Node(n) for n in ("Ps", "Pa", "Pb", "P0", "P1")]
    return Platform(nodes, [Link(f"{a}-{b}", bandwidth=1 / c, latency=0, ends=(a, b), directed=True)
                            for (a, b), c in costs.items()], name="seed000-fig2")


def figure6():
    """Section 4.1, Fig. 6: three fully connected processors, target P_0, unit sizes.

    P_0 does two tasks per time unit, the others one (the text); assumed
    costs: c(0,1)=3, c(0,2)=1, c(1,0)=1, c(1,2)=1, c(2,0)=1, c(2,1)=2.
    """
    costs = {("P0", "P1"): 3, ("P0", "P2"): 1, ("P1", "P0"): 1, ("P1", "P2"): 1, ("P2", "P0"): 1, ("P2", "P1"): 2}
    nodes = [Node("P0", speed=2), Node("P1", speed=1), Node("P2", speed=1)]
    return Platform(nodes, [Link(f"{a}-{b}", bandwidth=1 / c, latency=0, ends=(a, b), directed=True)
                            for (a, b), c in costs.items()], name="seed000-fig6")


def test_figure2_throughput_half_period_12():
    p = figure2()
    f = solve_flows(p, [("Ps", "P0", F(1)), ("Ps", "P1", F(1))])
    assert f.solution.certified
    assert f.throughput == F(1, 2)                      # paper: TP = 1/2
    T = period_of(list(f.send.values()) + list(f.occupation.values()))
    assert T == 12                                      # paper: period 12
    # messages for P0 take both routes, through P_a and through P_b (the text)
    assert ("Pa", "P0", 0) in f.send and ("Pb", "P0", 0) in f.send


def test_figure2_schedule_validates_and_simulates():
    p = figure2()
    c = cs.Series(cs.Scatter(source="Ps", targets=["P0", "P1"], size=1), count=60)
    s = cs.plan(p, c, algorithm="steady_state")
    assert (s.throughput, s.period, s.ops_per_period) == (F(1, 2), 12, 6)
    assert len(s.slots) == 4                            # paper: four matchings (Fig. 3)
    assert s.status is cs.Status.OPTIMAL and s.message.startswith("HiGHS: Optimal")
    assert sum(sl.duration for sl in s.slots) <= s.period
    cs.validate(p, c, s)
    r = cs.simulate(p, s, c, model=cs.models.OnePort(sync=True, cost="edges"))
    assert r.throughput <= 0.5 * (1 + 1e-9)
    assert r.throughput > 0.4


def test_figure2_without_split_messages_validates():
    p = figure2()
    c = cs.Series(cs.Scatter(source="Ps", targets=["P0", "P1"], size=1), count=30)
    s = cs.plan(p, c, algorithm="steady_state", split=False)
    # paper: 4 matchings; without split messages its period grows to 48 (its matchings); ours to 24
    assert s.denominator == 1 and len(s.slots) == 4
    assert s.period == 24 and s.throughput == F(1, 2)
    cs.validate(p, c, s)


def test_figure6_throughput_one_period_3_trees_1_and_2():
    p = figure6()
    r = solve_reduce(p, cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1, task_cost=1))
    assert r.solution.certified
    assert r.throughput == 1                                             # paper: TP = 1
    T = period_of(list(r.send.values()) + list(r.cons.values()))
    assert T == 3                                                        # paper: T = 3
    trees = extract_trees(r)
    assert sorted(w * T for w, _ in trees) == [1, 2]                     # paper: weights 1 and 2
    # Σ weight·χ = A^T, exactly
    total: dict = {}
    for w, tree in trees:
        for t in tree:
            total[t.key] = total.get(t.key, 0) + w * T
    expected = {("send", *k): v * T for k, v in r.send.items()}
    expected.update({("cons", *k): v * T for k, v in r.cons.items()})
    assert total == expected


def test_figure6_schedule_validates_and_simulates():
    p = figure6()
    c = cs.Series(cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1, task_cost=1), count=90)
    s = cs.plan(p, c, algorithm="steady_state")
    assert (s.throughput, s.period, s.ops_per_period) == (1, 3, 3)
    cs.validate(p, c, s)
    r = cs.simulate(p, s, c, model=cs.models.OnePort(sync=True, cost="edges"))
    assert 0.8 < r.throughput <= 1 + 1e-9
