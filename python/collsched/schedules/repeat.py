"""Long programs made from a short one by repeating its period, column-wise.

A lowering that runs the same operations again and again, each time on the
next item (an instance of a series through a tree; a round of a forest's
pipeline, one item further on), makes a program whose middle is periodic:
period ``k`` is period ``k - 1`` with its operation ids shifted by ``P``
(the operations of a period), its message ids by ``M`` and the items its
pieces name by ``I``. :func:`repeated` takes the program
:class:`~collsched.schedules.program.ProgramBuilder` builds for a few items
and inserts as many more periods as wanted with numpy, then shifts the
operations after them: the program the builder would build for the longer
run, without a Python call per operation.

It checks the periodicity it relies on: each of the ``back`` periods before
the template must be the template shifted back by whole periods (the same
ranks, kinds, peers, sizes and piece rows, messages ``M`` and items ``I``
earlier per period), and no operation from the template on may wait for
one before those periods (so every copy waits for the operations of the
copies before it that the template waits for in the periods before it),
but for a tail anchored to fixed operations and a linked periodic run
(``anchored_tail``, ``linked``: a reduction's results formed after the
last instance, each waiting for its own instance);
otherwise it returns None and the caller builds the program through the
builder. That the template waits for what the builder would make a later
period wait for is the lowering's own regularity, which the tests check
program for program.

A piece row names its item through its instance (``inst``) and, for items
that are chunks of an instance, its place in the value: item ``i`` is chunk
``i mod C`` of instance ``i div C``, and a row of chunk ``c`` starts ``c`` steps
of its own length into the value (:func:`shifted_rows`).

Examples
--------
Three instances of a two-message relay, lowered through the builder; the
program of ten is the first three with seven more periods:

>>> from collsched.schedules.program import ProgramBuilder
>>> from collsched.schedules.values import block
>>> def relay(count):
...     b = ProgramBuilder(["a", "b", "c"])
...     starts = []
...     for t in range(count):
...         starts.append(b.n_ops)
...         b.send("a", "b", [block(t, 0, 2)], size=8)
...         b.send("b", "c", [block(t, 0, 2)], size=8)
...     return b.build(), starts
>>> small, starts = relay(3)
>>> big = repeated(small, starts[2], small.n_ops - starts[2], 7, items=1)
>>> big == relay(10)[0], big.n_ops
(True, 40)
"""

from __future__ import annotations

import numpy as np

from .program import SEND, Program, _frozen

__all__ = ["repeated", "shifted_rows"]


def shifted_rows(rows: np.ndarray, item: np.ndarray, step: np.ndarray | int, chunks: int,
                 delta: np.ndarray | int) -> np.ndarray:
    """Piece rows moved ``delta`` items on: new instance, and start/end moved to the new chunk.

    Parameters
    ----------
    rows : ndarray, shape (n, 6)
        Piece rows ``(kind, inst, a, b, start, end)``.
    item : ndarray of int, shape (n,)
        Each row's item: ``inst * chunks + chunk``.
    step : int or ndarray of int
        Per row, how far a chunk's piece starts from the previous chunk's (0: items are whole instances).
    chunks : int
        Items per instance.
    delta : int or ndarray of int
        Per row (or for all), how many items on.

    Returns
    -------
    ndarray, shape (n, 6)
        A new array.

    Examples
    --------
    >>> rows = np.array([[0, 0, 1, -1, 2, 3], [0, 1, 1, -1, 6, 7]])
    >>> shifted_rows(rows, np.array([2, 4]), 2, 4, 3).tolist()
    [[0, 1, 1, -1, 0, 1], [0, 1, 1, -1, 12, 13]]
    """
    moved = item + delta
    out = np.array(rows, dtype=np.int64, copy=True)
    out[:, 1] = moved // chunks
    if chunks > 1:
        shift = (moved % chunks - item % chunks) * step
        out[:, 4] += shift
        out[:, 5] += shift
    return out


