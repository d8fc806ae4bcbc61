"""``bcast``, ``reduce``, ``allreduce``, ``scatter``, ``gather``, ``allgather``, ``alltoall`` on numpy arrays.

Each function takes the arguments of the mpi4py call it replaces (buffers
are numpy arrays, C-contiguous, any dtype), plus ``plans=`` (a folder
written by ``collsched plan-suite``, or a :class:`~.plans.PlanSet`), and
runs through :func:`.calls.call`. Reductions take ``op``: an ``MPI.Op``
(``MPI.SUM``, ``MPI.PROD``, ``MPI.MIN``, ``MPI.MAX``, ... or one made with
``MPI.Op.Create``; commutative if ``op.Is_commutative()``), or a callable
``f(a, b) -> array`` where ``a`` holds the lower ranks' operands, treated
as non-commutative unless ``commute=True``. A reduction's arrays are cut
along their first axis only, so ``f`` always sees whole rows (an ``(m, 2,
2)`` array of matrices gives ``f`` stacks of whole matrices).

Examples
--------
>>> from collsched.mpi.api import _rows
>>> _rows(np.arange(6).reshape(3, 2), "sendbuf").shape
(3, 2)
>>> _bytes(np.arange(3, dtype=np.int16), "buf").tolist()
[0, 0, 1, 0, 2, 0]
"""

from __future__ import annotations

import numpy as np

from .calls import call
from .layout import OperatorFailed

__all__ = ["bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall"]


def _array(a, name: str) -> np.ndarray:
    if not isinstance(a, np.ndarray):
        raise TypeError(f"{name} is a {type(a).__name__}, not a numpy array")
    if not a.flags.c_contiguous:
        raise ValueError(f"{name} is not C-contiguous (np.ascontiguousarray makes a copy that is)")
    return a


def _bytes(a, name: str) -> np.ndarray:
    return _array(a, name).reshape(-1).view(np.uint8)


def _rows(a, name: str) -> np.ndarray:
    a = _array(a, name)
    return a.reshape(1) if a.ndim == 0 else a


def _attempt(build):
    """``(buffers..., None)`` from ``build()``, or ``(None..., reason)`` if the user's arguments are wrong."""
    try:
        return (*build(), None)
    except (TypeError, ValueError) as exc:
        return None, None, 0, 0, None, str(exc)


def _root(comm, root) -> int:
    n = comm.Get_size()
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < n:
        raise ValueError(f"root={root!r} is not a rank of the communicator (0 .. {n - 1})")
    return int(root)


def _copy(comm, kind, root, build, fallback, plans):
    send, recv, size, units, dtype, reason = _attempt(build)
    call(comm, kind, send, recv, size=size, units=units, root=root, plans=plans, dtype=dtype,
         check=lambda: reason, fallback=lambda c: fallback(c, send, recv))


def bcast(comm, buf: np.ndarray, root: int = 0, *, plans=None) -> np.ndarray:
    """Broadcast ``buf`` from ``root`` (``MPI_Bcast``), by the planned schedule when one fits.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    buf : numpy.ndarray
        C-contiguous, the same size and dtype on every rank; overwritten except at the root.
    root : int
    plans : str, path-like or PlanSet, optional
        The plan folder (``collsched plan-suite``) or set; without one, MPI's own collective runs.

    Returns
    -------
    numpy.ndarray
        ``buf``.

    Raises
    ------
    MPICallError
        On every rank, naming the rank and the reason (a wrong buffer, a plan
        for another communicator size or platform, a rank that failed).

    Examples
    --------
    Inside an mpi4py program (``mpirun -n 8 python app.py``)::

        buf = np.arange(1 << 20, dtype=np.float64) if comm.rank == 0 else np.empty(1 << 20)
        csmpi.bcast(comm, buf, root=0, plans="plans/")

    >>> callable(bcast)
    True
    """
    def build():
        _root(comm, root)
        flat = _bytes(buf, "buf")
        return flat, flat, flat.shape[0], flat.shape[0], buf.dtype

    def fallback(c, send, recv):
        from mpi4py import MPI
        c.Bcast([send, MPI.BYTE], root=root)

    _copy(comm, "broadcast", root, build, fallback, plans)
    return buf


