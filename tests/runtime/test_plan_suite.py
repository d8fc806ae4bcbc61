"""``collsched plan-suite``: a plan folder per size bucket (best host-only schedule, bound, gap, or MPI's own),
read back by collsched.mpi and run over mpirun on the user's arrays."""

import json

import numpy as np
import pytest

import collsched as cs
from collsched.compare import compare
from collsched.mpi import PlanError, load_plans
from collsched.mpi.suite import BUCKET, GAIN, MESSAGE_COST, SuiteEntry, parse_suite, plan_suite
from collsched.runtime.platforms import round_robin_switches
from test_cli import run as cli

SUITE = {"collectives": [
    {"kind": "broadcast", "root": 1, "sizes": ["100kB", "400kB"]},
    {"kind": "reduce", "root": 0, "sizes": [100000, 100000], "operator": "both"},
    {"kind": "allreduce", "sizes": ["100kB", "100kB"]},
    {"kind": "alltoall", "ranks": [3, 2, 1, 0], "sizes": ["10B", "10B"]},
]}


@pytest.fixture(scope="module")
def planned(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("suite")
    p = round_robin_switches(2, bandwidth=5e7, trunk_bandwidth=5e6)
    cs.save_platform(p, tmp / "p.json")
    (tmp / "suite.json").write_text(json.dumps(SUITE))
    return p, tmp


def test_plan_suite_writes_one_plan_per_bucket(planned, capsys):
    p, tmp = planned
    code, out, err = cli(["plan-suite", str(tmp / "p.json"), "--collectives", str(tmp / "suite.json"),
                          "-o", str(tmp / "plans")], capsys)
    assert code == 0, err
    plans = load_plans(tmp / "plans", platform=p)
    buckets = [(x.kind, x.low, x.high, x.commutative) for x in plans.plans]
    assert buckets == [("broadcast", 100000, 399999, False), ("broadcast", 400000, 400000, False),
                       ("reduce", 100000, 100000, True), ("reduce", 100000, 100000, False),
                       ("allreduce", 100000, 100000, True), ("alltoall", 10, 10, False)]
    assert f"wrote {tmp / 'plans'}: 6 buckets" in out
    for plan in plans.plans:
        assert plan.platform == p.name and plan.n == 4
        assert plan.cost >= plan.makespan and plan.mpi_cost >= plan.mpi_makespan
        if plan.use_mpi:  # no gain of GAIN predicted: MPI's own runs, no program stored
            assert plan.program is None and plan.mpi_cost < GAIN * plan.cost
        else:
            assert plan.mpi_cost >= GAIN * plan.cost and set(plan.program.ranks) <= set(p.hosts)
        if plan.bound is not None:
            assert plan.makespan >= plan.bound * (1 - 1e-9)
            assert plan.gap == pytest.approx(plan.makespan / plan.bound - 1)
    # the alltoall's ranks run as given: rank 0 is h3
    assert plans.plans[-1].ranks == ("h3", "h2", "h1", "h0")


def test_the_kept_plan_is_the_fastest_host_only_candidate(planned):
    p, _ = planned
    c = cs.AllReduce(participants=p.hosts, size=100000.0)
    plans = plan_suite(p, [SuiteEntry("allreduce", p.hosts, None, 100000, 100000, "commutative")],
                       planned[1] / "one")
    cmp = compare(p, c, steady=False)
    hosts_only = [x for x in cmp.candidates if x.valid and set(x.schedule.lower(p, c).ranks) <= set(p.hosts)]

    def cost(result):  # the simulated makespan plus MESSAGE_COST per send or receive of the busiest rank
        talks = result.trace.kind < 2
        return result.makespan + MESSAGE_COST * max(np.bincount(result.trace.rank[talks]))

    best = min(hosts_only, key=lambda x: cost(x.result))
    assert plans.plans[0].algorithm == best.algorithm and plans.plans[0].makespan == best.result.makespan
    # a planned call also runs two agreements, all-reduces of 9 int64: recursive doubling, 2 rounds on 4 ranks, each
    # a send and a receive and 72 bytes over the 5 MB/s trunk (no latency on this platform)
    assert plans.plans[0].cost == pytest.approx(cost(best.result) + 2 * 2 * (2 * MESSAGE_COST + 72 / 5e6), rel=1e-12)
    mpi = compare(p, c, algorithms=["ring"], steady=False).best.result
    assert plans.plans[0].mpi_makespan == mpi.makespan and plans.plans[0].mpi_cost == cost(mpi)


def test_commutative_reduce_takes_its_operands_cluster_by_cluster(planned):
    """Round-robin placement: rank order alternates switches; the commutative plan combines each switch first."""
    p, tmp = planned
    plans = load_plans(tmp / "plans")
    commutative = plans.find("reduce", 4, 0, 100000, commutative=True)
    ordered = plans.find("reduce", 4, 0, 100000, commutative=False)
    assert commutative.commutative and commutative.operands == (0, 2, 1, 3)
    assert not ordered.commutative and ordered.operands == (0, 1, 2, 3)
    assert commutative.makespan < ordered.makespan


def test_bad_suites_and_outputs_are_one_line(planned, capsys, tmp_path):
    p, tmp = planned
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"collectives": [{"kind": "allreduce", "root": 0, "sizes": [1, 2]}]}))
    code, out, err = cli(["plan-suite", str(tmp / "p.json"), "--collectives", str(bad), "-o", str(tmp_path / "x")],
                         capsys)
    assert code == 2 and f"{bad}: collectives[0]: a allreduce has no root" in err and len(err.strip().splitlines()) == 1
    afile = tmp_path / "afile"
    afile.write_text("")
    code, out, err = cli(["plan-suite", str(tmp / "p.json"), "--collectives", str(tmp / "suite.json"), "-o",
                          str(afile)], capsys)
    assert code == 2 and f"-o {afile}: is a file, not a folder" in err
    with pytest.raises(cs.FormatError, match=r"collectives\[0\]: rank 'h9' is not a host of platform"):
        parse_suite({"collectives": [{"kind": "broadcast", "ranks": ["h9"], "sizes": [1, 2]}]}, p)
    with pytest.raises(cs.FormatError, match=r"sizes \[5, 2\] are not 1 <= smallest <= largest"):
        parse_suite({"collectives": [{"kind": "gather", "sizes": [5, 2]}]}, p)


