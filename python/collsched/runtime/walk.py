"""The dependency walk every MPI executor shares: one rank's operations, started as soon as their dependencies end.

A program's operations (:mod:`collsched.schedules.program`) run on a rank in
program order, each once the operations it depends on have completed: a
send posts ``Isend``, a receive posts ``Irecv`` (it ends when its message
has arrived), a computation runs at once. What the messages hold is not the
walk's business: a **payload** (any object with the four methods of
:class:`Payload`) gives the buffer of each send and receive, takes each
received buffer and performs each computation. Two payloads exist: the
runtime's verified test data (:mod:`.execute`) and the user's own arrays
(:mod:`collsched.mpi`).

:class:`RankOps` is what the walk needs of one rank, computed once per
program: per operation its kind, peer, tag, number of dependencies and the
operations that wait for it, as plain lists of ints indexed by the
operation's position (:attr:`RankOps.table`). The walk then keeps only
integers and the pending requests: a dependency is released by
decrementing a counter, completions are taken by ``MPI_Waitsome`` over one
list of requests, and no structure is built per operation but the two
timing dicts (and only with ``t0``).

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules.values import block
>>> b = cs.ProgramBuilder(["a", "b"])
>>> _ = b.send("a", "b", [block(0, 0, 1)], size=64)
>>> ops = RankOps(b.build(), 1)
>>> ops.ops, ops.kind, ops.peer, ops.roots
([1], {1: 1}, {1: 0}, [1])
"""

from __future__ import annotations

import heapq
import time
from typing import Protocol, Sequence

from ..schedules.program import RECV, SEND, Program

__all__ = ["RankOps", "Payload", "walk"]


class RankOps:
    """One rank's operations of a program, in the form the walk reads.

    Parameters
    ----------
    program : Program
        Message ids ``0 .. M-1`` (:meth:`Program.renumbered`).
    rank : int or None
        The rank's index in ``program.ranks`` (None: a rank with no operation).
    peers : sequence of int, optional
        The communicator rank of each program rank (default: the same index).
    tag_ub : int
        The largest MPI tag; message ``m`` is sent with tag ``m % tag_ub``
        (tag ``tag_ub`` itself stays free for the caller).

    Attributes
    ----------
    ops : list of int
        Operation ids, in program order.
    kind, peer, tag : dict
        ``op -> SEND/RECV/COMPUTE``, ``op -> communicator rank`` of the other end, ``op -> MPI tag``.
    waits : dict
        ``op -> number of dependencies``.
    dependents : dict
        ``op -> ops that wait for it``.
    roots : list of int
        The ops without dependencies.
    table : tuple of lists
        What the walk reads, indexed by the op's position ``j`` in ``ops``
        (plain lists of ints, built once): ``(kinds, peers, tags, counts,
        nexts, firsts)``, where ``counts[j]`` is the number of dependencies,
        ``nexts[j]`` the positions that wait for op ``j`` and ``firsts`` the
        positions without dependencies (peers and tags are -1 for a computation).

    Examples
    --------
    >>> import collsched as cs
    >>> b = cs.ProgramBuilder(["a", "b", "c"])
    >>> _ = b.send("a", "c", [], size=8)
    >>> _ = b.send("a", "b", [], size=8)
    >>> ops = RankOps(b.build(), 0, peers=[5, 6, 7])
    >>> ops.peer, ops.dependents, ops.roots
    ({0: 7, 2: 6}, {0: [2]}, [0])
    >>> kinds, peers, tags, counts, nexts, firsts = ops.table
    >>> peers, tags, counts, nexts, firsts
    ([7, 6], [0, 1], [0, 1], [[1], []], [0])
    """

    def __init__(self, program: Program | None, rank: int | None, *, peers: Sequence[int] | None = None,
                 tag_ub: int = 32767):
        self.rank = rank
        self.ops = [] if rank is None else [int(i) for i in program.ops_of(rank)]
        self.kind, self.peer, self.tag, self.waits, self.dependents = {}, {}, {}, {}, {}
        for i in self.ops:
            k = int(program.op_kind[i])
            self.kind[i] = k
            if k in (SEND, RECV):
                p = int(program.op_peer[i])
                self.peer[i] = p if peers is None else int(peers[p])
                self.tag[i] = int(program.op_msg[i]) % tag_ub
            deps = program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]
            self.waits[i] = int(deps.shape[0])
            for d in deps:
                self.dependents.setdefault(int(d), []).append(i)
        self.roots = [i for i in self.ops if self.waits[i] == 0]
        at = {i: j for j, i in enumerate(self.ops)}
        self.table = ([self.kind[i] for i in self.ops], [self.peer.get(i, -1) for i in self.ops],
                      [self.tag.get(i, -1) for i in self.ops], [self.waits[i] for i in self.ops],
                      [[at[d] for d in self.dependents.get(i, ())] for i in self.ops], [at[i] for i in self.roots])


