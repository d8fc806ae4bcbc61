"""Reduction trees (seed 000, section 4.4): Σ weight·χ(T) = A^T exactly for every extraction."""

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.steady_state.lp_reduce import solve_reduce
from collsched.algorithms.steady_state.periodic import period_of
from collsched.algorithms.steady_state.trees import cancel_circulations, extract_trees


def platform(kind, seed):
    if kind == "tiers":
        return cs.topologies.tiers(seed=seed, wan_nodes=2, mans=1, man_nodes=2, lans_per_man=2, lan_hosts=2)
    # integer costs: small exact periods, several trees
    rng = np.random.default_rng(seed)
    p = cs.topologies.fully_connected(4, bandwidth=1, latency=0, speed=1)
    from collsched.platform.model import Link, Node, Platform
    links = [Link(f"{a}-{b}", bandwidth=1 / int(rng.integers(1, 5)), latency=0, ends=(a, b), directed=True)
             for a in p.hosts for b in p.hosts if a != b]
    return Platform([Node(h, speed=int(rng.integers(1, 4))) for h in p.hosts], links, name="random-complete")


@settings(max_examples=30, deadline=None)
@given(kind=st.sampled_from(["tiers", "complete"]), seed=st.integers(0, 10_000), n=st.integers(2, 4))
def test_trees_reproduce_the_solution_exactly(kind, seed, n):
    p = platform(kind, seed)
    rng = np.random.default_rng(seed)
    hosts = [p.hosts[i] for i in rng.permutation(len(p.hosts))[:n]]
    c = cs.Reduce(participants=hosts, target=hosts[int(rng.integers(n))], size=1, task_cost=float(rng.integers(0, 3)))
    r = solve_reduce(p, c)
    assert r.solution.certified
    send = cancel_circulations(r.send)
    # circulations cancelled first: every partial result's send flow is acyclic
    for k, m in {(k, m) for (_, _, k, m) in send}:
        assert nx.is_directed_acyclic_graph(nx.DiGraph([(u, v) for (u, v, kk, mm) in send if (kk, mm) == (k, m)]))
    trees = extract_trees(r)
    A = {("send", *key): v for key, v in send.items()}
    A.update({("cons", *key): v for key, v in r.cons.items()})
    T = period_of(list(A.values()) + [w for w, _ in trees])
    weights = [w * T for w, _ in trees]
    assert all(x.denominator == 1 and x > 0 for x in weights)           # integer weights
    assert sum(weights) == r.throughput * T
    total: dict = {}
    for (w, tree), wt in zip(trees, weights):
        assert len({t.key for t in tree}) == len(tree)                  # χ is 0/1
        for t in tree:
            total[t.key] = total.get(t.key, 0) + wt
    assert total == {k: v * T for k, v in A.items() if v}                # Σ weight·χ = A^T
    assert len(trees) <= len(A)                                          # polynomially many
