"""Where a program's values live in the user's arrays: the walk's payload for :mod:`collsched.mpi`.

Every symbolic value a rank's operations name is given a **slot**: the
part of the user's send buffer it starts in, the part of the receive buffer
it must end in, or a scratch array (a value the rank only relays, or a
partial result it combines further). A value's ``denominator`` segments
map to contiguous ranges of its slot: with ``E`` units per value, segment
``s`` covers units ``[s·E // D, (s+1)·E // D)``. Units are bytes for the
copying collectives (any dtype is moved bitwise) and rows along the first
axis of the user's array for reductions (so that an operator sees whole
elements, e.g. whole 2×2 matrices of an ``(m, 2, 2)`` array).

Which slot holds a value follows MPI's semantics of each call (a value
``m[a→b]``, an operand ``v[k..k]`` or ``Σ{k}``, the result ``v[0..n-1]`` or
``Σ{0..n-1}``):

============  ===============================  ===================================
kind          starts in (send buffer)          ends in (receive buffer)
============  ===============================  ===================================
broadcast     root: the buffer                 every rank: the buffer
scatter       root: part ``b``                 rank ``b``: the buffer
gather        rank ``a``: the buffer           root: part ``a``
allgather     rank ``a``: the buffer           every rank: part ``a``
alltoall      rank ``a``: part ``b``           rank ``b``: part ``a``
reduce        operand ``k``'s rank: buffer     root: the buffer
allreduce     operand ``k``'s rank: buffer     every rank: the buffer
============  ===============================  ===================================

:class:`Prepared` is computed once per plan and rank; :class:`Bound` binds it
to one call's arrays (views, no copies: a message carrying several pieces
is sent from, and received into, its pieces' places through an MPI derived
datatype, ``MPI_Type_create_hindexed`` over their addresses, kept while
the call's arrays stay where they are).

Examples
--------
>>> import collsched as cs
>>> from collsched.mpi.plans import Plan
>>> p = cs.topologies.star(3)
>>> c = cs.Broadcast(source="h0", targets=p.hosts, size=12)
>>> plan = Plan.of(p, c, cs.plan(p, c, algorithm="linear"), low=1, high=12)
>>> prep = Prepared(plan, 1)
>>> prep.slots, list(prep.ranges.values())
([('recv', None)], [[(0, 0, 1)]])
"""

from __future__ import annotations

import numpy as np

from ..schedules.program import COMPUTE, RECV, SEND
from ..schedules.values import BLOCK, PARTIAL, Value, operands
from ..runtime.walk import RankOps
from .plans import Plan

__all__ = ["Prepared", "Bound", "combine", "OperatorFailed"]


class OperatorFailed(Exception):
    """The user's operator raised (the original exception is the ``__cause__``).

    Examples
    --------
    >>> try:
    ...     combine([np.ones(1), np.ones(1)], np.empty(1), lambda a, b: 1 / 0)
    ... except OperatorFailed as exc:
    ...     type(exc.__cause__).__name__
    'ZeroDivisionError'
    """


def _homes(plan: Plan, v: Value, rank: int, index_rank: list[int]):
    """``(start slot, end slot)`` of value ``v`` on ``rank``: ``("send"|"recv", part or None)`` or None."""
    kind = plan.kind
    if v.kind == BLOCK:
        src = index_rank[v.a]
        dst = index_rank[v.b] if v.b >= 0 else -1
        start = end = None
        if rank == src:
            start = ("send", dst if kind in ("scatter", "alltoall") else None)
        if kind in ("broadcast", "allgather") or rank == dst:
            end = ("recv", src if kind in ("gather", "allgather", "alltoall") else None)
        return start, end
    n = plan.n
    ks = [v.a] if v.kind == PARTIAL and v.a == v.b else (list(operands(v)) if v.kind != PARTIAL else [])
    start = ("send", None) if len(ks) == 1 and plan.operands[ks[0]] == rank else None
    whole = (v.a == 0 and v.b == n - 1) if v.kind == PARTIAL else v.a == (1 << n) - 1
    end = ("recv", None) if whole and (kind == "allreduce" or rank == plan.root) else None
    return start, end


