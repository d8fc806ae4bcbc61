"""Lowerings that copy a periodic middle column-wise (schedules/repeat.py) against the builder's, program for program.

Claims checked: a series through a tree (every kind a tree carries, segments,
hierarchical trees) and a forest's pipeline (all-gather, reduce-scatter,
all-reduce; rounds or units; windows 1 to 3; commutative or not; one
instance in many chunks or a series) lower to the very program
:class:`~collsched.schedules.program.ProgramBuilder` builds, and take the
copying path to do it; :func:`~collsched.schedules.repeat.repeated` refuses
what is not periodic; the builder's faster appending builds what the
straightforward one did.
"""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

import collsched as cs
from collsched.errors import ScheduleError
from collsched.schedules import ForestSchedule, ForestTree, TreeSchedule
from collsched.schedules import forest as forest_module
from collsched.schedules import steps as steps_module
from collsched.schedules import trees as trees_module
from collsched.schedules.program import COMPUTE, PREVIOUS, RECV, ProgramBuilder, piece_row
from collsched.schedules.repeat import repeated
from collsched.schedules.values import Piece, as_piece, block, partial, reduced


def random_tree(rng: random.Random, hosts: list[str]) -> TreeSchedule:
    """A random spanning tree of ``hosts`` rooted at the first, children in random order."""
    order = hosts[1:]
    rng.shuffle(order)
    children: dict[str, list[str]] = {}
    placed = [hosts[0]]
    for h in order:
        children.setdefault(rng.choice(placed), []).append(h)
        placed.append(h)
    return TreeSchedule(root=hosts[0], children=children, segments=rng.randint(1, 3), algorithm="random_tree")


def tree_collective(rng: random.Random, kind: str, hosts: list[str]):
    size = float(rng.choice([1e3, 5e5, 1e6]))
    if kind == "broadcast":
        return cs.Broadcast(source=hosts[0], targets=hosts, size=size)
    if kind == "scatter":
        return cs.Scatter(source=hosts[0], targets=hosts, size=size)
    if kind == "gather":
        return cs.Gather(sources=hosts, target=hosts[0], size=size)
    target = rng.choice(hosts)  # the root of a reduce tree may differ from the target
    return cs.Reduce(participants=hosts, target=target, size=size, task_cost=size)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("kind", ["broadcast", "scatter", "gather", "reduce"])
def test_series_through_a_tree_copy_their_instances(seed, kind):
    rng = random.Random(seed)
    p = cs.topologies.star(rng.randint(3, 9))
    tree = random_tree(rng, list(p.hosts))
    c = cs.Series(tree_collective(rng, kind, list(p.hosts)), count=rng.randint(4, 9))
    lowering = trees_module._checked_lowering(tree, c)
    small, starts = trees_module._with_builder(tree, lowering, p, c, trees_module._SMALL_SERIES)
    head = starts[-1]
    assert repeated(small, head, small.n_ops - head, c.count - trees_module._SMALL_SERIES, items=1) is not None
    fast = tree.lower(p, c)
    assert fast == trees_module.lower_with_builder(tree, p, c)
    cs.validate(p, c, fast)


@pytest.mark.parametrize("algorithm", ["binomial", "linear"])
@pytest.mark.parametrize("kind", ["broadcast", "scatter", "gather", "reduce"])
def test_planned_trees(algorithm, kind):
    p = cs.topologies.hypercube(3)
    c = cs.Series(tree_collective(random.Random(1), kind, list(p.hosts)), count=5)
    s = cs.plan(p, c, algorithm=algorithm)
    assert s.lower(p, c) == trees_module.lower_with_builder(s, p, c)


def test_hierarchical_tree_series():
    p = cs.topologies.star(6)
    h = list(p.hosts)
    tree = TreeSchedule(root="h0", children={"h0": ("h1", "h3"), "h1": ("h2",), "h3": ("h4", "h5")},
                        clusters=(("h0", "h1", "h2"), ("h3", "h4", "h5")),
                        intra={"h0": "pipelined_chain:2", "h3": "scatter_allgather"})
    c = cs.Series(cs.Broadcast(source="h0", targets=h, size=1e6), count=6)
    fast = tree.lower(p, c)
    assert fast == trees_module.lower_with_builder(tree, p, c)
    cs.validate(p, c, fast)


def chain_in_trees(hosts):
    """In-trees whose subtrees are consecutive participants (valid for non-commutative reductions)."""
    out = []
    for r, root in enumerate(hosts):
        left = [(hosts[i], hosts[i + 1]) for i in range(r - 1, -1, -1)]   # (child, parent), parents first
        right = [(hosts[i], hosts[i - 1]) for i in range(r + 1, len(hosts))]
        out.append(ForestTree(root, 1, tuple(left + right)))
    return out


