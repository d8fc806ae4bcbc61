"""Asynchronous communication (AC): no scheduling at all.

Seed 002, section 3, Figure 1.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3)
>>> s = ac(p, cs.AllToAll(senders=p.hosts, size=1e3))
>>> [[(t.src, t.dst) for t in step] for step in s.steps]
[[('h0', 'h1'), ('h1', 'h0'), ('h2', 'h0')], [('h0', 'h2'), ('h1', 'h2'), ('h2', 'h1')]]
"""

from __future__ import annotations

from ...schedules import StepSchedule, Transfer
from ..registry import register
from .common import check_kind, com_matrix, with_bound

__all__ = ["ac"]


@register("ac", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="asynchronous: post every receive, send everything (seed 002, AC)")
def ac(platform, collective, *, seed: int = 0) -> StepSchedule:
    """AC: every host posts all its receives, then sends all its messages, in destination order.

    The schedule is *not* a sequence of partial permutations: step ``k`` holds
    every host's ``k``-th message (destinations in host order), so a host may
    receive several messages in one step. It means what the paper means only
    lowered with ``sync="post_all"`` (its S2 scheme: no waiting at all), which
    is how the study runs it.

    Parameters
    ----------
    platform : Platform
        Its hosts give the order of destinations.
    collective : AllToMany or AllToAll
    seed : int
        Unused.

    Returns
    -------
    StepSchedule
        As many steps as the largest out-degree.

    Raises
    ------
    CollectiveError
        If the collective is not an all-to-many or all-to-all.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToMany({("h0", "h1"): 1e3, ("h2", "h1"): 1e3})
    >>> s = ac(p, c)
    >>> len(s), s.n_transfers
    (1, 2)
    >>> cs.validate(p, c, s.lower(p, c, sync="post_all"))

    References
    ----------
    S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", Syracuse University, 1993 (seed 002).
    """
    com = com_matrix(platform, check_kind(collective, "ac"))
    h = com.hosts
    depth = int((com.row_ptr[1:] - com.row_ptr[:-1]).max()) if com.n else 0
    steps = [[Transfer(h[i], h[com.dst[m]]) for i in range(com.n)
              for m in [com.row_ptr[i] + k] if m < com.row_ptr[i + 1]] for k in range(depth)]
    return with_bound(StepSchedule(steps=steps, algorithm="ac", params={"phases": depth, "max_degree": com.max_degree}),
                      platform, collective)
