"""The matching ordering in the Rust core against scipy's round-by-round solution (the reference)."""

import numpy as np
import pytest

from collsched.algorithms.orderings.matching import matching_rounds, matching_rounds_reference


@pytest.mark.parametrize("shape", [(2, 2), (5, 5), (12, 12), (7, 3), (3, 9), (20, 20)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_same_rounds_as_scipy_where_each_round_is_unique(shape, seed):
    rng = np.random.default_rng(seed)
    cost = rng.uniform(1.0, 10.0, size=shape)  # continuous costs: every round's best matching is unique
    mask = rng.random(shape) < 0.8
    assert matching_rounds(cost, mask) == matching_rounds_reference(cost, mask)


def _weights(rounds, cost):
    return [(len(r), sum(cost[i, j] for i, j in r)) for r in rounds]


def _each_round_is_a_best_matching_of_what_remains(rounds, cost, mask):
    """Where ties allow several answers, each of our rounds is as large and as heavy as scipy's best of what remains."""
    left = mask.copy()
    for r in rounds:
        best = matching_rounds_reference(cost, left)[0]  # scipy's first round on what remains
        assert _weights([r], cost) == _weights([best], cost)
        for i, j in r:
            assert left[i, j]
            left[i, j] = False
    assert not left.any()


@pytest.mark.parametrize("n", [4, 9, 16])
def test_rounds_of_equal_weight_where_ties_make_many_answers(n):
    cost = np.where(np.eye(n, dtype=bool), 0.0, 1.0)
    cost[0, 1:] = 2.0  # ties everywhere but one heavier sender
    mask = ~np.eye(n, dtype=bool)
    ours, ref = matching_rounds(cost, mask), matching_rounds_reference(cost, mask)
    assert _weights(ours, cost) == _weights(ref, cost) == [(n, n + 1.0)] * (n - 1)
    _each_round_is_a_best_matching_of_what_remains(ours, cost, mask)


@pytest.mark.parametrize("seed", [7, 8])
def test_integer_costs_of_the_heterogeneous_overhead_platform(seed):
    rng = np.random.default_rng(seed)
    n = 24
    o = rng.choice([1.0, 5.0, 10.0], size=n)  # seed 004's overheads: many ties
    mask = ~np.eye(n, dtype=bool)
    cost = np.where(mask, o[:, None] + 1.0 + o[None, :], 0.0)
    ours = matching_rounds(cost, mask)
    assert _weights(ours[:1], cost) == _weights(matching_rounds_reference(cost, mask)[:1], cost)
    _each_round_is_a_best_matching_of_what_remains(ours, cost, mask)


def test_bad_inputs_raise_value_errors():
    with pytest.raises(ValueError, match="one shape"):
        matching_rounds(np.ones((2, 3)), np.ones((3, 2), bool))
    with pytest.raises(ValueError, match="finite"):
        matching_rounds(np.array([[1.0, np.nan]]), np.ones((1, 2), bool))
