"""Periodic schedules: the steady state of a series of collectives (seed 000).

A :class:`PeriodicSchedule` carries the exact optimal throughput and period,
the LP's activity variables, and one period's pattern: a list of
:class:`Slot` (a weighted matching of transfers, and the computations done
meanwhile), plus initialisation and clean-up slots. Pattern values use
*relative* instance numbers: in period ``p`` a piece tagged ``@t`` stands for
instance ``p * ops_per_period + t``, so a piece tagged with a negative
instance is one that entered the pipeline in an earlier period (a relay
forwards what it received one period before).

Lowering for a series of ``K`` operations (``q = ops_per_period``,
``L = lag()``) takes one of two forms:

* **Without phases** (``init`` and ``cleanup`` empty): enough periods for
  every instance ``0 .. K-1`` to complete; each transfer or task whose
  instances fall outside ``0 .. K-1`` is skipped (the pipeline fills and
  drains inside the first and last ``L`` periods).
* **With phases** (seed 000, §3.4): the ``init`` slots (absolute instance
  numbers) bring every relay the messages that the first full period
  forwards; then ``R = max(0, ceil(K/q) - L)`` full periods, period ``p``
  reading ``@t`` as instance ``(p + L)·q + t``; then the ``cleanup`` slots,
  whose instances count from the first one the periods leave unfinished
  (``@t`` is instance ``R·q + t``). Pieces of instances ``>= K`` are skipped
  everywhere. Both phases last a time independent of ``K``.

On every rank, sends follow one another in slot order (the send port), so do
receives (the receive port) and computations (the CPU); an operation also
waits for the operations that gave its rank what it reads. So each
resource runs its activities of a period back to back, and a computation
that outlasts its slot delays only what reads its result.

With ``ports="multi"`` (every link direction its own capacity, GPU fabrics)
the resources are the **link directions** instead of the ranks' ports: a
slot's transfers from ``u`` to ``v`` (those of instances that exist) go as
one message, which waits for the previous message on the same ``(u, v)``,
while messages on different link directions run at once; a rank's
computations still follow one another on its CPU. One message per link
direction and slot pays one latency per period; a strict chain (no second
message in flight) keeps each link direction first-in first-out, so that a
relay is never starved by a later message sharing its link.

Examples
--------
A source feeds a target through a relay, one message per period; the relay
forwards in period ``p`` what it received in period ``p - 1``:

>>> from fractions import Fraction
>>> from collsched import topologies
>>> from collsched.collectives import Scatter, Series
>>> from collsched.schedules.values import block
>>> from collsched.schedules.validate import validate
>>> p = topologies.star(3)
>>> hop1 = PeriodicTransfer("h0", "h1", (block(0, 0, 2),), 1e3)
>>> hop2 = PeriodicTransfer("h1", "h2", (block(-1, 0, 2),), 1e3)
>>> s = PeriodicSchedule(throughput=Fraction(1000), period=Fraction(1, 1000), ops_per_period=1,
...                      slots=(Slot(Fraction(1, 1000), (hop1, hop2)),), algorithm="relay")
>>> c = Series(Scatter(source="h0", targets=["h2"], size=1e3), count=5)
>>> prog = s.lower(p, c)
>>> prog.n_messages
10
>>> validate(p, c, prog)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from operator import attrgetter
from types import MappingProxyType
from typing import Mapping

from ..errors import ScheduleError
from .base import Schedule
from .periodic_columns import periodic_program
from .program import Program, ProgramBuilder, _collector_paused
from .trees import TreeSchedule
from .values import Piece, Value, as_piece

__all__ = ["PeriodicTransfer", "PeriodicTask", "Slot", "PeriodicSchedule", "PORTS", "lower_with_builder"]

#: The port models a periodic schedule is lowered under (see the module docstring).
PORTS = ("one", "multi")


def _pieces(items) -> tuple[Piece | Value, ...]:
    return tuple(x if isinstance(x, Piece) else Value(*x) for x in items)


@dataclass(frozen=True)
class PeriodicTransfer:
    """A message of the pattern: ``src`` sends ``pieces`` (``size`` bytes) to ``dst``.

    Parameters
    ----------
    src, dst : str
        Hosts.
    pieces : sequence of Value or Piece
        What the message carries, instances relative to the period (see the
        module docstring); plain 4-tuples are read as values.
    size : float
        Bytes of the message (the validator checks it against the pieces).

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> PeriodicTransfer("h1", "h2", [(0, -1, 0, 2)], 1e3)
    PeriodicTransfer(src='h1', dst='h2', pieces=(m[0→2]@-1,), size=1000.0)
    >>> PeriodicTransfer("h1", "h2", [(0, -1, 0, 2)], 1e3) == PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
    True
    """

    src: str
    dst: str
    pieces: tuple[Piece | Value, ...]
    size: float

    def __post_init__(self):
        object.__setattr__(self, "pieces", _pieces(self.pieces))


@dataclass(frozen=True)
class PeriodicTask:
    """A computation of the pattern: ``node`` combines ``inputs`` into ``output`` (``cost`` flop).

    Parameters
    ----------
    node : str
        The host that computes.
    inputs : sequence of Value or Piece
        Adjacent partial results, in operand order.
    output : Value or Piece
        Their combination.
    cost : float
        Flop (the validator checks it against the reduce's task costs).

    Examples
    --------
    A two-host reduce, one operation per period: ``h1`` sends its operand,
    ``h0`` combines it with its own.

    >>> from fractions import Fraction
    >>> import collsched as cs
    >>> from collsched.schedules.values import partial
    >>> task = PeriodicTask("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), 100)
    >>> send = PeriodicTransfer("h1", "h0", [partial(0, 1, 1)], 8)
    >>> s = PeriodicSchedule(throughput=10**4, period=Fraction(1, 10**4),
    ...                      slots=[Slot(Fraction(1, 10**4), [send], [task])])
    >>> p = cs.topologies.star(2)
    >>> c = cs.Series(cs.Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=100), count=3)
    >>> prog = s.lower(p, c)
    >>> prog.op(2)
    Op(2: h0 compute 100 [v[0..0]@0[0:1], v[1..1]@0[0:1] -> v[0..1]@0[0:1]] after (1,))
    >>> cs.validate(p, c, prog)
    """

    node: str
    inputs: tuple[Piece | Value, ...]
    output: Piece | Value
    cost: float

    def __post_init__(self):
        object.__setattr__(self, "inputs", _pieces(self.inputs))
        object.__setattr__(self, "output", _pieces([self.output])[0])


@dataclass(frozen=True)
class Slot:
    """A weighted matching: transfers (and computations) that run together for ``duration`` seconds.

    Parameters
    ----------
    duration : Fraction, int or str
        Seconds, exact (anything :class:`fractions.Fraction` accepts).
    transfers : sequence of PeriodicTransfer
    tasks : sequence of PeriodicTask

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> slot = Slot("1/1000", [PeriodicTransfer("h0", "h1", [block(0, 0, 1)], 1e3)])
    >>> slot.duration, len(slot.transfers), slot.tasks
    (Fraction(1, 1000), 1, ())
    """

    duration: Fraction
    transfers: tuple[PeriodicTransfer, ...] = ()
    tasks: tuple[PeriodicTask, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "duration", Fraction(self.duration))
        object.__setattr__(self, "transfers", tuple(self.transfers))
        object.__setattr__(self, "tasks", tuple(self.tasks))


@dataclass(frozen=True)
class PeriodicSchedule(Schedule):
    """A steady-state schedule.

    Attributes
    ----------
    throughput : Fraction
        Operations per second (exact).
    period : Fraction
        Seconds (exact).
    ops_per_period : int
        Operations started per period (``throughput * period``).
    activities : mapping
        The LP's activity variables by name, exact.
    slots : tuple of Slot
        One period.
    trees : tuple of (Fraction, TreeSchedule)
        Weighted reduction or broadcast trees, where the algorithm extracts them.
    init, cleanup : tuple of Slot
        Initialisation and clean-up phases (seed 000, §3.4): ``init`` in
        absolute instance numbers, ``cleanup`` counted from the first
        instance the full periods leave unfinished (module docstring).
    denominator : int
        Unit of pieces.
    ports : {"one", "multi"}
        The port model the pattern is lowered under: ``"one"``, each rank's
        sends (receives) one after another in slot order; ``"multi"``, each
        link direction's transfers one after another (module docstring).

    Raises
    ------
    ScheduleError
        If the period is not positive, the throughput is negative,
        ``ops_per_period`` is not an integer >= 1, the slots of one period
        last longer than the period, or ``ports`` is not a port model.

    Examples
    --------
    >>> from fractions import Fraction
    >>> s = PeriodicSchedule(throughput=1000, period="1/1000", slots=[Slot("1/2000")])
    >>> s.throughput, s.period, s.shape
    (Fraction(1000, 1), Fraction(1, 1000), 'periodic')
    >>> PeriodicSchedule(period=Fraction(1, 1000), slots=[Slot(Fraction(1, 100))])
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: the slots of one period last 1/100, more than the period 1/1000
    """

    throughput: Fraction = Fraction(0)
    period: Fraction = Fraction(1)
    ops_per_period: int = 1
    activities: Mapping[str, Fraction] = field(default_factory=dict)
    slots: tuple[Slot, ...] = ()
    trees: tuple[tuple[Fraction, TreeSchedule], ...] = ()
    init: tuple[Slot, ...] = ()
    cleanup: tuple[Slot, ...] = ()
    denominator: int = 1
    ports: str = "one"
    shape = "periodic"

    def __post_init__(self):
        super().__post_init__()
        for name in ("throughput", "period"):
            object.__setattr__(self, name, Fraction(getattr(self, name)))
        if self.period <= 0 or self.throughput < 0:
            raise ScheduleError(f"periodic schedule with period {self.period} and throughput {self.throughput}")
        if isinstance(self.ops_per_period, bool) or not isinstance(self.ops_per_period, int) or self.ops_per_period < 1:
            raise ScheduleError(f"ops_per_period is {self.ops_per_period!r}", fix="give an integer >= 1")
        object.__setattr__(self, "activities",
                           MappingProxyType({k: Fraction(v) for k, v in dict(self.activities).items()}))
        for name in ("slots", "init", "cleanup"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "trees", tuple((Fraction(w), t) for w, t in self.trees))
        if self.ports not in PORTS:
            raise ScheduleError(f"periodic schedule has ports={self.ports!r}", fix="give 'one' or 'multi'")
        busy = sum((s.duration for s in self.slots), Fraction(0))
        if busy > self.period:
            raise ScheduleError(f"the slots of one period last {busy}, more than the period {self.period}")

    def __eq__(self, other):
        if not isinstance(other, PeriodicSchedule):
            return NotImplemented
        fields = ("throughput", "period", "ops_per_period", "slots", "trees", "init", "cleanup", "denominator",
                  "ports", "algorithm", "bound", "status", "message")
        return all(getattr(self, f) == getattr(other, f) for f in fields) and \
            dict(self.activities) == dict(other.activities) and dict(self.params) == dict(other.params)

    __hash__ = None  # type: ignore[assignment]

    def lag(self) -> int:
        """How many periods the deepest piece of the pattern trails its instance's first period.

        Returns
        -------
        int
            ``max(-(t // ops_per_period))`` over the relative instances ``t``
            of the pattern's pieces, at least 0: the extra periods the
            pipeline needs to drain.

        Examples
        --------
        A relay that forwards in period ``p`` what it received in ``p - 1``:

        >>> from fractions import Fraction
        >>> from collsched.schedules.values import block
        >>> hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)
        >>> hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
        >>> s = PeriodicSchedule(throughput=1000, period=Fraction(1, 1000),
        ...                      slots=[Slot(Fraction(1, 1000), [hop1, hop2])])
        >>> s.lag()
        1
        >>> PeriodicSchedule(slots=[Slot(1, [hop1])]).lag()
        0
        """
        q = self.ops_per_period
        insts = [as_piece(x, 1).value.inst for s in self.slots for x in _slot_pieces(s)]
        return max((-(i // q) for i in insts), default=0)

    def periods_for(self, count: int) -> int:
        """Periods the lowering runs for ``count`` operations.

        Parameters
        ----------
        count : int
            Operations of the series.

        Returns
        -------
        int
            ``ceil(count / ops_per_period) + lag()`` without phases, the
            full periods ``max(0, ceil(count / ops_per_period) - lag())``
            between ``init`` and ``cleanup`` with them.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from collsched.schedules.values import block
        >>> hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)
        >>> hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
        >>> slot = Slot(Fraction(1, 1000), [hop1, hop2])
        >>> PeriodicSchedule(period=Fraction(1, 1000), slots=[slot]).periods_for(5)
        6
        >>> PeriodicSchedule(period=Fraction(1, 1000), ops_per_period=2, slots=[slot]).periods_for(5)
        4
        """
        if self.init or self.cleanup:
            return max(0, math.ceil(count / self.ops_per_period) - self.lag())
        return math.ceil(count / self.ops_per_period) + self.lag()

    def ranks(self, platform) -> tuple[str, ...]:
        """The program's ranks: the hosts, then the routers the slots name (they forward, in platform order).

        Steady-state schedules computed on the graph view route through
        routers, which forward and obey one-port like hosts, so they run
        operations of the lowered program.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from collsched import topologies
        >>> from collsched.schedules.values import block
        >>> p = topologies.star(2)
        >>> hops = (PeriodicTransfer("h0", "sw", (block(0, 0, 1),), 1.0), PeriodicTransfer("sw", "h1", (block(-1, 0, 1),), 1.0))
        >>> PeriodicSchedule(period=1, slots=(Slot(Fraction(1), hops),)).ranks(p)
        ('h0', 'h1', 'sw')
        """
        hosts = tuple(platform.hosts)
        if len(platform.nodes) == len(hosts):  # no router to look for
            return hosts
        slots = tuple(self.init) + tuple(self.slots) + tuple(self.cleanup)
        transfers = list(chain.from_iterable(map(attrgetter("transfers"), slots)))
        tasks = chain.from_iterable(map(attrgetter("tasks"), slots))
        named = set(map(attrgetter("src"), transfers)) | set(map(attrgetter("dst"), transfers)) | \
            set(map(attrgetter("node"), tasks))
        return hosts + tuple(n for n in platform.nodes if n in named and n not in hosts)

    def lower(self, platform, collective=None) -> Program:
        """The program of ``collective.count`` operations: init, periods, clean-up.

        Parameters
        ----------
        platform : Platform
            Its hosts are the ranks.
        collective : Collective
            Usually a :class:`~collsched.collectives.Series`; its ``count``
            sets how many operations run.

        Returns
        -------
        Program
            :meth:`periods_for` periods of the pattern between the init and
            clean-up slots (see the module docstring for how instances are
            numbered with and without phases); transfers and tasks of
            instances outside ``0 .. count - 1`` are left out.

        Raises
        ------
        ScheduleError
            If a slot names a node that is not a rank (:meth:`ranks`).

        Notes
        -----
        Built column-wise with numpy
        (:func:`~collsched.schedules.periodic_columns.periodic_program`):
        the pattern is read once, then the work is O(operations) array
        operations; the program is the one :func:`lower_with_builder` builds
        through :class:`ProgramBuilder` (the tests compare them).

        Examples
        --------
        The relay of the module docstring, for 5 operations: 6 periods, the
        first without a forward and the last without a new message.

        >>> from fractions import Fraction
        >>> import collsched as cs
        >>> from collsched.schedules.values import block
        >>> hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)
        >>> hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
        >>> s = PeriodicSchedule(throughput=1000, period=Fraction(1, 1000),
        ...                      slots=[Slot(Fraction(1, 1000), [hop1, hop2])])
        >>> p = cs.topologies.star(3)
        >>> c = cs.Series(cs.Scatter(source="h0", targets=["h2"], size=1e3), count=5)
        >>> prog = s.lower(p, c)
        >>> [op.kind for op in map(prog.op, prog.ops_of("h1"))][:4]
        ['recv', 'recv', 'send', 'recv']
        >>> cs.validate(p, c, prog)

        With phases (seed 000, §3.4): the initialisation brings the relay
        instance 0, then every period is full (4 periods for 5 operations),
        and the clean-up forwards the last instance.

        >>> init = [Slot(Fraction(1, 1000), [PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)])]
        >>> cleanup = [Slot(Fraction(1, 1000), [PeriodicTransfer("h1", "h2", [block(0, 0, 2)], 1e3)])]
        >>> s = PeriodicSchedule(throughput=1000, period=Fraction(1, 1000), init=init, cleanup=cleanup,
        ...                      slots=[Slot(Fraction(1, 1000), [hop1, hop2])])
        >>> s.periods_for(5), s.lower(p, c).n_messages
        (4, 10)
        >>> cs.validate(p, c, s)
        """
        collective = self.answering(collective)
        with _collector_paused():  # what this allocates is collected after, if ever in a cycle
            ranks = self.ranks(platform)
            fast = periodic_program(self, ranks, collective.count)
        return fast if fast is not None else lower_with_builder(self, platform, collective.count)


def lower_with_builder(schedule: PeriodicSchedule, platform, count: int) -> Program:
    """:meth:`PeriodicSchedule.lower` through :class:`ProgramBuilder`, one call per operation (the reference).

    :meth:`PeriodicSchedule.lower` builds the same program column-wise
    (:func:`~collsched.schedules.periodic_columns.periodic_program`); this
    path is the slow, obvious one the tests compare it with, and the one
    that reports a slot naming a node that is not a rank.

    Parameters
    ----------
    schedule : PeriodicSchedule
    platform : Platform
    count : int
        Operations of the series.

    Returns
    -------
    Program

    Raises
    ------
    ScheduleError
        If a slot names a node that is not a rank of the program.

    Examples
    --------
    >>> from fractions import Fraction
    >>> import collsched as cs
    >>> from collsched.schedules.values import block
    >>> s = PeriodicSchedule(period=Fraction(1, 1000),
    ...                      slots=[Slot(Fraction(1, 1000), [PeriodicTransfer("h0", "h1", [block(0, 0, 1)], 1e3)])])
    >>> p = cs.topologies.star(2)
    >>> lower_with_builder(s, p, 3) == s.lower(p, cs.Series(cs.Scatter(source="h0", targets=["h1"], size=1e3), 3))
    True
    """
    b = ProgramBuilder(schedule.ranks(platform), denominator=schedule.denominator, name=schedule.algorithm)
    chains = _Chains(schedule.denominator, schedule.ports)
    q = schedule.ops_per_period
    phased = bool(schedule.init or schedule.cleanup)
    first = schedule.lag() if phased else 0
    periods = schedule.periods_for(count)
    for slot in schedule.init:
        _emit(b, slot, 0, count, chains)
    for p in range(periods):
        for slot in schedule.slots:
            _emit(b, slot, (p + first) * q, count, chains)
    for slot in schedule.cleanup:
        _emit(b, slot, periods * q if phased else 0, count, chains)
    return b.build()


def _slot_pieces(slot: Slot):
    for t in slot.transfers:
        yield from t.pieces
    for task in slot.tasks:
        yield from task.inputs
        yield task.output


def _shift(items, offset: int, count: int, denominator: int):
    """The pieces moved to absolute instances, or None if any falls outside 0..count-1."""
    out = []
    for x in items:
        piece = as_piece(x, denominator)
        inst = piece.value.inst + offset
        if not 0 <= inst < count:
            return None
        out.append(Piece(piece.value._replace(inst=inst), piece.start, piece.end))
    return out


class _Chains:
    """Per-rank state of a lowering: the last operation on each resource, and who produced what the rank holds.

    A rank's sends follow one another (its send port), so do its receives
    (its receive port) and its computations (its CPU); an operation also
    waits for the operations that gave its rank the pieces it reads (a
    receive or a computation, found by piece overlap). Nothing else orders
    a rank's work: a computation that outlasts its slot delays only what
    reads its result, never the transfers of the next slot (seed 000,
    §4.3: each resource's activities of a period fit in the period).

    With ``ports="multi"`` a link direction ``(u, v)`` is the resource of
    its transfers instead of ``u``'s send port and ``v``'s receive port:
    each send waits for the previous send on ``(u, v)``; receives wait for
    nothing but their message.
    """

    def __init__(self, denominator: int, ports: str = "one"):
        self.denominator = denominator
        self.ports = ports
        self.last: dict[tuple[str, object], int] = {}
        self.made: dict[tuple[str, Value], list[tuple[int, int, int]]] = {}

    def transfer(self, b: ProgramBuilder, src: str, dst: str, pieces, size: float) -> None:
        """Append one transfer of the pattern, chained on the resources of the port model."""
        if self.ports == "multi":
            send, recv = b.send(src, dst, pieces, size, after=self.after(src, ("arc", dst), pieces), recv_after=())
            self.did(src, ("arc", dst), send)
        else:
            send, recv = b.send(src, dst, pieces, size, after=self.after(src, "send", pieces),
                                recv_after=self.after(dst, "recv"))
            self.did(src, "send", send)
        self.did(dst, "recv", recv, pieces)

    def producers(self, rank: str, pieces) -> set[int]:
        out: set[int] = set()
        for x in pieces:
            for a, b, op in self.made.get((rank, x.value), ()):
                if a < x.end and x.start < b:
                    out.add(op)
        return out

    def after(self, rank: str, resource, pieces=()) -> list[int]:
        deps = self.producers(rank, pieces)
        if (rank, resource) in self.last:
            deps.add(self.last[(rank, resource)])
        return sorted(deps)

    def did(self, rank: str, resource, op: int, made=()) -> None:
        self.last[(rank, resource)] = op
        for x in made:
            self.made.setdefault((rank, x.value), []).append((x.start, x.end, op))


def _emit(b: ProgramBuilder, slot: Slot, offset: int, count: int, chains: _Chains) -> None:
    arcs: dict[tuple[str, str], tuple[list, list]] = {}  # multi-port: one message per link direction and slot
    for t in slot.transfers:
        pieces = _shift(t.pieces, offset, count, b.denominator)
        if pieces is None:
            continue
        if chains.ports == "multi":
            held, sizes = arcs.setdefault((t.src, t.dst), ([], []))
            held.extend(pieces)
            sizes.append(t.size)
        else:
            chains.transfer(b, t.src, t.dst, pieces, t.size)
    for (src, dst), (pieces, sizes) in arcs.items():
        chains.transfer(b, src, dst, pieces, sum(sizes))
    for task in slot.tasks:
        pieces = _shift(task.inputs + (task.output,), offset, count, b.denominator)
        if pieces is None:
            continue
        op = b.compute(task.node, pieces[:-1], pieces[-1], task.cost,
                       after=chains.after(task.node, "cpu", pieces[:-1]))
        chains.did(task.node, "cpu", op, pieces[-1:])
