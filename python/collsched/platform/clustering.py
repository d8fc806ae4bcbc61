"""Logical clusters: groups of hosts whose pairwise latencies are alike (seed 003, section 4.1).

Both rules walk the edges of the latency matrix in increasing order of
weight, as seed 003's algorithm text says: "By proceeding from the smallest
weighted edge w(x, y), we define an initial group {x, y}. At each step we
select a candidate node a and compare its distance to any node within a
group S. If distance does not vary more than rho, node a can be included in
group S. Otherwise, if node a does not fit into any existent group, it
becomes the first node of a new group S'. The algorithm terminates after all
outgoing edges have been evaluated." Literally:

* step 1: the smallest edge ``w(x, y)`` makes the group ``{x, y}``;
* step 2: each next edge brings its endpoints that are in no group, one
  after the other, as candidates ``a``; ``a`` is compared with every
  existing group (the group of the edge's other endpoint first, then the
  others in the order they were made) and joins the first it fits;
* step 3: if ``a`` fits none, it becomes the first node of a new group.
  A group of one host has no inner distance to compare with (equations (2)
  and (3) are empty for it): it takes a second host only through an edge
  from it, as the initial group did, and no candidate joins it from
  elsewhere.

The walk ends when every edge has been seen. The tolerance ``rho`` is a
*rate* (seed 003 uses ``rho = 30%``): a distance fits when it differs from
the reference by at most ``rho`` times the reference.

* :func:`pairwise`, equation (2), ``O(|S|^2)`` per group tried: ``a`` fits
  ``S`` if ``|w(a, x) - w(x, y)| <= rho * w(x, y)`` for all ``x != y`` in ``S``;
* :func:`lowekamp`, equation (3), Lowekamp's greedy rule (the ECO library):
  ``a`` fits ``S`` if ``|w(a, x) - wmin(S)| <= rho * wmin(S)`` for every ``x``
  in ``S``, ``wmin(S)`` being the smallest edge inside ``S``.

Comparing a candidate with every group matters when latencies are measured:
with per-pair noise on Table 3's matrix, a host that first meets a group it
does not fit, or another ungrouped host, still joins its own cluster (see
``docs/hierarchical.md`` for the noisy Table-3 study).

References
----------
L. A. Steffenel, G. Mounié, "A framework for adaptive collective
communications for heterogeneous hierarchical computing systems", preprint,
2007 (seed 003), section 4.1, equations (2) and (3).
B. Lowekamp, A. Beguelin, "ECO: efficient collective operations for
communication on heterogeneous networks", IPPS 1996.

Examples
--------
Two pairs of close hosts, far from each other:

>>> import numpy as np
>>> w = np.array([[0, 1, 9, 9], [1, 0, 9, 9], [9, 9, 0, 1.2], [9, 9, 1.2, 0]])
>>> lowekamp(w)
[[0, 1], [2, 3]]
>>> pairwise(w, rho=0.1)
[[0, 1], [2, 3]]
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..errors import PlatformError

__all__ = ["lowekamp", "pairwise", "logical_clusters", "with_clusters"]

RULES = ("lowekamp", "pairwise")


def _check(latency, rho: float) -> np.ndarray:
    w = np.asarray(latency, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"latency matrix has shape {w.shape}, not (N, N)")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("latency matrix has a negative, NaN or infinite entry")
    if isinstance(rho, bool) or not isinstance(rho, (int, float)) or not np.isfinite(rho) or rho < 0:
        raise ValueError(f"clustering option rho={rho!r} is not a finite number >= 0")
    return w


def _walk(w: np.ndarray, fits: Callable[[np.ndarray, int, list[int], float], bool]) -> list[list[int]]:
    """The edge walk both rules share; ``fits(S, a, group, wmin)`` is the rule (``S``: symmetric distances)."""
    n = len(w)
    S = np.maximum(w, w.T)                          # a pair's distance: the larger of its two directions
    group_of = [-1] * n
    groups: list[list[int]] = []
    wmin: list[float] = []                          # smallest edge inside each group (inf for one host)
    free = n

    def join(a: int, g: int) -> None:
        wmin[g] = min(wmin[g], float(S[a, groups[g]].min()))
        groups[g].append(a)
        group_of[a] = g

    iu, ju = np.triu_indices(n, k=1)
    for e in np.lexsort((ju, iu, S[iu, ju])):
        if free == 0:                               # every host is in a group: no edge can change that
            break
        x, y = int(iu[e]), int(ju[e])
        if group_of[x] >= 0 and group_of[y] >= 0:
            continue
        if not groups:                              # step 1: the smallest edge makes the initial group {x, y}
            groups.append([x, y])
            wmin.append(float(S[x, y]))
            group_of[x] = group_of[y] = 0
            free -= 2
            continue
        for a, other in ((x, y), (y, x)):           # step 2: each endpoint in no group is a candidate
            if group_of[a] >= 0:
                continue
            free -= 1
            g = group_of[other]
            if g >= 0 and len(groups[g]) == 1:      # the edge from a one-host group gives it its second host
                join(a, g)
                continue
            order = ([g] if g >= 0 else []) + [h for h in range(len(groups)) if h != g]
            fit = next((h for h in order if len(groups[h]) > 1 and fits(S, a, groups[h], wmin[h])), None)
            if fit is not None:                     # a fits an existing group: it joins the first it fits
                join(a, fit)
            else:                                   # step 3: a fits none: the first node of a new group
                group_of[a] = len(groups)
                groups.append([a])
                wmin.append(np.inf)
    for v in range(n):                              # a platform of one host
        if group_of[v] < 0:
            groups.append([v])
    return sorted(sorted(g) for g in groups)


def lowekamp(latency, rho: float = 0.3) -> list[list[int]]:
    """Lowekamp's greedy clustering (seed 003, equation (3)).

    Parameters
    ----------
    latency : array_like, shape (N, N)
        Pairwise distances (latencies); the diagonal is ignored, a pair's
        distance is the larger of its two directions.
    rho : float
        Tolerance rate: a host joins a group if its distance to every member
        is within ``rho * wmin(S)`` of the group's smallest edge ``wmin(S)``.

    Returns
    -------
    list of list of int
        Groups of host indices, each sorted, sorted by first index.

    Raises
    ------
    ValueError
        If the matrix is not square, has a negative or non-finite entry, or
        ``rho`` is not a number >= 0.

    Notes
    -----
    ``O(N^2 log N)`` for the sort of the edges; each candidate is compared
    with the members of each group until one fits (``O(N)`` per candidate,
    vectorised); the walk stops once every host is in a group.

    References
    ----------
    B. Lowekamp, A. Beguelin, ECO, IPPS 1996; seed 003, section 4.1.

    Examples
    --------
    >>> lowekamp([[0, 10, 10, 50], [10, 0, 12, 50], [10, 12, 0, 50], [50, 50, 50, 0]])
    [[0, 1, 2], [3]]
    >>> lowekamp([[0, 10, 10], [10, 0, 14], [10, 14, 0]], rho=0.3)
    [[0, 1], [2]]
    """
    w = _check(latency, rho)

    def fits(S, a, group, wmin):
        return bool(np.all(np.abs(S[a, group] - wmin) <= rho * wmin))

    return _walk(w, fits)


def pairwise(latency, rho: float = 0.3) -> list[list[int]]:
    """The ``O(N^2)`` clustering rule of seed 003's equation (2).

    Parameters
    ----------
    latency : array_like, shape (N, N)
        Pairwise distances, as for :func:`lowekamp`.
    rho : float
        Tolerance rate: a host joins a group if each of its distances
        ``w(a, x)`` is within ``rho * w(x, y)`` of every edge ``w(x, y)`` of the group.

    Returns
    -------
    list of list of int
        Groups of host indices, as :func:`lowekamp` returns them.

    Raises
    ------
    ValueError
        As :func:`lowekamp`.

    Notes
    -----
    Each candidate is compared with every edge of each group tried, ``O(|S|^2)`` per group.

    Examples
    --------
    >>> pairwise([[0, 10, 10, 50], [10, 0, 12, 50], [10, 12, 0, 50], [50, 50, 50, 0]])
    [[0, 1, 2], [3]]
    """
    w = _check(latency, rho)

    def fits(S, a, group, wmin):
        inner = S[np.ix_(group, group)]             # w(x, y) for x != y in S, against w(a, x)
        ok = np.abs(S[a, group][:, None] - inner) <= rho * inner
        np.fill_diagonal(ok, True)
        return bool(ok.all())

    return _walk(w, fits)


def logical_clusters(platform, *, rho: float = 0.3, rule: str = "lowekamp") -> tuple[tuple[str, ...], ...]:
    """The logical clusters of a platform's hosts, from its latency matrix.

    Parameters
    ----------
    platform : Platform
    rho : float
        Tolerance rate (seed 003 uses 0.3).
    rule : {"lowekamp", "pairwise"}
        Equation (3) or equation (2).

    Returns
    -------
    tuple of tuple of str
        Host ids, each group in platform order.

    Raises
    ------
    ValueError
        If ``rule`` is unknown or ``rho`` is bad.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.grid_of_clusters([3, 2], seed=1)
    >>> logical_clusters(p)
    (('h0', 'h1', 'h2'), ('h3', 'h4'))
    """
    if rule not in RULES:
        raise ValueError(f"clustering option rule={rule!r} is not one of {RULES}")
    groups = (lowekamp if rule == "lowekamp" else pairwise)(platform.latency_matrix(), rho)
    hosts = platform.hosts
    return tuple(tuple(hosts[i] for i in g) for g in groups)


def with_clusters(platform, clusters: Sequence[Sequence[str]]):
    """The same platform, with ``clusters`` as its partition of hosts.

    Parameters
    ----------
    platform : Platform
    clusters : sequence of sequences of str
        A partition of its hosts.

    Returns
    -------
    Platform

    Raises
    ------
    PlatformError
        If ``clusters`` is not a partition of the hosts.

    Examples
    --------
    >>> import collsched as cs
    >>> with_clusters(cs.topologies.star(3), [["h0", "h1"], ["h2"]]).clusters
    (('h0', 'h1'), ('h2',))
    """
    from .model import Platform

    if not isinstance(clusters, (list, tuple)):
        raise PlatformError(f"clusters {clusters!r} is not a list of lists of hosts")
    return Platform(platform.nodes.values(), platform.links.values(), platform.routing, name=platform.name,
                    clusters=clusters)
