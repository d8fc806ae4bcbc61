"""The agreement before a planned call, with a deadline: ranks that took MPI's own path cannot make it hang.

A call for which a plan fits agrees with the other ranks before running it
(one reduction of a few integers, :func:`agree`). A call for which no plan
fits runs MPI's own collective at once, with no agreement, so that it costs
what MPI's own does. Ranks whose sizes differ so that a plan fits on some
and not on others (an erroneous program: MPI requires matching sizes)
would then wait for each other in two different collectives forever: MPI
gives a rank no means to leave a blocking collective, and a rank that
leaves the agreement with an exception still waits for the others when
the process ends (``MPI_Finalize``).

So the agreement is non-blocking (``MPI_Iallreduce``), polled with a
deadline: :func:`limit` seconds (:data:`VARIABLE`, default
:data:`DEFAULT`). When it passes, the rank writes one line naming itself,
its host, its call and its plan (the format of the runtime's failing ranks,
:data:`collsched.runtime.worker.MARK`, so that
:func:`collsched.runtime.launch.launch` and
:func:`collsched.mpi.emulated.run_script` report it as that rank's failure)
and ends the job (``MPI_Abort``): the ranks inside MPI's own collective
are ended with it. A rank that is late by more than the deadline to a
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
import time

from ..runtime.worker import MARK

__all__ = ["agree", "limit", "describe", "VARIABLE", "DEFAULT"]

VARIABLE = "COLLSCHED_MPI_AGREE_TIMEOUT"
"""The environment variable giving the agreement's deadline, in seconds (``0`` or ``inf``: none)."""
DEFAULT = 300.0
"""The agreement's deadline when :data:`VARIABLE` is not set, seconds."""


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


def agree(ctx, mine, agreed, *, kind: str, size: int, root, plan) -> None:
    """``agreed`` = the element-wise minimum of every rank's ``mine``, or end the job after :func:`limit` seconds.

    Parameters
    ----------
    ctx : collsched.mpi.calls._Context
        The private communicator (``ctx.comm``, ``ctx.rank``, ``ctx.mpi``).
    mine, agreed : numpy.ndarray
        int64 vectors of one length.
    kind, size, root, plan
        The call, for the line (:func:`describe`).

    Raises
    ------
    MPICallError
        :data:`VARIABLE` is not a number of seconds (before any communication).

    Examples
    --------
    See :mod:`collsched.mpi` (it needs an MPI job); ``tests/runtime/test_mpi_agree.py`` ends a job this way.

    >>> callable(agree)
    True
    """
    try:
        seconds = limit()
    except ValueError as exc:  # the same environment on every rank: every rank raises this, before communicating
        from .calls import MPICallError

        raise MPICallError(f"rank {ctx.rank}: {kind}: {exc}", rank=ctx.rank) from None
    request = ctx.comm.Iallreduce(mine, agreed, op=ctx.mpi.MIN)
    if request.Test():
        return
    deadline = math.inf if seconds is None else time.monotonic() + seconds
    while not request.Test():
        if time.monotonic() > deadline:
            _end_job(ctx, describe(kind, size, root, plan), seconds)
        os.sched_yield()


def _end_job(ctx, call: str, seconds: float) -> None:
    """Write the one line and abort the job (the ranks in MPI's own collective cannot be reached otherwise)."""
    host = socket.gethostname()
    sys.stderr.write(f"{MARK} {ctx.rank} - {host}: MPICallError: rank {ctx.rank}: {call}: not every rank joined the "
                     f"agreement of this planned call within {seconds:g} s: a rank whose size fits no plan runs MPI's "
                     f"own collective (give every rank buffers of the same size), or a rank stopped or is late "
                     f"({VARIABLE} sets the wait); ending the job\n")
    sys.stderr.flush()
    ctx.comm.Abort(3)