def forest_cases():
    """(name, platform, collective, forest): planned forests and hand-made chains, seeded."""
    for seed in range(4):
        rng = random.Random(seed)
        p = cs.topologies.hypercube(2) if seed % 2 else cs.topologies.star(rng.randint(3, 5))
        h = list(p.hosts)
        for kind, make in (("allgather", cs.AllGather), ("reducescatter", cs.ReduceScatter),
                           ("allreduce", cs.AllReduce)):
            base = make(participants=h, size=float(rng.choice([1e3, 1e6])))
            count = rng.choice([1, 6])
            c = base if count == 1 else cs.Series(base, count=count)
            f = cs.plan(p, c, algorithm="forest", chunks=rng.choice([9, 16]))
            f = dataclasses.replace(f, window=rng.randint(1, 3), messages=rng.choice(["round", "unit"]))
            yield f"{kind}-{seed}", p, c, f
    p = cs.topologies.star(4)
    h = list(p.hosts)
    rs = cs.ReduceScatter(participants=h, size=1e3, commutative=False)
    f = ForestSchedule(kind="reducescatter", participants=tuple(h), trees=chain_in_trees(h), throughput=1,
                       rate_bound=1, chunks=9, window=2)
    yield "reducescatter-ordered", p, rs, f


FORESTS = {name: rest for name, *rest in forest_cases()}


@pytest.mark.parametrize("name", list(FORESTS))
def test_forest_pipelines_copy_their_full_rounds(name):
    p, c, f = FORESTS[name]
    items = c.count * f.chunks
    fast = forest_module._repeated_rounds(f, p, c, items)
    assert fast is not None  # the copying path, not the builder's
    assert fast == f.lower(p, c) == forest_module.lower_with_builder(f, p, c)
    cs.validate(p, c, fast)


def test_short_pipelines_go_through_the_builder():
    p = cs.topologies.star(3)
    h = list(p.hosts)
    ring = [ForestTree(r, 1, ((r, s), (s, t))) for r, s, t in (("h0", "h1", "h2"), ("h1", "h2", "h0"),
                                                                ("h2", "h0", "h1"))]
    f = ForestSchedule(participants=tuple(h), trees=ring, throughput=1, rate_bound=1, chunks=2)
    c = cs.AllGather(participants=h, size=1e3)
    assert forest_module._repeated_rounds(f, p, c, 2) is None
    assert f.lower(p, c) == forest_module.lower_with_builder(f, p, c)


def relay(count: int, *, odd: int | None = None):
    """Instances of a relay a → b → c; instance ``odd`` sends b → a instead (breaks the period)."""
    b = ProgramBuilder(["a", "b", "c"])
    starts = []
    for t in range(count):
        starts.append(b.n_ops)
        b.send("a", "b", [block(t, 0, 2)], size=8)
        b.send("b", "c" if t != odd else "a", [block(t, 0, 2)], size=8)
    return b.build(), starts


def test_repeated_equals_the_longer_run():
    small, starts = relay(3)
    for copies in (0, 1, 5):
        assert repeated(small, starts[2], starts[2] - starts[1], copies, items=1) == relay(3 + copies)[0]


def test_repeated_refuses_what_is_not_periodic():
    small, starts = relay(3, odd=1)
    assert repeated(small, starts[2], starts[2] - starts[1], 4, items=1) is None
    small, starts = relay(3)
    period = starts[2] - starts[1]
    assert repeated(small, starts[1], period, 4, items=2) is None            # pieces do not move on by 2
    assert repeated(small, starts[2], period, 4, items=1, back=2) is not None
    assert repeated(small, starts[2], period, 4, items=1, back=3) is None    # no third period before
    assert repeated(small, starts[2], period - 1, 4, items=1) is None        # not a period


class ReferenceBuilder(ProgramBuilder):
    """The builder's appending as it was written before it was made faster (piece_row on as_piece, sets)."""

    def _append(self, rank, kind, peer, msg, size, pieces, after):
        i = len(self._rank)
        rows = [piece_row(as_piece(x, self.denominator), self._sets) for x in pieces]
        deps = set() if after is PREVIOUS and self._last[rank] < 0 else \
            {self._last[rank]} if after is PREVIOUS else {int(d) for d in after}
        if kind != RECV:
            uses = rows[:-1] if kind == COMPUTE else rows
            deps.update(p for p in (self._producer.get((rank, row)) for row in uses) if p is not None)
        if kind == COMPUTE and rows:
            self._producer[(rank, rows[-1])] = i
        self._rank.append(rank)
        self._kind.append(kind)
        self._peer.append(peer)
        self._msg.append(msg)
        self._size.append(float(size))
        self._deps.append(tuple(sorted(deps)))
        self._pieces.append(rows)
        self._last[rank] = i
        return i


