"""canonical.independent, with the peeling on coordinate arrays (canonical._peel), against an exact dense rank."""

from fractions import Fraction as F

import flint
import numpy as np
import pytest

from collsched.algorithms.steady_state import canonical
from collsched.algorithms.steady_state.exact import LinearProgram, SparseLP


def random_matrix(seed):
    """Sparse rows like the LPs' (±1 mostly, a few rationals), some columns repeated or combined."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(2, 14)), int(rng.integers(2, 16))
    rows = [{} for _ in range(m)]
    for j in range(n):
        for i in rng.choice(m, int(rng.integers(1, min(m, 4) + 1)), replace=False).tolist():
            rows[i][j] = F(int(rng.choice([-1, 1, 1, 2])), int(rng.choice([1, 1, 3])))
    if rng.random() < 0.3:  # a column equal to another plus a third: dependent when all three are taken
        a, b = rng.choice(n, 2, replace=False).tolist()
        j = n
        for r in rows:
            v = r.get(a, 0) + r.get(b, 0)
            if v:
                r[j] = v
        n += 1
    return rows, n


def rank_says(rows, cols):
    cols = list(cols)
    if not cols:
        return True
    dense = flint.fmpq_mat([[flint.fmpq(r.get(j, F(0)).numerator, r.get(j, F(0)).denominator) for j in cols]
                            for r in rows])
    return dense.rank() == len(cols)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("rounds", [canonical.PEEL_ROUNDS, 1])
def test_independent_is_the_exact_rank_s_answer(seed, rounds, monkeypatch):
    """With the peeling on arrays (whole, or one round then the loop) and without it."""
    monkeypatch.setattr(canonical, "PEEL_ROUNDS", rounds)
    rows, n = random_matrix(seed)
    lp = LinearProgram([f"x{j}" for j in range(n)], rows, [F(0)] * len(rows), {})
    sparse = SparseLP(lp)
    rng = np.random.default_rng(seed + 1000)
    for _ in range(6):
        cols = sorted(set(rng.choice(n, int(rng.integers(1, n + 1)), replace=False).tolist()))
        expected = rank_says(rows, cols)
        assert canonical.independent(rows, cols, sparse) == expected
        assert canonical.independent(rows, cols) == expected


def test_peeling_a_chain_takes_one_round_per_link_and_hands_the_rest_on(monkeypatch):
    """A bidiagonal chain peels one column per round: cut at two rounds, the loop finishes it."""
    n = 30
    rows = [{j: F(1), j + 1: F(-1)} for j in range(n - 1)] + [{n - 1: F(1)}]
    sparse = SparseLP(LinearProgram([f"x{j}" for j in range(n)], rows, [F(0)] * n, {}))
    monkeypatch.setattr(canonical, "PEEL_ROUNDS", 2)
    entries, columns = canonical._peel(sparse.row, sparse.col, n, n)
    assert int(columns.sum()) == n - 2  # two rounds, two columns
    assert canonical.independent(rows, range(n), sparse) and not canonical.independent(rows + [{0: F(1)}],
                                                                                           range(n + 1))
