"""The MPICH binomial reduce mapped onto the platform, and its exact steady-state throughput (seed 000, §5.2).

MPICH (``MPIR_Reduce_binomial``, non-commutative) reduces towards relative
rank 0 = ``P_0`` along a binomial tree (see
:mod:`collsched.algorithms.baselines.binomial`) and then sends the result to
the target. Pipelined, every operation uses the same tree, so its steady-state
throughput is ``1 / max load``: each message follows its static route
hop by hop (store and forward, as ``OnePort(cost="edges")`` simulates) and
charges ``size · c(u,v)`` to the send port of ``u`` and the receive port of
``v`` of every hop; each combination charges ``task_cost / speed`` to its
host's processor.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.fully_connected(4, bandwidth=1, latency=0, speed=1)
>>> binomial_reduce_throughput(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1))
Fraction(1, 2)
"""

from __future__ import annotations

from fractions import Fraction

from ..baselines.binomial import binomial_children
from .lp_alltoall import network

__all__ = ["route_nodes", "binomial_reduce_throughput"]


def route_nodes(platform, a: str, b: str) -> list[str]:
    """The node sequence of the static route from ``a`` to ``b``.

    Examples
    --------
    >>> import collsched as cs
    >>> route_nodes(cs.topologies.star(2), "h0", "h1")
    ['h0', 'sw', 'h1']
    """
    nodes = [a]
    for link in platform.route(a, b):
        ends = platform.links[link].ends
        if ends is None:  # a route-table platform: one direct hop
            return [a, b]
        nodes.append(ends[1] if ends[0] == nodes[-1] else ends[0])
    return nodes


def binomial_reduce_throughput(platform, reduce) -> Fraction:
    """Exact steady-state throughput of the MPICH binomial reduce tree, pipelined.

    Parameters
    ----------
    platform : Platform
    reduce : Reduce

    Returns
    -------
    Fraction
        Operations per second.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0, speed=1)
    >>> binomial_reduce_throughput(p, cs.Reduce(participants=p.hosts, target="h2", size=1, task_cost=0))
    Fraction(1, 3)
    """
    net = network(platform)
    hosts = list(reduce.participants)
    n = len(hosts)
    load: dict = {}

    def charge(key, x):
        load[key] = load.get(key, 0) + x

    def message(a, b, size):
        path = route_nodes(platform, a, b)
        for u, v in zip(path, path[1:]):
            t = Fraction(size) * net.cost[(u, v)]
            charge(("send", u), t)
            charge(("recv", v), t)

    children = binomial_children(n, largest_first=False)
    for r in range(n):
        end_r = r
        for c in children.get(r, ()):
            low = c & -c
            end_c = min(c + low - 1, n - 1)
            message(hosts[c], hosts[r], reduce.partial_size(c, end_c))
            charge(("cpu", hosts[r]), Fraction(reduce.task_cost_of(r, end_r, end_c)) / net.speed[hosts[r]])
            end_r = end_c
    if reduce.target != hosts[0]:
        message(hosts[0], reduce.target, reduce.partial_size(0, n - 1))
    worst = max(load.values(), default=Fraction(0))
    return 1 / worst if worst else Fraction(0)
