"""SimGrid as an independent executor of the Fluid model: worked examples and agreement on random programs.

Three executors of one model meet here: SimGrid (configured as
:mod:`collsched.simulation.simgrid` explains), collsched's own simulator
(``cs.simulate(..., model=Fluid())``, the Rust core), and :func:`reference`,
a slow, obvious Python event loop written for these tests from the model's
definition (not from the engine's stage tables). On every op they must agree
to a relative 1e-6.
"""

from __future__ import annotations

import dataclasses
import heapq
import math

import numpy as np
import pytest

import collsched as cs
from collsched.platform import Link, Node, Platform
from collsched.schedules import ProgramBuilder, block
from collsched.schedules.program import COMPUTE, RECV, SEND
from collsched.simulation import SimulationError, simgrid
from collsched.simulation.models import Fluid, OnePort

needs_simgrid = pytest.mark.simgrid  # skipped by tests/conftest.py, naming python3-simgrid, where SimGrid is missing
RTOL = 1e-6


# --- the slow, obvious reference -------------------------------------------------------------

def _route(p: Platform, src: str, dst: str):
    """Channels ``(link, direction)`` a flow shares and its own rate cap (FATPIPE links)."""
    channels, cap = [], math.inf
    for link_id, forward in p.route_hops(src, dst):
        link = p.links[link_id]
        if link.sharing == "fatpipe":
            cap = min(cap, link.bandwidth)
        else:
            channels.append((link_id, forward if link.sharing == "full_duplex" else None))
    return channels, cap


def _max_min(flows: dict, capacity: dict) -> dict:
    """Max-min fair rates with equal weights: raise every free flow's rate until a channel or its cap is full."""
    rate = {f: 0.0 for f in flows}
    free = set(flows)
    room = dict(capacity)
    while free:
        users = {c: [f for f in free if c in flows[f][0]] for c in room}
        step = min([room[c] / len(u) for c, u in users.items() if u] + [flows[f][1] - rate[f] for f in free])
        for f in free:
            rate[f] += step
        for c, u in users.items():
            room[c] -= step * len(u)
        frozen = {f for f in free if math.isfinite(flows[f][1]) and rate[f] >= flows[f][1] * (1 - 1e-15)}
        for c, u in users.items():
            if u and room[c] <= 1e-12 * capacity[c]:
                frozen.update(u)
        free -= frozen
    return rate


