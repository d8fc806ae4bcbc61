"""``steady_state`` for series of ReduceScatters and AllReduces: the LP of N reduces (and N broadcasts), its schedule.

Every schedule validates, and simulates at its claimed throughput over a
long series (one-port under ``OnePort(sync=True, cost="edges")``,
multi-port under ``Fluid()``; no latencies, so to 1e-9), which is the
exact LP optimum whenever the period is exact; the LP optimum is
re-checked in exact rationals against the LP's own rows. What is claimed
optimal: a non-commutative ReduceScatter at the LP optimum; a commutative
one under ``ports="multi"`` at the cut bound of the reversed fabric (the
tree packing of :mod:`~collsched.algorithms.steady_state.plan_trees`); an
AllReduce over the ReduceScatter-then-AllGather strategy only, and only
with a non-commutative operator.
"""

from fractions import Fraction as F

import numpy as np
import pytest

import collsched as cs
from collsched.platform.model import Link, Node, Platform
from collsched.algorithms.steady_state.exact import SteadyStateError, objective_of
from collsched.algorithms.gpu.cut_bound import cut_bound
from collsched.algorithms.steady_state.lp_reducescatter import reductions_lp, solve_allreduce, solve_reducescatter
from collsched.simulation.steady import steady_rate

from random_platforms import random_platform
from test_steady_state_rate import MODEL, TOL

FLUID = cs.models.Fluid()
KINDS = {"reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}


def random_reduction(p, kind: str, seed: int, commutative: bool, count: int = 10) -> cs.Series:
    """A ReduceScatter or AllReduce on 2 to 4 of the platform's hosts, random order, size and task cost."""
    rng = np.random.default_rng(seed + 7919)
    hosts = list(p.hosts)
    n = int(rng.integers(2, min(4, len(hosts)) + 1))
    chosen = [hosts[i] for i in rng.permutation(len(hosts))[:n]]
    c = KINDS[kind](participants=chosen, size=float(rng.choice((0.5, 1.0, 2.0))),
                    task_cost=float(rng.integers(0, 4)), commutative=commutative)
    return cs.Series(c, count=count)


def certified(base, ports: str) -> bool:
    """Whether the schedule's bound is proven the optimum of its class (module docstring)."""
    return not getattr(base, "commutative", False) or (ports == "multi" and base.kind == "reducescatter")


def check(p, c, s, model):
    """Valid; the long-series rate is the throughput (exact period) or within section 4.6's rounding loss."""
    tp = s.bound.value
    assert s.throughput <= tp
    cs.validate(p, c, s)
    r = steady_rate(p, s, c, model=model)
    assert r.settled
    if s.params["period_kind"] == "exact":
        assert abs(F(r.rate) - s.throughput) <= TOL * s.throughput
        assert (s.status is cs.Status.OPTIMAL) == (s.throughput == tp and certified(c.base, s.ports))
    else:
        floor = F(s.params["rounded_from"]) - F(s.params["loss_bound"])
        assert s.throughput >= floor and floor * (1 - TOL) <= r.rate <= tp * (1 + TOL)
    return r


def duplex_platform(seed: int) -> Platform:
    """3 to 5 hosts, full-duplex links of random bandwidths (a ring plus random chords), no routers.

    Every node sends as much as it can receive, and routes are direct, so
    the tree packing reaches the cut bound.
    """
    rng = np.random.default_rng(seed)
    hosts = [f"P{i}" for i in range(int(rng.integers(3, 6)))]
    order = [hosts[i] for i in rng.permutation(len(hosts))]
    edges = {tuple(sorted(e)) for e in zip(order, order[1:] + order[:1])}
    edges |= {(a, b) for a in hosts for b in hosts if a < b and rng.random() < 0.4}
    return Platform([Node(h, speed=float(rng.choice((1.0, 2.0)))) for h in hosts],
                    [Link(f"{a}-{b}", bandwidth=float(rng.choice((0.5, 1.0, 2.0, 4.0))), latency=0, ends=(a, b))
                     for a, b in sorted(edges)], name=f"duplex-{seed}")


def three_hosts():
    return cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)


