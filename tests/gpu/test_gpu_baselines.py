"""The NCCL/MPI baselines of AllGather, ReduceScatter and AllReduce: one shared battery over every baseline × kind.

Every baseline's program must pass ``collsched.validate`` for N = 2..9, single and ``Series``, under every
synchronisation mode, commutative and (where the baseline keeps operand order) ordered; what cannot keep
the order raises one line. A hypothesis test runs them on random platforms (heterogeneous, one-way links,
routers, random clusters) with random participant orders.
"""

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms import registry
from collsched.algorithms.baselines.double_binary_tree import btree
from collsched.bounds import collective_bound
from collsched.compare import compare
from collsched.platform.model import Platform
from collsched.schedules import StepSchedule
from collsched.schedules.steps import SYNC_MODES
from steady_state.random_platforms import random_platform
from test_cli import run

KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}
BASELINES = {  # name -> kinds it applies to
    "ring": ("allgather", "reducescatter", "allreduce"),
    "direct": ("allgather", "reducescatter", "allreduce"),
    "recursive_doubling": ("allgather",),
    "halving_doubling": ("reducescatter", "allreduce"),
    "double_binary_tree": ("allreduce",),
    "hierarchical": ("allgather", "reducescatter", "allreduce"),
}
TOL = 1e-9


def keeps_order(name, n):
    """Whether baseline ``name`` supports commutative=False over n participants."""
    return name == "direct" or (name == "double_binary_tree" and n % 2 == 0)


def make(kind, hosts, size=1e3, commutative=True, task_cost=7.0):
    if kind == "allgather":
        return cs.AllGather(participants=hosts, size=size)
    return KINDS[kind](participants=hosts, size=size, task_cost=task_cost, commutative=commutative)


def programs(p, c, s):
    if isinstance(s, StepSchedule):
        return [s.lower(p, c, sync=sync) for sync in SYNC_MODES]
    return [s.lower(p, c)]


def check(p, c, name, **options):
    """Plan, validate every lowering; the post_all (or only) program simulates under Fluid above the bound."""
    s = cs.plan(p, c, algorithm=name, **options)
    progs = programs(p, c, s)
    for prog in progs:
        cs.validate(p, c, prog)
    r = cs.simulate(p, progs[-1], c, model=cs.models.Fluid())
    bound = collective_bound(p, c, model=cs.models.Fluid()).value
    if c.kind == "series":
        assert r.throughput <= bound * (1 + TOL), (name, r.throughput, bound)
    else:
        assert math.isfinite(r.makespan) and r.makespan >= bound * (1 - TOL), (name, r.makespan, bound)
    return s


def test_the_registry_lists_the_baselines_by_kind():
    for kind, cls in KINDS.items():
        c = make(kind, ["h0", "h1"])
        names = {a.name for a in registry.applicable(c) if a.family == "baselines"}
        assert names == {name for name, kinds in BASELINES.items() if kind in kinds}
        assert names == {a.name for a in registry.applicable(cs.Series(c, count=2)) if a.family == "baselines"}


# --- the battery: every baseline x kind x N x operator x single/series ----------------------------

@pytest.mark.parametrize("n", range(2, 10))
@pytest.mark.parametrize("kind", KINDS)
def test_every_baseline_validates(n, kind):
    p = cs.topologies.star(n, seed=n)
    hosts = list(p.hosts[1::2] + p.hosts[::2])  # not in host order
    for name, kinds in BASELINES.items():
        if kind not in kinds:
            continue
        for commutative in (True, False) if kind != "allgather" else (True,):
            for count in (1, 3):
                c = make(kind, hosts, commutative=commutative)
                c = c if count == 1 else cs.Series(c, count=count)
                if commutative or keeps_order(name, n):
                    check(p, c, name)
                else:
                    with pytest.raises(cs.errors.ScheduleError, match="cannot keep operand order|keeps operand order"):
                        cs.plan(p, c, algorithm=name)


@pytest.mark.parametrize("channels", [2, 3])
@pytest.mark.parametrize("kind", KINDS)
def test_channels_validate(kind, channels):
    p = cs.topologies.star(5)
    for name in ("ring", "hierarchical"):
        for c in (make(kind, p.hosts[::-1]), cs.Series(make(kind, p.hosts[::-1]), count=2)):
            s = check(p, c, name, channels=channels)
            assert s.params["channels"] == channels


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_double_binary_tree_chunks_validate(chunks):
    p = cs.topologies.star(6)
    for commutative in (True, False):
        s = check(p, make("allreduce", p.hosts, commutative=commutative), "double_binary_tree", chunks=chunks)
        assert s.denominator == 2 * chunks


