"""The filtered certificate (certificate.py) against the exact reduced costs it replaces (exact._reduced_costs)."""

import random
from fractions import Fraction as F

import flint
import numpy as np
import pytest
from test_steady_state_paper import FIG6_REDUCE, figure6

import collsched as cs
from collsched.algorithms.steady_state import certificate, exact, lp_reduce, tree_pricing
from collsched.algorithms.steady_state.canonical import solve_canonical
from collsched.algorithms.steady_state.exact import SparseLP
from collsched.algorithms.steady_state.tree_pricing import TreePricing


def priced_certificates(platform, reduce):
    """Every (lp, sparse, x, y, cost, fixed) the tree pricing certified while solving the reduce canonically."""
    lp, tp, scol, ccol, seconds, net, hosts_of, target = lp_reduce._build(platform, reduce)
    sparse = SparseLP(lp)
    calls = []

    def recording(sparse, x, y, cost, fixed=frozenset(), cost_float=None):
        # the stage's own doubles of the cost give the signs computed without them
        assert cost_float is not None and cost_float.tolist() == [float(v) for v in cost]
        calls.append((lp, sparse, x.copy(), y.copy(), cost.copy(), frozenset(fixed)))
        return certificate.certify(sparse, x, y, cost, fixed, cost_float)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tree_pricing, "certify", recording)
        sol = solve_canonical(lp, seconds, pricing=TreePricing(lp, sparse, scol, ccol, net, hosts_of, target, tp))
    assert sol.certified and sol.unique
    return calls


def cases():
    q = cs.topologies.tiers(seed=1)
    hosts = list(q.hosts)
    yield "fig6", priced_certificates(figure6(), FIG6_REDUCE)
    yield "tiers reduce 8", priced_certificates(q, cs.Reduce(participants=hosts[:8], target=hosts[0], size=1e7,
                                                             task_cost=1e7))


CASES = dict(cases())


def exact_positive(lp, sparse, x, y, cost, fixed):
    """The reference: every reduced cost in rationals (exact._reduced_costs), positive where > 0 and not fixed."""
    reduced = exact._reduced_costs(lp, x, y, fixed, sparse, cost)
    if reduced is None:
        return None
    free = np.ones(sparse.shape[1], bool)
    free[list(fixed)] = False
    return free & np.array([d > 0 for d in reduced], bool)


def test_flint_converts_rationals_to_doubles_within_the_unit_roundoff():
    """The filter's bound assumes |float(q) - q| <= 2u |q|; python-flint is within u on rationals of up to 3,000 bits."""
    rng = random.Random(5)
    checked = 0
    for _ in range(3000):
        p, q = rng.getrandbits(rng.randint(1, 3000)) + 1, rng.getrandbits(rng.randint(1, 3000)) + 1
        v = F(p if rng.random() < 0.5 else -p, q)
        if 1e-250 <= abs(v) <= 1e250:
            assert abs(F(float(flint.fmpq(v.numerator, v.denominator))) - v) <= abs(v) / 2**53
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("name", list(CASES))
def test_certify_decides_every_sign_as_the_exact_reduced_costs(name):
    decided_somewhere = undecided_somewhere = False
    for lp, sparse, x, y, cost, fixed in CASES[name]:
        positive = certificate.certify(sparse, x, y, cost, fixed)
        reference = exact_positive(lp, sparse, x, y, cost, fixed)
        assert positive is not None and reference is not None
        assert positive.tolist() == reference.tolist()
        # the filter's bound holds on every column it judges safe, checked in rationals
        free = np.ones(sparse.shape[1], bool)
        free[list(fixed)] = False
        r, bound, safe = certificate.float_reduced_costs(sparse, y, cost, free)
        reduced = exact._reduced_costs(lp, x, y, fixed, sparse, cost)
        for j in np.flatnonzero(safe).tolist():
            exact_r = F(int(reduced[j].p), int(reduced[j].q))
            assert abs(F(float(r[j])) - exact_r) <= F(float(bound[j]))
        decided = safe & (np.abs(r) > bound)
        decided_somewhere |= bool(decided.any())
        undecided_somewhere |= bool((free & ~decided).any())
    assert decided_somewhere and undecided_somewhere  # both paths ran


