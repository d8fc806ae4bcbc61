"""pack_forest / cut_bound / check_forest: the exact cut bound, trees within capacity, the GPU fabrics' optima."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched import topologies
from collsched.algorithms.gpu import Forest, Tree, check_forest, cut_bound, pack_forest
from collsched.errors import CollectiveError, PlatformError, ScheduleError
from collsched.platform import Link, Node, Platform

BANDWIDTHS = (0.25, 0.5, 1.0, 1.5, 3.0, 0.1)  # 0.1 is not a binary fraction: exactness of Fraction(float)


def random_platform(seed: int, directed: float = 0.4, shared: float = 0.1) -> Platform:
    """2 to 5 hosts and 1 or 2 routers (at most 7 nodes); full-duplex, shared and one-way links; strongly connected."""
    rng = np.random.default_rng(seed)
    n_hosts, n_routers = int(rng.integers(2, 6)), int(rng.integers(1, 3))
    names = [f"h{i}" for i in range(n_hosts)] + [f"r{i}" for i in range(n_routers)]
    nodes = [Node(n) for n in names[:n_hosts]] + [Node(n, kind="router") for n in names[n_hosts:]]
    order = [names[i] for i in rng.permutation(len(names))]
    pairs = set(zip(order, order[1:] + order[:1]))
    pairs |= {(a, b) for a in names for b in names if a < b and rng.random() < 0.3}
    links = []
    for k, (a, b) in enumerate(sorted(pairs)):
        kind = rng.random()
        links.append(Link(f"l{k}", float(rng.choice(BANDWIDTHS)), ends=(a, b), directed=bool(kind < directed),
                          sharing="shared" if directed <= kind < directed + shared else "full_duplex"))
    ring = list(zip(order, order[1:] + order[:1]))
    links += [Link(f"back{k}", float(rng.choice(BANDWIDTHS)), ends=(b, a), directed=True) for k, (a, b) in enumerate(ring)]
    return Platform(nodes, links, name=f"random-{seed}")


def brute_force_bound(p: Platform, participants) -> F:
    """min over node sets S (some participant in, some out) of B⁺(S) / |S ∩ participants|, every cut enumerated."""
    arcs = []
    for link in p.links.values():
        a, b = link.ends
        arcs.append((a, b, F(link.bandwidth)))
        if not link.directed:
            arcs.append((b, a, F(link.bandwidth)))  # a shared link's each direction: at most the whole bandwidth
    nodes, parts = list(p.nodes), set(participants)
    best = None
    for r in range(1, len(nodes)):
        for S in itertools.combinations(nodes, r):
            S = set(S)
            k = len(S & parts)
            if k == 0 or parts <= S:
                continue
            ratio = sum(c for a, b, c in arcs if a in S and b not in S) / k
            best = ratio if best is None or ratio < best else best
    return best


def participants_of(p: Platform, seed: int) -> list[str]:
    rng = np.random.default_rng(seed + 1)
    hosts = list(p.hosts)
    n = int(rng.integers(2, len(hosts) + 1))
    return [hosts[i] for i in rng.permutation(len(hosts))[:n]]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_cut_bound_equals_brute_force(seed):
    p = random_platform(seed)
    parts = participants_of(p, seed)
    x, S = cut_bound(p, parts)
    assert x == brute_force_bound(p, parts)
    # the cut returned is a tight one
    out = sum(F(l.bandwidth) for l in p.links.values() for a, b in [l.ends] + ([] if l.directed else [l.ends[::-1]])
              if a in S and b not in S)
    assert 0 < len(S & set(parts)) < len(parts)
    assert out / len(S & set(parts)) == x


def reversed_platform(p: Platform) -> Platform:
    links = [dataclasses.replace(l, ends=l.ends[::-1]) if l.directed else l for l in p.links.values()]
    return Platform(list(p.nodes.values()), links, name=p.name + "-reversed")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_reducescatter_bound_is_the_allgather_bound_of_the_reversed_fabric(seed):
    p = random_platform(seed, directed=0.6, shared=0.0)
    parts = participants_of(p, seed)
    assert cut_bound(p, parts, kind="reducescatter")[0] == cut_bound(reversed_platform(p), parts)[0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 100_000), kind=st.sampled_from(["allgather", "reducescatter"]))
def test_random_forests_check_and_say_why_below_the_bound(seed, kind):
    p = random_platform(seed)
    parts = participants_of(p, seed)
    try:
        f = pack_forest(p, parts, kind=kind)
    except ScheduleError as e:  # no capacity at all along the routes: said in one line
        assert "no" in str(e) and "\n" not in str(e)
        return
    check_forest(p, f)
    assert f.bound == cut_bound(p, parts, kind=kind)[0]
    assert 0 < f.throughput <= f.bound
    assert (f.note == "") == (f.throughput == f.bound)
    assert {t.root for t in f.trees} == set(parts)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 1000), kind=st.sampled_from(["allgather", "reducescatter"]))
def test_one_switch_of_any_bandwidths_reaches_the_bound(n, seed, kind):
    """A star: every host's link is both ways (the switch is Eulerian) and every route crosses the switch."""
    p = topologies.star(n, bandwidth=(1e9, 8e9), seed=seed)
    f = pack_forest(p, p.hosts, kind=kind)
    check_forest(p, f)
    assert f.throughput == f.bound and f.note == ""


