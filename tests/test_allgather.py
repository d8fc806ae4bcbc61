"""AllGather: the collective, its file form, its baselines (one shared battery) and its lower bound."""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.bounds import collective_bound
from collsched.compare import compare
from collsched.collective_io import collective_from_json, collective_to_json, new_collective
from collsched.schedules import StepSchedule
from collsched.schedules.steps import SYNC_MODES
from steady_state.random_platforms import random_platform
from test_cli import collective_doc, platform_doc, run, write

ALGORITHMS = ("direct", "forest", "hierarchical", "recursive_doubling", "ring")
MODELS = (cs.models.OnePort(), cs.models.Fluid())
TOL = 1e-9


def programs(p, c, s):
    """The schedule's program under each synchronisation mode (one program for order schedules)."""
    if isinstance(s, StepSchedule):
        return [s.lower(p, c, sync=sync) for sync in SYNC_MODES]
    return [s.lower(p, c)]


def check(p, c, algorithm, **options):
    """Plan, validate every lowering, simulate under OnePort and Fluid; no makespan beats the bound."""
    s = cs.plan(p, c, algorithm=algorithm, **options)
    for prog in programs(p, c, s):
        cs.validate(p, c, prog)
        for model in MODELS:
            r = cs.simulate(p, prog, c, model=model)
            assert math.isfinite(r.makespan) and r.makespan > 0
            bound = collective_bound(p, c, model=model).value
            if c.kind == "series":
                assert r.throughput <= bound * (1 + TOL), (algorithm, model, r.throughput, bound)
            else:
                assert r.makespan >= bound * (1 - TOL), (algorithm, model, r.makespan, bound)
    return s


# --- the collective ------------------------------------------------------------------------

def test_values_are_broadcast_blocks_in_participant_order():
    p = cs.topologies.star(3)
    c = cs.AllGather(participants=["h2", "h0", "h1"], size=8)
    initial, final = c.instance_values(p, 1)
    assert initial == [("h2", cs.schedules.block(1, 2, -1)), ("h0", cs.schedules.block(1, 0, -1)),
                       ("h1", cs.schedules.block(1, 1, -1))]
    assert [v for h, v in final if h == "h0"] == [v for _, v in initial]  # all N blocks, in participant order
    assert len(final) == 9
    assert c.direct_value(p, 0, "h0", "h1") == cs.schedules.block(0, 0, -1)
    assert (c.total_bytes, c.received_bytes, cs.Series(c, count=3).total_bytes) == (24.0, 16.0, 72.0)
    assert sorted(c.pairs()) == sorted((a, b) for a in c.hosts for b in c.hosts if a != b)


@pytest.mark.parametrize("kwargs, words", [
    (dict(participants=["h0"], size=8), "allgather participants has 1 host"),
    (dict(participants=[], size=8), "allgather participants is empty"),
    (dict(participants=["h0", "h1", "h0"], size=8), "allgather participants lists 'h0' twice"),
    (dict(participants=["h0", "h1"], size=0), "allgather size is 0"),
    (dict(participants=["h0", "h1"], size=-1.0), "allgather size is -1.0"),
    (dict(participants=["h0", "h1"], size=float("nan")), "allgather size is nan"),
    (dict(participants="h0h1", size=8), "allgather participants is the string"),
])
def test_bad_allgathers_are_one_line_errors(kwargs, words):
    with pytest.raises(cs.CollectiveError, match=words) as info:
        cs.AllGather(**kwargs)
    assert "\n" not in str(info.value)


def test_a_router_or_an_unknown_host_as_participant_is_rejected_by_validate():
    p = cs.topologies.star(3)
    with pytest.raises(cs.CollectiveError, match="allgather participant 'sw' is a router"):
        cs.AllGather(participants=["h0", "sw"], size=8).validate(p)
    with pytest.raises(cs.CollectiveError, match="allgather participant 'h7' is not in platform"):
        cs.AllGather(participants=["h0", "h7"], size=8).validate(p)
    with pytest.raises(cs.CollectiveError, match="has no message h0->h0"):
        cs.AllGather(participants=["h0", "h1"], size=8).direct_value(p, 0, "h0", "h0")


