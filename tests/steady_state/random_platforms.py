"""Random heterogeneous platforms and series for the steady-state property tests.

Directed links of different bandwidths (exact binary fractions or small
integers, so that every cost is an exact rational and the LP's period
stays short), hosts of different speeds, routers that only relay, and
collectives on a random subset of the hosts: relays, busy CPUs (task costs
up to three times a host's speed) and one-way links all occur.
"""

from __future__ import annotations

import numpy as np

import collsched as cs
from collsched.platform.model import Link, Node, Platform

BANDWIDTHS = (0.25, 0.5, 1.0, 2.0, 3.0, 4.0)
SPEEDS = (1.0, 2.0, 3.0, 4.0)
SIZES = (0.5, 1.0, 2.0)
KINDS = ("scatter", "alltoall", "reduce", "broadcast", "allgather")


def random_platform(seed: int) -> Platform:
    """3 to 6 hosts and 0 to 2 routers; a directed ring through every node keeps them strongly connected."""
    rng = np.random.default_rng(seed)
    n_hosts, n_routers = int(rng.integers(3, 7)), int(rng.integers(0, 3))
    hosts = [f"P{i}" for i in range(n_hosts)]
    routers = [f"R{i}" for i in range(n_routers)]
    nodes = [Node(h, speed=float(rng.choice(SPEEDS))) for h in hosts] + [Node(r, kind="router") for r in routers]
    names = hosts + routers
    order = [names[i] for i in rng.permutation(len(names))]
    edges = {(a, b) for a, b in zip(order, order[1:] + order[:1])}
    for a in names:
        for b in names:
            if a != b and rng.random() < 0.35:
                edges.add((a, b))
    links = [Link(f"{a}-{b}", bandwidth=float(rng.choice(BANDWIDTHS)), latency=0, ends=(a, b), directed=True)
             for a, b in sorted(edges)]
    return Platform(nodes, links, name=f"random-{seed}")


def random_series(platform: Platform, kind: str, seed: int, count: int = 10) -> cs.Series:
    """A series of ``kind`` on 2 to 4 of the platform's hosts, in random order."""
    rng = np.random.default_rng(seed + 7919)
    hosts = list(platform.hosts)
    n = int(rng.integers(2, min(4, len(hosts)) + 1))
    chosen = [hosts[i] for i in rng.permutation(len(hosts))[:n]]
    size = float(rng.choice(SIZES))
    if kind == "scatter":
        c = cs.Scatter(source=chosen[0], targets=chosen[1:], size=size)
    elif kind == "broadcast":
        c = cs.Broadcast(source=chosen[0], targets=chosen[1:], size=size)
    elif kind == "alltoall":
        c = cs.AllToAll(senders=chosen, size=size)
    elif kind == "allgather":
        c = cs.AllGather(participants=chosen, size=size)
    else:
        target = hosts[int(rng.integers(len(hosts)))]
        c = cs.Reduce(participants=chosen, target=target, size=size, task_cost=float(rng.integers(0, 4)))
    return cs.Series(c, count=count)
