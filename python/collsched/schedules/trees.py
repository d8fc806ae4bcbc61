"""Tree schedules: broadcast, scatter, reduce and gather along a spanning tree.

A :class:`TreeSchedule` names a root and, for every node, its children in
the order it serves them (sends to them for a broadcast or scatter, receives
from them for a reduce or gather). Messages may be cut into ``segments``
equal pieces that are pipelined down (or up) the tree. A hierarchical
schedule (seed 003) is a tree whose first levels join the clusters'
coordinators; ``clusters`` and ``intra`` record that structure.

Hierarchical broadcast (``intra`` given): the coordinator of a cluster is
its host whose parent is in another cluster (or the root). A coordinator
first sends the whole message to its children in other clusters, in order
(the inter-cluster tree), then broadcasts inside its cluster with the
algorithm ``intra[coordinator] = "model:k"`` (a model of seed 003's Table 1,
see :mod:`collsched.algorithms.hierarchical.intra`, cut into ``k``
segments, pipelined down the cluster's part of the tree). The model
``scatter_allgather`` scatters one block per host of the cluster down that
tree, then runs a ring all-gather in the order coordinator, then the other
hosts in the order of ``clusters``. A cluster without an ``intra`` entry
uses ``segments``.

Lowering, per instance and per segment:

* **broadcast** — a node forwards each segment to its children, in order, as
  soon as it has it;
* **scatter** — a node receives from its parent the blocks of every target
  in its subtree and passes each child the blocks of the child's subtree;
* **gather** — the reverse of scatter;
* **reduce** — a node receives the partial results of its children in order,
  combines adjacent ones as soon as they are adjacent (``v[k..l] ⊕ v[l+1..m]``,
  never commuting), and sends what it holds to its parent. A tree whose
  subtrees are not contiguous ranges of operands still validates: a node
  then forwards several partial results. The root of a reduce tree may
  differ from the reduce's target: the root then sends the result to the
  target, as MPICH's binomial reduce does for non-commutative operators.

Examples
--------
>>> from collsched import topologies
>>> from collsched.collectives import Broadcast, Reduce
>>> from collsched.schedules.validate import validate
>>> p = topologies.star(4)
>>> t = TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)}, algorithm="binomial")
>>> t.preorder()
('h0', 'h2', 'h3', 'h1')
>>> validate(p, Broadcast(source="h0", targets=p.hosts, size=100), t)
>>> validate(p, Reduce(participants=p.hosts, target="h0", size=100, task_cost=5), t)
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping, NamedTuple

import numpy as np

from .. import _core
from ..errors import ScheduleError
from .base import Schedule
from .program import Program, ProgramBuilder
from .repeat import repeated
from .tree_columns import cut as _cut
from .tree_columns import hierarchical_messages, hierarchical_program
from .values import Piece, combine, partial

__all__ = ["TreeSchedule", "INTRA_MODELS", "parse_intra", "lower_with_builder"]


@dataclass(frozen=True)
class TreeSchedule(Schedule):
    """A rooted tree with ordered children.

    Attributes
    ----------
    root : str
    children : mapping
        ``node -> tuple of children`` in service order; leaves may be omitted.
    segments : int
        Messages are cut into this many equal segments, pipelined.
    clusters : tuple of tuples of str, optional
        For hierarchical schedules: the logical clusters.
    intra : mapping, optional
        For hierarchical schedules: ``coordinator -> "model:k"``, the
        intra-cluster algorithm of the coordinator's cluster (one of
        :data:`INTRA_MODELS`) and its number of segments.

    Raises
    ------
    ScheduleError
        If a node has two parents (or the root has one), a node with
        children is not reachable from the root, or ``segments`` is not an
        integer >= 1.

    Examples
    --------
    >>> t = TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",), "h1": ()}, segments=4)
    >>> dict(t.children), t.segments, t.shape
    ({'h0': ('h2', 'h1'), 'h2': ('h3',)}, 4, 'tree')
    >>> TreeSchedule(root="h0", children={"h0": ("h1",), "h2": ("h3",)})
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: tree node 'h2' is not reachable from the root 'h0'
    """

    root: str = ""
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    segments: int = 1
    clusters: tuple[tuple[str, ...], ...] | None = None
    intra: Mapping[str, str] = field(default_factory=dict)
    shape = "tree"

    def __post_init__(self):
        super().__post_init__()
        children = {u: tuple(cs) for u, cs in dict(self.children).items() if cs}
        object.__setattr__(self, "children", MappingProxyType(children))
        object.__setattr__(self, "intra", MappingProxyType(dict(self.intra)))
        if self.clusters is not None:
            object.__setattr__(self, "clusters", tuple(tuple(c) for c in self.clusters))
        if isinstance(self.segments, bool) or not isinstance(self.segments, int) or self.segments < 1:
            raise ScheduleError(f"tree segments is {self.segments!r}", fix="give an integer >= 1")
        parent: dict[str, str] = {}
        for u, cs in children.items():
            for c in cs:
                if c == self.root or c in parent:
                    raise ScheduleError(f"tree node {c!r} has two parents ({parent.get(c, 'root')!r} and {u!r})")
                parent[c] = u
        object.__setattr__(self, "_parent", parent)
        order = self.subtree(self.root)
        nodes = frozenset(order)
        stray = [u for u in children if u not in nodes]
        if stray:
            raise ScheduleError(f"tree node {stray[0]!r} is not reachable from the root {self.root!r}")
        object.__setattr__(self, "_order", order)  # the preorder and its set, kept: the tree is frozen
        object.__setattr__(self, "_nodes", nodes)

    def __eq__(self, other):
        if not isinstance(other, TreeSchedule):
            return NotImplemented
        return (self.root, dict(self.children), self.segments, self.clusters, dict(self.intra), self.algorithm,
                dict(self.params), self.bound, self.status, self.message) == \
            (other.root, dict(other.children), other.segments, other.clusters, dict(other.intra), other.algorithm,
             dict(other.params), other.bound, other.status, other.message)

    __hash__ = None  # type: ignore[assignment]

    def parent(self, node: str) -> str | None:
        """The parent of ``node`` (None for the root).

        Parameters
        ----------
        node : str
            A node of the tree.

        Returns
        -------
        str or None
            None for the root, and for a node that is not in the tree.

        Examples
        --------
        >>> t = TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)})
        >>> t.parent("h3"), t.parent("h1"), t.parent("h0")
        ('h2', 'h0', None)
        """
        return self._parent.get(node)

    def preorder(self) -> tuple[str, ...]:
        """Nodes, parents before children, children in service order.

        Returns
        -------
        tuple of str
            Every node of the tree once, starting with the root (depth first).

        Examples
        --------
        >>> TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)}).preorder()
        ('h0', 'h2', 'h3', 'h1')
        """
        return self._order

    def subtree(self, node: str) -> tuple[str, ...]:
        """``node`` and its descendants, in preorder.

        Parameters
        ----------
        node : str
            A node of the tree.

        Returns
        -------
        tuple of str
            Starting with ``node`` (alone if it is a leaf).

        Examples
        --------
        >>> t = TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)})
        >>> t.subtree("h2"), t.subtree("h1")
        (('h2', 'h3'), ('h1',))
        """
        out, stack = [], [node]
        while stack:
            u = stack.pop()
            out.append(u)
            stack.extend(reversed(self.children.get(u, ())))
        return tuple(out)

    def depth(self) -> int:
        """Number of edges on the longest root-to-leaf path.

        Returns
        -------
        int
            0 for a tree that is only its root.

        Examples
        --------
        >>> TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)}).depth()
        2
        >>> TreeSchedule(root="h0").depth()
        0
        """
        depth = {self.root: 0}
        for u in self.preorder():
            for c in self.children.get(u, ()):
                depth[c] = depth[u] + 1
        return max(depth.values())

    @property
    def _hierarchy(self) -> _Hierarchy:
        """This hierarchical tree's nodes as arrays, checked (:func:`_hierarchy_of`), made once: the tree is frozen
        (kept in its ``__dict__``; ``functools.cached_property`` takes a lock at each first use)."""
        kept = self.__dict__.get("_hierarchy_kept")
        if kept is None:
            kept = _hierarchy_of(self)
            object.__setattr__(self, "_hierarchy_kept", kept)
        return kept

    @property
    def _hierarchical_messages(self):
        """(denominator, ``_core.tree_messages`` or None) of this hierarchical tree, made once (kept in its
        ``__dict__``): they depend on the tree alone, which is frozen."""
        kept = self.__dict__.get("_messages_kept")
        if kept is None:
            kept = _messages_of(self)
            object.__setattr__(self, "_messages_kept", kept)
        return kept

    def lower(self, platform, collective=None) -> Program:
        """The program of this tree for a broadcast, scatter, gather or reduce (or a series of one).

        Parameters
        ----------
        platform : Platform
            Its hosts are the ranks.
        collective : Broadcast, Scatter, Gather or Reduce
            Or a series of one; instances run one after the other.

        Returns
        -------
        Program
            Lowered as the module docstring says, each message cut into
            :attr:`segments` pieces. A series of more than three instances
            lowers three through the builder and copies the third for the
            others, column-wise (:func:`~collsched.schedules.repeat.repeated`):
            the program :func:`lower_with_builder` builds.

        Raises
        ------
        ScheduleError
            If the collective's kind cannot be carried by a tree, the tree is
            not rooted at the source (broadcast, scatter) or target (gather),
            or it misses a host of the collective.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(4)
        >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
        >>> t = TreeSchedule(root="h0", children={"h0": ("h2", "h1"), "h2": ("h3",)}, segments=4)
        >>> prog = t.lower(p, c)
        >>> prog.n_messages, prog.op(0)
        (12, Op(0: h0 send msg 0 to h2 250B [m[0→*]@0[0:1]] after ()))
        >>> cs.validate(p, c, prog)
        >>> t.lower(p, cs.Broadcast(source="h1", targets=p.hosts, size=1e3))
        Traceback (most recent call last):
        ...
        collsched.errors.ScheduleError: the tree is rooted at 'h0' but the broadcast source is 'h1'
        """
        collective = self.answering(collective)
        lowering = _checked_lowering(self, collective)
        count = collective.count
        if count == 1 and lowering is _hierarchical:  # one hierarchical broadcast: column-wise
            fast = _hierarchical_columns(self, platform, collective)
            if fast is not None:
                return fast
        if count > _SMALL_SERIES:  # three instances through the builder, the others copied column-wise
            small, starts = _with_builder(self, lowering, platform, collective, _SMALL_SERIES)
            head = starts[-1]
            fast = repeated(small, head, small.n_ops - head, count - _SMALL_SERIES, items=1)
            if fast is not None:
                return fast
        return _with_builder(self, lowering, platform, collective, count)[0]


def _checked_lowering(tree: TreeSchedule, collective):
    """The function that lowers one instance of ``collective`` on the tree, once the tree is checked to carry it."""
    kind = collective.base.kind
    lowering = {"broadcast": _down, "scatter": _down, "gather": _up, "reduce": _reduce}.get(kind)
    if lowering is None:
        raise ScheduleError(f"a tree schedule cannot carry an {kind} collective", fix="use a step or order schedule")
    ends = {"broadcast": "source", "scatter": "source", "gather": "target", "reduce": "target"}[kind]
    end = getattr(collective.base, ends)
    if end != tree.root and kind != "reduce":
        raise ScheduleError(f"the tree is rooted at {tree.root!r} but the {kind} {ends} is {end!r}")
    nodes = tree._nodes
    hosts = collective.hosts
    missing = [] if nodes.issuperset(hosts) else \
        [h for h in hosts if h not in nodes and not (kind == "reduce" and h == end)]
    if missing:
        raise ScheduleError(f"the tree does not reach {kind} host {missing[0]!r}")
    if tree.intra:
        if kind != "broadcast":
            raise ScheduleError(f"a hierarchical tree schedule carries a broadcast, not a {kind}",
                                fix="drop 'intra' for a plain tree")
        lowering = _hierarchical
    return lowering


#: Instances a series is lowered through the builder before the rest are copied (:func:`~.repeat.repeated`):
#: the first has no predecessor, the second waits for the first, the third is checked against the second.
_SMALL_SERIES = 3


def _with_builder(tree: TreeSchedule, lowering, platform, collective, count: int) -> tuple[Program, list[int]]:
    """The program of the first ``count`` instances through :class:`ProgramBuilder`, and where each instance starts."""
    denominator = _hierarchical_denominator(tree) if tree.intra else tree.segments
    b = ProgramBuilder(platform.hosts, denominator=denominator, name=tree.algorithm)
    starts = []
    for inst in range(count):
        starts.append(b.n_ops)
        lowering(tree, b, platform, collective, inst)
    return b.build(), starts


def lower_with_builder(tree: TreeSchedule, platform, collective=None) -> Program:
    """:meth:`TreeSchedule.lower` through :class:`ProgramBuilder` for every instance (the reference).

    Parameters
    ----------
    tree : TreeSchedule
    platform : Platform
    collective : Collective, optional
        By default the tree's own.

    Returns
    -------
    Program
        Equal to ``tree.lower(platform, collective)``, which copies the
        instances after the third column-wise (the tests compare them).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Series(cs.Reduce(participants=p.hosts, target="h0", size=1e3, task_cost=1e3), count=6)
    >>> t = cs.plan(p, c, algorithm="binomial")
    >>> lower_with_builder(t, p, c) == t.lower(p, c)
    True
    """
    collective = tree.answering(collective)
    return _with_builder(tree, _checked_lowering(tree, collective), platform, collective, collective.count)[0]


def _subtree_values(tree: TreeSchedule, platform, collective, inst: int) -> dict[str, list]:
    """For scatter/gather/broadcast: the values each subtree needs (down) or provides (up)."""
    base = collective.base
    if base.kind == "broadcast":
        v = base.direct_value(platform, inst, base.source, base.source)
        return {u: [v] for u in tree.preorder()}
    members = set(base.targets if base.kind == "scatter" else base.sources)
    end = base.source if base.kind == "scatter" else base.target
    out = {}
    for u in tree.preorder():
        hosts = [x for x in tree.subtree(u) if x in members and x != end]
        out[u] = [base.direct_value(platform, inst, end, x) if base.kind == "scatter"
                  else base.direct_value(platform, inst, x, end) for x in hosts]
    return out


def _send_pieces(b: ProgramBuilder, sizer, src: str, dst: str, values: list, seg: int, last_send: dict) -> None:
    if not values:
        return
    pieces = [Piece(v, seg, seg + 1) for v in values]
    size = sum(sizer(v) for v in values) / b.denominator
    send, _ = b.send(src, dst, pieces, size, after=last_send.get(src, []), recv_after=())
    last_send[src] = [send]


def _down(tree: TreeSchedule, b: ProgramBuilder, platform, collective, inst: int) -> None:
    need = _subtree_values(tree, platform, collective, inst)
    sizer = collective.sizer(platform)
    last_send: dict[str, list[int]] = {u: ([b.last(u)] if b.last(u) >= 0 else []) for u in tree.preorder()}
    for seg in range(tree.segments):
        for u in tree.preorder():
            for c in tree.children.get(u, ()):
                _send_pieces(b, sizer, u, c, need[c], seg, last_send)


def _up(tree: TreeSchedule, b: ProgramBuilder, platform, collective, inst: int) -> None:
    have = _subtree_values(tree, platform, collective, inst)
    sizer = collective.sizer(platform)
    last_send: dict[str, list[int]] = {u: ([b.last(u)] if b.last(u) >= 0 else []) for u in tree.preorder()}
    for seg in range(tree.segments):
        for u in reversed(tree.preorder()):
            p = tree.parent(u)
            if p is not None:
                _send_pieces(b, sizer, u, p, have[u], seg, last_send)


def _reduce(tree: TreeSchedule, b: ProgramBuilder, platform, collective, inst: int) -> None:
    base = collective.base
    position = {h: k for k, h in enumerate(base.participants)}
    sizer = collective.sizer(platform)
    last_send: dict[str, list[int]] = {u: ([b.last(u)] if b.last(u) >= 0 else []) for u in tree.preorder()}
    last_task: dict[str, list[int]] = dict(last_send)
    for seg in range(tree.segments):
        # children are served in order, so a node's partial results are known once its children are done
        held: dict[str, list] = {}
        for u in reversed(tree.preorder()):
            mine = [partial(inst, position[u], position[u])] if u in position else []
            for c in tree.children.get(u, ()):
                mine = _merge(b, base, u, sorted(mine + held.pop(c)), seg, last_task)
            held[u] = mine
            p = tree.parent(u) if u != tree.root else (base.target if base.target != u else None)
            if p is not None and mine:
                _send_pieces(b, sizer, u, p, mine, seg, last_send)


def _merge(b: ProgramBuilder, reduce, node: str, values: list, seg: int, last_task: dict) -> list:
    """Combine adjacent partial results, left to right, with one compute op per combination."""
    out = [values[0]] if values else []
    for v in values[1:]:
        if out[-1].b + 1 == v.a:
            left = out.pop()
            merged = combine(left, v)
            cost = reduce.task_cost_of(left.a, left.b, v.b) / b.denominator
            task = b.compute(node, [Piece(left, seg, seg + 1), Piece(v, seg, seg + 1)], Piece(merged, seg, seg + 1),
                             cost, after=last_task.get(node, []))
            last_task[node] = [task]
            out.append(merged)
        else:
            out.append(v)
    return out


# --- hierarchical broadcast (seed 003) ------------------------------------------------------

_MAX_DENOMINATOR = 1 << 20


#: The intra-cluster broadcast models of seed 003's Table 1 a hierarchical tree can lower
#: (:mod:`collsched.algorithms.hierarchical.intra` gives their costs and trees).
INTRA_MODELS = ("flat", "segmented_flat", "chain", "pipelined_chain", "binary", "binomial", "segmented_binomial",
                "k_chain", "scatter_allgather")


def parse_intra(text: str) -> tuple[str, int]:
    """``(model, k)`` from an ``intra`` entry ``"model:k"`` (or ``"model"``, ``k = 1``).

    Parameters
    ----------
    text : str

    Returns
    -------
    model : str
        One of :data:`INTRA_MODELS`.
    k : int
        Number of segments, >= 1.

    Raises
    ------
    ValueError
        If the model is unknown or ``k`` is not an integer >= 1.

    Examples
    --------
    >>> parse_intra("pipelined_chain:8"), parse_intra("binomial")
    (('pipelined_chain', 8), ('binomial', 1))
    >>> parse_intra("ring:2")
    Traceback (most recent call last):
    ...
    ValueError: intra-cluster algorithm 'ring:2' is not 'model:segments' with a model of Table 1 (flat, segmented_flat, chain, pipelined_chain, binary, binomial, segmented_binomial, k_chain, scatter_allgather)
    """
    name, _, k = text.partition(":")
    try:
        segments = int(k) if k else 1
    except ValueError:
        segments = 0
    if name not in INTRA_MODELS or segments < 1:
        raise ValueError(f"intra-cluster algorithm {text!r} is not 'model:segments' with a model of Table 1 "
                         f"({', '.join(INTRA_MODELS)})")
    return name, segments


#: :func:`parse_intra`, each distinct entry parsed once (a planned tree repeats a few entries for many clusters).
_parsed_intra = functools.lru_cache(maxsize=256)(parse_intra)


def _intra_specs(tree: TreeSchedule) -> dict[str, tuple[str, int]]:
    out = {}
    for coordinator, text in tree.intra.items():
        try:
            out[coordinator] = _parsed_intra(text)
        except ValueError as exc:
            raise ScheduleError(f"tree intra[{coordinator!r}]: {exc}") from None
    return out


def _hierarchical_denominator(tree: TreeSchedule, specs: dict | None = None) -> int:
    """The lcm of every cluster's segment count (and size, for scatter/all-gather), capped at 2^20 (``specs``: the
    parsed ``intra`` entries, if known)."""
    specs = _intra_specs(tree) if specs is None else specs
    d = math.lcm(tree.segments, *{k for _, k in specs.values()})
    scattering = [u for u, (model, _) in specs.items() if model == "scatter_allgather"]
    if scattering:
        sizes = {c[0]: len(c) for c in tree.clusters or ()}
        members = {h: c for c in tree.clusters or () for h in c}
        for coordinator in scattering:
            d = math.lcm(d, len(members.get(coordinator, sizes.get(coordinator, ()))) or 1)
    return d if d <= _MAX_DENOMINATOR else _MAX_DENOMINATOR


class _Hierarchy(NamedTuple):
    """A hierarchical tree's nodes numbered in preorder (the root 0), as arrays."""

    order: tuple[str, ...]    # the preorder
    cluster_of: dict          # host -> cluster number
    parent: np.ndarray        # per node, its parent's number (-1 for the root)
    cluster: np.ndarray       # per node, its cluster's number
    coordinator: np.ndarray   # per node, whether it is its cluster's coordinator (the root, or a parent elsewhere)


