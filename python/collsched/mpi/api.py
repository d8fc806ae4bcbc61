"""``bcast``, ``reduce``, ``allreduce``, ``scatter``, ``gather``, ``allgather``, ``alltoall`` on numpy arrays.

Each function takes the arguments of the mpi4py call it replaces (buffers
are numpy arrays of any dtype and layout, a non-contiguous one copied in
and out; ``MPI.IN_PLACE`` where mpi4py accepts it: :mod:`.arguments`),
plus ``plans=`` (a folder
written by ``collsched plan-suite``, or a :class:`~.plans.PlanSet`), and
runs through :func:`.calls.call`; without ``plans=``, it checks its
arguments and calls MPI's own collective on the private communicator
directly (the delegated path: per kind, one function checks the buffers and
one runs MPI's own collective, shared by both paths, and no closure is made
per call).

The eight public calls are compiled functions (``crates/py/src/mpi_calls.rs``)
around the Python functions written here, with their signatures and
docstrings (:func:`_compiled`). A call first asks the compiled fast path
(:data:`.calls._FAST`, ``crates/py/src/mpi_fast.rs``), with no Python run
in between: on plain arrays of a shape whose route :func:`.calls.own` has
already found (MPI's own), it runs MPI's own collective from there with the
arguments the Python fast path below would give, and returns; otherwise
the Python function runs, with the same arguments, as if the compiled one
were not there. Reductions take ``op``: an ``MPI.Op``
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
>>> _bcast_buffers(4, 1, 0, np.zeros(3), None)[2:]
(24, dtype('float64'))
>>> _bcast_buffers(4, 1, 5, np.zeros(3), None)
Traceback (most recent call last):
...
ValueError: root=5 is not a rank of the communicator (0 .. 3)
"""

from __future__ import annotations

import inspect

import numpy as np

from .._core import _mpi_call
from .arguments import Adapt, adapt, contiguous, is_in_place, refuse_in_place, refused, write_back
from .calls import _FAST, _RECENT, call, delegating, operator_failed, own, private, refusal
from .layout import OperatorFailed

__all__ = ["bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall", "alltoallv"]

_ND = np.ndarray


def _array(a, name: str) -> np.ndarray:
    """``a`` if it is a C-contiguous numpy array; :class:`.arguments.Adapt` if it can be made one or is IN_PLACE."""
    if type(a) is np.ndarray or isinstance(a, np.ndarray):
        if a.flags.c_contiguous:
            return a
        raise Adapt
    if is_in_place(a):
        raise Adapt
    refuse_in_place(a, name)
    raise TypeError(f"{name} is a {type(a).__name__}, not a numpy array")


def _byte_array(a, name: str) -> np.ndarray:
    """``a`` if MPI can move it as bytes: a C-contiguous array of values, not of references."""
    if _array(a, name).dtype.hasobject:
        a.reshape(-1).view(np.uint8)  # raises numpy's own TypeError (an array of references)
    return a


def _rows(a, name: str) -> np.ndarray:
    a = _array(a, name)
    return a.reshape(1) if a.ndim == 0 else a


def _root(n: int, root) -> int:
    integer = type(root) is int or not isinstance(root, bool) and isinstance(root, (int, np.integer))
    if not integer or not 0 <= root < n:
        raise ValueError(f"root={root!r} is not a rank of the communicator (0 .. {n - 1})")
    return int(root)


def _adapted(comm, kind: str, root, sendbuf, recvbuf, again) -> None:
    """``again(send, recv)`` on arguments that are not plain arrays, adapted (:mod:`.arguments`); output copied back."""
    ctx = private(comm)
    send, recv = adapt(kind, ctx.rank, ctx.size, root, sendbuf, recvbuf)
    again(send, recv)
    write_back(send if kind == "broadcast" else recv, sendbuf if kind == "broadcast" else recvbuf)


