"""The collective calls of :mod:`collsched.mpi`: check, then MPI's own at once, or agree, run the plan, agree again.

Without ``plans=``, a call checks its buffers locally (a bad one raises on
its own rank, before any communication: :func:`refusal`) and runs MPI's own
collective on the private communicator with no agreement (:func:`delegating`
before it): MPI's own semantics apply. With ``plans=``, every call goes
through the same steps on every rank of the communicator (:func:`call`):

1. **look up** the plan for the call's kind, size and root in ``plans``
   (:meth:`~collsched.mpi.plans.PlanSet.find`, kept per plan set and call
   shape) and check the buffers (numpy arrays, sizes and dtypes that fit).
   A ``plans=`` that cannot be read, or that has plans of this kind only
   for other communicator sizes, raises on every rank with no
   communication: every rank reads the same table.
2. **no plan fits** (or the plan says MPI's own is as fast): MPI's own
   collective runs at once, with no agreement (:func:`_thin`), since every
   rank of a correct call decides this from what it knows identically (the
   table, the kind, the root and the size); a :class:`FallbackWarning`
   once per kind, root and size bucket, on rank 0. MPI's own semantics
   apply, as without ``plans=``, except that a callable operator which
   raises on some rank is reported on every rank (one agreement after).
3. **a plan fits: agree** (one ``MPI_Allreduce`` of a few integers): every
   rank sees whether some rank failed its checks, or whether the ranks
   disagree on the size, the dtype, the root or the plan; if so, every
   rank raises the same :class:`MPICallError`, naming the rank and the
   reason. Ranks that took step 2 never join it: past a deadline, the job
   ends in one line (:mod:`.agreement`);
4. **run** the plan's program on the user's arrays (:mod:`.layout`, the
   walk of :mod:`collsched.runtime.walk`). A rank whose operator raises,
   or that fails otherwise, tells every other rank (a one-word message on
   a tag the programs never use), which stop waiting;
5. **agree** again (one ``MPI_Allreduce``): if any rank failed, every rank
   raises the first failing rank's reason.

The calls use a private duplicate of the communicator (made at the first
call on it, kept as an attribute of it), so that their messages never mix
with the application's; after a failure it is replaced.

Examples
--------
>>> op_name(sum), op_name(None)
('sum', 'MPI.SUM')
"""

from __future__ import annotations

import os
import sys
import warnings
import zlib
from typing import Callable

import numpy as np

from .._core import _MpiFast, _MpiRoutes
from ..errors import CollschedError
from ..runtime.walk import walk
from .agreement import agree
from .layout import Bound, OperatorFailed, Prepared, combine
from .plans import ROOTED, PlanError, PlanSet, load_plans

__all__ = ["MPICallError", "FallbackWarning", "call", "private", "own", "refusal", "delegating", "operator_failed",
           "op_name", "root_of", "combine", "last_run"]


class MPICallError(CollschedError):
    """A collsched.mpi call failed: raised on every rank, naming the rank that failed and why.

    Attributes
    ----------
    rank : int
        The first communicator rank that failed.

    Examples
    --------
    >>> e = MPICallError("rank 2: allreduce: the operator raised ZeroDivisionError: boom", rank=2)
    >>> e.rank, str(e)
    (2, 'rank 2: allreduce: the operator raised ZeroDivisionError: boom')
    """

    def __init__(self, message: str, *, rank: int = -1, fix: str | None = None):
        super().__init__(message, fix=fix)
        self.rank = rank


class FallbackWarning(UserWarning):
    """No plan fits a call: MPI's own collective runs instead (said once per kind, root and size bucket).

    Examples
    --------
    >>> issubclass(FallbackWarning, UserWarning)
    True
    """


def op_name(op) -> str:
    """A short name of an operator, for messages.

    Examples
    --------
    >>> op_name(lambda a, b: a)
    '<lambda>'
    """
    if op is None:
        return "MPI.SUM"
    return getattr(op, "__name__", None) or repr(op)


