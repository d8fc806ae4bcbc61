"""How a Program's operations are packed into MSCCL thread blocks, within the runtime's limits.

A thread block runs its steps in order, has at most one send peer and one
receive peer, and the runtime pairs the messages between two GPUs on a
channel in order. :func:`place` packs operations as follows.

1. **What is exported.** Messages that carry no data (a Program's signals)
   and computations with no data are dropped: the runtime has no message
   without data (a ``cnt="0"`` step moves nothing and waits for no peer,
   :mod:`~collsched.interop.msccl.program`), and what waited for a dropped
   operation waits for what it waited for, on the same GPU.
2. **One global order** ``O`` of the exported operations: a topological
   order of their dependencies and of "a receive after its send", taking
   first, among the ready operations, the one that ends first when the
   Program is simulated under ``Fluid`` on the platform (then the lowest
   id). Every thread block runs its operations in ``O``; since every wait
   then points backwards in ``O``, the file cannot deadlock.
3. **Channels.** The messages from GPU ``a`` to GPU ``b`` are sorted by
   their send's place in ``O``. A message may join a channel whose last
   message's receive comes before its own in ``O`` (so both ends see the
   channel's messages in one order) and that stays within
   :data:`LANE_MESSAGES` (a message counted as its steps, estimated: 1, plus
   one ``cpy`` per piece when it carries several, which may have to be
   gathered or scattered); it joins the lowest such channel that is *free*
   (in the simulation, its last send ended before this message's send
   starts, and its last receive ended before this message's data arrives:
   a receive that is posted later still ends when its data arrives, the
   models' receives being eager), preferring a channel whose last send or
   receive the message waits for anyway, else opens a channel, else (at
   :data:`~collsched.interop.msccl.lint.MAX_CHANNELS`) joins the one
   that frees first. To keep at most
   :data:`~collsched.interop.msccl.lint.MAX_TBS_PER_CHANNEL` send (and
   receive) thread blocks per channel, a GPU's peers are split in groups of
   that many by ``(b - a) mod N`` and each group gets its own channels.
4. **Thread blocks.** One per (send peer, channel) and per (receive peer,
   channel); a computation goes to the thread block of the message it
   waits for last in ``O`` while that block has fewer than
   :data:`STEP_BUDGET` steps, else to a block for local work that is free
   (its last computation ended before this one starts), else a new one.
5. **Dependencies.** A step names another thread block's step only when
   no chain of waits on its GPU (earlier steps of its own block, its other
   dependencies) already orders them; each extra name is a ``nop``.
6. **Serialised, when that does not fit.** When steps 3 and 4 need more
   than :data:`~collsched.interop.msccl.lint.MAX_CHANNELS` channels between
   two GPUs or more than :data:`~collsched.interop.msccl.lint.MAX_TBS`
   thread blocks on a GPU, they run again with fewer channels and longer
   ones: the blocks of a GPU, less a quarter kept for local work, are
   shared equally by the directions it talks in (to a peer, from a peer),
   a pair of GPUs gets the smaller share of its two ends, and a channel
   takes :data:`SERIAL_LANE_STEPS` steps. A message that finds no free
   channel joins the one that frees first, so it waits in its thread block
   for the messages before it there: they are serialised, in ``O``, so
   still without deadlock.

The packing adds waits (a step waits for the previous step of its block).
Taking ``O`` from the simulated end times makes them waits for operations
that end earlier anyway, so the simulated time usually stays the Program's;
the tests and ``docs/msccl.md`` say where it does and by how much it moves
where it does not.

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.star(3)
>>> c = cs.AllGather(participants=g.hosts, size=8)
>>> p = cs.plan(g, c, algorithm="direct").lower(g, c)
>>> pl = place(p, g, c, {0: 0, 1: 1, 2: 2})
>>> sorted({pl.tb[i] for i in pl.order if pl.gpu[i] == 0})   # gpu 0: send to 1, to 2; receive from 1, from 2
[(-1, 1, 0), (-1, 2, 0), (1, -1, 0), (2, -1, 0)]
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from ...errors import CollschedError
from ...schedules.program import COMPUTE, RECV, SEND, program_of_columns
from .lint import MAX_CHANNELS, MAX_STEPS, MAX_TBS, MAX_TBS_PER_CHANNEL, LimitError

__all__ = ["Placement", "place", "drop_signals", "in_blocks", "LANE_MESSAGES"]

LANE_MESSAGES = MAX_STEPS // 4
"""Messages per channel between two GPUs at most, a message of several pieces counted as ``1 +`` its pieces (a
thread block's steps are its messages, their ``cpy`` steps, the computations it takes and the ``nop`` steps of
their dependencies)."""
SERIAL_LANE_STEPS = MAX_STEPS * 3 // 4
"""Steps per channel between two GPUs when the messages are serialised (step 6 of the module docstring)."""
STEP_BUDGET = MAX_STEPS * 3 // 4
"""The steps a thread block takes computations up to (estimated; :func:`~collsched.interop.msccl.export.to_xml`
checks the exact count against :data:`~collsched.interop.msccl.lint.MAX_STEPS`)."""


@dataclass(frozen=True)
class Placement:
    """Where each exported operation goes.

    Attributes
    ----------
    order : list of int
        The exported operations (program op ids), in the order ``O``.
    gpu : dict
        Op → GPU.
    tb : dict
        Op → thread block key ``(send peer, recv peer, channel)`` (``(-1, -1, k)``: local work).
    channel : dict
        Message id → channel.
    cross : dict
        Op → the operations of other thread blocks (same GPU) it must name as dependencies.
    serial : bool
        The messages serialised on fewer channels (step 6 of the module docstring).

    Examples
    --------
    >>> Placement([], {}, {}, {}, {}).order
    []
    """

    order: list
    gpu: dict
    tb: dict
    channel: dict
    cross: dict
    serial: bool = False


def _deps(program, i: int) -> list[int]:
    return [int(d) for d in program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]]


def _all_deps(program) -> list[list[int]]:
    """Per op, the ops it waits for (:func:`_deps` of every op, from two lists instead of an array slice each)."""
    idx, ptr = program.dep_idx.tolist(), program.dep_ptr.tolist()
    return [idx[ptr[i]:ptr[i + 1]] for i in range(program.n_ops)]


def _trace(program, platform, collective):
    from ...simulation import models, simulate

    return simulate(platform, program, collective, model=models.Fluid()).trace


def drop_signals(program):
    """The Program without its messages that carry no data and its computations with no data (step 1).

    What waited for a dropped operation waits for what it waited for (the
    same GPU's operations). The result is the Program an exported file
    reads back into, up to the order the packing adds.

    Parameters
    ----------
    program : Program

    Returns
    -------
    Program

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.dgx_a100(1)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> p = cs.plan(g, c, algorithm="ring").lower(g, c)
    >>> p.n_ops, drop_signals(p).n_ops
    (400, 112)
    """
    n_ops = program.n_ops
    kind = [int(k) for k in program.op_kind]
    empty = [program.piece_ptr[i] == program.piece_ptr[i + 1] for i in range(n_ops)]
    send_of, recv_of = program.message_ops()
    dropped = [kind[i] == COMPUTE and empty[i] for i in range(n_ops)]
    for m in range(len(send_of)):
        s, r = int(send_of[m]), int(recv_of[m])
        if s >= 0 and empty[s]:
            dropped[s] = True
            if r >= 0:
                dropped[r] = True
    if not any(dropped):
        return program
    eff: list[list[int]] = []
    new = {}
    cols = ([], [], [], [], [], [], [])
    for i in range(n_ops):
        out: set[int] = set()
        for d in _deps(program, i):
            out.update(eff[d] if dropped[d] else (new[d],))
        eff.append(sorted(out))
        if dropped[i]:
            continue
        new[i] = len(cols[0])
        rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
        for col, x in zip(cols, (int(program.op_rank[i]), kind[i], int(program.op_peer[i]), int(program.op_msg[i]),
                                 float(program.op_size[i]), tuple(eff[i]), [tuple(int(v) for v in r) for r in rows])):
            col.append(x)
    return program_of_columns(program.ranks, program.denominator, program.name, *cols, program.operand_sets)


def place(program, platform, collective, rank_of: dict, *, serial: bool | None = None) -> Placement:
    """Pack a Program's operations into thread blocks (see the module docstring).

    Parameters
    ----------
    program : Program
        Without signals (:func:`drop_signals`), message ids ``0 .. M-1``
        (:meth:`~collsched.schedules.program.Program.renumbered`).
    platform : Platform
    collective : Collective
        For the simulation that orders the operations.
    rank_of : dict
        Program rank index → GPU number.
    serial : bool, optional
        False: only the packing of steps 3 and 4; True: only step 6; None
        (default): step 6 when steps 3 and 4 do not fit.

    Returns
    -------
    Placement

    Raises
    ------
    LimitError
        Even serialised (step 6; not serialised, with ``serial=False``), a GPU would need more than
        :data:`~collsched.interop.msccl.lint.MAX_TBS` thread blocks, or two
        GPUs more channels than their share.

    Examples
    --------
    A ring allgather: each GPU sends to one peer and receives from another, one channel.

    >>> import collsched as cs
    >>> g = cs.topologies.dgx_a100(1)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> p = drop_signals(cs.plan(g, c, algorithm="ring").lower(g, c)).renumbered()
    >>> pl = place(p, g, c, {k: k for k in range(8)})
    >>> sorted({pl.tb[i] for i in pl.order if pl.gpu[i] == 0}), max(pl.channel.values())
    ([(-1, 7, 0), (1, -1, 0)], 0)
    """
    trace = _trace(program, platform, collective)
    if serial is not None:
        return _place(program, trace, rank_of, serial=serial)
    try:
        return _place(program, trace, rank_of, serial=False)
    except LimitError:   # step 6: the messages serialised on fewer channels
        return _place(program, trace, rank_of, serial=True)


def _place(program, trace, rank_of: dict, *, serial: bool) -> Placement:
    """:func:`place` with the trace of the Program under ``Fluid``; ``serial``: step 6 of the module docstring."""
    n_ops = program.n_ops
    kind = program.op_kind.tolist()
    eff = _all_deps(program)
    send_of, recv_of = program.message_ops()
    pair = {int(recv_of[m]): int(send_of[m]) for m in range(len(send_of)) if send_of[m] >= 0 and recv_of[m] >= 0}
    # step 2: the global order O
    start, end = trace.start, trace.end
    waits = {i: eff[i] + ([pair[i]] if i in pair else []) for i in range(n_ops)}
    missing = {i: len(w) for i, w in waits.items()}
    users: dict[int, list[int]] = {}
    for i, ws in waits.items():
        for w in ws:
            users.setdefault(w, []).append(i)
    ready = [(float(end[i]), i) for i, k in missing.items() if k == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(i)
        for u in users.get(i, ()):
            missing[u] -= 1
            if missing[u] == 0:
                heapq.heappush(ready, (float(end[u]), u))
    if len(order) != n_ops:   # pragma: no cover - a valid Program is acyclic
        raise CollschedError("the program's dependencies have a cycle", fix="validate the program first")
    pos = {i: k for k, i in enumerate(order)}
    gpu = {i: rank_of[int(program.op_rank[i])] for i in order}
    # step 3: channels (lanes of a pair of GPUs; a lane is free once its last message has ended)
    n = max(rank_of.values()) + 1
    groups = -(-(n - 1) // MAX_TBS_PER_CHANNEL) if n > 1 else 1
    most = MAX_CHANNELS // groups
    budget = SERIAL_LANE_STEPS if serial else LANE_MESSAGES
    if serial:   # a GPU's blocks for messages: MAX_TBS less those for local work, shared by its peers' directions
        ends: dict[int, set] = {}
        for r, s in pair.items():
            ends.setdefault(gpu[s], set()).add((gpu[r], 0))
            ends.setdefault(gpu[r], set()).add((gpu[s], 1))
        share = {g: max(1, (MAX_TBS - MAX_TBS // 4) // len(e)) for g, e in ends.items()}

    def cap(a: int, b: int) -> int:
        return min(most, share[a], share[b]) if serial else most
    lanes: dict[tuple[int, int], list[list]] = {}   # (a, b) -> per lane [last recv pos, send end, recv end, count,
    #                                                    last send, last recv]
    channel: dict[int, int] = {}
    rows = np.diff(program.piece_ptr).tolist()
    steps = {r: 1 + (rows[s] if rows[s] > 1 else 0) for r, s in pair.items()}   # a message's steps, estimated
    for r, s in sorted(pair.items(), key=lambda x: pos[x[1]]):
        a, b = gpu[s], gpu[r]
        mine = lanes.setdefault((a, b), [])
        fits = [c for c, lane in enumerate(mine) if lane[0] < pos[r] and lane[3] + steps[r] <= budget]
        free = [c for c in fits if mine[c][1] <= start[s] and mine[c][2] <= end[r]]
        if free:   # the free lane of a message it waits for, if any: that wait then needs no nop
            mine_deps = set(eff[s]) | set(eff[r])
            c = next((c for c in free if mine[c][4] in mine_deps or mine[c][5] in mine_deps), free[0])
        elif len(mine) < cap(a, b):
            c = len(mine)
            mine.append([-1, 0.0, 0.0, 0, -1, -1])
        elif fits:
            c = min(fits, key=lambda c: (mine[c][2], c))
        else:
            raise LimitError(f"gpu {a} sends to gpu {b} in an order that needs more than {cap(a, b)} channels",
                                 fix="export a schedule with fewer messages between two GPUs")
        mine[c] = [pos[r], max(mine[c][1], float(end[s])), max(mine[c][2], float(end[r])), mine[c][3] + steps[r], s, r]
        channel[int(program.op_msg[s])] = c * groups + ((b - a) % n - 1) // MAX_TBS_PER_CHANNEL
    # step 4: thread blocks (a block's steps estimated: a message or a combined input 1, a dependency 1)
    tb: dict[int, tuple[int, int, int]] = {}
    load: dict[tuple[int, tuple], int] = {}
    local: dict[int, list[list]] = {}   # gpu -> per local block [end of its last op, steps]
    for i in order:
        g = gpu[i]
        cost = max(0, len(eff[i]) - 1) + (steps[i if kind[i] == RECV else int(recv_of[int(program.op_msg[i])])]
                                          if kind[i] != COMPUTE else max(1, rows[i] - 1))
        if kind[i] == SEND or kind[i] == RECV:
            peer = rank_of[int(program.op_peer[i])]
            c = channel[int(program.op_msg[i])]
            tb[i] = (peer, -1, c) if kind[i] == SEND else (-1, peer, c)
        else:
            last = max(eff[i], key=lambda d: pos[d], default=None)
            if last is not None and tb[last][:2] != (-1, -1) and load[(g, tb[last])] + cost <= STEP_BUDGET:
                tb[i] = tb[last]
            else:   # a block for local work: one that is free (no new wait), else a new one, else the first free
                blocks = local.setdefault(g, [])
                fits = [k for k, b in enumerate(blocks) if b[1] + cost <= STEP_BUDGET]
                free = [k for k in fits if blocks[k][0] <= start[i]]
                k = free[0] if free else (len(blocks) if len(blocks) < MAX_TBS // 4 or not fits
                                          else min(fits, key=lambda k: blocks[k][0]))
                if k == len(blocks):
                    blocks.append([0.0, 0])
                blocks[k][0] = max(blocks[k][0], float(end[i]))
                blocks[k][1] += cost
                tb[i] = (-1, -1, k)
        load[(g, tb[i])] = load.get((g, tb[i]), 0) + cost
    per_gpu: dict[int, set] = {}
    for i in order:
        per_gpu.setdefault(gpu[i], set()).add(tb[i])
    worst = max(per_gpu.items(), key=lambda x: len(x[1]), default=(0, set()))
    if len(worst[1]) > MAX_TBS:
        raise LimitError(f"gpu {worst[0]} would need {len(worst[1])} thread blocks, the runtime runs at most "
                             f"{MAX_TBS}", fix="export a schedule with fewer concurrent messages")
    # step 5: the dependencies no chain of waits implies. A block runs its steps in order, so what op i waits
    # for, directly or not, is a vector clock: per block of its GPU, the last step of that block it follows
    # (itself included); d precedes i iff clock[i][block of d] >= d's place in its block
    blocks: dict[tuple[int, tuple], int] = {}   # (gpu, block) -> its index among the gpu's blocks
    width: dict[int, int] = {}
    for i in order:
        if (gpu[i], tb[i]) not in blocks:
            blocks[(gpu[i], tb[i])] = width.get(gpu[i], 0)
            width[gpu[i]] = blocks[(gpu[i], tb[i])] + 1
    seq: dict[int, int] = {}
    clock: dict[int, np.ndarray] = {}
    prev: dict[tuple[int, tuple], int] = {}
    cross: dict[int, list[int]] = {}
    for i in order:
        g = gpu[i]
        key = (g, tb[i])
        q = prev.get(key)
        implied = clock[q] if q is not None else np.full(width[g], -1, dtype=np.int64)
        others = [d for d in eff[i] if tb[d] != tb[i]]
        keep = []
        for d in others:
            b = blocks[(g, tb[d])]
            if implied[b] >= seq[d] or any(e != d and clock[e][b] >= seq[d] for e in others):
                continue
            keep.append(d)
        cross[i] = sorted(keep, key=lambda d: pos[d])
        mine = implied.copy()
        for d in eff[i]:   # the same GPU's waits only: a receive's send is not a dependency of the Program
            np.maximum(mine, clock[d], out=mine)
        seq[i] = 0 if q is None else seq[q] + 1
        mine[blocks[key]] = seq[i]
        clock[i] = mine
        prev[key] = i
    return Placement(order, gpu, tb, channel, cross, serial)


def in_blocks(program, placed: Placement):
    """The Program a file runs: ``program`` with each operation also waiting for the one before it in its thread block.

    A thread block runs its steps in order, so the packing adds these waits
    (the module docstring, last paragraph); with them the Program takes
    under ``Fluid`` the time of the file read back, exactly (whose ``cpy``
    and ``nop`` steps cost nothing; ``tests/interop/test_msccl_roundtrip.py``
    asserts it for every algorithm and fabric). The operations come in the order ``O``
    of ``placed`` (a topological order); message ids are kept.

    Parameters
    ----------
    program : Program
        The Program ``placed`` packs.
    placed : Placement
        :func:`place` of ``program``.

    Returns
    -------
    Program
        ``program`` itself when every such wait is already one of its dependencies and ``O`` is its own order.

    Examples
    --------
    Two messages from GPU 0 to GPU 1 that share a channel: the second send waits for the first.

    >>> import collsched as cs
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Piece, block
    >>> g = cs.topologies.star(2)
    >>> c = cs.AllGather(participants=g.hosts, size=8)
    >>> b = ProgramBuilder(g.hosts, denominator=2)
    >>> first = b.send("h0", "h1", [Piece(block(0, 0, -1), 0, 1)], size=4.0, after=(), recv_after=())
    >>> _ = b.send("h0", "h1", [Piece(block(0, 0, -1), 1, 2)], size=4.0, after=[first[0]], recv_after=[first[1]])
    >>> p = b.build()
    >>> in_blocks(p, place(p, g, c, {0: 0, 1: 1})) is p   # already in order: nothing to add
    True
    """
    prev: dict[tuple[int, tuple], int] = {}
    waits = {i: _deps(program, i) for i in placed.order}
    changed = placed.order != sorted(placed.order)
    for i in placed.order:
        key = (placed.gpu[i], placed.tb[i])
        if key in prev and prev[key] not in waits[i]:
            waits[i].append(prev[key])
            changed = True
        prev[key] = i
    if not changed:
        return program
    new = {i: k for k, i in enumerate(placed.order)}
    cols: tuple[list, ...] = ([], [], [], [], [], [], [])
    for i in placed.order:
        rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
        for col, x in zip(cols, (int(program.op_rank[i]), int(program.op_kind[i]), int(program.op_peer[i]),
                                 int(program.op_msg[i]), float(program.op_size[i]),
                                 tuple(sorted(new[d] for d in waits[i])),
                                 [tuple(int(v) for v in r) for r in rows])):
            col.append(x)
    return program_of_columns(program.ranks, program.denominator, program.name, *cols, program.operand_sets)