def test_one_participant_unreachable_from_another_is_rejected():
    nodes = [cs.Node("a"), cs.Node("b")]
    links = [cs.Link("ab", bandwidth=1.0, latency=0.0, ends=("a", "b"), directed=True)]
    p = cs.Platform(nodes, links, name="oneway")
    with pytest.raises(cs.PlatformError, match="b"):
        cs.AllGather(participants=["a", "b"], size=8).validate(p)


def test_json_round_trip_and_unit_strings():
    for c in (cs.AllGather(participants=["h1", "h0", "h2"], size=1e6),
              cs.Series(cs.AllGather(participants=["h0", "h1"], size=3.5), count=7)):
        assert collective_from_json(collective_to_json(c)) == c
    read = collective_from_json(collective_to_json(cs.AllGather(participants=["a", "b"], size=1))
                                .replace("1.0", '"1MB"'))
    assert read == cs.AllGather(participants=["a", "b"], size=1e6)
    assert new_collective("allgather", ["b", "a"], size="64KiB", count=2) == \
        cs.Series(cs.AllGather(participants=["b", "a"], size=65536), count=2)
    with pytest.raises(cs.CollschedError, match="a allgather takes no source"):
        new_collective("allgather", ["a", "b"], size=1, source="a")


def test_cli_makes_an_allgather_and_rejects_a_bad_file_in_one_line(tmp_path, capsys):
    out = tmp_path / "ag.json"
    code, stdout, _ = run(["collective", "new", "allgather", "--participants", "a,b,c", "--size", "1MB",
                           "-o", str(out)], capsys)
    assert code == 0 and "allgather on 3 hosts, 3MB per operation" in stdout
    assert cs.load_collective(out) == cs.AllGather(participants=["a", "b", "c"], size=1e6)
    plat = write(tmp_path, "p.json", platform_doc())
    for body, words in [({"type": "allgather", "participants": ["a", "a"], "size": 8},
                         "collective.participants: allgather participants lists 'a' twice"),
                        ({"type": "allgather", "participants": ["a", "b"], "size": -8}, "collective.size"),
                        ({"type": "allgather", "participants": ["a"], "size": 8}, "has 1 host"),
                        ({"type": "allgather", "participants": ["a", "b"]}, "missing field 'size'")]:
        bad = write(tmp_path, "bad.json", collective_doc(body))
        code, stdout, stderr = run(["compare", plat, bad], capsys)
        assert code == 2, (body, stdout, stderr)
        assert words in stderr and stderr.strip().count("\n") == 0 and "Traceback" not in stderr, stderr
    router = write(tmp_path, "router.json", collective_doc({"type": "allgather", "participants": ["a", "sw"],
                                                            "size": 8}))
    code, _, stderr = run(["compare", plat, router], capsys)
    assert code == 2 and "allgather participant 'sw' is a router" in stderr


def test_cli_compare_lists_the_three_baselines_with_gaps(tmp_path, capsys):
    plat = write(tmp_path, "p.json", platform_doc())
    coll = write(tmp_path, "ag.json", collective_doc({"type": "allgather", "participants": ["c", "a", "b"],
                                                      "size": "1MB"}))
    code, stdout, stderr = run(["compare", plat, coll], capsys)
    assert code == 0, stderr
    for name in ALGORITHMS:
        line = next(line for line in stdout.splitlines() if f" {name} " in line)
        assert "%" in line, line
    assert "bound:" in stdout


# --- the shared battery over every registered all-gather algorithm --------------------------

def test_the_registered_allgather_algorithms_are_the_baselines():
    c = cs.AllGather(participants=["h0", "h1"], size=1)
    assert tuple(a.name for a in cs.algorithms.applicable(c)) == ALGORITHMS
    assert tuple(a.name for a in cs.algorithms.applicable(cs.Series(c, count=3))) == ALGORITHMS + ("steady_state",)


@st.composite
def cases(draw):
    """A random platform (heterogeneous, one-way links and routers included), participants in random order."""
    family = draw(st.sampled_from(["random", "star", "hypercube", "tiers"]))
    seed = draw(st.integers(0, 40))
    if family == "random":
        p = random_platform(seed)
    elif family == "star":
        p = cs.topologies.star(draw(st.integers(2, 8)), seed=seed)
    elif family == "hypercube":
        p = cs.topologies.hypercube(draw(st.integers(1, 3)), seed=seed)
    else:
        p = cs.topologies.tiers(seed=seed)
    hosts = draw(st.permutations(p.hosts))
    n = draw(st.integers(2, min(len(hosts), 8)))
    c = cs.AllGather(participants=hosts[:n], size=draw(st.sampled_from([1.0, 1e3, 1e6])))
    count = draw(st.sampled_from([1, 1, 2]))
    return p, (c if count == 1 else cs.Series(c, count=count))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(ALGORITHMS), st.integers(1, 3))
