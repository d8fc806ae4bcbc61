"""Forest schedules: weighted spanning trees per root, each carrying its share of the root's block, pipelined.

A :class:`ForestSchedule` is what a packing of spanning trees (ForestColl's,
or :func:`collsched.algorithms.gpu.plan.plan_forest`) becomes: for every
participant ``r`` some trees rooted at ``r``, of weights ``w`` (bytes/s)
that add up to the stream rate ``x`` of each root, so tree ``T`` carries the
fraction ``w / x`` of ``r``'s block. Each block is also cut into ``chunks``
equal pieces that are pipelined through the trees.

Lowering, for every instance ``t`` of the collective (a
:class:`~collsched.collectives.Series` runs its instances one after the
other through the same trees) and every chunk ``c``:

* **allgather** — tree ``T`` (root ``r``) carries the piece of ``r``'s block
  ``m[r→*]@t`` that is the ``c``-th chunk of its share; each arc ``u→v``
  sends it once ``u`` has it (the receive that brought it);
* **reducescatter** — the trees are in-trees (arcs ``(child, parent)``),
  tree ``T`` of root ``r`` carries its share of the fragment
  ``[r/N, (r+1)/N)`` of the vectors (``N`` participants, positions in the
  collective's order): a node combines its own operand's piece with the
  partial results of its children, once all came, in one computation
  (``task_cost`` pro rata of the piece, for each child) and sends the
  result to its parent; the root ends with the piece of the full reduction;
* **allreduce** — the trees are out-trees: first the reduce-scatter phase on
  the reversed trees (fragment ``[r/N, (r+1)/N)`` of the vector reduced
  towards ``r``), then the all-gather phase of the reduced piece on the
  trees, chunk by chunk (so the phases of different chunks overlap).

Non-commutative reductions (``commutative=False``) keep operand order: a
node may only combine adjacent ranges of operands, so every subtree of every
in-tree must hold a contiguous range of positions (a chain in participant
order does; a tree packing in general does not), or lowering raises.

**Stages.** The messages are issued in rounds: in round ``k`` every arc
at depth ``d`` of its tree (``d = 1`` for the root's arcs) sends the piece
of item ``k - d + 1`` (items are instance × chunk, in order), so a piece
moves one arc per round and each pair of ranks sends its pieces in the
order they reach its sender in the steady state. Issued instead item by
item, tree after tree, a relay's messages to one peer wait for a piece of
a later tree that is still on its way while an earlier tree's piece is
there: ring trees on one NVSwitch (``dgx2(1)``, no latency) then ran at
0.47 of their rate under ``Fluid`` (window 1; 0.31 with window 2); in
rounds, at their rate (float noise). Reductions go up in the same way, a
node at height ``h`` (arcs of the longest path below it) combining and
sending in round ``item + h``; an all-reduce's all-gather phase starts at
the root's height.

**Multi-port, and weighted sharing.** Nothing orders a rank's sends to
different peers: they run at once, and the network divides each link among
them. ``Fluid`` shares a link equally among the messages flowing on it,
whatever their trees' weights. Two ways of packing pieces into messages
(:attr:`ForestSchedule.messages`) live with that:

* ``"round"`` (what :func:`~collsched.algorithms.gpu.plan.plan_forest`
  gives a series, and one all-reduce): in each round, a rank sends each
  peer **one** message carrying every piece that round has for that pair
  (all trees, all stages), each tree's share of a chunk whole. A round's
  message waits for the receives that brought its pieces, which came in
  the round before (in a series, a message of its sender's own data for
  the receives of the round before: *Pacing* below), so the rounds follow one another as in a synchronous
  pipeline; once it is full every round carries one item's load on every
  link, and takes ``1 / x`` of an item plus the latency a message pays
  before it flows, provided equal shares per pair do not starve a pair
  whose upstream pieces come late (series of 1 GB collectives, full
  pipeline, ``benchmarks/bench_gpu_forest_schedule.py``: 0.99908 to
  0.99997 of the claimed rate, the same paced or not, on ``dgx2(2)``, ``ndv2(2)``,
  ``dgx_a100(2)``, ``mi250(2)`` and the ``ndv2(4)`` all-gather and
  reduce-scatter, but 0.972 for the ``ndv2(4)`` all-reduce, 1.00003 as
  units; on a random mesh an all-reduce fell to 0.95, where units reach the
  rate exactly: ``plan_forest`` says which it picks). Equal shares per
  pair are not shares in proportion to the pairs' loads: on random
  platform 2738 (all-gather) ``P0→P3`` and ``P1→P3`` fill the link
  ``P4→P3`` together, each at half of it until the smaller ends, then the
  larger at what ``P1→P4`` leaves it beside ``P1→P0``, less than the link:
  each round lasted 1.0536 of a period, 0.94915 of the claim
  (:func:`~collsched.algorithms.gpu.plan.round_time` finds such rounds;
  ``plan_forest`` sends that series as units, at its claim). A
  program has one message per pair and round: on ``mi250(2)`` an
  all-reduce series of 80 sends 13,917 messages where unit messages took
  about 5 million.
* ``"unit"`` (one all-gather or reduce-scatter, cut in many chunks): each
  tree's piece is sent as *units*, messages of one size (the greatest
  common divisor of the trees' pieces), ``k`` of them for a tree of ``k``
  units, one per arc. A pair then has as many messages flowing as its share
  of the link, and equal shares per message are shares in proportion to
  the trees' weights; pieces move on as soon as they arrive, which hides
  the route latencies between rounds (1 GB AllGather on ``dgx2(2)`` in 256
  chunks: 7.84 ms, against 8.38 ms in rounds). When the units of a root
  would be more than :data:`MAX_UNITS`, a tree of share ``s`` of one
  collective is cut into ``max(1, round(s · MAX_UNITS))`` messages of
  nearly equal sizes instead; a series's units stay exact, for those
  counts are not in proportion to the weights, and neither are the rates
  the links' equal shares then give the trees (all-reduce series on random
  platforms 14950, 76, 89, 306, 523 and 606 of
  ``tests/steady_state/random_platforms.py`` settled at 0.978 to 1.00008
  of their claim so; :func:`~collsched.algorithms.gpu.plan.plan_forest`
  lowers a series whose exact units are too many in rounds).

A pair keeps :attr:`ForestSchedule.window` rounds of its messages in
flight (the ``m``-th waits for the end of the ``(m - window·n)``-th, ``n``
the messages the pair sends per round). Receives are posted at once; a
send waits for the receives (or the combinations) that gave its rank its
pieces. A node of an in-tree combines its operand's piece with all its
children's in one computation (``task_cost`` pro rata of the piece, once
per operand combined).

**Pacing** (a series in rounds). A message that carries only its sender's
own data (a root's block, a leaf's operand: nothing it received) also waits
for the receives, on its sender, of the messages sent to it ``window``
rounds before; a message with a piece its sender received or combined
already waits for the receive (or computation) that gave it. Without that
wait, nothing but its own pair held a root back: the roots ran ahead of the
relays and took the links' equal shares from them (random platform 191802
of ``tests/steady_state/random_platforms.py``, all-gather: 0.87709 of the
claimed rate under ``Fluid``; paced, the claim to float noise: the test
``test_random_platform_191802_allgather_runs_at_its_claim``). Unit messages
are not paced (a unit's equal share is already its tree's share, and paced
units fell below the claimed rate of a random all-reduce, seed 33), nor is
one collective (its roots run ahead by its chunks at most, and its claim is
a makespan, not a rate). So a root's units of its own data may run ahead of
the pipeline through a whole series: on random platform 3878 (all-reduce,
640 instances) ``P5`` starts sending the last instance to ``P1`` at
1406.5 s, where the series takes 10241.1 s. The instances still complete
one claimed period apart, but when such a root is done depends on the
series' length, and so does the clean-up:
the makespans' marginal rate need not settle (0.99999981 of the claim
between 320 and 640 instances there; the test
``test_random_platform_allreduce_units_complete_at_their_claim``).

Examples
--------
Ring trees on a 3-host star: every host forwards the blocks of the others, in 2 chunks (3 rounds).

>>> from fractions import Fraction
>>> import collsched as cs
>>> p = cs.topologies.star(3)
>>> ring = [ForestTree(r, Fraction(1), ((r, s), (s, t))) for r, s, t in
...         (("h0", "h1", "h2"), ("h1", "h2", "h0"), ("h2", "h0", "h1"))]
>>> f = ForestSchedule(participants=("h0", "h1", "h2"), trees=ring, throughput=1, rate_bound=1, chunks=2)
>>> c = cs.AllGather(participants=["h0", "h1", "h2"], size=1e3)
>>> prog = f.lower(p, c)
>>> prog.n_messages, prog.denominator
(9, 2)
>>> cs.validate(p, c, prog)

In rounds, a pair's pieces of both trees that use it go in one message; as
units, one message per tree and arc:

>>> import dataclasses
>>> dataclasses.replace(f, messages="unit").lower(p, c).n_messages
12
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import ScheduleError
from .base import Schedule
from .forest_rounds import _actions, _repeated_rounds, lower_with_builder
from .program import Program

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform

__all__ = ["ForestTree", "ForestSchedule", "FOREST_KINDS", "MESSAGES", "MAX_SHARE_DENOMINATOR", "MAX_UNITS",
           "lower_with_builder"]

#: The collectives a forest schedule carries.
FOREST_KINDS = ("allgather", "reducescatter", "allreduce")
#: How a forest's pieces are packed into messages (module docstring, *Messages*).
MESSAGES = ("round", "unit")
#: The least common multiple of the denominators of the trees' shares is kept at most this (see ``plan_forest``).
MAX_SHARE_DENOMINATOR = 10**6
#: At most this many unit messages per root, arc and item (module docstring).
MAX_UNITS = 32


@dataclass(frozen=True)
class ForestTree:
    """A weighted spanning tree of the forest.

    Parameters
    ----------
    root : str
        The participant whose block (all-gather) or result fragment
        (reduce-scatter) the tree carries.
    weight : Fraction
        Bytes/s of the root's stream through this tree (exact).
    arcs : sequence of (str, str)
        Out-trees (all-gather, all-reduce): ``(parent, child)``; in-trees
        (reduce-scatter): ``(child, parent)``, data flowing to the root.
        Parents come before children (breadth first).
    up : sequence of (str, str), optional
        All-reduce only: the in-tree ``(child, parent)`` of the
        reduce-scatter phase, rooted at ``root`` too; by default the reversed
        ``arcs``.

    Examples
    --------
    >>> t = ForestTree("h0", "1/2", [("h0", "h1"), ("h1", "h2")])
    >>> t.weight, t.arcs, t.depth(), t.up_arcs
    (Fraction(1, 2), (('h0', 'h1'), ('h1', 'h2')), 2, (('h1', 'h0'), ('h2', 'h1')))
    """

    root: str
    weight: Fraction
    arcs: tuple[tuple[str, str], ...]
    up: tuple[tuple[str, str], ...] | None = None

    def __post_init__(self):
        object.__setattr__(self, "weight", Fraction(self.weight))
        object.__setattr__(self, "arcs", tuple((str(u), str(v)) for u, v in self.arcs))
        if self.up is not None:
            object.__setattr__(self, "up", tuple((str(u), str(v)) for u, v in self.up))

    @property
    def up_arcs(self) -> tuple[tuple[str, str], ...]:
        """The in-tree of an all-reduce's reduce-scatter phase: :attr:`up`, or the reversed arcs."""
        return self.up if self.up is not None else tuple((v, u) for u, v in self.arcs)

    def depth(self, inward: bool = False) -> int:
        """Arcs on the longest path from the root.

        Parameters
        ----------
        inward : bool
            The arcs are ``(child, parent)`` (an in-tree).

        Returns
        -------
        int
            0 for a tree of its root alone.

        Examples
        --------
        >>> ForestTree("a", 1, [("b", "a"), ("c", "b")]).depth(inward=True)
        2
        """
        depth = {self.root: 0}
        for u, v in self.arcs:
            parent, child = (v, u) if inward else (u, v)
            depth[child] = depth.get(parent, 0) + 1
        return max(depth.values())


