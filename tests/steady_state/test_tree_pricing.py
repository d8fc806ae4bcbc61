"""Reduction trees priced by dynamic programming (tree_pricing.py): the canonical optimum HiGHS finds on the LP."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_platforms import random_platform, random_series
from test_steady_state_paper import FIG6_REDUCE, figure6

import collsched as cs
from collsched.algorithms.steady_state import exact, lp_reduce, tree_pricing
from collsched.algorithms.steady_state.canonical import solve_canonical
from collsched.algorithms.steady_state.exact import SparseLP
from collsched.algorithms.steady_state.tree_pricing import TreePricing


def both(platform, reduce, ports="one"):
    """The canonical optimum of SSR by pricing trees, and by HiGHS on the whole LP."""
    lp, tp, scol, ccol, seconds, net, hosts_of, target = lp_reduce._build(platform, reduce, ports)
    pricing = TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp)
    return lp, solve_canonical(lp, seconds, pricing=pricing), solve_canonical(lp, seconds)


def assert_same(lp, priced, whole):
    assert priced.certified and whole.certified
    assert priced.x == whole.x and priced.objective == whole.objective and priced.unique and whole.unique
    assert "input" not in priced.timings  # every stage priced: no HiGHS model of the whole LP was built
    common = min(len(priced.stages), len(whole.stages))  # the same optimum at every stage both ran
    assert priced.stages[:common] == whole.stages[:common]
    assert exact._certify(lp, priced.x, priced.y)  # the first stage's dual, completed by the programme


def test_fig6_reduce_priced_is_the_canonical_tree():
    lp, priced, whole = both(figure6(), FIG6_REDUCE)
    assert_same(lp, priced, whole)


def test_tiers_reduce_of_eight_participants_priced_as_on_the_whole_lp():
    q = cs.topologies.tiers(seed=1)
    h = list(q.hosts)
    lp, priced, whole = both(q, cs.Reduce(participants=h[:8], target=h[0], size=1e7, task_cost=1e7))
    assert_same(lp, priced, whole)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), ports=st.sampled_from(["one", "multi"]))
def test_random_reduces_priced_as_on_the_whole_lp(seed, ports):
    """Relays, one-way links, free tasks (task cost 0: ties everywhere), targets outside the participants."""
    p = random_platform(seed)
    lp, priced, whole = both(p, random_series(p, "reduce", seed).base, ports)
    assert_same(lp, priced, whole)


def test_a_stage_the_pricing_cannot_finish_runs_on_the_whole_lp(monkeypatch):
    monkeypatch.setattr(tree_pricing, "MAX_ROUNDS", 0)
    q = cs.topologies.tiers(seed=1)
    h = list(q.hosts)
    lp, priced, whole = both(q, cs.Reduce(participants=h[:4], target=h[0], size=1e7, task_cost=1e7))
    assert priced.x == whole.x and priced.unique and "input" in priced.timings


@pytest.mark.parametrize("ports", ["one", "multi"])
def test_solve_reduce_prices_trees(ports):
    q = cs.topologies.tiers(seed=1)
    h = list(q.hosts)
    r = lp_reduce.solve_reduce(q, cs.Reduce(participants=h[:6], target=h[2], size=1e7, task_cost=1e7), ports=ports)
    assert r.solution.certified and r.solution.unique and "input" not in r.solution.timings


def test_a_dual_the_certificate_refuses_is_recomputed_by_the_whole_programme_in_rationals(monkeypatch):
    """The floats' choices spoiled (D = 0 everywhere: the TP column's constraint D(t, [0..N]) >= 1 fails): the
    certificate refuses that dual, the programme runs in rationals, and the stage still finishes by pricing."""
    along, programme = TreePricing._along, TreePricing._programme
    exact_runs = []

    def counted(self, w, c_tp, exact):
        exact_runs.append(exact)
        return programme(self, w, c_tp, exact)

    monkeypatch.setattr(TreePricing, "_along", lambda self, *a: along(self, *a) * 0)
    monkeypatch.setattr(TreePricing, "_programme", counted)
    q = cs.topologies.tiers(seed=1)
    h = list(q.hosts)
    lp, priced, whole = both(q, cs.Reduce(participants=h[:5], target=h[0], size=1e7, task_cost=1e7))
    assert_same(lp, priced, whole)
    assert any(exact_runs)
