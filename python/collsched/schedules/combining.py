"""Reductions in step schedules: a rank forms what it sends by combining what it holds.

A transfer of a :class:`~collsched.schedules.steps.StepSchedule` names the
values it carries. For a reduction (a ReduceScatter or an AllReduce), a
rank often sends a value it does not hold as such: in step ``s`` of a ring
reduce-scatter, ``P_i`` sends ``Σ{i-s..i}`` on a fragment, which it forms
from the ``Σ{i-s..i-1}`` it has just received and its own operand. While a
step schedule of a reduction is lowered, :class:`Holdings` keeps, per rank,
the fragments of every value it holds and the operation that brought each;
before a send it forms every missing piece with binary reduction tasks
(``compute`` ops, each costing the collective's ``task_cost`` pro rata of
the fragment), and at the end it forms what the collective promises each
rank (a ReduceScatter's block, an AllReduce's whole result).

How a value ``V`` is formed on a fragment ``[s, e)`` (units of the
schedule's denominator) that the rank does not hold entirely: on each part
of the fragment it lacks, the largest value ``W`` the rank holds there
whose operands are a subset of ``V``'s (a contiguous sub-range, for the
ordered operator) is combined with what remains, formed the same way:
``W ⊕ (V \\ W)`` for a commutative reduction, ``left ⊕ W ⊕ right`` in
operand order otherwise. The validator checks every combination
(disjoint sets; adjacent ranges in order).

Examples
--------
A two-participant all-reduce in two steps of halves: each participant sends
the other half of its operand, then the half it has reduced.

>>> import collsched as cs
>>> from collsched.schedules import StepSchedule, Transfer
>>> from collsched.schedules.values import reduced
>>> p = cs.topologies.star(2)
>>> c = cs.AllReduce(participants=p.hosts, size=8, task_cost=10)
>>> one, both = reduced(0, [0]), reduced(0, [0, 1])
>>> s = StepSchedule(steps=[[Transfer("h0", "h1", part=(1, 2), values=[one]),
...                          Transfer("h1", "h0", part=(0, 1), values=[reduced(0, [1])])],
...                         [Transfer("h0", "h1", part=(0, 1), values=[both]),
...                          Transfer("h1", "h0", part=(1, 2), values=[both])]], denominator=2)
>>> prog = s.lower(p, c, sync="post_all")
>>> [op for op in prog if op.kind == "compute"][0]
Op(4: h0 compute 5 [Σ{0}@0[0:1], Σ{1}@0[0:1] -> Σ{0,1}@0[0:1]] after (3,))
>>> cs.validate(p, c, prog)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..errors import ScheduleError
from .values import PARTIAL, REDUCED, Part, Piece, Value

if TYPE_CHECKING:  # pragma: no cover
    from .program import ProgramBuilder

__all__ = ["Holdings", "REDUCTION_KINDS"]

REDUCTION_KINDS = ("reducescatter", "allreduce")
"""Collective kinds whose step schedules are lowered with :class:`Holdings`."""


def _gaps(frags: list[tuple[int, int, int | None]], s: int, e: int) -> list[tuple[int, int]]:
    """The parts of ``[s, e)`` that none of the fragments ``(start, end, op)`` covers."""
    out, at = [], s
    for a, b, _ in sorted(frags):
        if b <= at or a >= e:
            continue
        if a > at:
            out.append((at, a))
        at = max(at, b)
        if at >= e:
            break
    if at < e:
        out.append((at, e))
    return out


def _largest(v: Value, candidates: list[Value]) -> Value | None:
    """The candidate other than ``v`` with the most operands, all of them in ``v`` (ties: the smallest value)."""
    best, most = None, 0
    for w in candidates:
        if w != v and _inside(w, v):
            size = w.a.bit_count() if w.kind == REDUCED else w.b - w.a + 1
            if size > most or (size == most and w < best):
                best, most = w, size
    return best


def _inside(w: Value, v: Value) -> bool:
    """True if the operands of ``w`` are a subset of ``v``'s (a sub-range for partial results), same instance."""
    if w.kind != v.kind or w.inst != v.inst:
        return False
    if v.kind == REDUCED:
        return w.a & ~v.a == 0
    return v.a <= w.a and w.b <= v.b


