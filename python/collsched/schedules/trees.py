"""Tree schedules: broadcast, scatter, reduce and gather along a spanning tree.

A :class:`TreeSchedule` names a root and, for every node, its children in
the order it serves them (sends to them for a broadcast or scatter, receives
from them for a reduce or gather). Messages may be cut into ``segments``
equal pieces that are pipelined down (or up) the tree. A hierarchical
schedule (seed 003) is a tree whose first levels join the clusters'
coordinators; ``clusters`` and ``intra`` record that structure.

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

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from ..errors import ScheduleError
from .base import Schedule
from .program import Program, ProgramBuilder
from .values import Piece, combine, partial

__all__ = ["TreeSchedule"]


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
        For hierarchical schedules: ``coordinator -> intra-cluster algorithm``.

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
        order = self.preorder()
        stray = [u for u in children if u not in set(order)]
        if stray:
            raise ScheduleError(f"tree node {stray[0]!r} is not reachable from the root {self.root!r}")

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
        out, stack = [], [self.root]
        while stack:
            u = stack.pop()
            out.append(u)
            stack.extend(reversed(self.children.get(u, ())))
        return tuple(out)

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
            :attr:`segments` pieces.

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
        kind = collective.base.kind
        lowering = {"broadcast": _down, "scatter": _down, "gather": _up, "reduce": _reduce}.get(kind)
        if lowering is None:
            raise ScheduleError(f"a tree schedule cannot carry an {kind} collective", fix="use a step or order schedule")
        ends = {"broadcast": "source", "scatter": "source", "gather": "target", "reduce": "target"}[kind]
        end = getattr(collective.base, ends)
        if end != self.root and kind != "reduce":
            raise ScheduleError(f"the tree is rooted at {self.root!r} but the {kind} {ends} is {end!r}")
        nodes = set(self.preorder())
        missing = [h for h in collective.hosts if h not in nodes and not (kind == "reduce" and h == end)]
        if missing:
            raise ScheduleError(f"the tree does not reach {kind} host {missing[0]!r}")
        b = ProgramBuilder(platform.hosts, denominator=self.segments, name=self.algorithm)
        for inst in range(collective.count):
            lowering(self, b, platform, collective, inst)
        return b.build()


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