class Payload(Protocol):
    """What a walk asks of the data it moves (see :func:`walk`).

    Examples
    --------
    >>> class Nothing:
    ...     def send(self, i): return b""
    ...     def recv(self, i): return bytearray()
    ...     def arrived(self, i, buf): pass
    ...     def compute(self, i): pass
    >>> isinstance(Nothing(), object)
    True
    """

    def send(self, i: int):
        """The buffer (any mpi4py buffer specification) that send ``i`` posts.

        Examples
        --------
        See :class:`Payload` (and :class:`collsched.mpi.layout.Bound`, a payload).

        >>> callable(Payload.send)
        True
        """

    def recv(self, i: int):
        """The buffer receive ``i`` posts.

        Examples
        --------
        See :class:`Payload` (and :class:`collsched.mpi.layout.Bound`, a payload).

        >>> callable(Payload.recv)
        True
        """

    def arrived(self, i: int, buf) -> None:
        """Receive ``i`` completed into ``buf``.

        Examples
        --------
        See :class:`Payload` (and :class:`collsched.mpi.layout.Bound`, a payload).

        >>> callable(Payload.arrived)
        True
        """

    def compute(self, i: int) -> None:
        """Perform computation ``i``.

        Examples
        --------
        See :class:`Payload` (and :class:`collsched.mpi.layout.Bound`, a payload).

        >>> callable(Payload.compute)
        True
        """


