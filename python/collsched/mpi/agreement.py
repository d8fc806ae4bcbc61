"""The agreement before a planned call, with a deadline: ranks that took MPI's own path cannot make it hang.

A call for which a plan fits agrees with the other ranks before running it
(one reduction of a few integers, :func:`agree`). A call for which no plan
fits runs MPI's own collective at once, with no agreement, so that it costs
what MPI's own does. Ranks whose sizes differ so that a plan fits on some
and not on others (an erroneous program: MPI requires matching sizes)
would then wait for each other in two different collectives forever: MPI
gives a rank no means to leave a blocking collective, and ranks that raise
out of the agreement do not end the job either (docs/mpi.md: both tried
under ``mpirun``).

So the agreement has a deadline: :func:`limit` seconds (:data:`VARIABLE`,
default :data:`DEFAULT`, read once per process, at its first planned call),
kept by a thread while the rank waits in the blocking ``MPI_Allreduce`` (a
polled ``MPI_Iallreduce`` cost more: ``benchmarks/bench_mpi_agree.py``,
docs/mpi.md). The thread wakes every :data:`PERIOD` seconds on its own and
reads what the call wrote (one attribute, written before and after the
``MPI_Allreduce``: no lock, no wake-up per call), so the job ends between
the deadline and :data:`PERIOD` seconds after it. When it passes, the rank
writes one line naming itself, its host, its call and its plan (the format
of the runtime's failing ranks, :data:`collsched.runtime.worker.MARK`, so
that :func:`collsched.mpi.emulated.run_script` reports it as that rank's
failure) and ends the job (``MPI_Abort``): the ranks inside MPI's own
collective are ended with it. A rank that is late by more than the deadline to a
planned call also ends the job: raise :data:`VARIABLE` for programs whose
ranks reach a collective that far apart (``0`` or ``inf``: wait forever).

Examples
--------
>>> limit({VARIABLE: "2.5"}), limit({VARIABLE: "inf"}), limit({}) == DEFAULT
(2.5, None, True)
>>> describe("broadcast", 800, 0, None)
'broadcast of 800 bytes from root 0'
"""

from __future__ import annotations

import math
import os
import socket
import sys
import threading
import time

from ..runtime.worker import MARK

__all__ = ["agree", "limit", "describe", "VARIABLE", "DEFAULT", "PERIOD"]

VARIABLE = "COLLSCHED_MPI_AGREE_TIMEOUT"
"""The environment variable giving the agreement's deadline, in seconds (``0`` or ``inf``: none)."""
DEFAULT = 300.0
"""The agreement's deadline when :data:`VARIABLE` is not set, seconds."""
PERIOD = 1.0
"""How often the deadline's thread looks at the clock, seconds: the deadline's resolution."""
_READ: list = []  # the deadline of this process (:func:`limit`), read at its first planned call


def limit(environ=None) -> float | None:
    """The agreement's deadline in seconds, or None (wait forever), from :data:`VARIABLE`.

    Parameters
    ----------
    environ : mapping, optional
        Default ``os.environ``.

    Returns
    -------
    float or None

    Raises
    ------
    ValueError
        The variable is not a number of seconds.

    Examples
    --------
    >>> limit({VARIABLE: "0"}) is None
    True
    >>> limit({VARIABLE: "soon"})
    Traceback (most recent call last):
    ...
    ValueError: COLLSCHED_MPI_AGREE_TIMEOUT='soon' is not a number of seconds (give one, or 0 to wait forever)
    """
    text = (os.environ if environ is None else environ).get(VARIABLE)
    if text is None:
        return DEFAULT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"{VARIABLE}={text!r} is not a number of seconds (give one, or 0 to wait forever)")
    return None if seconds == 0 or math.isinf(seconds) else seconds


def describe(kind: str, size: int, root, plan) -> str:
    """A call and its plan, for the line that ends the job.

    Examples
    --------
    >>> plan = type("Plan", (), {"algorithm": "ecef", "low": 524288, "high": 2097152})()
    >>> describe("allreduce", 10**6, None, plan)
    'allreduce of 1000000 bytes (plan ecef for 524288..2097152 bytes)'
    """
    at = f" from root {root}" if root is not None else ""
    fits = f" (plan {plan.algorithm} for {plan.low}..{plan.high} bytes)" if plan is not None else ""
    return f"{kind} of {size} bytes{at}{fits}"


