"""The multi-port model of the steady-state LPs (``ports="multi"``): exact optima, schedules, simulated rates.

Every link direction is its own capacity (hosts send and receive on all
their links at once, routers forward); the period is one slot in which
every transfer runs, lowered to one message per link direction and period,
chained per link direction. Under ``Fluid()`` with no latency a long series
runs at exactly the schedule's throughput (the LP optimum TP when OPTIMAL);
with latencies each link direction pays its latency once per period, so
the rate is at least ``q / (period + largest latency)``, and the period is
scaled until that latency is at most 1/1000 of it.
"""

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.steady_state import steady_state
from collsched.algorithms.steady_state.lp_alltoall import commodities_of, solve_flows
from collsched.algorithms.steady_state.lp_broadcast import pack_trees, solve_allgather, solve_broadcast
from collsched.algorithms.steady_state.plan import LATENCY_SHARE
from collsched.errors import ScheduleError
from collsched.platform.model import Link, Node, Platform
from collsched.schedules.io import schedule_from_dict, schedule_to_dict
from collsched.schedules.periodic import PeriodicSchedule
from collsched.simulation.steady import steady_rate

from random_platforms import KINDS, random_platform, random_series
from test_steady_state_rate import check_steady_state, close

FLUID = cs.models.Fluid()


def family(kind, hosts, size=1e6):
    return {"scatter": cs.Scatter(source=hosts[0], targets=hosts, size=size),
            "alltoall": cs.AllToAll(senders=hosts, size=size),
            "broadcast": cs.Broadcast(source=hosts[0], targets=hosts, size=size),
            "allgather": cs.AllGather(participants=hosts, size=size)}[kind]


@pytest.mark.parametrize("bad", ["two", "Multi", None, 2])
def test_a_bad_port_model_is_one_line_naming_the_option(bad):
    p = cs.topologies.star(3)
    c = cs.Series(cs.Scatter(source="h0", targets=["h1"], size=1), count=3)
    with pytest.raises(ValueError, match=r"^steady_state option ports=.* must be 'one' .* or 'multi' [^\n]*$"):
        cs.plan(p, c, algorithm="steady_state", ports=bad)
    with pytest.raises(ValueError, match="ports="):
        solve_flows(p, [("h0", "h1", F(1))], ports=bad)
    with pytest.raises(ScheduleError, match="periodic schedule has ports="):
        PeriodicSchedule(ports=bad)


def test_the_port_model_is_checked_before_any_work():
    """h1 cannot reach h0: the LP would fail, but the bad option is reported first."""
    p = Platform([Node("h0"), Node("h1")], [Link("l", 1.0, ends=("h0", "h1"), directed=True)])
    c = cs.Series(cs.Scatter(source="h1", targets=["h0"], size=1), count=2)
    with pytest.raises(ValueError, match="ports='x'"):
        steady_state(p, c, ports="x")
    with pytest.raises(cs.CollschedError, match="unreachable"):
        steady_state(p, c, ports="multi")


STAR = [  # (collective, one-port TP, multi-port TP) on a 3-host star of unit links, by hand
    # scatter: h0's one link carries two messages either way
    (cs.Scatter(source="h0", targets=["h1", "h2"], size=1), F(1, 2), F(1, 2)),
    # all-to-all: one-port, the switch relays 6 messages one at a time; multi-port, each link carries 2 each way
    (cs.AllToAll(senders=["h0", "h1", "h2"], size=1), F(1, 6), F(1, 2)),
    # broadcast: one-port, the switch sends 2 copies one after the other; multi-port, both at once
    (cs.Broadcast(source="h0", targets=["h1", "h2"], size=1), F(1, 2), F(1, 1)),
    # all-gather: one-port, the switch sends 6 copies; multi-port, every link down carries 2 blocks
    (cs.AllGather(participants=["h0", "h1", "h2"], size=1), F(1, 6), F(1, 2)),
]


@pytest.mark.parametrize("c, one, multi", STAR)
def test_hand_derived_optima_on_a_star(c, one, multi):
    p = cs.topologies.star(3, bandwidth=1, latency=0)
    for ports, tp in (("one", one), ("multi", multi)):
        s = cs.plan(p, cs.Series(c, count=6), algorithm="steady_state", ports=ports, method="lp")
        assert s.bound.value == s.throughput == tp and s.status is cs.Status.OPTIMAL
        assert s.ports == s.params["ports"] == ports and "exact certificate holds" in s.message
        cs.validate(p, cs.Series(c, count=6), s)