def _copy(comm, kind: str, root, buffers, mpi, sendbuf, recvbuf, plans) -> None:
    """One copying collective: ``buffers`` checks (and raises), ``mpi`` says how MPI's own is called.

    ``buffers(n, rank, root, sendbuf, recvbuf)`` returns ``(send, recv,
    size, dtype)`` (the user's arrays, checked, and the size plans are
    looked up by) or raises ``TypeError`` or ``ValueError``; ``mpi(context,
    send, recv, root)`` returns MPI's own collective on them (as bytes): the
    private communicator's method and its arguments (:func:`_run` calls it;
    :func:`.persistent.persistent` keeps it).
    """
    ctx = private(comm)
    try:
        send, recv, size, dtype = buffers(ctx.size, ctx.rank, root, sendbuf, recvbuf)
        reason = None
    except Adapt:  # before any communication
        return _adapted(comm, kind, root, sendbuf, recvbuf,
                        lambda send, recv: _copy(comm, kind, root, buffers, mpi, send, recv, plans))
    except (TypeError, ValueError) as exc:
        if plans is None:
            raise refusal(ctx, kind, exc) from None
        send, recv, size, dtype, reason = None, None, 0, None, str(exc)
    if reason is None and own(ctx, plans, kind, root, size):  # no plans=, or no plan fits: MPI's own at once
        _run(mpi(ctx, send, recv, root))
        return
    call(comm, kind, send, recv, size=size, units=size, root=root, plans=plans, dtype=dtype, reason=reason,
         flat=True, fallback=lambda ctx: _run(mpi(ctx, send, recv, root)))


def _run(method_args) -> None:
    """Call MPI's own collective given as ``(method, arguments)``.

    Examples
    --------
    >>> _run((print, ("MPI's own",)))
    MPI's own
    """
    method, args = method_args
    method(*args)


def _bcast_buffers(n, me, root, buf, _):
    _root(n, root)
    buf = _byte_array(buf, "buf")
    return buf, buf, buf.nbytes, buf.dtype


def _bcast_mpi(ctx, send, recv, root):
    return ctx.comm.Bcast, ([send, ctx.byte], root)


