"""RS_NLH and RS_NLPH: heaps of message sizes, messages split at ``M_thresh`` across phases.

Seed 002, sections 6 and 7.2. Each ``CCOM`` row is a max-heap of remaining
sizes (the root, the largest, is tried first; a phase scans a row in heap
array order). Once a phase is formed, ``M_thresh`` is the ``k``-th smallest
size it carries, idle hosts counting 0, with ``lambda = k / n``: messages of
at most ``M_thresh`` bytes go whole, larger ones send ``M_thresh`` bytes and
return to their heap with the rest. The paper leaves ``lambda`` to trials
(``(n-1)/n, (n-2)/n, (n-4)/n, ..., 3/4``) and keeps the best; so does
``lam=None`` here, scoring each schedule by ``sum over phases of
max(L + m / B)`` with the platform's route latency ``L`` and bandwidth ``B``
(the paper's "estimation function", which it left open).

Two choices the paper does not fix: when the ``k``-th size is 0 (fewer than
``n - k + 1`` hosts send in the phase) ``M_thresh`` is the phase's largest
size (every message goes whole, so the tail never stalls); parts are
counted in ``denominator`` units per message, so a cut piece carries
``floor(M_thresh / m * denominator)`` units (at least 1), slightly under
``M_thresh`` bytes.

When every message has the same size, ``M_thresh`` is that size in every
phase whatever ``lambda`` (the ``k``-th size carried, or the largest when
that is an idle host's 0): no message is cut, every trial gives the same
schedule, and it is computed once.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.hypercube(2)
>>> c = cs.AllToMany({("h0", "h1"): 4e3, ("h2", "h3"): 1e3, ("h1", "h0"): 1e3})
>>> s = cs.plan(p, c, algorithm="rs_nlh", lam=0.75)
>>> [[(t.src, t.dst, t.part) for t in step] for step in s.steps]
[[('h0', 'h1', (0, 256)), ('h1', 'h0', None), ('h2', 'h3', None)], [('h0', 'h1', (256, 1024))]]
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

import math

import numpy as np

from ... import _core
from ...schedules import StepSchedule
from ..registry import register
from .common import check_kind, com_matrix, route_resources, steps_from_pieces, with_bound

__all__ = ["rs_nlh", "rs_nlph", "paper_lambdas", "estimated_time"]


def paper_lambdas(n: int) -> list[float]:
    """The ``lambda`` values seed 002 tries: ``(n - 1)/n, (n - 2)/n, (n - 4)/n, ...`` down to ``3/4``.

    Parameters
    ----------
    n : int
        Number of hosts.

    Returns
    -------
    list of float

    Examples
    --------
    >>> paper_lambdas(64)
    [0.984375, 0.96875, 0.9375, 0.875, 0.75]
    >>> paper_lambdas(2)
    [0.5]
    """
    out = [(n - 1) / n]
    step = 2
    while (n - step) / n >= 0.75:
        out.append((n - step) / n)
        step *= 2
    return out


def estimated_time(platform, com, msg, phase, start, end, denominator: int, *, matrices=None) -> float:
    """``sum over phases of max(L + bytes / B)`` over its pieces: a contention-free phase-synchronous estimate.

    Parameters
    ----------
    platform : Platform
    com : Com
    msg, phase, start, end : int arrays
        The pieces (as ``collsched._core.decompose_permutations`` returns them).
    denominator : int
    matrices : (ndarray, ndarray), optional
        ``platform.latency_matrix()`` and ``platform.bandwidth_matrix()``, if already at hand.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    >>> import collsched as cs
    >>> from .common import com_matrix
    >>> p = cs.topologies.star(2, bandwidth=1e6, latency=1e-3)
    >>> com = com_matrix(p, cs.AllToMany({("h0", "h1"): 1e6}))
    >>> estimated_time(p, com, [0], [0], [0], [1], 1)
    1.002
    """
    msg, phase = np.asarray(msg), np.asarray(phase)
    if len(msg) == 0:
        return 0.0
    lat, bw = matrices if matrices is not None else (platform.latency_matrix(), platform.bandwidth_matrix())
    s, d = com.src[msg], com.dst[msg]
    t = lat[s, d] + com.size[msg] * (np.asarray(end) - np.asarray(start)) / denominator / bw[s, d]
    per_phase = np.zeros(int(phase.max()) + 1)
    np.maximum.at(per_phase, phase, t)
    return float(per_phase.sum())


def _heap(platform, collective, *, name: str, pairs: bool, seed: int, lam: float | None,
          denominator: int) -> StepSchedule:
    if lam is not None and not (isinstance(lam, (int, float)) and 0 < lam <= 1):
        raise ValueError(f"option lam must be in (0, 1], got {lam!r}")
    if not (isinstance(denominator, int) and denominator >= 1):
        raise ValueError(f"option denominator must be an integer >= 1, got {denominator!r}")
    com = com_matrix(platform, check_kind(collective, name))
    path_ptr, path, n_res = route_resources(platform, com)
    best = None
    matrices = (platform.latency_matrix(), platform.bandwidth_matrix())
    # equal sizes: every phase's M_thresh is that size (the k-th of the sizes carried, or the largest when it is an
    # idle host's 0), so no message is ever cut and k changes nothing: one decomposition serves every lambda
    uniform = len(com.size) == 0 or bool(np.all(com.size == com.size[0]))
    made: dict[int | None, tuple] = {}
    for lam_ in paper_lambdas(com.n) if lam is None else [lam]:
        k = min(com.n, max(1, math.ceil(lam_ * com.n - 1e-9)))
        if (None if uniform else k) not in made:
            pieces = _core.decompose_permutations(com.n, com.row_ptr, com.dst, com.size, path_ptr, path, n_res,
                                                  pairs=pairs, links=True, heap_k=k, denominator=denominator,
                                                  seed=int(seed) % 2**64)
            made[None if uniform else k] = (pieces, estimated_time(platform, com, *pieces, denominator,
                                                                   matrices=matrices))
        pieces, cost = made[None if uniform else k]
        if best is None or cost < best[0]:
            best = (cost, lam_, pieces)
    cost, lam_, (msg, phase, start, end) = best
    params = {"seed": seed, "lam": lam_, "denominator": denominator, "estimated_time": cost,
              "phases": int(phase.max()) + 1, "max_degree": com.max_degree}
    return with_bound(steps_from_pieces(com, msg, phase, start, end, denominator=denominator, algorithm=name,
                                        params=params), platform, collective)


_DOC = """{title}

    Seed 002, sections 6 and 7.2: see :mod:`collsched.algorithms.permutations.heaps`.

    Parameters
    ----------
    platform : Platform
        Its hosts are ``P_0 .. P_{{n-1}}``; its routes give ``Check_Path``.
    collective : AllToMany or AllToAll
        The COM matrix, non-uniform sizes welcome.
    seed : int
        Seed of the random start rows (and heap ties).
    lam : float, optional
        ``lambda = k / n`` in ``(0, 1]``; by default the paper's trial values,
        keeping the schedule of least estimated time.
    denominator : int
        Units per message for the parts of split messages (default 1,024).

    Returns
    -------
    StepSchedule
        Link-disjoint partial permutations of message parts;
        ``params`` holds ``lam``, ``phases``, ``max_degree`` and ``estimated_time``.

    Raises
    ------
    ValueError
        If ``lam`` or ``denominator`` is out of range.
    CollectiveError
        If the collective is not an all-to-many or all-to-all.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.hypercube(3)
    >>> c = cs.AllToMany({{("h0", "h1"): 8e3, ("h1", "h0"): 1e3, ("h0", "h3"): 2e3, ("h2", "h1"): 1e3}})
    >>> s = {name}(p, c, lam=0.875)
    >>> len(s) >= s.params["max_degree"], s.params["lam"]
    (True, 0.875)
    >>> cs.validate(p, c, s)
    >>> {name}(p, c, lam=2)
    Traceback (most recent call last):
    ...
    ValueError: option lam must be in (0, 1], got 2

    References
    ----------
    S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", Syracuse University, 1993 (seed 002).
    """


@register("rs_nlh", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="RS_NL with size heaps, messages split at M_thresh (seed 002, RS_NLH)")
def rs_nlh(platform, collective, *, seed: int = 0, lam: float | None = None, denominator: int = 1024) -> StepSchedule:
    return _heap(platform, collective, name="rs_nlh", pairs=False, seed=seed, lam=lam, denominator=denominator)


@register("rs_nlph", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="RS_NLP with size heaps, messages split at M_thresh (seed 002, RS_NLPH)")
def rs_nlph(platform, collective, *, seed: int = 0, lam: float | None = None, denominator: int = 1024) -> StepSchedule:
    return _heap(platform, collective, name="rs_nlph", pairs=True, seed=seed, lam=lam, denominator=denominator)


rs_nlh.__doc__ = _DOC.format(name="rs_nlh", title="RS_NLH: RS_NL with heaps of sizes and messages split across phases.")
rs_nlph.__doc__ = _DOC.format(name="rs_nlph",
                              title="RS_NLPH: RS_NLP (pairwise exchanges first) with heaps and split messages.")