_KEYVAL = None
_WARNED: set = set()
_LAST = ["none"]
_RECENT: list = [None, None]  # the communicator of the latest call and its context: found without Get_attr
#: The compiled fast path (``crates/py/src/mpi_fast.rs``): the latest communicator's learned routes, run with no
#: Python of collsched's; :mod:`.api`'s calls ask it first, and :func:`own` teaches it.
_FAST = _MpiFast(_LAST)


def last_run() -> str:
    """What the last call of this process ran.

    ``"plan"``, ``"mpi"`` (the plan says MPI's own is as fast) or ``"fallback"`` (no plan fits).

    Examples
    --------
    >>> last_run() in ("none", "plan", "mpi", "fallback")
    True
    """
    return _LAST[0]


class _Context:
    """The private communicator of a user communicator, and the abort channel on it."""

    def __init__(self, comm):
        from mpi4py import MPI

        self.mpi = MPI  # mpi4py's MPI module (imported at the first call: importing it initialises MPI)
        self.comm = comm.Dup()
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        self.tag_ub = int(min(self.comm.Get_attr(MPI.TAG_UB) or 32767, 2**30))
        self.word = np.zeros(1, dtype=np.int64)
        self.abort = self.comm.Irecv(self.word, source=MPI.ANY_SOURCE, tag=self.tag_ub)
        self.mine = np.zeros(9, dtype=np.int64)
        self.agreed = np.zeros(9, dtype=np.int64)
        self.notices: list = []
        self.byte, self.Op = MPI.BYTE, MPI.Op  # looked up once: the fast path (:func:`own`) reads them per call
        self.routes: dict = {}  # (plans=, kind, root, size, commutes) -> what :func:`own` answered
        self.fast = _MpiRoutes(self.comm, MPI)  # the same answers, where the compiled fast path reads them
        self.elements: dict = {}  # itemsize -> a datatype of one element (alltoallv's counts are in elements)

    def element(self, itemsize: int):
        """The committed MPI datatype of ``itemsize`` contiguous bytes (made once, known to the fast path)."""
        datatype = self.elements.get(itemsize)
        if datatype is None:
            datatype = self.elements[itemsize] = self.mpi.BYTE.Create_contiguous(itemsize).Commit()
            self.fast.learn_element(itemsize, datatype)
        return datatype

    def tell_others(self) -> None:
        """Tell every other rank to stop waiting (this rank failed)."""
        self.word_out = np.array([self.rank], dtype=np.int64)
        for r in range(self.size):
            if r != self.rank:
                self.notices.append(self.comm.Isend(self.word_out, dest=r, tag=self.tag_ub))

    def close(self) -> None:
        from mpi4py import MPI

        for req in [self.abort] + self.notices:
            if req != MPI.REQUEST_NULL:
                req.Free()
        for datatype in self.elements.values():
            datatype.Free()
        self.comm.Free()


def private(comm) -> _Context:
    """The context of ``comm``: its private duplicate (made at the first call on it), rank, size and abort channel.

    The context is an attribute of the communicator (``MPI_Comm_set_attr``);
    the latest communicator called on and its context are also kept here, so
    that a run of calls on one communicator skips the attribute lookup (a
    freed communicator is looked up again, and MPI refuses it).

    Examples
    --------
    See :mod:`collsched.mpi` (it needs an MPI job).

    >>> callable(private)
    True
    """
    if comm is _RECENT[0] and comm:
        return _RECENT[1]
    global _KEYVAL
    if _KEYVAL is None:
        from mpi4py import MPI

        _KEYVAL = MPI.Comm.Create_keyval()
    ctx = comm.Get_attr(_KEYVAL)
    if ctx is None:
        ctx = _Context(comm)
        comm.Set_attr(_KEYVAL, ctx)
    _RECENT[:] = comm, ctx
    _FAST.bind(comm, ctx.fast)
    return ctx


