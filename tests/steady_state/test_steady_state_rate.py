"""Seed 000's theorem, checked by simulation: the periodic schedule runs at the LP throughput in steady state.

The steady-state rate is the marginal rate between two series lengths
(:func:`collsched.simulation.steady.steady_rate`: 20 and 40 periods' worth
of operations, doubled until two successive windows agree and in neither
does a port or CPU's busy time outgrow the makespan, since a pipeline may
run faster or slower than its steady state for its first periods),
simulated under ``OnePort(sync=True, cost="edges")``: the
model the LPs describe (one-port store-and-forward on the graph view,
computation overlapping communication). With an exact period it equals the
schedule's throughput, and that is the exact LP optimum TP whenever the
status is OPTIMAL; with a fixed period (section 4.6) it is at least the
rate the rounded routes or trees give minus Proposition 3's loss bound.
"""

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.steady_state.plan import busiest_load
from collsched.platform.model import Link, Node, Platform
from collsched.simulation.steady import steady_rate

from random_platforms import KINDS, random_platform, random_series

MODEL = cs.models.OnePort(sync=True, cost="edges")
TOL = F(1, 10**9)


def close(a, b) -> bool:
    return abs(F(a) - F(b)) <= TOL * abs(F(b))


def issue_platform():
    """Five hosts of different speeds, directed links of different costs (seconds per unit of data)."""
    speeds = {"P0": 2, "P1": 1, "P2": 1, "P3": 4, "P4": 1}
    costs = {("P0", "P1"): 1, ("P1", "P0"): 0.5, ("P1", "P2"): 1, ("P2", "P1"): 1, ("P2", "P0"): 2,
             ("P0", "P2"): 3, ("P3", "P0"): 0.5, ("P0", "P3"): 1, ("P1", "P3"): 0.5, ("P3", "P1"): 2,
             ("P2", "P3"): 1, ("P3", "P2"): 1, ("P4", "P3"): 0.25, ("P3", "P4"): 0.25, ("P4", "P2"): 1,
             ("P2", "P4"): 2}
    return Platform([Node(n, speed=s) for n, s in speeds.items()],
                    [Link(f"{a}-{b}", bandwidth=1 / c, latency=0, ends=(a, b), directed=True)
                     for (a, b), c in costs.items()], name="busy-cpus")


# reduces whose CPUs are busy: a computation outlasts its slot (they ran at 0.667, 0.571, 0.571 of TP before)
BUSY_REDUCES = [(["P0", "P1", "P2"], "P0", 1, 1), (["P1", "P2", "P0"], "P1", 1, 2),
                (["P2", "P0", "P4", "P1"], "P3", 0.5, 3)]


@pytest.mark.parametrize("participants, target, size, task_cost", BUSY_REDUCES)
def test_busy_cpu_reduces_run_at_exactly_tp(participants, target, size, task_cost):
    p = issue_platform()
    c = cs.Series(cs.Reduce(participants=participants, target=target, size=size, task_cost=task_cost), count=10)
    s = cs.plan(p, c, algorithm="steady_state")
    assert s.throughput == s.bound.value == 1 and s.status is cs.Status.OPTIMAL
    cs.validate(p, c, s)
    assert close(steady_rate(p, s, c, model=MODEL).rate, 1)


@pytest.mark.parametrize("participants, target, size, task_cost", BUSY_REDUCES)
def test_the_series_approaches_tp_by_a_constant_start_up(participants, target, size, task_cost):
    """``makespan(K) = K / TP + start-up``, the same start-up for every K: K / makespan(K) tends to TP."""
    p = issue_platform()
    c = cs.Series(cs.Reduce(participants=participants, target=target, size=size, task_cost=task_cost), count=10)
    s = cs.plan(p, c, algorithm="steady_state")
    q = s.ops_per_period
    short, long_ = (steady_rate(p, s, c, model=MODEL, counts=(k * q, 2 * k * q)) for k in (20, 40))
    assert close(short.rate, 1) and close(long_.rate, 1)
    assert abs(short.startup - long_.startup) <= 1e-9 * long_.makespans[1]
    assert short.series_rate < long_.series_rate < 1


def check_steady_state(p, c, s, model=MODEL):
    """What every steady-state schedule must satisfy under ``model``, whatever optimum the solver returned."""
    tp = s.bound.value
    assert s.throughput <= tp
    cs.validate(p, c, s)
    r = steady_rate(p, s, c, model=model)
    # two successive windows (20-40 periods, 40-80, ... up to 1280) gave the same rate, and no port or CPU
    # was held longer than the makespan grew in either
    assert r.settled
    if s.params["period_kind"] == "exact":
        assert close(r.rate, s.throughput)
        assert (s.status is cs.Status.OPTIMAL) == (s.throughput == tp)
    else:  # section 4.6: the rounded routes or trees lose at most Proposition 3's bound
        floor = F(s.params["rounded_from"]) - F(s.params["loss_bound"])
        assert s.throughput >= floor
        assert r.rate >= floor * (1 - TOL) and r.rate <= tp * (1 + TOL)
    return r


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20))
def test_random_platforms_simulate_at_the_claimed_rate(kind, seed):
    p = random_platform(seed)
    c = random_series(p, kind, seed)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
    check_steady_state(p, c, s)