def bcast(comm, buf: np.ndarray, root: int = 0, *, plans=None) -> np.ndarray:
    """Broadcast ``buf`` from ``root`` (``MPI_Bcast``), by the planned schedule when one fits.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    buf : numpy.ndarray
        The same size and dtype on every rank; overwritten except at the root.
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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    if (type(buf) is _ND and type(root) is int and 0 <= root < ctx.size and buf.flags.c_contiguous
            and not buf.dtype.hasobject and own(ctx, plans, "broadcast", root, buf.nbytes)):
        ctx.comm.Bcast([buf, ctx.byte], root)  # the fast path: a plain array, MPI's own at once
        return buf
    _copy(comm, "broadcast", root, _bcast_buffers, _bcast_mpi, buf, None, plans)
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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    n, at_root = ctx.size, ctx.rank == root
    if (type(recvbuf) is _ND and type(root) is int and 0 <= root < n and recvbuf.flags.c_contiguous
            and not recvbuf.dtype.hasobject and (not at_root or _blocks_of(sendbuf, recvbuf, n))
            and own(ctx, plans, "scatter", root, recvbuf.nbytes)):
        byte = ctx.byte
        ctx.comm.Scatter([sendbuf, byte] if at_root else None, [recvbuf, byte], root)
        return recvbuf
    _copy(comm, "scatter", root, _scatter_buffers, _scatter_mpi, sendbuf, recvbuf, plans)
    return recvbuf


def _blocks_of(whole, block, n: int) -> bool:
    """The fast path's check: ``whole`` is a plain array of ``n`` blocks like ``block`` (a plain array, one dtype).

    Examples
    --------
    >>> _blocks_of(np.zeros(6), np.zeros(2), 3), _blocks_of(np.zeros(6), np.zeros(2, np.int64), 3)
    (True, False)
    """
    return (type(whole) is _ND and whole.dtype is block.dtype and whole.nbytes == n * block.nbytes
            and whole.flags.c_contiguous)


def _scatter_buffers(n, me, root, sendbuf, recvbuf):
    _root(n, root)
    recv = _byte_array(recvbuf, "recvbuf")
    send = None
    if me == root:
        send = _byte_array(sendbuf, "sendbuf")
        if send.nbytes != n * recv.nbytes or send.dtype != recv.dtype:
            raise ValueError(f"sendbuf ({send.nbytes} bytes of {send.dtype}) is not {n} blocks of recvbuf "
                             f"({recv.nbytes} bytes of {recv.dtype})")
    return send, recv, recv.nbytes, recv.dtype


def _scatter_mpi(ctx, send, recv, root):
    byte = ctx.byte
    return ctx.comm.Scatter, (None if send is None else [send, byte], [recv, byte], root)


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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    n, at_root = ctx.size, ctx.rank == root
    if (type(sendbuf) is _ND and type(root) is int and 0 <= root < n and sendbuf.flags.c_contiguous
            and not sendbuf.dtype.hasobject and (not at_root or _blocks_of(recvbuf, sendbuf, n))
            and own(ctx, plans, "gather", root, sendbuf.nbytes)):
        byte = ctx.byte
        ctx.comm.Gather([sendbuf, byte], [recvbuf, byte] if at_root else None, root)
        return recvbuf
    _copy(comm, "gather", root, _gather_buffers, _gather_mpi, sendbuf, recvbuf, plans)
    return recvbuf


def _gather_buffers(n, me, root, sendbuf, recvbuf):
    _root(n, root)
    send = _byte_array(sendbuf, "sendbuf")
    return send, _blocks(recvbuf, send, n) if me == root else None, send.nbytes, send.dtype


def _gather_mpi(ctx, send, recv, root):
    byte = ctx.byte
    return ctx.comm.Gather, ([send, byte], None if recv is None else [recv, byte], root)


def _blocks(recvbuf, send: np.ndarray, n: int) -> np.ndarray:
    recv = _byte_array(recvbuf, "recvbuf")
    if recv.nbytes != n * send.nbytes or send.dtype != recv.dtype:
        raise ValueError(f"recvbuf ({recv.nbytes} bytes of {recv.dtype}) is not {n} blocks of sendbuf "
                         f"({send.nbytes} bytes of {send.dtype})")
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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    if (type(sendbuf) is _ND and sendbuf.flags.c_contiguous and not sendbuf.dtype.hasobject
            and _blocks_of(recvbuf, sendbuf, ctx.size) and own(ctx, plans, "allgather", None, sendbuf.nbytes)):
        byte = ctx.byte
        ctx.comm.Allgather([sendbuf, byte], [recvbuf, byte])
        return recvbuf
    _copy(comm, "allgather", None, _allgather_buffers, _allgather_mpi, sendbuf, recvbuf, plans)
    return recvbuf


def _allgather_buffers(n, me, root, sendbuf, recvbuf):
    send = _byte_array(sendbuf, "sendbuf")
    return send, _blocks(recvbuf, send, n), send.nbytes, send.dtype


def _allgather_mpi(ctx, send, recv, root):
    byte = ctx.byte
    return ctx.comm.Allgather, ([send, byte], [recv, byte])


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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    n = ctx.size
    if (type(sendbuf) is _ND and sendbuf.flags.c_contiguous and not sendbuf.dtype.hasobject
            and _blocks_of(recvbuf, sendbuf, 1) and not sendbuf.nbytes % n
            and own(ctx, plans, "alltoall", None, sendbuf.nbytes // n)):
        byte = ctx.byte
        ctx.comm.Alltoall([sendbuf, byte], [recvbuf, byte])
        return recvbuf
    _copy(comm, "alltoall", None, _alltoall_buffers, _alltoall_mpi, sendbuf, recvbuf, plans)
    return recvbuf


def _alltoall_buffers(n, me, root, sendbuf, recvbuf):
    send, recv = _byte_array(sendbuf, "sendbuf"), _byte_array(recvbuf, "recvbuf")
    if send.nbytes % n or recv.nbytes != send.nbytes or send.dtype != recv.dtype:
        raise ValueError(f"sendbuf ({send.nbytes} bytes of {send.dtype}) and recvbuf ({recv.nbytes} bytes "
                         f"of {recv.dtype}) are not {n} equal blocks of one dtype each")
    return send, recv, send.nbytes // n, send.dtype


def _alltoall_mpi(ctx, send, recv, root):
    byte = ctx.byte
    return ctx.comm.Alltoall, ([send, byte], [recv, byte])


def alltoallv(comm, sendbuf: np.ndarray, sendcounts, recvbuf: np.ndarray, recvcounts, *, sdispls=None,
              rdispls=None, plans=None) -> np.ndarray:
    """All-to-all with a count per peer (``MPI_Alltoallv``): MPI's own collective, on the user's arrays.

    ``sendcounts[j]`` elements of ``sendbuf`` (flat), from ``sdispls[j]``,
    go to rank ``j``, which receives them at ``rdispls[i]`` of its
    ``recvbuf``, ``recvcounts[i]`` elements from rank ``i``. Counts and
    displacements are in elements of the arrays' dtype; displacements
    default to the running sums of the counts. No plan covers uneven
    blocks (plans are made for the even :func:`alltoall`): with ``plans=``,
    MPI's own runs, said once (:class:`~.calls.FallbackWarning`).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf, recvbuf : numpy.ndarray
        One dtype; any layout (read and written as flat, C order).
    sendcounts, recvcounts : sequence of int
        ``comm.size`` counts each.
    sdispls, rdispls : sequence of int, optional
    plans : str, path-like or PlanSet, optional

    Returns
    -------
    numpy.ndarray
        ``recvbuf``.

    Raises
    ------
    MPICallError
        A count or displacement list of the wrong length, negative, or
        reaching past its buffer; arrays of two dtypes (on the rank that
        has them, before any communication, as for :func:`bcast` without
        ``plans=``).

    Examples
    --------
    >>> _alltoallv_buffers(2, 0, None, (np.zeros(3), [1, 2], None), (np.zeros(4), [1, 3], None))[2:]
    (24, dtype('float64'))
    >>> _alltoallv_buffers(2, 0, None, (np.zeros(3), [1, 2], None), (np.zeros(3), [1, 3], None))
    Traceback (most recent call last):
    ...
    ValueError: recvcounts [1, 3] from displacements [0, 1] reach element 4 of recvbuf, which has 3
    """
    send, recv = contiguous(refused(sendbuf)), contiguous(refused(recvbuf))
    _copy(comm, "alltoallv", None, _alltoallv_buffers, _alltoallv_mpi, (send, sendcounts, sdispls),
          (recv, recvcounts, rdispls), plans)
    write_back(recv, recvbuf)
    return recvbuf


def _layout(n: int, array, counts, displs, name: str, counts_name: str):
    """``(counts, displacements)`` in elements, checked against ``array``."""
    try:
        counts = [int(c) for c in counts]
        displs = [0] + list(np.cumsum(counts[:-1], dtype=np.int64)) if displs is None else [int(d) for d in displs]
    except (TypeError, ValueError):
        raise TypeError(f"{counts_name} and its displacements are not sequences of integers") from None
    if len(counts) != n or len(displs) != n:
        raise ValueError(f"{counts_name} has {len(counts)} counts and {len(displs)} displacements; the communicator "
                         f"has {n} ranks")
    if min(counts + displs) < 0:
        raise ValueError(f"{counts_name} {counts} or its displacements {displs} are negative")
    end = max((d + c for c, d in zip(counts, displs) if c), default=0)
    if end > array.size:
        raise ValueError(f"{counts_name} {counts} from displacements {[int(d) for d in displs]} reach element {end} "
                         f"of {name}, which has {array.size}")
    return counts, [int(d) for d in displs]


def _alltoallv_buffers(n, me, root, sendbuf, recvbuf):
    (send, sendcounts, sdispls), (recv, recvcounts, rdispls) = sendbuf, recvbuf
    send, recv = _byte_array(send, "sendbuf"), _byte_array(recv, "recvbuf")
    if send.dtype != recv.dtype:
        raise ValueError(f"sendbuf is {send.dtype} and recvbuf {recv.dtype}: give arrays of one dtype")
    s = _layout(n, send, sendcounts, sdispls, "sendbuf", "sendcounts")
    r = _layout(n, recv, recvcounts, rdispls, "recvbuf", "recvcounts")
    return (send, s), (recv, r), sum(s[0]) * send.itemsize, send.dtype


def _alltoallv_mpi(ctx, send, recv, root):
    element = ctx.element(send[0].itemsize)  # counts and displacements are in elements of the arrays' dtype
    return ctx.comm.Alltoallv, ([send[0], *send[1], element], [recv[0], *recv[1], element])


def _commutes(op, commute) -> bool:
    if hasattr(op, "Is_commutative"):
        return bool(op.Is_commutative())
    if not callable(op):
        raise TypeError(f"op={op!r} is neither an MPI.Op nor a callable f(a, b)")
    return bool(commute)


def _reduction_buffers(n: int, root, gets: bool, sendbuf, recvbuf):
    """``(send, recv)``: the operands as rows (``recv`` None where nothing is received), checked."""
    if root is not None:
        _root(n, root)
    send = _rows(sendbuf, "sendbuf")
    recv = None
    if gets:
        recv = _rows(recvbuf, "recvbuf")
        if recv.shape != send.shape or recv.dtype != send.dtype:
            raise ValueError(f"recvbuf ({recv.shape} {recv.dtype}) is not shaped like sendbuf ({send.shape} "
                             f"{send.dtype})")
    return send, recv


def _reduction(comm, kind, sendbuf, recvbuf, op, root, commute, plans):
    ctx = private(comm)
    op = ctx.mpi.SUM if op is None else op
    gets = kind == "allreduce" or ctx.rank == root
    if plans is None:
        try:
            commutes = True if hasattr(op, "Is_commutative") else _commutes(op, commute)
            send, recv = _reduction_buffers(ctx.size, root, gets, sendbuf, recvbuf)
        except Adapt:  # before any communication
            _adapted(comm, kind, root, sendbuf, recvbuf,
                     lambda send, recv: _reduction(comm, kind, send, recv, op, root, commute, plans))
            return recvbuf
        except (TypeError, ValueError) as exc:
            raise refusal(ctx, kind, exc) from None
        delegating(ctx, kind, root, send.nbytes)
        try:
            _mpi_reduction(ctx, kind, send, recv, op, root, commutes)
        except OperatorFailed as exc:
            raise operator_failed(ctx, kind, exc, op) from exc
        return recvbuf
    try:
        commutes, why = _commutes(op, commute), None
    except TypeError as exc:
        commutes, why = False, str(exc)
    try:
        send, recv = _reduction_buffers(ctx.size, root, gets, sendbuf, recvbuf)
        size, units, dtype, reason = send.nbytes, send.shape[0], send.dtype, None
    except Adapt:
        _adapted(comm, kind, root, sendbuf, recvbuf,
                 lambda send, recv: _reduction(comm, kind, send, recv, op, root, commute, plans))
        return recvbuf
    except (TypeError, ValueError) as exc:
        send, recv, size, units, dtype, reason = None, None, 0, 0, None, str(exc)
    call(comm, kind, send, recv, size=size, units=units, root=root, op=op, commute=commutes, plans=plans,
         dtype=dtype, reason=why or reason,
         fallback=lambda ctx: _mpi_reduction(ctx, kind, send, recv, op, root, commutes))
    return recvbuf


def _mpi_reduction(ctx, kind, send, recv, op, root, commutes) -> None:
    """MPI's own reduce or all-reduce on the private communicator; a callable becomes an ``MPI.Op`` over whole rows."""
    if hasattr(op, "Is_commutative"):
        _run(_op_mpi(ctx, kind, send, recv, op, root))
        return
    MPI = ctx.mpi
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
    try:  # the operator over rows is an MPI.Op: the case above
        _mpi_reduction(ctx, kind, [send, send.shape[0], row], None if recv is None else [recv, recv.shape[0], row],
                       mpi_op, root, commutes)
    finally:
        mpi_op.Free()
        row.Free()
    if errors:
        raise OperatorFailed(str(errors[0])) from errors[0]


