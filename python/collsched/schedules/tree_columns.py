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
the builder's order with those ids per send (plain Python integers, no
:class:`~collsched.schedules.values.Piece`; the tree keeps the list, which
depends on nothing else), and :func:`hierarchical_program` makes every
column from it with numpy: the same program (the tests compare them).

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


def hierarchical_messages(tree, *, denominator: int, specs: dict, order, cluster_of: dict, coordinators: list):
    """The messages of one hierarchical broadcast on ``tree``, in the builder's order, or None when a cluster scatters.

    Parameters
    ----------
    tree : TreeSchedule
        A hierarchical tree, checked by the caller (one coordinator per
        cluster, inter-cluster edges leaving coordinators only).
    denominator : int
        The program's (:func:`~collsched.schedules.trees._hierarchical_denominator`).
    specs : dict
        ``coordinator -> (model, k)``, the parsed ``intra`` entries.
    order : sequence of str
        The tree's preorder.
    cluster_of : dict
        ``host -> cluster number``.
    coordinators : list of str
        The coordinators, in preorder (the root first).

    Returns
    -------
    (src, dst, start, end, whole, dep_count, dep_idx) or None
        Per message: its sender and receiver (names), its piece
        ``[start, end)`` of the source's message, whether it is a whole
        message of the inter-cluster tree (its bytes are then the message's
        own, not ``size * (end - start) / denominator``), and the send's
        dependencies (CSR: how many, then all of them, as operation ids of
        the program where message ``i`` is operations ``2i`` and ``2i + 1``).
        None when a cluster runs ``scatter_allgather``.

    Notes
    -----
    O(hosts + messages) Python operations on integers and strings.

    Examples
    --------
    >>> from collsched.schedules.trees import TreeSchedule
    >>> t = TreeSchedule(root="a", children={"a": ("b",), "b": ("c",)}, clusters=[["a"], ["b", "c"]],
    ...                  intra={"b": "chain:2"})
    >>> src, dst, start, end, whole, count, deps = hierarchical_messages(
    ...     t, denominator=2, specs={"b": ("chain", 2)}, order=t.preorder(), cluster_of={"a": 0, "b": 1, "c": 1},
    ...     coordinators=["a", "b"])
    >>> src, dst, start.tolist(), end.tolist(), whole.tolist(), count.tolist(), deps.tolist()
    (['a', 'b', 'b'], ['b', 'c', 'c'], [0, 0, 1], [2, 1, 2], [True, False, False], [0, 1, 2], [1, 1, 2])
    """
    if any(model == "scatter_allgather" for model, _ in specs.values()):
        return None
    D = denominator
    src, dst, start, end, before = [], [], [], [], []
    last_send: dict = {}  # node -> its last send's op id
    made: dict = {}       # (node, start, end) -> the receive that brought that piece to node

    def send(x, c, a, e):
        # what the send waits for (-1: nothing): its previous send, the whole message, the piece it forwards
        before.append((last_send.get(x, -1), made.get((x, 0, D), -1), made.get((x, a, e), -1)))
        op = 2 * len(src)
        src.append(x)
        dst.append(c)
        start.append(a)
        end.append(e)
        last_send[x] = op
        made[(c, a, e)] = op + 1

    children = tree.children
    # step 1: the inter-cluster tree, whole messages, each coordinator serving its children in order
    for u in coordinators:
        for c in children.get(u, ()):
            if cluster_of[c] != cluster_of[u]:
                send(u, c, 0, D)
    n_whole = len(src)
    # step 2: inside each cluster (its hosts in preorder), segment after segment
    members: dict = {}
    for x in order:
        members.setdefault(cluster_of[x], []).append(x)
    for u in coordinators:
        model, k = specs.get(u, ("tree", tree.segments))
        hosts = members[cluster_of[u]]
        for seg in range(k):
            a, e = cut(D, k, seg)
            for x in hosts:
                for c in children.get(x, ()):
                    if cluster_of[c] == cluster_of[x]:
                        send(x, c, a, e)
    m = len(src)
    # each send's ids, sorted, without repeats or -1 (the builder's sorted set)
    ids = np.sort(np.array(before, np.int64).reshape(m, 3), axis=1)
    keep = ids >= 0
    keep[:, 1:] &= ids[:, 1:] != ids[:, :-1]
    count = keep.sum(axis=1).astype(np.int64)
    dep_idx = ids[keep]
    whole = np.arange(m) < n_whole
    return src, dst, np.array(start, np.int64), np.array(end, np.int64), whole, count, dep_idx


def hierarchical_program(tree, platform, collective, denominator: int, messages) -> Program:
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
    >>> messages = hierarchical_messages(t, denominator=2, specs={"h1": ("chain", 2)}, order=t.preorder(),
    ...                                  cluster_of={"h0": 0, "h1": 1, "h2": 1}, coordinators=["h0", "h1"])
    >>> prog = hierarchical_program(t, p, cs.Broadcast(source="h0", targets=p.hosts, size=8.0), 2, messages)
    >>> prog.op(4)
    Op(4: h1 send msg 2 to h2 4B [m[0→*]@0[1:2]] after (1, 2))
    """
    src, dst, start, end, whole, count, dep_idx = messages
    base = collective.base
    m = len(src)
    index = {h: i for i, h in enumerate(platform.hosts)}
    s = np.fromiter(map(index.__getitem__, src), np.int64, m)
    d = np.fromiter(map(index.__getitem__, dst), np.int64, m)
    two = lambda a, b: np.stack([a, b], axis=1).reshape(-1)  # noqa: E731  (send, then its receive)
    # the builder's arithmetic: a whole message weighs the size, a piece size * (end - start) / denominator
    z = np.where(whole, float(base.size), base.size * (end - start).astype(np.float64) / denominator)
    dep_ptr = np.zeros(2 * m + 1, np.int64)
    np.cumsum(two(count, np.zeros(m, np.int64)), out=dep_ptr[1:])
    piece_ptr = np.zeros(2 * m + 1, np.int64)
    piece_ptr[1:] = np.repeat(np.arange(1, m + 1, dtype=np.int64), 2)
    rows = np.empty((m, 6), np.int64)
    rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = BLOCK, 0, platform.host_index(base.source), -1
    rows[:, 4], rows[:, 5] = start, end
    return Program(ranks=tuple(platform.hosts), denominator=denominator, op_rank=_frozen(two(s, d)),
                   op_kind=_frozen(np.tile(np.array([SEND, RECV], np.int64), m)), op_peer=_frozen(two(d, s)),
                   op_msg=_frozen(np.repeat(np.arange(m, dtype=np.int64), 2)), op_size=_frozen(two(z, z)),
                   dep_ptr=_frozen(dep_ptr), dep_idx=_frozen(dep_idx.copy()), piece_ptr=_frozen(piece_ptr),
                   pieces=_frozen(rows), name=tree.algorithm)
