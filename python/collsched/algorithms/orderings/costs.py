"""The cost view of a personalized exchange under seed 004's send/receive-overheads model.

A message from ``s`` to ``r`` of ``m`` bytes costs the sender ``o_s(s)``
(its ``send_overhead``), travels the route's latency ``L(s, r)`` and costs
the receiver ``o_r(r) + m / B(s, r)`` (its ``recv_overhead`` plus draining
the bytes), exactly as :class:`collsched.models.OnePort` with
``cost="overheads"`` charges it. Synchronously the two ports are held
together for ``o_s + L + o_r + m/B`` (the communication time of seed 004,
section 4.1); this is the cost matrix the planning algorithms work on.

Examples
--------
>>> import collsched as cs
>>> p = overhead_platform([1, 5, 10], latency=1.0)
>>> x = Exchange.of(p, cs.AllToAll(senders=p.hosts, size=1))
>>> x.cost.round(6).tolist()
[[0.0, 7.0, 12.0], [7.0, 0.0, 16.0], [12.0, 16.0, 0.0]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import CollectiveError
from ...platform import Platform
from ...platform.model import Link, Node
from ...platform.routes import PairRoutes, pair_routes

__all__ = ["Exchange", "overhead_platform", "exchange_of"]


def overhead_platform(overheads: Sequence[float], *, latency: float = 1.0, recv_overheads: Sequence[float] | None = None,
                      bandwidth: float = 1e15, name: str = "overheads") -> Platform:
    """Seed 004's cluster: hosts ``h0..`` with per-node overheads on one switch, route latency ``latency``.

    Parameters
    ----------
    overheads : sequence of float
        Sending overhead of each host (s); also its receiving overhead unless ``recv_overheads`` is given.
    latency : float
        Network latency of every route (each host link carries half of it).
    recv_overheads : sequence of float, optional
        Receiving overheads, if they differ from the sending ones (asymmetric costs).
    bandwidth : float
        Of every link; the default makes ``m / B`` negligible for small messages.
    name : str

    Returns
    -------
    Platform

    Examples
    --------
    >>> p = overhead_platform([2, 3], latency=1.0)
    >>> p.nodes["h1"].send_overhead, p.latency("h0", "h1")
    (3.0, 1.0)
    """
    recv = overheads if recv_overheads is None else recv_overheads
    if len(recv) != len(overheads):
        raise ValueError(f"recv_overheads has {len(recv)} values for {len(overheads)} hosts")
    nodes = [Node(f"h{i}", send_overhead=float(o), recv_overhead=float(r)) for i, (o, r) in enumerate(zip(overheads, recv))]
    nodes.append(Node("sw", kind="router"))
    links = [Link(f"l{i}", bandwidth, latency / 2, ends=(f"h{i}", "sw")) for i in range(len(overheads))]
    return Platform(nodes, links, name=name)


@dataclass(frozen=True)
class Exchange:
    """A personalized exchange as matrices over its senders (rows) and receivers (columns).

    Attributes
    ----------
    senders, receivers : tuple of str
        In platform order.
    mask : ndarray of bool
        ``mask[i, j]``: sender ``i`` has a message for receiver ``j``.
    send : ndarray
        Per message, the time the sender's port is held asynchronously (``o_s``).
    latency : ndarray
        Per message, the route latency.
    recv : ndarray
        Per message, the receiver's port time asynchronously (``o_r + m/B``).
    cost : ndarray
        Synchronous cost ``send + latency + recv`` (0 where there is no message).

    Examples
    --------
    >>> import collsched as cs
    >>> p = overhead_platform([1, 2, 3])
    >>> x = Exchange.of(p, cs.AllToAll(senders=p.hosts, receivers=["h1"], size=1))
    >>> x.senders, x.receivers, x.mask.tolist()
    (('h0', 'h2'), ('h1',), [[True], [True]])
    """

    senders: tuple[str, ...]
    receivers: tuple[str, ...]
    mask: np.ndarray
    send: np.ndarray
    latency: np.ndarray
    recv: np.ndarray
    cost: np.ndarray

    @classmethod
    def of(cls, platform: Platform, collective, *, overheads: bool = True, routes: PairRoutes | None = None) -> "Exchange":
        """Build the matrices of ``collective`` (all-to-all, all-to-some or all-to-many) on ``platform``.

        Parameters
        ----------
        platform : Platform
        collective : AllToAll or AllToMany
        overheads : bool
            Charge the nodes' overheads (``cost="overheads"``); False: the linear cost ``L + m/B``.
        routes : PairRoutes, optional
            The routes of the messages (:meth:`~collsched.collectives.AllToAll.message_columns`) if the
            caller already has them; they are looked up otherwise.

        Returns
        -------
        Exchange

        Raises
        ------
        CollectiveError
            If the collective is not a personalized exchange (or is a series).

        Examples
        --------
        >>> import collsched as cs
        >>> p = overhead_platform([1, 2])
        >>> Exchange.of(p, cs.AllToAll(senders=p.hosts, size=1), overheads=False).cost.round(6).tolist()
        [[0.0, 1.0], [1.0, 0.0]]
        """
        if collective.kind not in ("alltoall", "alltomany"):
            raise CollectiveError(f"orderings schedule personalized exchanges, not a {collective.kind}",
                                  fix="give an AllToAll or AllToMany")
        src, dst, message_size = collective.message_columns(platform)
        n = len(platform.hosts)
        involved_s, involved_r = np.zeros(n, bool), np.zeros(n, bool)
        involved_s[src] = True
        involved_r[dst] = True
        sender_hosts, receiver_hosts = np.flatnonzero(involved_s), np.flatnonzero(involved_r)  # in platform order
        senders = tuple(platform.hosts[i] for i in sender_hosts.tolist())
        receivers = tuple(platform.hosts[i] for i in receiver_hosts.tolist())
        shape = (len(senders), len(receivers))
        mask = np.zeros(shape, bool)
        size = np.zeros(shape)
        rows = np.searchsorted(sender_hosts, src)
        cols = np.searchsorted(receiver_hosts, dst)
        mask[rows, cols] = True
        size[rows, cols] = message_size
        # latency and bottleneck bandwidth of the routes that carry a message (vectorised route lookup)
        if routes is None:
            routes = pair_routes(platform, platform.hosts, src, dst)
        lat = np.zeros(shape)
        bw = np.ones(shape)
        lat[rows, cols] = routes.latency
        bw[rows, cols] = routes.bandwidth
        wire = np.where(mask, size / bw, 0.0)
        if overheads:
            o_s = np.array([platform.nodes[h].send_overhead for h in senders])
            o_r = np.array([platform.nodes[h].recv_overhead for h in receivers])
        else:
            o_s, o_r = np.zeros(len(senders)), np.zeros(len(receivers))
        send = np.where(mask, o_s[:, None], 0.0)
        latency = np.where(mask, lat, 0.0)
        recv = np.where(mask, o_r[None, :] + wire, 0.0)
        return cls(senders, receivers, mask, send, latency, recv, send + latency + recv)


def exchange_of(platform: Platform, collective) -> Exchange:
    """:meth:`Exchange.of` with the overheads cost (the planning view of every ordering algorithm).

    Examples
    --------
    >>> import collsched as cs
    >>> p = overhead_platform([1, 1])
    >>> float(exchange_of(p, cs.AllToAll(senders=p.hosts, size=1)).cost[0, 1].round(6))
    3.0
    """
    if collective.kind == "series":
        raise CollectiveError("orderings schedule one exchange, not a series", fix="plan the base collective")
    return Exchange.of(platform, collective)
