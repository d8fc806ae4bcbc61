"""Shortest-path trees of the Rust core against a slow, obvious Dijkstra written from the documented tie-break.

And the bulk reachability check (``first_unreachable``) against ``has_route`` pair by pair.
"""

import heapq

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched.errors import PlatformError
from collsched.platform import Link, Node, Platform, ShortestPath
from collsched.platform.routes import first_unreachable


def reference_route(p: Platform, metric: str, src: str, dst: str):
    """Settle nodes by (cost, hops, declaration index); replace a predecessor only on a strict improvement."""
    order = {n: i for i, n in enumerate(p.nodes)}
    best = {src: (0.0, 0)}
    pred = {}
    heap = [(0.0, 0, order[src], src)]
    done = set()
    while heap:
        cost, hops, _, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for v, link in p.neighbours(u):
            if v in done:
                continue
            c = (cost + link.latency, hops + 1) if metric == "latency" else (float(hops + 1), hops + 1)
            if v not in best or c < best[v]:
                best[v], pred[v] = c, (u, (link.id, link.ends[0] == u))
                heapq.heappush(heap, (c[0], c[1], order[v], v))
    if dst not in pred and dst != src:
        return None
    hops, node = [], dst
    while node != src:
        node, hop = pred[node]
        hops.append(hop)
    return tuple(reversed(hops))


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 9))
    nodes = [Node(f"n{i}", kind="host" if i < 3 or draw(st.booleans()) else "router") for i in range(n)]
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([0.0, 1e-3, 2e-3]),
                                    st.booleans()), max_size=20))
    links = [Link(f"l{k}", 1e9, lat, ends=(f"n{a}", f"n{b}"), directed=d)
             for k, (a, b, lat, d) in enumerate(edges) if a != b]
    return nodes, links


@settings(max_examples=60, deadline=None)
@given(graphs(), st.sampled_from(["hops", "latency"]))
def test_rust_trees_match_the_reference(graph, metric):
    nodes, links = graph
    p = Platform(nodes, links, ShortestPath(metric))
    for a in p.hosts:
        for b in p.hosts:
            if a != b:
                expected = reference_route(p, metric, a, b)
                assert p.routing.route(p, a, b) == expected
                assert p.has_route(a, b) == (expected is not None)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.sampled_from(["hops", "latency"]), st.randoms(use_true_random=False))
def test_first_unreachable_is_the_first_pair_has_route_refuses(graph, metric, rnd):
    nodes, links = graph
    names = [n.id for n in nodes] + ["zz"]
    pairs = [(rnd.choice(names), rnd.choice(names)) for _ in range(rnd.randint(0, 30))]
    found = first_unreachable(Platform(nodes, links, ShortestPath(metric)), pairs)   # a fresh platform: no cached route
    p = Platform(nodes, links, ShortestPath(metric))
    assert found == next((k for k, (a, b) in enumerate(pairs) if not p.has_route(a, b)), None)


def test_first_unreachable_under_every_routing():
    from collsched import topologies
    from collsched.platform import RouteTable

    table = Platform([Node("a"), Node("b"), Node("c")], [Link("x", 1e9), Link("y", 1e9)],
                     RouteTable({("a", "c"): ["x", ("y", False)]}))
    for p in (topologies.fat_tree(3, 2), topologies.hypercube(3), table):
        pairs = [(a, b) for a in [*p.hosts, *p.routers[:1]] for b in p.hosts]
        assert first_unreachable(p, pairs) == next((k for k, (a, b) in enumerate(pairs) if not p.has_route(a, b)), None)
    with pytest.raises(PlatformError, match="host 'b' is unreachable from host 'a', which the test needs"):
        table.check_reachable([("c", "a"), ("a", "b")], needed_by="the test")
