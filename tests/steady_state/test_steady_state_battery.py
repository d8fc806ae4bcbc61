"""Every steady-state LP on random small Tiers-like platforms, under both port models: certified exact optimum, valid
schedule, simulated throughput within the bound (one-port under ``OnePort(sync=True, cost="edges")``, multi-port
under ``Fluid()``)."""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.steady_state.exact import solve as solve_lp
from collsched.algorithms.steady_state.lp_reduce import solve_reduce
from collsched.algorithms.steady_state.trees import extract_trees

SMALL = dict(wan_nodes=2, mans=1, man_nodes=2, lans_per_man=2, lan_hosts=2)


def small_tiers(seed):
    return cs.topologies.tiers(seed=seed, **SMALL)


def collective(kind, hosts, rng, count):
    n = int(rng.integers(2, min(5, len(hosts)) + 1))
    chosen = [hosts[i] for i in rng.permutation(len(hosts))[:n]]
    if kind == "scatter":
        c = cs.Scatter(source=chosen[0], targets=chosen[1:], size=float(rng.integers(1, 5)) * 1e5)
    elif kind == "broadcast":
        c = cs.Broadcast(source=chosen[0], targets=chosen[1:], size=1e5)
    elif kind == "alltoall":
        c = cs.AllToAll(senders=chosen, size=1e5)
    elif kind == "allgather":
        c = cs.AllGather(participants=chosen, size=1e5)
    else:
        c = cs.Reduce(participants=chosen, target=chosen[int(rng.integers(n))], size=1e5,
                      task_cost=float(rng.integers(0, 3)) * 1e6)
    return cs.Series(c, count=count)


#: The executor of each port model: the model its LP describes.
MODELS = {"one": cs.models.OnePort(sync=True, cost="edges"), "multi": cs.models.Fluid()}


@pytest.mark.parametrize("ports", ["one", "multi"])
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["scatter", "alltoall", "reduce", "broadcast", "allgather"]))
def test_random_tiers_certified_and_valid(ports, seed, kind):
    p = small_tiers(seed)
    rng = np.random.default_rng(seed)
    c = collective(kind, list(p.hosts), rng, count=12)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=6, ports=ports, method="lp")  # the LPs (certificates)
    assert s.status in (cs.Status.OPTIMAL, cs.Status.FEASIBLE) and s.ports == ports
    assert "exact certificate holds" in s.message
    assert s.throughput <= s.bound.value
    assert sum(sl.duration for sl in s.slots) <= s.period
    cs.validate(p, c, s)
    r = cs.simulate(p, s, c, model=MODELS[ports])
    # no schedule beats the LP optimum (Lemma 1)
    assert r.throughput <= float(s.bound.value) * (1 + 1e-6)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_reduce_trees_cover_the_solution(seed):
    p = small_tiers(seed)
    rng = np.random.default_rng(seed)
    c = collective("reduce", list(p.hosts), rng, count=1).base
    r = solve_reduce(p, c)
    assert r.solution.certified
    trees = extract_trees(r)
    assert sum(w for w, _ in trees) == r.throughput
    assert all(w > 0 for w, _ in trees)


def test_exact_recovery_rechecks_the_certificate():
    from collsched.algorithms.steady_state.exact import LinearProgram
    lp = LinearProgram()
    x, y, s1, s2 = (lp.column(n) for n in "xyst")
    lp.objective[x], lp.objective[y] = F(3), F(2)
    lp.row({x: 1, y: 1, s1: 1}, 4)
    lp.row({x: 1, y: 3, s2: 1}, 6)
    sol = solve_lp(lp)
    assert sol.certified and sol.objective == 12
    # the dual certificate: A^T y >= c and b.y == c.x
    assert sol.y[0] * 1 + sol.y[1] * 1 >= 3 and 4 * sol.y[0] + 6 * sol.y[1] == 12


def test_simulated_throughput_approaches_tp_as_k_grows():
    p = cs.topologies.tiers(seed=2)
    hosts = p.hosts
    rates = []
    for K in (8, 64, 512):
        c = cs.Series(cs.Reduce(participants=hosts[:4], target=hosts[2], size=1e6, task_cost=1e7), count=K)
        s = cs.plan(p, c, algorithm="steady_state", max_ops=8)
        rates.append(cs.simulate(p, s, c, model=cs.models.OnePort(sync=True, cost="edges")).throughput)
    bound = float(s.bound.value)
    assert rates[0] < rates[1] < rates[2] <= bound * (1 + 1e-6)
    assert rates[2] > 0.8 * float(s.throughput)


def test_scatter_approaches_exact_tp():
    p = cs.topologies.star(4, bandwidth=1e6, latency=0)
    rates = []
    for K in (4, 40, 400):
        c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2", "h3"], size=1e6), count=K)
        s = cs.plan(p, c, algorithm="steady_state")
        rates.append(cs.simulate(p, s, c, model=cs.models.OnePort(sync=True, cost="edges")).throughput)
    assert s.throughput == F(1, 3) and s.status is cs.Status.OPTIMAL
    assert rates[0] < rates[1] < rates[2] <= 1 / 3 * (1 + 1e-9)
    assert rates[2] > 0.33


def test_broadcast_packing_reaches_tp_on_complete_graphs():
    from collsched.algorithms.steady_state.lp_broadcast import pack_trees, solve_broadcast
    p = cs.topologies.fully_connected(5, bandwidth=[1e6, 4e6], latency=0, seed=3)
    c = cs.Broadcast(source="h0", targets=list(p.hosts[1:]), size=1e6)
    b = solve_broadcast(p, c)
    assert b.solution.certified
    trees = pack_trees(b)
    assert sum(w for w, _ in trees) <= b.throughput
    s = cs.plan(p, cs.Series(c, count=20), algorithm="steady_state")
    cs.validate(p, cs.Series(c, count=20), s)
