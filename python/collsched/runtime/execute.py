"""One rank's execution of a program over MPI (runs inside the MPI job, see :mod:`.worker`).

The executor walks its rank's operations in program order and starts each one
as soon as the operations it depends on have completed (the semantics of
:mod:`collsched.schedules.program`, the same the validator and the simulator
use; the walk is :mod:`.walk`'s, shared with :mod:`collsched.mpi`, and this
module is its payload of test data): a send posts ``Isend`` of a real buffer, a receive posts ``Irecv``
(it then waits for its message), a computation multiplies the 2×2 matrices of
its input pieces in operand order, or adds the integers of a commutative
reduction's inputs (:mod:`.payload`), and, with
``compute="model"``, then sleeps until ``cost / speed`` seconds have passed,
so that its duration is the platform's. Completions are taken by
``MPI_Waitsome``; a send completes when MPI says its buffer is free again
(at once for a small, eagerly sent message; when the receiver has taken the
data for a large one).

With emulated latency, a send is posted ``latency(src, dst)`` seconds after
it becomes ready (the rank meanwhile goes on with other operations): the
kernel of the test machines has no ``netem``, so the runtime adds latency
itself.

Every received buffer is checked after the timed run (so that checking costs
no time in the trace): every piece's content against what the value holds
when computed directly, every filler byte against the bytes derived from the
message id and the repetition. At the end every value (or fragment of one)
the collective promises to a rank is checked the same way: a reduction
result against the sequential product of the operands in operand order, or
the sum of its operands.

Examples
--------
>>> from collsched.schedules.values import block
>>> import collsched as cs
>>> b = cs.ProgramBuilder(["a", "b"])
>>> _ = b.send("a", "b", [block(0, 0, 1)], size=64)
>>> plan = RankPlan(b.build(), 1)
>>> plan.ops, plan.recv_words
([1], {1: 1})
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np

from ..schedules.program import RECV, SEND, Program
from ..schedules.values import REDUCED, Piece, Value
from . import payload
from .walk import RankOps, walk

__all__ = ["RankPlan", "execute", "check_received", "check_finals"]


class RankPlan(RankOps):
    """What one rank needs to run its part of a program, computed once for every repetition.

    Parameters
    ----------
    program : Program
    rank : int
        The rank's index in ``program.ranks``.
    tag_ub : int
        The largest MPI tag of the communicator.

    Attributes
    ----------
    ops : list of int
        The rank's operation ids, in program order (and the rest of :class:`~.walk.RankOps`).
    deps : dict
        ``op -> list of ops`` it waits for.
    header_at : dict
        ``send or recv op -> (words, [((value, segment), first, last, square), ...])``: its
        header's length in int64 words, and where each content sits in it
        (``square``: a 2×2 matrix), in :func:`payload.header`'s order.
    pieces : dict
        ``op -> tuple of Piece`` (for a receive: the pieces its message carries).
    recv_words : dict
        ``recv op -> header words`` of its message.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules.values import partial
    >>> b = cs.ProgramBuilder(["h0", "h1"])
    >>> _ = b.send("h1", "h0", [partial(0, 1, 1)], size=64)
    >>> _ = b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), cost=10)
    >>> plan = RankPlan(b.build(), 0)
    >>> [b.build().op(i).kind for i in plan.ops], plan.deps, plan.recv_words
    (['recv', 'compute'], {1: [], 2: [1]}, {1: 4})
    """

    def __init__(self, program: Program, rank: int, *, tag_ub: int = 32767):
        program = program.renumbered()  # message ids are labels; MPI tags and arrays here want them 0 .. M-1
        super().__init__(program, rank, tag_ub=tag_ub)
        self.program = program
        send_op, _ = program.message_ops()
        self.deps, self.pieces, self.recv_words = {}, {}, {}
        for i in self.ops:
            op = program.op(i)
            self.deps[i] = list(op.after)
            if op.kind == "recv":
                carried = program.op(int(send_op[op.msg])).pieces
                self.pieces[i] = carried
                self.recv_words[i] = payload.header_words(carried)
            else:
                self.pieces[i] = op.pieces
        self._sizes = {i: payload.message_bytes(program.op_size[i], payload.header_words(self.pieces[i]))
                       for i in self.ops if self.kind[i] in (SEND, RECV)}
        self.header_at = {i: _header_at(self.pieces[i]) for i in self._sizes}

    def buffers(self, rep: int, into: dict | None = None) -> dict:
        """Every message buffer of repetition ``rep``, made before it starts: sends hold their filler, receives empty.

        A send's header (what its pieces hold) is written into its buffer
        when it is posted; everything else is ready, so that the timed run
        posts these arrays as they are.

        Parameters
        ----------
        rep : int
            The repetition (the fillers depend on it).
        into : dict, optional
            The buffers of an earlier repetition: their sends' fillers are
            rewritten in place and the same arrays returned (so that
            persistent requests made on them, :meth:`requests`, stay valid).

        Returns
        -------
        dict
            ``op -> numpy.ndarray`` (uint8) for every send and receive.

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.schedules.values import block
        >>> b = cs.ProgramBuilder(["a", "b"])
        >>> _ = b.send("a", "b", [block(0, 0, 1)], size=16)
        >>> bufs = RankPlan(b.build(), 0).buffers(3)
        >>> bufs[0].shape, bool((bufs[0][8:] == payload.filler(8, 0, 3)).all())
        ((16,), True)
        >>> again = RankPlan(b.build(), 0).buffers(4, into=bufs)
        >>> again[0] is bufs[0], bool((bufs[0][8:] == payload.filler(8, 0, 4)).all())
        (True, True)
        """
        out = {} if into is None else into
        for i, n in self._sizes.items():
            if self.kind[i] == SEND:
                head = 8 * payload.header_words(self.pieces[i])
                buf = np.empty(n, dtype=np.uint8) if into is None else into[i]
                buf[head:] = payload.filler(n - head, int(self.program.op_msg[i]), rep)
                out[i] = buf
            elif into is None:
                out[i] = np.empty(n, dtype=np.uint8)
        return out

    def requests(self, comm, buffers: dict) -> list:
        """Persistent requests on ``buffers`` (``Send_init``/``Recv_init``), per position of :attr:`table`.

        Made once, started by the walk at every repetition whose buffers are
        these arrays (:meth:`buffers` with ``into``); free them with
        ``Free()`` when done.

        Parameters
        ----------
        comm : mpi4py.MPI.Comm
        buffers : dict
            :meth:`buffers`.

        Returns
        -------
        list
            A request per send and receive, None per computation.

        Examples
        --------
        See :mod:`collsched.runtime.worker` (requests need an MPI job).

        >>> callable(RankPlan.requests)
        True
        """
        kinds, peers, tags = self.table[:3]
        out = []
        for j, i in enumerate(self.ops):
            if kinds[j] == SEND:
                out.append(comm.Send_init(buffers[i], peers[j], tags[j]))
            elif kinds[j] == RECV:
                out.append(comm.Recv_init(buffers[i], peers[j], tags[j]))
            else:
                out.append(None)
        return out


class _TestData:
    """The walk's payload of a verified run: headers of symbolic contents, fillers, 2×2 matrix products."""

    def __init__(self, plan: RankPlan, store: dict, rep: int, corrupt: bool, speed: float, compute: str,
                 buffers: dict | None = None):
        self.plan, self.store, self.rep, self.corrupt = plan, store, rep, corrupt
        self.speed, self.model = speed, compute == "model"
        self.buffers = plan.buffers(rep) if buffers is None else buffers
        self.received: list = []

    def send(self, i):
        buf = self.buffers[i]
        n, at = self.plan.header_at[i]
        words = buf[:8 * n].view(np.int64)
        store = self.store
        try:
            for key, a, b, _ in at:
                words[a:b] = np.asarray(store[key]).reshape(-1)
        except KeyError as exc:
            value, segment = exc.args[0]
            raise RuntimeError(f"op {i} (send msg {int(self.plan.program.op_msg[i])}) carries {value!r} "
                               f"segment {segment}, which the rank does not hold") from None
        if self.corrupt and buf.shape[0]:
            buf[buf.shape[0] // 2] ^= 0xFF
            self.corrupt = False
        return buf

    def recv(self, i):
        return self.buffers[i]

    def arrived(self, i, buf):
        n, at = self.plan.header_at[i]
        words = buf[:8 * n].view(np.int64)
        setdefault = self.store.setdefault
        for key, a, b, square in at:
            setdefault(key, words[a:b].reshape(2, 2) if square else words[a:b])
        self.received.append((i, buf))

    def compute(self, i):
        began = time.perf_counter()
        _compute(self.plan.pieces[i], self.store)
        if self.model:
            rest = float(self.plan.program.op_size[i]) / self.speed - (time.perf_counter() - began)
            if rest > 0:
                time.sleep(rest)


def execute(comm, plan: RankPlan, *, store: dict, rep: int, t0: float, speed: float = 1e9,
            compute: str = "model", latency: Sequence[float] | None = None, corrupt: bool = False,
            poll: float = 0.0, buffers: dict | None = None, meter: list | None = None,
            requests: Sequence | None = None):
    """Run ``plan`` once on ``comm`` (whose rank ``i`` is program rank ``i``); fills ``store``.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    plan : RankPlan
        Made with the communicator's ``tag_ub``.
    store : dict
        ``(Value, segment) -> content`` the rank holds (its initial values); updated in place.
    rep : int
        Repetition number (the fillers depend on it).
    t0 : float
        ``time.perf_counter()`` of time 0 (the same on every rank of the machine).
    speed : float
        Flop/s of the rank, for ``compute="model"``.
    compute : {"model", "real"}
        ``"model"``: a computation lasts at least ``cost / speed``; ``"real"``:
        only the matrix products.
    latency : sequence of float, optional
        Per peer rank, seconds to wait before posting a send (emulated latency).
    corrupt : bool
        Fault injection: flip one byte of the rank's first non-empty message.
    poll : float
        0: wait for completions in ``MPI_Waitsome`` (Open MPI spins); ``> 0``:
        test for them and sleep ``poll`` seconds between tests, leaving the
        CPU to the other ranks (for more ranks than cores over TCP, where the
        kernel moves the data while the rank sleeps).
    buffers : dict, optional
        ``plan.buffers(rep)``, made before time 0 so that making them costs
        the run nothing (default: made here).
    meter : list, optional
        ``[seconds, calls]``: CPU seconds inside ``MPI_Waitsome``/``Testsome``
        and their number, added to (see :func:`~.walk.walk`).
    requests : sequence, optional
        ``plan.requests(comm, buffers)``: persistent requests on ``buffers``
        (then required), started instead of posting ``Isend``/``Irecv``.

    Returns
    -------
    start, end : dict
        ``op -> seconds since t0``.
    received : list
        ``(op, buffer)`` of every receive, for :func:`check_received`.

    Raises
    ------
    ValueError
        ``requests`` without the ``buffers`` they were made on.

    Examples
    --------
    See :mod:`collsched.runtime` (the executor needs an MPI job).

    >>> execute(None, None, store={}, rep=0, t0=0.0, requests=[])
    Traceback (most recent call last):
    ...
    ValueError: execute: requests= are made on buffers; pass those buffers= too (plan.buffers(rep, into=...))
    """
    if requests is not None and buffers is None:
        raise ValueError("execute: requests= are made on buffers; "
                         "pass those buffers= too (plan.buffers(rep, into=...))")
    data = _TestData(plan, store, rep, corrupt, speed, compute, buffers)
    start, end = walk(comm, plan, data, t0=t0, latency=latency, poll=poll, meter=meter, started=requests)
    return start, end, data.received


def _header_at(pieces) -> tuple:
    """``(words, [((value, segment), first, last, square), ...])``: where :func:`payload.header` puts each content."""
    at, k = [], 0
    for (key, chunk) in payload.split_header(np.arange(payload.header_words(pieces)), pieces):
        at.append((key, k, k + chunk.size, chunk.ndim == 2))
        k += chunk.size
    return k, at


def _compute(pieces, store) -> None:
    """Combine the input pieces into the output piece, segment by segment: products in operand order, or sums."""
    if not pieces:
        return
    *inputs, output = pieces
    add = output.value.kind == REDUCED
    for s in range(output.start, output.end):
        acc = None
        for p in inputs:
            x = store[(p.value, s)]
            acc = x if acc is None else (acc + x if add else payload.matmul(acc, x))
        if acc is not None:
            store[(output.value, s)] = acc


def check_received(plan: RankPlan, received, rep: int) -> list[str]:
    """Problems with the received buffers (empty: every byte is what it should be).

    Parameters
    ----------
    plan : RankPlan
    received : list of (op, buffer)
        As returned by :func:`execute`.
    rep : int
        The repetition the buffers come from.

    Returns
    -------
    list of str
        One line per bad message, naming the op, the message and its sender.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules.values import block
    >>> b = cs.ProgramBuilder(["a", "b"])
    >>> _ = b.send("a", "b", [block(0, 0, 1)], size=16)
    >>> plan = RankPlan(b.build(), 1)
    >>> good = np.concatenate([payload.content(block(0, 0, 1), 0).view(np.uint8), payload.filler(8, 0, 0)])
    >>> check_received(plan, [(1, good)], 0)
    []
    >>> bad = good.copy(); bad[12] ^= 1
    >>> check_received(plan, [(1, bad)], 0)
    ['op 1 (recv msg 0 from a): byte 12 of 16 differs from what a sent']
    """
    prog = plan.program
    problems = []
    for i, buf in received:
        msg, peer = int(prog.op_msg[i]), prog.ranks[int(prog.op_peer[i])]
        w = plan.recv_words[i]
        expected = np.concatenate([np.asarray(payload.content(p.value, s), dtype=np.int64).reshape(-1)
                                   for p in plan.pieces[i] for s in range(p.start, p.end)] or
                                  [np.zeros(0, dtype=np.int64)])
        expected = np.concatenate([expected.view(np.uint8), payload.filler(buf.shape[0] - 8 * w, msg, rep)])
        if expected.shape != buf.shape or not np.array_equal(expected, buf):
            bad = np.flatnonzero(expected != buf)[0] if expected.shape == buf.shape else 0
            problems.append(f"op {i} (recv msg {msg} from {peer}): byte {bad} of {buf.shape[0]} differs "
                            f"from what {peer} sent")
    return problems


def check_finals(finals: Sequence[Value | Piece], store: dict, denominator: int) -> list[str]:
    """Problems with the values a rank must end with (missing, or not the direct computation).

    Parameters
    ----------
    finals : sequence of Value or Piece
        A whole value, or the segments ``start .. end-1`` of one (a ReduceScatter's block).
    store : dict
        What the rank holds after the run.
    denominator : int
        Segments per value.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from collsched.schedules.values import partial
    >>> v = partial(0, 0, 1)
    >>> wrong = payload.matmul(payload.operand(0, 1, 0), payload.operand(0, 0, 0))
    >>> check_finals([v], {(v, 0): wrong}, 1)
    ['v[0..1]@0 segment 0 is not the product of its operands in operand order']
    >>> check_finals([v], {}, 1)
    ['v[0..1]@0 segment 0 never arrived']
    >>> from collsched.schedules.values import reduced
    >>> twice = payload.content(reduced(0, [0, 1]), 1) + payload.content(reduced(0, [1]), 1)
    >>> check_finals([Piece(reduced(0, [0, 1]), 1, 2)], {(reduced(0, [0, 1]), 1): twice}, 3)
    ['Σ{0,1}@0 segment 1 is not the sum of its operands']
    """
    problems = []
    what = {1: "the product of its operands in operand order", REDUCED: "the sum of its operands"}
    for item in finals:
        v, start, end = item if isinstance(item, Piece) else (item, 0, denominator)
        for s in range(start, end):
            got = store.get((v, s))
            if got is None:
                problems.append(f"{v!r} segment {s} never arrived")
            elif not np.array_equal(np.asarray(got).reshape(-1), payload.content(v, s).reshape(-1)):
                problems.append(f"{v!r} segment {s} is not {what.get(v.kind, 'the block sent')}")
    return problems
