"""MPI's own collectives on the same ranks and data: the baselines a schedule is measured against.

:func:`baseline_task` turns a collective into a task for the MPI job; inside
the job, :func:`run_baseline_rank` performs it with MPI's collective calls,
timed like a program (barrier, common time 0, end when the rank's call
returns), ``count`` instances back to back for a series:

* ``Reduce``: ``MPI_Reduce`` with a user-defined, **non-commutative**
  operator (``Op.Create(commute=False)``) multiplying 2×2 matrices modulo a
  prime (:mod:`.payload`), over a communicator whose ranks are the
  participants in operand order, so MPI must combine in that order. The
  buffer is ``size`` bytes of matrices (32 bytes each, whole matrices in an
  MPI datatype so that segmentation never cuts one). If the target is not a
  participant it joins last with the identity matrix. The result is checked
  against the sequential product.
* ``ReduceScatter`` (``MPI_Reduce_scatter_block``) and ``AllReduce``
  (``MPI_Allreduce``), over the participants in operand order: commutative,
  ``MPI_SUM`` of int64 words below :data:`~.payload.PRIME`
  (:func:`~.payload.summand`, 8 bytes each); ordered
  (``commutative=False``), the matrix product above (32 bytes each). A
  reduce-scatter block is ``size`` bytes (``N · size`` per operand), an
  all-reduce vector ``size`` bytes (at least one word or matrix). Every
  participant's result is checked against the sum, or the product in
  operand order, computed locally.
* ``Broadcast`` (``MPI_Bcast``), ``Scatter`` (``MPI_Scatter``), ``Gather``
  (``MPI_Gather``), ``AllToAll`` (``MPI_Alltoallv``, byte counts per pair):
  communicator in the platform's host order, contents derived from
  ``(instance, source, destination)`` and checked byte for byte.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> task = baseline_task(p, cs.Series(cs.Reduce(participants=["h2", "h0", "h1"], target="h3", size=64), count=2))
>>> task["op"], task["ranks"], task["root"], task["count"]
('reduce', ['h2', 'h0', 'h1', 'h3'], 3, 2)
"""

from __future__ import annotations

import time

import numpy as np

from ..collectives import AllGather, AllReduce, AllToAll, Broadcast, Gather, Reduce, ReduceScatter, Scatter, Series
from ..errors import CollschedError
from . import payload

__all__ = ["baseline_task", "run_baseline_rank", "BASELINE_CALLS"]

BASELINE_CALLS = {"reduce": "MPI_Reduce", "broadcast": "MPI_Bcast", "scatter": "MPI_Scatter",
                  "gather": "MPI_Gather", "alltoall": "MPI_Alltoallv", "allgather": "MPI_Allgather",
                  "reducescatter": "MPI_Reduce_scatter_block", "allreduce": "MPI_Allreduce"}
"""The MPI call that implements each collective kind."""


def baseline_task(platform, collective, *, repeat: int = 1) -> dict:
    """The job task that times MPI's own implementation of ``collective``.

    Parameters
    ----------
    platform : Platform
        Gives the host order of the communicator (except for a reduce: operand order).
    collective : Collective
        Reduce, Broadcast, Scatter, Gather, AllToAll or AllGather (or a Series of one).
    repeat : int
        Repetitions to time.

    Returns
    -------
    dict
        ``kind="baseline"``, ``op``, ``ranks`` (communicator order), ``root``,
        ``sizes`` (bytes per (from, to) pair, a matrix in ``ranks`` order), ``count``, ``repeat``.

    Raises
    ------
    CollschedError
        For a collective MPI has no call for (an AllToMany).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> t = baseline_task(p, cs.Scatter(source="h1", targets=p.hosts, size=10))
    >>> t["ranks"], t["root"], t["sizes"][1]
    (['h0', 'h1', 'h2'], 1, [10.0, 10.0, 10.0])
    """
    count, extra = 1, {}
    if isinstance(collective, Series):
        collective, count = collective.collective, collective.count
    order = [h for h in platform.hosts if h in set(collective.hosts)]
    if isinstance(collective, Reduce):
        ranks = list(collective.participants) + ([] if collective.target in collective.participants
                                                  else [collective.target])
        root = ranks.index(collective.target)
        sizes = [[collective.size] * len(ranks) for _ in ranks]
        op = "reduce"
        extra = {"identity_last": collective.target not in collective.participants}
    elif isinstance(collective, (Broadcast, Scatter)):
        ranks = order
        root = ranks.index(collective.source)
        sizes = [[collective.size if (i == root and r in collective.targets) else 0.0 for r in ranks]
                 for i in range(len(ranks))]
        op = collective.kind
    elif isinstance(collective, Gather):
        ranks = order
        root = ranks.index(collective.target)
        sizes = [[collective.size if (j == root and s in collective.sources) else 0.0 for j in range(len(ranks))]
                 for s in ranks]
        op = "gather"
    elif isinstance(collective, AllGather):
        ranks = list(collective.participants)  # MPI_Allgather's result is in rank order: participant order
        root = 0
        sizes = [[0.0 if i == j else collective.size for j in range(len(ranks))] for i in range(len(ranks))]
        op = "allgather"
    elif isinstance(collective, (ReduceScatter, AllReduce)):
        ranks = list(collective.participants)  # operand order: MPI combines a non-commutative operator in rank order
        root = 0
        sizes = [[0.0 if i == j else collective.size for j in range(len(ranks))] for i in range(len(ranks))]
        op = collective.kind
        extra = {"commutative": collective.commutative}
    elif isinstance(collective, AllToAll):
        ranks = order
        root = 0
        sizes = [[0.0] * len(ranks) for _ in ranks]
        for s, r, m in collective.messages():
            sizes[ranks.index(s)][ranks.index(r)] = m
        op = "alltoall"
    else:
        raise CollschedError(f"MPI has no collective call for a {collective.kind}",
                             fix="compare with reduce, broadcast, scatter, gather, alltoall, allgather, "
                                 "reducescatter or allreduce")
    return {"kind": "baseline", "op": op, "ranks": ranks, "root": root, "sizes": sizes, "count": count,
            "repeat": int(repeat), **extra}