def _op_mpi(ctx, kind, send, recv, op, root):
    """MPI's own reduce or all-reduce with an ``MPI.Op``: the private communicator's method and its arguments."""
    if kind == "reduce":
        return ctx.comm.Reduce, (send, recv, op, root)
    return ctx.comm.Allreduce, (send, recv, op)


def reduce(comm, sendbuf: np.ndarray, recvbuf: np.ndarray | None, op=None, root: int = 0, *, commute: bool = False,
           plans=None):
    """Reduce every rank's ``sendbuf`` with ``op`` into ``recvbuf`` at ``root`` (``MPI_Reduce``).

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    sendbuf : numpy.ndarray
        The rank's operand (the same shape and dtype on every rank), or ``MPI.IN_PLACE`` at the root.
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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    op = ctx.mpi.SUM if op is None else op
    if (type(op) is ctx.Op and type(sendbuf) is _ND and type(root) is int and 0 <= root < ctx.size
            and sendbuf.flags.c_contiguous and (ctx.rank != root or _like(recvbuf, sendbuf))
            and own(ctx, plans, "reduce", root, sendbuf.nbytes, plans is None or op.Is_commutative())):
        ctx.comm.Reduce(sendbuf, recvbuf if ctx.rank == root else None, op, root)
        return recvbuf
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
    ctx = _RECENT[1] if comm is _RECENT[0] and comm else private(comm)
    op = ctx.mpi.SUM if op is None else op
    if (type(op) is ctx.Op and type(sendbuf) is _ND and sendbuf.flags.c_contiguous and _like(recvbuf, sendbuf)
            and own(ctx, plans, "allreduce", None, sendbuf.nbytes, plans is None or op.Is_commutative())):
        ctx.comm.Allreduce(sendbuf, recvbuf, op)
        return recvbuf
    return _reduction(comm, "allreduce", sendbuf, recvbuf, op, None, commute, plans)


def _like(recv, send: np.ndarray) -> bool:
    """The fast path's check: ``recv`` is a plain array shaped like ``send``, of its dtype.

    Examples
    --------
    >>> _like(np.zeros((2, 3)), np.ones((2, 3))), _like(np.zeros(6), np.ones((2, 3)))
    (True, False)
    """
    return type(recv) is _ND and recv.dtype is send.dtype and recv.shape == send.shape and recv.flags.c_contiguous


def _compiled(python):
    """``python`` (one of the calls above) as a compiled function, which asks the compiled fast path first.

    It has ``python``'s name, module, docstring and signature (without the
    annotations: ``__text_signature__``); every call that the fast path does
    not answer is a call of ``python`` with the same arguments.

    Examples
    --------
    >>> str(inspect.signature(bcast)), bcast.__doc__ == _PYTHON["bcast"].__doc__
    ('(comm, buf, root=0, *, plans=None)', True)
    """
    sig = inspect.signature(python)
    plain = sig.replace(parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
                        return_annotation=sig.empty)
    return _mpi_call(python.__name__, python, _FAST, f"{python.__name__}{plain}\n--\n\n{python.__doc__}",
                     python.__module__)


#: The Python implementations of the public calls, by name (what each compiled call runs when the fast path does not).
_PYTHON = {f.__name__: f for f in (bcast, scatter, gather, allgather, alltoall, alltoallv, reduce, allreduce)}
bcast, scatter, gather, allgather, alltoall, alltoallv, reduce, allreduce = (
    _compiled(_PYTHON[name]) for name in ("bcast", "scatter", "gather", "allgather", "alltoall", "alltoallv",
                                          "reduce", "allreduce"))
