"""Seed 000's worked examples, side by side with our numbers.

The figures' edge costs are not in the text; the costs below are our
assumption, chosen (by a search over costs 1..4) so that the LP has an
optimum with what the text states. TP is the same at every optimum; the
rest (period, routes, trees) belongs to one optimal solution. So the tests
check the text's solution as *an* optimum (exactly feasible, objective TP),
and the planner's own choice as the canonical one (canonical.py: least busy
time, proven unique), which no solver version can change.
"""

from fractions import Fraction as F

import pytest

import collsched as cs
from collsched.algorithms.steady_state.exact import objective_of
from collsched.algorithms.steady_state.lp_alltoall import flows_lp, solve_flows
from collsched.algorithms.steady_state.lp_reduce import ReduceSolution, reduce_lp, solve_reduce
from collsched.algorithms.steady_state.periodic import color, period_of
from collsched.algorithms.steady_state.trees import extract_trees
from collsched.errors import CollschedError
from collsched.platform.model import Link, Node, Platform
from collsched.simulation.steady import steady_rate


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


FIG2_MESSAGES = [("Ps", "P0", F(1)), ("Ps", "P1", F(1))]
#: An optimum with what the text says of Fig. 2(b) (its values are lost with the figure), times 12: TP = 1/2,
#: period 12, messages for P0 via P_a and P_b (HiGHS 1.16's vertex with the assumed costs).
FIG2_TEXT = {("Ps", "Pa", 0): 3, ("Ps", "Pb", 0): 3, ("Pa", "P0", 0): 2, ("Pa", "Pb", 0): 1, ("Pb", "P0", 0): 4,
             ("Ps", "Pb", 1): 6, ("Pb", "P1", 1): 6}
FIG6_REDUCE = cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1, task_cost=1)
#: An optimum with what the text says of Fig. 6(b)-(c) and Fig. 7 (the values are lost with the figures), times
#: T = 3 (HiGHS 1.11's vertex with the assumed costs): a tree of weight 2 (P1 sends v1 to P2, which computes
#: v[1..2] and sends it to P0, which computes v[0..2]) and a tree of weight 1 (P0 sends v0 to P1, which computes
#: v[0..1]; P2 computes v[0..2] and sends it to P0), three reduces every three time units.
FIG6_TEXT_SEND = {("P1", "P2", 1, 1): 2, ("P2", "P0", 1, 2): 2, ("P0", "P1", 0, 0): 1, ("P1", "P2", 0, 1): 1,
                  ("P2", "P0", 0, 2): 1}
FIG6_TEXT_CONS = {("P0", 0, 0, 2): 2, ("P2", 1, 1, 2): 2, ("P1", 0, 0, 1): 1, ("P2", 0, 1, 2): 1}
ONEPORT = cs.models.OnePort(cost="edges")


def test_figure2_throughput_is_half_at_every_optimum():
    p = figure2()
    f = solve_flows(p, FIG2_MESSAGES)
    assert f.solution.certified
    assert f.throughput == F(1, 2)                      # paper: TP = 1/2 (the optimum's value, the same at every one)


def test_figure2_text_solution_is_an_optimum_with_period_12():
    """Fig. 2's numbers (period 12, P0's messages over P_a and P_b) are those of an optimal solution, exactly."""
    p = figure2()
    values = {("send", *k): F(v, 12) for k, v in FIG2_TEXT.items()}
    values["TP"] = F(1, 2)
    assert objective_of(flows_lp(p, FIG2_MESSAGES), values) == solve_flows(p, FIG2_MESSAGES).throughput
    assert period_of(list(values.values())) == 12       # paper: period 12
    costs = {("Ps", "Pa"): 1, ("Ps", "Pb"): 1, ("Pa", "P0"): 4, ("Pb", "P0"): 1, ("Pb", "P1"): 1, ("Pa", "Pb"): 3}
    busy: dict = {}                                     # seconds per period of 12 on each edge
    for (u, w, _), n in FIG2_TEXT.items():
        busy[(u, w)] = busy.get((u, w), 0) + F(n) * costs[(u, w)]
    matchings = color(busy)
    assert len(matchings) == 4 and sum(d for d, _ in matchings) == 12   # paper: four matchings (Fig. 3)
    # one message more per period on P_a -> P0 leaves the LP: the check is not vacuous
    values[("send", "Pa", "P0", 0)] += F(1, 12)
    with pytest.raises(CollschedError, match="violate"):
        objective_of(flows_lp(p, FIG2_MESSAGES), values)


def test_figure2_canonical_choice_is_the_least_busy_optimum():
    """The planner's choice: every message through P_b (2 s of link time per time unit, the least), unique."""
    f = solve_flows(figure2(), FIG2_MESSAGES)
    assert f.solution.unique
    assert f.send == {("Ps", "Pb", 0): F(1, 2), ("Pb", "P0", 0): F(1, 2), ("Ps", "Pb", 1): F(1, 2),
                      ("Pb", "P1", 1): F(1, 2)}
    assert dict(f.solution.stages)["busy time"] == 2
    busy_text = sum(F(v, 12) * c for (u, w, _), v in FIG2_TEXT.items()
                    for (a, b), c in {("Ps", "Pa"): 1, ("Ps", "Pb"): 1, ("Pa", "P0"): 4, ("Pb", "P0"): 1,
                                      ("Pb", "P1"): 1, ("Pa", "Pb"): 3}.items() if (a, b) == (u, w))
    assert busy_text == F(11, 4) > 2                    # the text's optimum keeps the links busier


