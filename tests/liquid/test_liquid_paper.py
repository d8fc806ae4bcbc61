"""Seed 001's worked example (Figures 1, 1a, 5, 6, Annex A), checked side by side with the text."""

import collsched as cs
from collsched.algorithms.liquid import liquid, round_robin
from collsched.algorithms.liquid.fallback import shortest
from collsched.algorithms.liquid.search import search, search_python
from collsched.algorithms.liquid.teams import full_simultaneities, full_teams
from collsched.algorithms.liquid.traffic import Traffic, figure1_collective, figure1_platform, traffic_of
from collsched.schedules.base import Status

# Figure 6 of the paper, transcribed from its text: the links of every transfer, step by step.
FIGURE6 = [
    [{1, 12, 9}, {2, 7}, {3, 8}, {4, 11, 6}, {5, 10}],
    [{1, 12, 10}, {2, 6}, {4, 11, 7}, {5, 9}],
    [{1, 8}, {2, 12, 9}, {3, 6}, {4, 10}, {5, 11, 7}],
    [{1, 7}, {2, 8}, {3, 12, 9}, {5, 11, 6}],
    [{1, 6}, {2, 12, 10}, {3, 7}, {4, 11, 8}],
    [{3, 12, 10}, {4, 9}, {5, 11, 8}],
]


def _links(p, src, dst):
    return {int(l[1:]) for l in p.route(src, dst)}


def test_figure1_traffic_matches_the_text():
    p, c = figure1_platform(), figure1_collective()
    X = traffic_of(p, c)
    assert len(X) == 25  # "#(X) = 25"
    assert X.duration == 6  # "Λ(X) = 6"
    assert sorted(X.bottleneck_names) == ["l11", "l12"]  # "l11 and l12 are the most loaded links"
    assert X.liquid_throughput(100e6) == 25 / 6 * 100e6  # "416.67 MB/s"
    assert _links(p, "T4", "R1") == {4, 11, 6}  # Annex B: x_{4,1} = {l4, l11, l6}
    every = [frozenset(_links(p, s, d)) for s, d, _ in c.messages()]
    assert sorted(map(sorted, every)) == sorted(sorted(t) for step in FIGURE6 for t in step)


def test_figure6_is_a_liquid_schedule_of_figure1():
    p, c = figure1_platform(), figure1_collective()
    by_links = {frozenset(_links(p, s, d)): (s, d) for s, d, _ in c.messages()}
    steps = [[cs.schedules.Transfer(*by_links[frozenset(t)]) for t in step] for step in FIGURE6]
    s = cs.schedules.StepSchedule(steps=steps, algorithm="figure6")
    cs.validate(p, c, s)
    X = traffic_of(p, c)
    index = {(a, b): i for i, (a, b, _) in enumerate(X.transfers)}
    for step in s.steps:
        idx = [index[(t.src, t.dst)] for t in step]
        assert X.is_simultaneity(idx)
        used = {X.resources[r] for i in idx for r in X.routes[i]}
        assert {"l11", "l12"} <= used  # every step is a team


def test_liquid_finds_six_steps_and_round_robin_needs_more():
    p, c = figure1_platform(), figure1_collective(1e6)
    s = liquid(p, c)
    cs.validate(p, c, s)
    assert len(s) == 6 and s.status is Status.OPTIMAL and s.params["liquid"]
    assert s.message == "liquid: length 6, bound 6 (Λ = 6)"
    rr = round_robin(p, c)
    cs.validate(p, c, rr)
    assert len(rr) == 5  # 5 logical phases, but phase 1 leaves l11, l12 idle and phases 3, 4 congest
    X = traffic_of(p, c)
    index = {(a, b): i for i, (a, b, _) in enumerate(X.transfers)}
    congesting = [k for k, step in enumerate(rr.steps)
                  if not X.is_simultaneity([index[(t.src, t.dst)] for t in step])]
    assert congesting == [2, 3]  # "Phases 3 and 4 ... contain congesting transfers"
    # as simultaneities, round-robin needs more than 6 steps: split each phase into its fewest simultaneities
    split = sum(shortest(Traffic(tuple(X.transfers[index[(t.src, t.dst)]] for t in step),
                                 tuple(X.routes[index[(t.src, t.dst)]] for t in step), X.resources)).length
                for step in rr.steps)
    assert split == 7 > 6
    fluid = cs.models.Fluid()
    ms = [cs.simulate(p, x, c, model=fluid).makespan for x in (s, rr)]
    assert abs(ms[0] - 0.06) < 1e-9 and ms[1] > 0.065  # liquid: Λ steps of 10 ms; round-robin: congested phases


def test_search_variants_agree_on_figure1():
    X = traffic_of(figure1_platform(), figure1_collective())
    for symmetry in (True, False):
        for engine in ("python", "auto"):
            r = search(X, 6, symmetry=symmetry, engine=engine)
            assert r.status is Status.OPTIMAL and len(r.steps) == 6
            assert sorted(i for st in r.steps for i in st) == list(range(25))
            assert search(X, 5, symmetry=symmetry, engine=engine).status is Status.INFEASIBLE


def test_skeleton_gives_the_same_full_teams_as_plain_fission():
    X = traffic_of(figure1_platform(), figure1_collective())
    everything = (1 << 25) - 1
    need = sum(1 << b for b in X.bottlenecks)
    masks = X.link_masks
    plain = [s for s in full_simultaneities(everything, X.conflicts)
             if (sum(masks[i] for i in range(25) if s >> i & 1) | 0) and
             all(any(s >> i & 1 and masks[i] >> b & 1 for i in range(25)) for b in X.bottlenecks)]
    counted = [0]
    assert full_teams(everything, X.conflicts, masks, need, counted) == sorted(plain)
    assert counted[0] > 0


def test_figure5_no_team_no_liquid_schedule():
    # three transfers pairwise congesting on three different links: Λ = 2, no team, 3 steps needed
    X = Traffic(transfers=(("a", "b", 0), ("b", "c", 0), ("c", "a", 0)),
                routes=((0, 1), (1, 2), (2, 0)), resources=("x", "y", "z"))
    assert X.duration == 2
    assert search(X, 2).status is Status.INFEASIBLE
    assert search_python(X, 2).status is Status.INFEASIBLE
    r = shortest(X)
    assert (r.length, r.bound, r.status) == (3, 3, Status.OPTIMAL)


def test_annex_a_a_pair_communicating_twice():
    p = figure1_platform()
    sizes = {(s, d): 1.0 for s, d, _ in figure1_collective().messages()}
    once = cs.AllToMany(sizes)
    twice = cs.Series(once, count=2)
    X = traffic_of(p, twice)
    assert len(X) == 50 and X.duration == 12
    s = liquid(p, twice)
    cs.validate(p, twice, s)
    assert len(s) == 12 and s.params["liquid"]