@pytest.mark.parametrize("seed", range(20))
def test_builder_builds_what_the_straightforward_one_did(seed):
    rng = random.Random(seed)
    ranks = [f"r{i}" for i in range(rng.randint(2, 5))]
    builders = [ProgramBuilder(ranks, denominator=4), ReferenceBuilder(ranks, denominator=4)]
    values = [block(0, 0, 1), block(1, 2, -1), partial(0, 0, 1), partial(0, 2, 2), reduced(0, [0, 70]),
              reduced(1, [3])]

    def some():
        out = []
        for _ in range(rng.randint(0, 3)):
            v = rng.choice(values)
            out.append(v if rng.random() < 0.5 else Piece(v, rng.randint(0, 1), rng.randint(2, 4)))
        return out

    for _ in range(60):
        n_ops = builders[0].n_ops
        after = rng.choice([PREVIOUS, (), [rng.randrange(n_ops)] if n_ops else [], np.array([0, 0]) if n_ops else ()])
        if rng.random() < 0.7:
            src, dst = rng.sample(ranks, 2)
            src = src if rng.random() < 0.8 else ranks.index(src)
            pieces, size = some(), rng.choice([0.0, 8, 2.5e3])
            recv_after = rng.choice([PREVIOUS, ()])
            got = [b.send(src, dst, pieces, size, after=after, recv_after=recv_after) for b in builders]
        else:
            inputs = some()
            output = rng.choice(values) if inputs else None
            rank = rng.choice(ranks)
            cost = rng.choice([0, 10.0])
            got = [b.compute(rank, inputs, output, cost, after=after) for b in builders]
        assert got[0] == got[1]
    assert builders[0].build() == builders[1].build()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("algorithm", ["ring", "recursive_doubling", "hierarchical"])
@pytest.mark.parametrize("sync", ["barrier", "ready", "post_all"])
def test_series_of_step_schedules_copy_their_instances(seed, algorithm, sync):
    rng = random.Random(seed)
    p = cs.topologies.hypercube(rng.randint(1, 3)) if algorithm == "recursive_doubling" else \
        cs.topologies.star(rng.randint(2, 6))
    c = cs.Series(cs.AllGather(participants=p.hosts, size=float(rng.choice([1e3, 1e6]))), count=rng.randint(4, 8))
    s = cs.plan(p, c, algorithm=algorithm)
    groups = steps_module.tiled(s.steps, c.count)
    assert steps_module._repeated_instances(s, groups, p, c, sync) is not None  # the copying path
    fast = s.lower(p, c, sync=sync)
    assert fast == steps_module.lower_with_builder(s, p, c, sync=sync)
    cs.validate(p, c, fast)


def test_steps_that_mix_instances_go_through_the_builder():
    p = cs.topologies.star(3)
    c = cs.Series(cs.AllGather(participants=p.hosts, size=1e3), count=5)
    s = cs.plan(p, c, algorithm="ring")
    swapped = dataclasses.replace(s, steps=s.steps[:-2] + (s.steps[-1], s.steps[-2]))  # the last instance reordered
    groups = steps_module.tiled(swapped.steps, c.count)
    assert steps_module._repeated_instances(swapped, groups, p, c, "barrier") is None
    assert swapped.lower(p, c) == steps_module.lower_with_builder(swapped, p, c)


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("algorithm,kind", [("ring", "reducescatter"), ("ring", "allreduce"), ("direct", "reducescatter"),
                                            ("direct", "allreduce"), ("halving_doubling", "reducescatter"),
                                            ("halving_doubling", "allreduce"), ("hierarchical", "reducescatter"),
                                            ("double_binary_tree", "allreduce")])
@pytest.mark.parametrize("sync", ["barrier", "ready", "post_all"])
def test_series_of_reductions_copy_their_instances_and_their_results(seed, algorithm, kind, sync):
    rng = random.Random(seed)
    p = cs.topologies.hypercube(rng.randint(1, 3))
    make = cs.ReduceScatter if kind == "reducescatter" else cs.AllReduce
    c = cs.Series(make(participants=p.hosts, size=float(rng.choice([1e3, 1e6])), task_cost=1e3,
                       commutative=bool(rng.randint(0, 1))), count=rng.randint(4, 7))
    try:
        s = cs.plan(p, c, algorithm=algorithm)
    except ScheduleError:  # an ordered reduction that ring, halving-doubling and hierarchical do not plan
        pytest.skip(f"{algorithm} does not plan this {kind}")
    groups = steps_module.tiled(s.steps, c.count)
    assert steps_module._repeated_instances(s, groups, p, c, sync) is not None  # the copying path
    fast = s.lower(p, c, sync=sync)
    assert fast == steps_module.lower_with_builder(s, p, c, sync=sync)
    cs.validate(p, c, fast)
