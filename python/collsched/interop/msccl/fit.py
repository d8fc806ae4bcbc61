"""A forest schedule made to fit the MSCCL runtime: fewer chunks, or its tree shares on a coarser grid.

Two things keep a forest's export from fitting
(:func:`~collsched.interop.msccl.export.to_xml` refuses them with one line):

* **Too many messages** between two GPUs, thread blocks or steps: the
  forest in fewer chunks (of
  :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES`) sends fewer.
* **Too fine a chunk grid** (:class:`~collsched.interop.msccl.lint.ChunkGridError`):
  the trees' shares of a block have large denominators (on ``dgx_a100(2)``
  a 4 kB all-gather's 130 trees cut a block into 1/11,648 pieces, 186,368
  chunks per loop where collsched writes 65,536), or a chunk at the file's
  ``minBytes`` is not a whole number of bytes (``dgx2(2)``, 4 kB
  all-gather: 960 chunks of 136.5 bytes). :func:`round_shares` puts each
  root's shares on a grid of ``1/K`` (largest-remainder rounding: each
  share rounded down to a multiple of ``1/K``, the ``1/K`` left over given
  to the largest remainders, a tree left with nothing dropped); the loads
  of the arcs then change, and the rounded forest claims the throughput
  that keeps every arc within its load in the original forest (the
  original throughput over the largest ratio of an arc's new load to its
  old), so it is a valid forest whose claims hold; its time is its own
  (``docs/msccl.md`` gives both).

:func:`~collsched.interop.msccl.export.fit_chunks` tries the schedule as it is, then, for its own chunk
count and each smaller one (largest first), the shares as they are and on
the grids ``1/32, 1/16, ..., 1/1`` (a grid of ``1/32`` or coarser keeps a
root's unit messages exact, :data:`~collsched.schedules.forest.MAX_UNITS`),
and returns the first that exports without serialising its messages
(which costs the most time, ``docs/msccl.md``); if none does, the first
that exports serialised.

Examples
--------
>>> from collsched.schedules.forest import ForestSchedule, ForestTree
>>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]), ForestTree("b", 1, [("b", "a")])]
>>> f = ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1)
>>> r = round_shares(f, 4)   # 1/3 -> 1/4, 2/3 -> 3/4
>>> r.shares(), r.throughput
([Fraction(1, 4), Fraction(3, 4), Fraction(1, 1)], Fraction(1, 1))
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from ...errors import CollschedError
from ...schedules import ForestSchedule
from ...schedules.forest import MAX_UNITS, ForestTree

__all__ = ["round_shares", "rounding", "GRIDS"]

GRIDS = tuple(MAX_UNITS >> k for k in range(MAX_UNITS.bit_length()))
"""The grids :func:`~collsched.interop.msccl.export.fit_chunks` tries, finest first: shares in multiples of ``1/32, 1/16, ..., 1/1``."""


def round_shares(schedule: ForestSchedule, k: int) -> ForestSchedule:
    """``schedule`` with each root's tree shares rounded to multiples of ``1/k`` (module docstring).

    Parameters
    ----------
    schedule : ForestSchedule
    k : int
        The grid, >= 1.

    Returns
    -------
    ForestSchedule
        Trees rounded to nothing dropped; weights ``share · R / r`` and
        throughput ``T / r``, where ``R`` is the root's total weight, ``T``
        the schedule's throughput and ``r >= 1`` the largest ratio of an
        arc's load (the sum of the weights of the trees through it) after
        rounding to its load before. ``schedule`` itself when nothing changes.

    Raises
    ------
    CollschedError
        ``k`` is not an integer >= 1.

    Examples
    --------
    Two trees of ``a`` through different arcs: rounding their shares 1/3, 2/3 to 1/2, 1/2
    loads ``a→c`` with 9/2 instead of 4, so the forest claims 8/9 of the throughput.

    >>> from collsched.schedules.forest import ForestSchedule, ForestTree
    >>> t = [ForestTree("a", 1, [("a", "c"), ("a", "b")]), ForestTree("a", 2, [("a", "b"), ("b", "c")]),
    ...      ForestTree("b", 3, [("b", "a"), ("a", "c")]), ForestTree("c", 3, [("c", "a"), ("c", "b")])]
    >>> f = ForestSchedule(participants=("a", "b", "c"), trees=t, throughput=3, rate_bound=3)
    >>> r = round_shares(f, 2)
    >>> [str(x.weight) for x in r.trees], r.throughput
    (['4/3', '4/3', '8/3', '8/3'], Fraction(8, 3))
    >>> round_shares(f, 3) is f
    True
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise CollschedError(f"grid {k!r}", fix="give an integer >= 1")
    shares = schedule.shares()
    units = [0] * len(shares)
    for root in schedule.participants:
        mine = [j for j, t in enumerate(schedule.trees) if t.root == root]
        exact = {j: shares[j] * k for j in mine}
        for j in mine:
            units[j] = int(exact[j])   # floor: shares are positive
        left = k - sum(units[j] for j in mine)
        for j in sorted(mine, key=lambda j: (-(exact[j] - units[j]), j))[:left]:   # step 2: largest remainders
            units[j] += 1
    if all(Fraction(u, k) == s for u, s in zip(units, shares)):
        return schedule
    total = {r: schedule.root_rate(r) for r in schedule.participants}
    weight = [Fraction(u, k) * total[t.root] for u, t in zip(units, schedule.trees)]

    def loads(weights):
        out: dict[tuple[str, str], Fraction] = {}
        for w, t in zip(weights, schedule.trees):
            for arc in t.arcs + (t.up_arcs if schedule.kind == "allreduce" else ()):
                out[arc] = out.get(arc, Fraction(0)) + w
        return out

    before, after = loads([t.weight for t in schedule.trees]), loads(weight)
    r = max([Fraction(1)] + [after[a] / before[a] for a in after if after[a] > 0])
    trees = tuple(ForestTree(t.root, w / r, t.arcs, t.up) for w, t in zip(weight, schedule.trees) if w > 0)
    return dataclasses.replace(schedule, trees=trees, throughput=schedule.throughput / r)


def rounding(planned: ForestSchedule, fitted: ForestSchedule) -> str:
    """What :func:`round_shares` changed from ``planned`` to ``fitted``, as a phrase ("" when the trees are the same).

    Examples
    --------
    >>> from collsched.schedules.forest import ForestSchedule, ForestTree
    >>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]), ForestTree("b", 1, [("b", "a")])]
    >>> f = ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1)
    >>> rounding(f, round_shares(f, 2)), rounding(f, f)
    (' with its tree shares on a grid of 1/2 (3 of 3 trees kept, throughput 1.0000 of the planned)', '')
    """
    if fitted.trees == planned.trees:
        return ""
    k = math.lcm(*(x.denominator for x in fitted.shares()))
    return (f" with its tree shares on a grid of 1/{k} ({len(fitted.trees)} of {len(planned.trees)} trees kept, "
            f"throughput {float(fitted.throughput / planned.throughput):.4f} of the planned)")