class Prepared(RankOps):
    """One plan's program on one communicator rank, in slots and segment ranges (computed once).

    Parameters
    ----------
    plan : Plan
    rank : int
        Communicator rank.
    tag_ub : int
        The communicator's largest tag.

    Attributes
    ----------
    slots : list of tuple
        ``("send", part)``, ``("recv", part)`` (part None: the whole buffer) or ``("scratch", first, last)``
        (segments ``first .. last - 1`` of a value held in scratch memory).
    ranges : dict
        ``op -> [(slot, a, b), ...]``: what a send carries, what a receive
        takes; for a computation its inputs then its output (all over the
        output's segments).
    denominator : int
    own_block : (int or None, int or None) or None
        The parts of the send and receive buffers between which the rank
        copies its own block (MPI's semantics of scatter, gather,
        all-gather and all-to-all; no message carries it).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.mpi.plans import Plan
    >>> p = cs.topologies.star(4)
    >>> c = cs.Reduce(participants=p.hosts, target="h0", size=64)
    >>> prep = Prepared(Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=64), 0)
    >>> prep.slots  # v[1..1], v[2..3] received; v[0..0] is sendbuf; v[0..1] combined; v[0..3] into recvbuf
    [('scratch', 0, 1), ('scratch', 0, 1), ('send', None), ('scratch', 0, 1), ('recv', None)]
    """

    def __init__(self, plan: Plan, rank: int, *, tag_ub: int = 32767):
        program = plan.program.renumbered()
        host = plan.ranks[rank]
        peers = [plan.ranks.index(h) for h in program.ranks]
        super().__init__(program, program.ranks.index(host) if host in program.ranks else None, peers=peers,
                         tag_ub=tag_ub)
        self.denominator = program.denominator
        own = {"scatter": ("send", rank, "recv", None), "gather": ("send", None, "recv", rank),
               "allgather": ("send", None, "recv", rank), "alltoall": ("send", rank, "recv", rank)}.get(plan.kind)
        at_root = plan.kind not in ("scatter", "gather") or rank == plan.root
        self.own_block = own[1::2] if own is not None and at_root else None
        self.copying = plan.kind not in ("reduce", "allreduce")
        index_rank = [plan.ranks.index(h) if h in plan.ranks else -1 for h in plan.hosts]
        send_op, _ = program.message_ops()
        reads: dict[Value, int] = {}
        writes: dict[Value, int] = {}
        self.slots: list[tuple] = []
        spans: dict[int, list[int]] = {}

        def slot(home) -> int:
            if home not in self.slots:
                self.slots.append(home)
            return self.slots.index(home)

        def place(v: Value, a: int, b: int, write: bool) -> int:
            table = writes if write else reads
            if v not in table:
                start, end = _homes(plan, v, rank, index_rank)
                if start is not None and not write:
                    table[v] = slot(start)
                elif end is not None and start is None:
                    table[v] = slot(end)
                else:  # relayed or combined further (or a copy of what the rank already holds: dropped)
                    key = ("scratch", len(self.slots))
                    table[v] = slot(key)
                    if start is None:
                        reads[v] = writes[v] = table[v]
            s = table[v]
            if self.slots[s][0] == "scratch":
                span = spans.setdefault(s, [a, b])
                span[0], span[1] = min(span[0], a), max(span[1], b)
            return s

        self.ranges: dict[int, list[tuple[int, int, int]]] = {}
        for i in self.ops:
            k = self.kind[i]
            if k == SEND:
                rows = _rows(program, i)
                self.ranges[i] = [(place(v, a, b, False), a, b) for v, a, b in rows]
            elif k == RECV:
                rows = _rows(program, int(send_op[int(program.op_msg[i])]))
                self.ranges[i] = [(place(v, a, b, True), a, b) for v, a, b in rows]
            elif k == COMPUTE:
                rows = _rows(program, i)
                if rows:
                    *inputs, (out, a, b) = rows
                    self.ranges[i] = ([(place(v, a, b, False), a, b) for v, _, _ in inputs]
                                      + [(place(out, a, b, True), a, b)])
        for s, (a, b) in spans.items():
            self.slots[s] = ("scratch", a, b)
        self._scratch: tuple = ((), None)
        self._types: dict = {}

    def datatype(self, i: int, views) -> object:
        """The committed MPI datatype of op ``i``'s pieces at ``views``' addresses (one per op, kept while they stay).

        Parameters
        ----------
        i : int
            A send or receive of several pieces.
        views : sequence of numpy.ndarray
            Its pieces' bytes, in message order.

        Returns
        -------
        mpi4py.MPI.Datatype
            ``MPI_Type_create_hindexed`` of ``MPI_BYTE`` over absolute
            addresses (post it as ``[MPI.BOTTOM, 1, type]``); made again only
            when an address or a length changes (the earlier one is freed).

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.mpi.plans import Plan
        >>> p = cs.topologies.star(3)
        >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=12)
        >>> prep = Prepared(Plan.of(p, c, cs.plan(p, c, algorithm="linear"), low=1, high=12), 0)
        >>> a = np.arange(8, dtype=np.uint8)
        >>> t = prep.datatype(0, [a[:2], a[5:]])
        >>> t.size, prep.datatype(0, [a[:2], a[5:]]) is t
        (5, True)
        """
        from mpi4py import MPI

        key = tuple((v.ctypes.data, v.shape[0]) for v in views)
        held = self._types.get(i)
        if held is not None and held[0] == key:
            return held[1]
        if held is not None:
            held[1].Free()
        made = MPI.BYTE.Create_hindexed([n for _, n in key], [a for a, _ in key]).Commit()
        self._types[i] = (key, made)
        return made

    def scratch(self, units: int, like: np.ndarray) -> list:
        """Scratch arrays for ``units`` units per value (kept for the next call of the same shape).

        Parameters
        ----------
        units : int
            Units (bytes or rows) of one value.
        like : numpy.ndarray
            Gives the dtype and the shape of a row.

        Returns
        -------
        list
            Per slot, its scratch array (None for a slot in the user's buffers).

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.mpi.plans import Plan
        >>> p = cs.topologies.star(4)
        >>> c = cs.Reduce(participants=p.hosts, target="h0", size=64)
        >>> prep = Prepared(Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=64), 0)
        >>> [None if a is None else a.shape for a in prep.scratch(8, np.zeros(8))]
        [(8,), (8,), None, (8,), None]
        """
        key = (units, like.dtype.str, like.shape[1:])
        if self._scratch[0] != key:
            arrays = []
            for where in self.slots:
                if where[0] == "scratch":
                    n = where[2] * units // self.denominator - where[1] * units // self.denominator
                    arrays.append(np.empty((n,) + like.shape[1:], dtype=like.dtype))
                else:
                    arrays.append(None)
            self._scratch = (key, arrays)
        return self._scratch[1]


