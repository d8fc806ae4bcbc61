"""NCCL's double binary tree all-reduce: two complementary binary trees, each reducing then broadcasting half.

Tree 0 is NCCL's in-order binary tree over positions ``0 .. N-1``
(``ncclGetBtree``): with ``b`` the lowest set bit of ``r > 0``, rank ``r``
has parent ``(r XOR b) | 2b`` (or ``r XOR b`` if that is out of range) and
children ``r - b/2`` and ``r + b/2`` (halving the offset until in range);
rank 0 is the root, with the single child ``2^⌊log2(N-1)⌋``. Tree 1 is tree
0 mirrored (``r → N-1-r``) when ``N`` is even and shifted by one
(``r → r+1 mod N``) when ``N`` is odd (``ncclGetDtree``), so that most
interior nodes of one tree are leaves of the other. Half ``t`` of the
vector goes up tree ``t``, each node reducing its children's partial
results with its own operand, then down it from the root.

Both halves are cut into ``chunks`` pieces that are pipelined: a node at
height ``h`` (leaves at 0) sends piece ``c`` up in step ``c + h``; the root
of height ``H`` sends it down in step ``c + H`` and a node at depth ``d``
passes it on in step ``c + H + d``.

Every subtree of an in-order tree is a contiguous range of positions, so
a node combines ``left ⊕ own ⊕ right`` without commuting, and the mirrored
tree keeps that: a non-commutative all-reduce works for even ``N``; the
shifted tree of odd ``N`` wraps around and raises.

References
----------
P. Sanders, J. Speck, J. L. Träff, "Two-tree algorithms for full bandwidth broadcast,
reduction and scan", Parallel Computing 35(12), 2009. doi:10.1016/j.parco.2009.09.001.
NVIDIA, NCCL: ``src/graph/trees.cc`` (``ncclGetBtree``, ``ncclGetDtree``),
``src/device/all_reduce.h`` (``runTreeSplit``).

Examples
--------
>>> btree(14)[0], btree(14)[8], btree(14)[12]
([8], [4, 12], [10, 13])
"""

from __future__ import annotations

from ...errors import ScheduleError
from ...schedules import StepSchedule, Transfer
from .phases import positive_int, reduction_of, value_over

__all__ = ["btree", "double_binary_tree"]


def btree(n: int) -> dict[int, list[int]]:
    """The children of every position in NCCL's binary tree over ``0 .. n-1`` (root 0).

    Parameters
    ----------
    n : int
        Number of ranks, ``>= 1``.

    Returns
    -------
    dict of int to list of int
        ``rank -> children``, smaller child first; every rank is a key.

    Notes
    -----
    The subtree of ``r > 0`` with lowest set bit ``b`` is the range
    ``r - b + 1 .. min(r + b - 1, n - 1)``; O(n log n).

    Examples
    --------
    >>> btree(6)
    {0: [4], 1: [], 2: [1, 3], 3: [], 4: [2, 5], 5: []}
    """
    children: dict[int, list[int]] = {r: [] for r in range(n)}
    for r in range(1, n):
        bit = r & -r
        up = (r ^ bit) | (bit << 1)
        children[up if up < n else r ^ bit].append(r)
    return {r: sorted(cs) for r, cs in children.items()}


def _tree(n: int, which: int) -> dict[int, list[int]]:
    """Tree ``which`` (0 or 1) of the double binary tree over positions, as children lists."""
    base = btree(n)
    if which == 0:
        return base
    move = (lambda r: n - 1 - r) if n % 2 == 0 else (lambda r: (r + 1) % n)
    return {move(r): [move(c) for c in cs] for r, cs in base.items()}