def test_the_random_platforms_have_busy_cpus_and_relays():
    """The property test's platforms exercise what broke: CPU-bound periods, and routers that relay."""
    cpu_bound = relayed = 0
    for seed in range(40):
        p = random_platform(seed)
        c = random_series(p, "reduce", seed)
        s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
        net_speed = {h: F(p.nodes[h].speed) for h in p.hosts}
        cpu_bound += busiest_load(s.slots, net_speed) > sum(sl.duration for sl in s.slots)
        relayed += any(not p.nodes[n].is_host for n in s.ranks(p))
    assert cpu_bound >= 3 and relayed >= 3


@pytest.mark.parametrize("kind, seed", [("alltoall", 500), ("reduce", 782)])
def test_a_pipeline_that_settles_late_is_measured_once_settled(kind, seed):
    """These run faster than their steady state between 20 and 40 periods; from 40 periods on, at their rate."""
    p = random_platform(seed)
    c = random_series(p, kind, seed)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
    q = s.ops_per_period
    early = steady_rate(p, s, c, model=MODEL, counts=(20 * q, 40 * q))
    assert early.rate > s.throughput * (1 + TOL)
    r = check_steady_state(p, c, s)
    assert r.counts[0] >= 40 * q


def test_a_fixed_period_runs_at_its_throughput_in_the_long_run():
    """Seed 181's reduce needs 30 operations per exact period; with max_ops=16 a fixed period is used."""
    p = random_platform(181)
    c = random_series(p, "reduce", 181)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
    assert s.params["period_kind"] == "fixed" and s.status is cs.Status.FEASIBLE
    assert "Proposition 3" in s.message
    q = s.ops_per_period
    r = steady_rate(p, s, c, model=MODEL, counts=(60 * q, 120 * q))
    assert close(r.rate, s.throughput)
    assert s.throughput >= s.bound.value - F(s.params["loss_bound"])


# (seed, throughput, LP bound, operations per period, period, the transient rate, the windows (in periods) that
# ran at it, whether that rate is above the LP bound, the settled window): fixed-period reduces with a resource
# loaded a whole period per period that idles at the end of a short series (the target's receive port, or a CPU)
TRANSIENTS = [(11290, F(45, 107), F(43, 102), 15, F(107, 3), F(30, 71), (20, 40), True, (160, 320)),
              (65322, F(90, 97), F(13, 14), 15, F(97, 6), F(15, 16), (20, 40, 80), True, (320, 640)),
              (673538, F(7, 15), F(17, 36), 14, F(30), F(8, 17), (20, 40), False, (160, 320)),
              (11164, F(28, 27), F(10, 9), 14, F(27, 2), F(112, 107), (20, 40, 80), False, (320, 640))]


@pytest.mark.parametrize("seed, tp, bound, q, period, transient, early, above, settled", TRANSIENTS)
def test_a_window_where_a_port_outgrows_the_makespan_is_transient(seed, tp, bound, q, period, transient, early,
                                                                  above, settled):
    """These reduces ran faster than their own throughput, two above the LP bound, in windows that agreed.

    Seed 11290's fixed period (15 operations every 107/3 s) holds the target
    P1's receive port 107/3 s and P2's send port 35.5 s. Up to 80 periods P1
    still idles at the end of the series, waiting for P2's last results, so
    the makespan grows at P2's pace, 30/71 operations per second, above the
    bound 43/102: the windows agree, but P1's port is held longer than the
    makespan grows, which no steady state allows. From 160 periods on P1 is
    the bottleneck and the rate is the schedule's own 45/107. Seed 65322 is
    the same with P3's receive port (above the bound 13/14 until 160
    periods); seeds 673538 and 11164 with the CPU of P1 and P4 (above their
    throughput, below the bound).
    """
    p = random_platform(seed)
    c = random_series(p, "reduce", seed)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=16)
    assert (s.throughput, s.bound.value, s.params["period_kind"]) == (tp, bound, "fixed")
    assert (s.ops_per_period, s.period) == (q, period)
    for k in early:
        w = steady_rate(p, s, c, model=MODEL, counts=(k * q, 2 * k * q))
        assert close(w.rate, transient) and w.rate > tp * (1 + TOL)
        assert (w.rate > bound) == above
        assert close(w.busiest, k * period)  # the bottleneck, a whole period per period
        assert w.busiest > (w.makespans[1] - w.makespans[0]) * (1 + TOL)
    r = check_steady_state(p, c, s)
    assert r.counts == (settled[0] * q, settled[1] * q)
    assert close(r.rate, tp) and close(r.busiest, r.makespans[1] - r.makespans[0])
