"""The round lowering of a :class:`~collsched.schedules.forest.ForestSchedule`: its pieces, stages and messages.

What the program carries, and when each message may go (stages, the
messages per round or unit, the window), is in the module docstring of
:mod:`collsched.schedules.forest`; this module builds it:
:func:`lower_with_builder` every round through :class:`ProgramBuilder` (the
reference), ``_repeated_rounds`` the full pipeline's middle rounds copied
column-wise (what :meth:`ForestSchedule.lower` returns).

Examples
--------
>>> import collsched as cs
>>> from collsched.schedules.forest import ForestSchedule, ForestTree
>>> t = [ForestTree("h0", 1, [("h0", "h1")]), ForestTree("h1", 1, [("h1", "h0")])]
>>> f = ForestSchedule(participants=("h0", "h1"), trees=t, throughput=1, rate_bound=1)
>>> lower_with_builder(f, cs.topologies.star(2), cs.AllGather(participants=["h0", "h1"], size=8)).n_messages
2
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ScheduleError
from .program import Program, ProgramBuilder
from .repeat import repeated
from .values import Piece, combine

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform
    from .forest import ForestSchedule, ForestTree

__all__ = ["lower_with_builder"]


def lower_with_builder(forest: ForestSchedule, platform: Platform, collective: Collective | None = None) -> Program:
    """:meth:`ForestSchedule.lower` through :class:`ProgramBuilder`, every round (the reference).

    Parameters
    ----------
    forest : ForestSchedule
    platform : Platform
    collective : Collective, optional
        By default the forest's own; checked by :meth:`ForestSchedule.lower`.

    Returns
    -------
    Program
        Equal to ``forest.lower(platform, collective)``, which builds the
        rounds of the full pipeline after the first few column-wise (the
        tests compare them).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.schedules.forest import ForestSchedule, ForestTree
    >>> p = cs.topologies.star(3)
    >>> t = [ForestTree(r, 1, [(r, s), (s, u)]) for r, s, u in (("h0", "h1", "h2"), ("h1", "h2", "h0"),
    ...                                                        ("h2", "h0", "h1"))]
    >>> f = ForestSchedule(participants=("h0", "h1", "h2"), trees=t, throughput=1, rate_bound=1, chunks=16)
    >>> c = cs.AllGather(participants=["h0", "h1", "h2"], size=1e3)
    >>> lower_with_builder(f, p, c) == f.lower(p, c)
    True
    """
    collective = forest.answering(collective)
    lowering = _Lowering(forest, platform, collective)
    lowering.run(collective.count * forest.chunks)
    return lowering.b.build()


def _repeated_rounds(f: ForestSchedule, platform, collective, items: int) -> Program | None:
    """The program of ``items`` items: a few through the builder, the full pipeline's middle rounds copied.

    Once every stage works (round ``last``, the deepest stage), a round is
    the round before with every piece one item on, and a round's operations
    wait for those of at most ``back = max(last, window)`` rounds before. So
    the builder lowers ``last + back + 1`` items (through the drain);
    :func:`~.repeat.repeated` checks round ``last + back`` (the template)
    against the ``back`` rounds before it, copies it once per further item
    and shifts the drain after the copies. None when there is nothing to copy.
    """
    lowering = _Lowering(f, platform, collective, tags=True)
    back = max(lowering.last, f.window, 1)
    first = lowering.last + back                  # the template round
    copies = items - (first + 1)
    if copies < 1:
        return None
    starts = lowering.run(first + 1)
    prog = lowering.b.build()
    starts.append(prog.n_ops)
    head = starts[first]
    item, step = (np.array(x, dtype=np.int64) for x in zip(*lowering.tags)) if lowering.tags else (None, 0)
    return repeated(prog, head, starts[first + 1] - head, copies, items=1, row_item=item, row_step=step,
                    chunks=f.chunks, back=back)


class _Lowering:
    """One lowering: the builder, each tree's share and its actions by stage, the messages in flight per pair."""

    def __init__(self, f: ForestSchedule, platform, collective, *, tags: bool = False):
        self.f, self.platform, self.base = f, platform, collective.base
        #: per piece row appended, ``(item, chunk step)`` (:func:`~.repeat.shifted_rows`), when asked for
        self.tags: list[tuple[int, int]] | None = [] if tags else None
        series = collective.kind == "series"
        self.b = ProgramBuilder(platform.hosts, denominator=f.denominator(series=series), name=f.algorithm)
        self.sizer = collective.sizer(platform)
        self.position = {p: i for i, p in enumerate(f.participants)}
        self.commutative = getattr(self.base, "commutative", True)
        n = len(f.participants)
        block = self.b.denominator if f.kind == "allgather" else self.b.denominator // n
        # tree j's share of its root's block: [offset, offset + C·length) inside the block's region, C chunks
        self.region: list[tuple[int, int]] = []
        used: dict[str, Fraction] = {}
        for t, share in zip(f.trees, f.shares()):
            first = 0 if f.kind == "allgather" else self.position[t.root] * block
            before = used.get(t.root, Fraction(0))
            used[t.root] = before + share
            self.region.append((first + int(before * block), int(share * block) // f.chunks))
        # the atoms of each tree's piece of a chunk: (offset in it, length)
        units = f.units(series=series)[0] if f.messages == "unit" else [1] * len(f.trees)
        self.atoms: list[list[tuple[int, int]]] = []
        for j, k in enumerate(units):
            length = self.region[j][1]
            cuts = [length * p // k for p in range(k + 1)]
            self.atoms.append([(a, b - a) for a, b in zip(cuts, cuts[1:]) if b > a])
        self.actions = [_actions(f.kind, t) for t in f.trees]
        self.last = max((g for acts in self.actions for g, *_ in acts), default=0)
        self.per_round: dict[tuple[str, str], int] = {}  # messages a pair sends in a full round
        keys = set()
        for j, acts in enumerate(self.actions):
            for g, _, u, v in acts:
                if v is None:
                    continue
                for a in range(len(self.atoms[j])):
                    key = self.group(g, j, a, u, v)
                    if key not in keys:
                        keys.add(key)
                        self.per_round[(u, v)] = self.per_round.get((u, v), 0) + 1
        self.in_flight: dict[tuple[str, str], list[int]] = {}
        #: per round and rank, the receives of the messages sent to it in that round (kept ``window`` rounds)
        self.received: dict[int, dict[str, list[int]]] = {}
        #: a series in rounds paces its own data (module docstring of :mod:`~collsched.schedules.forest`, *Pacing*)
        self.paced = f.messages == "round" and series
        self.held: dict[tuple, Piece] = {}

    def group(self, g: int, j: int, a: int, u: str, v: str) -> tuple:
        """The message a piece goes in, within its round: one per pair, or one per atom and arc of a stage."""
        return (u, v) if self.f.messages == "round" else (g, j, a, u, v)

    def run(self, items: int) -> list[int]:
        """Every item (instance × chunk): in round ``k``, each action of stage ``g`` works on item ``k - g``.

        Returns the id of each round's first operation.
        """
        starts = []
        for k in range(items + self.last):
            starts.append(self.b.n_ops)
            self.received.pop(k - self.f.window - 1, None)  # no send waits for these any more
            out: dict[tuple, list[tuple[Piece, tuple[int, int]]]] = {}
            relays: set[tuple] = set()  # the messages with a piece their sender received (or made of received ones)
            for j, acts in enumerate(self.actions):
                for a in range(len(self.atoms[j])):
                    for g, what, u, v in acts:
                        if 0 <= k - g < items:
                            piece, own = self.act(j, a, k - g, what, u, v)
                            if piece is not None:
                                key = self.group(g, j, a, u, v)
                                out.setdefault(key, []).append((piece, (k - g, self.region[j][1])))
                                if not own:
                                    relays.add(key)
            for key, pieces in out.items():
                u, v = key[-2:]
                self.send(u, v, pieces, k, key not in relays)
        return starts

    def act(self, j: int, a: int, item: int, what: str, u: str, v: str | None) -> tuple[Piece | None, bool]:
        """The piece ``u`` sends to ``v`` (None: none, or ``u`` is the root of an in-tree), and whether it is
        ``u``'s own data (a root's block, a leaf's operand) rather than one it received or combined."""
        inst, chunk = divmod(item, self.f.chunks)
        start, size = self.atoms[j][a]
        offset, length = self.region[j]
        first = offset + chunk * length + start
        rng = (first, first + size)
        key = (j, a, item)
        root = self.f.trees[j].root
        if what == "send":  # all-gather: the root's block, or (all-reduce) the reduced piece the root made
            if self.f.kind == "allreduce":
                return self.held.get((*key, root)), False
            return Piece(self.base.block_of(self.platform, inst, root), *rng), u == root
        # reduce: combine u's operand with what its children sent, then send it to its parent v (None: u is the root)
        own = Piece(self.base.operand(inst, self.position[u]), *rng)
        received = self.held.pop((*key, u), [])
        result = self.combine(u, own, received, (item, self.region[j][1]))
        if v is None:
            self.held[(*key, u)] = result
            return None, False
        self.held.setdefault((*key, v), []).append(result)
        return result, not received

    def send(self, u: str, v: str, tagged: list[tuple[Piece, tuple[int, int]]], k: int, own: bool) -> None:
        pieces = [x for x, _ in tagged]
        if self.tags is not None:
            self.tags.extend(tag for _, tag in tagged)
        sent = self.in_flight.setdefault((u, v), [])
        window = self.f.window * self.per_round[(u, v)]
        after = [sent[-window]] if len(sent) >= window else []
        if own and self.paced:
            after += self.received.get(k - self.f.window, {}).get(u, [])
        size = sum(self.sizer(p.value) * (p.end - p.start) for p in pieces) / self.b.denominator
        op, recv = self.b.send(u, v, pieces, size, after=after, recv_after=())
        sent.append(op)
        if self.paced:
            self.received.setdefault(k, {}).setdefault(v, []).append(recv)

    def combine(self, node: str, own: Piece, received: list[Piece], tag: tuple[int, int]) -> Piece:
        """Combine ``own`` with ``received`` on ``node`` in one computation (in operand order if it matters)."""
        if not received:
            return own
        inputs = [own, *received] if self.commutative else sorted([own, *received], key=lambda x: x.value.a)
        for x, y in zip(inputs, inputs[1:]):
            if not self.commutative and y.value.a != x.value.b + 1:
                raise ScheduleError(f"forest in-tree at {node!r} joins operands {x.value.a}..{x.value.b} and "
                                    f"{y.value.a}..{y.value.b}, which are not adjacent, for a non-commutative "
                                    "reduction", fix="use commutative=True, or trees whose subtrees hold "
                                    "consecutive participants")
        out = Piece(combine(*(x.value for x in inputs)), own.start, own.end)
        cost = self.base.task_cost * (own.end - own.start) * len(received) / self.b.denominator
        self.b.compute(node, inputs, out, cost, after=())
        if self.tags is not None:
            self.tags.extend([tag] * (len(inputs) + 1))
        return out


def _actions(kind: str, tree: ForestTree) -> list[tuple[int, str, str, str | None]]:
    """A tree's actions ``(stage, what, u, v)`` in the order a round runs them.

    ``("send", u, v)`` forwards the piece down the arc ``u→v`` at stage
    ``depth(v) - 1``; ``("reduce", u, parent)`` combines at ``u`` and sends
    up (parent None at the root) at stage ``height(u)``, the arcs of the
    longest path below ``u``. An all-reduce's sends come after the root's
    reduction: stage ``height(root) + depth(v) - 1``. So a piece moves one
    arc per round, and a rank's messages to one peer go in the order the
    pieces reach it in the steady state (a relay does not hold back the
    piece it can send for one that is still on its way).
    """
    acts: list[tuple[int, str, str, str | None]] = []
    top = 0
    if kind != "allgather":
        up = tree.arcs if kind == "reducescatter" else tree.up_arcs
        height: dict[str, int] = {}
        order = [tree.root] + [child for child, _ in up]
        parent = dict(up)
        for u in reversed(order):  # children before parents
            height.setdefault(u, 0)
            if u in parent:
                height[parent[u]] = max(height.get(parent[u], 0), height[u] + 1)
            acts.append((height[u], "reduce", u, parent.get(u)))
        top = height[tree.root]
    if kind != "reducescatter":
        depth = {tree.root: 0}
        for u, v in tree.arcs:
            depth[v] = depth[u] + 1
            acts.append((top + depth[v] - 1, "send", u, v))
    return acts