def _hierarchy_of(tree: TreeSchedule) -> _Hierarchy:
    """The nodes of a hierarchical tree as arrays, once it is checked column-wise: every host in a cluster, one
    coordinator per cluster, inter-cluster edges leaving coordinators only."""
    cluster_of = {h: k for k, c in enumerate(tree.clusters or ()) for h in c}
    order = tree.preorder()
    n = len(order)
    cluster = np.fromiter(map(cluster_of.get, order, itertools.repeat(-1)), np.int64, n)
    if (cluster < 0).any():
        h = order[int(np.argmax(cluster < 0))]
        raise ScheduleError(f"hierarchical tree host {h!r} is in no cluster", fix="list it in 'clusters'")
    number = dict(zip(order, range(n)))
    parent = np.empty(n, np.int64)
    parent[0] = -1
    parent[1:] = np.fromiter(map(number.__getitem__, map(tree._parent.__getitem__, order[1:])), np.int64, n - 1)
    crossing = cluster[1:] != cluster[parent[1:]]  # the edge into node i + 1 joins two clusters
    coordinator = np.concatenate(([True], crossing))
    entered = cluster[coordinator]
    if np.bincount(entered).max() > 1:
        coordinators = np.flatnonzero(coordinator)
        _, first = np.unique(entered, return_index=True)
        again = int(np.setdiff1d(np.arange(len(entered)), first)[0])  # the first coordinator of a cluster seen before
        u, seen = order[coordinators[again]], order[coordinators[int(np.argmax(entered == entered[again]))]]
        raise ScheduleError(f"cluster of {u!r} is entered twice, at {seen!r} and {u!r}",
                            fix="give each cluster one coordinator")
    stray = crossing & ~coordinator[parent[1:]]
    if stray.any():
        x = order[int(parent[1:][stray].min())]
        raise ScheduleError(f"hierarchical tree host {x!r} sends to another cluster but is not its "
                            "cluster's coordinator", fix="let inter-cluster edges leave coordinators only")
    for a in (parent, cluster, coordinator):
        a.flags.writeable = False
    return _Hierarchy(order, cluster_of, parent, cluster, coordinator)