def _block(n: int, inst: int, src: int, dst: int) -> np.ndarray:
    return payload.filler(n, 1_000_003 * inst + src, dst)


def _identity(n: int) -> np.ndarray:
    out = np.zeros((n, 2, 2), dtype=np.int64)
    out[:, 0, 0] = out[:, 1, 1] = 1
    return out


def run_baseline_rank(comm, task: dict, world: list[str]):
    """This rank's part of a baseline task (inside the MPI job).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        The world communicator.
    task : dict
        From :func:`baseline_task`.
    world : list of str
        Node id of each world rank.

    Returns
    -------
    times : list of (float, float)
        Per repetition, this rank's start and end (seconds since the common time 0); empty if not involved.
    problems : list of str
        Verification problems, naming the rank.

    Examples
    --------
    See :mod:`collsched.runtime` (it needs an MPI job).

    >>> callable(run_baseline_rank)
    True
    """
    from mpi4py import MPI

    me = world[comm.rank]
    ranks = task["ranks"]
    sub = comm.Split(0 if me in ranks else MPI.UNDEFINED, ranks.index(me) if me in ranks else 0)
    if sub == MPI.COMM_NULL:
        return [], []
    r, root, op = sub.rank, int(task["root"]), task["op"]
    sizes = np.array(task["sizes"], dtype=float).round().astype(np.int64)
    times, problems = [], []
    ordered = op == "reduce" or (op in _REDUCTIONS and not task["commutative"])
    matrix = MPI.INT64_T.Create_contiguous(4).Commit() if ordered else None
    mpi_op = MPI.Op.Create(_matrix_product, commute=False) if ordered else None
    try:
        for rep in range(int(task["repeat"])):
            bufs = [_buffers(task, op, r, root, sizes, inst) for inst in range(int(task["count"]))]
            sub.Barrier()
            t0 = sub.bcast(time.perf_counter(), root=0)
            start = time.perf_counter() - t0
            for send, recv, extra in bufs:
                _call(sub, op, root, send, recv, extra, matrix, mpi_op)
            times.append((start, time.perf_counter() - t0))
            for inst, (send, recv, extra) in enumerate(bufs):
                expected = _expected(task, op, r, root, sizes, inst, extra)
                got = send if op == "broadcast" else recv
                if expected is not None and not np.array_equal(expected, got):
                    problems.append(f"rank {r} ({me}) repetition {rep}: {BASELINE_CALLS[op]} instance {inst} "
                                    "delivered wrong data")
    finally:
        if mpi_op is not None:
            mpi_op.Free()
            matrix.Free()
        sub.Free()
    return times, problems


_REDUCTIONS = ("reducescatter", "allreduce")


