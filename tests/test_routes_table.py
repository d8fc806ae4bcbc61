"""pair_routes read off the table of every host pair equals pair_routes routed pair by pair, for every routing."""

from __future__ import annotations

import numpy as np
import pytest

import collsched as cs
from collsched.platform import routes
from collsched.platform.routes import pair_routes


def platforms():
    yield cs.topologies.star(6)
    yield cs.topologies.hypercube(3)                       # e-cube
    yield cs.topologies.fat_tree(3, 3)                     # shortest paths
    yield cs.topologies.fat_tree(3, 3, routing="d_mod_k")
    yield cs.topologies.fat_tree(4, 3, spines=3, routing="d_mod_k")   # destinations spread over the spines
    yield cs.topologies.torus((3, 2))


@pytest.mark.parametrize("p", list(platforms()), ids=lambda p: p.name)
def test_the_table_gives_the_routes_of_direct_routing(p, monkeypatch):
    n = len(p.hosts)
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, n, size=(2, n * n))  # every pair or so, in any order, some from a host to itself
    ranks = list(reversed(p.hosts))  # ranks in another order than the platform's hosts
    table = pair_routes(p, ranks, src, dst)
    assert isinstance(p.__dict__["_host_route_table"], tuple)
    monkeypatch.setattr(routes, "_from_table", lambda *args: None)
    direct = pair_routes(p, ranks, src, dst)
    for field in ("src", "dst", "latency", "bandwidth", "hop_ptr", "hop_link", "hop_fwd"):
        assert np.array_equal(getattr(table, field), getattr(direct, field)), field
    assert table.hop_link.dtype == direct.hop_link.dtype and table.hop_fwd.dtype == direct.hop_fwd.dtype


def test_few_pairs_are_routed_directly():
    p = cs.topologies.hypercube(3)
    pair_routes(p, p.hosts, [0, 1], [7, 6])
    assert "_host_route_table" not in p.__dict__


def test_the_d_mod_k_table_is_the_routing_s_own_routes():
    """The core's d-mod-k routes of every host pair (``_core.dmodk_routes``) are those DModK.route gives."""
    p = cs.topologies.fat_tree(4, 3, spines=3, routing="d_mod_k")
    hop_ptr, arcs = routes.host_routes(p)
    n, link_ids = len(p.hosts), list(p.links)
    for a in range(n):
        for b in range(n):
            hops = p.route_hops(p.hosts[a], p.hosts[b]) if a != b else ()
            got = arcs[hop_ptr[a * n + b]:hop_ptr[a * n + b + 1]].tolist()
            assert got == [2 * link_ids.index(link) + (not forward) for link, forward in hops], (a, b)
