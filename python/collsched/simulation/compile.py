"""From a program and a platform to the per-message quantities every model compiles from.

:class:`Context` gathers, once per simulation and vectorised: each message's
source and destination ranks and bytes, the distinct (source, destination)
pairs and their routes, each rank's node attributes, and the stages of the
computations (the same in every model: ``hold{cpu(r)}`` for
``cost / speed(r)``). The models (:mod:`collsched.simulation.models`) add the
stages of the messages.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
>>> b = cs.ProgramBuilder(p.hosts)
>>> _ = b.send("h0", "h2", [], size=1e6)
>>> _ = b.send("h1", "h2", [], size=1e6)
>>> ctx = Context(b.build(), p)
>>> ctx.n_messages, ctx.routes.n_pairs, ctx.msg_latency.tolist(), ctx.msg_bandwidth.tolist()
(2, 2, [0.002, 0.002], [1000000.0, 1000000.0])
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..schedules.program import COMPUTE
from .routes import PairRoutes, busy_of_pairs, channels, message_endpoints, pair_routes, sharing_codes, unique_pairs
from .stages import HOLD, Part, Slot

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.program import Program

__all__ = ["Context", "gather_rows"]

_I = np.int64


def gather_rows(ptr: np.ndarray, idx: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR made of rows ``rows`` (in that order, repeats allowed) of the CSR ``(ptr, idx)``.

    Examples
    --------
    >>> p, i = gather_rows(np.array([0, 2, 3]), np.array([7, 8, 9]), np.array([1, 0, 1]))
    >>> p.tolist(), i.tolist()
    ([0, 1, 3, 4], [9, 7, 8, 9])
    """
    counts = np.diff(ptr)[rows]
    out_ptr = np.zeros(rows.shape[0] + 1, _I)
    np.cumsum(counts, out=out_ptr[1:])
    pos = np.repeat(ptr[rows] - out_ptr[:-1], counts) + np.arange(int(out_ptr[-1]), dtype=_I)
    return out_ptr, idx[pos]


class Context:
    """Per-message and per-rank arrays of one (program, platform), computed once.

    Parameters
    ----------
    program : Program
        Well formed, message ids dense ``0..M-1``.
    platform : Platform
        Every rank is one of its nodes.

    Attributes
    ----------
    src, dst, size : arrays per message
        Source and destination rank index, bytes.
    pair : int64 array per message
        Index of the message's (src, dst) pair in :attr:`routes`.
    routes : PairRoutes
        Routes of the distinct pairs.
    speed, send_overhead, recv_overhead : float arrays per rank

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.compute("h1", [], None, cost=2e9)
    >>> ctx = Context(b.build(), p)
    >>> ctx.compute_part().amount.tolist(), ctx.compute_part().res.tolist()
    ([2.0], [5])
    """

    def __init__(self, program: Program, platform: Platform):
        self.program = program
        self.platform = platform
        self.n_ranks = len(program.ranks)
        self.send_of, self.recv_of, self.src, self.dst, self.size = message_endpoints(program)
        self.n_messages = int(self.src.shape[0])
        self.pair, ps, pd = unique_pairs(self.src, self.dst, self.n_ranks)
        self._pair_ends = (ps, pd)
        nodes = [platform.nodes[r] for r in program.ranks]
        self.speed = np.array([n.speed for n in nodes], dtype=np.float64)
        self.send_overhead = np.array([n.send_overhead for n in nodes], dtype=np.float64)
        self.recv_overhead = np.array([n.recv_overhead for n in nodes], dtype=np.float64)

    @cached_property
    def routes(self) -> PairRoutes:
        """Routes of the distinct (src, dst) pairs (computed on first use)."""
        return pair_routes(self.platform, self.program.ranks, *self._pair_ends)

    @cached_property
    def hop_channels(self) -> np.ndarray:
        """The channel of each hop of :attr:`routes` (``channels(platform, hop_link, hop_fwd)``, computed once)."""
        return channels(self.platform, self.routes.hop_link, self.routes.hop_fwd)

    @cached_property
    def hop_pair(self) -> np.ndarray:
        """The pair of each hop of :attr:`routes` (computed once)."""
        return self.routes.hop_pair

    @cached_property
    def hop_codes(self) -> np.ndarray:
        """The sharing code of each hop's link (:func:`~collsched.platform.routes.sharing_codes`; 2: fatpipe)."""
        return sharing_codes(self.platform)[self.routes.hop_link]

    def link_busy(self) -> np.ndarray:
        """Per platform link, bytes carried / bandwidth (:func:`~collsched.simulation.routes.link_busy`).

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3, bandwidth=100.0)
        >>> b = cs.ProgramBuilder(p.hosts)
        >>> _ = b.send("h0", "h1", [], size=50)
        >>> _ = b.send("h2", "h1", [], size=150)
        >>> Context(b.build(), p).link_busy().tolist()
        [0.5, 2.0, 1.5]
        """
        return busy_of_pairs(self.platform, self.routes, self.pair, self.size, self.hop_channels, self.hop_pair)

    @property
    def msg_latency(self) -> np.ndarray:
        """Route latency sum of each message (0 from a rank to itself)."""
        return self.routes.latency[self.pair]

    @property
    def msg_bandwidth(self) -> np.ndarray:
        """Route bottleneck bandwidth of each message (``inf`` from a rank to itself)."""
        return self.routes.bandwidth[self.pair]

    @property
    def wire_time(self) -> np.ndarray:
        """``size / bandwidth`` of each message (0 from a rank to itself)."""
        return self.size / self.msg_bandwidth

    def ports(self) -> tuple[np.ndarray, np.ndarray]:
        """``(send port of the source, receive port of the destination)`` per message.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> b = cs.ProgramBuilder(p.hosts)
        >>> _ = b.send("h2", "h0", [], size=1)
        >>> [x.tolist() for x in Context(b.build(), p).ports()]
        [[6], [1]]
        """
        return 3 * self.src, 3 * self.dst + 1

    def compute_part(self) -> Part:
        """One ``hold{cpu(r)}`` of ``cost / speed(r)`` per computation, in op order.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2, speed=2e9)
        >>> b = cs.ProgramBuilder(p.hosts)
        >>> _ = b.compute("h0", [], None, cost=1e9)
        >>> part = Context(b.build(), p).compute_part()
        >>> part.kind.tolist(), part.amount.tolist(), part.res.tolist()
        ([0], [0.5], [2])
        """
        ops = np.flatnonzero(self.program.op_kind == COMPUTE)
        rank = self.program.op_rank[ops]
        return Part.uniform(ops.shape[0], [Slot(HOLD, self.program.op_size[ops] / self.speed[rank],
                                                res=(3 * rank + 2).reshape(-1, 1))])
