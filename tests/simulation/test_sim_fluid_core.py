"""The Fluid stage table compiled in the core (``simulation.fluid_core``) against the Python compile, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from sim_programs import line, platforms, programs

import collsched as cs
from collsched import simulation as sim
from collsched.platform import Link, Node, Platform
from collsched.schedules.program import PREVIOUS
from collsched.simulation.fluid_core import MAX_HOSTS, host_pairs
from collsched.simulation.fluid_core import fluid_stages as core_stages
from collsched.simulation.models import Fluid
from collsched.simulation.routes import link_busy

FIELDS = ("act_ptr", "kind", "amount", "res_ptr", "res", "chan_ptr", "chan", "cap", "needs_recv", "sender_done",
          "recv_begins", "capacities")


def bits(a: np.ndarray) -> tuple:
    """An array's dtype, shape and bytes: equal only if equal to the last bit."""
    a = np.ascontiguousarray(a)
    return a.dtype.str, a.shape, a.tobytes()


def assert_same_table(platform, program, model):
    fast = core_stages(platform, program, model, build=True)
    assert fast is not None
    table, busy = fast
    ref = model.stages(program, platform)
    for name in FIELDS:
        assert bits(getattr(table, name)) == bits(getattr(ref, name)), name
    assert table.n_resources == ref.n_resources
    assert bits(busy) == bits(link_busy(platform, program))


def mixed_links() -> Platform:
    """Hosts on a switch through a full-duplex, a shared, a fatpipe and a directed-and-back pair of links."""
    nodes = [Node("a", speed=2e9), Node("b"), Node("c", speed=5e8), Node("d"), Node("s", kind="router")]
    links = [Link("la", 1e6, 1e-3, ends=("a", "s")), Link("lb", 3e6, 2e-3, ends=("b", "s"), sharing="shared"),
             Link("lc", 2e6, 0.0, ends=("c", "s"), sharing="fatpipe"),
             Link("ld_in", 1e6, 5e-4, ends=("d", "s"), directed=True),
             Link("ld_out", 4e6, 5e-4, ends=("s", "d"), directed=True)]
    return Platform(nodes, links, name="mixed")


def all_to_all(hosts, size=1e6, *, computes=True, ranks=None) -> cs.Program:
    b = cs.ProgramBuilder(ranks or hosts)
    for i, a in enumerate(hosts):
        for c in hosts[i + 1:] + hosts[:i + 1]:   # a message to itself too
            b.send(a, c, [], size=size * (1 + hosts.index(c)), recv_after=())
        if computes:
            b.compute(a, [], None, cost=3e8 * (i + 1))
    return b.build()


@pytest.mark.parametrize("one_port", [False, True])
@pytest.mark.parametrize("platform", [mixed_links(), cs.topologies.star(5, bandwidth=(1e6, 4e6), latency=(1e-5, 1e-3),
                                                                          seed=3),
                                      cs.topologies.fat_tree(2, 4, bandwidth=1e6, latency=1e-5),
                                      cs.topologies.hypercube(3, bandwidth=(1e6, 2e6), latency=(1e-4, 2e-3), seed=1)],
                         ids=lambda p: p.name)
def test_the_table_and_busy_times_are_the_python_compile_s(platform, one_port):
    model = Fluid(one_port=one_port)
    hosts = list(platform.hosts)
    assert_same_table(platform, all_to_all(hosts), model)
    # ranks a subset of the hosts, in another order
    assert_same_table(platform, all_to_all(hosts[:1:-1], ranks=hosts[::-1]), model)


def test_programs_without_messages_compile_alike():
    p = cs.topologies.star(3, speed=(1e9, 2e9), seed=2)
    assert_same_table(p, cs.ProgramBuilder(p.hosts).build(), Fluid())
    b = cs.ProgramBuilder(p.hosts)
    b.compute("h1", [], None, cost=2e9)
    b.compute("h0", [], None, cost=1e9)
    assert_same_table(p, b.build(), Fluid())


@settings(max_examples=40)
@given(programs())
def test_random_programs_compile_alike(case):
    platform, program = case
    for model in (Fluid(), Fluid(one_port=True)):
        assert_same_table(platform, program, model)


@pytest.mark.parametrize("mode", ["in_flight", "sequential"])
def test_simulate_gives_the_same_trace_either_way(mode, monkeypatch):
    p = cs.topologies.fat_tree(4, 4, bandwidth=1.25e8, latency=1e-5)
    n, after = len(p.hosts), (PREVIOUS if mode == "sequential" else ())
    b = cs.ProgramBuilder(p.hosts)
    for k in range(1, n):   # the caterpillar: step k, host i sends to i + k
        for i, h in enumerate(p.hosts):
            b.send(h, p.hosts[(i + k) % n], [], size=1e6, after=after, recv_after=after)
    prog = b.build()
    fast = cs.simulate(p, prog)
    assert host_pairs(p, build=False) is not None   # the core's compile ran
    monkeypatch.setattr(sim, "fluid_stages", lambda *args, **kw: None)
    slow = cs.simulate(p, prog)
    for name in ("start", "end"):
        assert bits(getattr(fast.trace, name)) == bits(getattr(slow.trace, name))
    for name in ("send_busy", "recv_busy", "cpu_busy", "link_busy", "link_utilisation"):
        assert bits(getattr(fast, name)) == bits(getattr(slow, name))
    assert (fast.makespan, fast.events) == (slow.makespan, slow.events)


