"""The vectorised bounds against slow, obvious references: the same numbers to the last bit, the same names.

The references: one networkx Dijkstra per source and widest paths by
bandwidth thresholds (the graph view's least latencies and widest paths,
by another algorithm than either of the code's), and the per-pair loops
the vectorised code replaced: the per-message link loads of
``exchange_bound`` and the per-path "message alone" terms of
``collective_bound``. Platforms: seeded random ones (hosts and routers,
one-way, shared and fat-pipe links, latencies that are 0 or not, few
distinct bandwidths so that ties occur, either shortest-path metric) and
the generators whose routings take other paths (d-mod-k, e-cube, tables).
"""

from __future__ import annotations

from collections import defaultdict

import networkx as nx
import numpy as np
import pytest

import collsched as cs
from collsched import bounds
from collsched.algorithms.orderings import exchange_bound as xb
from collsched.platform import Link, Node, Platform, ShortestPath
from collsched.platform.paths import GraphPaths, graph_paths

MODELS = [cs.models.OnePort(), cs.models.OnePort(sync=False, cost="overheads"), cs.models.Fluid(),
          cs.models.Circuit(), cs.models.Fluid(one_port=True)]


def random_platform(seed: int) -> Platform:
    """4 to 9 hosts, 0 to 3 routers, a ring through every node (so all pairs connect) and random chords."""
    rng = np.random.default_rng(seed)
    n_hosts, n_routers = int(rng.integers(4, 10)), int(rng.integers(0, 4))
    names = [f"h{i}" for i in range(n_hosts)] + [f"r{i}" for i in range(n_routers)]
    nodes = [Node(n, kind="host" if n[0] == "h" else "router", send_overhead=float(rng.choice([0.0, 1e-4])),
                  recv_overhead=float(rng.choice([0.0, 2e-4]))) for n in names]
    order = [names[i] for i in rng.permutation(len(names))]
    ends = list(zip(order, order[1:] + order[:1]))
    ends += [(a, b) for a in names for b in names if a != b and rng.random() < 0.2]
    one_way = rng.random() < 0.5  # else every link goes both ways (the widest paths take Kruskal's order)
    links = []
    for k, (a, b) in enumerate(ends):
        directed = one_way and k >= len(names) and rng.random() < 0.5   # the ring stays two-way: connected
        sharing = "full_duplex" if directed else str(rng.choice(["full_duplex", "shared", "fatpipe"], p=[.6, .2, .2]))
        links.append(Link(f"l{k}", float(rng.choice([1e6, 2e6, 4e6])), float(rng.choice([0.0, 1e-3, 2.5e-3])),
                          ends=(a, b), directed=directed, sharing=sharing))
    metric = "latency" if rng.random() < 0.5 else "hops"
    return Platform(nodes, links, ShortestPath(metric), name=f"random-{seed}")


def generated() -> list[Platform]:
    return [cs.topologies.star(5, bandwidth=1e6, latency=1e-3), cs.topologies.fat_tree(3, 3, spines=2),
            cs.topologies.hypercube(3), cs.topologies.torus([3, 3]), cs.topologies.tiers(seed=2),
            cs.topologies.grid_of_clusters([3, 2])]


PLATFORMS = [random_platform(seed) for seed in range(12)] + generated()


def reference_paths(platform: Platform, sources) -> GraphPaths:
    """One networkx Dijkstra per source (latency); widest paths by thresholds, another algorithm than the code's.

    The widest path from s to x is the largest bandwidth w such that x is
    reachable from s over the edges of bandwidth at least w.
    """
    g = platform._graph
    nodes = tuple(g.nodes)
    least = np.full((len(sources), len(nodes)), np.inf)
    widest = np.zeros((len(sources), len(nodes)))
    thresholds = sorted({e["bandwidth"] for _, _, e in g.edges(data=True)})
    for i, s in enumerate(sources):
        for x, d in nx.single_source_dijkstra_path_length(g, s, weight="latency").items():
            least[i, nodes.index(x)] = d
        for w in thresholds:   # ascending: a wider threshold overwrites what it still reaches
            wide = g.edge_subgraph([(a, b) for a, b, e in g.edges(data=True) if e["bandwidth"] >= w])
            for x in (nx.descendants(wide, s) if s in wide else ()):
                widest[i, nodes.index(x)] = w
        widest[i, nodes.index(s)] = np.inf
    return GraphPaths(tuple(sources), nodes, least, widest)


def reference_links(platform: Platform, collective, fluid: bool, routes=None) -> tuple[float, str]:
    """The per-message loop over routes, with dicts keyed by link direction (``routes`` unused)."""
    load: dict[tuple, float] = defaultdict(float)
    first: dict[tuple, float] = {}
    for s, r, m in collective.messages():
        lat, bw = platform.latency(s, r), platform.bandwidth(s, r)
        for link_id, forward in platform.route_hops(s, r):
            link = platform.links[link_id]
            if link.sharing == "fatpipe":
                continue
            key = (link_id, True) if link.sharing == "shared" else (link_id, forward)
            if fluid:
                load[key] += m / link.bandwidth
                first[key] = min(first.get(key, np.inf), lat)
            else:
                load[key] += lat + m / bw
    if not load:
        return 0.0, "largest link load"
    key = max(load, key=lambda k: load[k] + first.get(k, 0.0))
    return load[key] + first.get(key, 0.0), f"largest link load (link {key[0]})"