def _rows(program, i):
    rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
    return [(program.value_of(r), int(r[4]), int(r[5])) for r in rows]


def _part(buf: np.ndarray, part: int | None, units: int) -> np.ndarray:
    return buf if part is None else buf[part * units:(part + 1) * units]


def _bytes(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


def combine(inputs, out: np.ndarray, op) -> None:
    """``out = inputs[0] ⊕ inputs[1] ⊕ ...`` in that order, with an ``MPI.Op`` or a callable ``f(a, b)``.

    Parameters
    ----------
    inputs : sequence of numpy.ndarray
        Operands in operand order, each the shape of ``out``.
    out : numpy.ndarray
        Written in place (it may be one of ``inputs``' memory only if it is the last).
    op : mpi4py.MPI.Op or callable
        An MPI operator (``Reduce_local``: ``inout = in ⊕ inout``), or
        ``f(a, b) -> array`` (``a`` the earlier operand), which must not
        modify its arguments.

    Raises
    ------
    OperatorFailed
        ``f`` raised, or returned an array of another shape (the cause says which).

    Examples
    --------
    >>> out = np.empty(2, dtype=np.int64)
    >>> combine([np.array([1, 2]), np.array([10, 20]), np.array([100, 200])], out, lambda a, b: a * 10 + b)
    >>> out.tolist()  # (1·10 + 10)·10 + 100
    [300, 600]
    """
    if callable(op) and not hasattr(op, "Reduce_local"):
        try:
            acc = inputs[0]
            for x in inputs[1:]:
                acc = op(acc, x)
            acc = np.asarray(acc)
            if acc.shape != out.shape:
                raise ValueError(f"it returned shape {acc.shape} for operands of shape {out.shape}")
        except Exception as exc:
            raise OperatorFailed(str(exc)) from exc
        out[...] = acc
        return
    if out is not inputs[-1]:
        out[...] = inputs[-1]
    for x in reversed(inputs[:-1]):
        op.Reduce_local(x, out)


class Bound:
    """A :class:`Prepared` bound to one call's arrays: the payload the walk moves.

    Parameters
    ----------
    prep : Prepared
    send, recv : numpy.ndarray
        The call's buffers, C-contiguous; for copying kinds flat ``uint8``
        views, for reductions the user's arrays (rows along axis 0). A
        rank that has no send (or receive) buffer passes an empty array.
    units : int
        Units of one value (bytes, or rows for a reduction).
    op : MPI.Op or callable, optional
        The operator of a reduction.

    Examples
    --------
    A linear broadcast of 12 bytes from h0: rank 1 receives straight into its buffer.

    >>> import collsched as cs
    >>> from collsched.mpi.plans import Plan
    >>> p = cs.topologies.star(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=12)
    >>> plan = Plan.of(p, c, cs.plan(p, c, algorithm="linear"), low=1, high=12)
    >>> buf = np.zeros(12, dtype=np.uint8)
    >>> bound = Bound(Prepared(plan, 1), buf, buf, 12)
    >>> (op,) = bound.prep.ops
    >>> np.shares_memory(bound.recv(op), buf)
    True
    """

    def __init__(self, prep: Prepared, send: np.ndarray, recv: np.ndarray, units: int, op=None):
        self.prep, self.op, self.units, d = prep, op, units, prep.denominator
        like = recv if recv.size or not send.size else send
        scratch = prep.scratch(units, like)
        self.arrays, self.offsets = [], []
        for where, array in zip(prep.slots, scratch):
            if where[0] == "scratch":
                self.arrays.append(array)
                self.offsets.append(where[1] * units // d)
                continue
            buf = send if where[0] == "send" else recv
            part = where[1]
            self.arrays.append(_part(buf, part, units))
            self.offsets.append(0)
        if prep.own_block is not None:
            _part(recv, prep.own_block[1], units)[...] = _part(send, prep.own_block[0], units)

    def _view(self, slot: int, a: int, b: int) -> np.ndarray:
        u, d, off = self.units, self.prep.denominator, self.offsets[slot]
        return self.arrays[slot][a * u // d - off:b * u // d - off]

    def send(self, i):
        """The bytes send ``i`` posts: a view of the arrays, or its pieces in place through a derived datatype.

        Examples
        --------
        See :class:`Bound`.

        >>> callable(Bound.send)
        True
        """
        return self._posted(i)

    def _posted(self, i):
        from mpi4py import MPI

        ranges = self.prep.ranges[i]
        if len(ranges) == 1:
            return _bytes(self._view(*ranges[0]))
        if not ranges:
            return np.zeros(0, np.uint8)
        return [MPI.BOTTOM, 1, self.prep.datatype(i, [_bytes(self._view(*r)) for r in ranges])]

    def recv(self, i):
        """The bytes receive ``i`` posts: a view of the arrays, or its pieces in place through a derived datatype.

        Examples
        --------
        See :class:`Bound`.

        >>> callable(Bound.recv)
        True
        """
        return self._posted(i)

    def arrived(self, i, buf):
        """Receive ``i`` completed: nothing to do (its bytes are in place).

        Examples
        --------
        See :class:`Bound`.

        >>> callable(Bound.arrived)
        True
        """
        return None

    def compute(self, i):
        """Combine computation ``i``'s inputs into its output with the call's operator.

        Examples
        --------
        See :class:`Bound`.

        >>> callable(Bound.compute)
        True
        """
        ranges = self.prep.ranges.get(i)
        if ranges:
            combine([self._view(*r) for r in ranges[:-1]], self._view(*ranges[-1]), self.op)
