"""plan_forest and the ``forest`` algorithm: tree packings of the GPU fabrics lowered, validated and simulated.

Claims checked: every planned program validates; a series is planned at the
packing's exact rate with the cut bound as its bound (OPTIMAL when they are
equal); under ``Fluid`` its simulated rate in the full pipeline is within
1e-3 of that rate on the GPU fabrics (1 GB collectives, the fabrics'
latencies; :mod:`collsched.algorithms.gpu.series_rate`) and equals it up
to float noise on random platforms without latency; one collective is
chunked by the pipeline model and never beats its bound; the all-reduce
bound is ``min(x*_AG, λ/N, E/(2N(N-1)))`` per root stream.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.gpu.plan import (_bounded_shares, choose_chunks, least_cut, makespan_model, plan_forest,
                                          round_time, transmission_capacity)
from collsched.algorithms.gpu.forest import check_forest, pack_forest
from collsched.errors import CollschedError, ScheduleError
from collsched.schedules import ForestTree
from collsched.algorithms.gpu.series_rate import completion_times, series_rate, steady_count
from collsched.simulation.steady import steady_rate

FLUID = cs.models.Fluid()
FABRICS = [("dgx2", 2), ("ndv2", 2), ("dgx_a100", 2), ("mi250", 2)]


def fabric(name, count):
    return getattr(cs.topologies, name)(count)


def collective(kind, hosts, total=1e9):
    n = len(hosts)
    return {"allgather": cs.AllGather(participants=hosts, size=total / n),
            "reducescatter": cs.ReduceScatter(participants=hosts, size=total / n),
            "allreduce": cs.AllReduce(participants=hosts, size=total)}[kind]


@pytest.mark.parametrize("name, count", FABRICS)
@pytest.mark.parametrize("kind", ["allgather", "reducescatter", "allreduce"])
def test_series_on_the_fabrics_validate_with_the_cut_bound(name, count, kind):
    """The simulated rates of these series are the benchmark's (they settle after tens of instances)."""
    p = fabric(name, count)
    c = cs.Series(collective(kind, list(p.hosts)), count=2)
    s = cs.plan(p, c, algorithm="forest")
    cs.validate(p, c, s)
    assert s.chunks == 1 and s.bound.metric == "throughput"
    assert s.bound.value == s.rate_bound / F(s.block_bytes(c))
    assert (s.status is cs.Status.OPTIMAL) == (s.throughput == s.rate_bound)


def steady_series_rate(p, kind, width=8):
    """The simulated rate of a forest series in its full pipeline over the claimed rate (``series_rate``)."""
    s = cs.plan(p, cs.Series(collective(kind, list(p.hosts)), count=2), algorithm="forest")
    c = cs.Series(collective(kind, list(p.hosts)), count=steady_count(s, width))
    prog = s.lower(p, c)
    return s, series_rate(s, c, completion_times(prog, cs.simulate(p, prog, model=FLUID).trace, c.count))


@pytest.mark.parametrize("name, count, kind", [
    ("ndv2", 2, "allgather"), ("ndv2", 2, "reducescatter"), ("ndv2", 2, "allreduce"),
    ("dgx2", 2, "allgather"), ("dgx_a100", 2, "allgather"), ("dgx_a100", 2, "reducescatter"),
    ("ndv2", 4, "allgather"), ("ndv2", 4, "allreduce")])
def test_series_run_at_the_claimed_rate_in_their_full_pipeline(name, count, kind):
    """Measured (``benchmarks/bench_gpu_forest_schedule.py`` prints every fabric and kind): 0.9991 to 1.00003 on
    these (rounds: the fabrics' latencies cost up to 1e-3 of a 1 GB period; units, the ndv2 all-reduces, are not
    exactly periodic in the window)."""
    s, rate = steady_series_rate(fabric(name, count), kind)
    assert s.messages == ("unit" if kind == "allreduce" and name == "ndv2" else "round")
    assert abs(rate - 1) <= 1e-3