def scatter(comm, sendbuf: np.ndarray | None, recvbuf: np.ndarray, root: int = 0, *, plans=None) -> np.ndarray:
    """Scatter equal blocks of ``sendbuf`` (at ``root``) into every rank's ``recvbuf`` (``MPI_Scatter``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf : numpy.ndarray or None
        At the root: ``comm.size`` blocks of ``recvbuf.nbytes`` bytes, rank order; ignored elsewhere.
    recvbuf : numpy.ndarray
    root : int
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray
        ``recvbuf``.

    Raises
    ------
    MPICallError
        See :func:`bcast`.

    Examples
    --------
    >>> callable(scatter)
    True
    """
    n = comm.Get_size()

    def build():
        me = comm.Get_rank()
        _root(comm, root)
        recv = _bytes(recvbuf, "recvbuf")
        send = None
        if me == root:
            send = _bytes(sendbuf, "sendbuf")
            if send.shape[0] != n * recv.shape[0] or sendbuf.dtype != recvbuf.dtype:
                raise ValueError(f"sendbuf ({send.shape[0]} bytes of {sendbuf.dtype}) is not {n} blocks of recvbuf "
                                 f"({recv.shape[0]} bytes of {recvbuf.dtype})")
        return send, recv, recv.shape[0], recv.shape[0], recvbuf.dtype

    def fallback(c, send, recv):
        from mpi4py import MPI
        c.Scatter(None if send is None else [send, MPI.BYTE], [recv, MPI.BYTE], root=root)

    _copy(comm, "scatter", root, build, fallback, plans)
    return recvbuf


def gather(comm, sendbuf: np.ndarray, recvbuf: np.ndarray | None, root: int = 0, *, plans=None):
    """Gather every rank's ``sendbuf`` into ``recvbuf`` at ``root``, in rank order (``MPI_Gather``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf : numpy.ndarray
    recvbuf : numpy.ndarray or None
        At the root: room for ``comm.size`` blocks of ``sendbuf.nbytes`` bytes; ignored elsewhere.
    root : int
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray or None
        ``recvbuf``.

    Raises
    ------
    MPICallError
        See :func:`bcast`.

    Examples
    --------
    >>> callable(gather)
    True
    """
    n = comm.Get_size()

    def build():
        _root(comm, root)
        send = _bytes(sendbuf, "sendbuf")
        recv = None
        if comm.Get_rank() == root:
            recv = _blocks(recvbuf, sendbuf, n)
        return send, recv, send.shape[0], send.shape[0], sendbuf.dtype

    def fallback(c, send, recv):
        from mpi4py import MPI
        c.Gather([send, MPI.BYTE], None if recv is None else [recv, MPI.BYTE], root=root)

    _copy(comm, "gather", root, build, fallback, plans)
    return recvbuf


def _blocks(recvbuf, sendbuf, n: int) -> np.ndarray:
    recv = _bytes(recvbuf, "recvbuf")
    if recv.shape[0] != n * sendbuf.nbytes or sendbuf.dtype != recvbuf.dtype:
        raise ValueError(f"recvbuf ({recv.shape[0]} bytes of {recvbuf.dtype}) is not {n} blocks of sendbuf "
                         f"({sendbuf.nbytes} bytes of {sendbuf.dtype})")
    return recv


def allgather(comm, sendbuf: np.ndarray, recvbuf: np.ndarray, *, plans=None) -> np.ndarray:
    """Every rank ends with every rank's ``sendbuf``, in rank order (``MPI_Allgather``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf, recvbuf : numpy.ndarray
        ``recvbuf`` holds ``comm.size`` blocks of ``sendbuf.nbytes`` bytes.
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray
        ``recvbuf``.

    Raises
    ------
    MPICallError
        See :func:`bcast`.

    Examples
    --------
    >>> callable(allgather)
    True
    """
    n = comm.Get_size()

    def build():
        send = _bytes(sendbuf, "sendbuf")
        return send, _blocks(recvbuf, sendbuf, n), send.shape[0], send.shape[0], sendbuf.dtype

    def fallback(c, send, recv):
        from mpi4py import MPI
        c.Allgather([send, MPI.BYTE], [recv, MPI.BYTE])

    _copy(comm, "allgather", None, build, fallback, plans)
    return recvbuf


def alltoall(comm, sendbuf: np.ndarray, recvbuf: np.ndarray, *, plans=None) -> np.ndarray:
    """Block ``j`` of rank ``i``'s ``sendbuf`` becomes block ``i`` of rank ``j``'s ``recvbuf`` (``MPI_Alltoall``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf, recvbuf : numpy.ndarray
        ``comm.size`` equal blocks each, the same size and dtype.
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray
        ``recvbuf``.

    Raises
    ------
    MPICallError
        See :func:`bcast`.

    Examples
    --------
    >>> callable(alltoall)
    True
    """
    n = comm.Get_size()

    def build():
        send, recv = _bytes(sendbuf, "sendbuf"), _bytes(recvbuf, "recvbuf")
        if send.shape[0] % n or recv.shape[0] != send.shape[0] or sendbuf.dtype != recvbuf.dtype:
            raise ValueError(f"sendbuf ({send.shape[0]} bytes of {sendbuf.dtype}) and recvbuf ({recv.shape[0]} bytes "
                             f"of {recvbuf.dtype}) are not {n} equal blocks of one dtype each")
        return send, recv, send.shape[0] // n, send.shape[0] // n, sendbuf.dtype

    def fallback(c, send, recv):
        from mpi4py import MPI
        c.Alltoall([send, MPI.BYTE], [recv, MPI.BYTE])

    _copy(comm, "alltoall", None, build, fallback, plans)
    return recvbuf


