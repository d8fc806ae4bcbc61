"""Helpers of the simulator tests: small platforms, random programs, and lower bounds computed from the program alone."""

from __future__ import annotations

import math
from collections import deque

import numpy as np
from hypothesis import strategies as st

import collsched as cs
from collsched.platform import Link, Node, Platform
from collsched.schedules.program import COMPUTE, PREVIOUS, RECV, SEND, Program
from collsched.simulation import models

MODELS = [models.OnePort(), models.OnePort(sync=False), models.OnePort(cost="edges"),
          models.OnePort(cost="edges", sync=False), models.OnePort(cost="overheads"),
          models.OnePort(cost="overheads", sync=False), models.Circuit(), models.Circuit(one_port=True),
          models.Fluid(), models.Fluid(one_port=True),
          models.PLogP(models.PLogPParams(L=2e-4, g=models.Piecewise([0, 1e6], [1e-5, 0.5]),
                                          o_r=models.Piecewise([0, 1e6], [1e-6, 0.2])))]


def line(bandwidths=(1e6, 2e6, 1e6), latency=1e-3) -> Platform:
    """Hosts ``a`` and ``b`` joined by routers: a - r1 - r2 - b (a 3-hop route)."""
    nodes = [Node("a"), Node("b"), Node("r1", kind="router"), Node("r2", kind="router")]
    ends = [("a", "r1"), ("r1", "r2"), ("r2", "b")]
    links = [Link(f"e{i}", bw, latency, ends=e) for i, (bw, e) in enumerate(zip(bandwidths, ends))]
    return Platform(nodes, links, name="line")


def platforms(seed: int) -> list[Platform]:
    """A few small heterogeneous platforms (routers, trunks, a hypercube, per-node overheads)."""
    star = cs.topologies.star(4, bandwidth=(1e6, 4e6), latency=(1e-5, 1e-3), speed=(1e8, 1e9), seed=seed)
    nodes = [Node(n.id, n.kind, n.speed, send_overhead=0.01 * (i + 1) if n.is_host else 0.0,
                  recv_overhead=0.02 * (i + 1) if n.is_host else 0.0) for i, n in enumerate(star.nodes.values())]
    with_overheads = Platform(nodes, list(star.links.values()), name="star-overheads")
    return [star, with_overheads,
            cs.topologies.two_switches(2, bandwidth=(1e6, 3e6), latency=(0.0, 1e-3), trunk_bandwidth=1.5e6,
                                       seed=seed),
            cs.topologies.hypercube(2, bandwidth=(1e6, 2e6), latency=(1e-4, 2e-3), seed=seed)]


@st.composite
def programs(draw, max_messages: int = 7, max_computes: int = 3):
    """A platform and a random program on its hosts (builder-made: never deadlocks, no self-messages)."""
    seed = draw(st.integers(0, 1000))
    platform = draw(st.sampled_from(platforms(seed)))
    hosts = platform.hosts
    b = cs.ProgramBuilder(hosts, name="random")
    n_msg = draw(st.integers(1, max_messages))
    n_comp = draw(st.integers(0, max_computes))
    kinds = draw(st.permutations(["m"] * n_msg + ["c"] * n_comp))
    for k in kinds:
        if k == "m":
            src = draw(st.sampled_from(hosts))
            dst = draw(st.sampled_from([h for h in hosts if h != src]))
            size = draw(st.floats(1e3, 2e6))
            after = draw(st.sampled_from([PREVIOUS, ()]))
            recv_after = draw(st.sampled_from([PREVIOUS, ()]))
            b.send(src, dst, [], size=size, after=after, recv_after=recv_after)
        else:
            rank = draw(st.sampled_from(hosts))
            b.compute(rank, [], None, cost=draw(st.floats(1e6, 1e9)), after=draw(st.sampled_from([PREVIOUS, ()])))
    return platform, b.build()


