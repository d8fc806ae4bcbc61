"""Inter-cluster broadcast heuristics of seed 003, section 5.2, vectorised over many grids at once.

A grid of ``n`` clusters is given by the pLogP latency ``L[i, j]`` and gap
``g[i, j] = g_ij(m)`` between the clusters' coordinators and each cluster's
intra-cluster broadcast time ``T[k]``; cluster 0 holds the message. Set A
holds the clusters whose coordinator has the message, set B the others. At
each round one pair (sender ``i`` in A, receiver ``j`` in B) is chosen; the
send starts when ``i`` is free (its *ready time* ``RT_i``), keeps ``i`` busy
``g_ij`` and reaches ``j`` at ``RT_i + g_ij + L_ij``, which is ``RT_j``; ``j``
moves to A. When a coordinator takes part in no more inter-cluster
communication, it broadcasts inside its cluster: cluster ``k`` completes at
``RT_k + T_k`` (``RT_k`` after its last send), the broadcast at the largest.

The pair chosen (ties: lowest sender, then lowest receiver):

* ``flat_tree``: cluster 0 sends to every other, in index order;
* ``fef`` (Fastest Edge First, Bhat et al.): the smallest edge weight
  ``g_ij + L_ij``, as if senders were always free;
* ``ecef`` (Early Completion Edge First): the smallest ``RT_i + g_ij + L_ij``
  (equation 4);
* ``ecef_la`` (look-ahead): the smallest ``RT_i + g_ij + L_ij + F_j`` with
  ``F_j = min over k in B, k != j of (g_jk + L_jk)`` (equation 5);
* ``ecef_lat`` (ECEF-LAt): the same with ``F_j = min_k (g_jk + L_jk + T_k)``
  (equation 6);
* ``ecef_lat_max`` (ECEF-LAT): the same with ``F_j = max_k (g_jk + L_jk +
  T_k)`` (equation 7): a receiver that leads to a slow cluster costs more.
  The paper says this heuristic "tries to maximize the sum"; read as the
  max-min rule of list scheduling (each receiver gets its earliest sender,
  the receiver with the *largest* sum goes first; ``ecef_lat_maxmin``, kept
  as a variant), it lands 3-7 % above the optimum on 4-8 clusters where the
  other ECEF heuristics are within 1-1.5 %, against the paper's finding
  that the ECEF family performs alike; so the registered ``ecef_lat_max``
  minimises the sum, like ECEF-LA and ECEF-LAt.

``F_j`` is 0 when ``j`` is the last cluster of B.

``fef_latency`` (a variant) is FEF with the edge weight the paper says is
"usually" used, the latency ``L_ij`` alone: it ignores the gap, so on seed
003's random grids (latencies 1-15 ms, gaps 10 ms-1 s) it picks edges
almost at random with respect to their transfer time. Under this reading
FEF is clearly worse than ECEF, as the paper's Figure 4 shows; with the
weight ``g_ij + L_ij`` it is within a few percent of ECEF (see
``docs/hierarchical.md``).

Every function takes arrays with a leading batch axis (``L``, ``g``: shape
``(B, n, n)``; ``T``: ``(B, n)``) and runs the rounds for all grids at once.

References
----------
Seed 003, section 5.2, equations (4)-(7). P. B. Bhat, C. S. Raghavendra,
V. K. Prasanna, "Efficient collective communication in distributed
heterogeneous systems", JPDC 63(3), 2003.

Examples
--------
>>> import numpy as np
>>> L = np.full((1, 3, 3), 1.0); g = np.array([[[0, 1, 8], [1, 0, 1], [8, 1, 0]]], dtype=float)
>>> T = np.zeros((1, 3))
>>> senders, receivers = schedule("ecef", L, g, T)
>>> senders.tolist(), receivers.tolist(), completion(L, g, T, senders, receivers).tolist()
([[0, 1]], [[1, 2]], [4.0])
>>> completion(L, g, T, *schedule("flat_tree", L, g, T)).tolist()
[10.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["HEURISTICS", "VARIANTS", "schedule", "completion", "optimum", "arrival_bound"]

#: The heuristics, by registered name.
HEURISTICS = ("flat_tree", "fef", "ecef", "ecef_la", "ecef_lat", "ecef_lat_max")
#: Other readings: ECEF-LAT as max-min (kept to show why we do not use it), FEF weighted by latency alone.
VARIANTS = ("ecef_lat_maxmin", "fef_latency")


def _check(L, g, T) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    L, g, T = (np.asarray(a, dtype=np.float64) for a in (L, g, T))
    if L.ndim != 3 or L.shape[1] != L.shape[2] or g.shape != L.shape or T.shape != L.shape[:2]:
        raise ValueError(f"inter-cluster arrays have shapes L{L.shape}, g{g.shape}, T{T.shape}; "
                         "expected (B, n, n), (B, n, n), (B, n)")
    return L, g, T


def schedule(name: str, L, g, T, *, chunk: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The inter-cluster schedule of heuristic ``name`` for each grid of the batch.

    Parameters
    ----------
    name : str
        One of :data:`HEURISTICS`.
    L, g : array_like, shape (B, n, n)
        Latency and gap (for the message size) from cluster ``i`` to ``j``.
    T : array_like, shape (B, n)
        Intra-cluster broadcast times.
    chunk : int
        Grids processed together (memory: ``chunk * n * n`` floats a few times).

    Returns
    -------
    senders, receivers : ndarray of int, shape (B, n - 1)
        Round ``r`` sends from ``senders[:, r]`` to ``receivers[:, r]``;
        cluster 0 is the root.

    Raises
    ------
    ValueError
        If ``name`` is unknown or the shapes disagree.

    Notes
    -----
    ``O(n^3)`` per grid (``n`` rounds over the ``n x n`` pairs and look-ahead).

    Examples
    --------
    >>> L = np.ones((1, 3, 3)); g = np.array([[[0, 1, 8], [1, 0, 1], [8, 1, 0]]], dtype=float)
    >>> [schedule(h, L, g, np.zeros((1, 3)))[0].tolist() for h in ("flat_tree", "fef", "fef_latency")]
    [[[0, 0]], [[0, 1]], [[0, 0]]]
    """
    if name not in HEURISTICS + VARIANTS:
        raise ValueError(f"inter-cluster heuristic {name!r} is not one of {HEURISTICS}")
    L, g, T = _check(L, g, T)
    parts = [_schedule(name, L[a:a + chunk], g[a:a + chunk], T[a:a + chunk]) for a in range(0, len(L), chunk)]
    if not parts:
        return np.zeros((0, L.shape[1] - 1), dtype=np.int64), np.zeros((0, L.shape[1] - 1), dtype=np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _schedule(name: str, L: np.ndarray, g: np.ndarray, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    B, n = T.shape
    rows, diag = np.arange(B), np.arange(n)
    C = g + L                                      # time of a transfer alone, g_ij(m) + L_ij
    # P[b, i, j] = C[b, i, j] for i in A and j in B, else inf (kept up to date round by round)
    W_edge = L if name == "fef_latency" else C      # the weight that chooses a pair (fef_latency: L_ij alone)
    P = np.full((B, n, n), np.inf)
    P[:, 0, 1:] = W_edge[:, 0, 1:]
    look = name in ("ecef_la", "ecef_lat", "ecef_lat_max", "ecef_lat_maxmin")
    if look:
        # W[b, j, k]: the look-ahead term of k for j, masked (+-inf) unless k in B and k != j
        most = name in ("ecef_lat_max", "ecef_lat_maxmin")
        fill = -np.inf if most else np.inf
        W = C + T[:, None, :] if name != "ecef_la" else C.copy()
        W[:, diag, diag] = fill
        W[:, :, 0] = fill
    inB = np.ones((B, n), dtype=bool)
    inB[:, 0] = False
    RT = np.zeros((B, n))
    senders = np.zeros((B, n - 1), dtype=np.int64)
    receivers = np.zeros((B, n - 1), dtype=np.int64)
    for r in range(n - 1):
        if name == "flat_tree":                    # the root serves B in index order
            i, j = np.zeros(B, dtype=np.int64), np.argmax(inB, axis=1)
        else:
            # fef: the smallest edge, senders taken as free; else earliest completion RT_i + g_ij + L_ij (eq. 4)
            score = P if name in ("fef", "fef_latency") else P + RT[:, :, None]
            if look:                               # + look-ahead F_j (eqs. 5, 6, 7); 0 for the last of B
                F = W.max(axis=2) if most else W.min(axis=2)
                F[~np.isfinite(F)] = 0.0
            if name == "ecef_lat_maxmin":          # max-min: best sender per receiver, then the largest
                best_i = score.argmin(axis=1)
                best = np.take_along_axis(score, best_i[:, None, :], axis=1)[:, 0, :]
                j = np.where(inB, best + F, -np.inf).argmax(axis=1)
                i = best_i[rows, j]
            else:
                if look:
                    score = score + F[:, None, :]
                flat = score.reshape(B, n * n).argmin(axis=1)
                i, j = flat // n, flat % n
        arrival = RT[rows, i] + C[rows, i, j]
        RT[rows, i] += g[rows, i, j]
        RT[rows, j] = arrival
        inB[rows, j] = False
        P[rows, :, j] = np.inf                     # j leaves B ...
        P[rows, j, :] = np.where(inB, W_edge[rows, j, :], np.inf)   # ... and sends from A
        if look:
            W[rows, :, j] = fill
        senders[:, r], receivers[:, r] = i, j
    return senders, receivers


def completion(L, g, T, senders, receivers) -> np.ndarray:
    """The broadcast's completion time of each grid under the given schedule.

    Parameters
    ----------
    L, g, T : array_like
        As for :func:`schedule`.
    senders, receivers : array_like of int, shape (B, n - 1)
        The rounds, in order (each sender already in A).

    Returns
    -------
    ndarray, shape (B,)
        ``max_k (RT_k + T_k)``, ``RT_k`` the time coordinator ``k`` is done
        with its inter-cluster sends (or received the message).

    Raises
    ------
    ValueError
        If a round's sender does not have the message yet.

    Examples
    --------
    >>> L = np.ones((1, 2, 2)); g = np.ones((1, 2, 2)); T = np.array([[5.0, 1.0]])
    >>> completion(L, g, T, [[0]], [[1]]).tolist()
    [6.0]
    """
    L, g, T = _check(L, g, T)
    senders, receivers = np.asarray(senders), np.asarray(receivers)
    B, n = T.shape
    rows = np.arange(B)
    RT = np.zeros((B, n))
    has = np.zeros((B, n), dtype=bool)
    has[:, 0] = True
    for r in range(senders.shape[1]):
        i, j = senders[:, r], receivers[:, r]
        if not has[rows, i].all():
            raise ValueError(f"round {r}: a sender does not have the message yet")
        arrival = RT[rows, i] + g[rows, i, j] + L[rows, i, j]
        RT[rows, i] += g[rows, i, j]
        RT[rows, j] = arrival
        has[rows, j] = True
    return (RT + T).max(axis=1)


def arrival_bound(L, g, T) -> np.ndarray:
    """A lower bound on the completion time of any schedule: ``max_k (d_k + T_k)``.

    ``d_k`` is the shortest-path time from cluster 0 to ``k`` with edge
    weights ``g_ij + L_ij`` (no port is ever busy).

    Parameters
    ----------
    L, g, T : array_like
        As for :func:`schedule`.

    Returns
    -------
    ndarray, shape (B,)

    Examples
    --------
    >>> L = np.ones((1, 3, 3)); g = np.array([[[0, 1, 8], [1, 0, 1], [8, 1, 0]]], dtype=float)
    >>> arrival_bound(L, g, np.zeros((1, 3))).tolist()
    [4.0]
    """
    L, g, T = _check(L, g, T)
    C = g + L
    d = C[:, 0, :].copy()
    d[:, 0] = 0.0
    for _ in range(C.shape[1]):                    # Bellman-Ford, vectorised
        d = np.minimum(d, (d[:, :, None] + C).min(axis=1))
    return (d + T).max(axis=1)


def optimum(L, g, T, *, incumbent: float = np.inf) -> tuple[float, list[tuple[int, int]]]:
    """The optimal inter-cluster schedule of one grid, by branch and bound over all ordered trees.

    Parameters
    ----------
    L, g : array_like, shape (n, n)
    T : array_like, shape (n,)
    incumbent : float
        A known completion time (e.g. the best heuristic's) to prune with.

    Returns
    -------
    value : float
        The least completion time (``incumbent`` if nothing beats it).
    rounds : list of (int, int)
        The optimal schedule's (sender, receiver) rounds (empty if the
        incumbent was not beaten).

    Notes
    -----
    Rounds are enumerated in canonical order (non-decreasing start time,
    then receiver), each send as early as its sender is free, so each
    schedule is met once; a branch is cut when ``max(RT_k + T_k over A,
    min_i (RT_i + D_ij) + T_j over B)`` reaches the incumbent, ``D`` the
    shortest-path times over edges ``g_ij + L_ij`` (a relay may beat a
    direct edge: random gaps need not obey the triangle inequality).
    Practical up to 8 clusters.

    Examples
    --------
    >>> L = np.ones((3, 3)); g = np.array([[0, 1, 8], [1, 0, 1], [8, 1, 0]], dtype=float)
    >>> optimum(L, g, [0.0, 0.0, 9.0])
    (13.0, [(0, 1), (1, 2)])
    """
    L, g, T = np.asarray(L, float).tolist(), np.asarray(g, float).tolist(), [float(t) for t in T]
    n = len(T)
    C = [[g[i][j] + L[i][j] for j in range(n)] for i in range(n)]
    D = [row[:] for row in C]                       # shortest paths: relaying may beat a direct edge
    for k in range(n):
        for i in range(n):
            for j in range(n):
                D[i][j] = min(D[i][j], D[i][k] + D[k][j])
    best = [float(incumbent), []]
    RT = [0.0] * n
    inA = [False] * n
    inA[0] = True
    rounds: list[tuple[int, int]] = []

    def lower() -> float:
        lb = max(RT[k] + T[k] for k in range(n) if inA[k])
        for j in range(n):
            if not inA[j]:
                lb = max(lb, min(RT[i] + D[i][j] for i in range(n) if inA[i]) + T[j])
        return lb

    def search(last_start: float, last_j: int, left: int) -> None:
        if left == 0:
            value = max(RT[k] + T[k] for k in range(n))
            if value < best[0]:
                best[0], best[1] = value, list(rounds)
            return
        if lower() >= best[0]:
            return
        options = sorted((RT[i] + C[i][j], i, j) for i in range(n) if inA[i] for j in range(n) if not inA[j]
                         if (RT[i], j) > (last_start, last_j))
        for _, i, j in options:
            start = RT[i]
            RT[i], RT[j], inA[j] = start + g[i][j], start + C[i][j], True
            rounds.append((i, j))
            search(start, j, left - 1)
            rounds.pop()
            RT[i], RT[j], inA[j] = start, 0.0, False

    search(-1.0, -1, n - 1)
    return best[0], best[1]
