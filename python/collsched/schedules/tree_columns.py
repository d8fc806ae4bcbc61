"""Column-wise lowering of one hierarchical broadcast (seed 003), the program :meth:`TreeSchedule.lower` builds.

A hierarchical tree (:mod:`collsched.schedules.trees`, ``intra`` given)
lowers through :class:`~collsched.schedules.program.ProgramBuilder`, which
costs a few microseconds per operation and a fixed cost per call, and keeps
a dictionary of which operation brought each piece to each rank. Its
program has a simple shape when no cluster runs ``scatter_allgather``: each
message carries one piece of the source's message, and a send waits for at
most three operations of its rank: its previous send, the receive that
brought the whole message (a coordinator), and the receive that brought
the piece it forwards. :func:`hierarchical_messages` lists the messages in
the builder's order with those ids per send, column-wise from the tree's
parent and cluster arrays (no Python operation per message; the tree keeps
the list, which depends on nothing else), and :func:`hierarchical_program`
makes every column from it with numpy: the same program (the tests compare
them).

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules.trees import TreeSchedule, lower_with_builder
>>> p = cs.topologies.star(4)
>>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
>>> t = TreeSchedule(root="h0", children={"h0": ("h2",), "h2": ("h1", "h3")}, clusters=[["h0"], ["h2", "h1", "h3"]],
...                  intra={"h2": "pipelined_chain:2"})
>>> t.lower(p, c) == lower_with_builder(t, p, c), t.lower(p, c).n_ops
(True, 10)
"""

from __future__ import annotations

import numpy as np

from .program import RECV, SEND, Program, _frozen
from .values import BLOCK

__all__ = ["hierarchical_messages", "hierarchical_program", "cut"]


def cut(denominator: int, parts: int, j: int) -> tuple[int, int]:
    """Piece ``j`` of ``parts`` nearly equal pieces of ``[0, denominator)``.

    Examples
    --------
    >>> [cut(10, 3, j) for j in range(3)]
    [(0, 3), (3, 6), (6, 10)]
    """
    return denominator * j // parts, denominator * (j + 1) // parts


