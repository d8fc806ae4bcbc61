"""Symbolic values carried by messages, so programs can be checked by execution.

A :class:`Value` is one of

* a **block** ``m[a→b]@t`` (``kind == BLOCK``): data of instance ``t`` that
  originates at host index ``a`` and is meant for host index ``b``, or for
  every host when ``b == -1`` (a broadcast message);
* a **partial result** ``v[k..m]@t`` (``kind == PARTIAL``): the ordered
  combination ``v_k ⊕ v_{k+1} ⊕ ... ⊕ v_m`` of the reduce operands of
  instance ``t`` (operand positions, not host indices);
* a **commutative reduction** ``Σ{i,j,...}@t`` (``kind == REDUCED``): the
  reduction of the operands of instance ``t`` at the positions of a set,
  stored as a Python int bitmask of any size (bit ``i`` is operand ``i``), in
  any order; two reductions of disjoint sets combine into the reduction of
  their union.

A :class:`Part` is what a collective promises of a value when it promises
only a fraction of it (a ReduceScatter's block ``[j/N, (j+1)/N)``), in exact
rationals; the validator turns it into pieces of the program's denominator.

A :class:`Piece` is a value or a contiguous fragment ``[start, end)`` of it,
measured in units of ``1/denominator`` of the whole value, where the
denominator belongs to the :class:`~collsched.schedules.program.Program`
(segmented broadcasts, split messages, periodic schedules).

Examples
--------
>>> v = partial(0, 2, 5)
>>> v
v[2..5]@0
>>> block(3, 0, 7), block(0, 1, -1)
(m[0→7]@3, m[1→*]@0)
>>> combine(partial(0, 0, 1), partial(0, 2, 5))
v[0..5]@0
>>> Piece(v, 0, 2)
v[2..5]@0[0:2]
>>> combine(reduced(0, [0, 3]), reduced(0, [5]))
Σ{0,3,5}@0
"""

from __future__ import annotations

import operator
from fractions import Fraction
from typing import Iterable, NamedTuple, Sequence

__all__ = ["Value", "Piece", "Part", "BLOCK", "PARTIAL", "REDUCED", "block", "partial", "reduced", "reduced_mask",
           "operands", "combine", "combine_commutative", "as_piece"]

BLOCK = 0
PARTIAL = 1
REDUCED = 2


class Value(NamedTuple):
    """A symbolic value: ``(kind, inst, a, b)``; see the module docstring.

    Attributes
    ----------
    kind : int
        :data:`BLOCK`, :data:`PARTIAL` or :data:`REDUCED`.
    inst : int
        The instance of the collective.
    a, b : int
        For a block, the source and destination host indices (``b == -1``:
        every host); for a partial result, the first and last operand
        positions; for a commutative reduction, ``a`` is the bitmask of the
        operand positions (a Python int of any size) and ``b`` is 0.

    Notes
    -----
    Make values with :func:`block`, :func:`partial` and :func:`reduced`. A
    value is a plain tuple of four ints, so it compares, hashes, pickles and
    sorts as one (partial results of one instance sort in operand order).
    Programs store it as an int64 array row; a reduction's mask, which may
    not fit, goes to the program's table of operand sets and the row holds
    its index there (:attr:`Program.operand_sets
    <collsched.schedules.program.Program.operand_sets>`).

    Examples
    --------
    >>> v = partial(0, 2, 5)
    >>> v.kind == PARTIAL, v.a, v.b
    (True, 2, 5)
    >>> tuple(block(1, 0, 3))
    (0, 1, 0, 3)
    >>> sorted([partial(0, 2, 3), partial(0, 0, 1)])
    [v[0..1]@0, v[2..3]@0]
    """

    kind: int
    inst: int
    a: int
    b: int

    def __repr__(self) -> str:
        if self.kind == PARTIAL:
            return f"v[{self.a}..{self.b}]@{self.inst}"
        if self.kind == REDUCED:
            return f"Σ{{{_positions_text(operands(self))}}}@{self.inst}"
        return f"m[{self.a}→{'*' if self.b < 0 else self.b}]@{self.inst}"

    def describe(self, hosts: Sequence[str]) -> str:
        """The value with host names instead of indices (for error messages).

        Parameters
        ----------
        hosts : sequence of str
            Host ids by index (:attr:`Platform.hosts <collsched.platform.Platform.hosts>`).

        Returns
        -------
        str
            ``m[src→dst]@t`` with host names (an index out of range stays a
            number); a partial result or a reduction (whose numbers are
            operand positions) is written as its ``repr``.

        Examples
        --------
        >>> block(0, 1, 0).describe(["a", "b"])
        'm[b→a]@0'
        >>> reduced(2, [1, 0]).describe(["a", "b"])
        'Σ{0,1}@2'
        """
        if self.kind != BLOCK:
            return repr(self)
        name = lambda i: "*" if i < 0 else (hosts[i] if i < len(hosts) else str(i))  # noqa: E731
        return f"m[{name(self.a)}→{name(self.b)}]@{self.inst}"


