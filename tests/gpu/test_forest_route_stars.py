"""Forests never fail while the participants reach one another along the routes: stars along the routes.

Claims checked: where edge splitting along the platform's static routes
leaves no spanning trees (random platform 530002), ``pack_forest`` and
``cs.plan(..., algorithm="forest")`` give the stars along the routes at the
largest uniform rate the links allow (exact), FEASIBLE with the cut bound
still the bound and a note naming the nodes that lost capacity; the
programs validate and a series simulates (``Fluid``, no latency) at exactly
the claimed rate; where the trees that fit the routes carry less than the
stars (random platform 264), the stars are taken and the note says what
the trees carried.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms.gpu.cut_bound import cut_bound
from collsched.algorithms.gpu.forest import check_forest, pack_forest, route_stars
from collsched.errors import ScheduleError
from collsched.simulation.steady import steady_rate
from steady_state.random_platforms import random_platform

FLUID = cs.models.Fluid()
SIZE = {"allgather": 4.0, "reducescatter": 4.0, "allreduce": 12.0}


def drawn(seed):
    """The platform and participants the hypothesis test of ``test_forest_schedule_plan.py`` draws for ``seed``."""
    p = random_platform(seed)
    rng = np.random.default_rng(seed)
    hosts = list(p.hosts)
    return p, [hosts[i] for i in rng.permutation(len(hosts))[:int(rng.integers(2, len(hosts) + 1))]]


def make(kind, participants):
    return {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter,
            "allreduce": cs.AllReduce}[kind](participants=participants, size=SIZE[kind])


@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_no_trees_fit_the_routes_so_the_forest_is_stars_at_the_links_rate(kind):
    """Participants P4, P0, P1. The six routes between them (the same pairs for both kinds: a reduce-scatter's star
    at r receives along d → r) cross the one-way link P4→P2 of 0.25 bytes/s twice (P4→P0, P4→P1), the most loaded:
    1/8 bytes/s per root. The cut bound is 1/2 (all-gather) and 1/4 (reduce-scatter); splitting drops capacity at
    the forwarding hosts P2 and P3 and leaves nothing."""
    p, parts = drawn(530002)
    assert parts == ["P4", "P0", "P1"]
    f = pack_forest(p, parts, kind=kind)
    check_forest(p, f)
    assert f.throughput == F(1, 8)
    assert f.bound == cut_bound(p, parts, kind=kind)[0] == {"allgather": F(1, 2), "reducescatter": F(1, 4)}[kind]
    assert f.note.startswith("the routes forced stars (no spanning trees fit them), below the cut bound by ")
    assert "P2: in and out capacities differ" in f.note and "P3: in and out capacities differ" in f.note
    assert [(t.root, t.weight, len(t.arcs)) for t in f.trees] == [(r, F(1, 8), 2) for r in parts]
    assert all({t.root} == {a[0] if kind == "allgather" else a[1] for a in t.arcs} for t in f.trees)


@pytest.mark.parametrize("kind", ["allgather", "reducescatter"])
def test_route_stars_rate_is_the_largest_the_links_carry(kind):
    """At the rate every link holds its load (check_forest); at any higher uniform rate one does not."""
    p, parts = drawn(530002)
    trees, rate = route_stars(p, parts, kind)
    forest = pack_forest(p, parts, kind=kind)
    assert (trees, rate) == (list(forest.trees), forest.throughput)
    faster = rate * (1 + F(1, 10**6))
    more = dataclasses.replace(forest, throughput=faster, bound=faster,
                               trees=tuple(dataclasses.replace(t, weight=faster) for t in trees))
    with pytest.raises(ScheduleError, match="^link 'P4-P2' carries 0.25 bytes/s"):
        check_forest(p, more)


@pytest.mark.parametrize("kind, rate, bound", [("allgather", F(1, 8), F(1, 2)), ("reducescatter", F(1, 8), F(1, 4)),
                                               ("allreduce", F(1, 16), F(1, 6))])
def test_the_seed_plans_validates_and_a_series_simulates_at_the_claimed_rate(kind, rate, bound):
    """The all-reduce's two phases both cross P4→P2 twice per root: 1/16; its bound is min(x*_AG, λ/N, E/(2N(N-1)))
    (plan_forest's Notes), here 1/6."""
    p, parts = drawn(530002)
    series = cs.Series(make(kind, parts), count=4)
    s = cs.plan(p, series, algorithm="forest")
    cs.validate(p, series, s)
    assert (s.throughput, s.rate_bound, s.status) == (rate, bound, cs.Status.FEASIBLE)
    assert s.bound.value == bound / F(s.block_bytes(series))
    assert "the routes forced stars" in s.message and "P2: in and out capacities differ" in s.message
    r = steady_rate(p, s, series, model=FLUID)
    assert abs(r.rate / s.operations_per_second(series) - 1) < 1e-9
    one = make(kind, parts)
    s1 = cs.plan(p, one, algorithm="forest")
    cs.validate(p, one, s1)
    assert s1.throughput == rate and s1.status is cs.Status.FEASIBLE and "the routes forced stars" in s1.message
    assert cs.simulate(p, s1, model=FLUID).makespan >= s1.bound.value


def test_stars_are_taken_where_they_carry_more_than_the_trees_that_fit_the_routes():
    """Random platform 264, reduce-scatter: the trees packed on what splitting kept carry 1/4 bytes/s, the stars
    1/2 (the cut bound is 3/4)."""
    p, parts = drawn(264)
    f = pack_forest(p, parts, kind="reducescatter")
    check_forest(p, f)
    assert (f.throughput, f.bound) == (F(1, 2), F(3, 4))
    assert f.note.startswith("stars along the routes (the trees that fit them carry 0.25 bytes/s), below the cut "
                             "bound by 33.333%: ")
    assert (list(f.trees), f.throughput) == route_stars(p, parts, "reducescatter")


# the draws of random_platform(0 .. 1499) where splitting leaves no trees for some kind (found by scanning them)
NO_TREES = [(110, "reducescatter"), (341, "allgather"), (448, "reducescatter"), (1006, "allgather"),
            (1006, "reducescatter"), (1271, "allgather"), (1271, "reducescatter")]


@pytest.mark.parametrize("seed, kind", NO_TREES)
def test_every_draw_without_trees_plans_stars_that_simulate_at_the_claimed_rate(seed, kind):
    """The collective of ``kind`` and the all-reduce (which uses the all-gather packing, and the reduce-scatter
    packing when pairing its in-trees is faster) plan, validate and run at their claimed rates."""
    p, parts = drawn(seed)
    f = pack_forest(p, parts, kind=kind)
    check_forest(p, f)
    assert f.note.startswith("the routes forced stars") and (list(f.trees), f.throughput) == route_stars(p, parts, kind)
    for k in (kind, "allreduce"):
        series = cs.Series(make(k, parts), count=4)
        s = cs.plan(p, series, algorithm="forest")
        cs.validate(p, series, s)
        assert s.status is cs.Status.FEASIBLE
        if k == kind:
            assert s.message.startswith("the routes forced stars")
        else:  # the all-reduce says so for each packing whose trees it uses (the reduce-scatter's when paired)
            used = kind == "allgather" or any(t.up is not None for t in s.trees)
            name = {"allgather": "all-gather", "reducescatter": "reduce-scatter"}[kind]
            assert (f"the {name} packing: the routes forced stars" in s.message) == used
        r = steady_rate(p, s, series, model=FLUID)
        assert abs(r.rate / s.operations_per_second(series) - 1) < 1e-9
