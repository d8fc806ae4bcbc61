"""The user's arguments as :mod:`.api`'s calls take them: ``MPI.IN_PLACE`` and non-contiguous arrays made plain.

The calls run on C-contiguous arrays with a separate send and receive
buffer. Their checks raise :class:`Adapt` (before any communication) on
an argument that is neither (a strided or Fortran-ordered array,
``MPI.IN_PLACE``), so plain arrays pay nothing for this module; the call
then starts again on :func:`adapt`'s arguments: a non-contiguous array is
copied into a contiguous one, and an output copied back after the call
(:func:`write_back`); ``MPI.IN_PLACE`` becomes a send buffer copied from
the receive buffer's data (its own block for ``allgather`` and
``gather``), or, for ``scatter``'s root, a scratch receive block.

============  =====================  ===========================================
kind          ``MPI.IN_PLACE`` as    the rank's operand, or what it receives
============  =====================  ===========================================
allreduce     ``sendbuf``            ``recvbuf``
reduce        ``sendbuf``, at root   ``recvbuf``
allgather     ``sendbuf``            block ``rank`` of ``recvbuf``
gather        ``sendbuf``, at root   block ``root`` of ``recvbuf``
scatter       ``recvbuf``, at root   nothing (block ``root`` stays in ``sendbuf``)
alltoall      ``sendbuf``            ``recvbuf``
============  =====================  ===========================================

Elsewhere (``MPI.IN_PLACE`` at a non-root rank, for ``bcast`` or
``alltoallv``) it becomes :data:`REFUSED`, which the call's check refuses
with one line (:func:`refuse_in_place`).

Examples
--------
>>> a = np.arange(6.0)[::2]
>>> a.flags.c_contiguous, contiguous(a).flags.c_contiguous
(False, True)
>>> out = np.zeros(6)[::2]
>>> write_back(np.array([1.0, 2.0, 3.0]), out)
>>> out.tolist()
[1.0, 2.0, 3.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["Adapt", "REFUSED", "contiguous", "write_back", "is_in_place", "refused", "refuse_in_place", "adapt"]


class Adapt(Exception):
    """Raised by a call's checks, before any communication, on an argument :func:`adapt` makes plain.

    Examples
    --------
    >>> issubclass(Adapt, Exception)
    True
    """


class _Refused:
    def __repr__(self) -> str:
        return "REFUSED"


#: What ``MPI.IN_PLACE`` becomes where MPI does not allow it: the call's check refuses it.
REFUSED = _Refused()


def is_in_place(a) -> bool:
    """``a`` is mpi4py's ``MPI.IN_PLACE`` (found without importing mpi4py, which would initialise MPI).

    Examples
    --------
    >>> is_in_place(None), is_in_place(np.zeros(1))
    (False, False)
    """
    t = type(a)
    return t.__name__ == "InPlaceType" and t.__module__.startswith("mpi4py")


def refused(a):
    """``a``, or :data:`REFUSED` if it is ``MPI.IN_PLACE`` (where the caller does not take it).

    Examples
    --------
    >>> refused(None) is None
    True
    """
    return REFUSED if is_in_place(a) else a


def refuse_in_place(a, name: str) -> None:
    """Raise the error for ``MPI.IN_PLACE`` where this call does not take it (``a`` is :data:`REFUSED`).

    Examples
    --------
    >>> refuse_in_place(REFUSED, "buf")
    Traceback (most recent call last):
    ...
    ValueError: buf is MPI.IN_PLACE, which MPI allows here only at the root ...: give the array
    """
    if a is REFUSED:
        raise ValueError(f"{name} is MPI.IN_PLACE, which MPI allows here only at the root (or not at all for this "
                         "collective): give the array")


def contiguous(a):
    """``a``, or a C-contiguous copy of it if it is a non-contiguous numpy array.

    Examples
    --------
    >>> b = np.zeros((3, 2), order="F")
    >>> contiguous(b).flags.c_contiguous, contiguous(b) is b
    (True, False)
    """
    if isinstance(a, np.ndarray) and not a.flags.c_contiguous:
        return np.ascontiguousarray(a)
    return a


def write_back(work, user) -> None:
    """Copy an output computed in ``work`` into the user's array, if ``work`` is a copy of it.

    Examples
    --------
    >>> u = np.zeros(2)
    >>> write_back(u, u)   # the same array: nothing to do
    """
    if work is not user and isinstance(user, np.ndarray) and isinstance(work, np.ndarray):
        user[...] = work.reshape(user.shape)


def _block(recv, index: int, n: int):
    """A copy of block ``index`` of ``n`` of ``recv`` (flat), or ``recv`` itself if it cannot be cut (refused later)."""
    if not isinstance(recv, np.ndarray) or recv.size % n:
        return recv
    k = recv.size // n
    return recv.reshape(-1)[index * k:(index + 1) * k].copy()


def adapt(kind: str, rank: int, n: int, root, sendbuf, recvbuf):
    """``(send, recv)`` for the call: contiguous arrays, ``MPI.IN_PLACE`` replaced where mpi4py accepts it.

    Parameters
    ----------
    kind : str
        ``"broadcast"`` (``sendbuf`` the buffer, ``recvbuf`` None), ``"allreduce"``, ``"reduce"``,
        ``"allgather"``, ``"gather"``, ``"scatter"`` or ``"alltoall"``.
    rank, n : int
        The calling rank and the communicator size.
    root : int or None
    sendbuf, recvbuf
        The user's arguments.

    Returns
    -------
    tuple
        The send and receive buffers to pass to the call; after it,
        :func:`write_back` the receive one into ``recvbuf``.

    Examples
    --------
    >>> class InPlaceType:  # stands in for mpi4py's
    ...     pass
    >>> InPlaceType.__module__ = "mpi4py.MPI"
    >>> send, recv = adapt("allgather", 1, 3, None, InPlaceType(), np.arange(6))
    >>> send.tolist(), recv.tolist()
    ([2, 3], [0, 1, 2, 3, 4, 5])
    """
    at_root = rank == root
    if kind == "scatter" and at_root and is_in_place(recvbuf):
        send = contiguous(refused(sendbuf))
        if isinstance(send, np.ndarray) and send.size % n == 0:
            return send, np.empty(send.size // n, dtype=send.dtype)
        return send, REFUSED
    recv = contiguous(refused(recvbuf))
    if is_in_place(sendbuf):
        if kind in ("allreduce", "alltoall") or kind == "reduce" and at_root:
            return (recv.copy() if isinstance(recv, np.ndarray) else recv), recv
        if kind == "allgather" or kind == "gather" and at_root:
            return _block(recv, rank, n), recv
    return contiguous(refused(sendbuf)), recv