@pytest.mark.parametrize("commutative", [False, True])
def test_three_hosts_by_hand(commutative):
    """Three hosts, every ordered pair linked at 1 byte/s, no computation cost.

    ReduceScatter of 1-byte blocks: every host must get rid of its two
    foreign blocks (alone or combined, 1 byte each) and take in two (its own
    block from each peer, or one combination of both that someone else made
    and that someone still had to receive a block for): with one port a
    host sends 2 bytes one after the other, 2 s, so TP <= 1/2; sending each
    foreign block directly reaches it. Multi-port: two out-links of 1
    byte/s carry the 2 bytes at once, TP = 1.

    AllReduce of a 3-byte vector (blocks of 1 byte): the ReduceScatter's 2
    bytes out per host plus the AllGather's (each host broadcasts its
    reduced block to two peers: 2 bytes out, one port at a time) give 4 s
    one-port, TP = 1/4; multi-port 2 s on two out-links, TP = 1/2.
    """
    p = three_hosts()
    for kind, size, one, multi in [("reducescatter", 1, F(1, 2), F(1)), ("allreduce", 3, F(1, 4), F(1, 2))]:
        c = cs.Series(KINDS[kind](participants=p.hosts, size=size, commutative=commutative), count=12)
        for ports, tp, model in [("one", one, MODEL), ("multi", multi, FLUID)]:
            s = cs.plan(p, c, algorithm="steady_state", ports=ports)
            # a commutative multi-port AllReduce time-shares the two tree packings (1 s each): bound, the
            # ReduceScatter it contains (1-byte blocks at the cut bound 1 B/s per root)
            trees = kind == "allreduce" and commutative and ports == "multi"
            assert s.throughput == tp and s.bound.value == (1 if trees else tp), (kind, ports)
            assert (s.status is cs.Status.OPTIMAL) == certified(c.base, ports)
            r = check(p, c, s, model)
            assert r.rate == pytest.approx(float(tp), rel=1e-9)


