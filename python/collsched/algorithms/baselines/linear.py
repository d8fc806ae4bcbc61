"""Linear (flat-tree) algorithms: the root serves every other host in turn.

The root of a scatter or broadcast sends to the targets in their order; the
target of a gather or reduce receives from the others in their order (a
reduce combines operands as soon as they are adjacent, never commuting).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.Scatter(source="h2", targets=p.hosts, size=1e3)
>>> s = linear(p, c)
>>> s.children["h2"]
('h0', 'h1', 'h3')
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

from ...schedules import TreeSchedule
from ..registry import register
from .common import tree_order

__all__ = ["linear"]


@register("linear", family="baselines", kinds=("scatter", "gather", "broadcast", "reduce"),
          summary="flat tree: the root serves every other host in turn")
def linear(platform, collective, *, seed: int = 0) -> TreeSchedule:
    """A flat tree rooted at the source (scatter, broadcast) or target (gather, reduce).

    Parameters
    ----------
    platform : Platform
        Unused: the tree depends only on the collective.
    collective : Scatter, Broadcast, Gather or Reduce
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    TreeSchedule
        Depth 1: the root's children are the other hosts, in the collective's
        order (operand order for a reduce).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Reduce(participants=["h2", "h0", "h1"], target="h1", size=1e3, task_cost=1e3)
    >>> s = linear(p, c)
    >>> s.root, s.children["h1"]
    ('h1', ('h2', 'h0'))
    >>> cs.validate(p, c, s)
    """
    base = collective.base
    order, _ = tree_order(collective)
    root = base.target if base.kind == "reduce" else order[0]
    others = tuple(h for h in order if h != root)
    return TreeSchedule(root=root, children={root: others}, algorithm="linear")
