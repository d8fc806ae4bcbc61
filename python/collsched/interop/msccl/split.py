"""The chunk grid of an exported Program, and its messages cut to what one MSCCL step moves.

An MSCCL step moves at most :data:`~collsched.interop.msccl.lint.MAX_COUNT`
chunks. A Program's message may carry more: a forest lowered in rounds
(:class:`~collsched.schedules.ForestSchedule` ``messages="round"``) sends one
message per pair of ranks and round with every tree's piece in it (on
``dgx2(2)``, a 16 MB all-reduce: 82 chunks in a message).
:func:`split_messages` cuts each such message into ``k`` consecutive
messages of at most that many chunks (as equal as the chunk grid allows,
in the order of the message's pieces): part ``j + 1``'s send waits for part
``j``'s send, its receive for part ``j``'s receive; what waited for the
message waits for its last part. The exporter writes the parts as
consecutive steps: :func:`~collsched.interop.msccl.threadblocks.place`
puts a part on the channel of the part before it when that channel is
free (then both are steps of the same thread blocks, paired in order),
else on another channel, where it pairs after the part before it all the
same, since it waits for it (on ``dgx2(2)``, 16 MB all-reduce: 7 of the 7
parts after a first on its channel with 1 chunk, 317 of 473 with 4). The
file reads back into the cut Program.

The cut costs time in collsched's models: a part starts when the part
before it has arrived, so every part but the first pays the route latency
again (``Fluid``: a message waits its latency, then flows). ``docs/msccl.md``
gives the figures.

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules.program import ProgramBuilder
>>> from collsched.schedules.values import Piece, block
>>> b = ProgramBuilder(["h0", "h1"], denominator=100)
>>> _ = b.send("h0", "h1", [Piece(block(0, 0, -1), 0, 100)], size=100.0)
>>> cut = split_messages(b.build(), unit=1, scale=1, limit=40)
>>> [(str(op.kind), op.size, [str(p) for p in op.pieces], op.after) for op in cut]   # doctest: +NORMALIZE_WHITESPACE
[('send', 34.0, ['m[0→*]@0[0:34]'], ()), ('send', 33.0, ['m[0→*]@0[34:67]'], (0,)),
 ('send', 33.0, ['m[0→*]@0[67:100]'], (1,)), ('recv', 34.0, [], ()), ('recv', 33.0, [], (3,)),
 ('recv', 33.0, [], (4,))]
"""

from __future__ import annotations

import math

import numpy as np

from ...errors import CollschedError
from ...schedules.program import RECV, SEND, program_of_columns
from .layout import ROOTED
from .lint import MAX_COUNT

__all__ = ["chunk_grid", "chunks_per_loop", "split_messages"]


