"""Column-wise lowering of schedules of direct messages (all-to-all, all-to-many, all-gather).

:meth:`StepSchedule.lower <collsched.schedules.StepSchedule.lower>` and
:meth:`OrderSchedule.lower <collsched.schedules.OrderSchedule.lower>` go
through :class:`~collsched.schedules.program.ProgramBuilder`, one Python
call per operation (about 5 µs each). When every transfer is a direct
message of an all-to-all or all-to-many (the block ``m[src→dst]``) or of an
all-gather (the sender's own block ``m[src→*]``, which no transfer forwards),
whole or (in a step schedule) a part of it (no relayed values, no
reduction), the program they build has a
regular shape, and this module
builds the same columns with numpy, step by step: the same operations in
the same order, with the same dependencies and pieces (the tests compare the
two programs for equality).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> s = cs.plan(p, c, algorithm="caterpillar")
>>> fast = step_program(s.steps, p, c, "barrier", denominator=1, name="caterpillar")
>>> fast == s.lower(p, c, sync="barrier"), fast.n_ops
(True, 56)
"""

from __future__ import annotations

import functools

import numpy as np

from .program import RECV, SEND, Program, _frozen
from .values import BLOCK

__all__ = ["step_program", "direct_step_program", "order_program", "direct_order_program", "size_matrix",
           "exchange_blocks", "DIRECT_KINDS"]

#: The collectives whose direct messages this module lowers: each is a whole value that only its sender sends, so
#: a send waits for no receive (the builder finds no producer for what it carries).
DIRECT_KINDS = ("alltoall", "alltomany", "allgather")


def _direct(groups, platform, collective, denominator: int, *, parts: bool = True):
    """Per transfer: (step, src, dst, inst, bytes, start, end) arrays, or None when a transfer is not a direct
    message, or a part of one (``parts``) that ends within ``denominator``."""
    base = collective.base
    if base.kind not in DIRECT_KINDS:
        return None
    flat = [t for g in groups for t in g]
    if any(t.values is not None or (t.part is not None and not parts) for t in flat):
        return None
    index = {h: i for i, h in enumerate(platform.hosts)}
    try:
        src = np.fromiter((index[t.src] for t in flat), np.int64, len(flat))
        dst = np.fromiter((index[t.dst] for t in flat), np.int64, len(flat))
    except KeyError:
        return None
    inst = np.fromiter((t.inst for t in flat), np.int64, len(flat))
    step = np.repeat(np.arange(len(groups), dtype=np.int64), [len(g) for g in groups])
    start = end = None
    if any(t.part is not None for t in flat):  # Transfer checked 0 <= start < end
        start = np.fromiter((0 if t.part is None else t.part[0] for t in flat), np.int64, len(flat))
        end = np.fromiter((denominator if t.part is None else t.part[1] for t in flat), np.int64, len(flat))
        if np.any(end > denominator):
            return None  # the builder's lowering says which part exceeds the denominator
    return _sized(step, src, dst, inst, platform, base, denominator, start, end)


def _sized(step, src, dst, inst, platform, base, denominator: int, start=None, end=None):
    """(step, src, dst, inst, bytes, start, end), or None when a transfer is not a message of the collective.

    ``start, end``: each transfer's part in units of ``denominator`` (by default the whole message).
    """
    sizes = _message_sizes(base, platform)[src, dst]
    if np.isnan(sizes).any():
        return None  # a transfer the collective does not have: the builder's lowering says so
    if start is None:
        start, end = np.zeros(src.shape[0], np.int64), np.full(src.shape[0], denominator, np.int64)
    # the builder's arithmetic, operation for operation: bytes * (end - start) / denominator
    size = sizes * (end - start).astype(np.float64) / denominator
    return step, src, dst, inst, size, start, end


def _message_sizes(base, platform) -> np.ndarray:
    """:func:`size_matrix`, or for an all-gather its block's bytes between two distinct participants."""
    if base.kind != "allgather":
        return size_matrix(base, platform)
    n = len(platform.hosts)
    at = [platform.host_index(h) for h in base.participants]
    matrix = np.full((n, n), np.nan)
    matrix[np.ix_(at, at)] = float(base.size)
    np.fill_diagonal(matrix, np.nan)
    return matrix


def _value_dst(base, dst: np.ndarray) -> np.ndarray:
    """The ``b`` column of the values direct messages to ``dst`` carry: ``dst``, or -1 for an all-gather's blocks."""
    return np.full(dst.shape[0], -1, np.int64) if base.kind == "allgather" else dst