def _coordinators(tree: TreeSchedule) -> tuple[tuple[str, ...], dict, list[str]]:
    """(preorder, host -> cluster number, coordinators in preorder) of a hierarchical tree, once it is checked."""
    h = tree._hierarchy
    return h.order, h.cluster_of, [h.order[i] for i in np.flatnonzero(h.coordinator).tolist()]


def _messages_of(tree: TreeSchedule):
    """(denominator, messages or None: a cluster runs ``scatter_allgather``) of a hierarchical tree: the message list
    of ``_core.tree_messages`` (:func:`~.tree_columns.hierarchical_messages` with an extension built before it), its
    arrays read-only."""
    h = tree._hierarchy
    specs = _intra_specs(tree)
    denominator = _hierarchical_denominator(tree, specs)
    if any(model == "scatter_allgather" for model, _ in specs.values()):
        return denominator, None
    own = {u: spec[1] for u, spec in specs.items()}.get
    entry = np.fromiter(map(own, h.order, itertools.repeat(tree.segments)), np.int64, len(h.order))
    per_cluster = np.zeros(int(h.cluster.max()) + 1, np.int64)
    per_cluster[h.cluster[h.coordinator]] = entry[h.coordinator]  # a cluster's count: its coordinator's entry
    reader = getattr(_core, "tree_messages", hierarchical_messages)
    messages = reader(h.parent, h.cluster, h.coordinator, per_cluster[h.cluster], denominator)
    for a in messages or ():
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return denominator, messages


