"""compare() under a time budget: estimates, skipped rows with their reason, modes left out, progress with an ETA."""

import dataclasses
import math

import pytest

import collsched as cs
from collsched.algorithms import registry
from collsched.algorithms.registry import Cost
from collsched.compare import compare, default_budget, program_size
from collsched.schedules.steps import SYNC_MODES


@pytest.fixture
def costed(monkeypatch):
    """Give algorithms known costs (seconds = coefficient * hosts) for the test."""
    def give(**coefficients):
        registry._load_families()
        for name, k in coefficients.items():
            monkeypatch.setitem(registry._REGISTRY, name, dataclasses.replace(registry.get(name), cost=Cost(k, 1.0)))
    return give


def test_an_algorithm_over_the_budget_is_skipped_with_its_estimate(costed):
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    costed(caterpillar=1e-6, round_robin=103.0)  # 4 hosts: 4e-6 s and 412 s
    cmp = compare(p, c, algorithms=["caterpillar", "round_robin"], budget=60)
    by = {cand.algorithm: cand for cand in cmp.candidates}
    assert by["round_robin"].status_text == "skipped: estimated 412 s > budget 60 s"
    assert by["round_robin"].status is cs.Status.LIMIT and not by["round_robin"].valid
    assert by["caterpillar"].valid and cmp.best.algorithm == "caterpillar"
    assert cmp.rows()[1][-1] == "skipped: estimated 412 s > budget 60 s"


def test_the_cheapest_are_admitted_first(costed):
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    costed(ac=10.0, caterpillar=5.0, round_robin=1e-6)  # 40 s, 20 s, 4 us
    cmp = compare(p, c, algorithms=["ac", "caterpillar", "round_robin"], budget=50)
    by = {cand.algorithm: cand for cand in cmp.candidates}
    assert by["caterpillar"].valid and by["round_robin"].valid
    assert by["ac"].skipped == "estimated 40 s > 30 s left of the 50 s budget by the cheaper algorithms' estimates"


def test_no_budget_without_estimates_and_named_algorithms_run_unbounded():
    p = cs.topologies.star(3)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    cmp = compare(p, c, algorithms=["binomial"])
    assert cmp.candidates[0].valid
    assert default_budget(c) == math.inf


def test_on_start_gets_each_estimate_and_the_eta(costed):
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    costed(caterpillar=0.25, round_robin=0.5)  # 1 s and 2 s
    seen = []
    compare(p, c, algorithms=["caterpillar", "round_robin"], budget=100,
            on_start=lambda name, est, eta: seen.append((name, est, eta)))
    assert seen == [("caterpillar", 1.0, 3.0), ("round_robin", 2.0, 2.0)]


def test_a_mode_over_the_operation_limit_is_left_out_and_said():
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = cs.plan(p, c, algorithm="caterpillar")
    sizes = {sync: program_size(s, p, c, sync) for sync in SYNC_MODES}
    assert sizes == {sync: s.lower(p, c, sync=sync).n_ops for sync in SYNC_MODES} == \
        {"barrier": 56, "ready": 48, "post_all": 24}
    cand = compare(p, c, algorithms=["caterpillar"], max_ops=30).candidates[0]
    assert cand.schedule.params["sync"] == "post_all"
    assert cand.notes == ("sync barrier not run: its program would have 0.0 M operations > the limit of 3e-05 M "
                          "(max_ops)", "sync ready not run: its program would have 0.0 M operations > the limit of "
                          "3e-05 M (max_ops)")


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, True, "60"])
def test_a_bad_budget_is_refused(bad):
    p = cs.topologies.star(3)
    with pytest.raises(ValueError, match="budget"):
        compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1), budget=bad)


def test_plan_takes_a_budget_only_without_an_algorithm():
    p = cs.topologies.star(3)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    assert cs.plan(p, c, budget=30).algorithm in registry.names()
    with pytest.raises(ValueError, match="without algorithm"):
        cs.plan(p, c, algorithm="binomial", budget=30)


def test_cli_compare_budget_prints_the_skipped_rows(tmp_path, capsys):
    from collsched.cli import main

    from collsched.collective_io import save_collective
    from collsched.platform.io import save_platform

    p = cs.topologies.star(4)

    save_platform(p, tmp_path / "p.json")
    save_collective(cs.AllToAll(senders=p.hosts, size=1e3), tmp_path / "c.json")
    with pytest.raises(SystemExit) as exit_:
        main(["compare", str(tmp_path / "p.json"), str(tmp_path / "c.json"), "-a", "caterpillar", "--budget", "1e-12"])
    assert exit_.value.code == 1  # nothing ran
    out = capsys.readouterr().out
    assert "skipped: estimated" in out and "> budget 1e-12" in out  # the table's 120 columns may wrap the unit