def block(inst: int, src: int, dst: int) -> Value:
    """The block of instance ``inst`` from host index ``src`` to ``dst`` (``-1``: everyone).

    Parameters
    ----------
    inst : int
        Instance of the collective.
    src, dst : int
        Host indices (:meth:`Platform.host_index <collsched.platform.Platform.host_index>`);
        ``dst == -1`` for a broadcast message.

    Returns
    -------
    Value
        ``m[src→dst]@inst``.

    Examples
    --------
    >>> block(0, 2, 5), block(3, 0, -1)
    (m[2→5]@0, m[0→*]@3)
    >>> block(0, 2, 5).kind == BLOCK
    True
    """
    return Value(BLOCK, inst, src, dst)


def partial(inst: int, k: int, m: int) -> Value:
    """The partial result ``v[k..m]`` of reduce instance ``inst``.

    Parameters
    ----------
    inst : int
        Instance of the reduce.
    k, m : int
        First and last operand positions, ``k <= m``; ``partial(t, k, k)``
        is operand ``v_k`` itself.

    Returns
    -------
    Value
        ``v[k..m]@inst``.

    Examples
    --------
    >>> partial(1, 0, 3)
    v[0..3]@1
    >>> combine(partial(0, 0, 0), partial(0, 1, 1)) == partial(0, 0, 1)
    True
    """
    return Value(PARTIAL, inst, k, m)


def reduced(inst: int, positions: Iterable[int]) -> Value:
    """The commutative reduction of the operands of instance ``inst`` at ``positions``.

    Parameters
    ----------
    inst : int
        Instance of the collective.
    positions : iterable of int
        Operand positions (participant positions), each ``>= 0``, at least
        one; repeats are ignored. Any number of them (256 and more).

    Returns
    -------
    Value
        ``Σ{positions}@inst``: ``Value(REDUCED, inst, mask, 0)``, bit ``i``
        of ``mask`` set for each position ``i``.

    Raises
    ------
    ValueError
        If ``positions`` is empty or has a negative or non-integer entry.

    Examples
    --------
    >>> reduced(0, [5, 0, 3])
    Σ{0,3,5}@0
    >>> reduced(1, [2]).a
    4
    >>> reduced(0, range(300))
    Σ{0..299}@0
    >>> operands(reduced(0, range(0, 600, 2)))[-1]
    598
    >>> reduced(0, [1.5])
    Traceback (most recent call last):
    ...
    ValueError: operand position 1.5 is not an integer >= 0
    """
    mask = 0
    for i in positions:
        try:
            k = operator.index(i)
        except TypeError:
            k = -1
        if isinstance(i, bool) or k < 0:
            raise ValueError(f"operand position {i!r} is not an integer >= 0")
        mask |= 1 << k
    return reduced_mask(inst, mask)


def reduced_mask(inst: int, mask: int) -> Value:
    """The commutative reduction of instance ``inst`` over the operand set ``mask`` (bit ``i``: operand ``i``).

    Parameters
    ----------
    inst : int
        Instance of the collective.
    mask : int
        A positive bitmask (a Python int of any size).

    Returns
    -------
    Value
        ``Value(REDUCED, inst, mask, 0)``.

    Raises
    ------
    ValueError
        If ``mask`` is not a positive integer.

    Examples
    --------
    >>> reduced_mask(0, 0b101)
    Σ{0,2}@0
    >>> reduced_mask(0, 0)
    Traceback (most recent call last):
    ...
    ValueError: operand set 0 is empty or not a bitmask (give an int > 0, bit i for operand i)
    """
    if isinstance(mask, bool) or not isinstance(mask, int) or mask <= 0:
        raise ValueError(f"operand set {mask!r} is empty or not a bitmask (give an int > 0, bit i for operand i)")
    return Value(REDUCED, int(inst), mask, 0)