def reference_alone(platform, collective, model, paths, table: GraphPaths) -> list[tuple[float, str]]:
    """One term per path, as the loop made them (``max`` over the terms keeps the first of the largest)."""
    reduction = collective.kind in ("reducescatter", "allreduce")
    split = reduction or (collective.kind == "allgather" and not bounds._one_port(model))
    terms = []
    hosts = platform.hosts
    for a, b, m in zip(paths.src.tolist(), paths.dst.tolist(), paths.size.tolist()):
        s, d = hosts[a], hosts[b]
        least, widest = table.least[table.row(s), table.column(d)], table.widest[table.row(s), table.column(d)]
        if split:
            rate = min(bounds._capacity(platform, s, model, True), bounds._capacity(platform, d, model, False))
            what = f"the contribution of {s} to {d}" if reduction else f"the block {s}->{d}"
            terms.append((float(least) + m / rate, f"{what} alone, over every link of both"))
        else:
            terms.append((float(least) + m / float(widest), f"the message {s}->{d} alone on its fastest path"))
    return terms


def collectives(platform: Platform, seed: int) -> list:
    rng = np.random.default_rng(seed + 101)
    hosts = list(platform.hosts)
    picked = [hosts[i] for i in rng.permutation(len(hosts))[:max(3, len(hosts) - 1)]]
    sizes = rng.choice([1e3, 5e5, 2e6], size=(len(picked), len(picked)))
    return [cs.AllToAll(senders=picked, size=1e6), cs.AllToAll(senders=picked, size=sizes),
            cs.AllToMany({(a, b): float(rng.choice([1e3, 1e6])) for a in picked for b in picked
                          if a != b and rng.random() < 0.5} or {(picked[0], picked[1]): 1.0}),
            cs.Scatter(source=picked[0], targets=picked, size=1e6),
            cs.Reduce(participants=picked, target=picked[-1], size=1e6, task_cost=1e6),
            cs.AllGather(participants=picked, size=1e6), cs.AllReduce(participants=picked, size=1e6)]


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_graph_paths_match_one_search_per_source(platform):
    sources = list(platform.hosts) + list(platform.routers)[:1]
    fast, slow = graph_paths(platform, sources), reference_paths(platform, sources)
    assert fast.nodes == slow.nodes and fast.sources == slow.sources
    assert np.array_equal(fast.least, slow.least)
    assert np.array_equal(fast.widest, slow.widest)


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
@pytest.mark.parametrize("fluid", [True, False])
def test_link_loads_match_the_loop_over_messages(platform, fluid):
    for c in collectives(platform, 0)[:3]:
        assert xb._links(platform, c, fluid) == reference_links(platform, c, fluid)


@pytest.mark.parametrize("platform", [p for p in PLATFORMS if len(p.nodes) < 25], ids=lambda p: p.name)
def test_collective_bound_matches_the_references(platform, monkeypatch):
    fast = [[cs.bounds.collective_bound(platform, c, model=m) for m in MODELS] for c in collectives(platform, 1)]
    monkeypatch.setattr(bounds, "graph_paths", reference_paths)
    monkeypatch.setattr(bounds, "_alone", reference_alone)
    monkeypatch.setattr(xb, "_links", reference_links)
    slow = [[cs.bounds.collective_bound(platform, c, model=m) for m in MODELS] for c in collectives(platform, 1)]
    assert fast == slow


def reference_flows(collective) -> tuple[list, dict, dict]:
    """An exchange's must-travel messages and per-node bytes out and in, by the loop over its messages."""
    out: dict[str, float] = defaultdict(float)
    into: dict[str, float] = defaultdict(float)
    paths = [(s, r, m) for s, r, m in collective.messages() if s != r]
    for s, r, m in paths:
        out[s] += m
        into[r] += m
    return paths, dict(out), dict(into)


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_exchange_flows_match_the_loop_over_messages(platform):
    rng = np.random.default_rng(7)
    odd = [cs.AllToAll(senders=list(platform.hosts)[::-1], size=rng.random((len(platform.hosts),) * 2) * 1e6 + 0.1)]
    for c in collectives(platform, 2)[:3] + odd:
        paths, out, into = bounds._flows_of(platform, c)
        ref_paths, ref_out, ref_into = reference_flows(c)
        hosts = platform.hosts
        assert [(hosts[a], hosts[b], m) for a, b, m in zip(paths.src.tolist(), paths.dst.tolist(),
                                                           paths.size.tolist())] == ref_paths
        assert list(out.items()) == list(ref_out.items()) and list(into.items()) == list(ref_into.items())


def test_ties_go_to_the_link_met_first():
    # every host link carries the same load: the first message's first hop names the bound
    p = cs.topologies.star(4, bandwidth=1e6, latency=0.0)
    c = cs.AllToAll(senders=["h2", "h0", "h1", "h3"], size=1e6)
    for fluid in (True, False):
        assert xb._links(p, c, fluid) == reference_links(p, c, fluid)
        assert xb._links(p, c, fluid)[1] == "largest link load (link l2)"


def test_unknown_source_is_named_as_networkx_names_it():
    with pytest.raises(nx.NodeNotFound, match="Node zz not found in graph"):
        graph_paths(cs.topologies.star(2), ["h0", "zz"])