def nudged_dual(lp, sparse, x, y, cost, fixed, size):
    """``y`` moved on one row so that a column of zero reduced cost gets the reduced cost ``-size``."""
    reduced = exact._reduced_costs(lp, x, y, fixed, sparse, cost)
    free = np.ones(sparse.shape[1], bool)
    free[list(fixed)] = False
    for k in range(len(sparse.row)):
        i, j = int(sparse.row[k]), int(sparse.col[k])
        if free[j] and not reduced[j] and not sparse.rhs[i]:  # a conservation row: b·y, the gap, unchanged
            wrong = y.copy()
            wrong[i] = y[i] - flint.fmpq(size.numerator, size.denominator) / sparse.exact[k]
            return wrong
    raise AssertionError("no column of zero reduced cost")


@pytest.mark.parametrize("size", [F(1, 10**40), F(1, 3)])
def test_a_negative_reduced_cost_near_zero_or_far_from_it_is_refused(size):
    """-1e-40: within the filter's bound, found by the exact sums; -1/3: outside it, found by the filter."""
    lp, sparse, x, y, cost, fixed = CASES["tiers reduce 8"][-1]
    wrong = nudged_dual(lp, sparse, x, y, cost, fixed, size)
    assert certificate.certify(sparse, x, wrong, cost, fixed) is None
    assert exact_positive(lp, sparse, x, wrong, cost, fixed) is None
    free = np.ones(sparse.shape[1], bool)
    free[list(fixed)] = False
    r, bound, safe = certificate.float_reduced_costs(sparse, wrong, cost, free)
    negative = free & (r < -bound) & safe
    assert negative.any() == (size == F(1, 3))


def test_a_primal_off_its_vertex_and_a_dual_out_of_double_range():
    lp, sparse, x, y, cost, fixed = CASES["tiers reduce 8"][0]
    j = next(j for j, v in enumerate(x) if v)
    nudged = x.copy()
    nudged[j] = x[j] + flint.fmpq(1, 10**30)
    assert certificate.certify(sparse, nudged, y, cost, fixed) is None
    # y on a conservation row shifted by 1e-300 (b = 0 there: the gap unchanged): the columns on that row are
    # summed in rationals (a double cannot hold the shift), and the signs are still the exact ones
    i = next(i for i in range(sparse.shape[0]) if not sparse.rhs[i] and y[i])
    tiny = y.copy()
    tiny[i] = flint.fmpq(1, 10**300)
    free = np.ones(sparse.shape[1], bool)
    free[list(fixed)] = False
    _, _, safe = certificate.float_reduced_costs(sparse, tiny, cost, free)
    on_row = np.unique(sparse.col[sparse.row == i])
    assert not safe[on_row].any()
    positive, reference = certificate.certify(sparse, x, tiny, cost, fixed), exact_positive(lp, sparse, x, tiny, cost,
                                                                                            fixed)
    assert (positive is None) == (reference is None)
    assert positive is None or positive.tolist() == reference.tolist()


def test_the_priced_stages_hold_the_columns_the_exact_reduced_costs_hold():
    """The whole chain: the canonical optimum with the filtered certificate is the one HiGHS finds on the whole LP."""
    q = cs.topologies.tiers(seed=1)
    hosts = list(q.hosts)
    reduce = cs.Reduce(participants=hosts[:6], target=hosts[0], size=1e7, task_cost=1e7)
    lp, tp, scol, ccol, seconds, net, hosts_of, target = lp_reduce._build(q, reduce)
    priced = solve_canonical(lp, seconds, pricing=TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp))
    whole = solve_canonical(lp, seconds)
    assert priced.x == whole.x and priced.stages == whole.stages and priced.unique and whole.unique
    assert exact._certify(lp, priced.x, priced.y)
