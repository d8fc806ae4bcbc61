"""Rabenseifner's reduce-scatter and all-reduce: recursive halving, then (all-reduce) recursive doubling.

With ``m = 2^⌊log2 N⌋`` and ``r = N - m``, as MPICH does:

* **fold** (if ``r > 0``): for ``i < r``, ``P_{2i}`` sends its whole operand
  to ``P_{2i+1}`` and sits out; the ``m`` others take new ranks
  (``P_{2i+1}`` is ``i``, ``P_j`` is ``j - r`` for ``j >= 2r``);
* **recursive halving**: in each of ``log2 m`` steps, new ranks ``k`` and
  ``k XOR d`` split the range of the vector they are still responsible
  for; the lower rank keeps the lower half and sends the upper half,
  reduced over every operand it holds, to its partner, and the other way
  round;
* **recursive doubling** (all-reduce): the same pairs in the reverse order
  exchange the ranges they hold, fully reduced, until every new rank holds
  the whole vector;
* **unfold** (if ``r > 0``): ``P_{2i+1}`` sends ``P_{2i}`` its result (the
  whole vector, or block ``2i`` of a reduce-scatter).

A reduce-scatter halves with distances ``m/2, ..., 2, 1`` over the ``N``
result blocks, new rank ``i < r`` being responsible for blocks ``2i`` and
``2i + 1`` (which are adjacent: MPICH's pairing keeps ranges contiguous),
so that new rank ``k`` ends with its own blocks (MPICH's
``MPIR_Reduce_scatter_block_intra_recursive_halving``). An all-reduce
halves the vector into ``m`` equal chunks with distances ``1, 2, ...,
m/2`` and doubles back with ``m/2, ..., 1`` (MPICH's
``MPIR_Allreduce_intra_reduce_scatter_allgather``). Both need a
commutative operator (as in MPICH).

References
----------
R. Rabenseifner, "Optimization of collective reduction operations", ICCS 2004,
LNCS 3036, pp. 1-9. doi:10.1007/978-3-540-24685-5_1.
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1), 2005. doi:10.1177/1094342005051521.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(8)
>>> c = cs.AllReduce(participants=p.hosts, size=8e6)
>>> s = halving_doubling(p, c)
>>> len(s), s.denominator, [t.part for t in s.steps[0][:2]]
(6, 8, [(4, 8), (0, 4)])
"""

from __future__ import annotations

from ...schedules import StepSchedule, Transfer
from .phases import reduction_of, value_over

__all__ = ["halving_doubling"]


def halving_doubling(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Recursive-halving reduce-scatter, and for an all-reduce recursive doubling after it (Rabenseifner).

    Parameters
    ----------
    platform : Platform
        Unused: the pairs follow the participants' order.
    collective : ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one; commutative.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    StepSchedule
        Per instance, ``log2 N`` steps (reduce-scatter) or ``2 log2 N``
        (all-reduce) when ``N`` is a power of two, two more (fold and
        unfold) otherwise. Denominator ``N`` for a reduce-scatter, ``m``
        for an all-reduce.

    Raises
    ------
    ScheduleError
        If the reduction is not commutative.

    Notes
    -----
    For ``N = 2^q``, a participant sends ``(N - 1)/N`` of the vector in the
    halving steps (and as much again doubling) in ``q`` messages; lowered
    with ``sync="post_all"`` on a single switch with route latency ``α``
    and bandwidth ``β``, an all-reduce of ``M`` bytes takes
    ``2 q α + 2 (N - 1)/N · M/β`` and a reduce-scatter of ``size``-byte
    blocks ``q α + (N - 1) size/β`` (``tests/gpu/test_gpu_baselines_times.py``).
    Otherwise the fold and unfold add at least ``2(α + M/β)`` to the time
    of ``m`` participants, and more under ``post_all``: the new ranks that
    did not fold start halving at once, and their first message shares
    the link of a rank still receiving its fold (measured for ``N = 6``:
    ``M/(4β)`` more).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=p.hosts, size=1e3)
    >>> s = halving_doubling(p, c)
    >>> [[(t.src, t.dst, t.values[0], t.part) for t in step] for step in s.steps]  # doctest: +NORMALIZE_WHITESPACE
    [[('h0', 'h1', Σ{0}@0, None)],
     [('h1', 'h2', Σ{0,1}@0, (2, 3)), ('h2', 'h1', Σ{2}@0, (0, 2))],
     [('h1', 'h0', Σ{0..2}@0, (0, 1))]]
    """
    base, order, count = reduction_of(collective, "halving_doubling", ordered=False)
    n = len(order)
    m = 1 << (n.bit_length() - 1)
    r = n - m
    # new rank k -> old positions it stands for; P_{2i} folds into P_{2i+1}
    stands = [[2 * k, 2 * k + 1] if k < r else [k + r] for k in range(m)]
    actor = [order[s[-1]] for s in stands]
    allreduce = base.kind == "allreduce"
    if allreduce:  # m equal chunks of the vector; halving by increasing distance
        den, bounds, dists = m, list(range(m + 1)), [1 << j for j in range(m.bit_length() - 1)]
    else:  # the N blocks; new rank k owns the blocks it stands for; halving by decreasing distance
        den, bounds = n, [s[0] for s in stands] + [n]
        dists = [1 << j for j in reversed(range(m.bit_length() - 1))]
    steps = []
    for inst in range(count):
        if r:  # fold: the whole operand of P_{2i} to P_{2i+1}
            steps.append(tuple(Transfer(order[2 * i], order[2 * i + 1], inst=inst,
                                        values=(value_over(base, inst, [2 * i]),)) for i in range(r)))
        sets = [list(s) for s in stands]
        span = [(0, m)] * m  # the chunks (new ranks' ranges) each new rank is still responsible for
        for d in dists:  # recursive halving
            step, nxt = [], []
            for k in range(m):
                lo, hi = span[k]
                mid = (lo + hi) // 2
                keep, give = ((lo, mid), (mid, hi)) if k < k ^ d else ((mid, hi), (lo, mid))
                step.append(Transfer(actor[k], actor[k ^ d], inst=inst, part=(bounds[give[0]], bounds[give[1]]),
                                     values=(value_over(base, inst, sets[k]),)))
                nxt.append(keep)
            sets = [sets[k] + sets[k ^ d] for k in range(m)]
            span = nxt
            steps.append(tuple(step))
        full = value_over(base, inst, range(n))
        if allreduce:
            for d in reversed(dists):  # recursive doubling of the reduced chunks
                steps.append(tuple(Transfer(actor[k], actor[k ^ d], inst=inst, values=(full,),
                                            part=(bounds[span[k][0]], bounds[span[k][1]])) for k in range(m)))
                span = [(min(span[k][0], span[k ^ d][0]), max(span[k][1], span[k ^ d][1])) for k in range(m)]
        if r:  # unfold: P_{2i+1} gives P_{2i} its result
            steps.append(tuple(Transfer(order[2 * i + 1], order[2 * i], inst=inst, values=(full,),
                                        part=None if allreduce else (2 * i, 2 * i + 1)) for i in range(r)))
    return StepSchedule(steps=tuple(steps), denominator=den, algorithm="halving_doubling")
