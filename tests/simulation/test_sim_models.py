"""Worked examples of every model, checked by hand (the numbers of the models' docstrings among them)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sim_programs import line

import collsched as cs
from collsched.platform import Link, Node, Platform
from collsched.simulation.models import Circuit, Fluid, OnePort, Piecewise, PLogP, PLogPParams

ALL = [OnePort(), OnePort(sync=False), OnePort(cost="edges"), OnePort(cost="overheads"), Circuit(), Fluid(),
       Fluid(one_port=True), Circuit(one_port=True)]


def two_into_one(n_hosts: int = 3):
    p = cs.topologies.star(n_hosts, bandwidth=1e6, latency=5e-4)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h2", [], size=1e6)
    b.send("h1", "h2", [], size=1e6)
    return p, b.build()


def approx(x):
    return pytest.approx(x, rel=1e-12, abs=1e-12)


# --- a single transfer -----------------------------------------------------------------------

@pytest.mark.parametrize("model", ALL, ids=repr)
def test_single_transfer_takes_latency_plus_size_over_bandwidth(model):
    p = cs.topologies.star(2, bandwidth=1e6, latency=5e-4)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    r = cs.simulate(p, b.build(), model=model)
    expected = 2.001 if model == OnePort(cost="edges") else 1.001   # edges: two store-and-forward hops
    assert r.makespan == approx(expected)
    assert r.trace.end[1] == approx(expected)
    assert r.link_busy.tolist() == approx([1.0, 1.0])
    assert r.link_utilisation.tolist() == approx([1 / expected] * 2)


def test_single_transfer_start_and_end_of_each_op():
    p = cs.topologies.star(2, bandwidth=1e6, latency=5e-4)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    prog = b.build()
    sync = cs.simulate(p, prog, model=OnePort())
    assert sync.trace.start.tolist() == [0.0, 0.0] and sync.trace.end.tolist() == approx([1.001, 1.001])
    asyn = cs.simulate(p, prog, model=OnePort(sync=False))
    # the sender is free at once (o_s = 0); the receive drains m/B after the latency
    assert asyn.trace.start.tolist() == approx([0.0, 0.001]) and asyn.trace.end.tolist() == approx([0.0, 1.001])
    fluid = cs.simulate(p, prog, model=Fluid())
    assert fluid.trace.start.tolist() == approx([0.0, 0.001]) and fluid.trace.end.tolist() == approx([1.001, 1.001])
    assert sync.send_busy.tolist() == approx([1.001, 0.0]) and sync.recv_busy.tolist() == approx([0.0, 1.001])


# --- the docstrings' worked examples ---------------------------------------------------------

def test_oneport_worked_example():
    p, prog = two_into_one()
    sync = cs.simulate(p, prog, model=OnePort())
    assert sync.makespan == approx(2.002)
    assert sync.trace.start.tolist() == approx([0.0, 0.0, 1.001, 1.001])
    asyn = cs.simulate(p, prog, model=OnePort(sync=False))
    assert asyn.makespan == approx(2.001)
    assert asyn.trace.end.tolist() == approx([0.0, 1.001, 0.0, 2.001])
    assert asyn.recv_busy.tolist() == approx([0.0, 0.0, 2.0])


def test_circuit_worked_example():
    p, prog = two_into_one(4)
    r = cs.simulate(p, prog, model=Circuit())
    assert r.makespan == approx(2.002)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    b.send("h2", "h3", [], size=1e6)
    assert cs.simulate(p, b.build(), model=Circuit()).makespan == approx(1.001)


def test_fluid_worked_example():
    p = cs.topologies.star(4, bandwidth=1e6, latency=5e-4)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h2", [], size=1e6)
    b.send("h1", "h2", [], size=1e6)
    b.send("h3", "h0", [], size=1e6, recv_after=())
    r = cs.simulate(p, b.build(), model=Fluid())
    assert r.makespan == approx(2.001)
    assert r.trace.end[1::2].tolist() == approx([2.001, 2.001, 1.001])
    assert r.link("l2") == approx((2.0, 2.0 / 2.001))


def test_plogp_worked_example():
    """Seed 003, Table 1: flat tree L + (P-1) g(m), chain (P-1)(g(m) + L), with o_r = 0."""
    p = cs.topologies.star(4)
    model = PLogP(PLogPParams(L=1e-3, g=Piecewise([0, 1e6], [1e-4, 1e-4 + 1e-2])))
    g = 1e-4 + 1e-2
    flat = cs.ProgramBuilder(p.hosts)
    for h in ("h1", "h2", "h3"):
        flat.send("h0", h, [], size=1e6)
    assert cs.simulate(p, flat.build(), model=model).makespan == approx(1e-3 + 3 * g)
    chain = cs.ProgramBuilder(p.hosts)
    for a, b in (("h0", "h1"), ("h1", "h2"), ("h2", "h3")):
        chain.send(a, b, [], size=1e6)
    assert cs.simulate(p, chain.build(), model=model).makespan == approx(3 * (g + 1e-3))


# --- contention ------------------------------------------------------------------------------

def test_two_flows_on_one_link_share_it_then_the_survivor_speeds_up():
    p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h2", [], size=1e6)
    b.send("h1", "h2", [], size=2e6, recv_after=())
    r = cs.simulate(p, b.build(), model=Fluid())
    # both at 0.5 MB/s until the first ends at 2 s; then 1 MB left at 1 MB/s
    assert r.trace.end.tolist() == approx([2.0, 2.0, 3.0, 3.0])
    assert r.link_busy.tolist() == approx([1.0, 2.0, 3.0])


def test_fluid_full_duplex_shared_and_fatpipe_links():
    def pair(sharing):
        nodes = [Node("a"), Node("b")]
        return Platform(nodes, [Link("l", 1e6, 0.0, ends=("a", "b"), sharing=sharing)])

    def both_ways(p):
        b = cs.ProgramBuilder(p.hosts)
        b.send("a", "b", [], size=1e6, after=(), recv_after=())
        b.send("b", "a", [], size=1e6, after=(), recv_after=())
        return b.build()

    assert cs.simulate(pair("full_duplex"), both_ways(pair("full_duplex"))).makespan == approx(1.0)
    assert cs.simulate(pair("shared"), both_ways(pair("shared"))).makespan == approx(2.0)
    assert cs.simulate(pair("fatpipe"), both_ways(pair("fatpipe"))).makespan == approx(1.0)
    p = pair("fatpipe")
    b = cs.ProgramBuilder(p.hosts)
    b.send("a", "b", [], size=1e6, after=(), recv_after=())
    b.send("a", "b", [], size=1e6, after=(), recv_after=())
    assert cs.simulate(p, b.build()).makespan == approx(1.0)   # a fatpipe gives every flow its bandwidth
    assert cs.simulate(p, b.build(), model=Circuit()).makespan == approx(1.0)
    shared = pair("shared")
    assert cs.simulate(shared, both_ways(shared), model=Circuit()).makespan == approx(2.0)
    assert cs.simulate(pair("full_duplex"), both_ways(pair("full_duplex")), model=Circuit()).makespan == approx(1.0)


def test_three_hop_route():
    """a - r1 - r2 - b, links 1, 2, 1 MB/s, 1 ms each: cut-through 3 ms + 1 s; store-and-forward 1 + 0.5 + 1 s."""
    p = line()
    b = cs.ProgramBuilder(p.hosts)
    b.send("a", "b", [], size=1e6)
    prog = b.build()
    for model in (OnePort(), OnePort(sync=False), Circuit(), Fluid(), OnePort(cost="overheads")):
        assert cs.simulate(p, prog, model=model).makespan == approx(1.003), model
    edges = cs.simulate(p, prog, model=OnePort(cost="edges"))
    assert edges.makespan == approx(2.503)
    assert cs.simulate(p, prog, model=OnePort(cost="edges", sync=False)).makespan == approx(2.503)
    assert edges.link_busy.tolist() == approx([1.0, 0.5, 1.0])


def test_store_and_forward_router_rank_shares_its_ports():
    """A router that is also a rank: its own message competes with the one it forwards for its send port."""
    p = cs.topologies.star(2, bandwidth=1e6, latency=0.0)
    b = cs.ProgramBuilder(["h0", "h1", "sw"])
    b.send("h0", "h1", [], size=1e6)
    b.send("sw", "h1", [], size=1e6, recv_after=())
    r = cs.simulate(p, b.build(), model=OnePort(cost="edges"))
    # message 0: h0 -> sw [0, 1], then sw -> h1 waits for sw's own message [0, 1], runs [1, 2]
    assert r.trace.start.tolist() == approx([0.0, 0.0, 0.0, 0.0])
    assert r.trace.end.tolist() == approx([2.0, 2.0, 1.0, 1.0])
    assert r.send_busy.tolist() == approx([1.0, 0.0, 2.0])


def test_one_port_serialises_at_a_receiver():
    p = cs.topologies.star(5, bandwidth=1e6, latency=0.0)
    b = cs.ProgramBuilder(p.hosts)
    for h in ("h1", "h2", "h3", "h4"):
        b.send(h, "h0", [], size=1e6, recv_after=())
    r = cs.simulate(p, b.build(), model=OnePort())
    assert sorted(r.trace.end[1::2].tolist()) == approx([1.0, 2.0, 3.0, 4.0])
    assert r.recv_busy[0] == approx(4.0)
    assert r.trace.end[1::2].tolist() == approx([1.0, 2.0, 3.0, 4.0])   # fixed ties: message order


def test_seed_004_figure_5_async_vs_sync():
    """P0 sends to P1, P2, P3 in order, send overhead 2, network latency 1, receive overheads 3, 1, 2.

    Asynchronous: P0 is free every 2; the messages arrive at 3, 5, 7 and are received by 6, 6, 9.
    Synchronous: each send holds P0 until its receive ends: [0, 6], [6, 10], [10, 15].
    """
    nodes = [Node("P0", send_overhead=2.0, recv_overhead=1.0), Node("P1", recv_overhead=3.0),
             Node("P2", recv_overhead=1.0), Node("P3", recv_overhead=2.0), Node("net", kind="router")]
    links = [Link(f"l{i}", 1e9, 0.5, ends=(f"P{i}", "net")) for i in range(4)]
    p = Platform(nodes, links, name="seed-004-fig-5")
    b = cs.ProgramBuilder(p.hosts)
    for h in ("P1", "P2", "P3"):
        b.send("P0", h, [], size=0)
    prog = b.build()
    asyn = cs.simulate(p, prog, model=OnePort(sync=False, cost="overheads"))
    assert asyn.trace.end[0::2].tolist() == approx([2.0, 4.0, 6.0])        # the sends
    assert asyn.trace.start[1::2].tolist() == approx([3.0, 5.0, 7.0])      # arrivals
    assert asyn.trace.end[1::2].tolist() == approx([6.0, 6.0, 9.0])
    assert asyn.makespan == approx(9.0)
    sync = cs.simulate(p, prog, model=OnePort(sync=True, cost="overheads"))
    assert sync.trace.end[0::2].tolist() == approx([6.0, 10.0, 15.0])
    assert sync.makespan == approx(15.0)


def test_compute_overlaps_communication():
    p = cs.topologies.star(2, bandwidth=1e6, latency=5e-4, speed=1e9)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    b.compute("h0", [], None, cost=1e9, after=())
    b.compute("h0", [], None, cost=5e8)     # after the first computation (program order)
    prog = b.build()
    for model in ALL:
        r = cs.simulate(p, prog, model=model)
        assert r.trace.start[2:].tolist() == approx([0.0, 1.0]), model
        assert r.trace.end[2:].tolist() == approx([1.0, 1.5]), model
        assert r.cpu_busy.tolist() == approx([1.5, 0.0]), model
    assert cs.simulate(p, prog, model=OnePort()).makespan == approx(1.5)


def test_plogp_per_cluster_pair():
    p = Platform([Node(f"h{i}") for i in range(4)] + [Node("sw", kind="router")],
                 [Link(f"l{i}", 1e9, ends=(f"h{i}", "sw")) for i in range(4)],
                 clusters=[["h0", "h1"], ["h2", "h3"]], name="two-clusters")
    local = PLogPParams(L=1e-5, g=1e-4)
    wide = PLogPParams(L=1e-2, g=1e-3, o_r=5e-4)
    model = PLogP(local, pairs={(0, 1): wide})
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=10, after=())
    b.send("h0", "h2", [], size=10, after=())
    b.send("h3", "h0", [], size=10, after=(), recv_after=())   # (1, 0): the symmetric entry applies
    r = cs.simulate(p, b.build(), model=model)
    # the two sends of h0 share its port: the first holds it 1e-4, the second 1e-3 from 1e-4
    assert r.trace.end.tolist() == approx([1e-4, 1e-4 + 1e-5, 1.1e-3, 1.1e-3 + 1e-2 + 5e-4, 1e-3, 1e-3 + 1e-2 + 5e-4])
    plain = cs.topologies.star(2)
    one = cs.ProgramBuilder(plain.hosts)
    one.send("h0", "h1", [], size=1)
    with pytest.raises(ValueError, match="has no clusters"):
        cs.simulate(plain, one.build(), model=model)
    with pytest.raises(ValueError, match="name cluster 5"):
        cs.simulate(p, b.build(), model=PLogP(local, pairs={(0, 5): wide}))


def test_self_message_is_free():
    p = cs.topologies.star(2, bandwidth=1e6, latency=1e-3)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h0", [], size=1e6)
    for model in (OnePort(sync=False), Fluid(), Circuit(), OnePort(cost="edges", sync=False)):
        assert cs.simulate(p, b.build(), model=model).makespan == 0.0, model


def test_series_throughput_and_schedule_lowering():
    p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    c = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=1e6), count=4)
    s = cs.plan(p, c, algorithm="linear")
    r = cs.simulate(p, s, c, model=OnePort())
    assert r.makespan == approx(8.0)
    assert r.throughput == approx(0.5)
    assert cs.simulate(p, s.lower(p, c), model=OnePort()).throughput is None
    # a planned schedule knows its collective; a bare one must be told
    assert cs.simulate(p, s, model=OnePort()).throughput == approx(0.5)
    bare = cs.TreeSchedule(root=s.root, children=s.children)
    with pytest.raises(cs.ScheduleError, match="does not know its collective"):
        cs.simulate(p, bare)


def test_message_ids_need_not_be_dense():
    import dataclasses

    p, prog = two_into_one()
    sparse = dataclasses.replace(prog, op_msg=np.where(prog.op_msg >= 0, prog.op_msg * 10 + 7, -1))
    a = cs.simulate(p, prog, model=OnePort())
    b = cs.simulate(p, sparse, model=OnePort())
    assert a.trace.end.tolist() == b.trace.end.tolist()
    assert b.trace.msg.tolist() == [7, 7, 17, 17]


@pytest.mark.parametrize("model", ALL, ids=repr)
def test_caterpillar_all_to_all_runs(model):
    p = cs.topologies.star(4, bandwidth=(1e6, 2e6), latency=1e-4, seed=3)
    c = cs.AllToAll(senders=p.hosts, size=1e5)
    r = cs.simulate(p, cs.plan(p, c, algorithm="caterpillar"), c, model=model)
    assert math.isfinite(r.makespan) and r.makespan > 0
    assert np.all(r.trace.end >= r.trace.start)


@pytest.mark.parametrize("engine", ["core", "reference"])
def test_empty_and_compute_only_programs(engine):
    p = cs.topologies.star(2, speed=2e9)
    b = cs.ProgramBuilder(p.hosts)
    r = cs.simulate(p, b.build(), engine=engine)
    assert (r.makespan, r.events, r.trace.n_ops) == (0.0, 0, 0)
    assert r.link_utilisation.tolist() == [0.0, 0.0]
    b.compute("h1", [], None, cost=1e9)
    b.compute("h1", [], None, cost=1e9, after=())
    r = cs.simulate(p, b.build(), model=OnePort(), engine=engine)
    assert r.trace.start.tolist() == [0.0, 0.5] and r.makespan == 1.0   # one computation at a time per CPU
