"""Data races between the thread blocks of one GPU: two accesses to a chunk that no chain of waits orders.

The runtime runs a GPU's thread blocks concurrently; within one, steps run
in order. A step waits for the previous step of its thread block, for the
step its ``depid``/``deps`` name and, if it receives, for the send it pairs
with (:mod:`~collsched.interop.msccl.deadlock`). Step ``a`` *happens
before* step ``b`` when a chain of such waits leads from ``b`` back to
``a`` (through other GPUs too). Two steps of different thread blocks of a
GPU **race** when both touch one chunk (after in-place aliasing), at least
one writes it, and neither happens before the other: the result then
depends on timing, whatever order the symbolic run happened to take.

What each step touches (``cnt`` chunks from the offsets): ``s`` and
``rrs`` read ``srcbuf``; ``r`` and ``rcs`` write ``dstbuf``; ``rrc``,
``rrcs`` and ``cpy`` read ``srcbuf`` and write ``dstbuf``; ``re`` reads
``srcbuf`` and reads and writes ``dstbuf``; ``nop`` and ``cnt="0"`` steps
touch nothing. Two reads never race.

Examples
--------
>>> acc = [[(0, "w")], [(0, "r")], [(0, "r")]]
>>> first_race(acc, tb=[0, 1, 1], waits=[[], [0], []], gpu=[0, 0, 0])
(0, 2, 0)
>>> first_race(acc, tb=[0, 1, 1], waits=[[], [0], [1]], gpu=[0, 0, 0]) is None
True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["accesses", "first_race"]

_READ_SRC = frozenset({"s", "rrs", "rrc", "rrcs", "cpy", "re"})
_WRITE_DST = frozenset({"r", "rcs", "rrc", "rrcs", "cpy", "re"})


def accesses(step, slot) -> list[tuple[object, str]]:
    """The chunks a step reads (``"r"``) and writes (``"w"``), as storage slots.

    Parameters
    ----------
    step : Step
    slot : callable
        ``slot(buf, off)``: the storage a buffer offset names on the step's GPU.

    Returns
    -------
    list of (slot, "r" or "w")

    Examples
    --------
    >>> from collsched.interop.msccl.xml_read import Step
    >>> st = Step(0, 0, 0, "re", "s", 0, "o", 2, 1, -1, -1, 9)
    >>> accesses(st, lambda b, o: (b, o))
    [(('s', 0), 'r'), (('o', 2), 'r'), (('o', 2), 'w')]
    """
    if step.cnt == 0 or step.type == "nop":
        return []
    out = []
    if step.type in _READ_SRC:
        out += [(slot(step.srcbuf, step.srcoff + x), "r") for x in range(step.cnt)]
    if step.type == "re":
        out += [(slot(step.dstbuf, step.dstoff + x), "r") for x in range(step.cnt)]
    if step.type in _WRITE_DST:
        out += [(slot(step.dstbuf, step.dstoff + x), "w") for x in range(step.cnt)]
    return out


def first_race(access: Sequence, tb: Sequence[int], waits: Sequence[Sequence[int]], gpu: Sequence[int],
               order: Sequence[int] | None = None):
    """The first race: ``(a, b, slot)`` for steps ``a < b`` of one GPU, or None.

    Parameters
    ----------
    access : sequence of lists
        ``access[i]``: the ``(slot, "r"|"w")`` of step ``i`` (:func:`accesses`).
    tb, gpu : sequences of int
        Thread block and GPU of each step.
    waits : sequence of sequences of int
        What each step waits for (an acyclic graph).
    order : sequence of int, optional
        The steps in an order where every step comes after what it waits for
        (default: ``0, 1, ...``, which must be one).

    Returns
    -------
    tuple or None

    Examples
    --------
    Two blocks write chunk ``"x"``; the second waits for the first only in the second call:

    >>> first_race([[("x", "w")], [("x", "w")]], tb=[0, 1], waits=[[], []], gpu=[0, 0])
    (0, 1, 'x')
    >>> first_race([[("x", "w")], [("x", "w")]], tb=[0, 1], waits=[[], [0]], gpu=[0, 0]) is None
    True

    Notes
    -----
    First whether there is a race at all (:func:`_any_race`, vector clocks:
    ``O(S · T)`` for ``S`` steps and ``T`` thread blocks, the clocks of
    steps still waited for kept); only if there is one, the first is found
    with happens-before as the transitive closure of ``waits``, one bit set
    per step (``O(S²/64)`` words), each pair of accesses to a chunk from
    two thread blocks, at least one a write, tested.
    """
    if _any_race(access, tb, waits, gpu, order) is False:
        return None
    return _first_race_exact(access, tb, waits, gpu, order)


def _first_race_exact(access, tb, waits, gpu, order=None):
    """:func:`first_race` by bit sets of happens-before (quadratic; the reference :func:`_any_race` is tested against).

    Examples
    --------
    >>> _first_race_exact([[("x", "w")], [("x", "w")]], tb=[0, 1], waits=[[], []], gpu=[0, 0])
    (0, 1, 'x')
    """
    n = len(access)
    before = [0] * n
    for i in (range(n) if order is None else order):
        mask = 0
        for w in waits[i]:
            mask |= before[w] | (1 << w)
        before[i] = mask
    touched: dict[tuple[int, object], list[tuple[int, bool]]] = {}
    for i in range(n):
        for s, mode in access[i]:
            touched.setdefault((gpu[i], s), []).append((i, mode == "w"))
    found = None
    for (g, s), users in touched.items():
        writers = [i for i, w in users if w]
        if not writers:
            continue
        for w in writers:
            for i, _ in users:
                if i == w or tb[i] == tb[w] or (before[i] >> w) & 1 or (before[w] >> i) & 1:
                    continue
                pair = (min(i, w), max(i, w), s)
                if found is None or pair[:2] < found[:2]:
                    found = pair
    return found


def _any_race(access, tb, waits, gpu, order=None):
    """Whether some two steps race (``True``/``False``), by vector clocks; ``None`` when they do not apply.

    They apply when every step waits for the previous step of its thread
    block (by index), as the runtime's blocks do: then step ``j`` happens
    before step ``i`` iff ``i``'s clock, the last step of each block that
    happens before it, reaches ``j`` in ``j``'s block. Per chunk, the last
    write and the last access of each block are kept: a step races with
    some earlier access of another block iff it races with that block's
    last one (the earlier ones happen before it).

    Examples
    --------
    >>> acc = [[(0, "w")], [(0, "r")], [(0, "r")]]
    >>> _any_race(acc, tb=[0, 1, 1], waits=[[], [0], [1]], gpu=[0, 0, 0])
    False
    >>> _any_race(acc, tb=[0, 1, 2], waits=[[], [0], []], gpu=[0, 0, 0])
    True
    >>> _any_race(acc, tb=[0, 1, 1], waits=[[], [0], []], gpu=[0, 0, 0]) is None   # block 1 is no chain
    True
    """
    n = len(access)
    lanes: dict[tuple[int, int], int] = {}
    last: dict[tuple[int, int], int] = {}
    lane, seq = [0] * n, [0] * n
    for i in range(n):
        key = (gpu[i], tb[i])
        if key in last:
            if last[key] not in waits[i]:
                return None
            seq[i] = seq[last[key]] + 1
        lane[i] = lanes.setdefault(key, len(lanes))
        last[key] = i
    uses = [0] * n
    for ws in waits:
        for w in ws:
            uses[w] += 1
    clock: dict[int, np.ndarray] = {}
    seen: dict[tuple[int, object], dict[int, list[int]]] = {}   # (gpu, chunk) -> block -> [last write, last access]
    for i in (range(n) if order is None else order):
        c = np.full(len(lanes), -1, dtype=np.int64)
        for w in waits[i]:
            np.maximum(c, clock[w], out=c)
            uses[w] -= 1
            if uses[w] == 0:
                del clock[w]
        c[lane[i]] = seq[i]
        for slot, mode in access[i]:
            per = seen.setdefault((gpu[i], slot), {})
            for t, (wrote, touched) in per.items():
                other = touched if mode == "w" else wrote
                if t != lane[i] and other >= 0 and c[t] < other:
                    return True
            rec = per.setdefault(lane[i], [-1, -1])
            if mode == "w":
                rec[0] = seq[i]
            rec[1] = seq[i]
        if uses[i]:
            clock[i] = c
    return False