def chunk_grid(program, kind: str, n: int) -> tuple[int, int, int]:
    """``(unit, scale, nchunks)``: the coarsest chunks that cut every piece where ``program`` cuts it.

    A piece ``[start, end)`` (in ``1/denominator``) is ``(end - start) / unit
    · scale`` chunks: ``unit`` is the gcd of the denominator and every bound,
    ``d = denominator / unit`` pieces per value; ``nchunksperloop`` is
    ``N · d`` for an allgather or alltoall, ``d`` for a broadcast or reduce,
    ``d`` scaled by ``scale`` to a multiple of ``N`` for a reducescatter or
    allreduce (``scale`` is 1 for the others).

    Parameters
    ----------
    program : Program
    kind : str
        The collective's kind.
    n : int
        GPUs.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllReduce(participants=g.hosts, size=8)
    >>> chunk_grid(cs.plan(g, c, algorithm="ring").lower(g, c), "allreduce", 3)
    (1, 1, 3)
    """
    unit = math.gcd(program.denominator, *(int(x) for x in np.unique(program.pieces[:, 4:6])))
    return (unit,) + chunks_per_loop(kind, n, program.denominator // unit)


def chunks_per_loop(kind: str, n: int, d: int) -> tuple[int, int]:
    """``(scale, nchunksperloop)`` of a collective ``kind`` on ``n`` GPUs whose values are cut into ``d`` pieces
    (:func:`chunk_grid`).

    Examples
    --------
    >>> chunks_per_loop("alltoall", 8, 64), chunks_per_loop("reduce", 8, 64), chunks_per_loop("allreduce", 3, 4)
    ((1, 512), (1, 64), (3, 12))
    """
    if kind in ("allgather", "alltoall"):
        return 1, n * d
    if kind in ROOTED:
        return 1, d
    scale = n // math.gcd(d, n)
    return scale, d * scale


def _cut(rows: np.ndarray, unit: int, sizes: list[int]) -> list[list[tuple[int, ...]]]:
    """The piece rows of each part, the ``j``-th part holding the next ``sizes[j]`` units, in row order."""
    parts: list[list[tuple[int, ...]]] = [[] for _ in sizes]
    j, room = 0, sizes[0]
    for row in rows:
        head, start, end = tuple(int(x) for x in row[:4]), int(row[4]), int(row[5])
        while start < end:
            take = min(room, (end - start) // unit)
            parts[j].append((*head, start, start + take * unit))
            start += take * unit
            room -= take
            if room == 0 and j + 1 < len(sizes):
                j, room = j + 1, sizes[j + 1]
    return parts


def split_messages(program, *, unit: int, scale: int, limit: int = MAX_COUNT):
    """``program`` with every message of more than ``limit`` chunks cut into consecutive parts (module docstring).

    Parameters
    ----------
    program : Program
        Message ids ``0 .. M-1`` (:meth:`~collsched.schedules.program.Program.renumbered`).
    unit, scale : int
        The chunk grid (:func:`chunk_grid`): a piece of ``u · unit`` is ``u · scale`` chunks.
    limit : int
        Chunks a part may hold.

    Returns
    -------
    Program
        ``program`` itself when no message is cut; else a copy with message
        ids ``0 .. M'-1`` (a message's parts numbered in order).

    Raises
    ------
    CollschedError
        ``scale > limit``: one unit of the grid is already more than a step moves.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(2)
    >>> c = cs.AllGather(participants=g.hosts, size=8)
    >>> p = cs.plan(g, c, algorithm="ring").lower(g, c)
    >>> split_messages(p, unit=1, scale=1) is p
    True
    """
    if scale > limit:
        raise CollschedError(f"one piece of the program is {scale} chunks, an MSCCL step moves at most {limit}",
                             fix="export a schedule whose pieces are coarser")
    per = limit // scale
    units = (program.pieces[:, 5] - program.pieces[:, 4]) // unit
    send_of, recv_of = program.message_ops()
    ptr = program.piece_ptr
    total = [int(units[ptr[s]:ptr[s + 1]].sum()) if s >= 0 else 0 for s in send_of]
    parts = [max(1, -(-u // per)) for u in total]
    if max(parts, default=1) == 1:
        return program
    base = np.concatenate(([0], np.cumsum(parts)))
    n_ops = program.n_ops
    kinds = program.op_kind
    msg = program.op_msg
    # step 1: the new ids of every op (a cut send or receive becomes its parts, in order)
    count = np.ones(n_ops, dtype=np.int64)
    talks = (kinds == SEND) | (kinds == RECV)
    count[talks] = np.asarray(parts, dtype=np.int64)[msg[talks]]
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    last = first + count - 1
    # step 2: the columns
    cols: tuple[list, ...] = ([], [], [], [], [], [], [])
    rank, kind, peer, msgs, size, deps, pieces = cols
    for i in range(n_ops):
        old = [int(last[d]) for d in program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]]
        k = int(count[i])
        rows = program.pieces[ptr[i]:ptr[i + 1]]
        if k == 1:
            parts_rows = [[tuple(int(x) for x in r) for r in rows]]
            sizes = [float(program.op_size[i])]
        else:
            m = int(msg[i])
            u = total[m]
            share = [u // k + (j < u % k) for j in range(k)]
            parts_rows = _cut(program.pieces[ptr[send_of[m]]:ptr[send_of[m] + 1]], unit, share) \
                if kinds[i] == SEND else [[] for _ in range(k)]
            sizes = [float(program.op_size[i]) * q / u for q in share]
        for j in range(k):
            rank.append(int(program.op_rank[i]))
            kind.append(int(kinds[i]))
            peer.append(int(program.op_peer[i]))
            msgs.append(int(base[msg[i]]) + j if talks[i] else int(msg[i]))
            size.append(sizes[j])
            deps.append(tuple(old) if j == 0 else (int(first[i]) + j - 1,))
            pieces.append(parts_rows[j])
    return program_of_columns(program.ranks, program.denominator, program.name, *cols, program.operand_sets)