@pytest.mark.parametrize("fabric", [cs.topologies.dgx2(2), cs.topologies.dgx_a100(2), cs.topologies.mi250(2)],
                         ids=["dgx2-2", "dgx-a100-2", "mi250-2"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_baseline_on_a_gpu_fabric_with_boxes(fabric, kind):
    c = make(kind, fabric.hosts, size=2**20, task_cost=0.0)
    for name, kinds in BASELINES.items():
        if kind in kinds:
            cs.validate(fabric, c, programs(fabric, c, cs.plan(fabric, c, algorithm=name))[-1])


# --- hypothesis: random platforms, random orders, random clusters ----------------------------------

@st.composite
def cases(draw):
    family = draw(st.sampled_from(["random", "star", "clustered", "hypercube", "tiers"]))
    seed = draw(st.integers(0, 40))
    if family == "random":
        p = random_platform(seed)
    elif family == "hypercube":
        p = cs.topologies.hypercube(draw(st.integers(1, 3)), seed=seed)
    elif family == "tiers":
        p = cs.topologies.tiers(seed=seed)
    else:
        boxes, per_box = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        star = cs.topologies.star(max(2, boxes * per_box), seed=seed)
        clusters = None
        if family == "clustered":
            shuffled = draw(st.permutations(star.hosts))
            clusters = [shuffled[b::boxes] for b in range(boxes)] if len(shuffled) == boxes * per_box else None
        p = Platform(list(star.nodes.values()), list(star.links.values()), star.routing, name="star",
                     clusters=clusters)
    hosts = draw(st.permutations(p.hosts))
    if p.clusters is None:
        hosts = hosts[:draw(st.integers(2, min(len(hosts), 8)))]
    kind = draw(st.sampled_from(sorted(KINDS)))
    c = make(kind, hosts, size=draw(st.sampled_from([1.0, 1e3, 1e6])), commutative=draw(st.booleans()),
             task_cost=draw(st.sampled_from([0.0, 1e3])))
    count = draw(st.sampled_from([1, 1, 2]))
    return p, (c if count == 1 else cs.Series(c, count=count))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.data(), st.integers(1, 3))
def test_every_baseline_validates_on_random_platforms(case, data, option):
    p, c = case
    name = data.draw(st.sampled_from(sorted(n for n, kinds in BASELINES.items() if c.base.kind in kinds)))
    n = len(c.base.participants)
    options = {"channels": option} if name in ("ring", "hierarchical") else \
        {"chunks": option} if name == "double_binary_tree" else {}
    if getattr(c.base, "commutative", True) or keeps_order(name, n):
        check(p, c, name, **options)
    else:
        with pytest.raises(cs.errors.ScheduleError):
            cs.plan(p, c, algorithm=name, **options)


# --- exact structure -------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 9, 16])
def test_step_counts_and_bytes(n):
    p = cs.topologies.star(n)
    size = 1e3 * n
    ar, rs = make("allreduce", p.hosts, size=size), make("reducescatter", p.hosts, size=size / n)
    m = 1 << (n.bit_length() - 1)
    q, fold = m.bit_length() - 1, (2 if m != n else 0)
    for k in (1, 2, 3):
        s = cs.plan(p, ar, algorithm="ring", channels=k)
        assert (len(s), s.n_transfers, s.denominator) == (2 * (n - 1), 2 * (n - 1) * n * k, n * k)
        # every participant sends 2(N-1)/N of the vector
        assert s.lower(p, ar, sync="post_all").bytes_sent == pytest.approx(2 * (n - 1) * size, rel=1e-12)
        assert len(cs.plan(p, rs, algorithm="ring", channels=k)) == n - 1
    assert len(cs.plan(p, ar, algorithm="halving_doubling")) == 2 * q + fold
    assert len(cs.plan(p, rs, algorithm="halving_doubling")) == q + fold
    if m == n:  # each participant sends (N-1)/N of the vector halving, as much doubling
        assert cs.plan(p, ar, algorithm="halving_doubling").lower(p, ar, sync="post_all").bytes_sent == \
            pytest.approx(2 * (n - 1) * size, rel=1e-12)


def test_nccl_binary_tree_is_ncclGetBtree():
    # the illustration of NCCL's src/graph/trees.cc for 14 ranks
    t = btree(14)
    assert t[0] == [8] and t[8] == [4, 12] and t[4] == [2, 6] and t[12] == [10, 13]
    assert t[2] == [1, 3] and t[6] == [5, 7] and t[10] == [9, 11] and t[13] == []


def test_double_binary_tree_trees_are_complementary():
    """Mirror for even N: no rank is interior in both trees; shift for odd N: only P_0 is (ncclGetDtree)."""
    for n in (8, 9, 14, 15):
        p = cs.topologies.star(n)
        s = cs.plan(p, make("allreduce", p.hosts), algorithm="double_binary_tree", chunks=1)
        whole = (1 << n) - 1
        # interior in the tree of half h = receives partial reductions of half h
        interior = [{t.dst for step in s.steps for t in step if t.part[0] == half and t.values[0].a != whole}
                    for half in (0, 1)]
        assert interior[0] & interior[1] == (set() if n % 2 == 0 else {"h0"}), n


def test_errors_are_one_line():
    p = cs.topologies.star(4)
    ordered = make("allreduce", p.hosts, commutative=False)
    for name in ("ring", "halving_doubling", "hierarchical"):
        with pytest.raises(cs.errors.ScheduleError) as info:
            cs.plan(p, ordered, algorithm=name)
        assert str(info.value) == (f"{name} cannot keep operand order: a non-commutative allreduce needs direct or "
                                   "double_binary_tree (or commutative=True)")
    with pytest.raises(cs.errors.ScheduleError, match="only for an even number of participants, not 3"):
        cs.plan(p, make("allreduce", p.hosts[:3], commutative=False), algorithm="double_binary_tree")
    for name, option in (("ring", "channels"), ("hierarchical", "channels"), ("double_binary_tree", "chunks")):
        with pytest.raises(ValueError, match=f"^{name} option {option}=0 is not an integer >= 1$"):
            cs.plan(p, make("allreduce", p.hosts), algorithm=name, **{option: 0})
    g = cs.topologies.dgx_a100(2)
    with pytest.raises(cs.errors.ScheduleError, match="as many participants in every box, not 1 and 2"):
        cs.plan(g, make("allreduce", ["h0", "h1", "h8"]), algorithm="hierarchical")


def test_hierarchical_moves_one_slice_between_boxes():
    """On dgx-a100-2 (2 boxes of 8): per GPU, 1/8 of the vector crosses boxes each way (a 2-member ring all-reduce)."""
    g = cs.topologies.dgx_a100(2)
    c = make("allreduce", g.hosts, size=8e6)
    s = cs.plan(g, c, algorithm="hierarchical")
    box = {h: i for i, cl in enumerate(g.clusters) for h in cl}
    across = sum((t.part[1] - t.part[0]) / s.denominator * c.size for step in s.steps for t in step
                 if box[t.src] != box[t.dst])
    assert across == pytest.approx(16 * 2 * (1 / 2) * c.size / 8, rel=1e-12)  # RS + AG of 1/8 over 2 boxes


# --- compare and the CLI show them ------------------------------------------------------------------

def test_compare_collects_them_by_kind(tmp_path, capsys):
    g = cs.topologies.dgx2(1)
    for kind in ("reducescatter", "allreduce"):
        c = make(kind, g.hosts[:8], size=2**20, task_cost=0.0)
        cmp = compare(g, c, model=cs.models.Fluid())
        names = {x.algorithm for x in cmp.candidates}
        assert {n for n, kinds in BASELINES.items() if kind in kinds} <= names
        assert all(x.valid for x in cmp.candidates if x.algorithm in BASELINES), [x.error for x in cmp.candidates]
    assert run(["platform", "generate", "dgx2", "-p", "chassis=1", "-o", str(tmp_path / "g.json")], capsys)[0] == 0
    assert run(["collective", "new", "allreduce", "--participants", "h0,h1,h2,h3", "--size", "1MB",
                "-o", str(tmp_path / "c.json")], capsys)[0] == 0
    code, out, err = run(["compare", str(tmp_path / "g.json"), str(tmp_path / "c.json")], capsys)
    assert code == 0, err
    for name in ("ring", "direct", "halving_doubling", "double_binary_tree", "hierarchical"):
        assert name in out


@pytest.mark.mpi
def test_the_reduction_baselines_run_verified_over_mpi():
    """Real buffers, real sums (and ordered products), one MPI job: every result checked byte for byte."""
    from collsched.runtime import run_many

    p = cs.topologies.star(5, bandwidth="1GBps", latency="1us")
    order = ["h2", "h0", "h3", "h1", "h4"]
    items = [(cs.plan(p, c, algorithm=name, **options), c)
             for c in (cs.ReduceScatter(participants=order, size=4096, task_cost=1e4),
                       cs.AllReduce(participants=order, size=8190, task_cost=1e4))
             for name, options in (("ring", {"channels": 2}), ("halving_doubling", {}), ("hierarchical", {}))]
    ordered = cs.AllReduce(participants=order[:4], size=8192, commutative=False)
    items.append((cs.plan(p, ordered, algorithm="double_binary_tree"), ordered))
    results = run_many(p, items, repeat=1, timeout=120)
    assert [(s.algorithm, r.verified, r.problems) for (s, _), r in zip(items, results)] == \
        [(s.algorithm, True, ()) for s, _ in items]