def agree(ctx, mine, agreed, *, kind: str, size: int, root, plan, error: type) -> None:
    """``agreed`` = the element-wise minimum of every rank's ``mine``, or end the job after :func:`limit` seconds.

    The reduction is MPI's blocking ``MPI_Allreduce``; a thread of this
    process (:class:`_Watchdog`, started at the first call) ends the job if
    it has not returned by the deadline. Arming and disarming it are two
    attribute writes; the thread looks at them every :data:`PERIOD` seconds,
    so the job ends within :data:`PERIOD` seconds after the deadline. The
    deadline is read from :data:`VARIABLE` at the process's first call.

    Parameters
    ----------
    ctx : collsched.mpi.calls._Context
        The private communicator (``ctx.comm``, ``ctx.rank``, ``ctx.mpi``).
    mine, agreed : numpy.ndarray
        int64 vectors of one length.
    kind, size, root, plan
        The call, for the line (:func:`describe`).
    error : type
        The exception raised when :data:`VARIABLE` is wrong (called with
        the message and ``rank=``: :class:`~collsched.mpi.calls.MPICallError`).

    Raises
    ------
    error
        :data:`VARIABLE` is not a number of seconds (before any communication).

    Examples
    --------
    See :mod:`collsched.mpi` (it needs an MPI job); ``tests/mpi/test_mpi_failures.py`` ends a job this way.

    >>> callable(agree)
    True
    """
    if not _READ:
        try:
            _READ.append(limit())
        except ValueError as exc:  # the same environment on every rank: every rank raises this, before communicating
            raise error(f"rank {ctx.rank}: {kind}: {exc}", rank=ctx.rank) from None
    seconds = _READ[0]
    if seconds is None:
        ctx.comm.Allreduce(mine, agreed, op=ctx.mpi.MIN)
        return
    dog = _Watchdog.one or _Watchdog.get()
    dog.armed = (time.monotonic() + seconds, (ctx, kind, size, root, plan, seconds))
    try:
        ctx.comm.Allreduce(mine, agreed, op=ctx.mpi.MIN)
    finally:
        dog.armed = None


class _Watchdog(threading.Thread):
    """One daemon thread per process: every :data:`PERIOD` seconds, past the armed deadline, it ends the job.

    ``armed`` is ``(deadline, call)`` while the main thread waits in an
    agreement, else None; only :func:`agree` writes it, one reference at a
    time (atomic under the interpreter's lock), and the thread only reads it.
    """

    one: _Watchdog | None = None

    def __init__(self):
        super().__init__(name="collsched.mpi agreement deadline", daemon=True)
        self.armed: tuple | None = None

    @classmethod
    def get(cls) -> _Watchdog:
        if cls.one is None:
            cls.one = cls()
            cls.one.start()
        return cls.one

    def run(self) -> None:
        while True:
            armed = self.armed
            now = time.monotonic()
            if armed is not None and now >= armed[0] and self.armed is armed:  # still that call's agreement
                _end_job(*armed[1])
            time.sleep(PERIOD if armed is None else min(PERIOD, max(armed[0] - now, 0.0) + 1e-3))


def _end_job(ctx, kind: str, size: int, root, plan, seconds: float) -> None:
    """Write the one line and end the job (the ranks in MPI's own collective cannot be reached otherwise)."""
    host = socket.gethostname()
    sys.stderr.write(f"{MARK} {ctx.rank} - {host}: MPICallError: rank {ctx.rank}: {describe(kind, size, root, plan)}: "
                     f"not every rank joined the agreement of this planned call within {seconds:g} s: a rank whose "
                     f"size fits no plan runs MPI's own collective (give every rank buffers of the same size), or a "
                     f"rank stopped or is late ({VARIABLE} sets the wait); ending the job\n")
    sys.stderr.flush()
    if ctx.mpi.Query_thread() == ctx.mpi.THREAD_MULTIPLE:
        ctx.comm.Abort(3)  # from this thread, while the main one waits inside MPI
    time.sleep(1.0)  # let mpirun forward the line
    os._exit(3)  # mpirun ends the job when a rank exits before MPI_Finalize
