"""sync_bound: a floor under the makespan of barrier and ready lowerings, and compare skipping the modes it rules out."""

from __future__ import annotations

import numpy as np
import pytest

import collsched as cs
from collsched import compare as compare_module
from collsched.bounds import sync_bound
from collsched.compare import compare
from collsched.simulation import Circuit, Fluid


def platforms():
    yield cs.topologies.star(5, bandwidth=1e6, latency=1e-3)
    yield cs.topologies.fat_tree(2, 3)
    yield cs.topologies.hypercube(3)
    yield cs.topologies.star(6, bandwidth=1e7, latency=1e-4)
    yield cs.topologies.fat_tree(3, 2)


def exchanges(p):
    rng = np.random.default_rng(11)
    hosts = p.hosts
    yield cs.AllToAll(senders=hosts, size=1e5)
    yield cs.AllToAll(senders=hosts, size=rng.choice([0.0, 1e4, 3e5], size=(len(hosts), len(hosts))))


@pytest.mark.parametrize("algorithm", ["caterpillar", "rs_n", "round_robin"])
def test_the_floor_is_below_every_simulated_makespan(algorithm):
    for p in platforms():
        for c in exchanges(p):
            s = cs.plan(p, c, algorithm=algorithm)
            for sync in ("barrier", "ready"):
                floor = sync_bound(p, c, s, sync, model=Fluid())
                if floor is None:
                    continue
                made = cs.simulate(p, s.lower(p, c, sync=sync), c, model=Fluid()).makespan
                assert floor <= made * (1 + 1e-12), (algorithm, p.name, sync, floor, made)


def test_no_floor_where_it_is_not_known():
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = cs.plan(p, c, algorithm="caterpillar")
    assert sync_bound(p, c, s, "post_all", model=Fluid()) is None
    assert sync_bound(p, c, s, "ready", model=Circuit()) is None
    scatter = cs.Scatter(source="h0", targets=p.hosts, size=1e3)
    assert sync_bound(p, scatter, cs.plan(p, scatter, algorithm="linear"), "ready", model=Fluid()) is None


def test_the_barrier_floor_is_the_sum_of_the_steps_slowest_messages():
    p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
    c = cs.AllToAll(senders=p.hosts, size=[[0, 1e6, 2e6], [1e6, 0, 1e6], [3e6, 1e6, 0]])
    s = cs.plan(p, c, algorithm="caterpillar")  # steps (0->1, 1->2, 2->0) and (0->2, 1->0, 2->1)
    # the slowest message of each step, and between them a barrier of two rounds of 2 ms each
    assert sync_bound(p, c, s, "barrier", model=Fluid()) == pytest.approx((2e-3 + 3.0) + 4e-3 + (2e-3 + 2.0), rel=1e-12)


def test_the_barrier_floor_counts_the_bytes_a_step_sends_through_a_link():
    # apart, every message takes 1.002 s; together, h0 and h1 send 2 MB into h2's link of 1 MB/s
    p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
    c = cs.AllToMany({("h0", "h2"): 1e6, ("h1", "h2"): 1e6, ("h2", "h0"): 1e6})
    s = cs.StepSchedule.from_pairs([[("h0", "h2"), ("h2", "h0")], [("h1", "h2")]])
    assert sync_bound(p, c, s, "barrier", model=Fluid()) == pytest.approx(1.002 + 4e-3 + 1.002, rel=1e-12)
    together = cs.StepSchedule.from_pairs([[("h0", "h2"), ("h1", "h2"), ("h2", "h0")]])
    assert sync_bound(p, c, together, "barrier", model=Fluid()) == pytest.approx(2.0, rel=1e-12)
    assert cs.simulate(p, together.lower(p, c, sync="barrier"), c).makespan >= 2.0


@pytest.mark.parametrize("p", list(platforms())[:3], ids=lambda p: p.name)
def test_compare_keeps_the_same_mode_and_makespan_when_it_skips(p, monkeypatch):
    c = cs.AllToAll(senders=p.hosts, size=1e5)
    algorithms = ["caterpillar", "round_robin", "rs_n"]
    fast = compare(p, c, algorithms=algorithms)
    monkeypatch.setattr(compare_module, "sync_bound", lambda *args, **kwargs: None)
    every = compare(p, c, algorithms=algorithms)
    for a, b in zip(fast.candidates, every.candidates):
        assert (a.algorithm, a.achieved, a.schedule.params["sync"]) == (b.algorithm, b.achieved, b.schedule.params["sync"])
        assert [n for n in a.notes if "at least" not in n] == list(b.notes)


def test_a_mode_ruled_out_is_said():
    # 3 steps of 1 MB over 1 MB/s links, 2 ms of route latency: post_all ends at 3.006 s; ready signals add 2 ms a
    # step (floor 3.012 s), barriers two rounds of 2 ms between steps (floor 3.014 s): neither runs
    p = cs.topologies.star(4, bandwidth=1e6, latency=1e-3)
    c = cs.AllToAll(senders=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm="caterpillar")
    assert sync_bound(p, c, s, "ready", model=Fluid()) == pytest.approx(3.012, rel=1e-12)
    assert sync_bound(p, c, s, "barrier", model=Fluid()) == pytest.approx(3.014, rel=1e-12)
    assert cs.simulate(p, s.lower(p, c, sync="barrier"), c).makespan == pytest.approx(3.014, rel=1e-12)
    cand = compare(p, c, algorithms=["caterpillar"]).best
    assert cand.schedule.params["sync"] == "post_all" and cand.achieved == pytest.approx(3.006, rel=1e-12)
    after = "> 3.006 s with sync post_all"
    assert cand.notes == (
        "sync ready not run: its makespan is at least 3.012 s (each rank's steps in sequence, each message at least "
        f"its ready signal's latency, then its least latency plus bytes over its widest path) {after}",
        "sync barrier not run: its makespan is at least 3.014 s (steps in sequence, each at least its slowest message "
        f"alone and its busiest link's bytes, each barrier at least its rounds' latencies) {after}")
