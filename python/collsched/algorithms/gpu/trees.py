"""Spanning out-trees for every root, of total weight ``x`` each, within arc capacities (Edmonds, made constructive).

On a graph of participants where every ``v`` has ``λ(s, v) >= N x`` (``s``
a super source with an arc of capacity ``x`` to every participant),
Edmonds' branching theorem packs arborescences rooted at ``s`` of total
weight ``N x``, each using one arc ``s → r``: a spanning tree rooted at
``r``, ``x`` in all per root. This module builds them one at a time by
growing *partial* trees (ForestColl's generator, after Lovász's proof):

* the state is a set of partial trees ``T`` (a root, a node set, a weight
  ``C_T``) and the remaining capacities ``c``; it can be completed if and
  only if every node set ``X`` has ``c(δ⁻(X)) >= Σ_{T: T ∩ X = ∅} C_T``
  (Edmonds' condition with root sets);
* adding an arc ``a → b`` (``a ∈ T``, ``b ∉ T``) to ``δ`` of ``T``'s weight
  (the rest of ``T`` stays a partial tree of weight ``C_T - δ``) tightens
  exactly the sets ``X ∋ b``, ``X ∌ a`` that meet ``T``; the largest
  admissible ``δ`` is ``min(C_T, c(ab), f - Σ_{T' ≠ T} C_T')`` where ``f``
  is one maximum flow from ``a`` to ``b`` in ``c`` plus, from ``a``, an arc
  of capacity ``C_T'`` to a hub feeding every node of each other partial
  tree ``T'``;
* an admissible arc with ``δ > 0`` exists while ``T`` does not span
  (Lovász), so every tree completes; ``T``'s remainder, if any, is grown
  next.

All numbers are integers (capacity units); the weights per root sum to
``x`` exactly and every arc is used within its capacity (both checked).

Why not :func:`collsched.algorithms.steady_state.packing.pack_arborescences`:
it grows one arborescence at a time by unit admissibility tests, then finds
its weight by Newton's method over ``N`` flows per step, each on a copy of
the capacity dict in pure Python. Here one flow gives both admissibility and
the largest weight of each arc, which the ``N``-root AllGather needs at
32-256 GPUs.

The whole construction runs in the Rust core
(``crates/core/src/arborescence.rs``). It tries the same arcs in the same
order as the pure-Python construction it replaced (:func:`_reference`, kept
for ``tests/gpu/test_trees.py``, which checks that both return the same
trees, weights and order, and for ``benchmarks/bench_forest_trees.py``) and
gets the same answer for each, but asks its flows of a network of the live
partial trees only (the reference keeps every finished tree's node), and
rules an arc out without a flow when a minimum cut left by an earlier failed
try, re-valued exactly in the current capacities, already separates it.

References
----------
J. Edmonds. Edge-disjoint branchings. Combinatorial Algorithms, 1973.
L. Lovász. On two minimax theorems in graph. J. Combin. Theory B 21, 1976.
https://doi.org/10.1016/0095-8956(76)90049-6
L. Zhao et al. ForestColl, arXiv:2402.06787, 2024 (tree construction).

Examples
--------
>>> trees = pack_spanning_trees(3, {(0, 1): 1, (1, 2): 1, (2, 0): 1, (1, 0): 1, (2, 1): 1, (0, 2): 1}, 1)
>>> [(r, w, arcs) for r, w, arcs in trees]
[(0, 1, [(0, 1), (0, 2)]), (1, 1, [(1, 2), (1, 0)]), (2, 1, [(2, 0), (2, 1)])]
"""

from __future__ import annotations

from ... import _core
from ..._core import FlowNetwork
from ...errors import CollschedError

__all__ = ["pack_spanning_trees"]


def pack_spanning_trees(n: int, capacity: dict, rate: int) -> list[tuple[int, int, list]]:
    """Spanning out-trees on nodes ``0 .. n-1``, of total weight ``rate`` for every root, within ``capacity``.

    Parameters
    ----------
    n : int
        Number of nodes (all are roots and all must be spanned).
    capacity : dict
        ``(u, t) -> int`` arc capacities (arcs of capacity ``<= 0`` and loops are ignored).
    rate : int
        Weight per root; every ``v`` must have ``λ(s, v) >= n·rate`` with a
        super source ``s`` sending ``rate`` to each node.

    Returns
    -------
    list of (root, weight, arcs)
        Integer weights ``> 0`` summing to ``rate`` per root; ``arcs`` are
        ``(parent, child)`` in breadth-first order from the root.

    Raises
    ------
    CollschedError
        If the cut condition fails (no tree can be grown; Edmonds' theorem
        says no packing exists), or if the result does not check.
    IndexError
        A node ``>= n``.
    ValueError
        A negative ``rate``, or a capacity or ``n·rate`` above the core's
        integers (``FlowNetwork.INFINITE``).

    Notes
    -----
    One maximum flow per arc tried, unless a minimum cut of an earlier
    failed try rules the arc out; a tree of ``n`` nodes takes ``n - 1``
    successful tries, and each split (``δ < C_T``) adds a tree. Arcs are
    tried from the tree's nodes in the order they joined it (from the first
    node that had an admissible arc last time; from the root again when
    stuck), each node's arcs thinnest first, ties in ``capacity``'s order.

    Examples
    --------
    A one-way ring of capacity 2: each root's one tree is the path around it.

    >>> pack_spanning_trees(3, {(0, 1): 2, (1, 2): 2, (2, 0): 2}, 1)
    [(0, 1, [(0, 1), (1, 2)]), (1, 1, [(1, 2), (2, 0)]), (2, 1, [(2, 0), (0, 1)])]

    A cut below ``n·rate``:

    >>> pack_spanning_trees(2, {(0, 1): 1}, 1)
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: no spanning tree for root 1 can grow past 1 of 2 nodes: some cut is below 2·1 (Edmonds' condition fails)
    """
    try:
        result = _core.pack_spanning_trees(n, list(capacity.items()), rate)
    except RuntimeError as err:
        raise CollschedError(str(err)) from None
    used: dict = {}
    weights = [0] * n
    for r, w, arcs in result:
        weights[r] += w
        for e in arcs:
            used[e] = used.get(e, 0) + w
    if any(used[e] > capacity[e] for e in used) or weights != [rate] * n:  # pragma: no cover - the core's invariant
        raise CollschedError("the tree packing overuses an arc or misses weight")
    return result


