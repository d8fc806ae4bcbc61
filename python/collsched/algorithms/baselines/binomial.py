"""Binomial trees, as MPICH builds them, for reduce, broadcast, scatter and gather.

Relative rank ``r`` (0 is the root) has parent ``r - lowbit(r)`` and children
``r + 2^j`` for every ``2^j < lowbit(r)`` (all powers below ``n`` for the
root). A broadcast or scatter serves the largest subtree first (MPICH's
``MPIR_Bcast_binomial``, ``MPIR_Scatter``); a reduce or gather receives from
the smallest subtree first (``MPIR_Reduce_binomial``), so that each node's
subtree is the contiguous range ``r .. r + lowbit(r) - 1`` and a reduce
combines ``v[r..r]`` with ``v[r+1..r+1]``, then ``v[r+2..r+3]``, ... without
commuting. For a non-commutative reduce MPICH reduces towards relative rank
0 = ``P_0`` and then sends the result to the target; so do we.

References
----------
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1), 2005. doi:10.1177/1094342005051521

Examples
--------
>>> binomial_children(6, largest_first=True)
{0: [4, 2, 1], 2: [3], 4: [5]}
>>> binomial_children(6, largest_first=False)
{0: [1, 2, 4], 2: [3], 4: [5]}
"""

from __future__ import annotations

from ...schedules import TreeSchedule
from ..registry import register
from .common import tree_order

__all__ = ["binomial_children", "binomial"]


def binomial_children(n: int, *, largest_first: bool) -> dict[int, list[int]]:
    """Children of each relative rank in a binomial tree of ``n`` nodes (rank 0 is the root).

    Notes
    -----
    O(n log n).
    """
    children: dict[int, list[int]] = {}
    for r in range(n):
        low = r & -r if r else 1 << n.bit_length()
        kids = []
        mask = 1
        while mask < low and r + mask < n:
            kids.append(r + mask)
            mask <<= 1
        if kids:
            children[r] = kids[::-1] if largest_first else kids
    return children


@register("binomial", family="baselines", kinds=("reduce", "broadcast", "scatter", "gather"),
          summary="MPICH binomial tree (order-preserving for non-commutative reduce)")
def binomial(platform, collective, *, seed: int = 0) -> TreeSchedule:
    """MPICH's binomial tree for the collective; a series runs instance after instance.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(5)
    >>> c = cs.Reduce(participants=["h3", "h1", "h4", "h0", "h2"], target="h1", size=1e6, task_cost=1e6)
    >>> s = binomial(p, c)
    >>> s.root, dict(s.children)
    ('h3', {'h3': ('h1', 'h4', 'h2'), 'h4': ('h0',)})
    >>> cs.validate(p, c, s)
    """
    order, largest_first = tree_order(collective)
    kids = binomial_children(len(order), largest_first=largest_first)
    children = {order[r]: tuple(order[c] for c in cs) for r, cs in kids.items()}
    return TreeSchedule(root=order[0], children=children, algorithm="binomial")
