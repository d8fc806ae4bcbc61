"""A personalized all-to-all (seed 000, section 3.5) whose inputs are all given, solved by hand, exactly.

Three nodes, unit messages between every ordered pair, a complete directed
graph whose edges P0 -> P2 and P2 -> P0 cost 4 seconds per message and the
other four 1 (``collsched.studies.steady_state.A2A_COSTS``).

By hand. Relaying P0's messages for P2 (and P2's for P0) through P1 costs
1 + 1 instead of 4, but loads P1's ports. By the symmetry P0 <-> P2 an
optimum sends a share ``x`` of ``TP`` direct and ``TP - x`` through P1;
P0's send port carries ``TP`` (to P1) + ``4x`` + ``(TP - x)`` (relayed, first
hop) = ``2 TP + 3x <= 1``; P1's carries ``TP + TP`` (its own) + ``2 (TP - x)``
(relayed) = ``4 TP - 2x <= 1``. Both at equality: ``TP = 5/16, x = 1/8``.
No schedule does better: weigh the send ports of P0, P1, P2 by 1, 3, 1; a
message P0 -> P1 (or P2 -> P1) then costs at least 1, P1 -> P0 (or P1 -> P2)
3, P0 -> P2 (or P2 -> P0) 4 (direct: 4 x 1; through P1: 1 + 3), so a
throughput ``TP`` costs ``(1 + 1 + 3 + 3 + 4 + 4) TP = 16 TP`` of weighted
port time per second, of the 1 + 3 + 1 = 5 available: ``TP <= 5/16``.
"""

from fractions import Fraction as F

import pytest

from collsched.algorithms.steady_state.exact import objective_of
from collsched.algorithms.steady_state.lp_alltoall import flows_lp, solve_flows
from collsched.errors import CollschedError
from collsched.studies.steady_state import A2A_COSTS, cost_platform

NODES = ("P0", "P1", "P2")
MESSAGES = [(a, b, F(1)) for a in NODES for b in NODES if a != b]   # commodity k = index in this list
K = {(a, b): k for k, (a, b, _) in enumerate(MESSAGES)}
TP, X = F(5, 16), F(1, 8)
#: The hand solution: messages per second on each edge, per commodity.
HAND = {("P0", "P1", K["P0", "P1"]): TP, ("P2", "P1", K["P2", "P1"]): TP,
        ("P1", "P0", K["P1", "P0"]): TP, ("P1", "P2", K["P1", "P2"]): TP,
        ("P0", "P2", K["P0", "P2"]): X, ("P0", "P1", K["P0", "P2"]): TP - X, ("P1", "P2", K["P0", "P2"]): TP - X,
        ("P2", "P0", K["P2", "P0"]): X, ("P2", "P1", K["P2", "P0"]): TP - X, ("P1", "P0", K["P2", "P0"]): TP - X}
WEIGHTS = {"P0": 1, "P1": 3, "P2": 1}   # the dual bound on the send ports


def test_the_lp_optimum_is_the_hand_value():
    f = solve_flows(cost_platform(A2A_COSTS), MESSAGES)
    assert f.solution.certified
    assert f.throughput == F(5, 16)


def test_the_hand_solution_is_feasible_and_saturates_p0_and_p1():
    p = cost_platform(A2A_COSTS)
    values = {("send", *k): v for k, v in HAND.items()}
    values["TP"] = TP
    assert objective_of(flows_lp(p, MESSAGES), values) == F(5, 16)
    busy = {u: sum(v * A2A_COSTS[a, b] for (a, b, _), v in HAND.items() if a == u) for u in NODES}
    assert busy == {"P0": 1, "P1": 1, "P2": 1}
    # one message more per second on P0 -> P2 breaks the one-port constraint of P0
    values[("send", "P0", "P2", K["P0", "P2"])] += F(1, 16)
    values[("send", "P0", "P1", K["P0", "P2"])] -= F(1, 16)
    values[("send", "P1", "P2", K["P0", "P2"])] -= F(1, 16)
    with pytest.raises(CollschedError, match="violate"):   # P0's send port would hold 1 + 3/16 s per second
        objective_of(flows_lp(p, MESSAGES), values)


def test_the_dual_bound_by_hand():
    # cheapest weighted route of each message: weight of the sender of each hop times the hop's cost
    def cost(path):
        return sum(WEIGHTS[u] * A2A_COSTS[u, v] for u, v in zip(path, path[1:]))

    relay = {(a, b): next(n for n in NODES if n not in (a, b)) for a, b, _ in MESSAGES}
    cheapest = {(a, b): min(cost([a, b]), cost([a, relay[a, b], b])) for a, b, _ in MESSAGES}
    assert cheapest == {("P0", "P1"): 1, ("P0", "P2"): 4, ("P1", "P0"): 3, ("P1", "P2"): 3, ("P2", "P0"): 4,
                        ("P2", "P1"): 1}
    assert F(sum(WEIGHTS.values()), sum(cheapest.values())) == F(5, 16)
    # and the LP's own optimum spends exactly that weighted port time: the bound is tight
    f = solve_flows(cost_platform(A2A_COSTS), MESSAGES)
    spent = sum(v * WEIGHTS[u] * A2A_COSTS[u, w] for (u, w, _), v in f.send.items())
    assert spent == 5 == 16 * f.throughput
