"""Column-wise lowering of periodic schedules: the program of :meth:`PeriodicSchedule.lower`, built with numpy.

:meth:`PeriodicSchedule.lower <collsched.schedules.periodic.PeriodicSchedule.lower>`
repeats one period's pattern for every period of a series, so its program
is the pattern's transfers and tasks tiled over the periods (and the
initialisation and clean-up slots), minus those whose instances fall
outside the series. This module reads the pattern once (a few Python
operations per transfer of one period) and builds every column of the
program with array operations: the same operations in the same order, with
the same message ids, sizes, pieces and dependencies as the
:class:`~collsched.schedules.program.ProgramBuilder` lowering
(:func:`~collsched.schedules.periodic.lower_with_builder`, which the tests
compare it with).

The dependencies are those of the builder's lowering, computed as joins:

* **resources**: each send waits for the previous send of its rank
  (``ports="one"``) or of its link direction (``ports="multi"``); each
  receive for the previous receive of its rank (``ports="one"`` only); each
  computation for the previous computation of its rank;
* **data**: a send or a computation waits for every earlier operation of
  its rank that made an overlapping fragment of a value it reads (a receive
  of a message carrying it, or a computation whose output it is).

Examples
--------
The relay of :mod:`collsched.schedules.periodic`, for 5 operations:

>>> from fractions import Fraction
>>> import collsched as cs
>>> from collsched.schedules.periodic import PeriodicSchedule, PeriodicTransfer, Slot, lower_with_builder
>>> from collsched.schedules.values import block
>>> hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)
>>> hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
>>> s = PeriodicSchedule(throughput=1000, period=Fraction(1, 1000), slots=[Slot(Fraction(1, 1000), [hop1, hop2])])
>>> p = cs.topologies.star(3)
>>> prog = periodic_program(s, s.ranks(p), 5)
>>> prog == lower_with_builder(s, p, 5), prog.n_ops
(True, 20)
"""

from __future__ import annotations

import math
from itertools import chain
from operator import attrgetter

import numpy as np

from .program import COMPUTE, RECV, SEND, Program, _collector_paused, _frozen
from .values import REDUCED, as_piece

__all__ = ["periodic_program"]