def operands(value: Value) -> tuple[int, ...]:
    """The operand positions a partial result or a reduction combines, increasing.

    Parameters
    ----------
    value : Value
        A :data:`PARTIAL` or :data:`REDUCED` value.

    Returns
    -------
    tuple of int

    Raises
    ------
    ValueError
        For a block, which combines no operands.

    Examples
    --------
    >>> operands(reduced(0, [7, 2])), operands(partial(0, 1, 3))
    ((2, 7), (1, 2, 3))
    """
    if value.kind == PARTIAL:
        return tuple(range(value.a, value.b + 1))
    if value.kind != REDUCED:
        raise ValueError(f"{value!r} is a block, not a combination of operands")
    mask, out = value.a, []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def _positions_text(positions: Sequence[int], shown: int = 8) -> str:
    """``0,3,5``; ``0..299`` for a run of three or more; a long irregular set shortened, with its size."""
    if len(positions) >= 3 and positions[-1] - positions[0] + 1 == len(positions):
        return f"{positions[0]}..{positions[-1]}"
    if len(positions) <= shown:
        return ",".join(map(str, positions))
    return ",".join(map(str, positions[:shown - 1])) + f",...,{positions[-1]} ({len(positions)} operands)"


def combine(*inputs: Value) -> Value:
    """The combination of partial results (in operand order) or of reductions (of disjoint operand sets).

    Parameters
    ----------
    *inputs : Value
        Two or more values of one instance, either all partial results
        ``v[k..l]``, ``v[l+1..m]``, ... adjacent and in order, or all
        commutative reductions whose operand sets are pairwise disjoint
        (in any order).

    Returns
    -------
    Value
        ``v[k..m]``, or the reduction of the union of the operand sets.

    Raises
    ------
    ValueError
        If the inputs do not combine so (fewer than two, different kinds or
        instances, not adjacent in order, or overlapping sets).

    Examples
    --------
    >>> combine(partial(0, 0, 1), partial(0, 2, 2), partial(0, 3, 5))
    v[0..5]@0
    >>> combine(reduced(0, [4]), reduced(0, [0, 1]))
    Σ{0,1,4}@0
    >>> combine(partial(0, 3, 3), partial(0, 1, 2))
    Traceback (most recent call last):
    ...
    ValueError: cannot combine v[3..3]@0 with v[1..2]@0: operands must be adjacent and in order
    >>> combine(reduced(0, [0, 1]), reduced(0, [1, 2]))
    Traceback (most recent call last):
    ...
    ValueError: cannot combine Σ{0,1}@0 with Σ{1,2}@0: their operand sets overlap (operand 1 would count twice)
    """
    if len(inputs) >= 2 and inputs[0].kind == REDUCED:
        return combine_commutative(*inputs)
    for left, right in zip(inputs, inputs[1:]):
        if left.kind != PARTIAL or right.kind != PARTIAL or left.inst != right.inst or left.b + 1 != right.a:
            raise ValueError(f"cannot combine {left!r} with {right!r}: operands must be adjacent and in order")
    if len(inputs) < 2:
        raise ValueError(f"cannot combine {len(inputs)} value(s): give at least two")
    return Value(PARTIAL, inputs[0].inst, inputs[0].a, inputs[-1].b)


