"""Step schedules of direct messages lowered with barriers or ready signals, every step at once.

What :meth:`StepSchedule.lower <collsched.schedules.StepSchedule.lower>`
builds with ``sync="barrier"`` or ``"ready"`` (the
:class:`~collsched.schedules.program.ProgramBuilder` loop over steps), as
numpy columns computed for all steps together: the same operations in the
same order, with the same dependencies (``tests/test_columns.py`` compares
the programs with the builder's for every all-to-all algorithm).

The builder's loop keeps, per rank, ``done``: its operations of the last
step it took part in (``now[r] or done[r]``). A transfer of step ``k``
waits for ``done`` of its ranks as it was before step ``k``:

* **barrier**: after the barrier between steps ``k - 1`` and ``k``, every
  rank's ``done`` is its two operations of the barrier's last round; the
  barrier's first round waits for each rank's ``done`` after step ``k - 1``:
  its operations of that step, or if it had none, of the barrier before
  (nothing before the first);
* **ready**: ``done`` is the rank's operations of the last earlier step it
  took part in (nothing if none), found for every (rank, step) at once.

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules.columns import step_program
>>> p = cs.topologies.star(4)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> s = cs.plan(p, c, algorithm="caterpillar")
>>> all(step_program(s.steps, p, c, sync, denominator=1, name="caterpillar") == s.lower(p, c, sync=sync)
...     for sync in ("barrier", "ready"))
True
"""

from __future__ import annotations

import functools

import numpy as np

from .program import RECV, SEND

__all__ = ["synced_steps"]


def _interleave(*arrays: np.ndarray) -> np.ndarray:
    """``a0[0], a1[0], ..., a0[1], a1[1], ...``."""
    k = len(arrays)
    if any(np.ndim(a) != 1 for a in arrays):
        return np.stack(arrays, axis=1).reshape(-1)
    out = np.empty(k * len(arrays[0]), dtype=np.result_type(*arrays))
    for i, a in enumerate(arrays):
        out[i::k] = a
    return out


@functools.lru_cache(maxsize=8)
def barrier_rounds(n: int) -> tuple:
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


