"""SSPA2A solved with one commodity per source equals the per-message LP (seed 000, section 3.5), exactly.

:func:`~collsched.algorithms.steady_state.lp_alltoall.solve_flows` solves the
merged LP (``_build_by_source``) and splits its flows per destination; the
per-message LP (:func:`flows_lp`) is solved here on its own, and the split
sends are checked against it row by row in rationals.
"""

from fractions import Fraction as F

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms.steady_state.canonical import solve_canonical
from collsched.algorithms.steady_state.exact import objective_of
from collsched.algorithms.steady_state.lp_alltoall import (_build, _split_by_destination, commodities_of, flows_lp,
                                                             solve_flows)

from random_platforms import random_platform


def _per_message_optimum(p, comms, ports):
    lp, _, _, busy, _ = _build(p, comms, ports)
    sol = solve_canonical(lp, {j: sec for cols in busy.values() for j, sec in cols.items()})
    assert sol.certified
    return sol.objective


def _all_to_many(p, seed):
    """Messages of different sizes between 3 or 4 hosts: the merged LP's unit is the source's largest message."""
    rng = np.random.default_rng(seed)
    hosts = [p.hosts[i] for i in rng.permutation(len(p.hosts))[:int(rng.integers(3, min(4, len(p.hosts)) + 1))]]
    return [(a, b, F(int(rng.integers(1, 4)), 2)) for a in hosts for b in hosts if a != b and rng.random() < 0.8]


@pytest.mark.parametrize("ports", ["one", "multi"])
@pytest.mark.parametrize("seed", range(6))
def test_merged_optimum_equals_the_per_message_optimum(seed, ports):
    p = random_platform(seed)
    for comms in (commodities_of(cs.AllToAll(senders=list(p.hosts), size=1.0)), _all_to_many(p, seed)):
        f = solve_flows(p, comms, ports=ports)
        assert f.solution.certified
        assert f.throughput == _per_message_optimum(p, comms, ports)
        # the split sends are a solution of the per-message LP with that throughput (checked row by row)
        values = {("send", u, v, k): x for (u, v, k), x in f.send.items()}
        values["TP"] = f.throughput
        assert objective_of(flows_lp(p, comms, ports=ports), values) == f.throughput


def test_split_by_destination_exactly_and_when_it_is_forced():
    comms = [("a", "b", F(1)), ("a", "c", F(2))]  # unit 2: b needs 1/2 unit per TP, c one unit
    demand = {"a": {"b": F(1, 2), "c": F(1)}}
    tree = {("a", "b", "a"): F(3), ("b", "c", "a"): F(2)}  # TP = 2: b keeps 1, passes 2 on to c
    send, forced = _split_by_destination(comms, tree, demand, F(2))
    assert forced and send == {("a", "b", 0): F(2), ("a", "b", 1): F(2), ("b", "c", 1): F(2)}
    two_ways = {("a", "x", "a"): F(3, 2), ("x", "b", "a"): F(3, 2), ("a", "y", "a"): F(3, 2),
                ("y", "b", "a"): F(3, 2), ("b", "c", "a"): F(2)}  # b is reached two ways: c's share is a choice
    send, forced = _split_by_destination(comms, two_ways, demand, F(2))
    assert not forced
    for k, (a, b, _) in enumerate(comms):  # every message type still gets TP = 2 per time unit into its target
        assert sum(x for (u, v, j), x in send.items() if j == k and v == b) == 2