@pytest.mark.parametrize("split", [True, False])
def test_figure2_schedule_is_optimal_valid_and_simulates_at_tp(split):
    p = figure2()
    c = cs.Series(cs.Scatter(source="Ps", targets=["P0", "P1"], size=1), count=60)
    s = cs.plan(p, c, algorithm="steady_state", split=split)
    assert s.throughput == s.bound.value == F(1, 2)
    assert s.status is cs.Status.OPTIMAL and "exact certificate holds" in s.message
    assert sum(sl.duration for sl in s.slots) <= s.period
    if not split:
        assert s.denominator == 1                       # whole messages in every matching (Fig. 4(b))
    cs.validate(p, c, s)
    r = steady_rate(p, s, model=ONEPORT)
    assert abs(r.rate / s.throughput - 1) < 1e-9


def test_figure6_throughput_one_at_every_optimum():
    r = solve_reduce(figure6(), FIG6_REDUCE)
    assert r.solution.certified
    assert r.throughput == 1                            # paper: TP = 1


def test_figure6_text_solution_is_an_optimum_with_period_3_and_trees_1_and_2():
    """Fig. 6 and Fig. 7's numbers are those of an optimal solution: period 3, reduction trees of weights 1 and 2."""
    p = figure6()
    values = {("send", *k): F(v, 3) for k, v in FIG6_TEXT_SEND.items()}
    values.update({("cons", *k): F(v, 3) for k, v in FIG6_TEXT_CONS.items()})
    values["TP"] = F(1)
    assert objective_of(reduce_lp(p, FIG6_REDUCE), values) == solve_reduce(p, FIG6_REDUCE).throughput
    T = period_of(list(values.values()))
    assert T == 3                                       # paper: T = 3
    text = ReduceSolution(F(1), {k: F(v, 3) for k, v in FIG6_TEXT_SEND.items()},
                          {k: F(v, 3) for k, v in FIG6_TEXT_CONS.items()}, None, (), None, ["P0", "P1", "P2"], "P0")
    trees = extract_trees(text)                         # checks Σ weight·χ = A exactly
    assert sorted(w * T for w, _ in trees) == [1, 2]    # paper: weights 1 and 2 (Fig. 7)
    # P0 computing a third task per time unit would exceed its speed: the check is not vacuous
    values[("cons", "P0", 0, 0, 2)] += 1
    values[("cons", "P2", 1, 1, 2)] += 1
    with pytest.raises(CollschedError, match="violate"):
        objective_of(reduce_lp(p, FIG6_REDUCE), values)


def test_figure6_canonical_choice_is_one_tree_the_least_busy_optimum():
    """The planner's choice: tree T_1 alone at rate 1 (3.5 s of busy time per time unit, the least), unique."""
    r = solve_reduce(figure6(), FIG6_REDUCE)
    assert r.solution.unique
    assert r.send == {("P1", "P2", 1, 1): 1, ("P2", "P0", 1, 2): 1}
    assert r.cons == {("P0", 0, 0, 2): 1, ("P2", 1, 1, 2): 1}
    assert dict(r.solution.stages)["busy time"] == F(7, 2)
    cost = {("P0", "P1"): 3, ("P0", "P2"): 1, ("P1", "P0"): 1, ("P1", "P2"): 1, ("P2", "P0"): 1, ("P2", "P1"): 2}
    busy_text = (sum(F(v, 3) * cost[(u, w)] for (u, w, _, _), v in FIG6_TEXT_SEND.items())
                 + sum(F(v, 3) / {"P0": 2, "P1": 1, "P2": 1}[i] for (i, *_), v in FIG6_TEXT_CONS.items()))
    assert busy_text == F(14, 3) > F(7, 2)              # the text's optimum keeps links and processors busier
    trees = extract_trees(r)
    assert [(w, [t.key for t in tree]) for w, tree in trees] == [
        (1, [("send", "P1", "P2", 1, 1), ("cons", "P2", 1, 1, 2), ("send", "P2", "P0", 1, 2),
             ("cons", "P0", 0, 0, 2)])]


def test_figure6_schedule_is_optimal_and_valid():
    p = figure6()
    c = cs.Series(FIG6_REDUCE, count=90)
    s = cs.plan(p, c, algorithm="steady_state")
    assert s.throughput == s.bound.value == 1
    assert s.status is cs.Status.OPTIMAL and "exact certificate holds" in s.message
    T = F(s.params["lp_period"])
    assert sum(F(w) for w in s.params["tree_weights"]) == s.throughput * T   # Σ weight = TP·T, integer weights
    cs.validate(p, c, s)