def reference(p: Platform, prog, sends: str = "buffered"):
    """(start, end) of every op under Fluid (buffered sends) or with rendezvous sends, by brute force."""
    n = prog.n_ops
    kind, rank, msg, size = prog.op_kind, prog.op_rank, prog.op_msg, prog.op_size
    deps = [prog.dep_idx[prog.dep_ptr[i]:prog.dep_ptr[i + 1]].tolist() for i in range(n)]
    dependents = [[] for _ in range(n)]
    for i in range(n):
        for d in deps[i]:
            dependents[d].append(i)
    send_op, recv_op = prog.message_ops()
    ends = {m: (prog.ranks[rank[send_op[m]]], prog.ranks[rank[recv_op[m]]]) for m in range(len(send_op))}
    capacity = {}
    for link in p.links.values():
        for direction in ((True, False) if link.sharing == "full_duplex" else (None,)):
            capacity[(link.id, direction)] = link.bandwidth
    start, end, ready_at = np.full(n, np.nan), np.full(n, np.nan), np.full(n, np.nan)
    flow_at, arrived = {}, {}
    timers, flowing, routes = [], {}, {}
    cpu_queue = [[] for _ in prog.ranks]
    cpu = [None] * len(prog.ranks)
    waiting = [len(d) for d in deps]
    ready = [i for i in range(n) if waiting[i] == 0]
    t, finished = 0.0, 0

    def complete(i, when):
        nonlocal finished
        end[i] = when
        finished += 1
        for j in dependents[i]:
            waiting[j] -= 1
            if waiting[j] == 0:
                ready.append(j)

    def deliver(m, when):
        """The last byte of ``m`` is in: the send completes, the receive too if it is posted."""
        arrived[m] = when
        complete(send_op[m], when)
        if not math.isnan(ready_at[recv_op[m]]):
            complete(recv_op[m], when)

    def on_ready(i):
        ready_at[i] = t
        if kind[i] == COMPUTE:
            heapq.heappush(cpu_queue[rank[i]], (t, i))
            return
        m = int(msg[i])
        src, dst = ends[m]
        if src == dst:                                   # a message to oneself costs nothing
            if kind[i] == SEND:
                flow_at[m] = t
                deliver(m, t)
            elif m in arrived:
                complete(i, t)
        elif kind[i] == SEND and sends == "buffered":
            heapq.heappush(timers, (t + p.latency(src, dst), m))
        elif kind[i] == RECV and m in arrived:
            complete(i, t)
        elif sends == "rendezvous" and not np.isnan(ready_at[send_op[m]]) and not np.isnan(ready_at[recv_op[m]]):
            heapq.heappush(timers, (t + p.latency(src, dst), m))

    while finished < n:
        # every event of this instant, zero-length ones included, before any computation starts
        while True:
            if ready:
                on_ready(ready.pop(0))
            elif timers and timers[0][0] <= t:
                _, m = heapq.heappop(timers)
                flow_at[m], routes[m], flowing[m] = t, _route(p, *ends[m]), float(size[send_op[m]])
            elif any(v == 0 for v in flowing.values()):
                m = next(m for m, v in flowing.items() if v == 0)
                del flowing[m]
                deliver(m, t)
            else:
                break
        for r, queue in enumerate(cpu_queue):
            if cpu[r] is None and queue:
                _, i = heapq.heappop(queue)
                start[i] = t
                cpu[r] = (t + size[i] / p.nodes[prog.ranks[r]].speed, i)
        if finished == n:
            break
        rates = _max_min({m: routes[m] for m in flowing}, capacity)
        due = {m: t + flowing[m] / rates[m] for m in flowing}
        t_next = min(list(due.values()) + [x[0] for x in timers] + [c[0] for c in cpu if c is not None])
        for m in list(flowing):
            if due[m] <= t_next * (1 + 1e-12):          # flows ending within 1e-12 end together
                flowing[m] = 0.0
            else:
                flowing[m] -= rates[m] * (t_next - t)
        t = t_next
        for r, c in enumerate(cpu):
            if c is not None and c[0] <= t:
                cpu[r] = None
                complete(c[1], t)
    for i in range(n):
        if kind[i] == SEND:
            start[i] = ready_at[i]
        elif kind[i] == RECV:
            start[i] = max(ready_at[i], flow_at[int(msg[i])])
    return start, end


# --- worked examples --------------------------------------------------------------------------

def _pair(bandwidth=1e8, latency=1e-3, sharing="full_duplex"):
    return Platform([Node("a"), Node("b")], [Link("ab", bandwidth, latency, ends=("a", "b"), sharing=sharing)],
                    name="pair")


def _run(p, prog, **options):
    """SimGrid's result, checked against the reference on every op."""
    r = simgrid.run(p, prog, **options)
    start, end = reference(p, prog, options.get("sends", "buffered"))
    np.testing.assert_allclose(r.trace.end, end, rtol=1e-12, atol=0)
    np.testing.assert_allclose(r.trace.start, start, rtol=1e-12, atol=1e-15)
    return r


@needs_simgrid
def test_single_transfer_is_latency_plus_size_over_bandwidth():
    p = _pair()
    b = ProgramBuilder(p.hosts)
    b.send("a", "b", [block(0, 0, 1)], size=1e6)
    r = _run(p, b.build())
    assert (r.backend, r.model) == ("simgrid", "Fluid(one_port=False, ties='fixed')")
    np.testing.assert_allclose(r.trace.end, [1e-3 + 1e6 / 1e8] * 2, rtol=1e-12)
    np.testing.assert_allclose(r.trace.start, [0.0, 1e-3], rtol=1e-12)    # the receive starts with the bytes
    assert r.makespan == r.trace.end.max()
    np.testing.assert_allclose(r.link_busy, [1e-2])


