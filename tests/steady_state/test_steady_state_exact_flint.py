"""The exact recovery and certificate in python-flint (exact.py) against the obvious Fraction loops they replace."""

from fractions import Fraction as F

import flint
import numpy as np
import pytest
from test_steady_state_paper import FIG6_REDUCE, figure6

import collsched as cs
from collsched.algorithms.steady_state import exact, lp_reduce
from collsched.algorithms.steady_state.canonical import solve_canonical


def reduced_costs_reference(lp, x, y, fixed=frozenset()):
    """``A^T y - c`` if (x, y) certifies optimality, else None: row by row in Fractions (exact.py before flint)."""
    if any(v < 0 for v in x) or any(x[j] for j in fixed):
        return None
    reduced = [-lp.objective.get(j, F(0)) for j in range(len(x))]
    for i, r in enumerate(lp.rows):
        if sum((a * x[j] for j, a in r.items()), F(0)) != lp.rhs[i]:
            return None
        for j, a in r.items():
            reduced[j] += a * y[i]
    if any(d < 0 for j, d in enumerate(reduced) if j not in fixed):
        return None
    primal = sum((c * x[j] for j, c in lp.objective.items()), F(0))
    dual = sum((b * v for b, v in zip(lp.rhs, y)), F(0))
    return reduced if primal == dual else None


def lps():
    q = cs.topologies.tiers(seed=1)
    hosts = list(q.hosts)
    yield "fig6", lp_reduce._build(figure6(), FIG6_REDUCE)
    yield "tiers reduce 5", lp_reduce._build(q, cs.Reduce(participants=hosts[:5], target=hosts[0], size=1e7,
                                                          task_cost=1e7))


LPS = dict(lps())


def as_fractions(values):
    return [F(int(v.p), int(v.q)) for v in values]


@pytest.mark.parametrize("name", list(LPS))
def test_certificate_and_reduced_costs_are_the_reference_s(name):
    lp, seconds = LPS[name][0], LPS[name][4]
    sol = solve_canonical(lp, seconds)
    assert sol.certified and sol.unique
    first = exact.solve(lp)
    reference = reduced_costs_reference(lp, first.x, first.y)
    assert reference is not None and as_fractions(first.reduced) == reference
    assert as_fractions(exact._reduced_costs(lp, first.x, first.y)) == reference
    # the canonical x with the first run's dual: optimal; moved off its vertex or the dual changed: refused by both
    assert as_fractions(exact._reduced_costs(lp, sol.x, first.y)) == reduced_costs_reference(lp, sol.x, first.y)
    j = next(j for j, v in enumerate(sol.x) if v)
    nudged = list(sol.x)
    nudged[j] += F(1, 10**30)
    assert exact._reduced_costs(lp, nudged, first.y) is None is reduced_costs_reference(lp, nudged, first.y)
    i = next(i for i, v in enumerate(first.y) if v)
    wrong = list(first.y)
    wrong[i] *= F(3, 2)
    assert exact._reduced_costs(lp, first.x, wrong) is None is reduced_costs_reference(lp, first.x, wrong)
    # a column held at zero: its reduced cost may have any sign, but x must be zero there
    positive = [j for j, d in enumerate(reference) if d > 0]
    assert exact._certify(lp, first.x, first.y, frozenset(positive))
    on = next(j for j, v in enumerate(first.x) if v)
    assert not exact._certify(lp, first.x, first.y, frozenset([on]))


def test_the_elimination_in_fmpq_gives_the_fraction_elimination_s_values():
    """A sparse, diagonally dominant (so regular) system with coefficients like the LPs' (sizes times costs)."""
    rng = np.random.default_rng(3)
    n = 40
    rows = []
    for i in range(n):
        r = {int(j): F(int(rng.integers(1, 10**6)), 2 ** int(rng.integers(0, 60))) for j in rng.choice(n, 4)}
        r[i] = sum((abs(v) for v in r.values()), F(1))
        rows.append(r)
    rhs = [F(int(rng.integers(-5, 6))) for _ in range(n)]
    slow = exact.solve_sparse(rows, rhs, list(range(n)))
    q = [{j: flint.fmpq(a.numerator, a.denominator) for j, a in r.items()} for r in rows]
    fast = exact.solve_sparse(q, [flint.fmpq(v.numerator, v.denominator) for v in rhs], list(range(n)))
    assert {j: F(int(v.p), int(v.q)) for j, v in fast.items()} == slow
    assert all(sum(a * slow[j] for j, a in r.items()) == b for r, b in zip(rows, rhs))


def test_sparse_view_is_the_rows_and_hands_highs_their_doubles():
    lp = LPS["tiers reduce 5"][0]
    a = exact.SparseLP(lp)
    assert a.shape == (len(lp.rows), len(lp.names))
    triples = [(i, j, v) for i, r in enumerate(lp.rows) for j, v in r.items()]
    assert list(zip(a.row.tolist(), a.col.tolist())) == [(i, j) for i, j, _ in triples]
    assert as_fractions(a.exact) == [v for _, _, v in triples]
    assert a.floats.tolist() == [float(v) for _, _, v in triples]
    start, index, value = a.csc()
    for j in (0, len(lp.names) // 2, len(lp.names) - 1):
        column = sorted((i, float(v)) for i, jj, v in triples if jj == j)
        assert list(zip(index[start[j]:start[j + 1]].tolist(), value[start[j]:start[j + 1]].tolist())) == column


def test_a_coefficient_out_of_double_range_is_named():
    lp = exact.LinearProgram()
    x, y = lp.column("x"), lp.column(("send", "a", "b"))
    lp.row({x: 1, y: F(1, 10**300)}, 1)
    with pytest.raises(exact.SteadyStateError, match=r"~1e-300 of \('send', 'a', 'b'\) is out of floating-point"):
        exact.SparseLP(lp)


def test_reduce_optimum_of_eight_participants_is_certified_in_both_recoveries(monkeypatch):
    """The tiers reduce of 8 participants: the rounded guess fails (huge denominators), the basis solve certifies."""
    q = cs.topologies.tiers(seed=1)
    hosts = list(q.hosts)
    r = lp_reduce.solve_reduce(q, cs.Reduce(participants=hosts[:8], target=hosts[0], size=1e7, task_cost=1e7))
    lp = lp_reduce.reduce_lp(q, cs.Reduce(participants=hosts[:8], target=hosts[0], size=1e7, task_cost=1e7))
    assert r.solution.certified and r.solution.recovery == "basis"
    assert reduced_costs_reference(lp, r.solution.x, r.solution.y) is not None
    assert r.throughput == r.solution.objective == exact.objective_of(lp, {lp.names[j]: v for j, v in
                                                                             enumerate(r.solution.x) if v})
    assert np.isfinite(float(r.throughput))
