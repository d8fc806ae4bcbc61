"""Platforms for measuring the runtime: two switches with hosts placed round-robin.

A batch scheduler often places the ranks of a job round-robin over racks:
rank ``i`` on switch ``i % 2``. MPI's collectives follow rank order, so on
such a placement they cross the slow link between the switches at many
steps; a schedule planned on the platform crosses it as little as it can.
This is the emulated platform of the runtime's tests and of
``benchmarks/bench_runtime.py``.

Examples
--------
>>> p = round_robin_switches(2, bandwidth=5e7, trunk_bandwidth=5e6)
>>> p.hosts, p.route("h0", "h1"), p.route("h0", "h2")
(('h0', 'h1', 'h2', 'h3'), ('l0', 'trunk', 'l1'), ('l0', 'l2'))
"""

from __future__ import annotations

from ..platform import Link, Node, Platform

__all__ = ["round_robin_switches"]


def round_robin_switches(k: int = 4, *, bandwidth: float = 5e7, trunk_bandwidth: float = 5e6,
                         latency: float = 0.0) -> Platform:
    """``2k`` hosts, host ``h{i}`` on switch ``sw{i % 2}``, the switches joined by one ``trunk`` link.

    Parameters
    ----------
    k : int
        Hosts per switch.
    bandwidth : float
        Bytes/s of each host's link.
    trunk_bandwidth : float
        Bytes/s of the link between the switches.
    latency : float
        Seconds, of every link.

    Returns
    -------
    Platform
        Shortest-path routing; ``clusters`` are the hosts of each switch.

    Examples
    --------
    >>> round_robin_switches(3).clusters
    (('h0', 'h2', 'h4'), ('h1', 'h3', 'h5'))
    """
    hosts = [f"h{i}" for i in range(2 * k)]
    nodes = [Node(h) for h in hosts] + [Node("sw0", kind="router"), Node("sw1", kind="router")]
    links = [Link(f"l{i}", bandwidth, latency, ends=(h, f"sw{i % 2}")) for i, h in enumerate(hosts)]
    links.append(Link("trunk", trunk_bandwidth, latency, ends=("sw0", "sw1")))
    return Platform(nodes, links, name=f"round-robin-switches-{k}", clusters=[hosts[0::2], hosts[1::2]])