def combine_commutative(*inputs: Value) -> Value:
    """The reduction of the union of the operand sets of reductions with pairwise disjoint sets.

    Parameters
    ----------
    *inputs : Value
        Two or more :data:`REDUCED` values of one instance, any order.

    Returns
    -------
    Value
        ``Σ{union}@inst``.

    Raises
    ------
    ValueError
        Fewer than two inputs, a value that is not a reduction, two
        instances, or two sets that share an operand.

    Examples
    --------
    >>> combine_commutative(reduced(1, [3]), reduced(1, [0]))
    Σ{0,3}@1
    >>> combine_commutative(reduced(0, [0]), reduced(1, [1]))
    Traceback (most recent call last):
    ...
    ValueError: cannot combine Σ{0}@0 with Σ{1}@1: they are not reductions of one instance
    """
    if len(inputs) < 2:
        raise ValueError(f"cannot combine {len(inputs)} value(s): give at least two")
    mask = 0
    for v in inputs:
        if v.kind != REDUCED or v.inst != inputs[0].inst:
            raise ValueError(f"cannot combine {inputs[0]!r} with {v!r}: they are not reductions of one instance")
        if mask & v.a:
            first = operands(reduced_mask(0, mask & v.a))[0]
            prior = next(u for u in inputs if u.a & (1 << first))
            raise ValueError(f"cannot combine {prior!r} with {v!r}: their operand sets overlap "
                             f"(operand {first} would count twice)")
        mask |= v.a
    return Value(REDUCED, inputs[0].inst, mask, 0)


class Piece(NamedTuple):
    """A fragment ``[start, end)`` of a value, in units of ``1/denominator``.

    Attributes
    ----------
    value : Value
        The whole value.
    start, end : int
        The fragment, ``0 <= start < end <= denominator`` of the program.

    Examples
    --------
    The second quarter of a block, in a program of denominator 4:

    >>> p = Piece(block(0, 0, 1), 1, 2)
    >>> p
    m[0→1]@0[1:2]
    >>> p.value, p.end - p.start
    (m[0→1]@0, 1)
    """

    value: Value
    start: int
    end: int

    def __repr__(self) -> str:
        return f"{self.value!r}[{self.start}:{self.end}]"


class Part(NamedTuple):
    """The fraction ``[start, end)`` of a whole value (exact rationals in ``[0, 1]``) that a collective promises.

    A ReduceScatter promises participant ``P_j`` only the fragment ``[j/N,
    (j+1)/N)`` of the full reduction; programs hold it as pieces of their own
    denominator, which must be a multiple of ``N`` to express it.

    Attributes
    ----------
    value : Value
        The whole value.
    start, end : Fraction
        ``0 <= start < end <= 1``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> p = Part(reduced(0, range(3)), Fraction(1, 3), Fraction(2, 3))
    >>> p
    Σ{0..2}@0[1/3:2/3]
    >>> p.in_units(6), p.in_units(4)
    ((2, 4), None)
    """

    value: Value
    start: Fraction
    end: Fraction

    def __repr__(self) -> str:
        return f"{self.value!r}[{self.start}:{self.end}]"

    def in_units(self, denominator: int) -> tuple[int, int] | None:
        """``(start, end)`` in units of ``1/denominator``, or None if they are not whole units.

        Parameters
        ----------
        denominator : int
            A program's denominator.

        Returns
        -------
        (int, int) or None

        Examples
        --------
        >>> Part(reduced(0, [0, 1]), Fraction(1, 2), Fraction(1)).in_units(4)
        (2, 4)
        """
        s, e = self.start * denominator, self.end * denominator
        if s.denominator != 1 or e.denominator != 1:
            return None
        return int(s), int(e)


def as_piece(item: Value | Piece, denominator: int) -> Piece:
    """A whole value becomes the piece ``[0, denominator)``; a piece stays as it is.

    Parameters
    ----------
    item : Value or Piece
        What a message or computation names.
    denominator : int
        The program's unit of pieces.

    Returns
    -------
    Piece

    Raises
    ------
    TypeError
        If ``item`` is neither a :class:`Value` nor a :class:`Piece`.

    Examples
    --------
    >>> as_piece(partial(0, 0, 1), 4)
    v[0..1]@0[0:4]
    >>> as_piece(Piece(partial(0, 0, 1), 1, 2), 4)
    v[0..1]@0[1:2]
    >>> as_piece((1, 0, 0, 1), 4)
    Traceback (most recent call last):
    ...
    TypeError: (1, 0, 0, 1) is neither a Value nor a Piece
    """
    if isinstance(item, Piece):
        return item
    if isinstance(item, Value):
        return Piece(item, 0, denominator)
    raise TypeError(f"{item!r} is neither a Value nor a Piece")