def test_the_pair_table_is_built_once_per_platform_and_only_when_worth_it():
    p = cs.topologies.star(8)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1)
    one = b.build()
    assert core_stages(p, one, Fluid()) is None and host_pairs(p, build=False) is None   # 1 message, 56 pairs
    assert core_stages(p, all_to_all(list(p.hosts)), Fluid()) is not None
    table = host_pairs(p, build=False)
    assert table is not None and table is host_pairs(p)
    assert core_stages(p, one, Fluid()) is not None   # once built, any program uses it
    assert table.ptr.shape == (8 * 8 + 1,) and table.n_hosts == 8


def test_no_table_for_router_ranks_unreachable_pairs_or_too_many_hosts(monkeypatch):
    p = line()
    b = cs.ProgramBuilder(["a", "r1"])
    b.send("a", "r1", [], size=1)
    assert core_stages(p, b.build(), Fluid(), build=True) is None   # a rank is a router
    island = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e6, ends=("a", "b"))])
    b = cs.ProgramBuilder(["a", "b"])
    b.send("a", "b", [], size=1e6)
    assert core_stages(island, b.build(), Fluid(), build=True) is None and host_pairs(island) is None
    assert cs.simulate(island, b.build()).makespan == pytest.approx(1.0)   # the slow way routes the program's pair
    monkeypatch.setattr("collsched.simulation.fluid_core.MAX_HOSTS", 3)
    assert host_pairs(cs.topologies.star(4)) is None and MAX_HOSTS == 2048


def malformed(platform) -> dict[str, cs.Program]:
    """Programs the core's compile leaves to the slow way (or to the engine's check), by fault."""
    b = cs.ProgramBuilder(platform.hosts[:2])
    b.send("h0", "h1", [], size=5.0)
    good = b.build()
    import dataclasses

    return {"sparse ids": dataclasses.replace(good, op_msg=good.op_msg * 0 + 7),
            "nan size": dataclasses.replace(good, op_size=np.array([np.nan, 5.0])),
            "negative size": dataclasses.replace(good, op_size=np.array([-1.0, 5.0])),
            "crossed peers": dataclasses.replace(good, op_peer=np.array([0, 0])),
            "bad dependency": dataclasses.replace(good, dep_ptr=np.array([0, 0, 1]), dep_idx=np.array([0])),
            "two sends": dataclasses.replace(good, op_kind=np.array([0, 0]))}


@pytest.mark.parametrize("fault", list(malformed(cs.topologies.star(2))))
def test_faults_read_the_same_either_way(fault, monkeypatch):
    p = cs.topologies.star(2)
    host_pairs(p)
    program = malformed(p)[fault]

    def outcome():
        try:
            return "ok", cs.simulate(p, program).makespan
        except sim.SimulationError as exc:
            return "error", str(exc)

    fast = outcome()
    monkeypatch.setattr(sim, "fluid_stages", lambda *args, **kw: None)
    assert fast == outcome()
    assert fast[0] == "error" or fault == "sparse ids"


def numpy_host_pairs(platform):
    """The host-pair table as the vectorised numpy recipe computes it (the core's reference): every pair routed
    by ``pair_routes``, channel sets by ``channel_sets``, caps by ``fatpipe_caps``."""
    from collsched.simulation.routes import channel_sets, channels, fatpipe_caps, link_numbers, pair_routes, sharing_codes

    n = len(platform.hosts)
    a, b = np.divmod(np.arange(n * n, dtype=np.int64), n)
    routes = pair_routes(platform, platform.hosts, a, b)
    hop_channels = channels(platform, routes.hop_link, routes.hop_fwd)
    hop_codes = sharing_codes(platform)[routes.hop_link]
    ptr, chan = channel_sets(routes, hop_channels, hop_codes, routes.hop_pair)
    cap = fatpipe_caps(platform, routes, hop_codes, routes.hop_pair)
    _, bw = link_numbers(platform)
    return dict(ptr=ptr, chan=chan, latency=routes.latency, cap=cap, busy_ptr=routes.hop_ptr,
                busy_chan=hop_channels.astype(np.int64), capacities=np.repeat(bw, 2))


def back_and_forth() -> Platform:
    """A route table whose route a -> c crosses the shared link ``ab`` twice (a channel repeated: every pair's
    channels then come sorted), with a fatpipe on the way."""
    from collsched.platform.routing import RouteTable, ShortestPath

    nodes = [Node("a"), Node("b"), Node("c"), Node("s", kind="router")]
    links = [Link("ab", 1e6, 1e-3, ends=("a", "s"), sharing="shared"), Link("bs", 2e6, 2e-4, ends=("b", "s")),
             Link("cs", 3e6, 1e-4, ends=("c", "s"), sharing="fatpipe")]
    table = RouteTable({("a", "c"): [("ab", True), ("ab", False), ("ab", True), ("cs", False)]}, symmetric=False,
                       fallback=ShortestPath())
    return Platform(nodes, links, table, name="back-and-forth")


@pytest.mark.parametrize("platform", [mixed_links(), back_and_forth(), cs.topologies.star(6, latency=(1e-5, 3e-3), seed=4),
                                      cs.topologies.fat_tree(3, 4, routing="d_mod_k", latency=(1e-6, 1e-3), seed=2),
                                      cs.topologies.fat_tree(2, 3), cs.topologies.hypercube(3, latency=(1e-4, 2e-3), seed=5),
                                      cs.topologies.torus((3, 2))], ids=lambda p: p.name)
def test_the_core_s_pair_table_is_the_numpy_recipe_s(platform):
    table, ref = host_pairs(platform), numpy_host_pairs(platform)
    for name, want in ref.items():
        assert bits(getattr(table, name)) == bits(want), name