@pytest.mark.parametrize("name, count", FABRICS)
def test_allgather_series_reaches_the_cut_bound_on_the_fabrics(name, count):
    p = fabric(name, count)
    s = plan_forest(p, cs.Series(collective("allgather", list(p.hosts)), count=3))
    assert s.throughput == s.rate_bound and s.status is cs.Status.OPTIMAL


def test_allreduce_rate_and_bound_on_one_switch():
    """dgx2(1): x*_AG = 125e9/15; both phases load every GPU link twice: x = 125e9/30; λ = 125e9, λ/N = 125e9/16;
    the hosts send E = 16 · 125e9 bytes/s at most, and each byte goes out 2 (N - 1) times: E / (2·16·15) = 125e9/30,
    the schedule's rate, which is then optimal."""
    p = cs.topologies.dgx2(1)
    s = plan_forest(p, cs.AllReduce(participants=p.hosts, size=1.6e7))
    assert s.throughput == F(125 * 10**9, 30)
    assert least_cut(p, p.hosts) == 125 * 10**9
    assert transmission_capacity(p) == 16 * 125 * 10**9
    assert s.rate_bound == F(125 * 10**9, 30)
    assert s.bound.value == pytest.approx(1e6 / (125e9 / 30), rel=1e-12)
    series = plan_forest(p, cs.Series(cs.AllReduce(participants=p.hosts, size=1.6e7), count=2))
    assert series.status is cs.Status.OPTIMAL and series.throughput == series.rate_bound


def test_transmission_bound_on_two_chassis_and_fatpipes():
    """dgx2(2): 32 GPUs at 125e9 each way on their switch, 16 one-way links of 12.5e9 between the chassis."""
    p = cs.topologies.dgx2(2)
    assert transmission_capacity(p) == 32 * 125 * 10**9 + 16 * F(125 * 10**8)
    s = plan_forest(p, cs.Series(cs.AllReduce(participants=p.hosts, size=1e9), count=2))
    assert s.rate_bound == transmission_capacity(p) / (2 * 32 * 31) < least_cut(p, p.hosts) / 32
    assert 1 / s.bound.value == pytest.approx(2 * 31 * 1e9 / 4.2e12, rel=1e-12)  # 14.76 ms per operation, was 10 ms
    fat = cs.Platform([cs.Node("a"), cs.Node("b")], [cs.Link("l", 1e9, ends=("a", "b"), sharing="fatpipe")])
    assert transmission_capacity(fat) is None


def test_one_collective_is_chunked_by_the_model_and_never_beats_its_bound():
    p = cs.topologies.dgx2(1)
    c = cs.AllGather(participants=p.hosts, size=1e7)
    s = cs.plan(p, c, algorithm="forest")
    assert s.chunks == choose_chunks(p, dataclasses.replace(s, chunks=1), c)
    assert s.params["trees"] in ("packing", "direct routes")
    assert s.params["model_makespan"] == makespan_model(p, s, c, s.chunks)
    cs.validate(p, c, s)
    r = cs.simulate(p, s, model=FLUID)
    assert r.makespan >= s.bound.value
    assert s.bound.value == max(s.params["bandwidth_bound"], s.params["latency_bound"])


@pytest.mark.parametrize("kind", ["allgather", "reducescatter", "allreduce"])
@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
def test_one_collective_of_each_kind_validates_with_any_chunks(kind, chunks):
    p = cs.topologies.ndv2(2)
    c = collective(kind, list(p.hosts), total=1.6e7)
    s = cs.plan(p, c, algorithm="forest", chunks=chunks)
    assert s.chunks == chunks
    cs.validate(p, c, s)


