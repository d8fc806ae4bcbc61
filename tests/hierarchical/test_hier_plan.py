"""Hierarchical broadcast schedules: every heuristic validates and simulates; PLogP simulation equals prediction."""

import pytest

import collsched as cs
from collsched.algorithms.hierarchical import HEURISTICS, GridParams, MeasurementPlan, hierarchical_broadcast
from collsched.errors import CollschedError, FormatError, ScheduleError
from collsched.platform.clustering import with_clusters
from collsched.schedules import Status, TreeSchedule

GRIDS = [([4, 8, 2, 16, 5], 1, "h1"), ([3, 7, 12, 1, 9, 6], 2, "h20"), ([1, 1, 1], 3, "h2")]


def source_first(platform, source):
    return [((source,) + tuple(h for h in g if h != source)) if source in g else g for g in platform.clusters]


@pytest.mark.parametrize("heuristic", HEURISTICS)
@pytest.mark.parametrize("sizes, seed, source", GRIDS)
def test_validates_and_simulates_as_predicted(heuristic, sizes, seed, source):
    p = cs.topologies.grid_of_clusters(sizes, seed=seed)
    c = cs.Broadcast(source=source, targets=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm=heuristic)
    assert s.algorithm == heuristic and s.clusters is not None and len(s.intra) == len(sizes)
    cs.validate(p, c, s)
    model = GridParams.from_platform(p, source_first(p, source)).model()
    r = cs.simulate(p, s, model=model)
    # the chosen intra models here are exact under PLogP (flat, chains, binomial on 2^k hosts): same number
    assert r.makespan == pytest.approx(s.params["predicted"], rel=1e-9)
    assert s.bound.value <= r.makespan * (1 + 1e-9)
    assert s.bound.name.startswith("exhaustive")
    assert (s.status == Status.OPTIMAL) == (r.makespan <= s.bound.value * (1 + 1e-9))
    # the other models of the simulator run the same program
    assert cs.simulate(p, s, model=cs.models.OnePort()).makespan > 0


def test_large_grid_uses_the_arrival_bound():
    p = cs.topologies.grid_of_clusters([2] * 9, seed=5)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm="ecef_la")
    assert s.bound.name.startswith("max over clusters")
    assert s.bound.value <= s.params["predicted"]


def test_clusters_found_when_the_platform_has_none():
    grid = cs.topologies.grid_of_clusters([3, 4, 2], seed=6)
    bare = cs.Platform(grid.nodes.values(), grid.links.values(), grid.routing)
    c = cs.Broadcast(source="h0", targets=bare.hosts, size=1e5)
    s = cs.plan(bare, c, algorithm="ecef_lat")
    assert sorted(map(sorted, s.clusters)) == sorted(map(sorted, grid.clusters))
    cs.validate(bare, c, s)


def test_every_intra_model_inside_a_hierarchical_schedule():
    p = cs.topologies.grid_of_clusters([5, 6], seed=1)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e5)
    for model in ("flat", "segmented_flat", "chain", "pipelined_chain", "binary", "binomial",
                  "segmented_binomial", "k_chain", "scatter_allgather"):
        s = hierarchical_broadcast(p, c, "ecef", models=(model,), max_segments=8)
        cs.validate(p, c, s)
        assert cs.simulate(p, s, c, model=cs.models.Fluid()).makespan > 0


def test_hierarchical_lowering_errors():
    p = with_clusters(cs.topologies.star(4), [["h0", "h1"], ["h2", "h3"]])
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    # h3 enters cluster 1 from h1 (not a coordinator of cluster 0) while h2 enters it from h0
    t = TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h1": ("h3",)}, clusters=p.clusters,
                     intra={"h0": "flat:1", "h2": "flat:1"})
    with pytest.raises(ScheduleError, match="entered twice|not its cluster's coordinator"):
        t.lower(p, c)
    bad = TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h2": ("h3",)}, clusters=p.clusters,
                       intra={"h0": "ring:1"})
    with pytest.raises(ScheduleError, match="ring"):
        bad.lower(p, c)
    with pytest.raises(ScheduleError, match="broadcast"):
        bad.lower(p, cs.Scatter(source="h0", targets=p.hosts, size=1e3))
    with pytest.raises(CollschedError, match="does not apply"):
        cs.plan(p, cs.Series(c, count=2), algorithm="ecef")