def test_every_algorithm_validates_and_simulates_on_random_platforms(case, algorithm, channels):
    p, c = case
    check(p, c, algorithm, **({"channels": channels} if algorithm == "ring" else {}))


@pytest.mark.parametrize("fabric", [cs.topologies.dgx2(1), cs.topologies.mi250(1)], ids=["dgx2-1", "mi250-1"])
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_algorithm_on_a_gpu_fabric(fabric, algorithm):
    c = cs.AllGather(participants=fabric.hosts[::-1], size=2**20)
    check(fabric, c, algorithm)


def test_a_series_lowers_instance_after_instance():
    p = cs.topologies.star(5)
    c = cs.Series(cs.AllGather(participants=["h4", "h1", "h0", "h3", "h2"], size=1e3), count=3)
    for algorithm in ALGORITHMS:
        check(p, c, algorithm)
    assert len(cs.plan(p, c, algorithm="ring")) == 3 * 4


# --- exact figures ---------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 12])
def test_step_counts(n):
    p = cs.topologies.star(n)
    c = cs.AllGather(participants=p.hosts[::-1], size=1e3)
    ring = cs.plan(p, c, algorithm="ring")
    assert len(ring) == n - 1 and ring.n_transfers == n * (n - 1)
    assert all(len(t.values) == 1 for step in ring.steps for t in step)
    rd = cs.plan(p, c, algorithm="recursive_doubling")
    power = n & (n - 1) == 0
    assert len(rd) == (int(math.log2(n)) if power else n.bit_length() - 1 + 2)
    assert len(rd) == math.ceil(math.log2(n)) + (0 if power else 1)
    direct = cs.plan(p, c, algorithm="direct")
    assert direct.n_transfers == n * (n - 1)
    assert all(len(set(dests)) == n - 1 for dests in direct.orders.values())
    for s in (ring, rd, direct):
        cs.validate(p, c, s)


@pytest.mark.parametrize("n", [3, 5, 6, 7])
def test_recursive_doubling_off_powers_of_two_folds_the_extra_participants_in(n):
    p = cs.topologies.star(n)
    c = cs.AllGather(participants=p.hosts, size=1.0)
    s = cs.plan(p, c, algorithm="recursive_doubling")
    m = 1 << (n.bit_length() - 1)
    assert [(t.src, t.dst) for t in s.steps[0]] == [(p.hosts[m + i], p.hosts[i]) for i in range(n - m)]
    assert [(t.src, t.dst, len(t.values)) for t in s.steps[-1]] == \
        [(p.hosts[i], p.hosts[m + i], n - 1) for i in range(n - m)]
    check(p, c, "recursive_doubling")


def test_ring_channels_alternate_directions_and_split_blocks():
    p = cs.topologies.star(4)
    c = cs.AllGather(participants=p.hosts, size=4e3)
    s = cs.plan(p, c, algorithm="ring", channels=2)
    assert s.denominator == 2 and len(s) == 3
    first = {(t.src, t.dst, t.part) for t in s.steps[0]}
    assert ("h0", "h1", (0, 1)) in first and ("h1", "h0", (1, 2)) in first
    with pytest.raises(ValueError, match="channels=0"):
        cs.plan(p, c, algorithm="ring", channels=0)


B, SIZE = 1e9, 1e6


@pytest.mark.parametrize("algorithm, options, model", [
    ("ring", {}, cs.models.OnePort()), ("ring", {}, cs.models.Fluid()),
    ("ring", {"channels": 2}, cs.models.Fluid()), ("direct", {}, cs.models.OnePort()),
    ("direct", {}, cs.models.Fluid()), ("recursive_doubling", {}, cs.models.OnePort())])
