"""The liquid family's shared battery: every algorithm on random routed platforms validates; property tests."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.liquid import liquid, random_steps, round_robin
from collsched.algorithms.liquid.fallback import greedy_steps, heuristic_steps, shift_steps, shortest
from collsched.algorithms.liquid.search import search, search_python
from collsched.algorithms.liquid.traffic import Traffic, traffic_of
from collsched.schedules.base import Status

ALGORITHMS = [liquid, round_robin, random_steps]


def _platforms():
    yield cs.topologies.switch_ring(4, 2, chords=2, bandwidth=86e6)
    yield cs.topologies.switch_ring(3, [2, 1, 3], bandwidth=(5e7, 1e8), seed=2)
    yield cs.topologies.star(5)
    yield cs.topologies.hypercube(3)


def _collectives(p, rng_seed):
    import random
    rng = random.Random(rng_seed)
    hosts = list(p.hosts)
    yield cs.AllToAll(senders=hosts, size=1e5)
    pairs = [(a, b) for a in hosts for b in hosts if a != b]
    yield cs.AllToMany({pr: 1e5 for pr in rng.sample(pairs, min(len(pairs), 9))})
    yield cs.Series(cs.AllToAll(senders=hosts[:3], receivers=hosts[-3:], size=1e4), count=2)


@pytest.mark.parametrize("algorithm", ALGORITHMS, ids=lambda a: a.__name__)
def test_every_algorithm_validates_on_random_platforms(algorithm):
    for k, p in enumerate(_platforms()):
        for c in _collectives(p, k):
            s = algorithm(p, c, seed=k)
            cs.validate(p, c, s)
            assert s.n_transfers == len(traffic_of(p, c))


def test_liquid_steps_are_simultaneities_and_bounded():
    for k, p in enumerate(_platforms()):
        for c in _collectives(p, k):
            X = traffic_of(p, c)
            s = liquid(p, c)
            index = {t: i for i, t in enumerate(X.transfers)}
            for step in s.steps:
                assert X.is_simultaneity([index[(t.src, t.dst, t.inst)] for t in step])
            assert X.duration <= s.params["bound_steps"] <= len(s)
            assert s.status is Status.OPTIMAL
            assert s.bound.value <= sum(s.durations) + 1e-12


def test_heuristic_method_validates_and_reports_its_gap():
    p = cs.topologies.fat_tree(4, 4, spines=2)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = liquid(p, c, method="heuristic")
    cs.validate(p, c, s)
    assert s.params["bound_steps"] == traffic_of(p, c).duration <= len(s)
    assert "gap" in s.message and f"length {len(s)}" in s.message


def test_options_are_validated():
    p = cs.topologies.star(3)
    c = cs.AllToAll(senders=p.hosts, size=1)
    with pytest.raises(ValueError, match="option budget"):
        liquid(p, c, budget=0)
    with pytest.raises(ValueError, match="option method"):
        liquid(p, c, method="x")
    with pytest.raises(cs.errors.CollectiveError, match="alltoall or alltomany"):
        liquid(p, cs.Scatter(source="h0", targets=p.hosts, size=1))


def test_engines_agree_on_the_battery():
    for k, p in enumerate(_platforms()):
        for c in _collectives(p, k):
            X = traffic_of(p, c)
            a, b = search(X, X.duration, engine="rust"), search_python(X, X.duration)
            assert (a.status, a.steps, a.nodes) == (b.status, b.steps, b.nodes)
            a, b = search(X, X.duration, engine="rust", budget=5), search_python(X, X.duration, budget=5)
            assert a.status is b.status


def test_budget_gives_limit_with_a_valid_schedule():
    p = cs.topologies.switch_ring(8, 2, chords=[3], bandwidth=86e6)
    c = cs.AllToAll(senders=p.hosts, size=1)
    s = liquid(p, c, budget=1)
    cs.validate(p, c, s)
    assert s.status in (Status.LIMIT, Status.OPTIMAL)
    assert f"length {len(s)}" in s.message


@st.composite
def traffics(draw):
    n_res = draw(st.integers(2, 7))
    n = draw(st.integers(1, 9))
    routes = tuple(tuple(sorted(draw(st.sets(st.integers(0, n_res - 1), min_size=1, max_size=3))))
                   for _ in range(n))
    return Traffic(tuple((f"s{i}", f"d{i}", 0) for i in range(n)), routes, tuple(f"l{r}" for r in range(n_res)))


def _brute_force_length(X):
    n = len(X)
    for L in range(1, n + 1):
        for colours in itertools.product(range(L), repeat=n):
            if all(X.is_simultaneity([i for i in range(n) if colours[i] == k]) for k in range(L)):
                return L
    return 0


@settings(max_examples=25, deadline=None)
@given(traffics())
def test_shortest_is_optimal_against_brute_force(X):
    r = shortest(X)
    assert r.status is Status.OPTIMAL and r.length == r.bound >= X.duration
    for step in r.steps:
        assert X.is_simultaneity(step)
    assert sorted(i for step in r.steps for i in step) == list(range(len(X)))
    if len(X) <= 7:
        assert r.length == _brute_force_length(X)
    for heuristic in (greedy_steps, shift_steps, heuristic_steps):
        g = heuristic(X)
        assert g == heuristic(X, engine="python")
        assert len(g) >= r.length and all(X.is_simultaneity(s) for s in g)
        assert sorted(i for step in g for i in step) == list(range(len(X)))


@settings(max_examples=25, deadline=None)
@given(traffics(), st.booleans())
def test_engines_agree(X, symmetry):
    for L in (X.duration, X.duration + 1):
        a = search(X, L, symmetry=symmetry, engine="rust")
        b = search_python(X, L, symmetry=symmetry)
        # the same search tree: same outcome, same steps, same number of categories
        assert (a.status, a.steps, a.nodes) == (b.status, b.steps, b.nodes)