# x* per root (bytes/s) and algorithm bandwidth N·x* (GB/s); ForestColl's own code (liangyuRain/ForestColl,
# pipeline_allgather.py, OptimalBranchingsAlgo.binary_search on topologies.py's a100_topology(2),
# mi250_topology(2), mi250_topology(4)) prints the same algbw: 346.667, 354.133, 341.333 GB/s.
KNOWN = [
    ("dgx2", 2, F(125_000_000_000, 31)),     # an odd GPU's 125 GB/s of ingress shared by 31 blocks
    ("ndv2", 2, F(1_562_500_000)),           # the one-way 12.5 GB/s link into a chassis shared by its 8 GPUs' blocks
    ("dgx_a100", 2, F(65_000_000_000, 3)),   # algbw 346.67 GB/s
    ("mi250", 2, F(33_200_000_000, 3)),      # algbw 354.13 GB/s
]


@pytest.mark.parametrize("name,size,x", KNOWN)
@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_gpu_fabrics_reach_their_optimum(name, size, x, kind):
    p = getattr(topologies, name)(size)
    f = pack_forest(p, p.hosts, kind=kind)
    assert f.bound == x and f.throughput == x and f.note == ""
    check_forest(p, f)
    for h in p.hosts:
        assert sum(t.weight for t in f.trees if t.root == h) == x


def test_dgx2_one_gigabyte_allgather_takes_te_ccl_s_7_75_ms():
    p = topologies.dgx2(2)
    x, S = cut_bound(p, p.hosts)
    assert (F(10**9) / 32) / x == F(775, 100_000)
    assert set(p.hosts) - S == {"h1"}  # h1 receives only from its NVSwitch link (odd GPUs have no inter-chassis link in)


def test_symmetric_fabric_reducescatter_equals_allgather():
    p = topologies.dgx_a100(2)
    ag, rs = pack_forest(p, p.hosts), pack_forest(p, p.hosts, kind="reducescatter")
    assert (ag.throughput, ag.bound) == (rs.throughput, rs.bound)
    # in-trees: every arc is (child, parent) and the root has no parent
    assert all(t.root not in {c for c, _ in t.arcs} for t in rs.trees)


def detour_platform() -> Platform:
    """a - b joined directly (1 byte/s) and through a switch (10 each way); the route a -> b is the direct link."""
    return Platform([Node("a"), Node("b"), Node("sw", kind="router")],
                    [Link("ab", 1.0, ends=("a", "b")), Link("as", 10.0, ends=("a", "sw")),
                     Link("bs", 10.0, ends=("b", "sw"))], name="detour")


@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_capacity_off_the_routes_gives_a_stated_gap(kind):
    p = detour_platform()
    assert p.route("a", "b") == ("ab",) and p.route("b", "a") == ("ab",)
    f = pack_forest(p, ["a", "b"], kind=kind)
    check_forest(p, f)
    assert f.bound == 11  # S = {a}: 1 + 10 leave it
    assert f.throughput == 1  # only the direct link is on a route
    assert f.note == "below the cut bound by 90.909%: sw: on no route between participants: 40 bytes/s of arc capacity dropped"
    assert all(t.arcs in ((("a", "b"),), (("b", "a"),)) for t in f.trees)


def one_way_star() -> Platform:
    """Three hosts on a switch by one-way links: 1 byte/s up, 3 bytes/s down (the switch is not Eulerian)."""
    return Platform([Node("h0"), Node("h1"), Node("h2"), Node("sw", kind="router")],
                    [Link(f"u{i}", 1.0, ends=(f"h{i}", "sw"), directed=True) for i in range(3)]
                    + [Link(f"d{i}", 3.0, ends=("sw", f"h{i}"), directed=True) for i in range(3)], name="one-way-star")