def _gather(ptr: np.ndarray, idx: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``rows`` of the CSR ``(ptr, idx)``: the length of each, and their entries concatenated."""
    start = ptr[rows]
    count = ptr[rows + 1] - start
    total = int(count.sum())
    if total == 0:
        return count, np.zeros(0, np.int64)
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    return count, idx[np.repeat(start, count) + offsets]


def _csr(keys: np.ndarray, values: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """Values grouped by key, each group in increasing order of value."""
    order = np.lexsort((values, keys))
    ptr = np.zeros(n_keys + 1, np.int64)
    np.cumsum(np.bincount(keys, minlength=n_keys), out=ptr[1:])
    return ptr, values[order]


def _placed(n_ops: int, blocks: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """Dependency lists in op order, from blocks ``(op ids, count per op, entries)`` in any op order."""
    op = np.concatenate([b[0] for b in blocks])
    count = np.concatenate([b[1] for b in blocks])
    flat = np.concatenate([b[2] for b in blocks])
    per_op = np.zeros(n_ops, np.int64)
    per_op[op] = count
    ptr = np.zeros(n_ops + 1, np.int64)
    np.cumsum(per_op, out=ptr[1:])
    within = np.arange(flat.shape[0], dtype=np.int64) - np.repeat(np.cumsum(count) - count, count)
    out = np.empty(flat.shape[0], np.int64)
    out[np.repeat(ptr[op], count) + within] = flat
    return per_op, out


def synced_steps(step: np.ndarray, src: np.ndarray, dst: np.ndarray, size: np.ndarray, n_steps: int, n: int,
                 sync: str) -> tuple:
    """The columns of the program of transfers in steps under ``sync`` (``"barrier"`` or ``"ready"``).

    Parameters
    ----------
    step, src, dst : int64 arrays
        Per transfer, sorted by step: its step ``0 .. n_steps - 1`` (a step
        may have none), sender and receiver (rank indices, distinct).
    size : float64 array
        Per transfer, its bytes.
    n_steps, n : int
        Steps and ranks.
    sync : {"barrier", "ready"}

    Returns
    -------
    (rank, kind, peer, msg, size, dep_count, dep_idx, data) or None
        Per op in program order; ``data`` marks the sends that carry a
        transfer (in transfer order).

    Examples
    --------
    Two ranks, one transfer ``0 -> 1`` per step: the ready signal ``1 ->
    0`` (ops 0, 1), then the message (ops 2, 3, the send after op 1). In
    step 1 rank 1's signal and receive wait for its ops of step 0 (0 and
    3), rank 0's receive of the signal for its send of step 0 (op 2).

    >>> cols = synced_steps(np.array([0, 1]), np.array([0, 0]), np.array([1, 1]), np.array([5.0, 5.0]), 2, 2,
    ...                     "ready")
    >>> cols[0].tolist(), cols[5].tolist(), cols[6].tolist()
    ([1, 0, 0, 1, 1, 0, 0, 1], [0, 0, 1, 0, 2, 1, 1, 2], [1, 0, 3, 2, 5, 0, 3])
    """
    m = src.shape[0]
    first = np.searchsorted(step, np.arange(n_steps + 1))   # each step's first transfer
    j = np.arange(m, dtype=np.int64) - first[step]           # position within its step
    if sync == "ready":
        return _ready(step, src, dst, size, n_steps, n, first, j)
    rank_b, kind_b, peer_b, msg_b, count_b, deps_b, last, rounds = barrier_rounds(n)
    if rounds == 0:  # one rank: no transfer between two ranks, no barrier
        empty = np.zeros(0, np.int64)
        return empty, empty, empty, empty, np.zeros(0), empty, empty, np.zeros(0, bool)
    nb, mb = 2 * n * rounds, n * rounds   # ops and messages of a barrier
    k_all = np.arange(n_steps, dtype=np.int64)
    s_base = 2 * first[:-1] + k_all * nb                     # first op of each step
    send = s_base[step] + 2 * j
    msg = first[step] + k_all[step] * mb + j                 # barrier k's messages come before step k's
    n_ops = 2 * m + max(n_steps - 1, 0) * nb
    op = _interleave(send, send + 1)
    rank = np.empty(n_ops, np.int64)
    kind, peer, msgs = np.empty_like(rank), np.empty_like(rank), np.empty_like(rank)
    sizes, data = np.zeros(n_ops), np.zeros(n_ops, bool)
    rank[op], kind[op], peer[op] = _interleave(src, dst), np.tile([SEND, RECV], m), _interleave(dst, src)
    msgs[op], sizes[op], data[send] = _interleave(msg, msg), _interleave(size, size), True
    # a step's ops, grouped by (step, rank): each rank's `now` of that step
    now_ptr, now_idx = _csr(_interleave(step * n + src, step * n + dst), op, n_steps * n)
    # transfers of steps k >= 1 wait for their ranks' two ops of the last round of barrier k
    later = step > 0
    b_base = s_base - nb                                      # first op of barrier k (k >= 1)
    two = np.full(int(later.sum()), 2, np.int64)
    blocks = [(send[later], two, (b_base[step[later], None] + last[src[later]]).reshape(-1)),
              (send[later] + 1, two, (b_base[step[later], None] + last[dst[later]]).reshape(-1))]
    if n_steps > 1:
        barriers = k_all[1:]
        ops_b = (b_base[barriers, None] + np.arange(nb)).reshape(-1)
        at = np.repeat(barriers, nb)
        rank[ops_b], kind[ops_b], peer[ops_b] = np.tile(rank_b, n_steps - 1), np.tile(kind_b, n_steps - 1), \
            np.tile(peer_b, n_steps - 1)
        msgs[ops_b] = np.tile(msg_b, n_steps - 1) + first[at] + (at - 1) * mb
        # round 0 of barrier k: op 2i on rank i and op 2i + 1 on rank i + 1 wait for that rank's `done` after
        # step k - 1: its ops of that step, else the last round of the barrier before (none before step 1)
        ranks = np.arange(n, dtype=np.int64)
        who = _interleave(ranks, (ranks + 1) % n)
        prev = np.repeat(barriers - 1, 2 * n)
        whose = np.tile(who, n_steps - 1)
        count, deps = _gather(now_ptr, now_idx, prev * n + whose)
        idle = (count == 0) & (prev > 0)
        fallback = (b_base[prev[idle], None] + last[whose[idle]]).reshape(-1)
        round0 = (b_base[barriers, None] + np.arange(2 * n)).reshape(-1)
        blocks += [(round0[count > 0], count[count > 0], deps), (round0[idle], np.full(int(idle.sum()), 2, np.int64),
                                                                fallback)]
        rest = (b_base[barriers, None] + np.arange(2 * n, nb)).reshape(-1)
        blocks.append((rest, np.tile(count_b, n_steps - 1),
                       (b_base[barriers, None] + deps_b).reshape(-1)))
    dep_count, dep_idx = _placed(n_ops, blocks)
    return rank, kind, peer, msgs, sizes, dep_count, dep_idx, data


def _ready(step, src, dst, size, n_steps: int, n: int, first, j) -> tuple:
    """:func:`synced_steps` with ready signals: per transfer, the signal dst -> src, then the message src -> dst."""
    m = src.shape[0]
    base = 4 * (first[step] + j)                              # no op between steps: transfer t's ops are 4t .. 4t+3
    rank = _interleave(dst, src, src, dst)
    peer = _interleave(src, dst, dst, src)
    signal = 2 * (first[step] + j)
    msgs = _interleave(signal, signal, signal + 1, signal + 1)
    zero = np.zeros(m)
    sizes = _interleave(zero, zero, size, size)
    data = np.tile([False, False, True, False], m)
    # `now` of (step, rank): the receiver's signal and receive, the sender's send
    now_ptr, now_idx = _csr(np.concatenate([step * n + dst, step * n + src, step * n + dst]),
                            np.concatenate([base, base + 2, base + 3]), n_steps * n)
    # `done` before step k: `now` of the last earlier step the rank took part in
    active = np.unique(np.concatenate([src * n_steps + step, dst * n_steps + step]))   # by rank, then step
    blocks = [(base + 2, np.ones(m, np.int64), base + 1)]    # the message waits for its ready signal
    for who, ops in ((dst, (base, base + 3)), (src, (base + 1,))):
        at = np.searchsorted(active, who * n_steps + step)
        before = np.where(at > 0, active[np.maximum(at - 1, 0)], -1)
        has = (at > 0) & (before // n_steps == who)
        count = np.zeros(m, np.int64)
        count_has, deps = _gather(now_ptr, now_idx, (before[has] % n_steps) * n + who[has])
        count[has] = count_has
        for op in ops:
            blocks.append((op, count, deps))
    dep_count, dep_idx = _placed(4 * m, blocks)
    return rank, np.tile([SEND, RECV, SEND, RECV], m), peer, msgs, sizes, dep_count, dep_idx, data