@needs_simgrid
def test_two_flows_on_one_link_get_half_each_whatever_their_latencies():
    """CM02's default gives the flow of larger latency the smaller share; Fluid, and so this backend, do not."""
    p = Platform([Node("a"), Node("b"), Node("c"), Node("s", kind="router")],
                 [Link("la", 1e9, 1e-4, ends=("a", "s")), Link("lb", 1e9, 3e-3, ends=("b", "s")),
                  Link("lc", 1e8, 0.0, ends=("s", "c"))])
    b = ProgramBuilder(p.hosts)
    b.send("a", "c", [block(0, 0, 2)], size=1e6, recv_after=())
    b.send("b", "c", [block(1, 1, 2)], size=1e6, recv_after=())
    r = _run(p, b.build())
    # a's flow runs alone on lc from 1e-4 to 3e-3 (2.9e5 B at 1e8 B/s), then both share lc at 5e7 B/s:
    # a's last 7.1e5 B take 1.42e-2 s; then b's last 2.9e5 B go at the full 1e8 B/s
    t_a = 3e-3 + 7.1e5 / 5e7
    t_b = t_a + 2.9e5 / 1e8
    np.testing.assert_allclose(r.trace.end, [t_a, t_a, t_b, t_b], rtol=1e-9)


@needs_simgrid
def test_directions_of_a_full_duplex_link_are_independent_and_a_shared_link_is_not():
    for sharing, expected in (("full_duplex", 1e6 / 1e8), ("shared", 2e6 / 1e8)):
        p = _pair(latency=0.0, sharing=sharing)
        b = ProgramBuilder(p.hosts)
        b.send("a", "b", [block(0, 0, 2)], size=1e6, recv_after=())
        b.send("b", "a", [block(1, 1, 2)], size=1e6, after=(), recv_after=())
        np.testing.assert_allclose(_run(p, b.build()).trace.end, [expected] * 4, rtol=1e-12)


@needs_simgrid
def test_a_fatpipe_link_caps_each_flow_and_shares_nothing():
    p = Platform([Node("a"), Node("b"), Node("c"), Node("s", kind="router")],
                 [Link("la", 1e9, 0.0, ends=("a", "s")), Link("lb", 1e9, 0.0, ends=("b", "s")),
                  Link("lc", 1e8, 0.0, ends=("s", "c"), sharing="fatpipe")])
    b = ProgramBuilder(p.hosts)
    b.send("a", "c", [block(0, 0, 2)], size=1e6, recv_after=())
    b.send("b", "c", [block(1, 1, 2)], size=1e6, recv_after=())
    np.testing.assert_allclose(_run(p, b.build()).trace.end, [1e-2] * 4, rtol=1e-12)


@needs_simgrid
def test_three_hop_route_pays_every_latency_and_the_bottleneck_bandwidth():
    p = Platform([Node("a"), Node("b"), Node("r1", kind="router"), Node("r2", kind="router")],
                 [Link("l1", 1e9, 1e-4, ends=("a", "r1")), Link("l2", 2e7, 2e-4, ends=("r1", "r2")),
                  Link("l3", 5e8, 3e-4, ends=("r2", "b"))])
    assert p.route("a", "b") == ("l1", "l2", "l3")
    b = ProgramBuilder(p.hosts)
    b.send("a", "b", [block(0, 0, 1)], size=1e6)
    np.testing.assert_allclose(_run(p, b.build()).trace.end, [6e-4 + 1e6 / 2e7] * 2, rtol=1e-12)


@needs_simgrid
def test_compute_ops_take_cost_over_speed_one_at_a_time():
    p = Platform([Node("a", speed=2e9), Node("b")], [Link("ab", 1e8, 1e-3, ends=("a", "b"))])
    b = ProgramBuilder(p.hosts)
    first = b.compute("a", [], None, cost=1e9, after=())
    second = b.compute("a", [], None, cost=3e9, after=())   # ready at 0 too, but the CPU is taken
    b.send("a", "b", [block(0, 0, 1)], size=1e6, after=(first,))
    r = _run(p, b.build())
    np.testing.assert_allclose(r.trace.start[[first, second]], [0.0, 0.5], atol=1e-15)
    np.testing.assert_allclose(r.trace.end[[first, second]], [0.5, 2.0], rtol=1e-12)
    np.testing.assert_allclose(r.trace.end[2:], [0.5 + 1e-3 + 1e-2] * 2, rtol=1e-12)
    np.testing.assert_allclose(r.cpu_busy, [2.0, 0.0], rtol=1e-12)