def test_non_eulerian_switch_gives_a_stated_gap_and_the_best_rate():
    """The cut bound (1: each host's uplink) assumes the switch replicates; it does not.

    Each block must reach two hosts through the switch, whose links in
    carry 3 bytes/s in all: 3 · 2x <= 3, so no schedule beats x = 1/2,
    which the trees reach (the splitting aims lower when stuck at the bound).
    """
    p = one_way_star()
    f = pack_forest(p, p.hosts)
    check_forest(p, f)
    assert (f.bound, f.throughput) == (1, F(1, 2))
    assert f.note == "below the cut bound by 50.000%: sw: in and out capacities differ: 6 bytes/s of arc capacity dropped"
    assert best_rate_along_routes(p, p.hosts, "allgather") == pytest.approx(0.5)


def random_one_way_star(seed: int) -> Platform:
    """3 to 5 hosts on a switch by one-way links of 1 to 4 bytes/s up and down, drawn independently."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 6))
    up, down = rng.integers(1, 5, n).tolist(), rng.integers(1, 5, n).tolist()
    return Platform([Node(f"h{i}") for i in range(n)] + [Node("sw", kind="router")],
                    [Link(f"u{i}", float(up[i]), ends=(f"h{i}", "sw"), directed=True) for i in range(n)]
                    + [Link(f"d{i}", float(down[i]), ends=("sw", f"h{i}"), directed=True) for i in range(n)],
                    name=f"one-way-star-{seed}")


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_one_way_stars_never_beat_the_routes_and_say_why_below_the_bound(seed, kind):
    """Seeds 0-149, both kinds (300 cases): 34 are below the cut bound, 33 of them below the LP's best along routes."""
    p = random_one_way_star(seed)
    f = pack_forest(p, p.hosts, kind=kind)
    check_forest(p, f)
    assert float(f.throughput) <= best_rate_along_routes(p, p.hosts, kind) * (1 + 1e-9)
    assert (f.note == "") == (f.throughput == f.bound)


def test_one_way_fabric_ndv2_through_a_switch_reaches_the_bound():
    """ndv2(3): one-way links GPU 0 -> ib -> GPU 1 of every chassis; the switch is Eulerian, routes consistent."""
    p = topologies.ndv2(3)
    f = pack_forest(p, p.hosts)
    check_forest(p, f)
    assert f.throughput == f.bound == F(781_250_000)


@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
@pytest.mark.parametrize("leaves", [2, 3, 4])
def test_fat_tree_with_up_down_routes_through_different_spines_reaches_the_bound(kind, leaves):
    """d-mod-k routes: at a leaf, an arc towards a spine may meet only the hosts whose routes use that spine.

    Splitting the most constrained pairs first (an arc with one allowed
    partner goes to it) keeps every arc splittable; ForestColl's plain
    order left ``fat_tree(2, 2)``'s ReduceScatter with no capacity at all.
    """
    p = topologies.fat_tree(leaves, 2)
    assert p.route("h0", "h3")[1] != p.route("h3", "h0")[2]  # up and down through different spines
    f = pack_forest(p, p.hosts, kind=kind)
    check_forest(p, f)
    assert f.throughput == f.bound and f.note == ""


@pytest.mark.parametrize("participants,error,match", [
    (["h0", "sw"], CollectiveError, "participant 'sw' is a router of platform 'star-3', not a host"),
    (["h0", "h1", "h0"], CollectiveError, "participant 'h0' is listed twice"),
    (["h0"], CollectiveError, "needs at least two participants, got 1"),
    (["h0", "zz"], CollectiveError, "participant 'zz' is not a node of platform 'star-3'"),
])
def test_bad_participants(participants, error, match):
    with pytest.raises(error, match=match):
        pack_forest(topologies.star(3), participants)
    with pytest.raises(error, match=match):
        cut_bound(topologies.star(3), participants)


def test_unreachable_participants_are_named():
    p = Platform([Node("a"), Node("b"), Node("c")],
                 [Link("ab", 1.0, ends=("a", "b")), Link("bc", 1.0, ends=("b", "c"), directed=True)], name="oneway")
    with pytest.raises(PlatformError, match="participant 'a' cannot be reached from participant 'c'"):
        pack_forest(p, ["a", "b", "c"])
    with pytest.raises(CollectiveError, match="unknown collective kind 'allreduce'"):
        pack_forest(p, ["a", "b"], kind="allreduce")