def size_matrix(base, platform) -> np.ndarray:
    """Bytes of the message from host index a to b, NaN where the collective has none (nor from a host to itself).

    Parameters
    ----------
    base : AllToAll or AllToMany
    platform : Platform
        Gives the host indices.

    Returns
    -------
    ndarray, shape (number of hosts, number of hosts)

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> size_matrix(cs.AllToMany({("h2", "h0"): 5.0}), p)[2].tolist()
    [5.0, nan, nan]
    """
    n = len(platform.hosts)
    matrix = np.full((n, n), np.nan)
    if base.kind == "alltoall":  # AllToAll.messages: distinct hosts, positive sizes
        sizes = np.broadcast_to(np.asarray(base.size, dtype=float), (len(base.senders), len(base.receivers)))
        rows = [platform.host_index(h) for h in base.senders]
        cols = [platform.host_index(h) for h in base.receivers]
        matrix[np.ix_(rows, cols)] = np.where(sizes > 0, sizes, np.nan)
    else:
        for (a, b), size in base.size_table(platform).items():
            matrix[a, b] = size
    np.fill_diagonal(matrix, np.nan)
    return matrix


def exchange_blocks(platform, collective) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The blocks of an all-to-all or all-to-many (or a series of them) as arrays, or None for another collective.

    Parameters
    ----------
    platform : Platform
        Gives the host indices.
    collective : Collective

    Returns
    -------
    (src, dst, inst) : int64 arrays, or None
        Block ``k`` is ``m[src[k]→dst[k]]@inst[k]``, in the order of
        :meth:`Collective.values <collsched.collectives.Collective.values>`:
        instance by instance, each in message order.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Series(cs.AllToMany({("h2", "h0"): 5.0, ("h0", "h1"): 1.0}), count=2)
    >>> [x.tolist() for x in exchange_blocks(p, c)]
    [[2, 0, 2, 0], [0, 1, 0, 1], [0, 0, 1, 1]]
    >>> exchange_blocks(p, cs.Scatter(source="h0", targets=p.hosts, size=1.0)) is None
    True
    """
    base = collective.base
    if base.kind not in ("alltoall", "alltomany"):
        return None
    src, dst, _ = base.message_columns(platform)  # not a host: the platform's own error
    count = collective.count
    if count == 1:
        return src, dst, np.zeros(src.shape[0], dtype=np.int64)
    return np.tile(src, count), np.tile(dst, count), np.repeat(np.arange(count, dtype=np.int64), src.shape[0])


class _Columns:
    """Operations appended in chunks of arrays; dependencies as (count per op, flat ids)."""

    def __init__(self):
        self.parts: list[tuple] = []
        self.n = 0
        self.messages = 0

    def add(self, rank, kind, peer, msg, size, dep_count, dep_idx, data):
        self.parts.append((rank, kind, peer, msg, size, dep_count, dep_idx, data))
        self.n += len(rank)

    def program(self, ranks, denominator: int, name: str, rows: np.ndarray) -> Program:
        cols = [np.concatenate([p[i] for p in self.parts]) if self.parts else np.zeros(0, np.int64)
                for i in range(8)]
        rank, kind, peer, msg, size, dep_count, dep_idx, data = cols
        dep_ptr = np.zeros(len(rank) + 1, np.int64)
        np.cumsum(dep_count, out=dep_ptr[1:])
        piece_ptr = np.zeros(len(rank) + 1, np.int64)
        np.cumsum(data.astype(np.int64), out=piece_ptr[1:])
        own = (lambda a, dtype: a.astype(dtype, copy=False))  # the concatenations are this program's own arrays
        return Program(ranks=tuple(ranks), denominator=denominator, op_rank=_frozen(own(rank, np.int64)),
                       op_kind=_frozen(own(kind, np.int64)), op_peer=_frozen(own(peer, np.int64)),
                       op_msg=_frozen(own(msg, np.int64)), op_size=_frozen(own(size, np.float64)),
                       dep_ptr=_frozen(dep_ptr), dep_idx=_frozen(own(dep_idx, np.int64)),
                       piece_ptr=_frozen(piece_ptr), pieces=_frozen(rows.reshape(-1, 6)), name=name)


class _Done:
    """Per rank, a sorted set of operation ids (CSR): what the rank's next operations wait for."""

    def __init__(self, n: int):
        self.n = n
        self.ptr = np.zeros(n + 1, np.int64)
        self.idx = np.zeros(0, np.int64)

    def gather(self, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each rank of ``ranks``: how many ids, and all of them concatenated."""
        start = self.ptr[ranks]
        count = self.ptr[ranks + 1] - start
        total = int(count.sum())
        if total == 0:
            return count, np.zeros(0, np.int64)
        offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
        return count, self.idx[np.repeat(start, count) + offsets]

    def set(self, rank: np.ndarray, ops: np.ndarray, *, keep_idle: bool) -> None:
        """Each rank's ids become its ``ops``; a rank without any keeps its old ids (``keep_idle``) or has none."""
        if keep_idle:
            idle = np.bincount(rank, minlength=self.n) == 0
            old_rank = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr))
            kept = idle[old_rank]
            rank = np.concatenate([rank, old_rank[kept]])
            ops = np.concatenate([ops, self.idx[kept]])
        order = np.lexsort((ops, rank))
        self.idx = ops[order]
        self.ptr = np.zeros(self.n + 1, np.int64)
        np.cumsum(np.bincount(rank, minlength=self.n), out=self.ptr[1:])


