"""Routes of a program's messages: end points per message and the busy time of every link.

The vectorised routes themselves (:class:`PairRoutes`, :func:`pair_routes`,
:func:`channels`, :func:`sharing_codes`, :func:`unique_pairs`) belong to the
platform's routed view and live in :mod:`collsched.platform.routes`; they are
imported here too, under the names this module always had.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(3)
>>> r = pair_routes(p, p.hosts, [0, 2], [2, 0])
>>> r.hops(0)
[('l0', True), ('l2', False)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..platform.routes import PairRoutes, channels, link_numbers, pair_routes, sharing_codes, unique_pairs
from ..schedules.program import RECV, SEND

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.program import Program

__all__ = ["PairRoutes", "pair_routes", "channels", "sharing_codes", "link_busy", "busy_of_pairs", "busy_of_channels",
           "message_endpoints", "unique_pairs", "channel_sets", "fatpipe_caps"]

_I = np.int64


def message_endpoints(program: Program) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per message id (dense ``0..M-1``): send op, recv op, source rank, destination rank, bytes.

    The program must be well formed (one send and one recv per message id).

    Examples
    --------
    >>> from collsched.schedules.program import ProgramBuilder
    >>> b = ProgramBuilder(["a", "b"])
    >>> _ = b.send("b", "a", [], size=3)
    >>> [x.tolist() for x in message_endpoints(b.build())]
    [[0], [1], [1], [0], [3.0]]
    """
    m = program.n_messages
    send_of = np.full(m, -1, _I)
    recv_of = np.full(m, -1, _I)
    sends = np.flatnonzero(program.op_kind == SEND)
    recvs = np.flatnonzero(program.op_kind == RECV)
    send_of[program.op_msg[sends]] = sends
    recv_of[program.op_msg[recvs]] = recvs
    return send_of, recv_of, program.op_rank[send_of], program.op_rank[recv_of], program.op_size[send_of]


def link_busy(platform: Platform, program: Program, routes: PairRoutes | None = None,
              pair: np.ndarray | None = None) -> np.ndarray:
    """Per platform link (in link order): bytes carried / bandwidth, the busier direction of a full-duplex link.

    Model-independent: every message's bytes cross every link of its route.
    Shared (and directed) links count both directions together; fatpipe
    links likewise (their value is a load and may exceed the makespan).

    Parameters
    ----------
    platform : Platform
    program : Program
        Well formed, message ids dense.
    routes, pair : optional
        Routes of the program's distinct pairs and the pair of each message,
        if already computed.

    Returns
    -------
    numpy float64 array

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=100.0)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=50)
    >>> _ = b.send("h2", "h1", [], size=150)
    >>> link_busy(p, b.build()).tolist()
    [0.5, 2.0, 1.5]
    """
    _, _, src, dst, size = message_endpoints(program)
    if routes is None or pair is None:
        pair, ps, pd = unique_pairs(src, dst, len(program.ranks))
        routes = pair_routes(platform, program.ranks, ps, pd)
    return busy_of_pairs(platform, routes, pair, size)


def busy_of_pairs(platform: Platform, routes: PairRoutes, pair: np.ndarray, size: np.ndarray,
                  hop_channels: np.ndarray | None = None, hop_pair: np.ndarray | None = None) -> np.ndarray:
    """:func:`link_busy` from the messages' pairs in ``routes`` and their bytes.

    ``hop_channels`` (``channels(platform, routes.hop_link, routes.hop_fwd)``) and ``hop_pair``
    (``routes.hop_pair``), if already computed.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=100.0)
    >>> r = pair_routes(p, p.hosts, [0, 2], [1, 1])
    >>> busy_of_pairs(p, r, np.array([0, 1, 1]), np.array([50.0, 100.0, 50.0])).tolist()
    [0.5, 2.0, 1.5]
    """
    n_links = len(routes.link_ids)
    bytes_per_pair = np.bincount(pair, weights=size, minlength=routes.n_pairs)
    ch = channels(platform, routes.hop_link, routes.hop_fwd) if hop_channels is None else hop_channels
    per_channel = np.bincount(ch, weights=bytes_per_pair[routes.hop_pair if hop_pair is None else hop_pair],
                              minlength=2 * n_links)
    return busy_of_channels(platform, per_channel)