def alone_time(model, platform: Platform, program: Program) -> np.ndarray:
    """Per message id: the least time from its send's start to its delivery (the message alone on the platform)."""
    send_op, recv_op = program.message_ops()
    out = np.zeros(send_op.shape[0])
    for m, (s, r) in enumerate(zip(send_op, recv_op)):
        a, b = program.ranks[program.op_rank[s]], program.ranks[program.op_rank[r]]
        size = float(program.op_size[s])
        if a == b:
            continue
        lat, bw = platform.latency(a, b), platform.bandwidth(a, b)
        if isinstance(model, models.PLogP):
            p = model.params
            out[m] = max(float(p.g(size)), float(p.o_s(size))) + p.L + float(p.o_r(size))
        elif isinstance(model, models.OnePort) and model.cost == "edges":
            g = platform.graph()
            hops = platform.route_hops(a, b)
            node = a
            total = 0.0
            for link_id, _ in hops:
                nxt = platform.links[link_id].other_end(node)
                e = g.edges[node, nxt]
                total += e["latency"] + size * e["cost"]
                node = nxt
            out[m] = total
        elif isinstance(model, models.OnePort) and model.cost == "overheads":
            out[m] = platform.nodes[a].send_overhead + lat + platform.nodes[b].recv_overhead + size / bw
        else:
            out[m] = lat + size / bw
    return out


def critical_path(model, platform: Platform, program: Program) -> float:
    """Longest chain of dependencies and messages, each at its least cost (a lower bound of the makespan)."""
    n = program.n_ops
    alone = alone_time(model, platform, program)
    send_op, _ = program.message_ops()
    speed = np.array([platform.nodes[r].speed for r in program.ranks])
    preds = [list(program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]) for i in range(n)]
    for i in range(n):
        if program.op_kind[i] == RECV:
            preds[i].append(int(send_op[program.op_msg[i]]))
    succ = [[] for _ in range(n)]
    indeg = [len(p) for p in preds]
    for i, ps in enumerate(preds):
        for p in ps:
            succ[p].append(i)
    start = np.zeros(n)
    end = np.zeros(n)
    queue = deque(i for i in range(n) if indeg[i] == 0)
    while queue:
        i = queue.popleft()
        kind = program.op_kind[i]
        ready = max((end[p] for p in preds[i] if not (kind == RECV and p == send_op[program.op_msg[i]])), default=0.0)
        if kind == RECV:
            s = send_op[program.op_msg[i]]
            end[i] = max(ready, start[s] + alone[program.op_msg[i]])
        elif kind == COMPUTE:
            start[i] = ready
            end[i] = ready + program.op_size[i] / speed[program.op_rank[i]]
        else:
            start[i] = ready
            end[i] = ready
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                queue.append(j)
    return float(end.max()) if n else 0.0


def port_sums(model, platform: Platform, program: Program) -> tuple[np.ndarray, np.ndarray]:
    """Per rank, the least seconds its send port and its receive port must be held (one-port models)."""
    R = len(program.ranks)
    out_s, out_r = np.zeros(R), np.zeros(R)
    send_op, recv_op = program.message_ops()
    alone = alone_time(model, platform, program)
    for m, (s, r) in enumerate(zip(send_op, recv_op)):
        a, b = program.op_rank[s], program.op_rank[r]
        if a == b:
            continue
        size = float(program.op_size[s])
        lat, bw = platform.latency(program.ranks[a], program.ranks[b]), platform.bandwidth(program.ranks[a],
                                                                                           program.ranks[b])
        if isinstance(model, models.OnePort) and model.cost != "edges":
            if model.sync:
                out_s[a] += alone[m]
                out_r[b] += alone[m]
            else:
                o_s = platform.nodes[program.ranks[a]].send_overhead if model.cost == "overheads" else 0.0
                o_r = size / bw + (platform.nodes[program.ranks[b]].recv_overhead if model.cost == "overheads"
                                   else 0.0)
                out_s[a] += o_s
                out_r[b] += o_r
        elif isinstance(model, models.PLogP):
            p = model.params
            out_s[a] += max(float(p.g(size)), float(p.o_s(size)))
            out_r[b] += float(p.o_r(size))
        elif getattr(model, "one_port", False):
            out_s[a] += size / bw if isinstance(model, models.Fluid) else lat + size / bw
            out_r[b] += size / bw if isinstance(model, models.Fluid) else lat + size / bw
    return out_s, out_r


def cpu_sums(platform: Platform, program: Program) -> np.ndarray:
    R = len(program.ranks)
    out = np.zeros(R)
    comp = program.op_kind == COMPUTE
    speed = np.array([platform.nodes[r].speed for r in program.ranks])
    np.add.at(out, program.op_rank[comp], program.op_size[comp] / speed[program.op_rank[comp]])
    return out


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


__all__ = ["MODELS", "line", "platforms", "programs", "alone_time", "critical_path", "port_sums", "cpu_sums",
           "close", "SEND"]