@needs_simgrid
def test_buffered_sends_go_before_the_receive_is_posted_rendezvous_ones_do_not():
    """b computes until 0.1 s, then receives: Fluid's bytes have long arrived; SimGrid's rendezvous starts then."""
    p = _pair()
    b = ProgramBuilder(p.hosts)
    b.compute("b", [], None, cost=1e8)
    b.send("a", "b", [block(0, 0, 1)], size=1e6)
    prog = b.build()
    r = _run(p, prog)
    np.testing.assert_allclose(r.trace.end, [0.1, 1.1e-2, 0.1], rtol=1e-12)       # send ends on arrival
    np.testing.assert_allclose(r.trace.start, [0.0, 0.0, 0.1], rtol=1e-12)        # receive: when posted
    r = _run(p, prog, sends="rendezvous")
    np.testing.assert_allclose(r.trace.end, [0.1, 0.111, 0.111], rtol=1e-12)
    np.testing.assert_allclose(simgrid._run_arrays(p, prog, sends="rendezvous").flow_start[1:], [0.101] * 2)


@needs_simgrid
def test_messages_to_oneself_cost_nothing_and_sizes_need_not_be_whole_bytes():
    p = _pair(latency=0.0)
    b = ProgramBuilder(p.hosts)
    b.send("a", "a", [block(0, 0, 2)], size=1e6, recv_after=())
    b.send("a", "b", [block(0, 0, 2)], size=1e6 + 0.375)
    r = _run(p, b.build())
    np.testing.assert_allclose(r.trace.end, [0.0, 0.0, (1e6 + 0.375) / 1e8, (1e6 + 0.375) / 1e8], rtol=1e-14)


@needs_simgrid
def test_message_ids_need_not_be_dense():
    from programs import build, rows  # tests/ is on sys.path (tests/conftest.py)

    p = _pair()
    b = ProgramBuilder(p.hosts)
    b.send("a", "b", [block(0, 0, 2)], size=1e6, recv_after=())
    b.send("b", "a", [block(1, 1, 2)], size=2e6, after=(), recv_after=())
    ops = rows(b.build())
    for op, new_id in zip(ops, (7, 7, 3, 3)):
        op["msg"] = new_id
    sparse = build(p.hosts, ops)
    r = _run(p, sparse)
    np.testing.assert_allclose(r.trace.end, [1.1e-2, 1.1e-2, 2.1e-2, 2.1e-2], rtol=1e-12)
    assert r.trace.msg.tolist() == [7, 7, 3, 3]
    np.testing.assert_allclose(r.link_busy, [2e-2])


# --- SimGrid missing, bad programs ----------------------------------------------------------------

def test_missing_or_foreign_bindings_are_one_clear_line(tmp_path, monkeypatch):
    from collsched.simulation import _simgrid_loader as loader

    monkeypatch.setenv(loader.ENV_VAR, str(tmp_path / "nowhere.so"))
    assert "is not a file (install it with 'apt-get install python3-simgrid'" in loader.unavailable_reason()
    with pytest.raises(simgrid.SimgridUnavailable, match="nowhere.so' is not a file"):
        simgrid.run(_pair(), ProgramBuilder(["a", "b"]).build())
    foreign = tmp_path / "simgrid.cpython-39-x86_64-linux-gnu.so"
    foreign.write_bytes(b"")
    monkeypatch.setenv(loader.ENV_VAR, str(foreign))
    reason = loader.unavailable_reason()
    assert "were built for another Python than CPython 3." in reason and "\n" not in reason


def test_a_router_rank_is_rejected_before_simgrid_runs():
    p = cs.topologies.star(2)
    b = ProgramBuilder(["h0", "sw"])
    b.send("h0", "sw", [block(0, 0, 1)], size=1.0)
    with pytest.raises(SimulationError, match="'sw' is a router .* SimGrid routers cannot run actors"):
        simgrid.run(p, b.build())


def test_only_fluid_without_one_port_and_with_fixed_ties_is_reproduced():
    p, prog = cs.topologies.star(2), ProgramBuilder(["h0", "h1"]).build()
    for model, words in ((OnePort(), "Fluid model only, not OnePort"), (Fluid(one_port=True), "one_port=True"),
                         (Fluid(ties="random"), "ties='random'")):
        with pytest.raises(ValueError, match=words):
            simgrid.run(p, prog, model=model)
    with pytest.raises(ValueError, match="unknown sends 'later'"):
        simgrid.run(p, prog, sends="later")