def _interleave(*arrays: np.ndarray) -> np.ndarray:
    """``a0[0], a1[0], ..., a0[1], a1[1], ...``."""
    k = len(arrays)
    if any(np.ndim(a) != 1 for a in arrays):
        return np.stack(arrays, axis=1).reshape(-1)
    out = np.empty(k * len(arrays[0]), dtype=np.result_type(*arrays))
    for i, a in enumerate(arrays):
        out[i::k] = a
    return out


def _ragged_interleave(counts: list[np.ndarray], flats: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per-op dependency lists of several op columns interleaved as :func:`_interleave` orders the ops."""
    count = _interleave(*counts)
    k = len(counts)
    m = len(counts[0])
    # the position of each column's segments in the interleaved output
    starts = np.zeros(k * m + 1, np.int64)
    np.cumsum(count, out=starts[1:])
    out = np.empty(int(starts[-1]), np.int64)
    for col, (c, flat) in enumerate(zip(counts, flats)):
        first = starts[:-1][col::k]
        offsets = np.arange(len(flat), dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
        out[np.repeat(first, c) + offsets] = flat
    return count, out


def _one(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each op waits for one id (``ids``), or for nothing where ``ids`` is negative."""
    has = ids >= 0
    return has.astype(np.int64), ids[has]


@functools.lru_cache(maxsize=8)
def _barrier_rounds(n: int) -> tuple:
    """The dissemination barrier among ``n`` ranks as columns, op ids relative to its first op.

    Returns the columns of every round (rank, kind, peer, message offset),
    the dependencies of the rounds after the first (per op, relative ids;
    round 0 waits for what each rank did before), and each rank's two ops
    of the last round (sorted, relative).
    """
    ranks = np.arange(n, dtype=np.int64)
    dists = [1 << j for j in range(max(0, (n - 1).bit_length()))]
    rank, peer, msg, count, deps = [], [], [], [], []
    last = None
    for j, dist in enumerate(dists):
        base = 2 * n * j
        to = (ranks + dist) % n
        rank.append(_interleave(ranks, to))
        peer.append(_interleave(to, ranks))
        msg.append(np.repeat(n * j + ranks, 2))
        if last is not None:  # after round 0 each rank waits for its send and its receive of the round before
            count.append(np.full(2 * n, 2, np.int64))
            deps.append(_interleave(last[ranks], last[to]).reshape(-1))
        last = np.sort(np.stack([base + 2 * ranks, base + 2 * ((ranks - dist) % n) + 1], axis=1), axis=1)
    cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, np.int64))
    return (cat(rank), np.tile([SEND, RECV], n * len(dists)), cat(peer), cat(msg), cat(count), cat(deps),
            last, len(dists))


def _barrier(cols: _Columns, done: _Done, n: int) -> None:
    """A dissemination barrier (:func:`collsched.schedules.steps.add_barrier`); updates ``done``."""
    rank, kind, peer, msg, count, deps, last, rounds = _barrier_rounds(n)
    if rounds == 0:
        return
    base = cols.n
    ranks = np.arange(n, dtype=np.int64)
    send_count, send_deps = done.gather(ranks)
    recv_count, recv_deps = done.gather((ranks + 1) % n)
    first_count, first_deps = _ragged_interleave([send_count, recv_count], [send_deps, recv_deps])
    cols.add(rank, kind, peer, cols.messages + msg, np.zeros(len(rank)), np.concatenate([first_count, count]),
             np.concatenate([first_deps, base + deps]), np.zeros(len(rank), bool))
    cols.messages += n * rounds
    done.ptr = 2 * np.arange(n + 1, dtype=np.int64)
    done.idx = (base + last).reshape(-1)


def _rows(src, dst, inst, start, end) -> np.ndarray:
    rows = np.empty((len(src), 6), np.int64)
    rows[:, 0] = BLOCK
    rows[:, 1] = inst
    rows[:, 2] = src
    rows[:, 3] = dst
    rows[:, 4] = start
    rows[:, 5] = end
    return rows