def _hierarchical_columns(tree: TreeSchedule, platform, collective) -> Program | None:
    """One instance of a hierarchical broadcast, column-wise (:func:`~.tree_columns.hierarchical_program`)."""
    denominator, messages = tree._hierarchical_messages
    return None if messages is None else \
        hierarchical_program(tree, platform, collective, denominator, messages, tree._hierarchy.order)


def _hierarchical(tree: TreeSchedule, b: ProgramBuilder, platform, collective, inst: int) -> None:
    base = collective.base
    value = base.direct_value(platform, inst, base.source, base.source)
    D, size = b.denominator, base.size
    order, cluster_of, coordinators = _coordinators(tree)
    same = lambda u, v: cluster_of[u] == cluster_of[v]  # noqa: E731
    specs = _intra_specs(tree)
    last_send: dict[str, list[int]] = {u: ([b.last(u)] if b.last(u) >= 0 else []) for u in order}
    whole: dict[str, list[int]] = {u: [] for u in order}       # the recv that brought the whole message
    # step 1: the inter-cluster tree, whole messages, each coordinator serving its children in order
    for u in coordinators:
        for c in tree.children.get(u, ()):
            if not same(u, c):
                send, recv = b.send(u, c, [Piece(value, 0, D)], size, after=last_send[u] + whole[u], recv_after=())
                last_send[u], whole[c] = [send], [recv]
    # step 2: inside each cluster, once its coordinator is done with step 1
    for u in coordinators:
        model, k = specs.get(u, ("tree", tree.segments))
        hosts = [x for x in tree.subtree(u) if same(x, u)]
        if model == "scatter_allgather":
            _scatter_allgather(tree, b, u, hosts, value, size, last_send, whole)
            continue
        for seg in range(k):
            a, e = _cut(D, k, seg)
            for x in hosts:
                for c in tree.children.get(x, ()):
                    if same(x, c):
                        send, _ = b.send(x, c, [Piece(value, a, e)], size * (e - a) / D,
                                         after=last_send[x] + whole[x], recv_after=())
                        last_send[x] = [send]