def test_shares_with_large_denominators_are_rounded_and_the_rate_is_what_they_carry():
    trees = [ForestTree("a", F(1, 999983), [("a", "b")]), ForestTree("a", F(1, 999979), [("a", "b")]),
             ForestTree("b", F(2), [("b", "a")])]
    rate = F(1, 999983) + F(1, 999979)
    kept, carried, note = _bounded_shares(trees, ["a", "b"], rate)
    shares = [t.weight / carried for t in kept if t.root == "a"]
    assert sum(shares) == 1 and all((s * 2**19).denominator == 1 for s in shares)
    assert carried == min(t.weight / s for t, s in zip(trees[:2], shares)) and carried <= rate
    assert all(k.weight <= t.weight for k, t in zip(kept, trees))
    assert note.startswith("tree shares rounded to multiples of 1/524288")
    assert _bounded_shares(trees[1:], ["a", "b"], F(1, 999979)) == (trees[1:], F(1, 999979), "")


def test_options_and_kinds():
    p = cs.topologies.dgx2(1)
    c = cs.AllGather(participants=p.hosts, size=1e6)
    with pytest.raises(ValueError, match=r"^forest option chunks=0 is not an integer >= 1$"):
        cs.plan(p, c, algorithm="forest", chunks=0)
    with pytest.raises(CollschedError, match="^algorithm 'forest' does not apply to a broadcast"):
        cs.plan(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), algorithm="forest")
    with pytest.raises(CollschedError, match="^the forest algorithm schedules allgather, reducescatter, allreduce, "
                                             "not a broadcast"):
        plan_forest(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6))


def random_series(seed, kind):
    """The property test's platform and series: ``random_platform(seed)``, participants drawn from the seed."""
    from steady_state.random_platforms import random_platform

    import numpy as np

    p = random_platform(seed)
    rng = np.random.default_rng(seed)
    hosts = list(p.hosts)
    chosen = [hosts[i] for i in rng.permutation(len(hosts))[:int(rng.integers(2, len(hosts) + 1))]]
    return p, cs.Series(collective(kind, chosen, total=12.0), count=4)


def settled_rate(p, s, c):
    """The series' steady rate: ``steady_rate``'s when its windows settle, else :func:`completed_rate`'s."""
    r = steady_rate(p, s, c, model=FLUID)
    return r.rate if r.settled else completed_rate(p, s, c)


