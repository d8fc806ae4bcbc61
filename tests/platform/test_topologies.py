"""Tests of the topology generators (collsched.topologies)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched import topologies
from collsched.errors import PlatformError
from collsched.platform import ECube, Platform, RouteTable, ShortestPath

FAST = settings(max_examples=25, deadline=None)


# --- helpers ------------------------------------------------------------------------

def check_route(p: Platform, src: str, dst: str) -> tuple[str, ...]:
    """Assert the route from src to dst is a real simple path; return the nodes it visits."""
    at, visited = src, [src]
    for link_id, forward in p.route_hops(src, dst):
        link = p.links[link_id]
        assert link.ends is not None, link_id
        assert forward or not link.directed, f"{link_id} used backwards"
        tail, head = link.ends if forward else link.ends[::-1]
        assert tail == at, f"{src}->{dst}: {link_id} starts at {tail}, not at {at}"
        at = head
        visited.append(at)
    assert at == dst, f"{src}->{dst} ends at {at}"
    assert len(set(visited)) == len(visited), f"{src}->{dst} visits a node twice: {visited}"
    return tuple(visited)


def check_all_routes(p: Platform) -> None:
    for a, b in itertools.permutations(p.hosts, 2):
        check_route(p, a, b)


def check_platform(p: Platform) -> None:
    assert isinstance(p, Platform)
    assert p.hosts == tuple(f"h{i}" for i in range(len(p.hosts)))
    assert all(link.ends is not None for link in p.links.values())
    check_all_routes(p)


def values(low: float, high: float):
    """A number or a (low, high) range within [low, high]."""
    number = st.floats(low, high)
    return st.one_of(number, st.tuples(number, number).map(lambda t: tuple(sorted(t))))


bandwidths = values(1e6, 1e10)
latencies = values(0.0, 1e-2)
speeds = values(1e6, 1e10)
seeds = st.integers(0, 2**32)


def options(**extra):
    return st.fixed_dictionaries({"bandwidth": bandwidths, "latency": latencies, "speed": speeds, "seed": seeds,
                                  **extra})


def link_values(p: Platform) -> list[tuple[float, float]]:
    return [(link.bandwidth, link.latency) for link in p.links.values()]


# --- every generator: builds, every host reaches every host by a real path ------------

@FAST
@given(st.integers(1, 12), options())
def test_star(n, kw):
    p = topologies.star(n, **kw)
    check_platform(p)
    assert p.routers == ("sw",) and len(p.hosts) == n
    assert all(p.links[f"l{i}"].ends == (f"h{i}", "sw") for i in range(n))
    assert all(len(p.route(a, b)) == 2 for a, b in itertools.permutations(p.hosts, 2))


@FAST
@given(st.integers(1, 6), options(trunk_bandwidth=bandwidths))
def test_two_switches(k, kw):
    p = topologies.two_switches(k, **kw)
    check_platform(p)
    assert len(p.hosts) == 2 * k and p.routers == ("sw0", "sw1")
    assert p.clusters == (p.hosts[:k], p.hosts[k:])
    assert "sw0-sw1" in p.route("h0", f"h{2 * k - 1}")


@FAST
@given(st.integers(1, 7), options(), st.booleans())
def test_fully_connected(n, kw, matrix):
    if matrix:
        rng = np.random.default_rng(kw["seed"])
        kw["bandwidth"] = rng.uniform(1e6, 1e9, (n, n))
    p = topologies.fully_connected(n, **kw)
    check_platform(p)
    assert p.routers == ()
    directed = matrix and n > 1
    assert len(p.links) == (n * (n - 1) if directed else n * (n - 1) // 2)
    for i, j in itertools.permutations(range(n), 2):
        assert len(p.route(f"h{i}", f"h{j}")) == 1
        if matrix:
            assert p.bandwidth(f"h{i}", f"h{j}") == kw["bandwidth"][i, j]


@FAST
@given(st.integers(0, 5), options())
def test_hypercube(d, kw):
    p = topologies.hypercube(d, **kw)
    check_platform(p)
    assert isinstance(p.routing, ECube)
    assert len(p.hosts) == 2**d and len(p.links) == d * 2 ** max(d - 1, 0)
    for a, b in itertools.permutations(range(2**d), 2):
        route = p.route(f"h{a}", f"h{b}")
        assert len(route) == bin(a ^ b).count("1")  # Hamming distance


@FAST
@given(st.lists(st.integers(1, 5), min_size=2, max_size=3), st.sampled_from(["shortest_path", "dimension_order"]),
       options())
def test_torus(dims, routing, kw):
    p = topologies.torus(tuple(dims), routing=routing, **kw)
    check_platform(p)
    assert len(p.hosts) == math.prod(dims)
    # one link per neighbour pair: n per dimension line if n > 2, 1 if n == 2, none if n == 1
    per_dim = [(n if n > 2 else n - 1) * math.prod(dims) // n for n in dims]
    assert len(p.links) == sum(per_dim)
    diameter = max(len(p.route(a, b)) for a, b in itertools.permutations(p.hosts, 2)) if len(p.hosts) > 1 else 0
    assert diameter == sum(n // 2 for n in dims)


@FAST
@given(st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), st.sampled_from(["d_mod_k", "shortest_path"]),
       options(trunk_latency=latencies))
def test_fat_tree(k, h, spines, routing, kw):
    p = topologies.fat_tree(k, h, spines=spines, routing=routing, **kw)
    check_platform(p)
    assert len(p.hosts) == k * h
    assert len(p.routers) == k + spines
    assert len(p.links) == k * h + k * spines
    for (i, a), (j, b) in itertools.permutations(enumerate(p.hosts), 2):
        route = p.route(a, b)
        if i // h == j // h:
            assert len(route) == 2
        else:
            assert len(route) == 4
            spine = j % spines if routing == "d_mod_k" else 0
            assert route[1] == f"leaf{i // h}-spine{spine}"


@st.composite
def rings(draw):
    n = draw(st.integers(1, 8))
    counts = draw(st.one_of(st.integers(1, 3), st.lists(st.integers(0, 3), min_size=n, max_size=n)
                            .filter(lambda c: sum(c) > 0)))
    pairs = [(i, j) for i in range(n) for j in range(i + 2, n) if (i, j) != (0, n - 1)]
    skips = list(range(2, n - 1))
    chords = draw(st.one_of(st.none(), st.lists(st.sampled_from(pairs), unique=True) if pairs else st.none(),
                            st.lists(st.sampled_from(skips), min_size=1) if skips else st.none()))
    return n, counts, chords


@FAST
@given(rings(), options())
def test_switch_ring(ring, kw):
    n, counts, chords = ring
    p = topologies.switch_ring(n, counts, chords=chords, **kw)
    check_platform(p)
    total = counts * n if isinstance(counts, int) else sum(counts)
    assert len(p.hosts) == total and p.routers == tuple(f"sw{i}" for i in range(n))
    ring_links = [link for link in p.links if link.startswith("r")]
    assert len(ring_links) == (n if n > 2 else n - 1)
    if isinstance(chords, list) and chords and isinstance(chords[0], tuple):
        assert sorted(link for link in p.links if link.startswith("c")) == sorted(f"c{i}-{j}" for i, j in chords)
    # a switch-level shortest path: never longer than half the ring plus the two host links
    assert all(len(p.route(a, b)) <= n // 2 + 2 for a, b in itertools.permutations(p.hosts, 2))


@FAST
@given(st.lists(st.integers(1, 4), min_size=1, max_size=5), st.sampled_from(["mesh", "core"]),
       st.fixed_dictionaries({"intra_bandwidth": bandwidths, "intra_latency": latencies,
                              "inter_bandwidth": bandwidths, "inter_latency": latencies, "speed": speeds,
                              "seed": seeds}))
def test_grid_of_clusters(sizes, wan, kw):
    p = topologies.grid_of_clusters(sizes, wan=wan, **kw)
    check_platform(p)
    assert [len(c) for c in p.clusters] == sizes
    assert sorted(h for c in p.clusters for h in c) == sorted(p.hosts)
    for j, cluster in enumerate(p.clusters):  # homogeneous clusters
        assert len({(p.links[f"l{h[1:]}"].bandwidth, p.nodes[h].speed) for h in cluster}) == 1
        assert all(p.links[f"l{h[1:]}"].ends == (h, f"c{j}-sw") for h in cluster)
    for (ja, ca), (jb, cb) in itertools.permutations(enumerate(p.clusters), 2):
        expected = ["l", f"w{min(ja, jb)}-{max(ja, jb)}", "l"] if wan == "mesh" else ["l", f"w{ja}", f"w{jb}", "l"]
        route = p.route(ca[0], cb[-1])
        assert [r if r.startswith("w") else "l" for r in route] == expected


@FAST
@given(st.fixed_dictionaries({
    "wan_nodes": st.integers(1, 6), "mans": st.integers(1, 3), "man_nodes": st.integers(1, 5),
    "lans_per_man": st.integers(1, 3), "lan_hosts": st.integers(1, 3), "wan_redundancy": st.integers(1, 4),
    "man_redundancy": st.integers(1, 4), "man_wan_redundancy": st.integers(1, 3),
    "lan_man_redundancy": st.integers(1, 3), "metric": st.sampled_from(["latency", "hops"]), "seed": seeds}))
def test_tiers(kw):
    p = topologies.tiers(**kw)
    check_platform(p)
    level = {prefix: [r for r in p.routers if r.startswith(prefix)] for prefix in ("wan", "man", "lan")}
    assert len(level["wan"]) == kw["wan_nodes"]
    assert len(level["man"]) == kw["mans"] * kw["man_nodes"]
    assert len(level["lan"]) == kw["mans"] * kw["lans_per_man"]
    assert len(p.hosts) == kw["mans"] * kw["lans_per_man"] * kw["lan_hosts"]
    assert len(p.nodes) == len(p.hosts) + sum(map(len, level.values()))
    for h in p.hosts:  # hosts hang off LAN routers, one link each
        (neighbour, _), = p.neighbours(h)
        assert neighbour.startswith("lan")
    wan_degree = [sum(w.startswith("wan") for w, _ in p.neighbours(r)) for r in level["wan"]]
    assert min(wan_degree) >= min(kw["wan_redundancy"], kw["wan_nodes"] - 1)
    assert len([link for link in p.links if link.startswith("wan")]) >= kw["wan_nodes"] - 1


def test_tiers_defaults_are_seed_000_flavour():
    p = topologies.tiers()
    assert 25 <= len(p.nodes) <= 35 and len(p.hosts) < len(p.nodes)
    assert len({link.bandwidth for link in p.links.values()}) == len(p.links)  # heterogeneous
    assert len({p.nodes[h].speed for h in p.hosts}) == len(p.hosts)
    assert p.routing == ShortestPath("latency")


@FAST
@given(st.integers(2, 30), seeds)
def test_tiers_spanning_tree_is_minimum(n, seed):
    from scipy.sparse.csgraph import minimum_spanning_tree

    from collsched.platform.topologies.tiers import _prim

    xy = np.random.default_rng(seed).uniform(0, 1, (n, 2))
    dist = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    edges = _prim(dist)
    assert len(edges) == n - 1 and len({j for _, j in edges}) == n - 1
    assert math.isclose(sum(dist[i, j] for i, j in edges), minimum_spanning_tree(dist).sum())


# --- determinism -------------------------------------------------------------------------

RANDOM = [
    lambda seed: topologies.star(5, bandwidth=(1e6, 1e9), seed=seed),
    lambda seed: topologies.two_switches(3, latency=(0.0, 1e-3), seed=seed),
    lambda seed: topologies.fully_connected(4, speed=(1e8, 1e9), seed=seed),
    lambda seed: topologies.hypercube(3, bandwidth=(1e6, 1e9), seed=seed),
    lambda seed: topologies.torus((3, 4), latency=(1e-6, 1e-5), seed=seed),
    lambda seed: topologies.fat_tree(3, 2, trunk_bandwidth=(1e8, 1e10), seed=seed),
    lambda seed: topologies.switch_ring(6, 2, chords=3, bandwidth=(8e7, 9e7), seed=seed),
    lambda seed: topologies.grid_of_clusters([2, 3, 2], seed=seed),
    lambda seed: topologies.tiers(seed=seed),
]


@pytest.mark.parametrize("make", RANDOM)
def test_same_seed_same_platform(make):
    assert make(3) == make(3)
    assert make(3).route("h0", "h1") == make(3).route("h0", "h1")


@pytest.mark.parametrize("make", RANDOM)
def test_different_seed_different_platform(make):
    assert link_values(make(1)) != link_values(make(2)) or \
        [n.speed for n in make(1).nodes.values()] != [n.speed for n in make(2).nodes.values()]


def test_tiers_seed_changes_the_graph():
    shapes = {tuple(sorted(topologies.tiers(seed=s).links)) for s in range(10)}
    assert len(shapes) > 1


def test_constant_values_ignore_the_seed():
    assert link_values(topologies.star(3, seed=1)) == link_values(topologies.star(3, seed=2))


# --- specific facts ------------------------------------------------------------------------

def test_documented_names_and_routes():
    assert topologies.star(3).route("h0", "h1") == ("l0", "l1")
    assert sorted(topologies.star(3).graph().successors("sw")) == ["h0", "h1", "h2"]
    assert topologies.hypercube(3).route("h0", "h7") == ("e0-1", "e1-3", "e3-7")
    assert topologies.hypercube(3).links["e2-6"].ends == ("h2", "h6")


def test_torus_size_two_dimension_has_no_duplicate_link():
    p = topologies.torus((2, 3))
    assert len(p.links) == 3 + 6  # 3 single links along the size-2 dimension, 2 rings of 3
    assert len({frozenset(link.ends) for link in p.links.values()}) == len(p.links)


def test_torus_dimension_order_corrects_first_dimension_first():
    p = topologies.torus((4, 4, 4), routing="dimension_order")
    assert isinstance(p.routing, RouteTable)
    coords = lambda h: np.unravel_index(int(h[1:]), (4, 4, 4))  # noqa: E731
    nodes = check_route(p, "h0", "h63")  # (0,0,0) -> (3,3,3): one step back in each dimension
    changed = [int(np.flatnonzero(np.subtract(coords(a), coords(b)))[0]) for a, b in zip(nodes, nodes[1:])]
    assert changed == [0, 1, 2]
    assert len(p.route("h0", "h42")) == 6  # (0,0,0) -> (2,2,2): 2 + 2 + 2, the + way on ties


def test_swiss_t1_like_ring():
    p = topologies.switch_ring(8, 4, chords=[(0, 4), (2, 6)], bandwidth=86e6)
    assert len(p.hosts) == 32 and len(p.routers) == 8
    assert {link.bandwidth for link in p.links.values()} == {86e6}
    assert p.route("h0", "h16") == ("l0", "c0-4", "l16")


def test_switch_ring_skip_distances_dedupe():
    p = topologies.switch_ring(6, 1, chords=[3, 2])
    chords = sorted(link for link in p.links if link.startswith("c"))
    assert chords == ["c0-2", "c0-3", "c0-4", "c1-3", "c1-4", "c1-5", "c2-4", "c2-5", "c3-5"]


def test_fully_connected_symmetric_matrix_gives_undirected_links():
    lat = [[0, 1e-3, 2e-3], [1e-3, 0, 3e-3], [2e-3, 3e-3, 0]]
    p = topologies.fully_connected(3, latency=lat)
    assert not any(link.directed for link in p.links.values())
    assert p.latency("h2", "h1") == 3e-3


def test_grid_asymmetric_matrix_gives_directed_wan():
    bw = np.array([[0, 1e6], [5e6, 0]])
    p = topologies.grid_of_clusters([2, 2], inter_bandwidth=bw)
    assert p.bandwidth("h0", "h2") == 1e6 and p.bandwidth("h2", "h0") == 5e6
    assert p.links["w1-0"].directed


def test_values_with_units():
    p = topologies.star(2, bandwidth="1Gbps", latency=("1us", "2us"), speed="2Gf")
    assert p.links["l0"].bandwidth == 1.25e8 and 1e-6 <= p.links["l0"].latency <= 2e-6
    assert p.nodes["h0"].speed == 2e9


def test_numpy_sizes_and_counts():
    assert len(topologies.torus(np.array([3, 3])).hosts) == 9
    assert topologies.grid_of_clusters(np.array([1, 2])).clusters == (("h0",), ("h1", "h2"))
    assert len(topologies.switch_ring(np.int64(3), np.array([1, 0, 2])).hosts) == 3


def test_name_option():
    assert topologies.star(2).name == "star-2"
    assert topologies.star(2, name="mine").name == "mine"


# --- bad options ---------------------------------------------------------------------------

BAD = [
    (topologies.star, (0,), {}, "n"),
    (topologies.star, (2.5,), {}, "n"),
    (topologies.star, (True,), {}, "n"),
    (topologies.star, (3,), {"bandwidth": 0}, "bandwidth"),
    (topologies.star, (3,), {"bandwidth": (2e8, 1e8)}, "bandwidth"),
    (topologies.star, (3,), {"latency": -1e-6}, "latency"),
    (topologies.star, (3,), {"latency": float("nan")}, "latency"),
    (topologies.star, (3,), {"speed": "fast"}, "speed"),
    (topologies.star, (3,), {"bandwidth": "10us"}, "bandwidth"),
    (topologies.star, (3,), {"seed": -1}, "seed"),
    (topologies.star, (3,), {"name": ""}, "name"),
    (topologies.two_switches, (2,), {"trunk_bandwidth": -5}, "trunk_bandwidth"),
    (topologies.fully_connected, (3,), {"bandwidth": [[1, 2], [3, 4]]}, "bandwidth"),
    (topologies.fully_connected, (2,), {"latency": [[0, -1], [1, 0]]}, "latency[0][1]"),
    (topologies.hypercube, (-1,), {}, "d"),
    (topologies.hypercube, (17,), {}, "d"),
    (topologies.torus, ((4, 0),), {}, "dims[1]"),
    (topologies.torus, ("44",), {}, "dims"),
    (topologies.torus, ((4, 4),), {"routing": "xy"}, "routing"),
    (topologies.torus, ((1000, 1000),), {}, "dims"),
    (topologies.fat_tree, (2, 0), {}, "hosts_per_leaf"),
    (topologies.fat_tree, (2, 2), {"spines": 0}, "spines"),
    (topologies.fat_tree, (2, 2), {"routing": "ecmp"}, "routing"),
    (topologies.switch_ring, (0, 1), {}, "switches"),
    (topologies.switch_ring, (3, [1, 1]), {}, "hosts_per_switch"),
    (topologies.switch_ring, (3, [0, 0, 0]), {}, "hosts_per_switch"),
    (topologies.switch_ring, (3, [1, -1, 1]), {}, "hosts_per_switch[1]"),
    (topologies.switch_ring, (6, 1), {"chords": 1}, "chords[0]"),
    (topologies.switch_ring, (3, 1), {"chords": 2}, "chords"),
    (topologies.switch_ring, (6, 1), {"chords": [(0, 1)]}, "chords[0]"),
    (topologies.switch_ring, (6, 1), {"chords": [(0, 3), (3, 0)]}, "chords[1]"),
    (topologies.switch_ring, (6, 1), {"chords": [(0, 6)]}, "chords[0]"),
    (topologies.switch_ring, (6, 1), {"chords": [(2, 2)]}, "chords[0]"),
    (topologies.switch_ring, (6, 1), {"chords": "0-3"}, "chords"),
    (topologies.grid_of_clusters, ([],), {}, "sizes"),
    (topologies.grid_of_clusters, ([2, 0],), {}, "sizes[1]"),
    (topologies.grid_of_clusters, ([2, 2],), {"wan": "bus"}, "wan"),
    (topologies.grid_of_clusters, ([2, 2],), {"intra_latency": -1}, "intra_latency"),
    (topologies.grid_of_clusters, ([2, 2],), {"inter_bandwidth": [[0, 1e6], [1e6, 0]], "wan": "core"},
     "inter_bandwidth"),
    (topologies.tiers, (), {"wan_nodes": 0}, "wan_nodes"),
    (topologies.tiers, (), {"lan_man_redundancy": 0}, "lan_man_redundancy"),
    (topologies.tiers, (), {"wan_extent": 0}, "wan_extent"),
    (topologies.tiers, (), {"metric": "cost"}, "metric"),
    (topologies.tiers, (), {"man_bandwidth": (1, 2, 3)}, "man_bandwidth"),
]


@pytest.mark.parametrize(("make", "args", "kwargs", "option"), BAD,
                         ids=[f"{m.__name__}-{o}-{i}" for i, (m, _, _, o) in enumerate(BAD)])
def test_bad_option_raises_platform_error_naming_it(make, args, kwargs, option):
    with pytest.raises(PlatformError) as info:
        make(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{make.__name__}: {option} "), message


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        topologies.star(3, 1e9)  # type: ignore[misc]
