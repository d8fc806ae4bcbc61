"""The test patterns of seed 002: random d-regular COM matrices and a CFD-like matrix.

Examples
--------
>>> import numpy as np
>>> com = random_com(8, 3, seed=1)
>>> (com > 0).sum(axis=0).tolist() == (com > 0).sum(axis=1).tolist() == [3] * 8
True
>>> int(np.trace(com))
0
"""

from __future__ import annotations

import numpy as np

from ...collectives import AllToMany

__all__ = ["random_com", "cfd_like_com", "to_alltomany", "com_stats"]


def random_com(n: int, d: int, *, seed: int = 0, max_size: int | None = None) -> np.ndarray:
    """A random ``d``-regular COM matrix: every host sends ``d`` messages and receives ``d``.

    The union of ``d`` random fixed-point-free permutations that share no
    pair (each a random perfect matching of the pairs still free), as in seed
    002's test sets.

    Parameters
    ----------
    n, d : int
        Hosts and density, ``0 <= d < n``.
    seed : int
        Seed.
    max_size : int, optional
        Sizes uniform in ``1 .. max_size`` (seed 002's ``random() mod n``
        non-uniform set, with 0 read as 1); by default every size is 1.

    Returns
    -------
    ndarray of int, n x n
        ``COM[i, j]`` in units (0: no message).

    Raises
    ------
    ValueError
        If ``d`` is not in ``0 .. n - 1``.

    Examples
    --------
    >>> c = random_com(6, 2, seed=0, max_size=6)
    >>> int((c > 0).sum()), int(c.max()) <= 6
    (12, True)
    """
    if not 0 <= d < n:
        raise ValueError(f"option d must be in 0 .. {n - 1}, got {d}")
    from scipy.optimize import linear_sum_assignment  # scipy.optimize takes ~1 s to import: only when used

    rng = np.random.default_rng(seed)
    used = np.eye(n, dtype=bool)
    for _ in range(d):
        # a random perfect matching avoiding the used pairs (regular bipartite: one exists)
        cost = np.where(used, 1e9, rng.random((n, n)))
        rows, cols = linear_sum_assignment(cost)
        used[rows, cols] = True
    com = (used & ~np.eye(n, dtype=bool)).astype(np.int64)
    if max_size is not None:
        com *= rng.integers(1, max_size + 1, size=(n, n))
    return com


def cfd_like_com(*, n: int = 32, seed: int = 0) -> np.ndarray:
    """A COM matrix with the statistics of seed 002's Table 3 (53,961-point CFD mesh on 32 nodes).

    A symmetric pattern (halo exchanges of a partitioned mesh): a random graph
    of mean degree 10.81 whose degrees lie in ``6 .. 18``, lengths drawn from
    an exponential of mean ~93 clipped to ``1 .. 276`` (one message of each
    extreme length). The real matrices came from load-balancing runs we do
    not have.

    Parameters
    ----------
    n : int
        Hosts.
    seed : int

    Returns
    -------
    ndarray of int, n x n

    Examples
    --------
    >>> s = com_stats(cfd_like_com(seed=0))
    >>> s["min_d"] >= 6 and s["max_d"] <= 18, s["min_len"], s["max_len"]
    (True, 1, 276)
    """
    rng = np.random.default_rng(seed)
    p = 10.81 / (n - 1)
    while True:
        upper = np.triu(rng.random((n, n)) < p, 1)
        adj = upper | upper.T
        deg = adj.sum(axis=1)
        if deg.min() >= 6 and deg.max() <= 18:
            break
    sizes = np.clip(np.rint(rng.exponential(95.0, size=(n, n))), 1, 276).astype(np.int64)
    com = np.where(adj, sizes, 0)
    i, j = np.nonzero(com)
    com[i[0], j[0]], com[i[1], j[1]] = 1, 276
    return com


def to_alltomany(com: np.ndarray, hosts, unit: float = 1.0) -> AllToMany:
    """The :class:`~collsched.collectives.AllToMany` of a COM matrix, ``unit`` bytes per unit.

    Examples
    --------
    >>> to_alltomany(np.array([[0, 2], [0, 0]]), ["h0", "h1"], unit=1024).sizes[("h0", "h1")]
    2048.0
    """
    i, j = np.nonzero(com)
    return AllToMany({(hosts[a], hosts[b]): float(com[a, b]) * unit for a, b in zip(i.tolist(), j.tolist())})


def com_stats(com: np.ndarray) -> dict:
    """Degrees and lengths of a COM matrix, as Table 3 of seed 002 reports them.

    Examples
    --------
    >>> com_stats(np.array([[0, 2, 4], [1, 0, 0], [0, 0, 0]]))["ave_len"]
    2.3333333333333335
    """
    deg = (com > 0).sum(axis=1)
    lens = com[com > 0]
    return {"max_d": int(deg.max()), "min_d": int(deg.min()), "ave_d": float(deg.mean()),
            "max_len": int(lens.max()), "min_len": int(lens.min()), "ave_len": float(lens.mean())}
