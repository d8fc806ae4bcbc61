"""collsched._core.FlowNetwork (Dinic in the Rust core) against networkx on random graphs, with set sources and sinks."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched._core import FlowNetwork


def nx_max_flow(n, arcs, sources, sinks):
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    for a, b, c in arcs:  # parallel arcs add up
        if g.has_edge(a, b):
            g.edges[a, b]["capacity"] += c
        else:
            g.add_edge(a, b, capacity=c)
    for s in sources:
        g.add_edge("S", s)  # no capacity: unbounded
    for t in sinks:
        g.add_edge(t, "T")
    return nx.maximum_flow_value(g, "S", "T")


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000))
def test_max_flow_matches_networkx(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 9))
    arcs = [(int(a), int(b), int(c) * 10**20) for a, b, c in
            zip(rng.integers(0, n, 20), rng.integers(0, n, 20), rng.integers(0, 9, 20)) if a != b]
    net = FlowNetwork(n)
    ids = [net.add_arc(a, b, c) for a, b, c in arcs]
    nodes = list(rng.permutation(n))
    k = int(rng.integers(1, n))
    sources, sinks = sorted(int(v) for v in nodes[:k]), sorted(int(v) for v in nodes[k:])
    value = net.max_flow(sources, sinks)
    assert value == nx_max_flow(n, arcs, sources, sinks)
    side = set(net.source_side())
    assert set(sources) <= side and not side & set(sinks)
    assert sum(c for a, b, c in arcs if a in side and b not in side) == value  # a minimum cut
    flows = net.arc_flows()
    assert all(0 <= flows[i] <= c for i, (_, _, c) in zip(ids, arcs))
    if value > 0:
        assert net.max_flow(sources, sinks, value - 1) == value - 1


def test_min_max_flow_and_capacity_changes():
    net = FlowNetwork(4)
    a = net.add_arc(0, 1, 5)
    net.add_arc(1, 2, 3)
    net.add_arc(1, 3, 1)
    assert net.min_max_flow([([0], [2]), ([0], [3]), ([0], [2, 3])]) == (1, 1)
    net.set_capacity(a, 2)
    assert net.capacity(a) == 2
    assert net.max_flow([0], [2, 3]) == 2
    assert (net.n_nodes, net.n_arcs) == (4, 3)
    assert net.add_node() == 4
    net.add_arc(0, 4, FlowNetwork.INFINITE)
    assert net.max_flow([0], [4], 7) == 7


def test_errors():
    net = FlowNetwork(2)
    with pytest.raises(IndexError, match="node 5 is not a node"):
        net.add_arc(0, 5, 1)
    with pytest.raises(ValueError, match="negative"):
        net.add_arc(0, 1, -1)
    with pytest.raises(ValueError, match="both a source and a sink"):
        net.max_flow([0], [0])
    with pytest.raises(IndexError, match="arc 3 is not an arc"):
        net.set_capacity(3, 1)
