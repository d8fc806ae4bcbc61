"""Messages a Program sends together between two GPUs, merged into one multi-chunk message.

A forest lowered in unit messages sends one message per tree and arc: on
``dgx2(2)``, a 4 kB all-gather's 207 trees send up to tens of messages
from one GPU to another at the same moment, each of which would need its
own channel (a thread block at each end) to run at once: 983 thread blocks
on a GPU, four times what the runtime runs. :func:`merge_concurrent` merges
the messages that the Program sends *together*: from the same GPU to the
same GPU, whose sends wait for equivalent operations and whose receives
wait for equivalent operations, where two operations are equivalent when
they are of the same kind, on the same rank (and peer), and wait for
equivalent operations (a receive also for an equivalent send): the classes
are computed in one topological pass, so the relays of a tree that receive
pieces of several trees in one merged message forward them in one merged
message too. A merged message carries its members' pieces in order (at
most ``limit`` chunks; a group with more is cut into several messages), its
send waits for what any member's send waited for, its receive for what any
member's receive waited for, and what waited for a member waits for the
merged operation.

What it costs: under ``Fluid`` the members of a group start together on
one route and share it, so the last of them ends when the merged message
does; a member that would have ended sooner (a smaller piece) now ends
with the others, and what waits for it waits that much longer.
``docs/msccl.md`` gives the measured figures. Merged operations wait for
equivalent operations only, which end at the same moment when
computations cost nothing, and a class never waits, directly or not, for
an equivalent operation (its chain of waits is one longer), so merging
makes no cycle (the topological sort below would raise if it did).

Examples
--------
>>> from collsched.schedules.program import ProgramBuilder
>>> from collsched.schedules.values import Piece, block
>>> b = ProgramBuilder(["h0", "h1"], denominator=4)
>>> for k in range(4):   # four pieces of h0's block sent at once
...     _ = b.send("h0", "h1", [Piece(block(0, 0, -1), k, k + 1)], size=1.0, after=(), recv_after=())
>>> p = b.build()
>>> merged = merge_concurrent(p, unit=1, scale=1)
>>> p.n_messages, merged.n_messages, [str(x) for x in merged.op(0).pieces]
(4, 1, ['m[0→*]@0[0:1]', 'm[0→*]@0[1:2]', 'm[0→*]@0[2:3]', 'm[0→*]@0[3:4]'])
>>> merge_concurrent(p, unit=1, scale=1, limit=3).n_messages   # at most 3 chunks a message
2
"""

from __future__ import annotations

import heapq

import numpy as np

from ...errors import CollschedError
from ...schedules.program import RECV, SEND, program_of_columns
from .lint import MAX_COUNT

__all__ = ["merge_concurrent"]


def _classes(program, send_of) -> list[int]:
    """Per op, its equivalence class (an int), computed in a topological order of the waits and send → receive."""
    n_ops = program.n_ops
    kind = program.op_kind.tolist()
    rank = program.op_rank.tolist()
    peer = program.op_peer.tolist()
    msg = program.op_msg.tolist()
    idx, ptr = program.dep_idx.tolist(), program.dep_ptr.tolist()
    deps = [idx[ptr[i]:ptr[i + 1]] for i in range(n_ops)]
    waits = [list(deps[i]) for i in range(n_ops)]
    for i in range(n_ops):
        if kind[i] == RECV and send_of[msg[i]] >= 0:
            waits[i].append(int(send_of[msg[i]]))
    users: list[list[int]] = [[] for _ in range(n_ops)]
    missing = [len(w) for w in waits]
    for i, ws in enumerate(waits):
        for w in ws:
            users[w].append(i)
    ready = [i for i in range(n_ops) if missing[i] == 0]
    intern: dict[tuple, int] = {}
    cls = [-1] * n_ops
    while ready:
        i = ready.pop()
        key: tuple = (kind[i], rank[i], peer[i] if kind[i] in (SEND, RECV) else -1,
                      frozenset(cls[d] for d in deps[i]))
        if kind[i] == RECV and send_of[msg[i]] >= 0:
            key += (cls[int(send_of[msg[i]])],)
        cls[i] = intern.setdefault(key, len(intern))
        for u in users[i]:
            missing[u] -= 1
            if missing[u] == 0:
                ready.append(u)
    if min(cls, default=0) < 0:   # pragma: no cover - a valid Program is acyclic
        raise CollschedError("the program's dependencies have a cycle", fix="validate the program first")
    return cls


