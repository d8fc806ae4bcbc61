"""Matching-based rounds of Bhat, Prasanna and Raghavendra (seed 004, section 3.1).

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings.costs import overhead_platform
>>> p = overhead_platform([1, 5, 10, 1])
>>> c = cs.AllToAll(senders=p.hosts, size=1)
>>> s = matching(p, c)
>>> len(s.steps), cs.validate(p, c, s)
(3, None)
"""

from __future__ import annotations

import numpy as np

from ...schedules import StepSchedule, Transfer
from ..registry import register
from .common import check_seed, planning_bound
from .costs import exchange_of

__all__ = ["matching", "matching_rounds", "matching_rounds_reference"]


def matching_rounds(cost: np.ndarray, mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """Rounds of maximum-weight matchings: each round a largest matching of the remaining messages, heaviest first.

    Parameters
    ----------
    cost : ndarray, shape (S, R)
        Edge weights (communication times), finite.
    mask : ndarray of bool
        The edges (messages) still to send.

    Returns
    -------
    list of list of (int, int)
        Per round, its ``(sender, receiver)`` index pairs in sender order.

    Raises
    ------
    ValueError
        If ``cost`` and ``mask`` differ in shape or a cost is not finite.

    Notes
    -----
    Step 1: the bipartite graph of senders and receivers, weighted by cost.
    Step 2: each round, a maximum-weight matching among matchings of maximum
    cardinality (a maximum-weight perfect matching when the remaining graph
    is regular, as in an all-to-all); step 3: remove its edges. Solved in the
    Rust core (``collsched._core.matching_rounds``) by shortest augmenting
    paths over per-row lists of the messages left, on a square graph that
    embeds the exchange (senders and receiver copies against receivers and
    sender stand-ins; the senders alone while what is left is regular),
    whose dual potentials carry over from round to round (a round only
    removes edges, so they stay feasible): most rows find a free column
    over a tight edge in their first scan. The same rounds as solving each
    round afresh (:func:`matching_rounds_reference`) where each round's best
    matching is unique, rounds of the same weight otherwise.

    Examples
    --------
    >>> c = np.array([[0, 3, 1], [2, 0, 5], [4, 1, 0]], float)
    >>> matching_rounds(c, c > 0)
    [[(0, 1), (1, 2), (2, 0)], [(0, 2), (1, 0), (2, 1)]]
    """
    from ... import _core

    cost = np.ascontiguousarray(cost, dtype=np.float64)
    mask = np.ascontiguousarray(mask, dtype=bool)
    if cost.shape != mask.shape or cost.ndim != 2:
        raise ValueError(f"matching cost {cost.shape} and mask {mask.shape} must be matrices of one shape")
    return [list(r) for r in _core.matching_rounds(cost, mask)]


def matching_rounds_reference(cost: np.ndarray, mask: np.ndarray) -> list[list[tuple[int, int]]]:
    """:func:`matching_rounds` solved afresh each round by scipy's ``linear_sum_assignment`` (the tests' reference).

    Parameters
    ----------
    cost : ndarray, shape (S, R)
    mask : ndarray of bool

    Returns
    -------
    list of list of (int, int)

    Notes
    -----
    P rounds of an O(P^3) assignment: O(P^4); 29 s at P = 1,024.

    Examples
    --------
    >>> c = np.array([[0, 3, 1], [2, 0, 5], [4, 1, 0]], float)
    >>> matching_rounds_reference(c, c > 0) == matching_rounds(c, c > 0)
    True
    """
    from scipy.optimize import linear_sum_assignment

    left = mask.copy()
    big = float(np.abs(cost).sum()) + 1.0
    rounds = []
    while left.any():
        weight = np.where(left, big + cost, 0.0)        # cardinality first, then weight
        rows, cols = linear_sum_assignment(weight, maximize=True)
        picks = [(int(i), int(j)) for i, j in zip(rows, cols) if left[i, j]]
        for i, j in picks:
            left[i, j] = False
        rounds.append(picks)
    return rounds


@register("matching", family="orderings", kinds=("alltoall", "alltomany"), series=False,
          summary="rounds of maximum-weight perfect matchings (Bhat et al.)")
def matching(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Rounds of maximum-weight perfect matchings on the cost matrix, heaviest round first.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Unused (deterministic); checked.

    Returns
    -------
    StepSchedule
        One step per round; lower it with ``sync="post_all"`` for the
        per-sender order, ``"barrier"`` for lock-step rounds.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    P. B. Bhat, V. K. Prasanna, C. S. Raghavendra, "Adaptive communication
    algorithms for distributed heterogeneous systems", HPDC 1998,
    doi:10.1109/HPDC.1998.709962; E. Lawler, *Combinatorial Optimization:
    Networks and Matroids*, 1976.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 5, 10, 1, 5])
    >>> c = cs.AllToAll(senders=p.hosts, receivers=["h1", "h2"], size=1)
    >>> s = matching(p, c)
    >>> [len(step) for step in s.steps], cs.validate(p, c, s)
    ([2, 2, 2, 2], None)
    """
    check_seed(seed)
    x = exchange_of(platform, collective)
    rounds = matching_rounds(x.cost, x.mask)
    steps = tuple(tuple(Transfer(x.senders[i], x.receivers[j]) for i, j in rnd) for rnd in rounds)
    return StepSchedule(steps=steps, algorithm="matching", params={"seed": seed},
                        bound=planning_bound(platform, collective), collective=collective)
