"""Bounds of ReduceScatter and AllReduce (``bounds.collective_bound``): exact values where they are worked by hand,
and never above what a valid program achieves in simulation."""

import pytest

import collsched as cs
from collsched.algorithms.baselines.reduce_scatter import direct_program
from collsched.bounds import collective_bound

MODELS = [cs.models.OnePort(), cs.models.Fluid(), cs.models.Circuit()]


def test_worked_values_on_a_star():
    # 4 hosts, one 1 MB/s link each, 1 ms per link: a reduce-scatter of 1 MB blocks makes each host send 3 MB
    p = cs.topologies.star(4, bandwidth=1e6, latency=1e-3)
    rs = cs.ReduceScatter(participants=p.hosts, size=1e6)
    for m in MODELS:
        b = collective_bound(p, rs, model=m)
        assert (b.value, b.metric, b.name) == (3.0, "makespan", "bytes h0 must send over its links")
    # an all-reduce of 1 MB: h0's whole vector must reach h1 (two links of 1 ms, 1 MB at 1 MB/s)
    ar = cs.AllReduce(participants=p.hosts, size=1e6)
    b = collective_bound(p, ar, model=cs.models.Fluid())
    assert b.value == pytest.approx(1.002, rel=1e-12) and b.name == \
        "the contribution of h0 to h1 alone, over every link of both"
    # series: the per-operation port load
    assert collective_bound(p, cs.Series(rs, count=10), model=cs.models.Fluid()).value == pytest.approx(1 / 3)
    assert collective_bound(p, cs.Series(ar, count=10), model=cs.models.Fluid()).value == pytest.approx(1.0)


def test_the_all_reduce_bound_covers_the_all_gather_of_the_same_total():
    p = cs.topologies.two_switches(3)  # two switches of three hosts each, one link between them
    hosts = p.hosts
    ar = cs.AllReduce(participants=hosts, size=6e6)
    ag = cs.AllGather(participants=hosts, size=1e6)
    for m in MODELS:
        assert collective_bound(p, ar, model=m).value >= collective_bound(p, ag, model=m).value


@pytest.mark.parametrize("platform", [cs.topologies.star(5, bandwidth=1e6, latency=1e-4),
                                      cs.topologies.two_switches(3)])
@pytest.mark.parametrize("kind", [cs.ReduceScatter, cs.AllReduce])
def test_bounds_never_exceed_a_valid_program(platform, kind):
    c = kind(participants=platform.hosts[:4], size=4e5)
    prog = direct_program(platform, c)
    cs.validate(platform, c, prog)
    for m in MODELS:
        assert collective_bound(platform, c, model=m).value <= cs.simulate(platform, prog, c, model=m).makespan