class _Pattern:
    """The slots' transfers and tasks as arrays (template items), pieces in CSR, values numbered.

    The transfers, tasks and pieces are read in Rust (``_core.pattern_columns``: one pass, no Python object made per
    item); values are numbered in order of first appearance by one integer sort. Where a reduction's mask does not
    fit an int64 (more than 63 operands), they are read in Python (:meth:`_read_python`), the masks numbered.
    """

    def __init__(self, slots, index: dict, denominator: int):
        from .. import _core

        trs = list(chain.from_iterable(map(attrgetter("transfers"), slots)))
        tks = list(chain.from_iterable(map(attrgetter("tasks"), slots)))
        slot_ids = np.arange(len(slots), dtype=np.int64)
        self.tr_slot = np.repeat(slot_ids, _lengths(map(attrgetter("transfers"), slots), len(slots)))
        self.tk_slot = np.repeat(slot_ids, _lengths(map(attrgetter("tasks"), slots), len(slots)))
        sizes = list(map(attrgetter("size"), trs))
        self.floats = all(type(z) is float for z in sizes)  # else ports="multi" leaves the sums to the builder
        self.tr_size = np.fromiter(sizes, np.float64, len(sizes))  # float(z) of each (Fractions, ints included)
        self._big_masks: list[int] = []
        reader = getattr(_core, "pattern_columns", None)  # None: an extension built before it (rebuild it)
        try:  # the pieces: every transfer's, then every task's (inputs, then output)
            if reader is None:
                raise OverflowError
            self.tr_src, self.tr_dst, self.tr_count, self.tk_node, self.tk_count, self.tk_cost, rows = \
                reader(trs, tks, index, denominator)
            kind, inst, a, b, start, end = rows.reshape(-1, 6).T
        except OverflowError:  # masks of more than 63 operands (or no reader): read in Python
            kind, inst, a, b, start, end = self._read_python(trs, tks, index, denominator)
        self.tr_first = np.cumsum(self.tr_count) - self.tr_count
        self.tk_first = int(self.tr_count.sum()) + np.cumsum(self.tk_count) - self.tk_count
        self.p_slot = np.concatenate([np.repeat(self.tr_slot, self.tr_count), np.repeat(self.tk_slot, self.tk_count)])
        self.p_rel, self.p_start, self.p_end = (np.ascontiguousarray(x) for x in (inst, start, end))  # not views of rows
        # value ids by first appearance (in Rust; with an extension built before it, by one integer sort)
        numbering = getattr(_core, "number_values", None)
        if numbering is not None:
            self.p_vid, at = numbering(*(np.ascontiguousarray(x) for x in (kind, a, b)))
        else:
            first, inverse = _first_of_each(kind, a, b)
            by_first = np.argsort(first, kind="stable")
            rank = np.empty(len(first), np.int64)
            rank[by_first] = np.arange(len(first), dtype=np.int64)
            self.p_vid = rank[inverse]
            at = first[by_first]
        self.v_kind, self.v_b, v_a = kind[at], b[at], a[at]
        # a reduction's mask may not fit an int64: the program's table of operand sets holds it
        reduced = self.v_kind == REDUCED
        big = self._big_masks
        self.masks = [(big[x] if big else x) if r else None for r, x in zip(reduced.tolist(), v_a.tolist())]
        self.v_a = np.where(reduced, 0, v_a)

    def _read_python(self, trs, tks, index: dict, denominator: int):
        """What ``_core.pattern_columns`` reads, read in Python, with each reduction's mask numbered (its index in
        ``self._big_masks``): per piece kind, instance, a, b, start, end."""
        self.tr_src = _ints((index[t.src] for t in trs), len(trs))
        self.tr_dst = _ints((index[t.dst] for t in trs), len(trs))
        self.tr_count = _ints((len(t.pieces) for t in trs), len(trs))
        self.tk_node = _ints((index[t.node] for t in tks), len(tks))
        self.tk_count = _ints((len(t.inputs) + 1 for t in tks), len(tks))
        self.tk_cost = np.array([float(t.cost) for t in tks], dtype=np.float64)
        items = [x for t in trs for x in t.pieces] + [x for t in tks for x in t.inputs + (t.output,)]
        pieces = [as_piece(x, denominator) for x in items]
        n = len(pieces)
        values = [x.value for x in pieces]
        numbered: dict[int, int] = {}
        a = _ints((numbered.setdefault(v.a, len(numbered)) if v.kind == REDUCED else v.a for v in values), n)
        self._big_masks = list(numbered)
        kind, inst, b = (_ints((v[j] for v in values), n) for j in (0, 1, 3))
        start, end = (_ints((x[j] for x in pieces), n) for j in (1, 2))
        return kind, inst, a, b, start, end


def _first_of_each(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(first, inverse)`` of the distinct rows of the columns (``np.unique(..., axis=0, return_index=True,
    return_inverse=True)`` less the rows themselves), through one int64 per row where the columns' ranges allow it
    (a sort of integers, not of rows)."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    lo = [int(c.min()) for c in columns]
    spans = [int(c.max()) - m + 1 for c, m in zip(columns, lo)]
    if math.prod(spans) >= 2 ** 62:
        _, first, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_index=True, return_inverse=True)
        return first, inverse.reshape(-1)
    code = np.zeros(n, np.int64)
    for c, m, span in zip(columns, lo, spans):
        code *= span
        code += c - m
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


def _ints(values, n: int) -> np.ndarray:
    return np.fromiter(values, np.int64, n)


def _lengths(sequences, n: int) -> np.ndarray:
    return np.fromiter(map(len, sequences), np.int64, n)


def _pattern_of(schedule, slots, index: dict, denominator: int) -> _Pattern:
    """The schedule's pattern for these ranks, read once per schedule (kept on it: it is frozen, its slots tuples of
    frozen transfers and tasks) and ranks; its arrays read-only. Raises KeyError for a node that is not a rank."""
    key = (tuple(index), denominator)
    kept = schedule.__dict__.get("_pattern")
    if kept is not None and kept[0] == key:
        return kept[1]
    with _collector_paused():
        pattern = _Pattern(slots, index, denominator)
    for value in vars(pattern).values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    object.__setattr__(schedule, "_pattern", (key, pattern))
    return pattern


def _ranges(first: np.ndarray, count: np.ndarray) -> np.ndarray:
    """``concatenate([arange(f, f + c) for f, c in zip(first, count)])``."""
    total = int(count.sum())
    if total == 0:
        return np.zeros(0, np.int64)
    return np.repeat(first - np.cumsum(count) + count, count) + np.arange(total, dtype=np.int64)


