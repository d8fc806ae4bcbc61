"""The real data the MPI runtime moves: contents of symbolic values, message buffers, the operator.

Every symbolic value of a program (:mod:`collsched.schedules.values`) gets a
deterministic content, cut into ``denominator`` segments (a piece ``[s, e)``
carries segments ``s .. e-1``), so that any rank can compute what it should
receive without asking anyone:

* a block ``m[a→b]@t``, segment ``s``: one 62-bit integer, a hash of
  ``(t, a, b, s)``;
* a reduce operand ``v[k..k]@t``, segment ``s``: a 2×2 matrix of integers
  modulo the prime :data:`PRIME`, a hash of ``(t, k, s)``; a partial result
  ``v[k..m]@t`` is the product ``v_k · v_{k+1} ··· v_m`` (mod :data:`PRIME`),
  in operand order. Matrix products do not commute, so a reduction that
  combines operands out of order gives a different matrix;
* a commutative reduction's operand ``Σ{k}@t``, segment ``s``: one integer
  below :data:`PRIME`, a hash of ``(t, k, s)`` (:func:`summand`); a
  reduction ``Σ{S}@t`` is the sum of its operands' integers (int64; it
  cannot overflow below 2**32 operands), so a reduction that counts an
  operand twice, or misses one, gives a different sum.

A message buffer is the contents of its pieces (int64, in piece order) then a
**filler** of pseudo-random bytes derived from ``(message id, repetition)``
up to the message's byte count, so that a message moves as many bytes as
the program says (at least its header). The receiver compares every byte
with what it expects.

Examples
--------
>>> from collsched.schedules.values import partial
>>> a, b = operand(0, 0, 0), operand(0, 1, 0)
>>> bool((matmul(a, b) == matmul(b, a)).all())
False
>>> bool((content(partial(0, 0, 1), 0) == matmul(a, b)).all())
True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..schedules.values import PARTIAL, REDUCED, Piece, Value, operands

__all__ = ["PRIME", "operand", "summand", "matmul", "content", "header", "filler", "message_bytes", "split_header",
           "header_words"]

PRIME = 2_147_483_647
"""The modulus of the matrix entries (2**31 - 1: products of two entries fit in int64)."""

def _mix(*words) -> np.ndarray:
    """splitmix64 over ``words`` (ints or uint64 arrays, broadcast): a deterministic 64-bit hash."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    x = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        for w in words:
            x = x + np.asarray(w).astype(np.uint64) + golden
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x = x ^ (x >> np.uint64(31))
    return x


def operand(inst: int, k: int, segment) -> np.ndarray:
    """Segment(s) ``segment`` of reduce operand ``v_k`` of instance ``inst``: 2×2 matrices mod :data:`PRIME`.

    Parameters
    ----------
    inst, k : int
        Instance, operand position.
    segment : int or array of int
        Segment(s).

    Returns
    -------
    numpy.ndarray
        Shape ``(2, 2)`` (or ``(n, 2, 2)`` for ``n`` segments), int64,
        entries in ``0 .. PRIME - 1``.

    Examples
    --------
    >>> operand(0, 3, 1).shape, operand(0, 3, np.arange(5)).shape
    ((2, 2), (5, 2, 2))
    >>> bool((operand(0, 3, np.arange(5))[1] == operand(0, 3, 1)).all())
    True
    """
    seg = np.asarray(segment)
    words = _mix(1, inst, k, seg[..., None], np.arange(4)) % np.uint64(PRIME)
    return words.astype(np.int64).reshape(seg.shape + (2, 2))


def summand(inst: int, k: int, segment) -> np.ndarray:
    """Segment(s) ``segment`` of the commutative reduction's operand ``k`` of instance ``inst``: integers below :data:`PRIME`.

    Parameters
    ----------
    inst, k : int
        Instance, operand position (``k`` may be an array, broadcast against ``segment``).
    segment : int or array of int
        Segment(s).

    Returns
    -------
    numpy.ndarray
        int64, the broadcast shape of ``k`` and ``segment``.

    Examples
    --------
    >>> summand(0, 3, np.arange(4)).shape, bool((summand(0, 3, 2) < PRIME).all())
    ((4,), True)
    >>> bool(summand(0, 3, 2) == summand(0, 4, 2))
    False
    """
    return (_mix(5, inst, k, np.asarray(segment)) % np.uint64(PRIME)).astype(np.int64)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a · b`` modulo :data:`PRIME`, for 2×2 matrices (or stacks of them, shape ``(..., 2, 2)``).

    Parameters
    ----------
    a, b : numpy.ndarray
        int64 matrices with entries below :data:`PRIME`.

    Returns
    -------
    numpy.ndarray
        The product, entries reduced modulo :data:`PRIME`.

    Examples
    --------
    >>> matmul(np.array([[1, 2], [3, 4]]), np.array([[0, 1], [1, 0]])).tolist()
    [[2, 1], [4, 3]]
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.int64)
    for i in range(2):
        for j in range(2):
            out[..., i, j] = (a[..., i, 0] * b[..., 0, j] % PRIME + a[..., i, 1] * b[..., 1, j] % PRIME) % PRIME
    return out