def _in_order(cols: _Columns, src, dst, size) -> None:
    """Messages in sequence; each send waits for the previous send of its sender, each receive for nothing."""
    m = len(src)
    seq = np.arange(m, dtype=np.int64)
    order = np.argsort(src, kind="stable")
    prev = np.full(m, -1, np.int64)
    same = np.zeros(m, bool)
    same[1:] = src[order][1:] == src[order][:-1]
    prev[order[1:][same[1:]]] = order[:-1][same[1:]]
    send_op = np.where(prev < 0, -1, cols.n + 2 * prev)
    send_count, send_deps = _one(send_op)
    count = _interleave(send_count, np.zeros(m, np.int64))   # receives wait for nothing: the sends' lists, in order
    deps = send_deps
    msg = cols.messages + seq
    cols.add(_interleave(src, dst), np.tile([SEND, RECV], m), _interleave(dst, src), _interleave(msg, msg),
             _interleave(size, size), count, deps, np.tile([True, False], m))
    cols.messages += m


def step_program(groups, platform, collective, sync: str, *, denominator: int, name: str) -> Program | None:
    """The program :meth:`StepSchedule.lower` builds, column-wise, or None when this shape does not apply.

    Parameters
    ----------
    groups : sequence of sequences of Transfer
        The steps, already tiled to the collective's count
        (:func:`collsched.schedules.steps.tiled`).
    platform : Platform
    collective : Collective
        The collective the schedule answers.
    sync : {"barrier", "ready", "post_all"}
    denominator : int
        The schedule's unit of parts.
    name : str
        The program's name (the algorithm).

    Returns
    -------
    Program or None
        Equal to what the :class:`~collsched.schedules.program.ProgramBuilder`
        lowering builds; None unless every transfer is a direct message of
        an all-to-all or all-to-many between two distinct hosts, whole or a
        part of it within the denominator.

    Notes
    -----
    O(transfers + steps * hosts * log hosts) numpy work, a few Python
    operations per step.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = cs.plan(p, c, algorithm="caterpillar")
    >>> [step_program(s.steps, p, c, sync, denominator=1, name="caterpillar") == s.lower(p, c, sync=sync)
    ...  for sync in ("barrier", "ready", "post_all")]
    [True, True, True]
    >>> c = cs.Scatter(source="h0", targets=p.hosts, size=1)
    >>> step_program(s.steps, p, c, "barrier", denominator=1, name="caterpillar") is None
    True
    """
    arrays = _direct(groups, platform, collective, denominator)
    if arrays is None:
        return None
    return _step_columns(*arrays, len(groups), platform, collective.base, sync, denominator, name)


def direct_step_program(step, src, dst, inst, n_steps: int, platform, collective, sync: str, *, denominator: int,
                        name: str) -> Program | None:
    """:func:`step_program` of transfers given as columns (host indices of ``platform``), or None.

    Parameters
    ----------
    step, src, dst, inst : arrays of int
        Per transfer (sorted by step): its step ``0 .. n_steps - 1``, sender, receiver and instance.
    n_steps : int
        The number of steps, none empty.
    platform, collective, sync, denominator, name
        As for :func:`step_program`.

    Returns
    -------
    Program or None
        None unless the collective is an all-to-all or all-to-many that has every transfer's message.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = cs.plan(p, c, algorithm="caterpillar")
    >>> fast = direct_step_program([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], [0] * 6, 2, p, c,
    ...                            "ready", denominator=1, name="caterpillar")
    >>> fast == s.lower(p, c, sync="ready")
    True
    """
    base = collective.base
    if base.kind not in DIRECT_KINDS:
        return None
    arrays = _sized(*(np.asarray(a, dtype=np.int64) for a in (step, src, dst, inst)), platform, base, denominator)
    if arrays is None:
        return None
    return _step_columns(*arrays, n_steps, platform, base, sync, denominator, name)


def _step_columns(step, src, dst, inst, size, start, end, n_steps: int, platform, base, sync: str,
                  denominator: int, name: str) -> Program:
    n = len(platform.hosts)
    cols = _Columns()
    if sync == "post_all":
        _in_order(cols, src, dst, size)
    else:
        bounds = np.searchsorted(step, np.arange(n_steps + 1))
        done = _Done(n)
        for k in range(n_steps):
            if sync == "barrier" and k > 0:
                _barrier(cols, done, n)
            lo, hi = bounds[k], bounds[k + 1]
            _step(cols, done, src[lo:hi], dst[lo:hi], size[lo:hi], sync)
    return cols.program(platform.hosts, denominator, name, _rows(src, _value_dst(base, dst), inst, start, end))