def _reset(comm, ctx: _Context) -> None:
    comm.Delete_attr(_KEYVAL)
    _RECENT[:] = None, None
    _FAST.bind(None, None)
    try:
        ctx.close()
    except Exception:  # noqa: BLE001 - a broken private communicator is dropped either way
        pass


_FOLDERS: dict = {}
_ROUTES = 4096  # at most this many call shapes kept per communicator (then forgotten, and found again)


def own(ctx: _Context, plans, kind: str, root, size: int, commutes: bool = True) -> str:
    """The fast path's question: does this call run MPI's own collective at once? ``"fallback"``, ``"mpi"`` or ``""``.

    For a call whose buffers passed :mod:`.api`'s checks: ``"fallback"``
    (no ``plans=``, or no plan fits) or ``"mpi"`` (the plan says MPI's own
    is as fast), :func:`last_run` then says so, and the call runs MPI's own
    collective with no agreement (:func:`delegating`, :func:`_thin`); ``""``
    when a plan runs, or when ``plans=`` is unreadable or wrong for this
    communicator (then :func:`call` raises it, on every rank). The answer is
    found once per communicator and call shape (``plans=``, kind, root, size,
    whether the operator commutes: the :class:`FallbackWarning`, if any, is
    said then) and kept: a later call with that shape costs one dict lookup.
    A ``"fallback"`` or ``"mpi"`` answer is also given to the context's
    compiled fast path (``ctx.fast``, :data:`_FAST`), keyed by the
    ``plans=`` object itself (kept alive with it): the next call of that
    shape on plain arrays, with that very object, runs MPI's own from there.

    Examples
    --------
    >>> import warnings
    >>> ctx = type("Ctx", (), {"rank": 1, "size": 4, "routes": {}, "fast": None})()
    >>> own(ctx, None, "broadcast", 0, 8), last_run(), list(ctx.routes.values())
    ('fallback', 'fallback', ['fallback'])
    """
    try:
        run = ctx.routes.get((plans, kind, root, size, commutes))
    except TypeError:  # an unhashable plans=: the general path says what is wrong with it
        return ""
    if run is None:
        run = _route(ctx, plans, kind, root, size, commutes)
    if run:
        _LAST[0] = run
        if ctx.fast is not None:
            ctx.fast.learn(plans, kind, root, size, commutes, run)
    return run


def _route(ctx: _Context, plans, kind: str, root, size: int, commutes: bool) -> str:
    """:func:`own`'s answer, found (the plan looked up, the warning said) and kept."""
    plan_set = None
    if plans is None:
        run = "fallback"
    else:
        try:
            plan_set = _plan_set(plans)
            plan = _find(plan_set, kind, ctx.size, root, size, commutes)[0]
        except (PlanError, CollschedError, ValueError, TypeError, OSError):
            return ""  # not kept: the general path raises it
        run = "fallback" if plan is None else "mpi" if plan.use_mpi else ""
    if run == "fallback" and ctx.rank == 0:
        _warn_once(kind, ctx.size, root, size, plan_set)
    if len(ctx.routes) >= _ROUTES:
        ctx.routes.clear()
    ctx.routes[(plans, kind, root, size, commutes)] = run
    return run


def _plan_set(plans) -> PlanSet | None:
    """The plan set of ``plans=``; a folder is read at its first call (:func:`~.plans.load_plans`), then kept."""
    if plans is None or isinstance(plans, PlanSet):
        return plans
    kept = isinstance(plans, (str, os.PathLike))
    found = _FOLDERS.get(plans) if kept else None
    if found is None:
        found = load_plans(plans)
        if kept:
            _FOLDERS[plans] = found
    return found


def _dtype_code(dtype) -> int:
    """The same number for the same dtype in every process (a CRC of its description)."""
    return zlib.crc32(repr(np.dtype(dtype).descr).encode()) & 0x7FFFFFFF


