"""The symbolic validator: does a program implement its collective?

:func:`validate` lowers a schedule if needed, then executes the program on
symbolic values in the Rust core (:mod:`collsched._core`): every rank starts
with what the collective gives it, every send may only carry pieces its rank
holds and waits for, every receive must bring something new, every
combination must join adjacent partial results in operand order (or
commutative reductions of pairwise disjoint operand sets), and at the end
every rank must hold what the collective promises it (a whole value, or the
fraction of one that a :class:`~collsched.schedules.values.Part` names, which
the program's denominator must express). It also checks that
each message's byte count is what its pieces weigh and that each reduction
task costs what the collective says. Failures raise
:class:`~collsched.errors.ValidationError` naming the rank, the operation
and the value.

A schedule that knows the collective it was planned for
(:attr:`Schedule.collective <collsched.schedules.Schedule.collective>`, set by
:func:`collsched.plan` and saved in schedule files) is only checked against
that collective: *the same* means the same kind, hosts in the same roles and
order, sizes and costs (collectives compare equal), except that the count of
a :class:`~collsched.collectives.Series` is free — a schedule planned for one
instance lowers for a series of them and the other way round, and lowering
handles any count. Anything else raises :class:`ValidationError` naming both
collectives, before lowering.

Message ids are labels (any integer ``0 <= id < 2**63``); they are renumbered
``0 .. M-1`` before the core indexes arrays with them, and messages keep
their own ids.

Examples
--------
>>> from collsched import topologies
>>> from collsched.collectives import Scatter
>>> from collsched.schedules.program import ProgramBuilder
>>> from collsched.schedules.values import block
>>> p = topologies.star(3)
>>> c = Scatter(source="h0", targets=["h1", "h2"], size=100)
>>> b = ProgramBuilder(p.hosts)
>>> _ = b.send("h0", "h1", [block(0, 0, 1)], size=100)
>>> validate(p, c, b.build())
Traceback (most recent call last):
...
collsched.errors.ValidationError: program '': rank h2 ends without m[h0→h2]@0 (it never receives it)
>>> _ = b.send("h0", "h2", [block(0, 0, 2)], size=100)
>>> validate(p, c, b.build())
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ValidationError
from .columns import exchange_blocks, size_matrix
from .program import COMPUTE, OP_KINDS, RECV, SEND, Program
from .values import BLOCK, PARTIAL, REDUCED, Part, Value, block

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform

__all__ = ["validate", "lower_any", "check_planned_for"]


def lower_any(platform: Platform, collective: Collective, schedule_or_program) -> Program:
    """The program of a schedule (lowered) or the program itself.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    schedule_or_program : Schedule or Program
        A schedule is lowered with its default options.

    Returns
    -------
    Program
        ``schedule_or_program`` itself if it is a program.

    Raises
    ------
    TypeError
        If it is neither a program nor has a ``lower`` method.
    ValidationError
        If the schedule was planned for another collective than ``collective``
        (see the module docstring for what counts as the same).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Gather(sources=p.hosts, target="h0", size=1e3)
    >>> prog = lower_any(p, c, cs.plan(p, c, algorithm="linear"))
    >>> prog, lower_any(p, c, prog) is prog
    (<Program 'linear': 3 ranks, 4 ops, 2 messages>, True)
    >>> lower_any(p, cs.Series(c, count=5), cs.plan(p, c, algorithm="linear")).n_messages
    10
    >>> lower_any(p, cs.Scatter(source="h0", targets=p.hosts, size=1e3), cs.plan(p, c, algorithm="linear"))
    Traceback (most recent call last):
    ...
    collsched.errors.ValidationError: schedule 'linear' was planned for a gather to h0 over 3 hosts, not for the scatter from h0 over 3 hosts it is checked against (check it against the collective it was planned for, or plan one for this collective)
    """
    if isinstance(schedule_or_program, Program):
        return schedule_or_program
    lower = getattr(schedule_or_program, "lower", None)
    if lower is None:
        raise TypeError(f"{schedule_or_program!r} is neither a Program nor a Schedule")
    check_planned_for(schedule_or_program, collective)
    return lower(platform, collective)


def check_planned_for(schedule, collective: Collective) -> None:
    """Raise unless ``schedule`` was planned for ``collective`` (any count of a series), or does not say.

    Parameters
    ----------
    schedule : Schedule or Program
        A program, or a schedule without its collective, always passes.
    collective : Collective
        What the schedule is about to be lowered or checked for.

    Raises
    ------
    ValidationError
        Naming both collectives (and the first field that differs).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> s = cs.plan(p, cs.Gather(sources=p.hosts, target="h0", size=8), algorithm="linear")
    >>> check_planned_for(s, cs.Series(cs.Gather(sources=p.hosts, target="h0", size=8), count=4))
    >>> check_planned_for(s, cs.Gather(sources=p.hosts, target="h0", size=16))
    Traceback (most recent call last):
    ...
    collsched.errors.ValidationError: schedule 'linear' was planned for a gather to h0 over 3 hosts, not for the gather to h0 over 3 hosts it is checked against (size 8.0, not 16.0) (check it against the collective it was planned for, or plan one for this collective)
    """
    planned = getattr(schedule, "collective", None)
    if planned is None or planned.base == collective.base:
        return
    differs = ""
    if type(planned.base) is type(collective.base) and dataclasses.is_dataclass(planned.base):
        for f in dataclasses.fields(planned.base):
            a, b = _plain(getattr(planned.base, f.name)), _plain(getattr(collective.base, f.name))
            if a != b:
                differs = f" ({f.name} {_short(a)}, not {_short(b)})"
                break
    name = getattr(schedule, "algorithm", "") or type(schedule).__name__
    planned_for = _describe(planned)
    article = "an" if planned_for[0] in "aeiou" else "a"
    raise ValidationError(f"schedule {name!r} was planned for {article} {planned_for}, not for the "
                          f"{_describe(collective)} it is checked against{differs}",
                          fix="check it against the collective it was planned for, or plan one for this collective")


def _describe(c: Collective) -> str:
    """``reduce to h0 over 4 hosts``, ``series of 3 scatter from h0 over 4 hosts``: kind, root, hosts, count."""
    base = c.base
    text = base.kind
    if hasattr(base, "source"):
        text += f" from {base.source}"
    elif hasattr(base, "target"):
        text += f" to {base.target}"
    text += f" over {len(base.hosts)} hosts"
    return text if c is base else f"series of {c.count} {text}"


def _plain(x: Any) -> Any:
    return dict(x) if hasattr(x, "items") else x


def _short(x: Any, width: int = 40) -> str:
    text = repr(x)
    return text if len(text) <= width else text[:width - 3] + "..."


def validate(platform: Platform, collective: Collective, schedule_or_program, *, rendezvous: bool = False) -> None:
    """Raise :class:`ValidationError` unless the program implements the collective.

    Parameters
    ----------
    platform : Platform
    collective : Collective
    schedule_or_program : Schedule or Program
        A schedule is lowered with ``schedule.lower(platform, collective)``.
    rendezvous : bool
        Also require freedom from deadlock when every send waits for its receive
        (synchronous sends), not only when sends are buffered.

    Returns
    -------
    None
        The program is valid when this returns.

    Raises
    ------
    ValidationError
        Naming the rank, the operation and the value at fault; for a schedule
        planned for another collective (see the module docstring), naming both.
    CollectiveError, PlatformError
        If the collective does not fit the platform.

    Examples
    --------
    The binomial reduce validates; a program whose target combines
    ``v[1..2] ⊕ v_0`` (commuting the operator) does not:

    >>> import collsched as cs
    >>> from collsched.schedules.values import partial
    >>> p = cs.topologies.star(3)
    >>> c = cs.Reduce(participants=p.hosts, target="h0", size=8, task_cost=10)
    >>> validate(p, c, cs.plan(p, c))
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h1", "h0", [partial(0, 1, 1)], size=8)
    >>> _ = b.send("h2", "h0", [partial(0, 2, 2)], size=8)
    >>> _ = b.compute("h0", [partial(0, 1, 1), partial(0, 2, 2)], partial(0, 1, 2), cost=10)
    >>> _ = b.compute("h0", [partial(0, 1, 2), partial(0, 0, 0)], partial(0, 0, 2), cost=10)
    >>> validate(p, c, b.build())
    Traceback (most recent call last):
    ...
    collsched.errors.ValidationError: program '': rank h0 op 3 (compute) is not a valid reduction: inputs are not adjacent in operand order: v[1..2]@0 ⊕ v[0..0]@0 → v[0..2]@0
    """
    collective.validate(platform)
    program = lower_any(platform, collective, schedule_or_program)
    from .. import _core

    rank_of = {name: i for i, name in enumerate(program.ranks)}
    for name in program.ranks:
        if name not in platform.nodes:
            raise ValidationError(f"program {program.name!r} has rank {name!r}, which is not in platform {platform.name!r}")
    sets = list(program.operand_sets)  # the program's table, then the masks only the collective names
    initial, finals = _value_rows(program, collective, rank_of, sets, platform)
    dense = program.renumbered()  # ids index arrays in the core; errors name the program's own ids
    columns = [np.asarray(a, dtype=np.int64) for a in (dense.op_rank, dense.op_kind, dense.op_peer, dense.op_msg,
                                                          dense.dep_ptr, dense.dep_idx, dense.piece_ptr)]
    set_ptr, set_words = set_table(sets)
    try:
        _core.validate_program(len(program.ranks), *columns, np.asarray(program.pieces, dtype=np.int64).reshape(-1),
                               program.denominator, initial, finals, rendezvous=rendezvous,
                               set_ptr=set_ptr, set_words=set_words)
    except _core.ProgramInvalid as exc:
        code, details = exc.args
        raise ValidationError(_Explain(platform, program, sets).message(code, details)) from None
    _check_weights(platform, collective, program)


def set_table(masks: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Operand sets as the core takes them: a CSR of little-endian 64-bit words.

    Parameters
    ----------
    masks : list of int
        Bitmasks (Python ints of any size), in table order.

    Returns
    -------
    set_ptr : numpy.ndarray of int64
        Set ``i`` is ``set_words[set_ptr[i]:set_ptr[i+1]]``.
    set_words : numpy.ndarray of uint64

    Examples
    --------
    >>> ptr, words = set_table([0b1001, 1 << 64])
    >>> ptr.tolist(), words.tolist()
    ([0, 1, 3], [9, 0, 1])
    """
    sizes = [(m.bit_length() + 63) // 64 for m in masks]
    ptr = np.zeros(len(masks) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum(sizes)
    data = b"".join(m.to_bytes(8 * n, "little") for m, n in zip(masks, sizes))
    return ptr, np.frombuffer(data, dtype="<u8").astype(np.uint64)


def _value_rows(program: Program, collective: Collective, rank_of: dict, sets: list[int],
                platform: Platform) -> tuple[np.ndarray, np.ndarray]:
    """The rows of :func:`_rows` for the collective's initial and final values.

    An exchange's values are whole blocks: their rows are built as arrays,
    without a Python object per value (the same rows, the same errors).
    """
    blocks = exchange_blocks(platform, collective)
    if blocks is None:
        initial_values, final_values = collective.values(platform)
        return (_rows(program, initial_values, rank_of, "starts with", sets, platform),
                _rows(program, final_values, rank_of, "must end with", sets, platform))
    src, dst, inst = blocks
    host_rank = np.array([rank_of.get(h, -1) for h in platform.hosts], dtype=np.int64)
    kind = np.full(src.shape[0], BLOCK, dtype=np.int64)
    found = []
    for holder, verb in ((src, "starts with"), (dst, "must end with")):
        rank = host_rank[holder]
        missing = np.flatnonzero(rank < 0)
        if missing.shape[0]:
            k = int(missing[0])
            raise _no_rank(program, platform.hosts[int(holder[k])], verb,
                           block(int(inst[k]), int(src[k]), int(dst[k])))
        columns = [rank, kind, inst, src, dst]
        if verb == "must end with":  # whole values: units 0 .. denominator
            columns += [np.zeros_like(rank), np.full_like(rank, program.denominator)]
        found.append(np.stack(columns, axis=1).reshape(-1))
    return found[0], found[1]


def _no_rank(program: Program, host: str, verb: str, item) -> ValidationError:
    return ValidationError(f"program {program.name!r} has no rank for host {host!r}, which {verb} {item!r}")


def _rows(program: Program, values: list, rank_of: dict, verb: str, sets: list[int],
          platform: Platform) -> np.ndarray:
    """``(rank, kind, inst, a, b)`` rows of initial values, ``(..., start, end)`` rows of final ones.

    A reduction's mask becomes its index in the table ``sets`` (appended if the table lacks it); a
    :class:`Part` becomes its fragment in units of the program's denominator.
    """
    index: dict[int, int] = {}
    for i, mask in enumerate(sets):
        index.setdefault(mask, i)

    def where(mask: int) -> int:
        if mask not in index:
            index[mask] = len(sets)
            sets.append(mask)
        return index[mask]

    rows = []
    for host, item in values:
        v = item.value if isinstance(item, Part) else item
        if host not in rank_of:
            raise _no_rank(program, host, verb, item)
        row = (rank_of[host], v.kind, v.inst, where(v.a) if v.kind == REDUCED else v.a, v.b)
        if verb == "must end with":
            units = item.in_units(program.denominator) if isinstance(item, Part) else (0, program.denominator)
            if units is None:
                raise ValidationError(
                    f"program {program.name!r}: denominator {program.denominator} cannot express the part "
                    f"[{item.start}, {item.end}) of {v.describe(platform.hosts)} that host {host} must end with",
                    fix=f"lower with a denominator that is a multiple of "
                        f"{math.lcm(item.start.denominator, item.end.denominator)}")
            row += units
        rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(-1)


class _Explain:
    """Turns the core's error codes into one precise line."""

    def __init__(self, platform: Platform, program: Program, sets: list[int] = ()):
        self.hosts = platform.hosts
        self.p = program
        self.sets = list(sets) or list(program.operand_sets)  # the program's table, then the collective's masks
        self._send_of: dict[int, int] | None = None

    def send_of(self, msg: int) -> int:
        """The send operation of message id ``msg`` (ids may be sparse: no array indexed by id)."""
        if self._send_of is None:
            sends = np.flatnonzero(self.p.op_kind == SEND)
            self._send_of = dict(zip(self.p.op_msg[sends].tolist(), sends.tolist()))
        return self._send_of[msg]

    def op(self, i: int) -> str:
        p = self.p
        rank = int(p.op_rank[i])
        local = int(np.count_nonzero(p.op_rank[:i] == rank))
        kind = OP_KINDS[int(p.op_kind[i])]
        what = kind
        if kind != "compute":
            arrow = "to" if kind == "send" else "from"
            what = f"{kind} msg {int(p.op_msg[i])} {arrow} {p.ranks[int(p.op_peer[i])]}"
        return f"rank {p.ranks[rank]} op {local} ({what})"

    def piece(self, i: int, k: int) -> str:
        p = self.p
        if int(p.op_kind[i]) == RECV:  # the pieces are on its send
            i = self.send_of(int(p.op_msg[i]))
        row = p.pieces[int(p.piece_ptr[i]) + k]
        return self.fragment(self.value(row[:4]), int(row[4]), int(row[5]))

    def value(self, row) -> Value:
        """The value of a row the core names (a reduction's set index looked up in the table)."""
        kind, inst, a, b = (int(x) for x in row)
        if kind == REDUCED and 0 <= a < len(self.sets):
            return Value(kind, inst, self.sets[a], b)
        return Value(kind, inst, a, b)

    def fragment(self, value: Value, start: int, end: int) -> str:
        text = value.describe(self.hosts)
        d = self.p.denominator
        return text if (start, end) == (0, d) else f"{text} part [{start}/{d}, {end}/{d})"

    def bringer(self, i: int, k: int) -> int | None:
        """An operation of op ``i``'s rank that brings the piece ``k`` of op ``i`` (a receive or a computation)."""
        p = self.p
        row = p.pieces[int(p.piece_ptr[i]) + k]
        for j in p.ops_of(int(p.op_rank[i])):
            kind = int(p.op_kind[j])
            if kind == RECV:
                s = self.send_of(int(p.op_msg[j]))
                rows = p.pieces[p.piece_ptr[s]:p.piece_ptr[s + 1]]
            elif kind == COMPUTE and p.piece_ptr[j + 1] > p.piece_ptr[j]:
                rows = p.pieces[p.piece_ptr[j + 1] - 1:p.piece_ptr[j + 1]]
            else:
                continue
            if any((r == row).all() for r in rows):
                return int(j)
        return None

    def message(self, code: str, d: dict) -> str:
        head = f"program {self.p.name!r}: "
        if code == "not_held":
            bringer = self.bringer(d["op"], d["piece"])
            if bringer is not None:
                return head + (f"{self.op(d['op'])} uses {self.piece(d['op'], d['piece'])} without waiting for "
                               f"{self.op(bringer)}, which brings it")
            return head + f"{self.op(d['op'])} uses {self.piece(d['op'], d['piece'])}, which its rank does not hold then"
        if code == "not_waited":
            return head + (f"{self.op(d['op'])} uses {self.piece(d['op'], d['piece'])} without waiting for "
                           f"{self.op(d['producer'])}, which brings it")
        if code == "duplicate":
            earlier = "it held from the start" if d["earlier"] < 0 else f"{self.op(d['earlier'])} already brought it"
            return head + f"{self.op(d['op'])} delivers {self.piece(d['op'], d['piece'])} again ({earlier})"
        if code == "bad_combine":
            i = d["op"]
            *inputs, output = [self.piece(i, k) for k in range(int(self.p.piece_ptr[i + 1] - self.p.piece_ptr[i]))]
            combined = f"{' ⊕ '.join(inputs)} → {output}" if inputs else output
            return head + f"{self.op(i)} is not a valid reduction: {d['reason']}: {combined}"
        if code == "missing":
            value = self.fragment(self.value(d["value"]), d["start"], d["end"])
            held = "it never receives it" if d["held"] == 0 else \
                f"it holds only {d['held']}/{d['end'] - d['start']} of it"
            return head + f"rank {self.p.ranks[d['rank']]} ends without {value} ({held})"
        if code == "deadlock":
            stuck = ", ".join(self.op(i) for i in d["stuck"][:3])
            return head + f"deadlock: {stuck} can never run (a cycle of waits)"
        if code == "bad_dependency":
            return head + f"{self.op(d['op'])} depends on op id {d['dep']}, which is not an earlier op of its rank"
        if code == "unmatched_message":
            msg = int(self.p.op_msg[d["op"]])
            return head + f"message {msg} has a send without a receive or the reverse (at {self.op(d['op'])})"
        if code == "mismatched_message":
            msg = int(self.p.op_msg[d["send"]])
            return head + f"message {msg}: {self.op(d['send'])} and {self.op(d['recv'])} do not name each other"
        if code == "bad_message_id":
            return head + (f"{self.op(d['op'])} has message id {d['msg']}, not below the number of operations "
                           f"({self.p.n_ops}) (renumber the messages with Program.renumbered())")
        if code == "bad_piece":
            return head + f"{self.op(d['op'])} piece {d['piece']} is not a fragment inside [0, {self.p.denominator})"
        if code == "pieces_on_recv":
            return head + f"{self.op(d['op'])} lists pieces; they belong on the send"
        if code == "bad_op":
            return head + f"op id {d['op']} has a rank, peer or kind out of range"
        return head + f"malformed program ({code}: {d})"


def _whole_weights(platform: Platform, collective: Collective, program: Program) -> np.ndarray:
    """Bytes of the whole value of each piece: an exchange's blocks read off its size matrix, else the sizer's."""
    pieces = program.pieces
    n = len(platform.hosts)
    if collective.base.kind in ("alltoall", "alltomany") \
            and np.all(pieces[:, 0] == BLOCK) and np.all((pieces[:, 2:4] >= 0) & (pieces[:, 2:4] < n)):
        weight = size_matrix(collective.base, platform)[pieces[:, 2], pieces[:, 3]]
        if not np.isnan(weight).any():  # else a block the exchange lacks: the sizer says what is wrong
            return weight
    sizer = collective.sizer(platform)
    values, inverse = np.unique(pieces[:, :4], axis=0, return_inverse=True)
    return np.array([sizer(program.value_of(v)) for v in values])[inverse.reshape(-1)]


def _check_weights(platform: Platform, collective: Collective, program: Program) -> None:
    """Each message weighs what its pieces weigh; each reduction task costs what the collective says."""
    if len(program.pieces) == 0:
        return
    denom = program.denominator
    weight = _whole_weights(platform, collective, program)
    weight *= (program.pieces[:, 5] - program.pieces[:, 4]) / denom
    counts = np.diff(program.piece_ptr)
    op_of_piece = np.repeat(np.arange(program.n_ops), counts)
    explain = _Explain(platform, program)
    # messages: declared bytes == sum of piece weights
    carried = np.zeros(program.n_ops)
    np.add.at(carried, op_of_piece, weight)
    sends = np.flatnonzero((program.op_kind == SEND) & (counts > 0))
    bad = sends[~np.isclose(program.op_size[sends], carried[sends], rtol=1e-9, atol=1e-9)]
    if len(bad):
        i = int(bad[0])
        raise ValidationError(f"program {program.name!r}: {explain.op(i)} declares {program.op_size[i]:g} bytes "
                              f"but its pieces weigh {carried[i]:g}")
    # reduction tasks, scaled to the fragment: a reduce's binary T(k,l,m) costs what the reduce says; a
    # reduce-scatter's or an all-reduce's task of k inputs costs k - 1 combinations of whole vectors
    base = collective.base
    if not hasattr(base, "task_cost_of"):
        return
    for i in np.flatnonzero((program.op_kind == COMPUTE) & (counts >= 3)):
        rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
        if rows[0][0] == REDUCED or base.kind in ("reducescatter", "allreduce"):
            # k inputs: k - 1 combinations of whole vectors, scaled to the fragment
            expected = (len(rows) - 2) * base.task_cost_of(0, 0, 1) * int(rows[-1][5] - rows[-1][4]) / denom
            declared = float(program.op_size[i])
            if not math.isclose(declared, expected, rel_tol=1e-9, abs_tol=1e-9):
                raise ValidationError(f"program {program.name!r}: {explain.op(i)} combines {len(rows) - 1} "
                                      f"fragments with cost {declared:g} but the {base.kind} says {expected:g}")
            continue
        if rows[0][0] != PARTIAL or len(rows) != 3:
            continue
        k, l, m = int(rows[0][2]), int(rows[0][3]), int(rows[1][3])
        expected = base.task_cost_of(k, l, m) * int(rows[2][5] - rows[2][4]) / denom
        declared = float(program.op_size[i])
        if not math.isclose(declared, expected, rel_tol=1e-9, abs_tol=1e-9):
            raise ValidationError(f"program {program.name!r}: {explain.op(i)} computes T({k},{l},{m}) "
                                  f"with cost {declared:g} but the reduce says {expected:g}")