def _step(cols: _Columns, done: _Done, s, d, z, sync: str) -> None:
    """One step's transfers under ``barrier`` or ``ready``; updates ``done`` (a rank without any keeps its own)."""
    m = len(s)
    base = cols.n
    j = np.arange(m, dtype=np.int64)
    src_count, src_deps = done.gather(s)
    dst_count, dst_deps = done.gather(d)
    if sync == "ready":
        # per transfer: ready signal dst -> src (send on dst, recv on src), then the message src -> dst
        ready_recv = base + 4 * j + 1
        count, deps = _ragged_interleave([dst_count, src_count, np.ones(m, np.int64), dst_count],
                                         [dst_deps, src_deps, ready_recv, dst_deps])
        signal, message = cols.messages + 2 * j, cols.messages + 2 * j + 1
        zero = np.zeros(m)
        cols.add(_interleave(d, s, s, d), np.tile([SEND, RECV, SEND, RECV], m), _interleave(s, d, d, s),
                 _interleave(signal, signal, message, message), _interleave(zero, zero, z, z), count, deps,
                 np.tile([False, False, True, False], m))
        cols.messages += 2 * m
        now_rank = np.concatenate([d, s, d])
        now_ops = np.concatenate([base + 4 * j, base + 4 * j + 2, base + 4 * j + 3])
    else:
        count, deps = _ragged_interleave([src_count, dst_count], [src_deps, dst_deps])
        msg = cols.messages + j
        cols.add(_interleave(s, d), np.tile([SEND, RECV], m), _interleave(d, s), _interleave(msg, msg),
                 _interleave(z, z), count, deps, np.tile([True, False], m))
        cols.messages += m
        now_rank = np.concatenate([s, d])
        now_ops = np.concatenate([base + 2 * j, base + 2 * j + 1])
    done.set(now_rank, now_ops, keep_idle=True)


def order_program(sequences, platform, collective, *, name: str) -> Program | None:
    """The program :meth:`OrderSchedule.lower` builds, column-wise, or None when this shape does not apply.

    Parameters
    ----------
    sequences : sequence of sequences of Transfer
        Per sender, its transfers in order (tiled to the collective's count).
    platform : Platform
    collective : Collective
    name : str
        The program's name (the algorithm).

    Returns
    -------
    Program or None
        Equal to what the :class:`~collsched.schedules.program.ProgramBuilder`
        lowering builds; None unless every transfer is a whole direct
        message of an all-to-all or all-to-many between two distinct hosts.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules import OrderSchedule
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=["h0", "h1"], size=10)
    >>> s = OrderSchedule(orders={"h0": ["h1"], "h1": ["h0"]})
    >>> order_program([s.transfers("h0"), s.transfers("h1")], p, c, name="") == s.lower(p, c)
    True
    """
    arrays = _direct(sequences, platform, collective, 1, parts=False)
    return None if arrays is None else _ordered(arrays, platform, collective.base, name)


def direct_order_program(src, dst, inst, platform, collective, *, name: str) -> Program | None:
    """:func:`order_program` of transfers given as columns (host indices of ``platform``), or None.

    Parameters
    ----------
    src, dst, inst : arrays of int
        Per transfer, sender by sender and each sender's in order: sender, receiver and instance.
    platform, collective, name
        As for :func:`order_program`.

    Returns
    -------
    Program or None
        None unless the collective is an all-to-all or all-to-many that has every transfer's message.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules import OrderSchedule
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=["h0", "h1"], size=10)
    >>> s = OrderSchedule(orders={"h0": ["h1"], "h1": ["h0"]})
    >>> direct_order_program([0, 1], [1, 0], [0, 0], p, c, name="") == s.lower(p, c)
    True
    """
    base = collective.base
    if base.kind not in DIRECT_KINDS:
        return None
    src, dst, inst = (np.asarray(a, dtype=np.int64) for a in (src, dst, inst))
    arrays = _sized(np.zeros(src.shape[0], np.int64), src, dst, inst, platform, base, 1)
    return None if arrays is None else _ordered(arrays, platform, collective.base, name)


def _ordered(arrays, platform, base, name: str) -> Program:
    """The program of :func:`_sized`'s ``arrays``: each send waits for its sender's previous send (:func:`_in_order`)."""
    _, src, dst, inst, size, start, end = arrays
    cols = _Columns()
    _in_order(cols, src, dst, size)
    return cols.program(platform.hosts, 1, name, _rows(src, _value_dst(base, dst), inst, start, end))