@pytest.mark.parametrize("kind, tp", [
    ("scatter", F(125 * 10**9, 15 * 10**6)),    # h0's link to the NVSwitch carries 15 blocks
    ("alltoall", F(125 * 10**9, 15 * 10**6)),   # every GPU's link up carries 15, down 15
    ("broadcast", F(125 * 10**9, 10**6)),       # the NVSwitch copies: every link carries the block once
    ("allgather", F(125 * 10**9, 15 * 10**6)),  # every GPU's link down carries the 15 other blocks: the cut bound
])
def test_dgx2_chassis_optimum_and_its_rate_under_fluid(kind, tp):
    """One DGX-2 chassis: 16 GPUs on an NVSwitch at 125 GB/s each way; blocks of 1 MB.

    No latency: exactly TP. TE-CCL's latency (0.35 us per link): one per
    link direction and period, at most 1/1000 of the period.
    """
    for latency in (0, 0.35e-6):
        p = cs.topologies.dgx2(1, nvswitch_latency=latency)
        c = cs.Series(family(kind, list(p.hosts)), count=4)
        s = cs.plan(p, c, algorithm="steady_state", ports="multi")
        assert s.bound.value == s.throughput == tp and s.status is cs.Status.OPTIMAL
        cs.validate(p, c, s)
        r = steady_rate(p, s, c, model=FLUID)
        assert r.settled
        if latency == 0:
            assert s.params["whole_scale"] == 1 and close(r.rate, s.throughput)
        else:
            assert latency <= LATENCY_SHARE * s.period
            floor = F(s.ops_per_period) / (s.period + F(latency))
            assert floor * (1 - F(1, 10**9)) <= r.rate <= s.throughput * (1 + F(1, 10**9))
            assert r.rate >= s.throughput * (1 - LATENCY_SHARE)


def test_every_link_direction_is_busy_at_once():
    """A multi-port broadcast on a star: the switch sends to h1 and h2 at the same time, at full rate."""
    p = cs.topologies.star(3, bandwidth=1, latency=0)
    c = cs.Series(cs.Broadcast(source="h0", targets=["h1", "h2"], size=1), count=3)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi")
    assert len(s.slots) == 1 and s.slots[0].duration == s.period == 1
    r = cs.simulate(p, s, c, model=FLUID)
    t = r.trace
    sw = t.ranks.index("sw")
    sends = sorted((float(t.start[i]), float(t.end[i])) for i in range(t.n_ops) if t.rank[i] == sw and t.kind[i] == 0)
    assert sends[:2] == [(1.0, 2.0), (1.0, 2.0)]  # both copies of the first block, at once
    assert r.makespan == 4.0  # 3 blocks at one a second, one period behind the source


def test_a_period_is_one_message_per_link_direction():
    """Latencies of 0.1 s beside 3 s of work per operation: the period holds 34 operations (0.1 s <= 1/1000 of it),
    and the lowering sends each period's transfers on a link direction as one message."""
    p = cs.topologies.star(4, bandwidth=1, latency=0.1)
    c = cs.Series(cs.AllToAll(senders=p.hosts, size=1), count=6 * 34)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi")
    assert s.params["whole_scale"] == s.ops_per_period == 34 and s.period == 34 * 3
    arcs = {(t.src, t.dst) for t in s.slots[0].transfers}
    assert len(arcs) == 8 and len(s.slots[0].transfers) == 34 * 8
    prog = s.lower(p, c)
    phases = [len({(t.src, t.dst) for t in slot.transfers}) for slot in s.init + s.cleanup]
    assert phases == [4, 4]  # the initialisation fills the switch, the clean-up drains it
    assert prog.n_messages == 8 * s.periods_for(6 * 34) + sum(phases)
    cs.validate(p, c, prog)


def test_the_port_model_goes_through_json():
    p = cs.topologies.star(3, bandwidth=1, latency=0)
    c = cs.Series(cs.AllGather(participants=p.hosts, size=1), count=4)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi")
    d = schedule_to_dict(s)
    assert d["ports"] == "multi"
    back = schedule_from_dict(d)
    assert back == s and back.ports == "multi"
    del d["ports"]  # documents written before the field read as one-port
    assert schedule_from_dict(d).ports == "one"


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**20))
def test_random_platforms_simulate_at_the_claimed_rate_under_fluid(kind, seed):
    """No latencies: the long-series rate under Fluid is the schedule's throughput (TP when OPTIMAL)."""
    p = random_platform(seed)
    c = random_series(p, kind, seed)
    # method="lp": on these one-way random platforms the all-gather's tree packing stays below the cut bound
    s = cs.plan(p, c, algorithm="steady_state", max_ops=16, ports="multi", method="lp")
    assert s.ports == "multi" and len(s.slots) == 1
    check_steady_state(p, c, s, model=FLUID)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**20))
def test_multi_port_relaxes_one_port(kind, seed):
    """The random platforms have directed links only: a one-port solution is multi-port feasible, so TP grows."""
    p = random_platform(seed)
    c = random_series(p, kind, seed).base
    if kind == "reduce":
        from collsched.algorithms.steady_state.lp_reduce import solve_reduce as solve
    elif kind in ("scatter", "alltoall"):
        def solve(p, c, ports):
            return solve_flows(p, commodities_of(c), ports=ports)
    else:
        solve = solve_broadcast if kind == "broadcast" else solve_allgather
    assert solve(p, c, ports="multi").throughput >= solve(p, c, ports="one").throughput