def test_makespan_on_a_homogeneous_star_is_the_hand_computed_one_and_meets_the_bound(algorithm, options, model):
    """star(4, B, latency 0): every participant receives 3 blocks through one link of B: 3·size/B = 3 ms."""
    p = cs.topologies.star(4, bandwidth=B, latency=0)
    c = cs.AllGather(participants=["h1", "h3", "h0", "h2"], size=SIZE)
    s = cs.plan(p, c, algorithm=algorithm, **options)
    for prog in programs(p, c, s):
        assert cs.simulate(p, prog, c, model=model).makespan == pytest.approx(3 * SIZE / B, rel=1e-12)
    assert collective_bound(p, c, model=model).value == pytest.approx(3 * SIZE / B, rel=1e-12)


def test_the_bound_on_a_heterogeneous_star_under_each_model():
    """h0's link is 4x slower: it takes in 3 blocks at B/4 (12 ms); one-port and multi-port agree on a star."""
    hosts = ["h0", "h1", "h2", "h3"]
    p = cs.Platform([cs.Node(h) for h in hosts] + [cs.Node("sw", kind="router")],
                    [cs.Link(f"l{h}", bandwidth=B / 4 if h == "h0" else B, latency=0.0, ends=(h, "sw"))
                     for h in hosts], name="slow-h0")
    c = cs.AllGather(participants=p.hosts, size=SIZE)
    for model in MODELS:
        b = collective_bound(p, c, model=model)
        assert b.value == pytest.approx(12 * SIZE / B, rel=1e-3) and b.value <= 12 * SIZE / B * (1 + 1e-12)
        assert "h0" in b.name
    series = collective_bound(p, cs.Series(c, count=10), model=cs.models.OnePort())
    assert series.metric == "throughput" and series.value == pytest.approx(B / (12 * SIZE), rel=1e-3)


def test_compare_ranks_the_baselines_and_none_beats_the_bound():
    g = cs.topologies.dgx2(1)
    c = cs.AllGather(participants=g.hosts, size=64e6)
    for model in MODELS:
        cmp = compare(g, c, model=model)
        assert {x.algorithm for x in cmp.candidates} == set(ALGORITHMS)
        for x in cmp.candidates:
            assert x.valid, x.error
            assert x.achieved >= float(cmp.bound.value) * (1 - TOL) and x.gap >= -TOL
    # 15 blocks of 64 MB through one 125 GB/s NVSwitch port: 7.68 ms
    assert float(cmp.bound.value) == pytest.approx(15 * 64e6 / 125e9, rel=1e-3)


@pytest.mark.mpi
def test_the_baselines_and_mpi_allgather_run_verified_over_mpi():
    """Real buffers, real messages, one MPI job: every rank ends with every block, checked byte for byte;
    MPI_Allgather on the same data (its result in participant order)."""
    from collsched.runtime import MPICollective, run_many

    p = cs.topologies.star(3)
    c = cs.AllGather(participants=["h2", "h0", "h1"], size=1e4)
    schedules = [(cs.plan(p, c, algorithm=a, **o), c)
                 for a, o in (("ring", {"channels": 2}), ("direct", {}), ("recursive_doubling", {}))]
    results = run_many(p, schedules + [MPICollective(cs.Series(c, count=2))], repeat=2)
    assert all(r.verified and not r.problems for r in results)
    assert results[-1].what == "MPI_Allgather" and results[-1].makespan > 0


def test_a_series_is_compared_at_its_steady_state_rate():
    """A schedule planned for 4 instances lowers for the longer series steady_rate simulates (tiled): 1 / (3·size/B)."""
    p = cs.topologies.star(4, bandwidth=B, latency=0)
    c = cs.Series(cs.AllGather(participants=p.hosts, size=SIZE), count=4)
    cmp = compare(p, c, model=cs.models.OnePort())
    assert float(cmp.bound.value) == pytest.approx(B / (3 * SIZE), rel=1e-12)
    for x in cmp.candidates:
        assert x.valid, x.error
        if x.algorithm in ALGORITHMS:  # steady_state plans for one-port relays through the switch (its own model)
            assert float(x.steady.rate) == pytest.approx(B / (3 * SIZE), rel=1e-9), x.algorithm
        assert x.steady_gap >= -TOL and x.gap >= -TOL
    longer = cs.Series(c.base, count=9)
    for name in ALGORITHMS:
        cs.validate(p, longer, cs.plan(p, c, algorithm=name).lower(p, longer))
