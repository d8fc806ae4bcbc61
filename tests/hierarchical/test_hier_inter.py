"""Inter-cluster heuristics (seed 003, section 5.2) against a slow exhaustive reference and the bounds."""


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched.algorithms.hierarchical.inter import (HEURISTICS, VARIANTS, arrival_bound, completion, optimum,
                                                     schedule)


def random_grids(rng, B, n):
    L = rng.uniform(1e-3, 15e-3, (B, n, n))
    g = 1e6 / rng.uniform(1e6, 1e8, (B, n, n))
    T = rng.uniform(0.2, 3.0, (B, n))
    return L, g, T


def brute_force(L, g, T):
    """Every sequence of rounds, each send as soon as its sender is free: the slow, obvious optimum."""
    n = len(T)
    best = np.inf

    def go(RT, inA, left):
        nonlocal best
        if not left:
            best = min(best, max(RT[k] + T[k] for k in range(n)))
            return
        for i in [k for k in range(n) if inA[k]]:
            for j in [k for k in range(n) if not inA[k]]:
                R, A = list(RT), list(inA)
                R[j], R[i], A[j] = R[i] + g[i][j] + L[i][j], R[i] + g[i][j], True
                go(R, A, left - 1)

    go([0.0] * n, [True] + [False] * (n - 1), n - 1)
    return best


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_optimum_equals_brute_force(n):
    rng = np.random.default_rng(n)
    L, g, T = random_grids(rng, 6, n)
    for b in range(6):
        value, rounds = optimum(L[b], g[b], T[b])
        assert value == pytest.approx(brute_force(L[b], g[b], T[b]), rel=1e-12)
        s, r = np.array([[i for i, _ in rounds]]), np.array([[j for _, j in rounds]])
        assert completion(L[b:b + 1], g[b:b + 1], T[b:b + 1], s, r)[0] == pytest.approx(value, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_bounds_sandwich_every_heuristic(n, seed):
    L, g, T = random_grids(np.random.default_rng(seed), 1, n)
    values = {h: completion(L, g, T, *schedule(h, L, g, T))[0] for h in HEURISTICS + VARIANTS}
    opt = optimum(L[0], g[0], T[0], incumbent=min(values.values()) * (1 + 1e-12))[0]
    assert arrival_bound(L, g, T)[0] <= opt + 1e-12
    assert all(v >= opt - 1e-12 for v in values.values())


def test_batch_equals_one_by_one():
    L, g, T = random_grids(np.random.default_rng(3), 20, 9)
    for h in HEURISTICS:
        s, r = schedule(h, L, g, T, chunk=7)
        for b in (0, 11, 19):
            s1, r1 = schedule(h, L[b:b + 1], g[b:b + 1], T[b:b + 1])
            assert (s1[0] == s[b]).all() and (r1[0] == r[b]).all()


def test_rounds_form_a_broadcast_tree():
    L, g, T = random_grids(np.random.default_rng(4), 5, 12)
    for h in HEURISTICS:
        s, r = schedule(h, L, g, T)
        for b in range(5):
            assert sorted(r[b]) == list(range(1, 12))
            have = {0}
            for i, j in zip(s[b], r[b]):
                assert i in have
                have.add(j)


def test_worked_example_by_hand():
    # 3 clusters, L = 1 everywhere; g(0->1) = 1, g(1->2) = 1, g(0->2) = 8; T = 0
    L = np.ones((1, 3, 3))
    g = np.array([[[0, 1, 8], [1, 0, 1], [8, 1, 0]]], dtype=float)
    T = np.zeros((1, 3))
    done = {h: completion(L, g, T, *schedule(h, L, g, T))[0] for h in HEURISTICS}
    # flat tree: 0->1 ends at 2, 0->2 starts at 1 and ends at 1 + 8 + 1 = 10
    assert done["flat_tree"] == 10.0
    # every other heuristic relays through cluster 1: 0->1 at 2, 1->2 at 2 + 1 + 1 = 4
    assert all(done[h] == 4.0 for h in HEURISTICS if h != "flat_tree")
    # a long intra-cluster time makes the look-ahead with T serve cluster 2 early (ECEF-LAt)
    T2 = np.array([[0.0, 0.0, 9.0]])
    assert optimum(L[0], g[0], T2[0])[0] == 13.0


def test_ecef_family_closer_to_the_optimum_than_flat_tree_and_fef():
    """The paper's finding (Figure 4b) on 300 grids of 20 clusters (Section 7's ranges)."""
    L, g, T = random_grids(np.random.default_rng(5), 300, 20)
    mean = {h: completion(L, g, T, *schedule(h, L, g, T)).mean() for h in HEURISTICS}
    assert mean["flat_tree"] > mean["fef"] > max(mean[h] for h in ("ecef", "ecef_la", "ecef_lat", "ecef_lat_max"))
    family = [mean[h] for h in ("ecef", "ecef_la", "ecef_lat", "ecef_lat_max")]
    assert max(family) / min(family) < 1.02


def test_bad_input():
    with pytest.raises(ValueError, match="heuristic"):
        schedule("greedy", np.ones((1, 2, 2)), np.ones((1, 2, 2)), np.ones((1, 2)))
    with pytest.raises(ValueError, match="shapes"):
        schedule("ecef", np.ones((2, 2)), np.ones((2, 2)), np.ones(2))