def test_a_shared_link_is_one_capacity_for_both_directions():
    """Two hosts on one shared link: an all-to-all sends both ways through the same capacity."""
    p = Platform([Node("a"), Node("b")], [Link("l", 1.0, ends=("a", "b"), sharing="shared")])
    comms = commodities_of(cs.AllToAll(senders=["a", "b"], size=1))
    assert solve_flows(p, comms, ports="multi").throughput == F(1, 2)
    duplex = Platform([Node("a"), Node("b")], [Link("l", 1.0, ends=("a", "b"))])
    assert solve_flows(duplex, comms, ports="multi").throughput == 1


def test_one_port_allgather_by_hand():
    """Three hosts fully connected by unit links: each receives two blocks a period, one at a time."""
    p = cs.topologies.fully_connected(3, bandwidth=1, latency=0)
    c = cs.Series(cs.AllGather(participants=["h2", "h0", "h1"], size=1), count=5)
    s = cs.plan(p, c, algorithm="steady_state")
    assert s.throughput == s.bound.value == F(1, 2) and s.ports == "one"
    check_steady_state(p, c, s)


def test_a_multicast_through_switches_packs_part_of_tp_and_runs_at_it():
    """DGX A100 pair: the LP lets NICs and switches copy a broadcast; trees reach a quarter of TP (the greedy
    packing alone, a one-port planner's, reaches an eighth): FEASIBLE, TP stays the bound, and the schedule runs at
    its own throughput (to the 1/1000 the latencies cost)."""
    p = cs.topologies.dgx_a100(2)
    c = cs.Series(cs.Broadcast(source="h0", targets=list(p.hosts), size=1e6), count=4)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi")
    assert s.bound.value == 200000 and s.throughput == s.bound.value / 4 and s.status is cs.Status.FEASIBLE
    cs.validate(p, c, s)
    r = steady_rate(p, s, c, model=FLUID)
    assert s.throughput * (1 - LATENCY_SHARE) <= r.rate <= s.throughput * (1 + F(1, 10**9))
    b = solve_broadcast(p, c.base, ports="multi")
    assert sum(w for w, _ in pack_trees(b)) == b.throughput / 8
    assert sum(w for w, _ in pack_trees(b, partial=True)) == b.throughput / 4


@pytest.mark.parametrize("phases", ["pipelined", "sequential"])
def test_both_phase_styles_lower_and_run_at_tp(phases):
    """Initialisation and clean-up (seed 000, section 3.4) lowered multi-port: valid, and at TP in between."""
    p = random_platform(5)
    c = random_series(p, "alltoall", 5)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi", phases=phases)
    assert s.init and s.cleanup and s.status is cs.Status.OPTIMAL
    check_steady_state(p, c, s, model=FLUID)


def cut_bound(p, participants, size):
    """ForestColl's bound by brute force: all-gathers per second <= B+(S) / (|S ∩ P| · size) for every cut S.

    The blocks of the participants in ``S`` must leave ``S`` to reach one outside it, whatever copies the nodes
    make, so the bound holds for the multi-port LP too (routers that copy included).
    """
    from itertools import combinations

    from collsched.algorithms.steady_state.lp_alltoall import network

    net = network(p)
    nodes = list(net.nodes)
    best = None
    for r in range(1, len(nodes)):
        for S in map(set, combinations(nodes, r)):
            inside = len(S & set(participants))
            if inside == 0 or set(participants) <= S:
                continue
            out = sum((1 / net.cost[e] for e in net.edges if e[0] in S and e[1] not in S), F(0))
            x = out / (inside * F(size))
            best = x if best is None else min(best, x)
    return best


@pytest.mark.parametrize("seed", range(30))
def test_multi_port_allgather_reaches_the_cut_bound(seed):
    """Measured: on these random platforms the LP optimum is the cut bound exactly (it can be no higher)."""
    p = random_platform(seed)
    c = random_series(p, "allgather", seed).base
    assert solve_allgather(p, c, ports="multi").throughput == cut_bound(p, c.participants, c.size)


def test_the_cli_plans_multi_port_and_refuses_a_bad_port_model_in_one_line(tmp_path, capsys):
    from collsched.collective_io import save_collective
    from collsched.platform.io import save_platform
    from test_cli import run

    p = cs.topologies.dgx2(1)
    save_platform(p, tmp_path / "g.json")
    save_collective(cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e6), count=6), tmp_path / "ag.json")
    args = ["plan", str(tmp_path / "g.json"), str(tmp_path / "ag.json"), "-a", "steady_state", "-o",
            str(tmp_path / "s.json")]
    code, _, err = run(args + ["-p", "ports=two"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "ports='two' must be 'one'" in err
    code, out, _ = run(args + ["-p", "ports=multi"], capsys)
    assert code == 0 and "validated" in out
    s = cs.load_schedule(tmp_path / "s.json")
    assert s.ports == "multi" and s.throughput == F(125 * 10**9, 15 * 10**6)