def test_a_folder_from_another_platform_is_refused(planned):
    _, tmp = planned
    with pytest.raises(PlanError, match=r"was made on platform 'round-robin-switches-2' \(\w+\), not on platform "
                                        r"'round-robin-switches-2'"):
        load_plans(tmp / "plans", platform=round_robin_switches(2, trunk_bandwidth=1e6))


def test_bucket_edges_cover_the_range_without_gaps():
    e = SuiteEntry("broadcast", ("a",), 0, 3, 1000, "commutative")
    b = e.buckets()
    assert b[0][0] == 3 and b[-1][1] == 1000 and all(x[1] + 1 == y[0] for x, y in zip(b, b[1:]))
    assert all(hi < lo * BUCKET for lo, hi in b)


@pytest.mark.mpi
def test_the_folder_runs_under_mpirun(planned):
    """The ranks call bcast, reduce (both operators) and allreduce with plans=folder; results equal MPI's own."""
    from test_mpi_api import launch

    _, tmp = planned
    plans = load_plans(tmp / "plans")
    ranks = launch(4, "suite", str(tmp / "plans"))
    for r in ranks:
        assert r["failures"] == []
        assert r["checks"] == (6 if r["rank"] == 0 else 4)
    expected = {"bcast 200000": plans.find("broadcast", 4, 1, 200000, commutative=False),
                "bcast 400000": plans.find("broadcast", 4, 1, 400000, commutative=False),
                "reduce sum": plans.find("reduce", 4, 0, 100000, commutative=True),
                "reduce matmul": plans.find("reduce", 4, 0, 100000, commutative=False),
                "allreduce sum": plans.find("allreduce", 4, None, 100000, commutative=True),
                "alltoall": plans.find("alltoall", 4, None, 10, commutative=False)}
    assert ranks[0]["ran"] == {k: "mpi" if plan.use_mpi else "plan" for k, plan in expected.items()}
    assert "plan" in ranks[0]["ran"].values()
