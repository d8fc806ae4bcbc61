"""Routes of message pairs: the vectorised shortest-path fast path reads the same routes as the platform."""

from __future__ import annotations

import numpy as np
import pytest

import collsched as cs
from collsched.errors import PlatformError
from collsched.platform import Link, Node, Platform
from collsched.platform.routing import ShortestPath
from collsched.platform import routes as R
from collsched.simulation.routes import link_busy


def every_pair(p: Platform, ranks):
    n = len(ranks)
    return np.repeat(np.arange(n), n), np.tile(np.arange(n), n)


@pytest.mark.parametrize("platform", [
    cs.topologies.star(12), cs.topologies.two_switches(4), cs.topologies.hypercube(3),
    cs.topologies.fat_tree(3, 3), cs.topologies.tiers(seed=2),
    Platform([Node(f"h{i}") for i in range(4)],
             [Link("01", 1e9, ends=("h0", "h1")), Link("02", 1e9, 1.0, ends=("h0", "h2")),
              Link("13", 1e9, ends=("h1", "h3")), Link("23", 1e9, ends=("h2", "h3"))], ShortestPath("latency")),
], ids=lambda p: p.name)
def test_fast_path_reads_the_platform_routes(platform):
    for ranks in (platform.hosts, platform.hosts + platform.routers[:2]):
        src, dst = every_pair(platform, ranks)
        fast = R.pair_routes(platform, ranks, src, dst)
        ptr, link, fwd = R._routes_one_by_one(platform, ranks, src, dst)
        assert np.array_equal(fast.hop_ptr, ptr) and np.array_equal(fast.hop_link, link)
        assert np.array_equal(fast.hop_fwd, fwd)
        for k in range(0, fast.n_pairs, 7):
            a, b = ranks[src[k]], ranks[dst[k]]
            if a in platform.hosts and b in platform.hosts:
                assert fast.hops(k) == list(platform.route_hops(a, b))
                assert fast.latency[k] == pytest.approx(platform.latency(a, b))
                assert fast.bandwidth[k] == platform.bandwidth(a, b)


def test_unreachable_pairs_raise_on_both_paths():
    p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))], name="split")
    with pytest.raises(PlatformError, match="'c' is unreachable from node 'a'"):   # many pairs: the fast path
        R.pair_routes(p, p.hosts, [0] * 5, [1, 1, 1, 1, 2])
    with pytest.raises(PlatformError, match="unreachable"):                       # one by one
        R.pair_routes(p, p.hosts, [0], [2])


def test_link_busy_counts_directions_apart_on_full_duplex_links():
    p = cs.topologies.star(2, bandwidth=100.0)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=100)
    b.send("h1", "h0", [], size=300)
    assert link_busy(p, b.build()).tolist() == [3.0, 3.0]


def _shuffled_hypercube(d: int, seed: int):
    """Addresses permuted over the node names, links declared in random order and orientation."""
    from collsched.platform import ECube

    rng = np.random.default_rng(seed)
    size = 1 << d
    address = {f"n{i}": int(a) for i, a in enumerate(rng.permutation(size))}
    node = {a: n for n, a in address.items()}
    pairs = [(x, x ^ (1 << k)) for x in range(size) for k in range(d) if x < x ^ (1 << k)]
    links = [Link(f"l{j}", 1e9, ends=(node[a], node[b]) if rng.random() < 0.5 else (node[b], node[a]))
             for j, (a, b) in enumerate(pairs[i] for i in rng.permutation(len(pairs)))]
    return Platform([Node(n) for n in address], links, ECube(address))


@pytest.mark.parametrize("fast_routes, p", [
    (R._dmodk_routes, cs.topologies.fat_tree(3, 3, spines=2)),
    *((R._ecube_routes, p) for p in (cs.topologies.hypercube(1), cs.topologies.hypercube(3),
                                     _shuffled_hypercube(2, 0), _shuffled_hypercube(4, 1)))],
    ids=lambda x: f"{len(x.hosts)}-{x.name}" if isinstance(x, Platform) else x.__name__)
def test_fast_paths_match_the_routing(fast_routes, p):
    """The d-mod-k and e-cube routes of every pair, vectorised, are those of routing pair by pair."""
    n = len(p.hosts)
    src = np.repeat(np.arange(n), n)
    dst = np.tile(np.arange(n), n)
    fast = fast_routes(p, p.hosts, src, dst)
    assert fast is not None
    ptr, link, fwd = R._routes_one_by_one(p, p.hosts, src, dst)
    assert np.array_equal(fast[0], ptr) and np.array_equal(fast[1], link) and np.array_equal(fast[2], fwd)


@pytest.mark.parametrize("seed", range(5))
def test_repeated_channels_are_found_without_a_sort(seed):
    """``repeats`` (compare each hop with the ``longest - 1`` before it) answers as a sort of every key does."""
    from collsched.simulation.routes import repeats

    rng = np.random.default_rng(seed)
    for _ in range(200):
        lengths = rng.integers(0, 6, size=rng.integers(1, 8))
        longest = int(lengths.max())
        keys = np.concatenate([100 * pair + rng.integers(0, 2 * max(k, 1), size=k)
                               for pair, k in enumerate(lengths)]).astype(np.int64)
        ordered = np.sort(keys)
        assert repeats(keys, longest) == bool(np.any(ordered[1:] == ordered[:-1])), (keys, longest)


def test_link_busy_from_the_context_is_the_function_s():
    from collsched.simulation.compile import Context

    p = cs.topologies.fat_tree(3, 3)
    b = cs.ProgramBuilder(p.hosts)
    for i, a in enumerate(p.hosts):
        b.send(a, p.hosts[(i * 4 + 1) % len(p.hosts)], [], size=10 * (i + 1))
    prog = b.build()
    ctx = Context(prog, p)
    assert ctx.link_busy().tolist() == link_busy(p, prog).tolist()
