"""The planner's comparison: every applicable algorithm ranked, and bounds that no schedule beats."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import collsched as cs
from collsched.bounds import collective_bound
from collsched.compare import compare
from collsched.errors import CollschedError

MODELS = [cs.models.Fluid(), cs.models.Circuit(), cs.models.OnePort(), cs.models.OnePort(sync=False),
          cs.models.OnePort(cost="edges")]


def collectives(p, seed):
    hosts = p.hosts
    root = hosts[seed % len(hosts)]
    return [cs.Scatter(source=root, targets=hosts, size=1e6),
            cs.Gather(sources=hosts, target=root, size=1e6),
            cs.Broadcast(source=root, targets=hosts, size=1e6),
            cs.Reduce(participants=hosts, target=root, size=1e6, task_cost=1e7),
            cs.AllToAll(senders=hosts, size=1e5)]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), model=st.sampled_from(MODELS))
def test_no_schedule_beats_the_bound(seed, model):
    """On random Tiers-like platforms, every algorithm's simulated makespan is at least the bound."""
    p = cs.topologies.tiers(seed=seed)
    for c in collectives(p, seed):
        cmp = compare(p, c, model=model, seed=seed)
        assert cmp.bound is not None and cmp.bound.value > 0
        for cand in cmp.candidates:
            assert cand.valid, cand.error
            assert cand.achieved >= cmp.bound.value * (1 - 1e-9), (c.kind, cand.algorithm, model)


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_series_throughput_stays_below_the_bound(model):
    p = cs.topologies.tiers(seed=5)
    c = cs.Series(cs.Reduce(participants=p.hosts[:5], target=p.hosts[0], size=1e6, task_cost=1e6), count=16)
    # the steady-state runs (seconds each) only under the LP's own model
    steady = model == cs.models.OnePort(cost="edges")
    cmp = compare(p, c, model=model, algorithms=["binomial", "linear", "steady_state"], steady=steady)
    assert cmp.metric == "throughput"
    for cand in cmp.candidates:
        assert cand.valid, cand.error
        assert cand.achieved <= cmp.bound.value * (1 + 1e-9), (cand.algorithm, model)
        assert (cand.steady is not None) == steady
        if steady:
            assert float(cand.steady.rate) <= cmp.bound.value * (1 + 1e-9), (cand.algorithm, model)


def test_candidates_are_ranked_and_plan_returns_the_best():
    p = cs.topologies.tiers(seed=2)
    c = cs.AllToAll(senders=p.hosts[:8], size=1e5)
    cmp = compare(p, c)
    achieved = [cand.achieved for cand in cmp.candidates]
    assert achieved == sorted(achieved)
    assert {cand.algorithm for cand in cmp.candidates} == {a.name for a in cs.algorithms.applicable(c)}
    best = cs.plan(p, c)
    assert best.algorithm == cmp.best.algorithm
    assert best.bound == cmp.bound and best.params["gap"] == pytest.approx(cmp.best.gap)
    cs.validate(p, c, best)


def test_a_failing_algorithm_is_a_row_not_an_exception(monkeypatch):
    from collsched.algorithms import registry

    p = cs.topologies.star(4)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    algo = registry.get("linear")

    def broken(platform, collective, *, seed=0):
        raise CollschedError("out of ideas")

    def buggy(platform, collective, *, seed=0):
        return {}["missing"]

    monkeypatch.setitem(registry._REGISTRY, "linear", type(algo)(**{**algo.__dict__, "function": broken}))
    monkeypatch.setitem(registry._REGISTRY, "caterpillar", type(algo)(**{**algo.__dict__, "name": "caterpillar",
                                                                          "function": buggy}))
    cmp = compare(p, c, algorithms=["binomial", "linear", "caterpillar"])
    assert [cand.algorithm for cand in cmp.candidates] == ["binomial", "caterpillar", "linear"]
    assert cmp.candidates[2].error == "planning: out of ideas" and not cmp.candidates[2].valid
    assert cmp.candidates[1].error == "planning: internal error KeyError: 'missing'"
    assert cmp.best.algorithm == "binomial"


def test_plan_rejects_options_without_an_algorithm():
    p = cs.topologies.star(3)
    with pytest.raises(ValueError, match="need an algorithm"):
        cs.plan(p, cs.Broadcast(source="h0", targets=p.hosts, size=1), segments=4)


def test_step_schedules_keep_their_best_synchronisation():
    """Under send/receive overheads, barriers cost messages: the planner runs steps per sender (S2) instead."""
    from collsched.algorithms.orderings import overhead_platform

    p = overhead_platform([1.0, 5.0, 10.0, 1.0, 5.0, 10.0], latency=1.0)
    c = cs.AllToAll(senders=p.hosts, size=1.0)
    model = cs.models.OnePort(sync=True, cost="overheads")
    cand = compare(p, c, model=model, algorithms=["caterpillar"]).best
    by_mode = {m: cs.simulate(p, cand.schedule.lower(p, c, sync=m), c, model=model).makespan
               for m in ("barrier", "ready", "post_all")}
    assert cand.schedule.params["sync"] == min(by_mode, key=by_mode.get)
    assert cand.achieved == min(by_mode.values()) < by_mode["barrier"]
    # the schedule remembers its mode: lowering it again reproduces what was measured
    assert cs.simulate(p, cand.schedule, c, model=model).makespan == cand.achieved


def test_asynchronous_senders_are_not_charged_for_bytes():
    """OnePort(sync=False) frees a sender after o_s: a linear scatter beats any send-side byte count."""
    p = cs.topologies.tiers(seed=0)
    c = cs.Scatter(source=p.hosts[0], targets=p.hosts, size=1e6)
    cmp = compare(p, c, model=cs.models.OnePort(sync=False), algorithms=["linear"])
    assert cmp.best.achieved >= cmp.bound.value
    assert "send" not in cmp.bound.name


def test_steps_as_columns_change_nothing_but_their_form(monkeypatch):
    from collsched import compare as compare_module
    from collsched.schedules.steps import DirectSteps

    p = cs.topologies.fat_tree(2, 3)
    c = cs.AllToAll(senders=p.hosts, size=1e5)
    names = ["matching", "lp", "rs_n", "greedy", "open_shop_preemptive"]
    fast = compare_module.compare(p, c, algorithms=names)
    monkeypatch.setattr(compare_module, "_as_columns", lambda schedule, platform, collective: schedule)
    slow = compare_module.compare(p, c, algorithms=names)
    for a, b in zip(fast.candidates, slow.candidates):
        assert (a.algorithm, a.achieved, a.notes, a.schedule.params) == (b.algorithm, b.achieved, b.notes, b.schedule.params)
        assert a.schedule == b.schedule
        assert np.array_equal(a.result.trace.start, b.result.trace.start)
        assert np.array_equal(a.result.trace.end, b.result.trace.end)
    kinds = {c.algorithm: type(c.schedule.steps).__name__ for c in fast.candidates if hasattr(c.schedule, "steps")}
    assert kinds["matching"] == "DirectSteps" and kinds["open_shop_preemptive"] == "tuple"   # parts: not columns
    assert not any(isinstance(getattr(c.schedule, "steps", None), DirectSteps) for c in slow.candidates)