def call(comm, kind: str, send: np.ndarray | None, recv: np.ndarray | None, *, size: int, units: int, root: int | None,
         op=None, commute: bool | None = None, plans=None, reason: str | None = None, fallback: Callable,
         dtype=None, flat: bool = False):
    """Run one collective call with ``plans=`` (the steps of the module docstring); :mod:`.api` calls it.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    kind : str
        collsched's name of the collective.
    send, recv : numpy.ndarray or None
        The buffers as the layout reads them (flat bytes, or rows for reductions).
    size : int
        The collective's size in bytes (what plans are looked up by).
    units : int
        Units of one value (bytes, or rows).
    root : int or None
    op : MPI.Op or callable, optional
    commute : bool, optional
        Whether ``op`` commutes.
    plans : str, path-like or PlanSet
    reason : str, optional
        Why this rank's buffers are wrong (its own checks failed), or None.
    fallback : callable
        ``fallback(context)`` runs MPI's own collective on ``context.comm`` (:func:`private`).
    dtype : numpy.dtype, optional
        Compared across ranks.
    flat : bool
        A plan reads ``send`` and ``recv`` as flat bytes (the copying kinds): the views are made only when one runs.

    Raises
    ------
    MPICallError
        On every rank, when any rank failed; see the module docstring.

    Examples
    --------
    See :mod:`collsched.mpi` (it needs an MPI job).

    >>> callable(call)
    True
    """
    ctx = private(comm)
    n, me = ctx.size, ctx.rank
    plan, plan_id = None, -1
    try:
        plan_set = _plan_set(plans)
    except (PlanError, CollschedError, ValueError, TypeError, OSError) as exc:
        # every rank reads the same plans=: every rank raises this, with no communication
        raise MPICallError(f"rank 0: {kind}: {exc}", rank=0) from None
    if reason is not None and (plan_set is None or kind not in plan_set._by_kind):
        # no plan of this kind: every rank takes MPI's own path; a bad input raises on its own rank, as without plans=
        raise refusal(ctx, kind, reason)
    try:
        if reason is None and plan_set is not None:
            plan, plan_id = _find(plan_set, kind, n, root, size, bool(commute))
    except (PlanError, CollschedError, ValueError, TypeError, OSError) as exc:
        if reason is None:  # the plan table's answer for this call: the same on every rank
            raise MPICallError(f"rank 0: {kind}: {exc}", rank=0) from None
        reason = str(exc)
    if reason is None and (plan is None or plan.use_mpi):
        _thin(ctx, kind, root, size, plan, plan_set, op, fallback)
        return
    # step 3: one agreement on the checks and on what every rank is about to do
    mine = ctx.mine
    r = -1 if root is None else int(root)
    code = _dtype_code(dtype) if dtype is not None else 0
    mine[:] = (me if reason is not None else n, size, -size, plan_id, -plan_id, r, -r, code, -code)
    agree(ctx, mine, ctx.agreed, kind=kind, size=size, root=root, plan=plan, error=MPICallError)  # a deadline
    agreed = ctx.agreed
    if agreed[0] < n:
        text = ctx.comm.bcast(reason, root=int(agreed[0]))
        raise MPICallError(f"rank {int(agreed[0])}: {kind}: {text}", rank=int(agreed[0]))
    if any(agreed[k] != -agreed[k + 1] for k in (1, 3, 5, 7)):
        _disagreement(ctx, kind, (size, plan_id, r, None if dtype is None else str(np.dtype(dtype))))
    # step 4: run
    failure = None
    try:
        _LAST[0] = "plan"
        if flat:
            flat_send = _flat(send)
            send, recv = flat_send, flat_send if recv is send else _flat(recv)
        prepared = plan.prepared.get((me, ctx.tag_ub))
        if prepared is None:
            prepared = plan.prepared[(me, ctx.tag_ub)] = Prepared(plan, me, tag_ub=ctx.tag_ub)
        payload = Bound(prepared, _or_empty(send, recv), _or_empty(recv, send), units, op)
        if walk(ctx.comm, prepared, payload, abort=ctx.abort) is None:
            failure = "stopped"  # another rank failed: it says why below
    except Exception as exc:  # noqa: BLE001 - any failure is reported on every rank
        failure = _why(exc, op)
        ctx.tell_others()
    # step 5: agree on the outcome
    from mpi4py import MPI

    mine[0] = me if failure not in (None, "stopped") else n
    ctx.comm.Allreduce(mine[:1], ctx.agreed[:1], op=MPI.MIN)
    if ctx.agreed[0] < n or failure is not None:
        bad = int(ctx.agreed[0])
        text = ctx.comm.bcast(failure, root=bad) if bad < n else "stopped without a reason"
        _reset(comm, ctx)
        raise MPICallError(f"rank {bad}: {kind}: {text}", rank=bad)