def test_check_forest_rejects_what_is_wrong():
    p = topologies.star(3, bandwidth=2)
    f = pack_forest(p, p.hosts)
    check_forest(p, f)
    t0 = f.trees[0]
    heavy = dataclasses.replace(f, trees=(dataclasses.replace(t0, weight=t0.weight * 3),) + f.trees[1:],
                                throughput=f.throughput, bound=f.bound)
    with pytest.raises(ScheduleError, match="the weights of root 'h0' sum to 3"):
        check_forest(p, heavy)
    short = dataclasses.replace(f, trees=(Tree("h0", t0.weight, t0.arcs[:1]),) + f.trees[1:])
    with pytest.raises(ScheduleError, match=r"tree 0 \(root 'h0'\): misses"):
        check_forest(p, short)
    loop = dataclasses.replace(f, trees=(Tree("h0", t0.weight, (("h1", "h2"),) + t0.arcs),) + f.trees[1:])
    with pytest.raises(ScheduleError, match="does not extend the tree"):
        check_forest(p, loop)
    # twice every weight: the sums match a doubled throughput, but the links are overloaded
    double = Forest(f.kind, f.participants, tuple(dataclasses.replace(t, weight=2 * t.weight) for t in f.trees),
                    2 * f.throughput, 2 * f.bound, "", 0.0)
    with pytest.raises(ScheduleError, match=r"link 'l\d' carries 4 bytes/s \((forward|backward)\), above its bandwidth 2"):
        check_forest(p, double)
    with pytest.raises(ScheduleError, match="exceeds the bound"):
        check_forest(p, dataclasses.replace(f, bound=f.throughput / 2))


def best_rate_along_routes(p: Platform, parts, kind: str) -> float:
    """Slow reference (HiGHS LP, floats): the best rate of any tree packing whose arcs are platform routes.

    Variables: a capacity ``y`` per ordered pair of participants whose route
    crosses no other participant (data along the route, the reverse for a
    ReduceScatter), link loads within bandwidth, and per participant ``v`` a
    flow of ``N x`` from a super source (``x`` to each participant) to ``v``
    within ``y``: Edmonds' condition on the route graph, so its optimum is
    what spanning trees along routes can reach.
    """
    from scipy.optimize import linprog

    N, index = len(parts), {h: i for i, h in enumerate(parts)}
    arcs = []
    for a in parts:
        for b in parts:
            hops = () if a == b else (p.route_hops(a, b) if kind == "allgather" else p.route_hops(b, a))
            entered = [p.links[l].ends[1 if fwd else 0] for l, fwd in hops]
            if hops and not any(n in index for n in entered[:-1]):
                arcs.append((index[a], index[b], hops))
    E = len(arcs)
    nv = 1 + E + N * (E + N)

    def f(v, k):
        return 1 + E + v * (E + N) + k

    A, bu, Aeq = [], [], []
    loads: dict = {}
    for k, (_, _, hops) in enumerate(arcs):
        for l, fwd in hops:
            loads.setdefault(l if p.links[l].sharing == "shared" else (l, fwd), []).append(k)
    for key, ks in loads.items():
        row = np.zeros(nv)
        row[[1 + k for k in ks]] = 1
        A.append(row)
        bu.append(p.links[key if isinstance(key, str) else key[0]].bandwidth)
    for v in range(N):
        for k in range(E + N):  # flow within y (arcs) or x (source arcs)
            row = np.zeros(nv)
            row[f(v, k)] = 1
            row[1 + k if k < E else 0] = -1
            A.append(row)
            bu.append(0)
        for w in range(N):  # conservation; N x arrives at v
            row = np.zeros(nv)
            for k, (a, b, _) in enumerate(arcs):
                row[f(v, k)] += (b == w) - (a == w)
            row[f(v, E + w)] += 1
            row[0] -= N * (w == v)
            Aeq.append(row)
    c = np.zeros(nv)
    c[0] = -1
    r = linprog(c, A_ub=np.array(A), b_ub=bu, A_eq=np.array(Aeq), b_eq=np.zeros(len(Aeq)), bounds=(0, None),
                method="highs")
    assert r.status == 0
    return -r.fun


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_random_meshes_reach_the_best_rate_along_routes(seed, kind):
    """Below the cut bound on random meshes is the routes' doing: the trees reach the best any route-tree packing can.

    Measured with this generator over seeds 0-39, both kinds, with and
    without one-way links (``directed`` 0 and 0.4, 160 cases): 148 are
    below the cut bound, none below this LP's optimum.
    """
    p = random_platform(seed, directed=0.0, shared=0.0)
    f = pack_forest(p, p.hosts, kind=kind)
    check_forest(p, f)
    assert float(f.throughput) == pytest.approx(best_rate_along_routes(p, p.hosts, kind), rel=1e-9)