@needs_simgrid
def test_a_deadlock_names_the_stuck_ops():
    p = _pair()
    b = ProgramBuilder(p.hosts)
    b.send("a", "b", [block(0, 0, 2)], size=1.0, after=(), recv_after=())
    b.send("b", "a", [block(1, 1, 2)], size=1.0, after=(1,), recv_after=())
    ok = b.build()
    # a's send now waits for a's receive, which waits for b's send, which waits for b's receive
    stuck = dataclasses.replace(ok, dep_ptr=np.array([0, 1, 1, 2, 2]), dep_idx=np.array([3, 1]))
    with pytest.raises(SimulationError, match=r"deadlock in SimGrid: 4 ops never completed: op 0 \(send on a, never "
                                            r"ready\), op 1 \(recv on b, started\)"):
        simgrid.run(p, stuck)


# --- random programs ---------------------------------------------------------------------------------

def random_case(seed: int):
    """A small heterogeneous platform and a lowered collective, both drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    links = dict(bandwidth=(1e7, 1e9), latency=(1e-5, 2e-3), speed=(5e8, 2e9), seed=seed)
    shape = ("star", "two_switches", "fat_tree")[seed % 3]
    if shape == "star":
        p = cs.topologies.star(int(rng.integers(3, 7)), **links)
    elif shape == "two_switches":
        p = cs.topologies.two_switches(int(rng.integers(2, 4)), trunk_bandwidth=(1e7, 3e8), **links)
    else:
        p = cs.topologies.fat_tree(int(rng.integers(2, 4)), 2, spines=int(rng.integers(1, 3)), **links)
    hosts = list(p.hosts)
    size = float(rng.uniform(1e4, 2e6))
    what = ("alltoall", "scatter", "broadcast", "reduce")[(seed // 3) % 4]
    if what == "alltoall":
        c = cs.AllToAll(senders=hosts, size=size)
        prog = cs.plan(p, c, algorithm="caterpillar").lower(p, c, sync=("barrier", "ready", "post_all")[seed % 3])
    else:
        root = hosts[int(rng.integers(len(hosts)))]
        c = {"scatter": lambda: cs.Scatter(source=root, targets=hosts, size=size),
             "broadcast": lambda: cs.Broadcast(source=root, targets=hosts, size=size),
             "reduce": lambda: cs.Reduce(participants=hosts, target=root, size=size, task_cost=size * 100)}[what]()
        prog = cs.plan(p, c, algorithm=("binomial", "linear")[int(rng.integers(2))]).lower(p, c)
    return p, c, prog


CASES = range(24)


@needs_simgrid
@pytest.mark.parametrize("seed", CASES)
def test_simgrid_agrees_with_fluid_on_random_programs(seed):
    """The acceptance test of the cross-check: every op's start and end, to a relative 1e-6."""
    p, c, prog = random_case(seed)
    cs.validate(p, c, prog)
    ours = cs.simulate(p, prog, model=Fluid())
    theirs = cs.simulate(p, prog, model=Fluid(), backend="simgrid")
    assert theirs.backend == "simgrid" and theirs.model == ours.model
    np.testing.assert_allclose(theirs.trace.end, ours.trace.end, rtol=RTOL, atol=0)
    np.testing.assert_allclose(theirs.trace.start, ours.trace.start, rtol=RTOL, atol=1e-15)
    assert theirs.makespan == pytest.approx(ours.makespan, rel=RTOL)
    np.testing.assert_array_equal(theirs.link_busy, ours.link_busy)
    np.testing.assert_allclose(theirs.cpu_busy, ours.cpu_busy, rtol=RTOL)
    # and the third executor, written from the model's definition
    start, end = reference(p, prog)
    np.testing.assert_allclose(ours.trace.end, end, rtol=RTOL, atol=0)
    np.testing.assert_allclose(ours.trace.start, start, rtol=RTOL, atol=1e-15)


@needs_simgrid
@pytest.mark.parametrize("seed", CASES[::3])
def test_simgrid_rendezvous_agrees_with_the_reference(seed):
    p, c, prog = random_case(seed)
    r = simgrid.run(p, prog, sends="rendezvous")
    start, end = reference(p, prog, "rendezvous")
    np.testing.assert_allclose(r.trace.end, end, rtol=RTOL, atol=0)
    np.testing.assert_allclose(r.trace.start, start, rtol=RTOL, atol=1e-15)
