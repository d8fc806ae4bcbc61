"""Order schedules: for every sender, the order in which it sends its messages.

Caterpillar, random order, RSPB, ORSPB, greedy and open shop produce order
schedules (seed 004). Each sender sends its messages one after the other in
the given order; every receive is posted at once and is served when its
message arrives, which is how the asynchronous and synchronous models of
seed 004 read such a schedule.

Examples
--------
>>> from collsched import topologies
>>> from collsched.collectives import AllToAll
>>> from collsched.schedules.validate import validate
>>> p = topologies.star(3)
>>> c = AllToAll(senders=p.hosts, size=10)
>>> s = OrderSchedule(orders={"h0": ("h1", "h2"), "h1": ("h2", "h0"), "h2": ("h0", "h1")}, algorithm="caterpillar")
>>> s.n_transfers
6
>>> validate(p, c, s)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ..errors import ScheduleError
from .base import Schedule
from .columns import direct_order_program, order_program
from .program import Program, ProgramBuilder
from .steps import Transfer, tiled, transfer_pieces

__all__ = ["OrderSchedule"]


@dataclass(frozen=True)
class OrderSchedule(Schedule):
    """Per sender, the destinations in sending order.

    Attributes
    ----------
    orders : mapping
        ``sender -> tuple of destinations`` (or of ``(destination, instance)`` pairs for series).

    Raises
    ------
    ScheduleError
        If a sender sends to itself.

    Examples
    --------
    Instance 0 is written as a plain destination, other instances as pairs:

    >>> s = OrderSchedule(orders={"h0": ["h1", ("h1", 1)], "h1": [("h0", 0), ("h0", 1)]})
    >>> dict(s.orders)
    {'h0': ('h1', ('h1', 1)), 'h1': ('h0', ('h0', 1))}
    >>> s.n_transfers
    4
    """

    orders: Mapping[str, tuple] = field(default_factory=dict)
    shape = "orders"

    def __post_init__(self):
        super().__post_init__()
        orders = {}
        for sender, dests in dict(self.orders).items():
            items = []
            for d in dests:
                dst, inst = (d, 0) if isinstance(d, str) else (d[0], int(d[1]))
                if dst == sender:
                    raise ScheduleError(f"sender {sender!r} sends to itself in its order")
                items.append(dst if inst == 0 else (dst, inst))
            orders[sender] = tuple(items)
        object.__setattr__(self, "orders", MappingProxyType(orders))

    def __eq__(self, other):
        if not isinstance(other, OrderSchedule):
            return NotImplemented
        return (dict(self.orders), self.algorithm, dict(self.params), self.bound, self.status, self.message) == \
            (dict(other.orders), other.algorithm, dict(other.params), other.bound, other.status, other.message)

    __hash__ = None  # type: ignore[assignment]

    def transfers(self, sender: str) -> list[Transfer]:
        """The transfers of one sender, in order.

        Parameters
        ----------
        sender : str
            A host; one with no order sends nothing.

        Returns
        -------
        list of Transfer
            Direct messages of the collective, instance 0 unless the order says otherwise.

        Examples
        --------
        >>> s = OrderSchedule(orders={"h0": ["h2", ("h1", 3)]})
        >>> [(t.dst, t.inst) for t in s.transfers("h0")], s.transfers("h1")
        ([('h2', 0), ('h1', 3)], [])
        """
        return [Transfer(sender, d) if isinstance(d, str) else Transfer(sender, d[0], inst=d[1])
                for d in self.orders.get(sender, ())]

    @property
    def n_transfers(self) -> int:
        return sum(len(v) for v in self.orders.values())

    def _columns(self, platform, count: int):
        """(src, dst, inst) arrays of host indices, sender by sender, or None unless the orders name exactly the
        instances ``0 .. count - 1`` (no tiling) and every host is the platform's."""
        index = {h: i for i, h in enumerate(platform.hosts)}
        n = len(index)
        # each distinct order entry once: a destination (instance 0) or a (destination, instance) pair, coded as
        # inst * n + destination (-1 for a host the platform lacks); the entries are then looked up at C speed
        code: dict = {}
        src, coded = [], []
        for sender, seq in self.orders.items():
            if sender not in index:
                return None
            for d in set(seq).difference(code):
                dst, inst = (d, 0) if isinstance(d, str) else d
                code[d] = inst * n + index[dst] if dst in index else -1
            coded.append(np.fromiter(map(code.__getitem__, seq), np.int64, len(seq)))
            src.append(np.full(len(seq), index[sender], np.int64))
        if not coded:
            return None if count != 1 else (np.zeros(0, np.int64),) * 3
        coded_all = np.concatenate(coded)
        if (coded_all < 0).any():
            return None
        inst, dst = np.divmod(coded_all, n)
        if 1 + int(inst.max(initial=0)) != count:
            return None
        return np.concatenate(src), dst, inst

    def lower(self, platform, collective=None) -> Program:
        """Sends in order per sender; receives posted at once.

        Parameters
        ----------
        platform : Platform
            Its hosts are the ranks.
        collective : Collective
            An all-to-all, all-to-many or any collective with direct messages
            (a series, for orders that name instances).

        Returns
        -------
        Program
            Each send waits for the sender's previous send only; receives wait
            for nothing but their message. For a series of more (or fewer)
            instances than the orders name, each order is repeated with
            shifted instances (:func:`~collsched.schedules.steps.tiled`).

        Raises
        ------
        CollectiveError
            If an order names a message the collective does not have.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> c = cs.AllToAll(senders=["h0", "h1"], size=10)
        >>> prog = OrderSchedule(orders={"h0": ["h1"], "h1": ["h0"]}).lower(p, c)
        >>> [op.kind for op in prog], prog.ops_of("h0").tolist()
        (['send', 'recv', 'send', 'recv'], [0, 3])
        >>> cs.validate(p, c, prog)
        """
        collective = self.answering(collective)
        cols = self._columns(platform, collective.count)
        if cols is not None:  # the orders name the collective's instances: read as columns, lowered as columns
            fast = direct_order_program(*cols, platform, collective, name=self.algorithm)
            if fast is not None:
                return fast
        named = 1 + max((t.inst for sender in self.orders for t in self.transfers(sender)), default=0)
        sequences = [[t for g in tiled([self.transfers(sender)], collective.count, named) for t in g]
                     for sender in self.orders]
        fast = order_program(sequences, platform, collective, name=self.algorithm)
        if fast is not None:  # whole direct messages: the same program, built column-wise
            return fast
        b = ProgramBuilder(platform.hosts, name=self.algorithm)
        for sender, sequence in zip(self.orders, sequences):
            last: list[int] = []
            for t in sequence:
                pieces, size = transfer_pieces(t, platform, collective, 1)
                send, _ = b.send(sender, t.dst, pieces, size, after=last, recv_after=())
                last = [send]
        return b.build()
