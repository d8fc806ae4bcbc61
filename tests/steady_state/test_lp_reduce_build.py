"""SSR's conservation rows built from coordinate arrays (lp_reduce.conservation_rows) against the row-by-row loop."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_platforms import random_platform, random_series
from test_steady_state_paper import FIG6_REDUCE, figure6

import collsched as cs
from collsched.algorithms.steady_state import lp_reduce
from collsched.algorithms.steady_state.exact import SparseLP


def conservation_rows_reference(lp, tp, net, hosts_of, target, scol, ccol, intervals, hosts):
    """The rows one at a time, a dictionary per row (lp_reduce.reduce_rows before the arrays)."""
    N = len(hosts_of) - 1
    offset = {}
    for k in range(N + 1):
        for m in range(k + 1, N + 1):
            for l in range(k, m):
                offset[(k, l, m)] = len(offset)
    first = {i: ccol[(i, 0, 0, 1)] for i in hosts} if N >= 1 else {}
    for i in net.nodes:
        base = first.get(i)
        for k, m in intervals:
            if k == m and i == hosts_of[k]:
                continue
            coefs = {}
            for u, v in net.in_edges[i]:
                if (u, v, k, m) in scol:
                    coefs[scol[(u, v, k, m)]] = 1
            for u, v in net.out_edges[i]:
                if (u, v, k, m) in scol:
                    coefs[scol[(u, v, k, m)]] = -1
            if base is not None:
                for l in range(k, m):  # T(k,l,m) makes [k..m]
                    coefs[base + offset[(k, l, m)]] = 1
                for n in range(m + 1, N + 1):  # [k..m] is the left operand
                    coefs[base + offset[(k, m, n)]] = -1
                for n in range(0, k):  # and the right one
                    coefs[base + offset[(n, k - 1, m)]] = -1
            if (k, m) == (0, N) and i == target:
                coefs[tp] = Fraction(-1)
            if coefs:
                lp.row(coefs, 0)


def both(platform, reduce, ports="one"):
    new = lp_reduce._build(platform, reduce, ports)[0]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lp_reduce, "conservation_rows", conservation_rows_reference)
        old = lp_reduce._build(platform, reduce, ports)[0]
    return new, old


def assert_same_lp(new, old):
    """The same LP entry for entry: names, rows (each in the same order), right-hand sides, objective, matrix."""
    assert new.names == old.names and new.rhs == old.rhs and new.objective == old.objective
    assert [list(r.items()) for r in new.rows] == [list(r.items()) for r in old.rows]
    a, b = SparseLP(new), SparseLP(old)
    assert a.row.tolist() == b.row.tolist() and a.col.tolist() == b.col.tolist()
    assert a.exact.tolist() == b.exact.tolist() and a.floats.tolist() == b.floats.tolist()


def test_fig6_reduce_lp_is_the_row_by_row_lp():
    new, old = both(figure6(), FIG6_REDUCE)
    assert_same_lp(new, old)


@pytest.mark.parametrize("k", [2, 8, 17])
def test_tiers_reduce_lp_is_the_row_by_row_lp(k):
    q = cs.topologies.tiers(seed=1)
    hosts = list(q.hosts)
    new, old = both(q, cs.Reduce(participants=hosts[:k], target=hosts[-1], size=1e7, task_cost=1e7))
    assert_same_lp(new, old)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), ports=st.sampled_from(["one", "multi"]))
def test_random_reduce_lps_are_the_row_by_row_lps(seed, ports):
    """Relays, one-way links, targets outside the participants, free tasks."""
    p = random_platform(seed)
    new, old = both(p, random_series(p, "reduce", seed).base, ports)
    assert_same_lp(new, old)


def test_add_rows_is_row_after_row():
    lp, ref = lp_reduce.LinearProgram(), lp_reduce.LinearProgram()
    for x in (lp, ref):
        for name in "abc":
            x.column(name)
    ref.row({2: Fraction(1, 3), 0: -1}, 0)
    ref.row({1: 5}, Fraction(7, 2))
    lp.add_rows(np.array([2, 1]), np.array([2, 0, 1]), np.array([Fraction(1, 3), Fraction(-1), Fraction(5)]),
                [0, Fraction(7, 2)])
    assert [list(r.items()) for r in lp.rows] == [list(r.items()) for r in ref.rows] and lp.rhs == ref.rhs
