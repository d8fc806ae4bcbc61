"""A collsched.mpi call made once and started many times: MPI's own collective with no Python per call.

An application that calls the same collective on the same arrays again and
again (an iterative solver, a training loop) can make the call once, like
MPI 4's persistent collectives (``MPI_Bcast_init``)::

    step = csmpi.persistent(csmpi.allreduce, comm, grad, total, MPI.SUM, plans="plans/")
    for _ in range(iterations):
        ...                 # write grad
        step()              # total = the sum of every rank's grad

:func:`persistent` checks the arguments and looks the plan up once. Where
the call runs MPI's own collective (no ``plans=``, no plan fits, or the
plan says MPI's own is as fast), what it returns **is** the private
communicator's mpi4py method with its arguments bound
(``functools.partial``): starting it runs no Python of collsched's, so it
costs what mpi4py's own call costs. Otherwise (a plan fits, a callable
``op``, arguments that are not plain C-contiguous arrays, or bad ones) it
returns the call itself with its arguments bound, which does everything a
call does, every time (raising its errors, running the plan). Either way
the arrays are bound, not their contents: write into them between starts,
do not replace them.

Two things a bound MPI collective does not do: :func:`.calls.last_run` is
set when :func:`persistent` finds the path, not at each start; and after an
:class:`~.calls.MPICallError` on the communicator (which replaces its
private duplicate), make the persistent calls on it again.

Examples
--------
>>> sorted(k.__name__ for k in _KINDS)[:3]
['allgather', 'allreduce', 'alltoall']
"""

from __future__ import annotations

import functools
import inspect

from . import api
from .arguments import Adapt
from .calls import own, private

__all__ = ["persistent"]

# public call -> (collsched's kind, its buffers' check, MPI's own call, which arguments are the send and receive ones)
_KINDS = {
    api.bcast: ("broadcast", api._bcast_buffers, api._bcast_mpi, ("buf", None)),
    api.scatter: ("scatter", api._scatter_buffers, api._scatter_mpi, ("sendbuf", "recvbuf")),
    api.gather: ("gather", api._gather_buffers, api._gather_mpi, ("sendbuf", "recvbuf")),
    api.allgather: ("allgather", api._allgather_buffers, api._allgather_mpi, ("sendbuf", "recvbuf")),
    api.alltoall: ("alltoall", api._alltoall_buffers, api._alltoall_mpi, ("sendbuf", "recvbuf")),
    api.reduce: ("reduce", None, None, ("sendbuf", "recvbuf")),
    api.allreduce: ("allreduce", None, None, ("sendbuf", "recvbuf")),
}


def persistent(call, comm, *args, **kwargs):
    """``call(comm, *args, **kwargs)``, made once: a function of no argument that runs it.

    Parameters
    ----------
    call : function
        One of :func:`~.api.bcast`, :func:`~.api.reduce`,
        :func:`~.api.allreduce`, :func:`~.api.scatter`, :func:`~.api.gather`,
        :func:`~.api.allgather`, :func:`~.api.alltoall`.
    comm : mpi4py.MPI.Comm
    *args, **kwargs
        The call's other arguments (arrays, root, ``op``, ``plans=``), bound
        for every start. Every rank must make it (it may look a plan folder
        up, and it makes the private communicator at the first call on
        ``comm``).

    Returns
    -------
    callable
        ``start()``: the private communicator's mpi4py collective with its
        arguments bound where the call runs MPI's own; otherwise
        ``functools.partial(call, comm, *args, **kwargs)``.

    Raises
    ------
    TypeError
        ``call`` is not one of the calls above, or the arguments do not fit
        its signature.

    Examples
    --------
    Inside an mpi4py program::

        start = csmpi.persistent(csmpi.bcast, comm, buf, 0)
        start()   # what comm.Bcast([buf, MPI.BYTE], 0) does, on collsched.mpi's private communicator

    >>> persistent(print, None)
    Traceback (most recent call last):
    ...
    TypeError: persistent takes bcast, scatter, gather, allgather, alltoall, reduce or allreduce, not print
    """
    kind = _KINDS.get(call)
    if kind is None:
        names = ", ".join(k.__name__ for k in _KINDS)
        raise TypeError(f"persistent takes {names.replace(', allreduce', ' or allreduce')}, not "
                        f"{getattr(call, '__name__', repr(call))}")
    given = inspect.signature(call).bind(comm, *args, **kwargs)
    given.apply_defaults()
    mpi = _mpi_call(private(comm), kind, given.arguments)
    return functools.partial(call, comm, *args, **kwargs) if mpi is None else functools.partial(mpi[0], *mpi[1])


def _mpi_call(ctx, kind, a: dict):
    """``(method, arguments)`` of MPI's own collective if the call runs it at once; None otherwise."""
    name, buffers, mpi, (send_name, recv_name) = kind
    root, plans = a.get("root"), a["plans"]
    sendbuf, recvbuf = a[send_name], a[recv_name] if recv_name else None
    try:
        if buffers is not None:
            send, recv, size, _ = buffers(ctx.size, ctx.rank, root, sendbuf, recvbuf)
            return mpi(ctx, send, recv, root) if own(ctx, plans, name, root, size) else None
        op = ctx.mpi.SUM if a["op"] is None else a["op"]
        if type(op) is not ctx.Op:
            return None  # a callable: the call reports its failures on every rank
        gets = name == "allreduce" or ctx.rank == root
        send, recv = api._reduction_buffers(ctx.size, root, gets, sendbuf, recvbuf)
    except (Adapt, TypeError, ValueError):
        return None  # the call adapts them, or raises, at every start
    if not own(ctx, plans, name, root, send.nbytes, plans is None or op.Is_commutative()):
        return None
    return api._op_mpi(ctx, name, send, recv, op, root)