def _find(plan_set: PlanSet, kind: str, n: int, root, size: int, commute: bool):
    """``(plan, its index)`` for a call, or ``(None, -1)``; kept per plan set (a dict lookup after the first call)."""
    key = (kind, n, root, size, commute)
    cache = plan_set.__dict__.setdefault("_calls", {})
    found = cache.get(key)
    if found is None:
        plan = plan_set.find(kind, n, root, size, commutative=commute)
        found = cache[key] = (plan, -1 if plan is None else plan_set.plans.index(plan))
    return found


def _thin(ctx: _Context, kind: str, root, size: int, plan, plan_set, op, fallback) -> None:
    """MPI's own collective when no plan fits (or the plan says MPI's own is as fast): no agreement before it.

    Every rank decides this from what it knows identically (``plans=``, the
    kind, the communicator size, the root and the size), so every rank of a
    correct call takes this path. Only a callable operator can fail on
    some ranks inside MPI's own reduction: then one agreement after it
    makes every rank raise the first failing rank's reason.
    """
    if plan is None and ctx.rank == 0:
        _warn_once(kind, ctx.size, root, size, plan_set)
    _LAST[0] = "fallback" if plan is None else "mpi"
    if op is None or hasattr(op, "Is_commutative"):
        fallback(ctx)
        return
    failure = None
    try:
        fallback(ctx)
    except Exception as exc:  # noqa: BLE001 - reported on every rank below
        failure = _why(exc, op)
    from mpi4py import MPI

    n = ctx.size
    ctx.mine[0] = ctx.rank if failure is not None else n
    ctx.comm.Allreduce(ctx.mine[:1], ctx.agreed[:1], op=MPI.MIN)
    bad = int(ctx.agreed[0])
    if bad < n:
        text = ctx.comm.bcast(failure, root=bad)
        raise MPICallError(f"rank {bad}: {kind}: {text}", rank=bad)


def refusal(ctx: _Context, kind: str, reason) -> MPICallError:
    """The error a call without ``plans=`` raises on its own rank when its arguments are wrong.

    Examples
    --------
    >>> ctx = type("Ctx", (), {"rank": 3})()
    >>> str(refusal(ctx, "gather", ValueError("sendbuf is not C-contiguous")))
    'rank 3: gather: sendbuf is not C-contiguous'
    """
    return MPICallError(f"rank {ctx.rank}: {kind}: {reason}", rank=ctx.rank)


def delegating(ctx: _Context, kind: str, root, size: int) -> None:
    """Before MPI's own collective without ``plans=``: the :class:`FallbackWarning` once (rank 0), and :func:`last_run`.

    No plans= given, so every rank takes this path (the choice depends on
    the argument alone): MPI's own collective runs with no agreement, with
    MPI's own semantics. The warning points at the line that called
    :mod:`collsched.mpi` (the first frame outside the package).

    Examples
    --------
    >>> import warnings
    >>> ctx = type("Ctx", (), {"rank": 1, "size": 4})()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     delegating(ctx, "bcast", 0, 8)   # rank 1 says nothing
    >>> caught, last_run()
    ([], 'fallback')
    """
    if ctx.rank == 0:
        _warn_once(kind, ctx.size, root, size, None)
    _LAST[0] = "fallback"


