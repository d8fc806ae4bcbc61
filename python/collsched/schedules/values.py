"""Symbolic values carried by messages, so programs can be checked by execution.

A :class:`Value` is one of

* a **block** ``m[a→b]@t`` (``kind == BLOCK``): data of instance ``t`` that
  originates at host index ``a`` and is meant for host index ``b``, or for
  every host when ``b == -1`` (a broadcast message);
* a **partial result** ``v[k..m]@t`` (``kind == PARTIAL``): the ordered
  combination ``v_k ⊕ v_{k+1} ⊕ ... ⊕ v_m`` of the reduce operands of
  instance ``t`` (operand positions, not host indices).

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
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

__all__ = ["Value", "Piece", "BLOCK", "PARTIAL", "block", "partial", "combine", "as_piece"]

BLOCK = 0
PARTIAL = 1


class Value(NamedTuple):
    """A symbolic value: ``(kind, inst, a, b)``; see the module docstring.

    Attributes
    ----------
    kind : int
        :data:`BLOCK` or :data:`PARTIAL`.
    inst : int
        The instance of the collective.
    a, b : int
        For a block, the source and destination host indices (``b == -1``:
        every host); for a partial result, the first and last operand positions.

    Notes
    -----
    Make values with :func:`block` and :func:`partial`. A value is a plain
    tuple of four ints, so it compares, hashes and sorts as one (partial
    results of one instance sort in operand order), and programs store it
    as an array row.

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
            number); a partial result is written as its ``repr``.

        Examples
        --------
        >>> block(0, 1, 0).describe(["a", "b"])
        'm[b→a]@0'
        """
        if self.kind == PARTIAL:
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


def combine(left: Value, right: Value) -> Value:
    """``left ⊕ right`` for adjacent partial results of the same instance.

    Parameters
    ----------
    left, right : Value
        ``v[k..l]`` and ``v[l+1..m]`` of one instance.

    Returns
    -------
    Value
        ``v[k..m]``.

    Raises
    ------
    ValueError
        If they are not ``v[k..l]`` and ``v[l+1..m]`` of one instance.

    Examples
    --------
    >>> combine(partial(0, 3, 3), partial(0, 1, 2))
    Traceback (most recent call last):
    ...
    ValueError: cannot combine v[3..3]@0 with v[1..2]@0: operands must be adjacent and in order
    """
    if left.kind != PARTIAL or right.kind != PARTIAL or left.inst != right.inst or left.b + 1 != right.a:
        raise ValueError(f"cannot combine {left!r} with {right!r}: operands must be adjacent and in order")
    return Value(PARTIAL, left.inst, left.a, right.b)


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