def hierarchical_messages(parent: np.ndarray, cluster: np.ndarray, coordinator: np.ndarray, segments: np.ndarray,
                          denominator: int):
    """The messages of one hierarchical broadcast, in the builder's order, column-wise (numpy).

    The tree's nodes are numbered in preorder (the root is 0); children are served in preorder, so a node's
    children in service order are its children by increasing number.

    Parameters
    ----------
    parent : numpy.ndarray of int64
        Per node, its parent's number (-1 for the root).
    cluster : numpy.ndarray of int64
        Per node, its cluster's number.
    coordinator : numpy.ndarray of bool
        Per node, whether it coordinates its cluster (the root, or a parent in another cluster); the tree is
        checked (one coordinator per cluster, inter-cluster edges leaving coordinators only).
    segments : numpy.ndarray of int64
        Per node, its cluster's segment count (its coordinator's ``intra`` entry, or the tree's ``segments``).
    denominator : int
        The program's (:func:`~collsched.schedules.trees._hierarchical_denominator`).

    Returns
    -------
    (src, dst, start, end, n_whole, dep_ptr, dep_idx) or None
        Per message: its sender and receiver (node numbers) and its piece
        ``[start, end)`` of the source's message; how many messages, first,
        are the whole messages of the inter-cluster tree (their bytes are the
        message's own, not ``size * (end - start) / denominator``); the
        dependencies of the program's operations, CSR, where message ``i`` is
        the send ``2i`` and its receive ``2i + 1``, which waits for nothing:
        a send waits for its previous send, the receive that brought the
        whole message and the one that brought the piece it forwards. None
        when a cluster has more segments than the denominator (pieces would
        be empty: the builder lowers it). ``_core.tree_messages`` computes
        the same in Rust, in one pass (the tests compare them).

    Notes
    -----
    O(messages log messages) numpy work, a few dozen array operations: step 1
    is the inter-cluster edges by (parent, child); step 2 the intra-cluster
    edges by (coordinator, parent, child), each cluster's block repeated once
    per segment.

    Examples
    --------
    A root ``a`` (cluster 0) sending to ``b``, which forwards to ``c`` in two segments (cluster 1):

    >>> src, dst, start, end, whole, ptr, deps = hierarchical_messages(
    ...     np.array([-1, 0, 1]), np.array([0, 1, 1]), np.array([True, True, False]), np.array([1, 2, 2]), 2)
    >>> src.tolist(), dst.tolist(), start.tolist(), end.tolist(), whole, ptr.tolist(), deps.tolist()
    ([0, 1, 1], [1, 2, 2], [0, 0, 1], [2, 1, 2], 1, [0, 0, 0, 1, 1, 3, 3], [1, 1, 2])
    """
    D = denominator
    n = len(parent)
    if n and int(segments.max()) > D:
        return None
    child = np.arange(1, n, dtype=np.int64)
    up = parent[1:]
    inter = cluster[1:] != cluster[up]
    # step 1: the inter-cluster tree, whole messages, each coordinator serving its children in order
    e1, s1 = child[inter], up[inter]
    by = np.argsort(s1, kind="stable")
    e1, s1 = e1[by], s1[by]
    n1 = len(e1)
    # step 2: inside each cluster (coordinators in preorder), segment after segment, senders in preorder
    e2, s2 = child[~inter], up[~inter]
    where = np.full(int(cluster.max()) + 1 if n else 0, -1, np.int64)
    where[cluster[coordinator]] = np.flatnonzero(coordinator)
    group = where[cluster[e2]]
    by = np.lexsort((e2, s2, group))
    e2, s2, group = e2[by], s2[by], group[by]
    first = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1]))) if len(e2) else np.zeros(0, np.int64)
    length = np.diff(np.append(first, len(e2)))
    k = segments[e2[first]]
    block = length * k
    block_start = np.cumsum(block) - block
    gid = np.repeat(np.arange(len(first), dtype=np.int64), block)
    j = np.arange(int(block.sum()), dtype=np.int64) - block_start[gid]
    seg, rank = np.divmod(j, length[gid])
    edge = first[gid] + rank                       # each message's edge (index in e2)
    kk = k[gid]
    src = np.concatenate((s1, s2[edge]))
    dst = np.concatenate((e1, e2[edge]))
    start = np.concatenate((np.zeros(n1, np.int64), D * seg // kk))
    end = np.concatenate((np.full(n1, D, np.int64), D * (seg + 1) // kk))
    m = len(src)
    ids = np.arange(m, dtype=np.int64)
    # what each send waits for (-1: nothing): its previous send ...
    before = np.full((m, 3), -1, np.int64)
    by = np.argsort(src, kind="stable")
    same = src[by][1:] == src[by][:-1]
    before[by[1:][same], 0] = 2 * by[:-1][same]
    # ... the receive that brought the whole message (each node receives it at most once, before it sends) ...
    whole_piece = (start == 0) & (end == D)
    got_whole = np.full(n, -1, np.int64)
    got_whole[dst[whole_piece]] = 2 * ids[whole_piece] + 1
    before[:, 1] = got_whole[src]
    # ... and the receive that brought the piece it forwards: a coordinator's is its whole message's (if its piece
    # is whole), another node's the same segment of its own edge, as many messages before or after as its edge is
    before[:n1, 2] = got_whole[s1]
    incoming = np.full(n, -1, np.int64)
    incoming[e2] = np.arange(len(e2), dtype=np.int64)
    x = s2[edge]
    own = incoming[x]
    before[n1:, 2] = np.where(own >= 0, 2 * (ids[n1:] + own - edge) + 1, np.where(whole_piece[n1:], got_whole[x], -1))
    # each send's ids, sorted, without repeats or -1 (the builder's sorted set)
    before.sort(axis=1)
    keep = before >= 0
    keep[:, 1:] &= before[:, 1:] != before[:, :-1]
    dep_ptr = np.zeros(2 * m + 1, np.int64)
    np.cumsum(keep.sum(axis=1), out=dep_ptr[1::2])
    dep_ptr[2::2] = dep_ptr[1::2]
    return src, dst, start, end, n1, dep_ptr, before[keep]


def hierarchical_program(tree, platform, collective, denominator: int, messages, nodes) -> Program:
    """The program of one hierarchical broadcast from its :func:`hierarchical_messages`.

    Parameters
    ----------
    tree : TreeSchedule
        Gives the program's name.
    platform : Platform
        Its hosts are the ranks.
    collective : Broadcast
        One instance (instance 0): its source and size.
    denominator : int
        The program's.
    messages : tuple
        What :func:`hierarchical_messages` returns.
    nodes : sequence of str
        The tree's nodes in preorder (node ``i`` of the messages is ``nodes[i]``).

    Returns
    -------
    Program
        Each send followed by its receive, which waits for nothing.

    Notes
    -----
    O(messages) numpy work.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules.trees import TreeSchedule
    >>> p = cs.topologies.star(3)
    >>> t = TreeSchedule(root="h0", children={"h0": ("h1",), "h1": ("h2",)}, clusters=[["h0"], ["h1", "h2"]],
    ...                  intra={"h1": "chain:2"})
    >>> messages = hierarchical_messages(np.array([-1, 0, 1]), np.array([0, 1, 1]), np.array([True, True, False]),
    ...                                  np.array([1, 2, 2]), 2)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=8.0)
    >>> prog = hierarchical_program(t, p, c, 2, messages, ("h0", "h1", "h2"))
    >>> prog.op(4)
    Op(4: h1 send msg 2 to h2 4B [m[0→*]@0[1:2]] after (1, 2))
    """
    src, dst, start, end, n_whole, dep_ptr, dep_idx = messages
    base = collective.base
    m = len(src)
    rank = np.fromiter(map(platform.host_index, nodes), np.int64, len(nodes))
    op_rank, op_peer = np.empty(2 * m, np.int64), np.empty(2 * m, np.int64)
    op_rank[0::2] = op_peer[1::2] = rank[src]  # each send, then its receive
    op_rank[1::2] = op_peer[0::2] = rank[dst]
    # the builder's arithmetic: a whole message weighs the size, a piece size * (end - start) / denominator
    z = base.size * (end - start).astype(np.float64) / denominator
    z[:n_whole] = float(base.size)
    rows = np.empty((m, 6), np.int64)
    rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = BLOCK, 0, platform.host_index(base.source), -1
    rows[:, 4], rows[:, 5] = start, end
    piece_ptr = np.zeros(2 * m + 1, np.int64)
    piece_ptr[1:] = np.arange(2, 2 * m + 2, dtype=np.int64) // 2
    op_kind, op_size = np.empty(2 * m, np.int64), np.empty(2 * m, np.float64)
    op_kind[0::2], op_kind[1::2] = SEND, RECV
    op_size[0::2] = op_size[1::2] = z
    return Program(ranks=tuple(platform.hosts), denominator=denominator, op_rank=_frozen(op_rank),
                   op_kind=_frozen(op_kind), op_peer=_frozen(op_peer),
                   op_msg=_frozen(np.arange(2 * m, dtype=np.int64) // 2), op_size=_frozen(op_size),
                   dep_ptr=_frozen(dep_ptr), dep_idx=_frozen(dep_idx), piece_ptr=_frozen(piece_ptr),
                   pieces=_frozen(rows), name=tree.algorithm)
