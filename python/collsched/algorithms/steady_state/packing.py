"""Packing arborescences into arc capacities: Edmonds' branching theorem, made constructive (Lovász).

**Theorem** (Edmonds 1973). In a digraph with integer arc capacities ``c``
and a root ``r``, there are ``k`` arborescences rooted at ``r``, each
spanning every node, using each arc ``a`` at most ``c(a)`` times, if and only
if every node ``v`` has ``λ(r, v) >= k`` (the smallest capacity of an ``r-v``
cut).

**Construction** (Lovász 1976; Schrijver, *Combinatorial Optimization*,
Thm 53.1). Grow one arborescence ``A`` from ``{r}``: an arc ``uv`` leaving
``V(A)`` may join if, after taking one unit off every arc of ``A + uv``, the
condition still holds with ``k - 1``. Only the sets ``X`` that ``uv`` enters
(``v ∈ X``; ``r, u ∉ X``) change, so the test is one maximum flow: from
``{r, u}`` to ``v`` with one unit taken off the arcs of ``A``, it must be at
least ``k``. Lovász's lemma says such an arc exists while ``A`` does not span
every node. Once ``A`` spans, its weight is the largest ``w`` (a whole number
of units) keeping ``λ(r, v) >= k - w`` with ``w`` units taken off ``A``'s
arcs, found by Newton's method on the violated cuts: a cut of capacity
``c(C)`` that ``A`` crosses ``j >= 2`` times allows at most
``(c(C) - k) / (j - 1)``.

Everything runs on integers (the capacities and ``k`` over a common
denominator), so the packing's total weight is exactly ``k`` and each arc is
used within its capacity: :func:`pack_arborescences` checks both.

Examples
--------
Two arc-disjoint arborescences of a directed triangle with both directions:

>>> cap = {("r", "a"): 1, ("r", "b"): 1, ("a", "b"): 1, ("b", "a"): 1}
>>> [(w, sorted(t.items())) for w, t in pack_arborescences(cap, "r", 2)]
[(1, [('a', 'r'), ('b', 'a')]), (1, [('a', 'b'), ('b', 'r')])]
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

from ...errors import CollschedError

__all__ = ["max_flow", "pack_arborescences"]


def max_flow(cap: dict, sources, sink) -> tuple[int, set]:
    """Maximum flow (Edmonds-Karp) from a set of sources to ``sink``, and the residual reach of the sources.

    Parameters
    ----------
    cap : dict
        ``(a, b) -> capacity`` (integers or Fractions, >= 0).
    sources : iterable
        Nodes with unlimited supply.
    sink
        The node the flow goes to (not a source).

    Returns
    -------
    (number, set)
        The flow value and the nodes reachable from the sources in the final
        residual graph: the source side of the minimum cut closest to the
        sources (its complement is the largest sink side of a minimum cut).

    Examples
    --------
    >>> value, side = max_flow({("s", "a"): 2, ("a", "t"): 1, ("s", "t"): 1}, ["s"], "t")
    >>> value, sorted(side)
    (2, ['a', 's'])
    """
    res: dict = {}
    adj: dict = {}
    for (a, b), x in cap.items():
        if x > 0:
            res[(a, b)] = res.get((a, b), 0) + x
            res.setdefault((b, a), 0)
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
    srcs = set(sources)
    value = 0
    while True:
        parent = {s: None for s in srcs}
        queue = deque(srcs)
        while queue and sink not in parent:
            a = queue.popleft()
            for b in adj.get(a, ()):
                if b not in parent and res[(a, b)] > 0:
                    parent[b] = a
                    queue.append(b)
        if sink not in parent:
            return value, set(parent)
        path = []
        b = sink
        while parent[b] is not None:
            path.append((parent[b], b))
            b = parent[b]
        push = min(res[e] for e in path)
        for a, b in path:
            res[(a, b)] -= push
            res[(b, a)] += push
        value += push


def _cut(cap: dict, side: set) -> list:
    return [e for e, x in cap.items() if x > 0 and e[0] in side and e[1] not in side]


def _grow(c: dict, root, nodes: list, k: int) -> dict:
    """One arborescence spanning ``nodes`` whose unit removal keeps ``λ >= k - 1`` (Lovász): ``{node: parent}``."""
    parent: dict = {}
    reached = {root}
    while len(reached) < len(nodes):
        minus = dict(c)
        for v, u in parent.items():
            minus[(u, v)] -= 1
        candidates = sorted((e for e, x in c.items() if x > 0 and e[0] in reached and e[1] not in reached),
                            key=lambda e: (-c[e], str(e)))
        for u, v in candidates:
            if minus[(u, v)] > 0 and max_flow(minus, (root, u), v)[0] >= k:
                parent[v] = u
                reached.add(v)
                break
        else:  # pragma: no cover - Lovász's lemma: cannot happen when λ(r, v) >= k for every v
            raise CollschedError(f"no admissible arc out of {sorted(map(str, reached))} (branching theorem violated)")
    return parent


def _weight(c: dict, root, nodes: list, k: int, arcs: set) -> int:
    """The largest ``w`` with ``λ(r, v) >= k - w`` for every ``v`` once ``w`` is taken off ``arcs`` (Newton)."""
    w = min(k, min(c[a] for a in arcs))
    while True:
        minus = {e: x - (w if e in arcs else 0) for e, x in c.items()}
        for v in nodes:
            if v == root:
                continue
            value, side = max_flow(minus, (root,), v)
            if value < k - w:
                cut = _cut(c, side)
                crossing = sum(1 for e in cut if e in arcs)
                w = (sum(c[e] for e in cut) - k) // (crossing - 1)
                break
        else:
            return w


def pack_arborescences(cap: dict, root, k) -> list[tuple]:
    """Arborescences rooted at ``root``, spanning every node of ``cap``, of total weight ``k`` within ``cap``.

    Parameters
    ----------
    cap : dict
        ``(a, b) -> capacity`` (ints or Fractions); the nodes are the arcs' ends.
    root
        The root.
    k : int or Fraction
        The total weight wanted: every node must have ``λ(root, v) >= k``.

    Returns
    -------
    list of (weight, {node: parent})
        Weights (of the type of the data, exact) summing to ``k``; every arc
        used at most its capacity in total.

    Raises
    ------
    CollschedError
        If some node has ``λ(root, v) < k`` (no such packing exists, by
        Edmonds' theorem), naming it.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> cap = {("s", "a"): F(1, 2), ("s", "b"): F(1, 3), ("a", "b"): F(1, 6), ("b", "a"): F(0)}
    >>> [(w, t) for w, t in pack_arborescences(cap, "s", F(1, 2))]
    [(Fraction(1, 3), {'a': 's', 'b': 's'}), (Fraction(1, 6), {'a': 's', 'b': 'a'})]
    """
    den = math.lcm(*(Fraction(x).denominator for x in list(cap.values()) + [k]))
    c = {e: int(Fraction(x) * den) for e, x in cap.items() if e[0] != e[1]}
    K = int(Fraction(k) * den)
    nodes = sorted({x for e in c for x in e} | {root}, key=str)
    for v in nodes:
        if v != root and max_flow(c, (root,), v)[0] < K:
            raise CollschedError(f"node {v!r} has a cut from {root!r} below {k}: no packing of that weight")
    out = []
    while K > 0:
        parent = _grow(c, root, nodes, K)
        arcs = {(u, v) for v, u in parent.items()}
        w = _weight(c, root, nodes, K, arcs)
        for a in arcs:
            c[a] -= w
        K -= w
        out.append((w, parent))
    scale = (lambda w: Fraction(w, den)) if den != 1 or isinstance(k, Fraction) else (lambda w: w)
    return [(scale(w), parent) for w, parent in out]