def _elements(task, sizes) -> tuple[int, bool]:
    """(words or matrices per block or vector, commutative) of a reduce-scatter or an all-reduce."""
    commutative = bool(task["commutative"])
    return max(1, int(sizes.max()) // (8 if commutative else 32)), commutative


def _operand(inst: int, k: int, elements: np.ndarray, commutative: bool) -> np.ndarray:
    return payload.summand(inst, k, elements) if commutative else payload.operand(inst, k, elements)


def _reduction(inst: int, n: int, elements: np.ndarray, commutative: bool) -> np.ndarray:
    """The reduction of operands 0..n-1 on ``elements``: their sum, or their product in operand order."""
    out = _operand(inst, 0, elements, commutative)
    for j in range(1, n):
        x = _operand(inst, j, elements, commutative)
        out = out + x if commutative else payload.matmul(out, x)
    return out


def _matrix_product(inbuf, inoutbuf, datatype):
    # MPI: inoutbuf = inbuf (lower ranks) op inoutbuf (higher ranks)
    a = np.frombuffer(inbuf, dtype=np.int64).reshape(-1, 2, 2)
    b = np.frombuffer(inoutbuf, dtype=np.int64).reshape(-1, 2, 2)
    b[...] = payload.matmul(a, b)


def _buffers(task, op, r, root, sizes, inst):
    """``(send, recv, extra)`` of rank ``r`` for one instance (extra: counts or the matrix count)."""
    n = len(sizes)
    if op == "reduce":
        k = max(1, int(sizes[0, 0]) // 32)
        identity = task.get("identity_last") and r == n - 1
        send = _identity(k) if identity else payload.operand(inst, r, np.arange(k))
        return send, np.empty_like(send) if r == root else None, k
    if op in _REDUCTIONS:
        k, commutative = _elements(task, sizes)
        total = n * k if op == "reducescatter" else k
        send = _operand(inst, r, np.arange(total), commutative)
        return send, np.empty_like(send[:k]), k
    if op == "broadcast":
        m = int(sizes[root].max())
        return (_block(m, inst, root, -1) if r == root else np.empty(m, dtype=np.uint8)), None, m
    if op == "scatter":
        m = int(sizes[root].max())
        send = np.concatenate([_block(m, inst, root, j) for j in range(n)]) if r == root else None
        return send, np.empty(m, dtype=np.uint8), m
    if op == "gather":
        m = int(sizes[:, root].max())
        return _block(m, inst, r, root), (np.empty(m * n, dtype=np.uint8) if r == root else None), m
    if op == "allgather":
        m = int(sizes.max())
        return _block(m, inst, r, -1), np.empty(m * n, dtype=np.uint8), m
    counts_out, counts_in = sizes[r], sizes[:, r]
    send = np.concatenate([_block(int(c), inst, r, j) for j, c in enumerate(counts_out)])
    return send, np.empty(int(counts_in.sum()), dtype=np.uint8), (counts_out, counts_in)


def _expected(task, op, r, root, sizes, inst, extra):
    """What rank ``r`` must hold after one instance (None: nothing to check), and which buffer holds it."""
    n = len(sizes)
    if op == "reduce":
        if r != root:
            return None
        out = payload.operand(inst, 0, np.arange(extra))
        for j in range(1, n):
            last = task.get("identity_last") and j == n - 1
            out = out if last else payload.matmul(out, payload.operand(inst, j, np.arange(extra)))
        return out
    if op in _REDUCTIONS:
        first = r * extra if op == "reducescatter" else 0
        return _reduction(inst, n, np.arange(first, first + extra), bool(task["commutative"]))
    if op == "broadcast":
        return None if r == root else _block(extra, inst, root, -1)
    if op == "scatter":
        return _block(extra, inst, root, r)
    if op == "gather":
        return None if r != root else np.concatenate([_block(extra, inst, j, root) for j in range(n)])
    if op == "allgather":
        return np.concatenate([_block(extra, inst, j, -1) for j in range(n)])
    return np.concatenate([_block(int(c), inst, j, r) for j, c in enumerate(sizes[:, r])])


def _call(comm, op, root, send, recv, extra, matrix, mpi_op):
    from mpi4py import MPI

    if op == "reduce":
        comm.Reduce([send, extra, matrix], None if recv is None else [recv, extra, matrix], op=mpi_op, root=root)
    elif op in _REDUCTIONS:
        kind = MPI.INT64_T if mpi_op is None else matrix
        call = comm.Reduce_scatter_block if op == "reducescatter" else comm.Allreduce
        call([send, kind], [recv, kind], op=MPI.SUM if mpi_op is None else mpi_op)
    elif op == "broadcast":
        comm.Bcast([send, MPI.BYTE], root=root)
    elif op == "scatter":
        comm.Scatter(None if send is None else [send, extra, MPI.BYTE], [recv, MPI.BYTE], root=root)
    elif op == "gather":
        comm.Gather([send, MPI.BYTE], None if recv is None else [recv, extra, MPI.BYTE], root=root)
    elif op == "allgather":
        comm.Allgather([send, MPI.BYTE], [recv, MPI.BYTE])
    else:
        out, inn = extra
        comm.Alltoallv([send, (out, np.concatenate([[0], np.cumsum(out)[:-1]])), MPI.BYTE],
                       [recv, (inn, np.concatenate([[0], np.cumsum(inn)[:-1]])), MPI.BYTE])
