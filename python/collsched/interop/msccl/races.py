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
    Happens-before is the transitive closure of ``waits``, kept as one bit set
    per step: ``O(S²/64)`` words for ``S`` steps, then each pair of accesses
    to a chunk from two thread blocks, at least one a write, is tested.
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
