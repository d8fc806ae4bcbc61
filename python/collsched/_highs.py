"""HiGHS solvers that print nothing unless asked.

``highspy.Highs()`` writes its banner ("Running HiGHS 1.16.0 ...") to the
process's standard output from C++, the first time one is built, before any
option can be set; every solve then logs unless ``output_flag`` is off.
:func:`new_highs` builds a solver with both silenced, so that the library
and the command line keep standard output for their own results. The
solver's own words stay available: pass ``verbose=True``, or set
:data:`VERBOSE` (the command line does under ``--debug``).

Examples
--------
>>> h = new_highs()
>>> h.getOptionValue("output_flag")[1]
False
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator

__all__ = ["new_highs", "VERBOSE"]

VERBOSE = False
"""The default of :func:`new_highs`'s ``verbose``: the command line sets it under ``--debug``."""


def new_highs(*, verbose: bool | None = None):
    """A ``highspy.Highs`` solver, silent unless ``verbose``.

    Parameters
    ----------
    verbose : bool, optional
        Let HiGHS print its banner and log; default :data:`VERBOSE`.

    Returns
    -------
    highspy.Highs
        With ``output_flag`` off unless ``verbose``.

    Notes
    -----
    HiGHS prints its banner from the constructor, through the C library's
    standard output, so the constructor runs with file descriptor 1 pointed
    at the null device (for microseconds; Python's own buffers are flushed
    first). Where descriptor 1 cannot be redirected the banner may show.

    Examples
    --------
    >>> new_highs(verbose=True).getOptionValue("output_flag")[1]
    True
    """
    import highspy

    if VERBOSE if verbose is None else verbose:
        return highspy.Highs()
    with _stdout_to_devnull():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


@contextlib.contextmanager
def _stdout_to_devnull() -> Iterator[None]:
    """Point file descriptor 1 at the null device for the duration (a no-op where it cannot)."""
    for stream in (sys.stdout, sys.__stdout__):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1 (a detached process): nothing to protect
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
