"""The platform model: validation of bad input, routing schemes, the three views."""

import math

import numpy as np
import pytest

from collsched import topologies
from collsched.errors import PlatformError
from collsched.platform import ECube, Link, Node, Platform, RouteTable, ShortestPath


def line(*bandwidths, latency=1e-6):
    nodes = [Node(f"n{i}") for i in range(len(bandwidths) + 1)]
    links = [Link(f"l{i}", bw, latency, ends=(f"n{i}", f"n{i + 1}")) for i, bw in enumerate(bandwidths)]
    return Platform(nodes, links)


@pytest.mark.parametrize("bandwidth", [0, -1.0, math.nan, math.inf, "fast"])
def test_bad_bandwidth_is_one_line_naming_the_link(bandwidth):
    with pytest.raises(PlatformError, match=r"^link 'l0' has bandwidth .* \(give a finite positive bandwidth"):
        Platform([Node("a"), Node("b")], [Link("l0", bandwidth, 0.0, ends=("a", "b"))])


@pytest.mark.parametrize("latency", [-1e-6, math.nan, math.inf])
def test_bad_latency_is_rejected(latency):
    with pytest.raises(PlatformError, match=r"^link 'l0' has latency"):
        Platform([Node("a"), Node("b")], [Link("l0", 1e9, latency, ends=("a", "b"))])


def test_unknown_node_named_by_a_link():
    with pytest.raises(PlatformError, match=r"^link 'l0' names unknown node 'c'"):
        Platform([Node("a"), Node("b")], [Link("l0", 1e9, ends=("a", "c"))])


def test_duplicate_node_and_link_ids():
    with pytest.raises(PlatformError, match="duplicate node id 'a'"):
        Platform([Node("a"), Node("a")], [])
    with pytest.raises(PlatformError, match="duplicate link id 'l'"):
        Platform([Node("a"), Node("b")], [Link("l", 1, ends=("a", "b")), Link("l", 1, ends=("a", "b"))])


@pytest.mark.parametrize("node, what", [(Node("a", speed=0), "speed"), (Node("a", send_overhead=-1), "send_overhead"),
                                        (Node("a", kind="switch"), "kind")])
def test_bad_node_fields(node, what):
    with pytest.raises(PlatformError, match=f"node 'a' has {what}"):
        Platform([node], [])


def test_no_host_and_router_only():
    with pytest.raises(PlatformError, match="has no host"):
        Platform([Node("r", kind="router")], [])


def test_unreachable_host_says_which_pair():
    p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))])
    assert p.route("a", "b") == ("ab",)
    with pytest.raises(PlatformError, match=r"host 'c' is unreachable from host 'a'"):
        p.route("a", "c")
    assert not p.has_route("a", "c")


def test_platform_is_sealed():
    p = line(1e9)
    with pytest.raises(AttributeError, match="sealed"):
        p._links = {}
    with pytest.raises(TypeError):
        p.links["new"] = Link("new", 1.0)


def test_shortest_path_tie_break_is_node_declaration_order():
    # a diamond: two equal routes a-b-d and a-c-d; the route through the earlier-declared node wins
    links = [Link("ab", 1, ends=("a", "b")), Link("ac", 1, ends=("a", "c")),
             Link("bd", 1, ends=("b", "d")), Link("cd", 1, ends=("c", "d"))]
    assert Platform([Node(x) for x in "abcd"], links).route("a", "d") == ("ab", "bd")
    assert Platform([Node(x) for x in "acbd"], links).route("a", "d") == ("ac", "cd")
    assert Platform([Node(x) for x in "abcd"], links[::-1]).route("a", "d") == ("ab", "bd")


def test_latency_metric_prefers_fewer_hops_on_equal_latency():
    nodes = [Node(x) for x in "abc"]
    links = [Link("ab", 1, 1e-3, ends=("a", "b")), Link("bc", 1, 1e-3, ends=("b", "c")),
             Link("ac", 1, 2e-3, ends=("a", "c"))]
    assert Platform(nodes, links, ShortestPath("latency")).route("a", "c") == ("ac",)


def test_directed_link_is_one_way():
    p = Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b"), directed=True)])
    assert p.route("a", "b") == ("ab",)
    assert not p.has_route("b", "a")


