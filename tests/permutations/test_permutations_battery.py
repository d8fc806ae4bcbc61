"""Every permutation algorithm on random COM matrices and platforms: validates, phases are (link-disjoint) partial permutations."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import collsched as cs
from collsched.algorithms.permutations import ALGORITHMS
from collsched.algorithms.permutations.common import com_matrix, route_resources
from collsched.algorithms.permutations.samples import random_com, to_alltomany
from collsched.algorithms.registry import get
from collsched.errors import CollectiveError, CollschedError

LINK_DISJOINT = ("rs_nl", "rs_nlp", "rs_nlh", "rs_nlph")
PLATFORMS = {
    "hypercube4": lambda: cs.topologies.hypercube(4),
    "star": lambda: cs.topologies.star(9),
    "fat_tree": lambda: cs.topologies.fat_tree(3, 3),
    "torus": lambda: cs.topologies.torus([3, 4]),
    "switch_ring": lambda: cs.topologies.switch_ring(3, 3),
}
_CACHE = {}


def platform(name):
    if name not in _CACHE:
        _CACHE[name] = PLATFORMS[name]()
    return _CACHE[name]


def check_phases(p, c, s, *, links):
    """Each step a partial permutation; with ``links``, no two routes of a step share a resource."""
    com = com_matrix(p, c)
    path_ptr, path, _ = route_resources(p, com)
    index = {(com.hosts[a], com.hosts[b]): m for m, (a, b) in enumerate(zip(com.src, com.dst))}
    for k, step in enumerate(s.steps):
        srcs = [t.src for t in step]
        dsts = [t.dst for t in step]
        assert len(set(srcs)) == len(srcs) and len(set(dsts)) == len(dsts), f"step {k} is not a partial permutation"
        if links:
            used = [r for t in step for r in path[path_ptr[index[t.src, t.dst]]:path_ptr[index[t.src, t.dst] + 1]]]
            assert len(used) == len(set(used)), f"step {k} has link contention"


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(PLATFORMS)), algo=st.sampled_from(ALGORITHMS), seed=st.integers(0, 2**32),
       d=st.integers(1, 6), nonuniform=st.booleans())
def test_every_algorithm_validates_on_random_com(name, algo, seed, d, nonuniform):
    p = platform(name)
    n = len(p.hosts)
    com = random_com(n, min(d, n - 1), seed=seed, max_size=n if nonuniform else None)
    c = to_alltomany(com, p.hosts, unit=1e3)
    s = cs.plan(p, c, algorithm=algo, seed=seed)
    assert s.algorithm == algo
    if algo == "ac":
        cs.validate(p, c, s.lower(p, c, sync="post_all"))
        return
    cs.validate(p, c, s)
    for sync in ("ready", "post_all"):
        cs.validate(p, c, s.lower(p, c, sync=sync))
    check_phases(p, c, s, links=algo in LINK_DISJOINT)
    assert len(s) >= com_matrix(p, c).max_degree


@pytest.mark.parametrize("algo", ALGORITHMS)
def test_sparse_random_alltomany_on_hypercube(algo):
    rng = np.random.default_rng(5)
    p = platform("hypercube4")
    pairs = {(f"h{a}", f"h{b}"): float(rng.integers(1, 100)) for a, b in rng.integers(0, 16, size=(40, 2)) if a != b}
    c = cs.AllToMany(pairs)
    s = cs.plan(p, c, algorithm=algo, seed=3)
    cs.validate(p, c, s.lower(p, c, sync="post_all"))
    if algo != "ac":
        cs.validate(p, c, s)
        check_phases(p, c, s, links=algo in LINK_DISJOINT)


@pytest.mark.parametrize("algo", ALGORITHMS)
def test_alltoall_size_matrix(algo):
    p = cs.topologies.hypercube(3)
    sizes = np.arange(64, dtype=float).reshape(8, 8) % 5
    c = cs.AllToAll(senders=p.hosts, size=sizes)
    s = cs.plan(p, c, algorithm=algo)
    cs.validate(p, c, s.lower(p, c, sync="post_all"))


def test_lp_is_link_disjoint_on_the_hypercube():
    p = cs.topologies.hypercube(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = cs.plan(p, c, algorithm="lp")
    assert len(s) == 15 and all(len(step) == 16 for step in s.steps)
    check_phases(p, c, s, links=True)


def test_lp_when_n_is_not_a_power_of_two():
    p = cs.topologies.star(6)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = cs.plan(p, c, algorithm="lp")
    assert s.params["iterations"] == 7
    assert len(s) == 7 and s.n_transfers == 30   # k = 1..7, pairs beyond h5 skipped
    cs.validate(p, c, s)
    check_phases(p, c, s, links=False)


def test_heap_variants_split_messages_into_covering_parts():
    p = cs.topologies.hypercube(3)
    c = to_alltomany(random_com(8, 4, seed=2, max_size=64), p.hosts, unit=100)
    for algo in ("rs_nlh", "rs_nlph"):
        s = cs.plan(p, c, algorithm=algo, lam=0.75, denominator=256)
        parts = {}
        for step in s.steps:
            for t in step:
                parts.setdefault((t.src, t.dst), []).append(t.part or (0, 256))
        assert any(len(v) > 1 for v in parts.values())          # something was split
        for v in parts.values():
            assert v[0][0] == 0 and v[-1][1] == 256 and all(a[1] == b[0] for a, b in zip(v, v[1:]))
        cs.validate(p, c, s)


def test_heap_default_lambda_tries_the_papers_values():
    p = cs.topologies.hypercube(3)
    c = to_alltomany(random_com(8, 4, seed=2, max_size=64), p.hosts, unit=100)
    s = cs.plan(p, c, algorithm="rs_nlph")
    assert s.params["lam"] in (7 / 8, 6 / 8)


@pytest.mark.parametrize("algo", ALGORITHMS)
def test_wrong_collective_is_one_line_error(algo):
    p = cs.topologies.star(3)
    scatter = cs.Scatter(source="h0", targets=p.hosts, size=1)
    with pytest.raises(CollectiveError, match=f"{algo} schedules an alltomany or alltoall, not a scatter"):
        get(algo).function(p, scatter)
    with pytest.raises(CollschedError, match=f"algorithm '{algo}' does not apply to a scatter"):
        cs.plan(p, scatter, algorithm=algo)


@pytest.mark.parametrize("bad, match", [({"lam": 0}, "option lam"), ({"lam": 1.5}, "option lam"),
                                        ({"denominator": 0}, "option denominator")])
def test_heap_options_are_validated(bad, match):
    p = cs.topologies.star(3)
    c = cs.AllToMany({("h0", "h1"): 1})
    with pytest.raises(ValueError, match=match):
        cs.plan(p, c, algorithm="rs_nlh", **bad)


def test_same_seed_same_schedule():
    p = cs.topologies.hypercube(4)
    c = to_alltomany(random_com(16, 5, seed=9), p.hosts)
    assert cs.plan(p, c, algorithm="rs_nlp", seed=4).steps == cs.plan(p, c, algorithm="rs_nlp", seed=4).steps
    assert math.isfinite(len(cs.plan(p, c, algorithm="rs_n", seed=5)))


@pytest.mark.parametrize("name", ["ac", "lp", "rs_n", "rs_nl", "rs_np", "rs_nlp", "rs_nlh", "rs_nlph"])
def test_every_decomposition_reports_its_gap_to_the_circuit_bound(name):
    p = cs.topologies.hypercube(3, bandwidth=1e6, latency=1e-5)
    c = cs.AllToMany({(a, b): 1e4 * (1 + (i + j) % 3) for i, a in enumerate(p.hosts) for j, b in enumerate(p.hosts)
                      if a != b and (i + 2 * j) % 3 == 0})
    s = cs.plan(p, c, algorithm=name)
    assert s.bound is not None and s.bound.metric == "makespan"
    r = cs.simulate(p, s, model=cs.models.Circuit())
    assert s.bound.gap(r.makespan) >= -1e-9