def _commutes(op, commute) -> bool:
    if hasattr(op, "Is_commutative"):
        return bool(op.Is_commutative())
    if not callable(op):
        raise TypeError(f"op={op!r} is neither an MPI.Op nor a callable f(a, b)")
    return bool(commute)


def _reduction(comm, kind, sendbuf, recvbuf, op, root, commute, plans):
    if op is None:
        from mpi4py import MPI

        op = MPI.SUM
    gets = kind == "allreduce" or comm.Get_rank() == root

    def build():
        if root is not None:
            _root(comm, root)
        send = _rows(sendbuf, "sendbuf")
        recv = None
        if gets:
            recv = _rows(recvbuf, "recvbuf")
            if recv.shape != send.shape or recv.dtype != send.dtype:
                raise ValueError(f"recvbuf ({recv.shape} {recv.dtype}) is not shaped like sendbuf ({send.shape} "
                                 f"{send.dtype})")
        return send, recv, send.nbytes, send.shape[0], send.dtype

    try:
        commutes, why = _commutes(op, commute), None
    except TypeError as exc:
        commutes, why = False, str(exc)
    send, recv, size, units, dtype, reason = _attempt(build)

    def fallback(c):
        _mpi_reduction(c, kind, send, recv, op, root, commutes)

    call(comm, kind, send, recv, size=size, units=units, root=root, op=op, commute=commutes, plans=plans,
         dtype=dtype, check=lambda: why or reason, fallback=fallback)
    return recvbuf


def _mpi_reduction(c, kind, send, recv, op, root, commutes) -> None:
    """MPI's own reduce or all-reduce; a callable becomes an ``MPI.Op`` over whole rows."""
    if hasattr(op, "Is_commutative"):
        args = (send, recv)
        mpi_op, row = op, None
    else:
        from mpi4py import MPI

        errors: list[Exception] = []
        shape, dtype = send.shape[1:], send.dtype

        def apply(inbuf, inoutbuf, datatype):
            try:
                a = np.frombuffer(inbuf, dtype=dtype).reshape((-1,) + shape)
                b = np.frombuffer(inoutbuf, dtype=dtype).reshape((-1,) + shape)
                b[...] = op(a, b)
            except Exception as exc:  # noqa: BLE001 - raised after the collective, on every rank
                errors.append(exc)

        row = MPI.BYTE.Create_contiguous(max(1, send.nbytes // max(1, send.shape[0]))).Commit()
        mpi_op = MPI.Op.Create(apply, commute=commutes)
        args = ([send, send.shape[0], row], None if recv is None else [recv, recv.shape[0], row])
    try:
        if kind == "reduce":
            c.Reduce(args[0], args[1], op=mpi_op, root=root)
        else:
            c.Allreduce(args[0], args[1], op=mpi_op)
    finally:
        if row is not None:
            mpi_op.Free()
            row.Free()
    if row is not None and errors:
        raise OperatorFailed(str(errors[0])) from errors[0]


def reduce(comm, sendbuf: np.ndarray, recvbuf: np.ndarray | None, op=None, root: int = 0, *, commute: bool = False,
           plans=None):
    """Reduce every rank's ``sendbuf`` with ``op`` into ``recvbuf`` at ``root`` (``MPI_Reduce``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf : numpy.ndarray
        The rank's operand (C-contiguous; the same shape and dtype on every rank).
    recvbuf : numpy.ndarray or None
        At the root: shaped like ``sendbuf``; ignored elsewhere.
    op : mpi4py.MPI.Op or callable, optional
        Default ``MPI.SUM``. A callable ``f(a, b)`` combines whole rows
        (slices along the first axis), ``a`` from lower ranks, and must not
        modify its arguments; the result equals the sequential fold in rank
        order.
    root : int
    commute : bool
        A callable ``op`` commutes (then a plan may combine in any order).
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray or None
        ``recvbuf``.

    Raises
    ------
    MPICallError
        On every rank: see :func:`bcast`; also when ``op`` raises on some rank.

    Examples
    --------
    Inside an mpi4py program::

        total = np.empty_like(x) if comm.rank == 0 else None
        csmpi.reduce(comm, x, total, MPI.SUM, root=0, plans="plans/")

    >>> callable(reduce)
    True
    """
    return _reduction(comm, "reduce", sendbuf, recvbuf, op, root, commute, plans)


def allreduce(comm, sendbuf: np.ndarray, recvbuf: np.ndarray, op=None, *, commute: bool = False, plans=None):
    """Every rank ends with the reduction of every rank's ``sendbuf`` (``MPI_Allreduce``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf, recvbuf : numpy.ndarray
        The same shape and dtype.
    op : mpi4py.MPI.Op or callable, optional
        See :func:`reduce`.
    commute : bool
        See :func:`reduce`.
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray
        ``recvbuf``.

    Raises
    ------
    MPICallError
        See :func:`reduce`.

    Examples
    --------
    >>> callable(allreduce)
    True
    """
    return _reduction(comm, "allreduce", sendbuf, recvbuf, op, None, commute, plans)