def completed_rate(p, s, c, count=640):
    """Operations per second between the completions of the middle half of ``count`` instances (exact on floats).

    Unit messages of a sender's own data are not paced (``schedules/forest.py``, *Pacing*): a root may send ahead of
    the pipeline through the whole series, and when it is done the clean-up differs with the series' length, so the
    makespans' marginal rate need not settle to 1e-9 within ``steady_rate``'s 1280 operations even where the
    instances complete one claimed period apart (``test_random_platform_allreduce_units_complete_at_their_claim``).
    """
    series = cs.Series(c.base, count=count)
    prog = s.lower(p, series)
    times = completion_times(prog, cs.simulate(p, prog, model=FLUID).trace, count)
    return F(count // 2) / (F(times[3 * count // 4]) - F(times[count // 4]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20), kind=st.sampled_from(["allgather", "reducescatter", "allreduce"]))
def test_random_platforms_without_latency_simulate_at_the_claimed_rate(seed, kind):
    p, c = random_series(seed, kind)
    s = cs.plan(p, c, algorithm="forest")
    cs.validate(p, c, s)
    assert abs(settled_rate(p, s, c) / s.operations_per_second(c) - 1) < 1e-9


def test_random_platform_191802_allgather_runs_at_its_claim():
    """Found by the property test (dev profile): the roots, held back by nothing but their own pairs, ran ahead of
    the relays that share their links (P1→P5 beside P1→P0 on P1-P4) and the series settled at 0.87709 of its claim;
    paced (``schedules/forest.py``, *Pacing*), at the claim."""
    p, c = random_series(191802, "allgather")
    s = cs.plan(p, c, algorithm="forest")
    assert (s.messages, s.chunks, s.window, len(c.base.participants)) == ("round", 1, 1, 4)
    assert s.operations_per_second(c) == F(295, 2304) and s.throughput == F(295, 768)
    r = steady_rate(p, s, c, model=FLUID)
    assert r.settled and abs(r.rate / F(295, 2304) - 1) < 1e-9


@pytest.mark.parametrize("seed, messages, throughput", [
    (14950, "unit", F(65, 112)), (76, "round", F(431, 2157)), (89, "round", F(117, 352)), (306, "round", F(65, 158)),
    (523, "unit", F(10, 27)), (606, "unit", F(13, 25))])
def test_random_platform_allreduce_series_of_many_units_run_at_their_claim(seed, messages, throughput):
    """Found by the property test (dev profile): a root has more than ``MAX_UNITS`` exact units. Cut into
    ``round(share · 32)`` messages per tree, the trees' messages were not in proportion to their weights, nor were the
    rates the links' equal shares gave them, and the series settled at 0.977891 to 1.000080 of the claim. A series's
    units are exact (``ForestSchedule.units``), or it goes in rounds where they are more than 2048 per item."""
    p, c = random_series(seed, "allreduce")
    s = cs.plan(p, c, algorithm="forest")
    assert (s.messages, s.throughput) == (messages, throughput)
    assert not s.units()[1] and s.units(series=True)[1]
    r = steady_rate(p, s, c, model=FLUID)
    assert r.settled and abs(r.rate / s.operations_per_second(c) - 1) < 1e-9


def test_random_platform_2738_allgather_goes_as_units_where_its_rounds_fall_behind():
    """Found by the property test (dev profile). In rounds, P0→P3 (5/8 of a period's bytes at the claim) and P1→P3
    (11/8) share P4→P3 (2 bytes/s), each at 1 byte/s until P0→P3 ends; P1→P3 then gets 7/4, what P1→P4 leaves beside
    P1→P0: a round takes 5/8 + 3/7 = 59/56 periods, and the series settles at 56/59 of its claim (0.94915).
    ``round_time`` (all messages of a round started together) finds the round longer than a period, and the 260 exact
    unit messages per instance run at the claim."""
    p, c = random_series(2738, "allgather")
    s = cs.plan(p, c, algorithm="forest")
    assert (s.messages, s.throughput, s.status) == ("unit", F(13, 16), cs.Status.OPTIMAL)
    assert c.base.size == 2.4 and s.operations_per_second(c) == F(13, 16) / F(2.4)
    r = steady_rate(p, s, c, model=FLUID)
    assert r.settled and abs(r.rate / s.operations_per_second(c) - 1) < 1e-9
    rounds = dataclasses.replace(s, messages="round")
    assert round_time(p, rounds) == F(67, 64)
    r = steady_rate(p, rounds, c, model=FLUID)
    assert r.settled and abs(r.rate / s.operations_per_second(c) / F(56, 59) - 1) < 1e-9


@pytest.mark.parametrize("seed, throughput", [(2500, F(5, 18)), (2964, F(1, 24)), (3878, F(1, 4))])
def test_random_platform_allreduce_units_complete_at_their_claim(seed, throughput):
    """Found by the property test (dev profile): the makespans' marginal rate did not settle within 640 operations
    (1.00000023, 1.0000000035, 0.99999981 of the claim at 320 and 640). The instances complete one claimed period
    apart (the middle half of 640, to 1e-9); what varies with the series' length is its clean-up: a root's units of
    its own data are not paced and run ahead of the pipeline (on 3878, P5's to P1: the next test), so when that root
    is done depends on the length."""
    p, c = random_series(seed, "allreduce")
    s = cs.plan(p, c, algorithm="forest")
    assert (s.messages, s.throughput) == ("unit", throughput) and s.units()[1]
    assert abs(completed_rate(p, s, c) / s.operations_per_second(c) - 1) < 1e-9


def test_random_platform_3878_a_root_sends_its_own_units_ahead_of_the_pipeline():
    """What keeps 3878's makespans from settling (``schedules/forest.py``, *Pacing*): of a series of 640, P5 starts
    sending the last instance to P1 (its own data first) at 1406.486 s, where the series takes 10241.080 s (16 s an
    instance)."""
    import numpy as np

    from collsched.schedules.program import SEND

    p, c = random_series(3878, "allreduce")
    s = cs.plan(p, c, algorithm="forest")
    assert s.operations_per_second(c) == F(1, 16)
    series = cs.Series(c.base, count=640)
    prog = s.lower(p, series)
    r = cs.simulate(p, prog, model=FLUID)
    start = np.asarray(r.trace.start)
    ops = np.flatnonzero((prog.op_kind == SEND) & (prog.op_rank == prog.ranks.index("P5")) &
                         (prog.op_peer == prog.ranks.index("P1")))
    last = min(start[i] for i in ops if prog.pieces[prog.piece_ptr[i], 1] == 639)
    assert last == pytest.approx(1406.486, abs=5e-4) and r.makespan == pytest.approx(10241.080, abs=5e-4)


@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_random_platform_118_trees_are_claimed_at_the_rate_their_links_carry(kind):
    """Found by the property test (dev profile): for the all-gather, splitting drops capacity at R0 and R1 and packs
    the trees at 1/8 bytes/s per root, but routed on the platform they load the most loaded link direction, P3-P2
    (0.5 bytes/s), with two trees' weights: they carry 1/4, and the series settled at exactly twice its claim of
    1/8. Scaled to 1/4 (``pack_forest``), the claim is the rate; at any higher rate P3-P2 is over its bandwidth.
    The reduce-scatter's split packed 1/4 already: the same checks hold."""
    p, c = random_series(118, kind)
    parts = list(c.base.participants)
    assert parts == ["P0", "P1", "P3", "P2"]
    f = pack_forest(p, parts, kind=kind)
    check_forest(p, f)
    assert (f.throughput, f.bound) == (F(1, 4), 1) and {t.weight for t in f.trees} == {F(1, 4)}
    assert f.note.startswith("below the cut bound by 75.000%: R0: in and out capacities differ")
    faster = dataclasses.replace(f, trees=tuple(dataclasses.replace(t, weight=t.weight * F(1000001, 10**6))
                                                for t in f.trees), throughput=f.throughput * F(1000001, 10**6))
    with pytest.raises(ScheduleError, match="^link 'P3-P2' carries 0.5"):
        check_forest(p, faster)
    s = cs.plan(p, c, algorithm="forest")
    assert (s.messages, s.chunks, s.throughput, s.status) == ("unit", 1, F(1, 4), cs.Status.FEASIBLE)
    assert s.operations_per_second(c) == F(1, 12)
    r = steady_rate(p, s, c, model=FLUID)
    assert r.settled and abs(r.rate / F(1, 12) - 1) < 1e-9


@pytest.mark.parametrize("kind", ["allgather", "reducescatter", "allreduce"])
def test_on_one_switch_one_collective_is_sent_directly_and_no_baseline_is_faster(kind):
    """dgx2(1), 1 GB: the direct routes' stars in one chunk (the pipeline model ties with the packing's rings in
    128 chunks, up to float noise, and the fewer rounds win): the bandwidth bound plus one route latency per phase
    (0.7 us), as fast as the best baseline (the study measured forest 0.1-0.4% slower before)."""
    p = cs.topologies.dgx2(1)
    c = collective(kind, list(p.hosts))
    s = cs.plan(p, c, algorithm="forest")
    assert (s.chunks, s.params["trees"], s.depth()) == (1, "direct routes", 2 if kind == "allreduce" else 1)
    ours = cs.simulate(p, s, model=FLUID).makespan
    phases = 2 if kind == "allreduce" else 1
    assert ours == pytest.approx(phases * (0.0075 + 7e-7), rel=1e-9)
    baselines = {"allgather": ["ring", "direct", "recursive_doubling"],
                 "reducescatter": ["ring", "direct", "halving_doubling"],
                 "allreduce": ["ring", "direct", "halving_doubling"]}[kind]
    for name in baselines:
        assert ours <= cs.simulate(p, cs.plan(p, c, algorithm=name), model=FLUID).makespan * (1 + 1e-9)