def _ranged(ptr: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
    """``(counts per op, flat positions)`` of the CSR rows ``lo .. hi - 1``."""
    return np.diff(ptr[lo:hi + 1]), np.arange(ptr[lo], ptr[hi], dtype=np.int64)


def repeated(prog: Program, head: int, period: int, copies: int, *, items: int, row_item: np.ndarray | None = None,
             row_step: np.ndarray | int = 0, chunks: int = 1, back: int = 1, anchored_tail: bool = False,
             linked: tuple[int, int, int] | None = None) -> Program | None:
    """``prog`` with ``copies`` more periods after its template period ``head .. head + period - 1``.

    Parameters
    ----------
    prog : Program
        A program whose operations ``head - back * period .. head + period - 1``
        are ``back + 1`` periods of a periodic run (module docstring).
    head : int
        The template period's first operation.
    period : int
        Operations per period, ``P``.
    copies : int
        Periods to insert after the template, >= 0.
    items : int
        Items a period moves the pieces on, ``I``.
    row_item : ndarray of int, optional
        Per piece row of ``prog``, its item; by default its instance (items are instances).
    row_step : int or ndarray of int
        Per piece row, its chunk step (:func:`shifted_rows`); 0 when items are instances.
    chunks : int
        Items per instance.
    back : int
        Periods before the template that its operations (and those after it) may wait for, >= 1.
    anchored_tail : bool
        The operations after the template wait for fixed operations before
        the copies (a reduction's results formed after the last instance:
        the result of instance ``t`` waits for instance ``t``'s operations),
        not for the last periods; their dependencies there stay, those
        among themselves move with them, and their pieces keep their items.
        By default (a pipeline's drain) every dependency of the tail moves
        with it, and its pieces move on as many items as the copies add.
    linked : (int, int, int), optional
        ``(lo, hi, period)``: operations ``lo .. hi - 1`` are another
        periodic run (``period`` operations per item) that the template may
        wait for; copy ``c`` waits for the operations ``c`` of those
        periods on (the results of instance ``t + c`` wait for its own
        operations).

    Returns
    -------
    Program or None
        The longer program; None when ``prog`` is not periodic there (the
        caller builds through the builder).

    Notes
    -----
    O(operations + pieces + dependencies) numpy work, whatever the period.

    Examples
    --------
    See the module docstring; a template that is not a period gives None:

    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import block
    >>> b = ProgramBuilder(["a", "b"])
    >>> _ = b.send("a", "b", [block(0, 0, 1)], size=8)
    >>> _ = b.send("b", "a", [block(1, 1, 0)], size=8)
    >>> repeated(b.build(), 2, 2, 3, items=1) is None
    True
    """
    n, P = prog.n_ops, period
    if copies < 0 or P <= 0 or back < 1 or head < back * P or head + P > n:
        return None
    cur = slice(head, head + P)
    talks = prog.op_msg[cur] >= 0
    M = int(np.count_nonzero(prog.op_kind[cur] == SEND))
    item = prog.pieces[:, 1] if row_item is None else np.asarray(row_item, dtype=np.int64)
    step = np.broadcast_to(np.asarray(row_step, dtype=np.int64), (prog.pieces.shape[0],))
    dep_count, dep_at = _ranged(prog.dep_ptr, head, head + P)
    piece_count, piece_at = _ranged(prog.piece_ptr, head, head + P)
    for j in range(1, back + 1):  # period j before the template: the template j periods back
        prev = slice(head - j * P, head - (j - 1) * P)
        if not all(np.array_equal(a[cur], a[prev]) for a in (prog.op_rank, prog.op_kind, prog.op_peer, prog.op_size)):
            return None
        if not np.array_equal(np.where(talks, prog.op_msg[cur] - j * M, -1), prog.op_msg[prev]):
            return None
        prev_pcount, prev_pat = _ranged(prog.piece_ptr, prev.start, prev.stop)
        if not np.array_equal(piece_count, prev_pcount) or not np.array_equal(step[piece_at], step[prev_pat]) or \
                not np.array_equal(shifted_rows(prog.pieces[prev_pat], item[prev_pat], step[prev_pat], chunks,
                                                j * items), prog.pieces[piece_at]):
            return None
    end = head + P
    template_deps = prog.dep_idx[prog.dep_ptr[head]:prog.dep_ptr[end]]
    far = template_deps < head - back * P
    if linked is not None:
        far_linked = far & (template_deps >= linked[0]) & (template_deps < linked[1])
        far &= ~far_linked
    if far.any() or (not anchored_tail and (prog.dep_idx[prog.dep_ptr[end]:] < head - back * P).any()):
        return None  # something waits for an operation before the checked periods
    if copies == 0:
        return prog
    k = np.arange(1, copies + 1, dtype=np.int64)
    # every column: the operations up to the template's end, the copies (the template broadcast, plus a shift per
    # copy), the tail; written once into its final array
    rank, kind, peer, size = (_spliced(a[:end], a[cur], copies, a[end:]) for a in
                              (prog.op_rank, prog.op_kind, prog.op_peer, prog.op_size))
    tail_msg = prog.op_msg[end:]
    msg = _spliced(prog.op_msg[:end], prog.op_msg[cur], copies, np.where(tail_msg >= 0, tail_msg + copies * M, -1),
                   np.outer(k * M, talks))
    # dependencies: the template's, shifted by P per copy; the tail's, by all the copies
    deps = prog.dep_idx
    step_of = np.full(template_deps.shape[0], P, np.int64)  # how far a copy's dependency moves per copy
    if linked is not None:
        step_of[far_linked] = linked[2]
    tail_deps = deps[prog.dep_ptr[end]:]
    dep_idx = _spliced(deps[:prog.dep_ptr[end]], template_deps, copies,
                       tail_deps + copies * P * ((tail_deps >= end) if anchored_tail else 1), np.outer(k, step_of))
    dep_ptr = _pointer(prog.dep_ptr, head, end, copies)
    # pieces: the template's moved on by I items per copy; the tail's by all the copies
    rows, first_tail = prog.pieces, int(prog.piece_ptr[end])
    tail = rows[first_tail:] if anchored_tail else \
        shifted_rows(rows[first_tail:], item[first_tail:], step[first_tail:], chunks, copies * items)
    pieces = _spliced(rows[:first_tail], rows[piece_at], copies, tail)
    if copies and len(piece_at):
        block = pieces[first_tail:first_tail + copies * len(piece_at)].reshape(copies, len(piece_at), 6)
        at = item[piece_at]
        moved = at + (k * items)[:, None]
        block[:, :, 1] = moved // chunks
        if chunks > 1:
            shift = (moved % chunks - at % chunks) * step[piece_at]
            block[:, :, 4] += shift
            block[:, :, 5] += shift
    piece_ptr = _pointer(prog.piece_ptr, head, end, copies)
    return Program(ranks=prog.ranks, denominator=prog.denominator, op_rank=_frozen(rank), op_kind=_frozen(kind),
                   op_peer=_frozen(peer), op_msg=_frozen(msg), op_size=_frozen(size), dep_ptr=_frozen(dep_ptr),
                   dep_idx=_frozen(dep_idx), piece_ptr=_frozen(piece_ptr), pieces=_frozen(pieces),
                   name=prog.name, operand_sets=prog.operand_sets)


def _spliced(head: np.ndarray, template: np.ndarray, copies: int, tail: np.ndarray,
             shift: np.ndarray | None = None) -> np.ndarray:
    """``head``, ``copies`` copies of ``template`` (copy ``c`` plus ``shift[c]``, broadcast), ``tail``: one new array."""
    n, m = len(head), copies * len(template)
    out = np.empty((n + m + len(tail),) + template.shape[1:], dtype=template.dtype)
    out[:n] = head
    block = out[n:n + m].reshape((copies,) + template.shape)
    block[...] = template
    if shift is not None:
        block += shift
    out[n + m:] = tail
    return out


def _pointer(ptr: np.ndarray, head: int, end: int, copies: int) -> np.ndarray:
    """The CSR pointer of a column after :func:`_spliced` (rows per operation unchanged)."""
    counts = np.diff(ptr)
    out = np.empty(len(ptr) + copies * (end - head), np.int64)
    out[0] = 0
    np.cumsum(_spliced(counts[:end], counts[head:end], copies, counts[end:]), out=out[1:])
    return out