def content(value: Value, segment: int) -> np.ndarray:
    """What segment ``segment`` of ``value`` holds when computed directly (in operand order for a partial).

    Parameters
    ----------
    value : Value
        A block or a partial result.
    segment : int

    Returns
    -------
    numpy.ndarray
        int64, shape ``(1,)`` for a block or a commutative reduction (the
        sum of its operands' :func:`summand`), ``(2, 2)`` for a partial result.

    Examples
    --------
    >>> from collsched.schedules.values import block, partial, reduced
    >>> content(block(0, 1, 2), 0).shape, content(partial(0, 0, 3), 0).shape
    ((1,), (2, 2))
    >>> int(content(reduced(0, [1, 5]), 3)[0]) == int(summand(0, 1, 3) + summand(0, 5, 3))
    True
    """
    if value.kind == REDUCED:
        return np.array([int(summand(value.inst, np.array(operands(value)), segment).sum())], dtype=np.int64)
    if value.kind == PARTIAL:
        out = operand(value.inst, value.a, segment)
        for k in range(value.a + 1, value.b + 1):
            out = matmul(out, operand(value.inst, k, segment))
        return out
    return np.array([_mix(2, value.inst, value.a, value.b, segment) >> np.uint64(2)], dtype=np.int64)


def header_words(pieces: Sequence[Piece]) -> int:
    """Number of int64 words the contents of ``pieces`` take in a message.

    Examples
    --------
    >>> from collsched.schedules.values import block, partial
    >>> header_words([Piece(block(0, 0, 1), 0, 2), Piece(partial(0, 0, 1), 1, 2)])
    6
    """
    return sum((4 if p.value.kind == PARTIAL else 1) * (p.end - p.start) for p in pieces)


def header(pieces: Sequence[Piece], store) -> np.ndarray:
    """The int64 words of ``pieces`` read from ``store`` (a mapping ``(value, segment) -> content``).

    Parameters
    ----------
    pieces : sequence of Piece
    store : mapping
        Keys ``(Value, segment)``; a missing key raises ``KeyError``.

    Returns
    -------
    numpy.ndarray
        int64, :func:`header_words` long.

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> v = block(0, 0, 1)
    >>> header([Piece(v, 0, 1)], {(v, 0): np.array([7])}).tolist()
    [7]
    """
    parts = [np.asarray(store[(p.value, s)], dtype=np.int64).reshape(-1) for p in pieces
             for s in range(p.start, p.end)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


def split_header(words: np.ndarray, pieces: Sequence[Piece]) -> list[tuple[tuple[Value, int], np.ndarray]]:
    """The ``((value, segment), content)`` pairs a header carries (the inverse of :func:`header`).

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> v = block(0, 0, 1)
    >>> split_header(np.array([5, 6]), [Piece(v, 0, 2)])
    [((m[0→1]@0, 0), array([5])), ((m[0→1]@0, 1), array([6]))]
    """
    out, i = [], 0
    for p in pieces:
        n = 4 if p.value.kind == PARTIAL else 1
        for s in range(p.start, p.end):
            chunk = words[i:i + n]
            out.append(((p.value, s), chunk.reshape(2, 2) if n == 4 else chunk))
            i += n
    return out


def filler(n: int, msg: int, rep: int) -> np.ndarray:
    """``n`` pseudo-random bytes derived from ``(msg, rep)``: the body of a message.

    Examples
    --------
    >>> a, b = filler(64, 3, 1), filler(64, 3, 2)
    >>> a.dtype, bool((a == filler(64, 3, 1)).all()), bool((a == b).all()), bool((filler(16, 3, 1) == a[:16]).all())
    (dtype('uint8'), True, False, True)
    """
    # a 64 KiB pattern keyed by (msg, rep), each 64 KiB chunk xor-ed with a hash of its position
    words = -(-n // 8)
    pattern = _mix(3, msg, rep, np.arange(min(words, _CHUNK)))
    chunks = -(-words // _CHUNK)
    words = pattern[None, :] ^ _mix(4, msg, rep, np.arange(chunks))[:, None]
    return words.reshape(-1).view(np.uint8)[:n].copy()


_CHUNK = 8192  # words of the filler pattern


def message_bytes(size: float, words: int) -> int:
    """Bytes a message of ``size`` bytes carrying ``words`` header words occupies: at least its header.

    Examples
    --------
    >>> message_bytes(1e3, 4), message_bytes(8, 4)
    (1000, 32)
    """
    return max(int(round(size)), 8 * words)