def operator_failed(ctx: _Context, kind: str, exc: OperatorFailed, op) -> MPICallError:
    """The error raised on its own rank when the operator raised inside MPI's own reduction (no ``plans=``).

    Examples
    --------
    >>> ctx = type("Ctx", (), {"rank": 0})()
    >>> try:
    ...     raise OperatorFailed("boom") from ZeroDivisionError("boom")
    ... except OperatorFailed as exc:
    ...     str(operator_failed(ctx, "reduce", exc, sum))
    'rank 0: reduce: the operator sum raised ZeroDivisionError: boom'
    """
    return MPICallError(f"rank {ctx.rank}: {kind}: {_why(exc, op)}", rank=ctx.rank)


def _flat(a: np.ndarray | None) -> np.ndarray | None:
    """The bytes of a checked array, as a plan's layout reads them.

    Examples
    --------
    >>> _flat(np.arange(3, dtype=np.int16)).tolist()
    [0, 0, 1, 0, 2, 0]
    """
    return None if a is None else a.reshape(-1).view(np.uint8)


def _or_empty(buf, other) -> np.ndarray:
    """``buf``, or an empty array like ``other`` for a rank that has no such buffer (a reduce's non-root)."""
    if buf is not None:
        return buf
    return other[:0] if other is not None else np.zeros(0, dtype=np.uint8)


def _why(exc: Exception, op) -> str:
    if isinstance(exc, OperatorFailed):
        exc = exc.__cause__ or exc
        text = " ".join(str(exc).split()) or type(exc).__name__
        return f"the operator {op_name(op)} raised {type(exc).__name__}: {text}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def _disagreement(ctx: _Context, kind: str, mine: tuple) -> None:
    """Raise on every rank, naming the first rank whose size, plan, root or dtype differs from rank 0's."""
    everyone = ctx.comm.allgather(mine)
    what = ("buffer gives {} bytes", "plan is number {} of its plans=", "root is {}", "dtype is {}")
    fixes = ("give every rank buffers of the same size", "give every rank the same plans=",
             "give every rank the same root", "give every rank arrays of the same dtype")
    for r, theirs in enumerate(everyone):
        for k, (x, y) in enumerate(zip(theirs, everyone[0])):
            if x != y:
                raise MPICallError(f"rank {r}: {kind}: its {what[k].format(x)} where rank 0's {what[k].format(y)}",
                                   rank=r, fix=fixes[k])


def _warn_once(kind: str, n: int, root, size: int, plans) -> None:
    bucket = size.bit_length()
    key = (kind, n, root, bucket, None if plans is None else plans.where)
    if key in _WARNED:
        return
    _WARNED.add(key)
    where = "no plans= given" if plans is None else f"no plan in {plans.where} fits"
    at = f" from root {root}" if root is not None else ""
    warnings.warn(f"collsched.mpi: {kind} of {size} bytes on {n} ranks{at}: {where}; MPI's own collective runs",
                  FallbackWarning, stacklevel=_caller_level())


def root_of(kind: str, root) -> int | None:
    """The root a plan is looked up with (None for the kinds without one).

    Examples
    --------
    >>> root_of("allreduce", 0), root_of("reduce", 2)
    (None, 2)
    """
    return int(root) if kind in ROOTED else None


def _caller_level() -> int:
    """The ``stacklevel`` (for a ``warnings.warn`` in the function calling this) of the first frame outside the package.

    Examples
    --------
    >>> _caller_level()  # called from outside collsched.mpi: a warning there points at its own line
    1
    """
    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level