def walk(comm, ops: RankOps, payload: Payload, *, t0: float | None = None, latency: Sequence[float] | None = None,
         poll: float = 0.0, abort=None, meter: list | None = None, started: Sequence | None = None):
    """Run one rank's operations on ``comm``: sends, receives and computations in dependency order.

    The loop reads :attr:`RankOps.table` (lists of ints built once per
    program), releases dependents by decrementing integer counters, keeps
    the pending requests in one list handed to ``MPI_Waitsome`` (or
    ``MPI_Testsome``), so that every completion found in one call is
    handled before the next, and posts the payload's buffers as they are
    (the payload gives views, not copies, where it can).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    ops : RankOps
    payload : Payload
        Gives and takes the buffers; performs computations.
    t0 : float, optional
        ``time.perf_counter()`` of time 0; with it, the start and end of every
        op are recorded (seconds since ``t0``); without, nothing is.
    latency : sequence of float, optional
        Per communicator rank, seconds to wait before posting a send to it
        (emulated latency: the rank goes on with other operations meanwhile).
    poll : float
        0: wait for completions in ``MPI_Waitsome``; ``> 0``: test with
        ``MPI_Testsome`` and sleep ``poll`` seconds between tests (leaves the
        CPU to other ranks).
    abort : mpi4py.MPI.Request, optional
        A posted request whose completion stops the walk (another rank
        failed); the walk then returns ``None``, leaving its own pending
        requests to the caller's clean-up.
    meter : list, optional
        ``[seconds, calls]``, added to: the CPU seconds (``time.process_time``)
        spent inside ``MPI_Waitsome``/``MPI_Testsome`` and the number of such
        calls. The walk's CPU time minus the first is the **executor's own
        cost**: its Python, the payload's, and posting each ``Isend``/``Irecv``,
        without MPI's progress engine spinning while the rank waits.
    started : sequence, optional
        Per position ``j`` of :attr:`RankOps.table`, a persistent request
        (``Send_init``/``Recv_init``, built once on the buffer the payload
        gives for that op; None for a computation): the walk then calls its
        ``Start()`` where it would post ``Isend``/``Irecv``, so that no request
        is made per message (the payload's ``send`` is still called first:
        it may write into that buffer).

    Returns
    -------
    (start, end) : (dict, dict) or None
        ``op -> seconds since t0`` (empty without ``t0``); None if ``abort`` completed.

    Raises
    ------
    RuntimeError
        If operations wait for nothing that can complete (a program error).

    Examples
    --------
    See :mod:`collsched.runtime` and :mod:`collsched.mpi` (a walk needs an MPI job).

    >>> callable(walk)
    True
    """
    from mpi4py import MPI

    clock = time.perf_counter
    timing = t0 is not None
    start: dict[int, float] = {}
    end: dict[int, float] = {}
    ids = ops.ops
    kinds, peers, tags, counts, nexts, firsts = ops.table
    waits = counts[:]
    ready = firsts[:]  # increasing positions: already a heap, popped in program order
    pop, push = heapq.heappop, heapq.heappush
    isend, irecv = comm.Isend, comm.Irecv
    if started is None:
        def post_send(j, buf):
            return isend(buf, peers[j], tags[j])

        def post_recv(j, buf):
            return irecv(buf, peers[j], tags[j])
    else:
        def post_send(j, buf):
            request = started[j]
            request.Start()
            return request

        post_recv = post_send
    give, take, arrived, compute = payload.send, payload.recv, payload.arrived, payload.compute
    base = 0 if abort is None else 1
    requests, owners, buffers = ([abort], [-1], [None]) if abort is not None else ([], [], [])
    timers: list[tuple[float, int]] = []
    delayed: dict[int, object] = {}
    left = len(ids)
    waitsome, testsome = MPI.Request.Waitsome, MPI.Request.Testsome
    if meter is not None:
        waitsome, testsome = _metered(waitsome, meter), _metered(testsome, meter)

    while left:
        while ready:
            j = pop(ready)
            i = ids[j]
            if timing:
                start[i] = clock() - t0
            k = kinds[j]
            if k == SEND:
                buf = give(i)
                if latency is not None and latency[peers[j]] > 0:
                    delayed[j] = buf
                    push(timers, (clock() + latency[peers[j]], j))
                    continue
                requests.append(post_send(j, buf))
            elif k == RECV:
                buf = take(i)
                requests.append(post_recv(j, buf))
            else:
                compute(i)
                # the completion after Waitsome below, inlined on purpose: as a function called per op it cost the
                # executor 5% of its own time (19.2 against 18.3 us per message, bench_runtime.py --executor-only)
                left -= 1
                if timing:
                    end[i] = clock() - t0
                for x in nexts[j]:
                    waits[x] -= 1
                    if not waits[x]:
                        push(ready, x)
                continue
            owners.append(j)
            buffers.append(buf)
        if not left:
            break
        while timers and timers[0][0] <= clock():
            j = pop(timers)[1]
            buf = delayed.pop(j)
            requests.append(post_send(j, buf))
            owners.append(j)
            buffers.append(buf)
        if len(requests) == base:
            if timers:
                time.sleep(max(0.0, timers[0][0] - clock()))
                continue
            raise RuntimeError(f"ops {[ids[j] for j in range(len(ids)) if waits[j] > 0][:4]} wait for nothing "
                               "that can complete")
        if timers or poll > 0:
            finished = testsome(requests)
            if not finished:
                nap = poll if poll > 0 else 1e-4
                time.sleep(min(nap, max(0.0, timers[0][0] - clock())) if timers else nap)
                continue
        else:
            finished = waitsome(requests)
        for n in finished:
            j = owners[n]
            if j < 0:
                return None
            i = ids[j]
            if kinds[j] == RECV:
                arrived(i, buffers[n])
            left -= 1
            if timing:
                end[i] = clock() - t0
            for x in nexts[j]:
                waits[x] -= 1
                if not waits[x]:
                    push(ready, x)
        if len(finished) == len(requests) - base:
            del requests[base:], owners[base:], buffers[base:]
        else:
            gone = set(finished)
            keep = [n for n in range(len(requests)) if n not in gone]
            requests = [requests[n] for n in keep]
            owners = [owners[n] for n in keep]
            buffers = [buffers[n] for n in keep]
    return start, end


def _metered(call, meter: list):
    """``call`` that adds its CPU seconds to ``meter[0]`` and 1 to ``meter[1]`` (see :func:`walk`'s ``meter``).

    Examples
    --------
    >>> meter = [0.0, 0]
    >>> _metered(sum, meter)([1, 2]), meter[1]
    (3, 1)
    """
    cpu = time.process_time

    def metered(requests):
        c = cpu()
        out = call(requests)
        meter[0] += cpu() - c
        meter[1] += 1
        return out

    return metered