def merge_concurrent(program, *, unit: int, scale: int, limit: int = MAX_COUNT):
    """``program`` with the messages it sends together between two GPUs merged (module docstring).

    Parameters
    ----------
    program : Program
        Message ids ``0 .. M-1`` (:meth:`~collsched.schedules.program.Program.renumbered`).
    unit, scale : int
        The chunk grid (:func:`~collsched.interop.msccl.split.chunk_grid`): a
        piece of ``u · unit`` is ``u · scale`` chunks.
    limit : int
        Chunks a merged message may hold (a message that already holds more stays alone).

    Returns
    -------
    Program
        ``program`` itself when nothing merges; else a copy, its operations
        in a topological order, message ids ``0 .. M'-1``.

    Raises
    ------
    CollschedError
        The program's waits have a cycle.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=8)
    >>> p = cs.plan(g, c, algorithm="direct").lower(g, c)   # one message per pair: nothing to merge
    >>> merge_concurrent(p, unit=1, scale=1) is p
    True
    """
    n_ops = program.n_ops
    send_of, recv_of = program.message_ops()
    cls = _classes(program, send_of)
    ptr = program.piece_ptr.tolist()
    units = (program.pieces[:, 5] - program.pieces[:, 4]) // unit
    total = [0] + np.cumsum(units).tolist()   # units of the pieces before each row
    # step 1: the groups (same receive class, so same send class and ends), cut at `limit` chunks, in message order
    groups: dict[int, list[list[int]]] = {}
    load: dict[int, int] = {}
    for m in range(len(send_of)):
        s, r = int(send_of[m]), int(recv_of[m])
        if s < 0 or r < 0:
            continue
        chunks = (total[ptr[s + 1]] - total[ptr[s]]) * scale
        bins = groups.setdefault(cls[r], [])
        if not bins or load[id(bins[-1])] + chunks > limit:
            bins.append([])
            load[id(bins[-1])] = 0
        bins[-1].append(m)
        load[id(bins[-1])] += chunks
    head = {}   # op -> the op that stands for it (a merged message's first send, first receive)
    members: dict[int, list[int]] = {}
    for bins in groups.values():
        for b in bins:
            for ops in (send_of, recv_of):
                lead = int(ops[b[0]])
                members[lead] = [int(ops[m]) for m in b]
                for m in b:
                    head[int(ops[m])] = lead
    if all(len(v) == 1 for v in members.values()):
        return program
    # step 2: the kept ops, with their waits mapped to the ops standing for them, in a topological order
    kept = [i for i in range(n_ops) if head.get(i, i) == i]
    deps_of = {}
    idx, dptr = program.dep_idx.tolist(), program.dep_ptr.tolist()
    for i in kept:
        out: set[int] = set()
        for j in members.get(i, [i]):
            out.update(head.get(d, d) for d in idx[dptr[j]:dptr[j + 1]])
        deps_of[i] = sorted(out)
    users: dict[int, list[int]] = {}
    missing = {i: len(deps_of[i]) for i in kept}
    for i in kept:
        for d in deps_of[i]:
            users.setdefault(d, []).append(i)
    ready = [i for i in kept if missing[i] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users.get(i, ()):
            missing[u] -= 1
            if missing[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != len(kept):   # pragma: no cover - equivalent ops never wait for each other (module docstring)
        raise CollschedError("merging the program's concurrent messages made a cycle", fix="report this program")
    new = {i: k for k, i in enumerate(order)}
    rows = [tuple(r) for r in program.pieces.tolist()]
    ptr = program.piece_ptr.tolist()
    cols: tuple[list, ...] = ([], [], [], [], [], [], [])
    rank, kind, peer, msgs, size, deps, pieces = cols
    for i in order:
        group = members.get(i, [i])
        rank.append(int(program.op_rank[i]))
        kind.append(int(program.op_kind[i]))
        peer.append(int(program.op_peer[i]))
        msgs.append(int(program.op_msg[i]))
        size.append(float(np.sum(program.op_size[group])))
        deps.append(tuple(new[d] for d in deps_of[i]))
        pieces.append([row for j in group for row in rows[ptr[j]:ptr[j + 1]]])
    merged = program_of_columns(program.ranks, program.denominator, program.name, *cols, program.operand_sets)
    return merged.renumbered()
