"""The canonical optimum (canonical.py): solver-independent, optimal, least busy, proven unique (issue 13 §2)."""

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_steady_state_paper import FIG2_MESSAGES, FIG6_REDUCE, figure2, figure6

import collsched as cs
from collsched.algorithms.steady_state import canonical, exact
from collsched.algorithms.steady_state import lp_alltoall, lp_reduce
from collsched.algorithms.steady_state.canonical import independent, solve_canonical
from collsched.algorithms.steady_state.lp_alltoall import commodities_of
from collsched.algorithms.steady_state.lp_broadcast import solve_broadcast

#: HiGHS run differently (with the columns in both orders, the cases below get several optimal vertices from them).
HIGHS_RUNS = [{}, {"solver": "ipm"}, {"simplex_strategy": 4, "presolve": "off"}, {"random_seed": 7}]


def cases():
    p4 = cs.topologies.fully_connected(4, bandwidth=1, latency=0, speed=1)
    return {
        "fig6 reduce": lambda: lp_reduce._build(figure6(), FIG6_REDUCE)[::4][:2],
        "complete-4 reduce": lambda: lp_reduce._build(
            p4, cs.Reduce(participants=p4.hosts, target="h0", size=1, task_cost=1))[::4][:2],
        "fig2 scatter": lambda: _flows(figure2(), FIG2_MESSAGES),
        "complete-4 all-to-all": lambda: _flows(p4, commodities_of(cs.AllToAll(senders=p4.hosts, size=1))),
    }


def _flows(p, comms):
    lp, _, _, busy, _ = lp_alltoall._build(p, comms)
    return lp, {j: s for cols in busy.values() for j, s in cols.items()}


def busy_of(x, seconds):
    return sum((x[j] * s for j, s in seconds.items()), F(0))


def reversed_columns(lp, seconds):
    """The same LP with its columns in the opposite order (HiGHS then pivots differently)."""
    n = len(lp.names)
    rev = exact.LinearProgram(lp.names[::-1], [{n - 1 - j: a for j, a in r.items()} for r in lp.rows], list(lp.rhs),
                              {n - 1 - j: c for j, c in lp.objective.items()})
    return rev, {n - 1 - j: v for j, v in seconds.items()}


def test_canonical_optimum_does_not_depend_on_how_highs_runs(monkeypatch):
    """Four HiGHS strategies, columns in both orders: HiGHS's own optima differ, the canonical one does not."""
    differ = []
    for name, make in cases().items():
        raw, canon = set(), set()
        for opts in HIGHS_RUNS:
            monkeypatch.setattr(exact, "_HIGHS_OPTIONS", dict(opts))
            for flip in (False, True):
                lp, seconds = make()
                if flip:
                    lp, seconds = reversed_columns(lp, seconds)
                r = exact.solve(lp)
                c = solve_canonical(lp, seconds)
                assert r.certified and c.certified and c.unique and c.objective == r.objective
                assert exact._certify(lp, c.x, r.y)   # optimal, with another run's dual as the certificate
                assert busy_of(c.x, seconds) <= busy_of(r.x, seconds)
                raw.add(tuple(r.x[::-1] if flip else r.x))
                canon.add(tuple(c.x[::-1] if flip else c.x))
        assert len(canon) == 1, name
        differ.append(len(raw) > 1)
    assert any(differ)                               # HiGHS's own choice does change: the test is not vacuous


def test_fig6_trees_are_the_same_however_highs_runs(monkeypatch):
    trees = []
    for opts in HIGHS_RUNS:
        monkeypatch.setattr(exact, "_HIGHS_OPTIONS", dict(opts))
        s = cs.plan(figure6(), cs.Series(FIG6_REDUCE, count=6), algorithm="steady_state")
        assert s.params["canonical"] == "unique"
        trees.append((s.period, s.params["tree_weights"], s.params["tree_tasks"]))
    assert trees[0] == (1, ["1"], [[["send", "P1", "P2", 1, 1], ["cons", "P2", 1, 1, 2], ["send", "P2", "P0", 1, 2],
                                    ["cons", "P0", 0, 0, 2]]])
    assert all(t == trees[0] for t in trees)


def test_without_tie_breaks_the_uniqueness_proof_can_fail(monkeypatch):
    """On the symmetric complete graph, the least busy optima form a face: no proof without a tie-break."""
    monkeypatch.setattr(canonical, "TIE_BREAKS", 0)
    lp, seconds = cases()["complete-4 reduce"]()
    c = solve_canonical(lp, seconds)
    assert c.certified and not c.unique and [n for n, _ in c.stages] == ["throughput", "busy time"]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["reduce", "alltoall", "broadcast"]))
def test_random_tiers_canonical_is_optimal_least_busy_and_unique(seed, kind):
    p = cs.topologies.tiers(seed=seed, wan_nodes=2, mans=1, man_nodes=2, lans_per_man=2, lan_hosts=2)
    rng = np.random.default_rng(seed)
    h = [p.hosts[i] for i in rng.permutation(len(p.hosts))[:4]]
    if kind == "broadcast":
        b = solve_broadcast(p, cs.Broadcast(source=h[0], targets=h[1:], size=1e5))
        assert b.solution.certified and b.solution.unique
        return
    if kind == "reduce":
        lp, seconds = lp_reduce._build(p, cs.Reduce(participants=h, target=h[1], size=1e5, task_cost=1e6))[::4][:2]
    else:
        lp, seconds = _flows(p, commodities_of(cs.AllToAll(senders=h[:3], size=1e5)))
    r = exact.solve(lp)
    c = solve_canonical(lp, seconds)
    assert c.unique and c.objective == r.objective and exact._certify(lp, c.x, r.y)
    assert busy_of(c.x, seconds) <= busy_of(r.x, seconds)


def rank(rows, cols):
    """Dense Gaussian elimination in fractions: the slow, obvious reference."""
    m = [[F(r.get(c, 0)) for c in cols] for r in rows]
    rk = 0
    for j in range(len(cols)):
        piv = next((i for i in range(rk, len(m)) if m[i][j]), None)
        if piv is None:
            continue
        m[rk], m[piv] = m[piv], m[rk]
        for i in range(len(m)):
            if i != rk and m[i][j]:
                f = m[i][j] / m[rk][j]
                m[i] = [a - f * b for a, b in zip(m[i], m[rk])]
        rk += 1
    return rk


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 5), st.integers(-2, 2), max_size=4), min_size=1, max_size=6),
       st.sets(st.integers(0, 5), min_size=1))
def test_independence_matches_dense_elimination(rows, cols):
    rows = [{c: F(a) for c, a in r.items()} for r in rows]
    cols = sorted(cols)
    assert independent(rows, cols) == (rank(rows, cols) == len(cols))