class Holdings:
    """What each rank holds while a step schedule of a reduction is lowered; forms what it sends.

    Parameters
    ----------
    builder : ProgramBuilder
        The program being built (computations are appended to it).
    platform : Platform
        Gives the collective's initial and final values.
    collective : ReduceScatter, AllReduce or a Series of one
        Its instances' operands are the initial holdings.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Piece, reduced
    >>> p = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=p.hosts, size=1, task_cost=3)
    >>> b = ProgramBuilder(p.hosts, denominator=3)
    >>> h = Holdings(b, p, c)
    >>> _, recv = b.send("h0", "h1", [Piece(reduced(0, [0]), 1, 2)], size=1)
    >>> h.add("h1", [Piece(reduced(0, [0]), 1, 2)], recv)
    >>> h.form("h1", Piece(reduced(0, [0, 1]), 1, 2))
    [2]
    >>> b.build().op(2)
    Op(2: h1 compute 1 [Σ{0}@0[1:2], Σ{1}@0[1:2] -> Σ{0,1}@0[1:2]] after (1,))
    >>> h.form("h2", Piece(reduced(0, [0, 2]), 0, 1))
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: rank h2 cannot form Σ{0}@0 on [0/3, 1/3): it holds neither it nor a part of it there (send it there first)
    """

    def __init__(self, builder: ProgramBuilder, platform, collective):
        self.b = builder
        self.den = builder.denominator
        self.platform = platform
        self.collective = collective
        self.cost = float(getattr(collective.base, "task_cost", 0.0))
        self.held: dict[str, dict[Value, list[tuple[int, int, int | None]]]] = {}
        self.exact: dict[str, dict[tuple[int, int, int], list[Value]]] = {}  # (inst, start, end) -> values held so
        self.of_inst: dict[str, dict[int, list[Value]]] = {}  # inst -> the values held (only these can form its own)
        for inst in range(collective.count):
            initial, _ = collective.instance_values(platform, inst)
            for host, v in initial:
                self._record(host, v, 0, self.den, None)

    def _record(self, rank: str, v: Value, s: int, e: int, op: int | None) -> None:
        """``rank`` holds ``v`` on ``[s, e)`` once ``op`` is done (None: from the start)."""
        mine = self.held.setdefault(rank, {})
        if v not in mine:
            self.of_inst.setdefault(rank, {}).setdefault(v.inst, []).append(v)
        mine.setdefault(v, []).append((s, e, op))
        self.exact.setdefault(rank, {}).setdefault((v.inst, s, e), []).append(v)

    def add(self, rank: str, pieces: Iterable[Piece], op: int) -> None:
        """Record that operation ``op`` of ``rank`` (a receive) brought ``pieces``.

        Parameters
        ----------
        rank : str
            The receiving rank.
        pieces : iterable of Piece
            What the message carried.
        op : int
            The receive's id.

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.schedules.program import ProgramBuilder
        >>> from collsched.schedules.values import Piece, reduced
        >>> p = cs.topologies.star(2)
        >>> b = ProgramBuilder(p.hosts, denominator=2)
        >>> h = Holdings(b, p, cs.AllReduce(participants=p.hosts, size=8))
        >>> _, recv = b.send("h0", "h1", [Piece(reduced(0, [0]), 0, 2)], size=8)
        >>> h.add("h1", [Piece(reduced(0, [0]), 0, 2)], recv)
        >>> h.form("h1", Piece(reduced(0, [0]), 1, 2))  # held since the receive
        [1]
        """
        for p in pieces:
            self._record(rank, p.value, p.start, p.end, op)

    def form_all(self, rank: str, pieces: Iterable[Piece]) -> list[int]:
        """:meth:`form` every piece; the operations a send of them must wait for.

        Parameters
        ----------
        rank : str
            The sender.
        pieces : iterable of Piece
            What it sends.

        Returns
        -------
        list of int
            Operation ids of ``rank`` (receives or computations), without repeats.

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.schedules.program import ProgramBuilder
        >>> from collsched.schedules.values import Piece, reduced
        >>> p = cs.topologies.star(2)
        >>> b = ProgramBuilder(p.hosts, denominator=2)
        >>> h = Holdings(b, p, cs.AllReduce(participants=p.hosts, size=8))
        >>> h.form_all("h0", [Piece(reduced(0, [0]), 0, 1), Piece(reduced(0, [0]), 1, 2)])  # its own operand
        []
        """
        deps: list[int] = []
        for p in pieces:
            deps.extend(d for d in self.form(rank, p) if d not in deps)
        return deps

    def form(self, rank: str, piece: Piece) -> list[int]:
        """Make ``rank`` hold ``piece``, appending the reduction tasks it needs; the ops that bring it.

        Parameters
        ----------
        rank : str
            The rank.
        piece : Piece
            A value and a fragment ``[start, end)`` of the denominator.

        Returns
        -------
        list of int
            The operations of ``rank`` that brought (or now compute) the
            fragments covering ``piece``; held-from-the-start fragments need none.

        Raises
        ------
        ScheduleError
            If some part of the fragment cannot be formed from what the rank
            holds there (a block it lacks, an operand it has not received).

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.schedules.program import ProgramBuilder
        >>> from collsched.schedules.values import Piece, reduced
        >>> p = cs.topologies.star(2)
        >>> b = ProgramBuilder(p.hosts, denominator=2)
        >>> h = Holdings(b, p, cs.AllReduce(participants=p.hosts, size=8))
        >>> _, recv = b.send("h1", "h0", [Piece(reduced(0, [1]), 0, 1)], size=4)
        >>> h.add("h0", [Piece(reduced(0, [1]), 0, 1)], recv)
        >>> h.form("h0", Piece(reduced(0, [0, 1]), 0, 1)), b.build().op(2)
        ([2], Op(2: h0 compute 0 [Σ{0}@0[0:1], Σ{1}@0[0:1] -> Σ{0,1}@0[0:1]] after (1,)))
        >>> h.form("h0", Piece(reduced(0, [0, 1]), 1, 2))
        Traceback (most recent call last):
        ...
        collsched.errors.ScheduleError: rank h0 cannot form Σ{1}@0 on [1/2, 2/2): it holds neither it nor a part of it there (send it there first)
        """
        v, s, e = piece
        for gs, ge in _gaps(self.held.setdefault(rank, {}).get(v, []), s, e):
            self._record(rank, v, gs, ge, self._combine(rank, v, gs, ge))
        return sorted({op for a, b, op in self.held[rank][v] if op is not None and a < e and b > s})

    def _combine(self, rank: str, v: Value, s: int, e: int) -> int:
        """Append the tasks that form ``v`` on ``[s, e)`` (which ``rank`` lacks entirely); the last task's id."""
        if v.kind not in (REDUCED, PARTIAL):
            raise ScheduleError(f"rank {rank} sends {v!r} on [{s}/{self.den}, {e}/{self.den}), which it does not hold",
                                fix="send it there first")
        # step 1: the largest value held on all of [s, e) whose operands V contains (first among those held
        # on exactly [s, e) or whole, as rings and trees hold them; else among all)
        mine, exact = self.held[rank], self.exact[rank]
        best = _largest(v, exact.get((v.inst, s, e), []) + exact.get((v.inst, 0, self.den), []))
        if best is None:
            best = _largest(v, [w for w in self.of_inst.get(rank, {}).get(v.inst, ()) if not _gaps(mine[w], s, e)])
        if best is None:
            raise ScheduleError(f"rank {rank} cannot form {v!r} on [{s}/{self.den}, {e}/{self.den}): it holds "
                                "neither it nor a part of it there", fix="send it there first")
        w = best
        # step 2: combine it with the rest, formed the same way (in operand order for partial results)
        if v.kind == REDUCED:
            rest = Value(REDUCED, v.inst, v.a & ~w.a, 0)
            return self._task(rank, [w, rest], v, s, e)
        current, last = w, None
        if v.a < w.a:
            left = Value(PARTIAL, v.inst, v.a, w.a - 1)
            current = Value(PARTIAL, v.inst, v.a, w.b)
            last = self._task(rank, [left, w], current, s, e)
            if current != v:  # form() records v itself
                self._record(rank, current, s, e, last)
        if w.b < v.b:
            right = Value(PARTIAL, v.inst, w.b + 1, v.b)
            last = self._task(rank, [current, right], v, s, e)
        return last

    def _task(self, rank: str, inputs: list[Value], output: Value, s: int, e: int) -> int:
        """One binary reduction task on ``[s, e)``, after whatever brings its inputs there."""
        deps = [d for x in inputs for d in self.form(rank, Piece(x, s, e))]
        task = self.b.compute(rank, [Piece(x, s, e) for x in inputs], Piece(output, s, e),
                              self.cost * (e - s) / self.den, after=sorted(set(deps)))
        return task

    def finish(self) -> list[int]:
        """Form, on every rank, what the collective promises it (its block, or the whole result), where it can.

        Returns
        -------
        list of int
            Per instance, the id its first forming operation has (or would have).

        What cannot be formed (the schedule never brought a rank some
        operand, or the denominator cannot express a promised fraction) is
        left out, for the validator to report as missing.

        Examples
        --------
        >>> import collsched as cs
        >>> from collsched.schedules.program import ProgramBuilder
        >>> from collsched.schedules.values import Piece, reduced
        >>> p = cs.topologies.star(2)
        >>> b = ProgramBuilder(p.hosts, denominator=2)
        >>> h = Holdings(b, p, cs.AllReduce(participants=p.hosts, size=8))
        >>> h.finish()  # nothing was sent: neither can form the sum
        [0]
        >>> b.build().n_ops
        0
        """
        starts = []
        for inst in range(self.collective.count):
            starts.append(self.b.n_ops)
            _, finals = self.collective.instance_values(self.platform, inst)
            for host, item in finals:
                units = item.in_units(self.den) if isinstance(item, Part) else (0, self.den)
                if units is None:
                    continue
                try:
                    self.form(host, Piece(item.value if isinstance(item, Part) else item, *units))
                except ScheduleError:
                    continue
        return starts
