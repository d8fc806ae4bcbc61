"""Programs: the lowered form every executor takes (like LogGOPSim's GOAL).

A :class:`Program` gives, for every rank (a node of the platform, usually a
host), an ordered list of operations:

* ``send`` of message ``msg`` to rank ``peer``, ``size`` bytes, carrying
  symbolic pieces (:mod:`collsched.schedules.values`);
* ``recv`` of message ``msg`` from rank ``peer`` (it receives what the
  matching send carries);
* ``compute`` of ``size`` flop; a reduction task lists its input pieces then
  its output piece, e.g. ``v[0..1], v[2..3] -> v[0..3]``.

Each operation may start once the operations it depends on (``after``: earlier
operations of the same rank) have completed; a ``recv`` also waits for its
message. Messages are matched by id, never by order, so a program means one
thing on every executor.

Programs are stored column-wise (numpy arrays) so that executors in the Rust
core read them without per-operation Python calls; :class:`ProgramBuilder`
is the convenient way to make one, :meth:`Program.op` the convenient way to
read one.

Examples
--------
>>> from collsched.schedules.values import partial
>>> b = ProgramBuilder(["h0", "h1"])
>>> send, recv = b.send("h1", "h0", [partial(0, 1, 1)], size=8)
>>> task = b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), cost=100)
>>> prog = b.build()
>>> prog.n_ops, prog.n_messages
(3, 1)
>>> prog.op(task)
Op(2: h0 compute 100 [v[0..0]@0[0:1], v[1..1]@0[0:1] -> v[0..1]@0[0:1]] after (1,))
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import itertools
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

import numpy as np

from ..errors import ScheduleError
from .values import REDUCED, Piece, Value, as_piece

__all__ = ["Program", "ProgramBuilder", "Op", "SEND", "RECV", "COMPUTE", "OP_KINDS", "PREVIOUS", "program_of_columns"]

SEND, RECV, COMPUTE = 0, 1, 2
OP_KINDS = ("send", "recv", "compute")


class _Previous:
    def __repr__(self):
        return "PREVIOUS"


PREVIOUS = _Previous()
"""Default ``after``: depend on the previous operation of the same rank (program order)."""


class Op(NamedTuple):
    """One operation, as read back from a :class:`Program`.

    Attributes
    ----------
    index : int
        Operation id (its position in the program).
    rank : str
        The node that runs it.
    kind : {"send", "recv", "compute"}
    peer : str or None
        The other end of a send or recv; None for a compute.
    msg : int
        Message id of a send or recv; -1 for a compute.
    size : float
        Bytes (send, recv) or flop (compute).
    pieces : tuple of Piece
        What a send carries; a compute's inputs then its output; empty for a recv.
    after : tuple of int
        Ids of the operations of the same rank it waits for.

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> b = ProgramBuilder(["a", "b"])
    >>> _ = b.send("a", "b", [block(0, 0, 1)], size=1e3)
    >>> op = b.build().op(1)
    >>> op
    Op(1: b recv msg 0 from a 1000B after ())
    >>> op.kind, op.peer, op.msg, op.size
    ('recv', 'a', 0, 1000.0)
    """

    index: int
    rank: str
    kind: str
    peer: str | None
    msg: int
    size: float
    pieces: tuple[Piece, ...]
    after: tuple[int, ...]

    def __repr__(self) -> str:
        if self.kind == "compute":
            body = ", ".join(map(repr, self.pieces[:-1]))
            what = f"compute {self.size:g} [{body} -> {self.pieces[-1]!r}]" if self.pieces else f"compute {self.size:g}"
        else:
            arrow = "to" if self.kind == "send" else "from"
            what = f"{self.kind} msg {self.msg} {arrow} {self.peer} {self.size:g}B"
            if self.pieces:
                what += f" [{', '.join(map(repr, self.pieces))}]"
        return f"Op({self.index}: {self.rank} {what} after {self.after})"


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off (as it was after), for lowerings that read many objects.

    Reading a periodic pattern of a hundred thousand transfers, or checking and copying the steps of a long series,
    allocates many tuples and lists, none in a cycle, and the collections they trigger walk every object alive
    (919,235 after planning ``bench_lowering.py``'s steady-state all-reduce of 8 hosts: its lowering took 2.97 s
    with the collector on, 1.45 s with it off, one after the other under load 15).
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Program:
    """A lowered program, column-wise; build it with :class:`ProgramBuilder`.

    Attributes
    ----------
    ranks : tuple of str
        Node ids, one per rank.
    denominator : int
        Pieces are measured in ``1/denominator`` of a value.
    op_rank, op_kind, op_peer, op_msg, op_size : numpy arrays, one entry per op
        Rank index, kind (SEND, RECV, COMPUTE), peer rank (-1 for compute),
        message id (-1 for compute; a label, any ``0 <= id < 2**63``, see
        :meth:`renumbered`), bytes or flop.
    dep_ptr, dep_idx : numpy arrays
        CSR lists of dependencies: op ``i`` waits for ``dep_idx[dep_ptr[i]:dep_ptr[i+1]]``.
    piece_ptr, pieces : numpy arrays
        CSR lists of pieces, rows ``(kind, inst, a, b, start, end)``; a recv
        has none. For a commutative reduction (kind ``REDUCED``), ``a`` is the
        index of its operand set in :attr:`operand_sets`.
    name : str
        What made it (an algorithm name), for display.
    operand_sets : tuple of int
        The operand sets (bitmasks, Python ints of any size) of the
        reductions the program names, each once; :meth:`op` and
        :meth:`value_of` give values with their real masks.

    Notes
    -----
    Iterating over a program yields its operations as :class:`Op`, in id order.
    ``n_ops``, ``n_messages``, ``n_data_messages`` and ``bytes_sent``
    summarise it. Two programs are equal when all their columns are.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Scatter(source="h0", targets=p.hosts, size=1e3)
    >>> prog = cs.plan(p, c, algorithm="binomial").lower(p, c)
    >>> prog
    <Program 'binomial': 4 ranks, 6 ops, 3 messages>
    >>> prog.bytes_sent, prog.ranks
    (4000.0, ('h0', 'h1', 'h2', 'h3'))
    >>> [op.kind for op in prog]
    ['send', 'recv', 'send', 'recv', 'send', 'recv']
    """

    ranks: tuple[str, ...]
    denominator: int
    op_rank: np.ndarray
    op_kind: np.ndarray
    op_peer: np.ndarray
    op_msg: np.ndarray
    op_size: np.ndarray
    dep_ptr: np.ndarray
    dep_idx: np.ndarray
    piece_ptr: np.ndarray
    pieces: np.ndarray
    name: str = ""
    operand_sets: tuple[int, ...] = ()

    @property
    def n_ops(self) -> int:
        return int(self.op_rank.shape[0])

    @property
    def n_messages(self) -> int:
        return int(np.count_nonzero(self.op_kind == SEND))

    def ops_of(self, rank: str | int) -> np.ndarray:
        """Indices of the operations of ``rank``, in program order.

        Parameters
        ----------
        rank : str or int
            A rank's node id, or its index in :attr:`ranks`.

        Returns
        -------
        numpy.ndarray
            Operation ids (int64), increasing.

        Raises
        ------
        ScheduleError
            If ``rank`` is a name that is not a rank of the program.

        Examples
        --------
        >>> from collsched.schedules.values import block
        >>> b = ProgramBuilder(["a", "b", "c"])
        >>> _ = b.send("a", "b", [block(0, 0, 1)], size=1e3)
        >>> _ = b.send("a", "c", [block(0, 0, 2)], size=1e3)
        >>> prog = b.build()
        >>> prog.ops_of("a").tolist(), prog.ops_of(2).tolist()
        ([0, 2], [3])
        """
        if isinstance(rank, (int, np.integer)):
            r = rank
        elif rank in self.ranks:
            r = self.ranks.index(rank)
        else:
            raise ScheduleError(f"{rank!r} is not a rank of program {self.name!r}")
        return np.flatnonzero(self.op_rank == r)

    def op(self, i: int) -> Op:
        """Operation ``i`` as a readable :class:`Op`.

        Parameters
        ----------
        i : int
            An operation id, ``0 .. n_ops - 1``.

        Returns
        -------
        Op
            The operation with names instead of indices.

        Raises
        ------
        IndexError
            If ``i`` is out of range.

        Examples
        --------
        >>> from collsched.schedules.values import block
        >>> b = ProgramBuilder(["a", "b"])
        >>> _ = b.send("a", "b", [block(0, 0, 1)], size=1e3)
        >>> _ = b.compute("b", [], None, cost=5e6)
        >>> b.build().op(2)
        Op(2: b compute 5e+06 after (1,))
        """
        kind = int(self.op_kind[i])
        peer = int(self.op_peer[i])
        rows = self.pieces[self.piece_ptr[i]:self.piece_ptr[i + 1]]
        pieces = tuple(Piece(self.value_of(r), int(r[4]), int(r[5])) for r in rows)
        return Op(int(i), self.ranks[int(self.op_rank[i])], OP_KINDS[kind], None if peer < 0 else self.ranks[peer],
                  int(self.op_msg[i]), float(self.op_size[i]), pieces,
                  tuple(int(d) for d in self.dep_idx[self.dep_ptr[i]:self.dep_ptr[i + 1]]))

    def value_of(self, row) -> Value:
        """The value a stored piece row names (a reduction's operand set looked up in :attr:`operand_sets`).

        Parameters
        ----------
        row : sequence of int
            A row of :attr:`pieces` (its first four entries are read).

        Returns
        -------
        Value

        Raises
        ------
        ScheduleError
            If a reduction's row names an operand set the table does not have.

        Examples
        --------
        >>> from collsched.schedules.values import reduced
        >>> b = ProgramBuilder(["a", "b"])
        >>> _ = b.send("a", "b", [reduced(0, [0, 9])], size=8)
        >>> prog = b.build()
        >>> prog.pieces[0].tolist(), prog.operand_sets
        ([2, 0, 0, 0, 0, 1], (513,))
        >>> prog.value_of(prog.pieces[0])
        Σ{0,9}@0
        """
        kind, inst, a, b = (int(x) for x in row[:4])
        if kind != REDUCED:
            return Value(kind, inst, a, b)
        if not 0 <= a < len(self.operand_sets):
            raise ScheduleError(f"program {self.name!r} names operand set {a}, but has "
                                f"{len(self.operand_sets)}", fix="build programs with ProgramBuilder")
        return Value(kind, inst, self.operand_sets[a], b)

    def __iter__(self):
        return (self.op(i) for i in range(self.n_ops))

    def message_ops(self) -> tuple[np.ndarray, np.ndarray]:
        """``(send_op, recv_op)`` arrays indexed by message id (-1 where missing).

        Returns
        -------
        send_op, recv_op : numpy.ndarray
            ``send_op[m]`` and ``recv_op[m]`` are the ids of the send and the
            receive of message ``m``.

        Raises
        ------
        ScheduleError
            If a message id is negative, or too large to index an array by
            (``2 * n_ops`` or more: ids are labels and may be sparse), before
            anything is allocated; :meth:`renumbered` makes them ``0 .. M-1``.

        Examples
        --------
        >>> from collsched.schedules.values import block
        >>> b = ProgramBuilder(["a", "b", "c"])
        >>> _ = b.send("a", "b", [block(0, 0, 1)], size=1e3)
        >>> _ = b.send("c", "a", [block(0, 2, 0)], size=1e3)
        >>> send, recv = b.build().message_ops()
        >>> send.tolist(), recv.tolist()
        ([0, 2], [1, 3])
        """
        talks = (self.op_kind == SEND) | (self.op_kind == RECV)
        ids = self.op_msg[talks]
        if ids.shape[0] and (ids.min() < 0 or ids.max() >= 2 * self.n_ops):
            i = int(np.flatnonzero(talks & ((self.op_msg < 0) | (self.op_msg >= 2 * self.n_ops)))[0])
            raise ScheduleError(f"program {self.name!r}: op {i} has message id {int(self.op_msg[i])}, which cannot "
                                f"index an array (ids here must be in 0..{2 * self.n_ops - 1})",
                                fix="renumber the messages with Program.renumbered()")
        n = int(ids.max()) + 1 if ids.shape[0] else 0
        send = np.full(n, -1, dtype=np.int64)
        recv = np.full(n, -1, dtype=np.int64)
        for kind, target in ((SEND, send), (RECV, recv)):
            idx = np.flatnonzero(self.op_kind == kind)
            target[self.op_msg[idx]] = idx
        return send, recv

    def renumbered(self) -> Program:
        """The program with message ids ``0 .. M-1``, in the order of the ids it has.

        Message ids are labels: a program may use any ``0 <= id < 2**63``
        (sparse, or from another tool); code that indexes arrays by id wants
        them dense.

        Returns
        -------
        Program
            ``self`` if the ids of its sends and receives already are
            ``0 .. M-1`` (or some are negative, which the checks report),
            else a copy with new ids; computations keep theirs.

        Examples
        --------
        >>> b = ProgramBuilder(["a", "b"])
        >>> _ = b.send("a", "b", (), size=8)
        >>> _ = b.send("b", "a", (), size=8)
        >>> prog = b.build()
        >>> prog.renumbered() is prog
        True
        >>> import dataclasses, numpy as np
        >>> sparse = dataclasses.replace(prog, op_msg=np.array([2**40, 2**40, 7, 7]))
        >>> sparse.renumbered().op_msg.tolist()
        [1, 1, 0, 0]
        """
        talks = (self.op_kind == SEND) | (self.op_kind == RECV)
        ids, inverse = np.unique(self.op_msg[talks], return_inverse=True)
        if ids.shape[0] == 0 or ids[0] < 0 or ids[-1] == ids.shape[0] - 1:
            return self
        msg = np.array(self.op_msg, dtype=np.int64)
        msg[talks] = inverse.reshape(-1)
        return dataclasses.replace(self, op_msg=_frozen(msg))

    @property
    def n_data_messages(self) -> int:
        """Messages that carry pieces (not barrier or ready signals)."""
        sends = self.op_kind == SEND
        return int(np.count_nonzero(sends & (np.diff(self.piece_ptr) > 0)))

    @property
    def bytes_sent(self) -> float:
        """Total bytes over all messages."""
        return float(self.op_size[self.op_kind == SEND].sum())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Program):
            return NotImplemented
        arrays = ("op_rank", "op_kind", "op_peer", "op_msg", "op_size", "dep_ptr", "dep_idx", "piece_ptr", "pieces")
        return (self.ranks == other.ranks and self.denominator == other.denominator and self.name == other.name
                and self.operand_sets == other.operand_sets and all(np.array_equal(getattr(self, a), getattr(other, a)) for a in arrays))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Program {self.name!r}: {len(self.ranks)} ranks, {self.n_ops} ops, {self.n_messages} messages>"


def piece_row(p: Piece, sets: dict[int, int]) -> tuple[int, ...]:
    """The stored row of a piece: a reduction's mask replaced by its index in ``sets`` (added if new).

    Parameters
    ----------
    p : Piece
    sets : dict
        ``{mask: index}``, the program's table of operand sets being built
        (in insertion order, so ``tuple(sets)`` is :attr:`Program.operand_sets`).

    Returns
    -------
    tuple of int
        ``(kind, inst, a, b, start, end)``.

    Examples
    --------
    >>> from collsched.schedules.values import reduced
    >>> sets = {}
    >>> piece_row(Piece(reduced(0, [1]), 0, 1), sets), piece_row(Piece(reduced(3, [1]), 0, 1), sets), sets
    ((2, 0, 0, 0, 0, 1), (2, 3, 0, 0, 0, 1), {2: 0})
    """
    v = p.value
    if v.kind == REDUCED:
        v = Value(REDUCED, v.inst, sets.setdefault(v.a, len(sets)), v.b)
    return (*v, p.start, p.end)


class ProgramBuilder:
    """Appends operations rank by rank, then :meth:`build` seals a :class:`Program`.

    Parameters
    ----------
    ranks : sequence of str
        Node ids of the ranks, in rank order.
    denominator : int
        Unit of pieces: a piece ``[s, e)`` is ``(e - s) / denominator`` of its value.
    name : str
        What makes the program (an algorithm name).

    Notes
    -----
    ``after`` arguments: :data:`PREVIOUS` (the default) makes the operation
    wait for the previous operation of its rank (blocking program order); a
    sequence of operation ids (earlier ops of the same rank) waits for those
    only; ``()`` waits for nothing. In every case a send or a computation also
    waits for the operations of its rank that brought the pieces it uses
    (the builder remembers which receive or computation produced each piece),
    so a lowering cannot forget a data dependency.

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> b = ProgramBuilder(["a", "b", "c"])
    >>> _ = b.send("a", "b", [block(0, 0, 2)], size=1e3)
    >>> _ = b.send("b", "c", [block(0, 0, 2)], size=1e3)
    >>> b.build().ops_of("b").tolist()
    [1, 2]
    """

    def __init__(self, ranks: Sequence[str], *, denominator: int = 1, name: str = ""):
        self.ranks = tuple(ranks)
        if len(set(self.ranks)) != len(self.ranks):
            raise ScheduleError("program ranks are not distinct")
        if isinstance(denominator, bool) or not isinstance(denominator, (int, np.integer)) or denominator < 1:
            raise ScheduleError(f"program denominator is {denominator!r}", fix="give an integer >= 1")
        self.denominator = int(denominator)
        self.name = name
        self._index = {r: i for i, r in enumerate(self.ranks)}
        self._rank: list[int] = []
        self._kind: list[int] = []
        self._peer: list[int] = []
        self._msg: list[int] = []
        self._size: list[float] = []
        self._deps: list[tuple[int, ...]] = []
        self._pieces: list[list[tuple[int, ...]]] = []
        self._last: list[int] = [-1] * len(self.ranks)
        self._producer: dict[tuple, int] = {}
        self._messages = 0
        self._sets: dict[int, int] = {}

    @property
    def n_ops(self) -> int:
        """Operations appended so far (the id the next one gets).

        Examples
        --------
        >>> b = ProgramBuilder(["a", "b"])
        >>> _ = b.send("a", "b", (), size=0.0)
        >>> b.n_ops
        2
        """
        return len(self._rank)

    def rank_index(self, rank: str | int) -> int:
        """Index of ``rank`` (a node id, or an index, which is checked).

        Parameters
        ----------
        rank : str or int
            A node id given to the builder, or an index into :attr:`ranks`.

        Returns
        -------
        int
            The rank's index.

        Raises
        ------
        ScheduleError
            If ``rank`` is not a rank of this program, or the index is out of range.

        Examples
        --------
        >>> b = ProgramBuilder(["a", "b", "c"])
        >>> b.rank_index("c"), b.rank_index(1)
        (2, 1)
        >>> b.rank_index("z")
        Traceback (most recent call last):
        ...
        collsched.errors.ScheduleError: 'z' is not a rank of this program
        """
        if isinstance(rank, (int, np.integer)) and not isinstance(rank, bool):
            if not 0 <= rank < len(self.ranks):
                raise ScheduleError(f"rank index {rank} out of range 0..{len(self.ranks) - 1}")
            return int(rank)
        try:
            return self._index[rank]
        except KeyError:
            raise ScheduleError(f"{rank!r} is not a rank of this program") from None

    def last(self, rank: str | int) -> int:
        """Id of the last operation appended on ``rank`` (-1 if none).

        Parameters
        ----------
        rank : str or int
            A rank's node id or index.

        Returns
        -------
        int
            An operation id, or -1.

        Raises
        ------
        ScheduleError
            If ``rank`` is not a rank of this program.

        Examples
        --------
        >>> b = ProgramBuilder(["a", "b"])
        >>> b.last("b")
        -1
        >>> _ = b.send("a", "b", (), size=0.0)
        >>> b.last("a"), b.last("b")
        (0, 1)
        """
        return self._last[self.rank_index(rank)]

    def _append(self, rank: int, kind: int, peer: int, msg: int, size: float, pieces, after) -> int:
        # what piece_row(as_piece(x)) gives, inlined: this runs once per operation
        i = len(self._rank)
        rows = []
        sets = self._sets
        for x in pieces:
            if isinstance(x, Piece):
                v, start, end = x
            elif isinstance(x, Value):
                v, start, end = x, 0, self.denominator
            else:
                as_piece(x, self.denominator)  # raises its TypeError
            if v[0] == REDUCED:
                v = (REDUCED, v[1], sets.setdefault(v[2], len(sets)), v[3])
            rows.append((v[0], v[1], v[2], v[3], start, end))
        if after is PREVIOUS:
            last = self._last[rank]
            deps = [last] if last >= 0 else []
        else:
            deps = [int(d) for d in after]
        if kind != RECV:
            producer = self._producer
            for row in (rows[:-1] if kind == COMPUTE else rows):
                p = producer.get((rank, row))
                if p is not None:
                    deps.append(p)
            if kind == COMPUTE and rows:
                producer[(rank, rows[-1])] = i
        self._rank.append(rank)
        self._kind.append(kind)
        self._peer.append(peer)
        self._msg.append(msg)
        self._size.append(float(size))
        self._deps.append(tuple(sorted(set(deps))) if len(deps) > 1 else tuple(deps))
        self._pieces.append(rows)
        self._last[rank] = i
        return i

    def send(self, src: str | int, dst: str | int, pieces: Iterable[Value | Piece], size: float, *,
             after=PREVIOUS, recv_after=PREVIOUS) -> tuple[int, int]:
        """Append a message: a send on ``src`` and its recv on ``dst``; returns both op ids.

        Parameters
        ----------
        src, dst : str or int
            Sending and receiving ranks.
        pieces : iterable of Value or Piece
            What the message carries; a whole value is the piece
            ``[0, denominator)``. Empty for a signal (barrier, ready).
        size : float
            Bytes.
        after : PREVIOUS or sequence of int
            What the send waits for (see the class Notes), besides the
            operations that brought its pieces to ``src``.
        recv_after : PREVIOUS or sequence of int
            What the receive waits for, besides its message.

        Returns
        -------
        send, recv : int
            The ids of the two operations; the message id is the number of
            messages appended before.

        Raises
        ------
        ScheduleError
            If ``src`` or ``dst`` is not a rank.

        Examples
        --------
        A relay: ``b`` forwards what it received, and its send waits for that
        receive even when told to wait for nothing.

        >>> from collsched.schedules.values import block
        >>> b = ProgramBuilder(["a", "b", "c"])
        >>> b.send("a", "b", [block(0, 0, 2)], size=1e3)
        (0, 1)
        >>> b.send("b", "c", [block(0, 0, 2)], size=1e3, after=())
        (2, 3)
        >>> b.build().op(2)
        Op(2: b send msg 1 to c 1000B [m[0→2]@0[0:1]] after (1,))
        """
        index = self._index
        s = index[src] if type(src) is str and src in index else self.rank_index(src)
        d = index[dst] if type(dst) is str and dst in index else self.rank_index(dst)
        msg = self._messages
        self._messages += 1
        send = self._append(s, SEND, d, msg, size, pieces, after)
        recv = self._append(d, RECV, s, msg, size, (), recv_after)
        producer = self._producer
        for row in self._pieces[send]:
            producer[(d, row)] = recv
        return send, recv

    def compute(self, rank: str | int, inputs: Iterable[Value | Piece], output: Value | Piece | None,
                cost: float, *, after=PREVIOUS) -> int:
        """Append a computation of ``cost`` flop combining ``inputs`` into ``output``.

        Parameters
        ----------
        rank : str or int
            The rank that computes.
        inputs : iterable of Value or Piece
            Adjacent partial results, in operand order.
        output : Value, Piece or None
            Their combination; None, with no inputs, for a computation that
            only takes time.
        cost : float
            Flop.
        after : PREVIOUS or sequence of int
            What it waits for (see the class Notes), besides the operations
            that brought its inputs.

        Returns
        -------
        int
            The operation's id.

        Raises
        ------
        ScheduleError
            If ``rank`` is not a rank.

        Notes
        -----
        A program stores a computation's inputs and output as one list, the
        output last; so ``output=None`` must come with no inputs.

        Examples
        --------
        >>> from collsched.schedules.values import partial
        >>> b = ProgramBuilder(["h0", "h1"])
        >>> _ = b.send("h1", "h0", [partial(0, 1, 1)], size=8)
        >>> b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), cost=100, after=())
        2
        >>> b.build().op(2).after
        (1,)
        """
        inputs = list(inputs)
        if output is None and inputs:
            raise ScheduleError(f"a computation on {rank!r} with inputs needs an output", fix="name the combined value")
        pieces = inputs + ([] if output is None else [output])
        return self._append(self.rank_index(rank), COMPUTE, -1, -1, cost, pieces, after)

    def build(self) -> Program:
        """Seal the program (the builder may go on appending for another build).

        Returns
        -------
        Program
            The operations appended so far, in read-only arrays.

        Examples
        --------
        >>> b = ProgramBuilder(["a", "b"], name="ping")
        >>> _ = b.send("a", "b", (), size=0.0)
        >>> first = b.build()
        >>> _ = b.send("b", "a", (), size=0.0)
        >>> first.n_ops, b.build().n_ops, first.name
        (2, 4, 'ping')
        >>> first.op_kind.flags.writeable
        False
        """
        return program_of_columns(self.ranks, self.denominator, self.name, self._rank, self._kind, self._peer,
                                  self._msg, self._size, self._deps, self._pieces, self._sets)


def program_of_columns(ranks, denominator: int, name, rank, kind, peer, msg, size, deps, pieces, sets) -> Program:
    """A read-only :class:`Program` from per-operation lists (what :meth:`ProgramBuilder.build` assembles).

    Parameters
    ----------
    ranks : sequence of str
    denominator : int
    name : str
    rank, kind, peer, msg : list of int
        Per operation.
    size : list of float
        Per operation.
    deps : list of sequence of int
        Per operation, the operations it waits for.
    pieces : list of list of tuple
        Per operation, its piece rows (six ints, :func:`piece_row`).
    sets : iterable of int
        The operand masks, in the order of their indices in the rows.

    Returns
    -------
    Program

    Examples
    --------
    >>> prog = program_of_columns(["a", "b"], 1, "p", [0, 1], [SEND, RECV], [1, 0], [0, 0], [8.0, 8.0],
    ...                           [(), ()], [[], []], ())
    >>> prog.n_ops, prog.n_messages, prog.op_kind.flags.writeable
    (2, 1, False)
    """
    n = len(rank)
    dep_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, deps), np.int64, n), out=dep_ptr[1:])
    piece_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, pieces), np.int64, n), out=piece_ptr[1:])
    rows = [row for ps in pieces for row in ps]
    return Program(
        ranks=tuple(ranks), denominator=denominator,
        op_rank=_frozen(np.array(rank, dtype=np.int64)),
        op_kind=_frozen(np.array(kind, dtype=np.int64)),
        op_peer=_frozen(np.array(peer, dtype=np.int64)),
        op_msg=_frozen(np.array(msg, dtype=np.int64)),
        op_size=_frozen(np.array(size, dtype=np.float64)),
        dep_ptr=_frozen(dep_ptr),
        dep_idx=_frozen(np.fromiter(itertools.chain.from_iterable(deps), np.int64, int(dep_ptr[-1]))),
        piece_ptr=_frozen(piece_ptr),
        pieces=_frozen(np.array(rows, dtype=np.int64).reshape(-1, 6)),
        name=name, operand_sets=tuple(sets))
