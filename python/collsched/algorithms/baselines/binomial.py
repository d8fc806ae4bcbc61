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

    Parameters
    ----------
    n : int
        Number of nodes, relative ranks ``0 .. n-1``.
    largest_first : bool
        List each node's children largest subtree first (the send order of a
        broadcast or scatter) rather than smallest first (the receive order
        of a reduce or gather).

    Returns
    -------
    dict of int to list of int
        ``rank -> children`` for every rank that has children; leaves are absent.

    Notes
    -----
    Rank ``r > 0`` has parent ``r - lowbit(r)`` and children ``r + 2^j`` for
    ``2^j < lowbit(r)``; the subtree of ``r`` is ``r .. r + lowbit(r) - 1``.
    The tree has depth ``ceil(log2 n)``. O(n log n).

    Examples
    --------
    >>> binomial_children(8, largest_first=True)
    {0: [4, 2, 1], 2: [3], 4: [6, 5], 6: [7]}
    >>> binomial_children(8, largest_first=False)[4]
    [5, 6]
    >>> binomial_children(1, largest_first=True)
    {}
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

    Parameters
    ----------
    platform : Platform
        Unused: the tree depends only on the collective's rank order.
    collective : Reduce, Broadcast, Scatter or Gather
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    TreeSchedule
        Rooted at the source (broadcast, scatter), the target (gather) or the
        first participant ``P_0`` (reduce: the root sends the result on to the
        target if it is another host).

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