def test_route_table_checks_contiguity_and_reverses():
    nodes = [Node("a"), Node("b"), Node("r", kind="router")]
    links = [Link("ar", 1e9, ends=("a", "r")), Link("rb", 1e9, ends=("r", "b"))]
    p = Platform(nodes, links, RouteTable({("a", "b"): ["ar", "rb"]}))
    assert p.route_hops("b", "a") == (("rb", False), ("ar", False))
    with pytest.raises(PlatformError, match=r"route a->b: link 'rb' does not start at 'a'"):
        Platform(nodes, links, RouteTable({("a", "b"): ["rb", "ar"]}))
    with pytest.raises(PlatformError, match="names unknown link 'zz'"):
        Platform(nodes, links, RouteTable({("a", "b"): ["zz"]}))
    with pytest.raises(PlatformError, match="'r' is a router, not a host"):
        Platform(nodes, links, RouteTable({("a", "r"): ["ar"]}))


def test_route_table_without_link_ends():
    nodes = [Node("a"), Node("b")]
    links = [Link("up", 1e8, 1e-5), Link("bb", 1e9, 1e-6), Link("down", 5e7, 2e-5)]
    p = Platform(nodes, links, RouteTable({("a", "b"): ["up", "bb", "down"]}))
    assert p.bandwidth("a", "b") == 5e7
    assert p.latency("b", "a") == pytest.approx(3.1e-5)
    g = p.graph()
    assert g.edges["a", "b"]["links"] == ("up", "bb", "down")
    with pytest.raises(PlatformError, match="has no ends, so shortest-path routing cannot use it"):
        Platform(nodes, links)


def test_ecube_routes_low_dimension_first():
    p = topologies.hypercube(3)
    assert isinstance(p.routing, ECube)
    assert p.route("h5", "h2") == ("e4-5", "e4-6", "e2-6")


def test_matrix_view():
    p = line(1e9, 1e8, latency=1e-3)
    assert p.hosts == ("n0", "n1", "n2")
    lat = p.latency_matrix()
    bw = p.bandwidth_matrix()
    assert lat[0, 2] == pytest.approx(2e-3) and lat[2, 0] == pytest.approx(2e-3)
    assert bw[0, 2] == 1e8 and np.isinf(bw[1, 1])
    assert p.transfer_time("n0", "n2", 1e8) == pytest.approx(1.002)


def test_graph_view_merges_parallel_links_and_has_costs():
    nodes = [Node("a"), Node("b")]
    links = [Link("x", 1e8, 1e-3, ends=("a", "b")), Link("y", 3e8, 1e-4, ends=("b", "a"))]
    g = Platform(nodes, links).graph()
    e = g.edges["a", "b"]
    assert e["bandwidth"] == 4e8 and e["latency"] == 1e-4 and e["links"] == ("x", "y")
    assert e["cost"] == pytest.approx(2.5e-9)


def test_clusters_must_partition_hosts():
    nodes = [Node("a"), Node("b")]
    with pytest.raises(PlatformError, match="host 'b' is in no cluster"):
        Platform(nodes, [], clusters=[["a"]])
    with pytest.raises(PlatformError, match="host 'a' is in two clusters"):
        Platform(nodes, [], clusters=[["a"], ["a", "b"]])


def test_router_is_not_a_host():
    p = topologies.star(2)
    with pytest.raises(PlatformError, match="'sw' is a router, not a host"):
        p.host_index("sw")


def test_route_caches_are_per_metric():
    nodes = [Node(x) for x in "abc"]
    links = [Link("ab", 1, 1e-3, ends=("a", "b")), Link("bc", 1, 1e-3, ends=("b", "c")),
             Link("ac", 1, 5e-3, ends=("a", "c"))]
    p = Platform(nodes, links)
    assert ShortestPath("latency").route(p, "a", "c") == (("ab", True), ("bc", True))
    assert p.route("a", "c") == ("ac",)


def test_symmetric_table_does_not_reverse_a_directed_link():
    nodes = [Node("a"), Node("b")]
    links = [Link("d", 1e9, ends=("a", "b"), directed=True)]
    p = Platform(nodes, links, RouteTable({("a", "b"): ["d"]}))
    assert p.route("a", "b") == ("d",)
    assert not p.has_route("b", "a")


def test_d_mod_k_spreads_destinations_over_spines_and_round_trips():
    from collsched.platform.io import platform_from_json, platform_from_simgrid, platform_to_json, platform_to_simgrid
    from collsched.platform.routing import DModK
    p = topologies.fat_tree(3, 4, spines=3)
    assert isinstance(p.routing, DModK)
    for t, dst in enumerate(p.hosts):
        for src in p.hosts:
            route = p.route(src, dst)
            if src == dst:
                assert route == ()
            elif src[1:] and int(src[1:]) // 4 == t // 4:  # same leaf: up and down
                assert len(route) == 2
            else:
                assert route[1].endswith(f"spine{t % 3}") and route[2].endswith(f"spine{t % 3}")
    assert platform_from_json(platform_to_json(p)) == p
    assert platform_from_simgrid(platform_to_simgrid(p)) == p