def _scatter_allgather(tree: TreeSchedule, b: ProgramBuilder, u: str, hosts: list[str], value, size: float,
                       last_send: dict, whole: dict) -> None:
    """Scatter one block per host down the cluster's tree, then a ring all-gather (van de Geijn)."""
    D = b.denominator
    cluster = next(c for c in tree.clusters if u in c)
    ring = [u] + [h for h in cluster if h != u]
    P = len(ring)
    block = {h: Piece(value, *_cut(D, P, r)) for r, h in enumerate(ring)}
    nbytes = lambda pieces: size * sum(p.end - p.start for p in pieces) / D  # noqa: E731
    members = set(hosts)
    for x in hosts:                                            # step 1: scatter, each child its subtree's blocks
        for c in tree.children.get(x, ()):
            if c in members:
                pieces = [block[h] for h in tree.subtree(c) if h in members]
                send, _ = b.send(x, c, pieces, nbytes(pieces), after=last_send[x] + whole[x], recv_after=())
                last_send[x] = [send]
    # a host holds the blocks of its subtree after the scatter, and is sent only the others
    held = {x: {h for h in tree.subtree(x) if h in members} for x in hosts}
    for t in range(P - 1):                                     # step 2: ring, rank r passes block r - t to r + 1
        for r in range(P - 1):
            x, owner = ring[r], ring[(r - t) % P]
            if owner in held[ring[r + 1]]:
                continue
            piece = block[owner]
            send, _ = b.send(x, ring[r + 1], [piece], nbytes([piece]), after=last_send[x] + whole[x], recv_after=())
            last_send[x] = [send]