def busy_of_channels(platform: Platform, per_channel: np.ndarray) -> np.ndarray:
    """:func:`link_busy` from the bytes carried by each channel (``2l``, ``2l + 1`` of link ``l``).

    Examples
    --------
    >>> import collsched as cs
    >>> busy_of_channels(cs.topologies.star(2, bandwidth=100.0), np.array([50.0, 0.0, 0.0, 150.0])).tolist()
    [0.5, 1.5]
    """
    _, bw = link_numbers(platform)
    n_links = bw.shape[0]
    return per_channel.reshape(n_links, 2).max(axis=1) / bw if n_links else np.zeros(0)


def channel_sets(routes: PairRoutes, hop_channels: np.ndarray, hop_codes: np.ndarray, hop_pair: np.ndarray,
                 base: int = 0, *, fat: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per pair of ``routes``, the distinct channels (``base +`` channel) of its hops, CSR ``(ptr, idx)``.

    Fatpipe hops (``hop_codes == 2``) are left out, or, with ``fat``, only
    they are kept. ``hop_channels``, ``hop_codes`` and ``hop_pair`` are per
    hop of ``routes`` (:func:`channels`, :func:`sharing_codes` of the hop's
    link, ``routes.hop_pair``). A route's channels stay in hop order.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> r = pair_routes(p, p.hosts, [0, 2, 1], [2, 0, 1])
    >>> ch = channels(p, r.hop_link, r.hop_fwd)
    >>> [x.tolist() for x in channel_sets(r, ch, sharing_codes(p)[r.hop_link], r.hop_pair)]
    [[0, 2, 4, 4], [0, 5, 4, 1]]
    """
    keep = (hop_codes == 2) if fat else (hop_codes != 2)
    owner = hop_pair[keep]
    ch = hop_channels[keep]
    span = 2 * max(len(routes.link_ids), 1)
    key = owner * span + ch          # sorted by pair already; a route rarely repeats a channel
    if repeats(key, int(np.diff(routes.hop_ptr).max()) if routes.n_pairs else 0):
        key = np.unique(key)
        owner, ch = key // span, key % span
    ptr = np.zeros(routes.n_pairs + 1, _I)
    np.cumsum(np.bincount(owner, minlength=routes.n_pairs), out=ptr[1:])
    return ptr, ch + base


def repeats(key: np.ndarray, longest: int) -> bool:
    """Whether ``key`` has two equal entries, knowing that equal entries are fewer than ``longest`` apart.

    The keys of one route's hops are consecutive, and a route has at most ``longest`` hops: comparing
    each key with the ``longest - 1`` before it finds every repeat, in that many vectorised passes
    (a sort beyond 16).

    Examples
    --------
    >>> repeats(np.array([7, 9, 7, 20, 21]), 3), repeats(np.array([7, 9, 8, 7]), 3)
    (True, False)
    """
    if longest > 16:
        ordered = np.sort(key)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    return any(bool(np.any(key[d:] == key[:-d])) for d in range(1, min(longest, key.shape[0])))


def fatpipe_caps(platform: Platform, routes: PairRoutes, hop_codes: np.ndarray, hop_pair: np.ndarray) -> np.ndarray:
    """Per pair of ``routes``, the least bandwidth of its fatpipe hops (``inf`` without any): the Fluid flows' cap.

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> p = Platform([Node("a"), Node("b")], [Link("x", 5e8, ends=("a", "b"), sharing="fatpipe")])
    >>> r = pair_routes(p, p.hosts, [0, 1], [1, 1])
    >>> fatpipe_caps(p, r, sharing_codes(p)[r.hop_link], r.hop_pair).tolist()
    [500000000.0, inf]
    """
    cap = np.full(routes.n_pairs, np.inf)
    fat = hop_codes == 2
    if fat.any():
        _, bw = link_numbers(platform)
        np.minimum.at(cap, hop_pair[fat], bw[routes.hop_link[fat]])
    return cap
