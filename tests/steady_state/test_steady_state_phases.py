"""Initialisation and clean-up phases (seed 000, section 3.4) on the paper's small examples."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_steady_state_paper import figure2, figure6

import collsched as cs
from collsched.schedules.io import load_schedule, save_schedule

FIG2 = dict(collective=lambda K: cs.Series(cs.Scatter(source="Ps", targets=["P0", "P1"], size=1), count=K),
            platform=figure2)
FIG6 = dict(collective=lambda K: cs.Series(cs.Reduce(participants=["P0", "P1", "P2"], target="P0", size=1,
                                                     task_cost=1), count=K), platform=figure6)
ONEPORT = cs.models.OnePort(sync=True, cost="edges")


@pytest.mark.parametrize("case", [FIG2, FIG6], ids=["fig2", "fig6"])
@pytest.mark.parametrize("phases", ["pipelined", "sequential"])
def test_phases_populated_lowered_validated_simulated(case, phases, tmp_path):
    p = case["platform"]()
    c = case["collective"](60)  # a multiple of both patterns' ops per period
    s = cs.plan(p, c, algorithm="steady_state", phases=phases)
    assert s.lag() >= 1 and s.init and s.cleanup
    if phases == "sequential":  # one operation at a time, as in the paper
        assert all(len(sl.transfers) + len(sl.tasks) == 1 for sl in s.init + s.cleanup)
    # the phases do not depend on the number of operations
    assert cs.plan(p, case["collective"](600), algorithm="steady_state", phases=phases).init == s.init
    # every full period runs the whole pattern: nothing is skipped between the phases
    prog = s.lower(p, c)
    per_period = sum(len(sl.transfers) for sl in s.slots)
    phase_msgs = sum(len(sl.transfers) for sl in s.init + s.cleanup)
    assert prog.n_messages == phase_msgs + s.periods_for(60) * per_period
    cs.validate(p, c, s)
    r = cs.simulate(p, s, c, model=ONEPORT)
    assert r.throughput <= float(s.bound.value) * (1 + 1e-9)
    # serialised with the schedule
    path = tmp_path / "s.json"
    save_schedule(s, path)
    back = load_schedule(path)
    assert back.init == s.init and back.cleanup == s.cleanup
    cs.validate(p, c, back)


@pytest.mark.parametrize("K", [1, 2, 5, 7])
def test_phases_handle_series_shorter_than_the_pipeline(K):
    p = figure6()
    c = FIG6["collective"](K)
    for phases in ("pipelined", "sequential"):
        s = cs.plan(p, c, algorithm="steady_state", phases=phases)
        cs.validate(p, c, s)


def test_asymptotic_optimality_with_sequential_phases():
    """K operations take init + R·T + clean-up, so K / makespan tends to TP (Proposition 1)."""
    p = figure2()
    rates = []
    for K in (12, 120, 1200):
        c = FIG2["collective"](K)
        s = cs.plan(p, c, algorithm="steady_state", phases="sequential")
        rates.append(cs.simulate(p, s, c, model=ONEPORT).throughput)
    assert rates[0] < rates[1] < rates[2] <= 0.5 * (1 + 1e-9)
    assert rates[2] > 0.49


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["scatter", "alltoall", "reduce", "broadcast"]),
       K=st.integers(1, 20), split=st.booleans())
def test_sequential_phases_on_random_platforms(seed, kind, K, split):
    p = cs.topologies.tiers(seed=seed, wan_nodes=2, mans=1, man_nodes=2, lans_per_man=2, lan_hosts=2)
    rng = np.random.default_rng(seed)
    h = [p.hosts[i] for i in rng.permutation(len(p.hosts))[:4]]
    c = cs.Series({"scatter": cs.Scatter(source=h[0], targets=h[1:], size=1e5),
                   "alltoall": cs.AllToAll(senders=h[:3], size=1e5),
                   "reduce": cs.Reduce(participants=h, target=h[1], size=1e5, task_cost=1e6),
                   "broadcast": cs.Broadcast(source=h[0], targets=h[1:], size=1e5)}[kind], count=K)
    s = cs.plan(p, c, algorithm="steady_state", max_ops=6, phases="sequential", split=split)
    assert all(len(sl.transfers) + len(sl.tasks) == 1 for sl in s.init + s.cleanup)
    cs.validate(p, c, s)