class _Partial:
    __slots__ = ("root", "weight", "nodes", "arcs", "hub_arc")

    def __init__(self, root: int, weight: int, nodes: list, arcs: list, hub_arc: int | None):
        self.root, self.weight, self.nodes, self.arcs, self.hub_arc = root, weight, nodes, arcs, hub_arc


def _bfs_order(root: int, arcs: list) -> list:
    children: dict = {}
    for a, b in arcs:
        children.setdefault(a, []).append(b)
    out, frontier = [], [root]
    while frontier:
        nxt = []
        for a in frontier:
            for b in children.get(a, ()):
                out.append((a, b))
                nxt.append(b)
        frontier = nxt
    return out


def _reference(n: int, capacity: dict, rate: int) -> list[tuple[int, int, list]]:
    """:func:`pack_spanning_trees` as it was in pure Python, one flow per arc tried: the reference it is tested against.

    The same parameters, result and errors as :func:`pack_spanning_trees`
    (whose Rust core tries the same arcs in the same order); a tree of
    ``n`` nodes takes ``n - 1`` successful tries, and each split
    (``δ < C_T``) adds a tree.

    Examples
    --------
    A one-way ring of capacity 2: each root's one tree is the path around it.

    >>> _reference(3, {(0, 1): 2, (1, 2): 2, (2, 0): 2}, 1)
    [(0, 1, [(0, 1), (1, 2)]), (1, 1, [(1, 2), (2, 0)]), (2, 1, [(2, 0), (0, 1)])]
    """
    cap = {e: c for e, c in capacity.items() if c > 0 and e[0] != e[1]}
    out_of: dict = {v: [] for v in range(n)}
    net = FlowNetwork(n + 1)
    hub = n  # a second source: feeds every pending partial tree
    arc_id = {}
    for (a, b), c in cap.items():
        arc_id[a, b] = net.add_arc(a, b, c)
        out_of[a].append(b)
    root_arc = [net.add_arc(hub, r, rate) for r in range(n)]
    pending_sum = n * rate  # weights of the trees not finished, the current one included
    result = []
    for r in range(n):
        net.set_capacity(root_arc[r], 0)
        stack = [_Partial(r, rate, [r], [], None)]
        while stack:
            T = stack.pop()
            if T.hub_arc is not None:
                net.set_capacity(T.hub_arc, 0)
            inside = set(T.nodes)
            scan = 0  # nodes before T.nodes[scan] have no admissible arc out (re-checked if stuck)
            while len(T.nodes) < n:
                grown = False
                for rescan in (False, True):
                    order = T.nodes[scan:] if not rescan else T.nodes
                    for a in order:
                        # thin arcs first: thick ones stay whole for later trees (fewer splits, fewer failed tries)
                        for b in sorted(out_of[a], key=lambda b: cap[a, b]):
                            if b in inside or cap[a, b] == 0:
                                continue
                            most = min(T.weight, cap[a, b])
                            others = pending_sum - T.weight
                            d = net.max_flow([a, hub], [b], others + most) - others
                            if d <= 0:
                                continue
                            if d < T.weight:  # the rest of T waits as a partial tree of its own
                                h = net.add_node()
                                rest = _Partial(r, T.weight - d, list(T.nodes), list(T.arcs),
                                                net.add_arc(hub, h, T.weight - d))
                                for z in T.nodes:
                                    net.add_arc(h, z, FlowNetwork.INFINITE)
                                stack.append(rest)
                                T.weight = d
                            cap[a, b] -= d
                            net.set_capacity(arc_id[a, b], cap[a, b])
                            T.nodes.append(b)
                            T.arcs.append((a, b))
                            inside.add(b)
                            grown = True
                            break
                        if grown:
                            break
                        if not rescan:
                            scan += 1
                    if grown:
                        break
                if not grown:
                    raise CollschedError(f"no spanning tree for root {r} can grow past {len(T.nodes)} of {n} nodes: "
                                         f"some cut is below {n}·{rate} (Edmonds' condition fails)")
            pending_sum -= T.weight
            result.append((r, T.weight, _bfs_order(r, T.arcs)))
    used: dict = {}
    for r, w, arcs in result:
        for e in arcs:
            used[e] = used.get(e, 0) + w
    if any(used[e] > capacity[e] for e in used) or pending_sum != 0:  # pragma: no cover - the construction's invariant
        raise CollschedError("the tree packing overuses an arc or misses weight")
    return result