def test_measurement_plan_counts_and_round_trip(tmp_path):
    clusters = [["a", "b"], ["c"], ["d", "e"], ["f", "g"]]
    plan = MeasurementPlan.for_clusters(clusters)
    C = len(clusters)
    assert len(plan.measurements) == C * (C - 1) + C - 1      # the one-host cluster has no inside measurement
    assert len(MeasurementPlan.for_clusters(clusters, symmetric=True).measurements) == C * (C - 1) // 2 + C - 1
    plan.save(tmp_path / "plan.json")
    assert MeasurementPlan.load(tmp_path / "plan.json") == plan
    with pytest.raises(ValueError, match="not filled"):
        plan.params()
    with pytest.raises(FormatError):
        MeasurementPlan.from_json("{", where="x.json")


def test_measured_params_plan_the_same_as_the_platform():
    """Filling the plan from the platform's own matrix gives the parameters read off the platform."""
    p = cs.topologies.grid_of_clusters([3, 2, 4], seed=8)
    plan = MeasurementPlan.for_clusters(p.clusters, sizes=(0.0, 1e6)).filled(
        lambda s, d, sizes: (p.latency(s, d), [x / p.bandwidth(s, d) for x in sizes]))
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    measured = cs.plan(p, c, algorithm="ecef", params=plan.params())
    direct = cs.plan(p, c, algorithm="ecef")
    assert dict(measured.children) == dict(direct.children)
    assert measured.params["predicted"] == pytest.approx(direct.params["predicted"], rel=1e-12)


def test_schedule_file_round_trip(tmp_path):
    p = cs.topologies.grid_of_clusters([3, 2, 4], seed=1)
    c = cs.Broadcast(source="h4", targets=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm="ecef_lat_max")
    cs.save_schedule(s, tmp_path / "s.json")
    back = cs.load_schedule(tmp_path / "s.json")
    assert back == s and dict(back.intra) == dict(s.intra)
    cs.validate(p, c, back)


def test_measured_params_with_the_source_inside_a_cluster():
    p = cs.topologies.grid_of_clusters([3, 2, 4], seed=9)
    plan = MeasurementPlan.for_clusters(p.clusters, sizes=(0.0, 1e6)).filled(
        lambda s, d, sizes: (p.latency(s, d), [x / p.bandwidth(s, d) for x in sizes]))
    c = cs.Broadcast(source="h4", targets=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm="fef", params=plan.params())
    assert s.root == "h4" and s.clusters[1][0] == "h4"
    cs.validate(p, c, s)


def test_segment_counts_whose_lcm_is_too_large_are_rounded():
    """Segments k = 59, 61, 63, 64: lcm > 2^20, so pieces are cut at floor(j * D / k) with D = 2^20."""
    from collsched.schedules.trees import _hierarchical_denominator

    p = cs.topologies.grid_of_clusters([3, 3, 3, 3], seed=1)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    kids = {"h0": ("h3", "h6", "h9", "h1"), "h1": ("h2",), "h3": ("h4",), "h4": ("h5",), "h6": ("h7",),
            "h7": ("h8",), "h9": ("h10",), "h10": ("h11",)}
    t = TreeSchedule(root="h0", children=kids, clusters=p.clusters,
                     intra={"h0": "pipelined_chain:59", "h3": "pipelined_chain:61", "h6": "pipelined_chain:63",
                            "h9": "pipelined_chain:64"})
    assert _hierarchical_denominator(t) == 1 << 20
    cs.validate(p, c, t)
    assert t.lower(p, c).bytes_sent == pytest.approx(1e6 * (3 + 2 * 4))
