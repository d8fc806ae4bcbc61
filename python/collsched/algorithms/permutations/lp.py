"""Linear permutation (LP): in phase ``k``, host ``i`` exchanges with host ``i xor k``.

Seed 002, section 4.1, Figure 2.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.hypercube(2)
>>> s = lp(p, cs.AllToAll(senders=p.hosts, size=1e3))
>>> [[(t.src, t.dst) for t in step] for step in s.steps][0]
[('h0', 'h1'), ('h1', 'h0'), ('h2', 'h3'), ('h3', 'h2')]
"""

from __future__ import annotations

from ...schedules import StepSchedule, Transfer
from ..registry import register
from .common import check_kind, com_matrix, with_bound

__all__ = ["lp"]


@register("lp", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="linear permutation: phase k pairs host i with host i xor k (seed 002, LP)")
def lp(platform, collective, *, seed: int = 0) -> StepSchedule:
    """LP: phase ``k = 1 .. n-1`` has every ``P_i`` send to ``P_{i xor k}`` if ``COM(i, i xor k) > 0``.

    Every phase is a set of pairwise exchanges; on a hypercube with e-cube
    routing no two of its routes share a link direction.

    When ``n`` (the platform's host count) is not a power of two, phases run
    over ``k = 1 .. N - 1`` with ``N`` the next power of two and pairs with
    ``i xor k >= n`` are skipped (the phantom hosts ``n .. N-1`` do not exist);
    every pair of real hosts still meets in exactly one phase. Phases without
    a message are dropped from the schedule; ``params["iterations"]`` keeps
    the ``N - 1`` iterations the algorithm goes through (the paper's count).

    Parameters
    ----------
    platform : Platform
        Its hosts, in order, are ``P_0 .. P_{n-1}``.
    collective : AllToMany or AllToAll
    seed : int
        Unused (LP is deterministic).

    Returns
    -------
    StepSchedule
        Partial permutations; ``params["iterations"]`` is ``N - 1``.

    Raises
    ------
    CollectiveError
        If the collective is not an all-to-many or all-to-all.

    Notes
    -----
    ``O(N^2)`` time; ``N - 1`` phases whatever the density (the paper's weakness at small ``d``).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = lp(p, c)
    >>> [[(t.src, t.dst) for t in step] for step in s.steps]
    [[('h0', 'h1'), ('h1', 'h0')], [('h0', 'h2'), ('h2', 'h0')], [('h1', 'h2'), ('h2', 'h1')]]
    >>> s.params["iterations"]
    3
    >>> cs.validate(p, c, s)

    References
    ----------
    S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", Syracuse University, 1993 (seed 002); S. H. Bokhari,
    "Complete exchange on the iPSC/860", ICASE 91-4, 1991.
    """
    com = com_matrix(platform, check_kind(collective, "lp"))
    n, h = com.n, com.hosts
    present = set(zip(com.src.tolist(), com.dst.tolist()))
    big = 1 << max(0, (n - 1).bit_length())
    steps = []
    for k in range(1, big):
        step = [Transfer(h[i], h[i ^ k]) for i in range(n) if (i ^ k) < n and (i, i ^ k) in present]
        if step:
            steps.append(step)
    return with_bound(StepSchedule(steps=steps, algorithm="lp",
                                   params={"iterations": big - 1, "phases": len(steps), "max_degree": com.max_degree}),
                      platform, collective)