@dataclass(frozen=True)
class ForestSchedule(Schedule):
    """Weighted spanning trees per root, lowered as pieces pipelined in ``chunks`` (module docstring).

    Attributes
    ----------
    kind : {"allgather", "reducescatter", "allreduce"}
        The collective it carries (see the module docstring for which way the arcs point).
    participants : tuple of str
        ``P_0 .. P_{N-1}``, in the collective's order.
    trees : tuple of ForestTree
        At least one per participant; the weights of a root's trees add up
        to at least :attr:`throughput`.
    throughput : Fraction
        Bytes/s of every root's stream that the trees carry (exact): the
        rate the schedule claims for its kind (see :meth:`operations_per_second`).
    rate_bound : Fraction
        The cut bound on that rate (exact; ForestColl's x*): no schedule
        streams every root faster under the multi-port model.
    chunks : int
        Pieces each tree's share of a block is cut into, pipelined.
    window : int
        Rounds of messages from one rank to another in flight at once (module docstring).
    messages : {"round", "unit"}
        How the pieces are packed into messages (module docstring, *Messages*):
        one message per pair of ranks and round, or unit messages per tree
        and arc.

    Raises
    ------
    ScheduleError
        An unknown kind, a tree rooted at a non-participant or that does not
        span the participants (or has a node with two parents), a
        participant without a tree, a weight <= 0, a root's weights adding
        up to less than :attr:`throughput`, the throughput above the bound,
        or ``chunks``, ``window`` not an integer >= 1.

    Examples
    --------
    >>> t = [ForestTree("h0", 2, [("h0", "h1")]), ForestTree("h1", 2, [("h1", "h0")])]
    >>> f = ForestSchedule(participants=("h0", "h1"), trees=t, throughput=2, rate_bound=2)
    >>> f.shape, f.chunks, f.window, f.depth()
    ('forest', 1, 1, 1)
    >>> ForestSchedule(participants=("h0", "h1"), trees=t[:1], throughput=2, rate_bound=2)
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: forest participant 'h1' roots no tree (give every participant at least one tree)
    >>> ForestSchedule(participants=("h0", "h1", "h2"), trees=t, throughput=2, rate_bound=2)
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: forest tree 0 (root 'h0') does not reach participant 'h2' (a tree must span every participant)
    """

    kind: str = "allgather"
    participants: tuple[str, ...] = ()
    trees: tuple[ForestTree, ...] = ()
    throughput: Fraction = Fraction(0)
    rate_bound: Fraction = Fraction(0)
    chunks: int = 1
    window: int = 1
    messages: str = "round"
    shape = "forest"

    def __post_init__(self):
        super().__post_init__()
        if self.kind not in FOREST_KINDS:
            raise ScheduleError(f"forest kind {self.kind!r} is not one of {', '.join(FOREST_KINDS)}")
        object.__setattr__(self, "participants", tuple(self.participants))
        object.__setattr__(self, "trees", tuple(t if isinstance(t, ForestTree) else ForestTree(*t)
                                                for t in self.trees))
        for name in ("throughput", "rate_bound"):
            object.__setattr__(self, name, Fraction(getattr(self, name)))
        for name in ("chunks", "window"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ScheduleError(f"forest {name} is {value!r}", fix="give an integer >= 1")
        if self.messages not in MESSAGES:
            raise ScheduleError(f"forest messages {self.messages!r} is not one of {', '.join(MESSAGES)}")
        if not self.participants:
            return  # an empty forest (the JSON reader's template)
        members = set(self.participants)
        for j, t in enumerate(self.trees):
            self._check_tree(j, t, members)
        for r in self.participants:
            total = self.root_rate(r)
            if not total:
                raise ScheduleError(f"forest participant {r!r} roots no tree",
                                    fix="give every participant at least one tree")
            if total < self.throughput:
                raise ScheduleError(f"forest trees of root {r!r} carry {total} bytes/s, less than the throughput "
                                    f"{self.throughput}", fix="lower the throughput to the least root's total")
        if self.throughput > self.rate_bound:
            raise ScheduleError(f"forest throughput {self.throughput} is above its bound {self.rate_bound}")

    def _check_tree(self, j: int, t: ForestTree, members: set[str]) -> None:
        where = f"forest tree {j} (root {t.root!r})"
        if t.root not in members:
            raise ScheduleError(f"{where} is rooted at a non-participant", fix="root every tree at a participant")
        if t.weight <= 0:
            raise ScheduleError(f"{where} has weight {t.weight}", fix="give a positive weight")
        if t.up is not None and self.kind != "allreduce":
            raise ScheduleError(f"{where} has an up tree, which only an allreduce uses", fix="leave 'up' out")
        _check_spans(where, t.root, t.arcs, self.kind == "reducescatter", self.participants, members)
        if t.up is not None:
            _check_spans(f"{where} up", t.root, t.up, True, self.participants, members)

    def __eq__(self, other):
        if not isinstance(other, ForestSchedule):
            return NotImplemented
        fields = ("kind", "participants", "trees", "throughput", "rate_bound", "chunks", "window", "messages",
                  "algorithm", "bound", "status", "message")
        return all(getattr(self, f) == getattr(other, f) for f in fields) and dict(self.params) == dict(other.params)

    __hash__ = None  # type: ignore[assignment]

    def root_rate(self, root: str) -> Fraction:
        """Bytes/s the trees of ``root`` carry: the sum of their weights.

        Parameters
        ----------
        root : str
            A participant.

        Returns
        -------
        Fraction
            0 if no tree has that root.

        Examples
        --------
        >>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]),
        ...      ForestTree("b", 1, [("b", "a")])]
        >>> ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1).root_rate("a")
        Fraction(1, 1)
        """
        return sum((t.weight for t in self.trees if t.root == root), Fraction(0))

    def shares(self) -> list[Fraction]:
        """Per tree, the fraction of its root's block it carries: its weight over its root's total.

        Returns
        -------
        list of Fraction
            In the order of :attr:`trees`; a root's add up to 1.

        Examples
        --------
        >>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]),
        ...      ForestTree("b", 1, [("b", "a")])]
        >>> ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1).shares()
        [Fraction(1, 3), Fraction(2, 3), Fraction(1, 1)]
        """
        totals = {r: self.root_rate(r) for r in self.participants}
        return [t.weight / totals[t.root] for t in self.trees]

    def depth(self) -> int:
        """Arcs a chunk crosses from its root to the farthest participant (twice that for an all-reduce).

        Returns
        -------
        int
            The largest :meth:`ForestTree.depth` (doubled for an all-reduce: up, then down).

        Examples
        --------
        >>> t = [ForestTree("a", 1, [("a", "b"), ("b", "c")]), ForestTree("b", 1, [("b", "a"), ("b", "c")]),
        ...      ForestTree("c", 1, [("c", "a"), ("c", "b")])]
        >>> ForestSchedule(participants=("a", "b", "c"), trees=t, throughput=1, rate_bound=1).depth()
        2
        """
        if self.kind == "allreduce":
            return max((t.depth() + ForestTree(t.root, t.weight, t.up_arcs).depth(inward=True) for t in self.trees),
                       default=0)
        return max((t.depth(inward=self.kind == "reducescatter") for t in self.trees), default=0)

    def units(self, *, series: bool = False) -> tuple[list[int], bool]:
        """Per tree, the unit messages its share is sent as, per arc and item; and whether the units are equal.

        Parameters
        ----------
        series : bool
            The units of a :class:`~collsched.collectives.Series`: always
            exact. A series claims a rate, and ``Fluid`` gives each tree its
            weight's share of a link only when its messages are in
            proportion to its weight (module docstring, *Multi-port*).

        Returns
        -------
        (list of int, bool)
            Exact units (``share / g``, ``g`` the greatest common divisor of
            the shares) for a series, or when no root has more than
            :data:`MAX_UNITS` of them (True); else
            ``max(1, round(share · MAX_UNITS))`` (False).

        Examples
        --------
        >>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]),
        ...      ForestTree("b", 1, [("b", "a")])]
        >>> ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1).units()
        ([1, 2, 3], True)
        >>> t = [ForestTree("a", "1/40", [("a", "b")]), ForestTree("a", "39/40", [("a", "b")]),
        ...      ForestTree("b", 1, [("b", "a")])]
        >>> f = ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1)
        >>> f.units(), f.units(series=True)
        (([1, 31, 32], False), ([1, 39, 40], True))
        """
        shares = self.shares()
        lcm = math.lcm(*(x.denominator for x in shares))
        g = Fraction(math.gcd(*(int(x * lcm) for x in shares)), lcm)
        exact = [int(x / g) for x in shares]
        per_root: dict[str, int] = {}
        for t, k in zip(self.trees, exact):
            per_root[t.root] = per_root.get(t.root, 0) + k
        if series or max(per_root.values(), default=0) <= MAX_UNITS:
            return exact, True
        return [max(1, round(x * MAX_UNITS)) for x in shares], False

    def denominator(self, *, series: bool = False) -> int:
        """The program's unit: lcm of the shares' denominators × ``chunks`` (and more: see Returns).

        Parameters
        ----------
        series : bool
            The program of a series (its units are exact: :meth:`units`).

        Returns
        -------
        int
            Every piece the lowering sends is a whole number of these units;
            times ``N`` for reductions (a result block is ``1/N`` of the
            vector), times :data:`MAX_UNITS` when the units are not equal.

        Examples
        --------
        >>> t = [ForestTree("a", "1/3", [("a", "b")]), ForestTree("a", "2/3", [("a", "b")]),
        ...      ForestTree("b", 1, [("b", "a")])]
        >>> ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1, chunks=4).denominator()
        12
        """
        lcm = math.lcm(*(s.denominator for s in self.shares()))
        equal = self.units(series=series)[1] if self.trees and self.messages == "unit" else True
        return lcm * self.chunks * (1 if self.kind == "allgather" else len(self.participants)) * \
            (1 if equal else MAX_UNITS)

    def block_bytes(self, collective: Collective) -> float:
        """Bytes of one root's stream per instance: the block (all-gather, reduce-scatter) or the vector's ``1/N``.

        Parameters
        ----------
        collective : Collective
            Of the schedule's kind, or a series of one.

        Returns
        -------
        float

        Examples
        --------
        >>> import collsched as cs
        >>> t = [ForestTree("a", 1, [("a", "b")]), ForestTree("b", 1, [("b", "a")])]
        >>> f = ForestSchedule(participants=("a", "b"), trees=t, throughput=1, rate_bound=1)
        >>> f.block_bytes(cs.AllGather(participants=["a", "b"], size=8))
        8.0
        """
        base = collective.base
        return base.size / len(self.participants) if base.kind == "allreduce" else float(base.size)

    def operations_per_second(self, collective: Collective | None = None) -> Fraction:
        """The rate of a long series this schedule claims: operations per second (exact).

        Parameters
        ----------
        collective : Collective, optional
            By default the schedule's own.

        Returns
        -------
        Fraction

        Every root streams :attr:`throughput` bytes/s: ``throughput / block``
        operations per second, where the block is :meth:`block_bytes`. For
        an all-reduce the two phases share the links, and
        :attr:`throughput` is already the rate of the pair (the planner
        computes it from both phases' loads).

        Examples
        --------
        >>> import collsched as cs
        >>> t = [ForestTree("a", 100, [("a", "b")]), ForestTree("b", 100, [("b", "a")])]
        >>> f = ForestSchedule(participants=("a", "b"), trees=t, throughput=100, rate_bound=100)
        >>> f.operations_per_second(cs.AllGather(participants=["a", "b"], size=8))
        Fraction(25, 2)
        """
        collective = self.answering(collective)
        return self.throughput / Fraction(self.block_bytes(collective))

    def stage_arcs(self) -> list[tuple[int, int, str, str]]:
        """Every message a tree sends per item (instance × chunk), with the round it goes in (module docstring).

        Returns
        -------
        list of (int, int, str, str)
            ``(stage, tree index, sender, receiver)``: the message of item
            ``i`` goes in round ``i + stage``; it carries the tree's share of
            the item's piece (a root's block, or its fragment of the vector).

        Examples
        --------
        >>> t = [ForestTree("a", 1, [("a", "b"), ("b", "c")]), ForestTree("b", 1, [("b", "a"), ("b", "c")]),
        ...      ForestTree("c", 1, [("c", "a"), ("a", "b")])]
        >>> ForestSchedule(participants=("a", "b", "c"), trees=t, throughput=1, rate_bound=1).stage_arcs()[:3]
        [(0, 0, 'a', 'b'), (1, 0, 'b', 'c'), (0, 1, 'b', 'a')]
        >>> ForestSchedule(kind="allreduce", participants=("a", "b", "c"), trees=t, throughput=1,
        ...                rate_bound=1).stage_arcs()[:3]
        [(0, 0, 'c', 'b'), (1, 0, 'b', 'a'), (2, 0, 'a', 'b')]
        """
        return [(g, j, u, v) for j, t in enumerate(self.trees) for g, _, u, v in _actions(self.kind, t)
                if v is not None]

    def lower(self, platform: Platform, collective: Collective | None = None) -> Program:
        """The program of ``collective`` (one instance or a series) through the trees, as the module docstring says.

        Parameters
        ----------
        platform : Platform
            Its hosts are the ranks.
        collective : AllGather, ReduceScatter or AllReduce, or a Series of one
            By default the schedule's own.

        Returns
        -------
        Program
            Denominator :meth:`denominator`. The full pipeline's rounds after
            the first few are copied column-wise (:func:`~collsched.schedules.repeat.repeated`):
            the program :func:`lower_with_builder` builds.

        Raises
        ------
        ScheduleError
            The collective is not of the schedule's kind or has other
            participants, or (non-commutative) an in-tree joins operands
            that are not adjacent.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2)
        >>> t = [ForestTree("h0", 1, [("h0", "h1")]), ForestTree("h1", 1, [("h1", "h0")])]
        >>> f = ForestSchedule(participants=("h0", "h1"), trees=t, throughput=1, rate_bound=1)
        >>> c = cs.Series(cs.AllGather(participants=["h0", "h1"], size=8), count=3)
        >>> f.lower(p, c)
        <Program '': 2 ranks, 12 ops, 6 messages>
        >>> f.lower(p, cs.AllGather(participants=["h1", "h0"], size=8))
        Traceback (most recent call last):
        ...
        collsched.errors.ScheduleError: the forest's participants are ('h0', 'h1'), the allgather's ('h1', 'h0') (plan a forest for this collective)
        """
        collective = self.answering(collective)
        base = collective.base
        if base.kind != self.kind:
            raise ScheduleError(f"a forest schedule of {self.kind} cannot carry an {base.kind}",
                                fix=f"plan a forest for the {base.kind}")
        if tuple(base.participants) != self.participants:
            raise ScheduleError(f"the forest's participants are {self.participants}, the {base.kind}'s "
                                f"{tuple(base.participants)}", fix="plan a forest for this collective")
        items = collective.count * self.chunks
        fast = _repeated_rounds(self, platform, collective, items)
        return fast if fast is not None else lower_with_builder(self, platform, collective)


def _check_spans(where: str, root: str, arcs, inward: bool, participants, members: set[str]) -> None:
    """Raise unless ``arcs`` (parents first) form a tree rooted at ``root`` over exactly the participants."""
    reached = {root}
    for a, b in arcs:
        parent, child = (b, a) if inward else (a, b)
        if parent not in reached:
            raise ScheduleError(f"{where}: arc {(a, b)!r} comes before its parent {parent!r} is reached",
                                fix="list arcs parents first")
        if child in reached:
            raise ScheduleError(f"{where}: node {child!r} has two parents")
        reached.add(child)
    missing = [p for p in participants if p not in reached]
    if missing:
        raise ScheduleError(f"{where} does not reach participant {missing[0]!r}",
                            fix="a tree must span every participant")
    stray = sorted(reached - members)
    if stray:
        raise ScheduleError(f"{where} names {stray[0]!r}, which is not a participant",
                            fix="trees join participants only (switches and other hosts forward on routes)")