def double_binary_tree(platform, collective, *, seed: int = 0, chunks: int = 4) -> StepSchedule:
    """NCCL's double binary tree all-reduce over the participants' order, halves pipelined in ``chunks`` pieces.

    Parameters
    ----------
    platform : Platform
        Unused: the trees follow the participants' order.
    collective : AllReduce
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).
    chunks : int
        Pieces per half of the vector (the pipeline depth); the schedule's
        denominator is ``2 · chunks``.

    Returns
    -------
    StepSchedule
        Per instance, ``chunks + 2H`` steps at most (``H`` the larger
        height of the two trees, ``⌈log2 N⌉`` or less).

    Raises
    ------
    ValueError
        If ``chunks`` is not an integer >= 1.
    ScheduleError
        A non-commutative all-reduce over an odd number of participants
        (the shifted tree wraps around the operand order).

    Notes
    -----
    A node interior in a tree receives its children's partial results of
    that tree's half and sends the result back down to them; a leaf only
    sends its operand's half up and receives the result. With ``N`` even
    no rank is interior in both trees (tree 0's interior positions are
    even, the leaves odd, and the mirror swaps parities); with ``N`` odd
    only ``P_0`` is
    (``tests/gpu/test_gpu_baselines.py`` checks both), so the work of
    interior nodes is spread over all ranks.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.AllReduce(participants=p.hosts, size=8e6)
    >>> s = double_binary_tree(p, c, chunks=1)
    >>> [[(t.src, t.dst, t.values[0], t.part) for t in step] for step in s.steps]  # doctest: +NORMALIZE_WHITESPACE
    [[('h1', 'h2', Σ{1}@0, (0, 1)), ('h3', 'h2', Σ{3}@0, (0, 1)), ('h0', 'h1', Σ{0}@0, (1, 2)),
      ('h2', 'h1', Σ{2}@0, (1, 2))],
     [('h2', 'h0', Σ{1..3}@0, (0, 1)), ('h1', 'h3', Σ{0..2}@0, (1, 2))],
     [('h0', 'h2', Σ{0..3}@0, (0, 1)), ('h3', 'h1', Σ{0..3}@0, (1, 2))],
     [('h2', 'h1', Σ{0..3}@0, (0, 1)), ('h2', 'h3', Σ{0..3}@0, (0, 1)), ('h1', 'h2', Σ{0..3}@0, (1, 2)),
      ('h1', 'h0', Σ{0..3}@0, (1, 2))]]
    >>> double_binary_tree(p, cs.AllReduce(participants=p.hosts[:3], size=8, commutative=False))
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: double_binary_tree keeps operand order only for an even number of participants, not 3: NCCL's second tree is then shifted and wraps around (use direct, or commutative=True)
    """
    chunks = positive_int("double_binary_tree", "chunks", chunks)
    base, order, count = reduction_of(collective, "double_binary_tree")
    n = len(order)
    if not base.commutative and n % 2:
        raise ScheduleError(f"double_binary_tree keeps operand order only for an even number of participants, "
                            f"not {n}: NCCL's second tree is then shifted and wraps around",
                            fix="use direct, or commutative=True")
    trees = [_tree(n, t) for t in (0, 1)]
    shape = []  # per tree: (root, parent, subtree positions, height, depth)
    for children in trees:
        parent = {c: r for r, cs in children.items() for c in cs}
        root = next(r for r in range(n) if r not in parent)
        below: dict[int, list[int]] = {}
        height: dict[int, int] = {}
        for r in _postorder(children, root):
            below[r] = sorted([r] + [x for c in children[r] for x in below[c]])
            height[r] = 1 + max((height[c] for c in children[r]), default=-1)
        depth = {root: 0}
        for r in _preorder(children, root):
            for c in children[r]:
                depth[c] = depth[r] + 1
        shape.append((root, parent, children, below, height, depth))
    steps: list[tuple[Transfer, ...]] = []
    for inst in range(count):
        timed: dict[int, list[Transfer]] = {}
        full = value_over(base, inst, range(n))
        for t, (root, parent, children, below, height, depth) in enumerate(shape):
            top = height[root]
            for c in range(chunks):
                part = (t * chunks + c, t * chunks + c + 1)
                for r in range(n):
                    if r != root:  # up: the subtree's reduction, once the children's arrived
                        timed.setdefault(c + height[r], []).append(
                            Transfer(order[r], order[parent[r]], inst=inst, part=part,
                                     values=(value_over(base, inst, below[r]),)))
                    for child in children[r]:  # down: the result
                        timed.setdefault(c + top + depth[r], []).append(
                            Transfer(order[r], order[child], inst=inst, part=part, values=(full,)))
        steps += [tuple(timed[k]) for k in sorted(timed)]
    return StepSchedule(steps=tuple(steps), denominator=2 * chunks, algorithm="double_binary_tree",
                        params={"chunks": chunks})


def _postorder(children: dict[int, list[int]], root: int) -> list[int]:
    """Nodes children first."""
    return list(reversed(_preorder(children, root)))


def _preorder(children: dict[int, list[int]], root: int) -> list[int]:
    """Nodes parents first."""
    out, todo = [], [root]
    while todo:
        r = todo.pop()
        out.append(r)
        todo.extend(reversed(children[r]))
    return out
