"""``steady_state`` for series of ReduceScatters and AllReduces: the LP of N reduces (and N broadcasts), its schedule.

Every schedule validates, and simulates at its claimed throughput over a
long series (one-port under ``OnePort(sync=True, cost="edges")``,
multi-port under ``Fluid()``; no latencies, so to 1e-9), which is the
exact LP optimum whenever the period is exact; the LP optimum is
re-checked in exact rationals against the LP's own rows.
"""

from fractions import Fraction as F

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms.steady_state.exact import objective_of
from collsched.algorithms.steady_state.lp_reducescatter import reductions_lp, solve_allreduce, solve_reducescatter

from random_platforms import random_platform
from test_steady_state_rate import MODEL, check_steady_state

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
            assert s.throughput == s.bound.value == tp and s.status is cs.Status.OPTIMAL, (kind, ports)
            r = check_steady_state(p, c, s, model=model)
            assert r.rate == pytest.approx(float(tp), rel=1e-9)


@pytest.mark.parametrize("ports", ["one", "multi"])
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("commutative", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_random_platforms_validate_and_simulate_at_the_claimed_rate(ports, kind, commutative, seed):
    p = random_platform(seed)
    c = random_reduction(p, kind, seed, commutative)
    s = cs.plan(p, c, algorithm="steady_state", ports=ports, max_ops=16)
    assert s.ports == ports and s.denominator % len(c.base.participants) == 0
    check_steady_state(p, c, s, model=MODEL if ports == "one" else FLUID)


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