@pytest.mark.parametrize("ports", ["one", "multi"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("commutative", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_random_platforms_validate_and_simulate_at_the_claimed_rate(ports, kind, commutative, seed):
    p = random_platform(seed)
    c = random_reduction(p, kind, seed, commutative)
    # the random platforms' directed links and relays keep the tree packing below the cut bound (an error, see
    # below): a commutative multi-port ReduceScatter goes through the interval LP, measured against the cut bound
    method = "lp" if commutative and ports == "multi" else "auto"
    s = cs.plan(p, c, algorithm="steady_state", ports=ports, max_ops=16, method=method)
    assert s.ports == ports and s.denominator % len(c.base.participants) == 0
    check(p, c, s, MODEL if ports == "one" else FLUID)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed", range(6))
def test_the_lp_optimum_is_rechecked_exactly(kind, seed):
    """HiGHS's optimum, recovered in rationals and certified, satisfies the LP's own rows exactly."""
    p = random_platform(seed)
    c = random_reduction(p, kind, seed, False).base
    solve = solve_reducescatter if kind == "reducescatter" else solve_allreduce
    for ports in ("one", "multi"):
        r = solve(p, c, ports=ports)
        assert r.solution.certified and r.solution.status is cs.Status.OPTIMAL
        lp = reductions_lp(p, c, ports=ports)
        values = {name: x for name, x in zip(lp.names, r.solution.x) if name[0] != "slack"}
        assert objective_of(lp, values) == r.throughput


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("seed", range(6))
def test_multi_port_relaxes_one_port(kind, seed):
    """The random platforms have directed links only: a one-port solution is multi-port feasible."""
    p = random_platform(seed)
    c = random_reduction(p, kind, seed, False).base
    solve = solve_reducescatter if kind == "reducescatter" else solve_allreduce
    assert solve(p, c, ports="multi").throughput >= solve(p, c, ports="one").throughput


def test_an_allreduce_is_slower_than_its_reducescatter():
    """The AllReduce LP contains the ReduceScatter's rows (on blocks of size / N) plus the AllGather's."""
    p = random_platform(3)
    c = random_reduction(p, "allreduce", 3, False).base
    rs = cs.ReduceScatter(participants=c.participants, size=c.size / len(c.participants), task_cost=c.task_cost,
                          commutative=False)
    for ports in ("one", "multi"):
        assert solve_allreduce(p, c, ports=ports).throughput < solve_reducescatter(p, rs, ports=ports).throughput


@pytest.mark.parametrize("seed", range(8))
def test_multi_port_commutative_reducescatter_is_the_cut_bound_of_the_reversed_fabric(seed):
    """Spanning in-trees reach it exactly; the interval LP (non-commutative) cannot beat it."""
    p = duplex_platform(seed) if seed else cs.topologies.star(4, bandwidth=2, latency=0)
    c = cs.Series(cs.ReduceScatter(participants=list(p.hosts)[::-1], size=float(seed % 3 + 1)), count=10)
    x, _ = cut_bound(p, c.base.participants, kind="reducescatter")
    s = cs.plan(p, c, algorithm="steady_state", ports="multi", max_ops=16)
    assert s.bound.value == x / F(c.base.size) and s.params["method"] == "cut bound and spanning-tree packing"
    assert s.throughput == s.bound.value or s.params["period_kind"] == "fixed"
    check(p, c, s, FLUID)
    lp = cs.ReduceScatter(participants=c.base.participants, size=c.base.size, commutative=False)
    assert solve_reducescatter(p, lp, ports="multi").throughput <= s.bound.value


@pytest.mark.parametrize("seed", range(8))
def test_multi_port_allgather_by_trees_is_the_lp_optimum(seed):
    """The cut bound and tree packing (default) and the LP (``method="lp"``) give the same certified optimum."""
    p = duplex_platform(seed) if seed else cs.topologies.star(4, bandwidth=2, latency=0)
    c = cs.Series(cs.AllGather(participants=list(p.hosts)[::-1], size=float(seed % 3 + 1)), count=10)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi", max_ops=16)
    lp = cs.plan(p, c, algorithm="steady_state", ports="multi", max_ops=16, method="lp")
    assert s.bound.value == lp.bound.value and s.params["method"] == "cut bound and spanning-tree packing"
    check(p, c, s, FLUID)


def test_a_reducescatter_with_a_task_cost_is_measured_against_the_cut_bound():
    """Multi-port, commutative, with computation: the interval LP plans, the cut bound (no CPUs) is the bound."""
    p = cs.topologies.star(3, bandwidth=2, latency=0, speed=1)
    c = cs.Series(cs.ReduceScatter(participants=p.hosts, size=1, task_cost=3), count=12)
    s = cs.plan(p, c, algorithm="steady_state", ports="multi")
    assert s.bound.value == 1 and s.bound.name.startswith("cut bound")
    # each host combines two blocks' worth (task_cost / 3 each, speed 1): 2 s of CPU per ReduceScatter
    assert s.throughput == F(1, 2) and s.status is cs.Status.FEASIBLE
    check(p, c, s, FLUID)


def one_way_switch(up: float, down: float):
    """Three hosts on a switch by one-way links: ``up`` bytes/s into the switch, ``down`` out of it."""
    hosts = [Node(f"h{i}") for i in range(3)]
    links = [Link(f"up{i}", bandwidth=up, latency=0, ends=(f"h{i}", "sw"), directed=True) for i in range(3)]
    links += [Link(f"down{i}", bandwidth=down, latency=0, ends=("sw", f"h{i}"), directed=True) for i in range(3)]
    return Platform(hosts + [Node("sw", kind="router")], links, name="one-way-switch")


@pytest.mark.parametrize("kind, up, down", [("reducescatter", 2.0, 1.0), ("allgather", 1.0, 2.0)])
def test_a_non_eulerian_switch_is_one_line_naming_it_and_both_rates(kind, up, down):
    """The switch takes in 3 B/s and sends 6 B/s (or the reverse): split edges leave 3 B/s, trees reach 1/2 of 1.

    ``algorithm="forest"`` keeps the packing and says how far below the bound it is.
    """
    p = one_way_switch(up, down)
    c = cs.Series({"reducescatter": cs.ReduceScatter, "allgather": cs.AllGather}[kind](participants=p.hosts, size=1),
                  count=10)
    with pytest.raises(SteadyStateError) as err:
        cs.plan(p, c, algorithm="steady_state", ports="multi")
    line = str(err.value)
    assert len(line.splitlines()) == 1 and "sw: in and out capacities differ" in line
    assert "reach 0.5 bytes/s per root, below the cut bound 1" in line and "algorithm='forest'" in line
    f = cs.plan(p, c.base, algorithm="forest")
    assert "below the cut bound by 50.000%" in f.message


def test_the_cli_plans_reductions_and_exits_2_on_a_non_eulerian_switch(tmp_path, capsys):
    from collsched.collective_io import save_collective
    from collsched.platform.io import save_platform
    from test_cli import run

    save_platform(one_way_switch(2.0, 1.0), tmp_path / "p.json")
    save_collective(cs.Series(cs.ReduceScatter(participants=["h0", "h1", "h2"], size=1), count=6), tmp_path / "c.json")
    args = ["plan", str(tmp_path / "p.json"), str(tmp_path / "c.json"), "-a", "steady_state", "-o",
            str(tmp_path / "s.json")]
    code, _, err = run(args + ["-p", "ports=multi"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "below the cut bound 1" in err
    code, out, _ = run(args, capsys)
    assert code == 0 and "validated" in out


@pytest.mark.parametrize("seed", range(6))
def test_multi_port_commutative_allreduce_time_shares_the_two_packings(seed):
    """Rate at least ``1 / (b/x_rs + b/x_ag)`` (blocks ``b``), FEASIBLE, bound ``x_rs / b`` (its ReduceScatter's).

    More where the two packings' busiest links differ (measured: seeds 3 and 5, 3/7 and 1/14 against 3/8 and 1/16).
    """
    p = duplex_platform(seed) if seed else cs.topologies.star(4, bandwidth=2, latency=0)
    hosts = list(p.hosts)
    c = cs.Series(cs.AllReduce(participants=hosts, size=float(len(hosts) * (seed % 3 + 1))), count=10)
    b = F(c.base.size) / len(hosts)
    x_rs, x_ag = (cut_bound(p, hosts, kind=k)[0] for k in ("reducescatter", "allgather"))
    s = cs.plan(p, c, algorithm="steady_state", ports="multi", max_ops=16)
    assert s.bound.value == x_rs / b and s.status is cs.Status.FEASIBLE
    assert s.throughput >= 1 / (b / x_rs + b / x_ag) or s.params["period_kind"] == "fixed"
    check(p, c, s, FLUID)