def _kept(first, count, pattern: _Pattern, offset, n_instances: int) -> np.ndarray:
    """Whether every piece of each emitted item (template pieces ``first .. first + count``) names an instance."""
    rel = pattern.p_rel[_ranges(first, count)]
    owner = np.repeat(np.arange(len(first), dtype=np.int64), count)
    inst = rel + offset[owner]
    bad = np.bincount(owner[(inst < 0) | (inst >= n_instances)], minlength=len(first))
    return bad == 0


def _emitted(slot_of_item: np.ndarray, e_slot: np.ndarray, n_slots: int):
    """The template items of each emission (slot, in emission order): (emission, item) arrays."""
    per_slot = np.bincount(slot_of_item, minlength=n_slots)
    first = np.concatenate([[0], np.cumsum(per_slot)[:-1]]).astype(np.int64)  # items are in slot order
    count = per_slot[e_slot]
    return np.repeat(np.arange(len(e_slot), dtype=np.int64), count), _ranges(first[e_slot], count)


def _previous(key: np.ndarray, ops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(op, previous op with the same key) pairs, ``ops`` increasing."""
    order = np.argsort(key, kind="stable")
    same = key[order][1:] == key[order][:-1]
    return ops[order][1:][same], ops[order][:-1][same]


def periodic_program(schedule, ranks, count: int) -> Program | None:
    """The program of ``count`` operations of a periodic schedule, column-wise, or None where it does not apply.

    Parameters
    ----------
    schedule : PeriodicSchedule
    ranks : sequence of str
        The program's ranks (:meth:`PeriodicSchedule.ranks`).
    count : int
        Operations of the series.

    Returns
    -------
    Program or None
        Equal to the :class:`~collsched.schedules.program.ProgramBuilder`
        lowering; None when a slot names a node that is not a rank (the
        builder's lowering says which), or with ``ports="multi"`` when a
        transfer's size is not a float (its arithmetic is left to the
        builder's lowering).

    Notes
    -----
    O(pattern) Python operations, then O(operations + pieces) numpy work
    (sorts: a log factor).

    Examples
    --------
    >>> from fractions import Fraction
    >>> import collsched as cs
    >>> from collsched.schedules.periodic import PeriodicSchedule, PeriodicTransfer, Slot
    >>> from collsched.schedules.values import block
    >>> s = PeriodicSchedule(period=Fraction(1, 1000),
    ...                      slots=[Slot(Fraction(1, 1000), [PeriodicTransfer("h0", "h1", [block(0, 0, 1)], 1e3)])])
    >>> periodic_program(s, s.ranks(cs.topologies.star(2)), 3).n_messages
    3
    >>> periodic_program(s, ["h0"], 3) is None
    True
    """
    index = {r: i for i, r in enumerate(ranks)}
    den = schedule.denominator
    multi = schedule.ports == "multi"
    slots = tuple(schedule.init) + tuple(schedule.slots) + tuple(schedule.cleanup)
    try:
        pattern = _pattern_of(schedule, slots, index, den)
    except KeyError:
        return None
    if multi and not pattern.floats:
        return None
    tr_size = pattern.tr_size
    # step 1: the emissions (slot, instance offset), in program order
    q = schedule.ops_per_period
    phased = bool(schedule.init or schedule.cleanup)
    n_init, n_slots, n_clean = len(schedule.init), len(schedule.slots), len(schedule.cleanup)
    # PeriodicSchedule.lag and periods_for, read off the pattern's arrays
    rel = pattern.p_rel[(pattern.p_slot >= n_init) & (pattern.p_slot < n_init + n_slots)]
    lag = int((-(rel // q)).max()) if len(rel) else 0
    periods = max(0, math.ceil(count / q) - lag) if phased else math.ceil(count / q) + lag
    first = lag if phased else 0
    e_slot = np.concatenate([np.arange(n_init), np.tile(n_init + np.arange(n_slots), periods),
                             n_init + n_slots + np.arange(n_clean)]).astype(np.int64)
    e_off = np.concatenate([np.zeros(n_init, np.int64),
                            np.repeat((np.arange(periods, dtype=np.int64) + first) * q, n_slots),
                            np.full(n_clean, periods * q if phased else 0, np.int64)])
    # step 2: the transfers and tasks of every emission whose pieces all name instances 0 .. count - 1
    tr_e, tr = _emitted(pattern.tr_slot, e_slot, len(slots))
    keep = _kept(pattern.tr_first[tr], pattern.tr_count[tr], pattern, e_off[tr_e], count)
    tr_e, tr = tr_e[keep], tr[keep]
    tk_e, tk = _emitted(pattern.tk_slot, e_slot, len(slots))
    keep = _kept(pattern.tk_first[tk], pattern.tk_count[tk], pattern, e_off[tk_e], count)
    tk_e, tk = tk_e[keep], tk[keep]
    # step 3: messages; with ports="multi", one per link direction and emission (first-appearance order)
    n_ranks = len(ranks)
    if multi and len(tr):
        group = (tr_e * n_ranks + pattern.tr_src[tr]) * n_ranks + pattern.tr_dst[tr]
        _, first_at, inverse = np.unique(group, return_index=True, return_inverse=True)
        order = np.argsort(first_at, kind="stable")
        msg_of = np.empty(len(order), np.int64)
        msg_of[order] = np.arange(len(order), dtype=np.int64)
        msg_of = msg_of[inverse.reshape(-1)]  # per kept transfer, its message
        lead = tr[first_at[order]]
        msg_e = tr_e[first_at[order]]
        msg_size = np.bincount(msg_of, weights=tr_size[tr], minlength=len(order))
        members = np.argsort(msg_of, kind="stable")  # kept transfers in message order
    else:
        msg_of = np.arange(len(tr), dtype=np.int64)
        lead, msg_e, msg_size, members = tr, tr_e, tr_size[tr], msg_of
    n_msg = len(lead)
    msg_src, msg_dst = pattern.tr_src[lead], pattern.tr_dst[lead]
    # step 4: operation ids: per emission its messages (send, recv) then its tasks
    ev_e = np.concatenate([msg_e, tk_e])
    ev_task = np.concatenate([np.zeros(n_msg, bool), np.ones(len(tk), bool)])
    order = np.lexsort((ev_task, ev_e))
    width = np.where(ev_task[order], 1, 2)
    start = np.empty(len(order), np.int64)
    start[order] = np.cumsum(width) - width
    send_op, task_op = start[:n_msg], start[n_msg:]
    recv_op = send_op + 1
    n_ops = 2 * n_msg + len(tk)
    op_rank = np.empty(n_ops, np.int64)
    op_kind = np.empty(n_ops, np.int64)
    op_peer = np.empty(n_ops, np.int64)
    op_msg = np.empty(n_ops, np.int64)
    op_size = np.empty(n_ops, np.float64)
    ids = np.arange(n_msg, dtype=np.int64)
    for ops, rank, kind, peer in ((send_op, msg_src, SEND, msg_dst), (recv_op, msg_dst, RECV, msg_src)):
        op_rank[ops], op_kind[ops], op_peer[ops], op_msg[ops], op_size[ops] = rank, kind, peer, ids, msg_size
    op_rank[task_op], op_kind[task_op], op_peer[task_op], op_msg[task_op] = pattern.tk_node[tk], COMPUTE, -1, -1
    op_size[task_op] = pattern.tk_cost[tk]
    # step 5: pieces, per send (its message's transfers' pieces in order) and per task (inputs, then output)
    m_tr = tr[members]
    send_pieces = _ranges(pattern.tr_first[m_tr], pattern.tr_count[m_tr])
    send_owner = np.repeat(send_op[msg_of[members]], pattern.tr_count[m_tr])
    send_off = np.repeat(e_off[tr_e[members]], pattern.tr_count[m_tr])
    task_pieces = _ranges(pattern.tk_first[tk], pattern.tk_count[tk])
    task_owner = np.repeat(task_op, pattern.tk_count[tk])
    task_off = np.repeat(e_off[tk_e], pattern.tk_count[tk])
    owner = np.concatenate([send_owner, task_owner])
    by_op = np.argsort(owner, kind="stable")
    owner = owner[by_op]
    piece = np.concatenate([send_pieces, task_pieces])[by_op]
    inst = (pattern.p_rel[piece] + np.concatenate([send_off, task_off])[by_op])
    vid = pattern.p_vid[piece]
    rows = np.empty((len(piece), 6), np.int64)
    rows[:, 0], rows[:, 1], rows[:, 3] = pattern.v_kind[vid], inst, pattern.v_b[vid]
    rows[:, 2], rows[:, 4], rows[:, 5] = pattern.v_a[vid], pattern.p_start[piece], pattern.p_end[piece]
    sets = _operand_sets(pattern, vid, rows)
    piece_ptr = np.zeros(n_ops + 1, np.int64)
    np.cumsum(np.bincount(owner, minlength=n_ops), out=piece_ptr[1:])
    # step 6: dependencies (module docstring)
    dep_ptr, dep_idx = _dependencies(pattern, op_rank, op_kind, op_peer, multi, n_ranks, owner, vid, inst, piece,
                                     piece_ptr, task_op, pattern.tk_count[tk])
    return Program(ranks=tuple(ranks), denominator=den, op_rank=_frozen(op_rank), op_kind=_frozen(op_kind),
                   op_peer=_frozen(op_peer), op_msg=_frozen(op_msg), op_size=_frozen(op_size),
                   dep_ptr=_frozen(dep_ptr), dep_idx=_frozen(dep_idx), piece_ptr=_frozen(piece_ptr),
                   pieces=_frozen(rows), name=schedule.algorithm, operand_sets=sets)


def _operand_sets(pattern: _Pattern, vid: np.ndarray, rows: np.ndarray) -> tuple:
    """The operand masks in order of first appearance (the builder's table); rows get their indices."""
    reduced = np.flatnonzero(pattern.v_kind[vid] == REDUCED)
    if not len(reduced):
        return ()
    mask_ids: dict = {}
    mask_of_vid = np.array([mask_ids.setdefault(m, len(mask_ids)) if m is not None else -1 for m in pattern.masks],
                           dtype=np.int64)
    mid = mask_of_vid[vid[reduced]]
    seen, first_at = np.unique(mid, return_index=True)
    order = np.argsort(first_at, kind="stable")
    index = np.empty(len(mask_ids), np.int64)
    index[seen[order]] = np.arange(len(order), dtype=np.int64)
    rows[reduced, 2] = index[mid]
    masks = list(mask_ids)
    return tuple(masks[int(m)] for m in seen[order])


def _dependencies(pattern, op_rank, op_kind, op_peer, multi: bool, n_ranks: int, owner, vid, inst, piece,
                  piece_ptr, task_op, task_count) -> tuple[np.ndarray, np.ndarray]:
    n_ops = len(op_rank)
    ops = np.arange(n_ops, dtype=np.int64)
    # resources: send port (0) or link direction (3 + peer), receive port (1), CPU (2)
    code = np.where(op_kind == SEND, 3 + op_peer if multi else 0, np.where(op_kind == RECV, 1, 2))
    chained = op_kind != RECV if multi else np.ones(n_ops, bool)
    key = op_rank[chained] * (3 + n_ranks) + code[chained]
    res_op, res_dep = _previous(key, ops[chained])
    # data: what each op reads (a send's pieces, a task's inputs) against what earlier ops of the rank made
    is_send = op_kind[owner] == SEND
    task_last = np.zeros(len(owner), bool)
    task_last[piece_ptr[task_op] + task_count - 1] = True  # a task's output
    reads = is_send | ((op_kind[owner] == COMPUTE) & ~task_last)
    # a receive makes the pieces of its message (the send's, one op before), at its own rank
    made_piece = np.flatnonzero(is_send | task_last)
    made_op = np.where(is_send[made_piece], owner[made_piece] + 1, owner[made_piece])
    n_values = max(len(pattern.v_kind), 1)
    lo, hi = (int(inst.min()), int(inst.max())) if len(inst) else (0, 0)
    span = hi - lo + 1

    def at(rank, p):
        return (rank * n_values + vid[p]) * span + (inst[p] - lo)

    made_key = at(op_rank[made_op], made_piece)
    read_piece = np.flatnonzero(reads)
    read_key = at(op_rank[owner[read_piece]], read_piece)
    order = np.argsort(made_key, kind="stable")
    made_key, made_piece, made_op = made_key[order], made_piece[order], made_op[order]
    first = np.searchsorted(made_key, read_key, side="left")
    count = np.searchsorted(made_key, read_key, side="right") - first
    reader = np.repeat(read_piece, count)
    cand = _ranges(first, count)
    mp = made_piece[cand]
    ok = (made_op[cand] < owner[reader]) & (pattern.p_start[piece[mp]] < pattern.p_end[piece[reader]]) & \
         (pattern.p_start[piece[reader]] < pattern.p_end[piece[mp]])
    dep_op = np.concatenate([res_op, owner[reader[ok]]])
    dep = np.concatenate([res_dep, made_op[cand[ok]]])
    pairs = np.sort(dep_op * n_ops + dep)
    if len(pairs):
        pairs = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])]
    dep_op, dep = pairs // max(n_ops, 1), pairs % max(n_ops, 1)
    dep_ptr = np.zeros(n_ops + 1, np.int64)
    np.cumsum(np.bincount(dep_op, minlength=n_ops), out=dep_ptr[1:])
    return dep_ptr, dep
