"""One hierarchical broadcast lowers column-wise (schedules/tree_columns.py) to the builder's program.

Claims checked: the trees of the six hierarchical planners and random
hierarchical trees (random clusters, coordinators, intra-cluster models and
segment counts, seeded) lower to the very program
:class:`~collsched.schedules.program.ProgramBuilder` builds, with no
operation through the builder; a tree with a ``scatter_allgather`` cluster
goes through the builder; a repeated lowering of the same tree gives the
same program; the tree's checks still raise; the message list read in Rust
(``_core.tree_messages``) is numpy's (``hierarchical_messages``), and the
numpy one (an extension built before the Rust one) lowers to the builder's
program too.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import collsched as cs
from collsched import _core
from collsched.errors import ScheduleError
from collsched.schedules import TreeSchedule
from collsched.schedules import tree_columns
from collsched.schedules import trees as trees_module
from collsched.schedules.program import ProgramBuilder

MODELS = ("flat", "segmented_flat", "chain", "pipelined_chain", "binary", "binomial", "segmented_binomial", "k_chain")


class _Counted:
    """How many operations go through ProgramBuilder while active."""

    def __init__(self, monkeypatch):
        self.ops = 0
        original = ProgramBuilder._append

        def counted(builder, *args):
            self.ops += 1
            return original(builder, *args)

        monkeypatch.setattr(ProgramBuilder, "_append", counted)


def random_hierarchical(rng: random.Random, hosts: list[str], *, scatter: bool = False) -> TreeSchedule:
    """Random clusters; a random inter-cluster tree of coordinators, a random tree inside each cluster."""
    order = hosts[:]
    rng.shuffle(order)
    order.remove(hosts[0])
    order.insert(0, hosts[0])  # the source coordinates the first cluster
    clusters, i = [], 0
    while i < len(order):
        k = rng.randint(1, 4)
        clusters.append(order[i:i + k])
        i += k
    children: dict[str, list[str]] = {}
    coordinators = [c[0] for c in clusters]
    for j, u in enumerate(coordinators[1:], 1):
        children.setdefault(rng.choice(coordinators[:j]), []).append(u)
    for c in clusters:
        for j, h in enumerate(c[1:], 1):
            children.setdefault(rng.choice(c[:j]), []).append(h)
    models = MODELS + (("scatter_allgather",) if scatter else ())
    intra = {c[0]: f"{rng.choice(models)}:{rng.randint(1, 4)}" for c in clusters if rng.random() < 0.8}
    if scatter:
        intra[clusters[0][0]] = "scatter_allgather"
    return TreeSchedule(root=hosts[0], children=children, clusters=tuple(tuple(c) for c in clusters), intra=intra,
                        segments=rng.randint(1, 3), algorithm="random_hierarchical")


@pytest.mark.parametrize("seed", range(6))
def test_random_hierarchical_trees_are_the_builders_program(seed, monkeypatch):
    rng = random.Random(seed)
    p = cs.topologies.hypercube(4) if seed % 2 else cs.topologies.star(rng.randint(5, 12), bandwidth=(1e6, 3e6),
                                                                       seed=seed)
    hosts = list(p.hosts)
    tree = random_hierarchical(rng, hosts)
    c = cs.Broadcast(source=hosts[0], targets=hosts, size=float(rng.choice([1e3, 7e5, 1e6])))
    count = _Counted(monkeypatch)
    fast = tree.lower(p, c)
    assert count.ops == 0
    assert fast == trees_module.lower_with_builder(tree, p, c)
    assert tree.lower(p, c) == fast  # the second lowering reuses the tree's messages
    cs.validate(p, c, fast)


@pytest.mark.parametrize("algorithm", ["ecef", "ecef_la", "ecef_lat", "ecef_lat_max", "fef", "flat_tree"])
@pytest.mark.parametrize("dim", [3, 5])
def test_planned_hierarchical_broadcasts_are_the_builders_program(algorithm, dim, monkeypatch):
    p = cs.topologies.hypercube(dim)
    hosts = list(p.hosts)
    c = cs.Broadcast(source=hosts[-1], targets=hosts, size=1e6)
    tree = cs.plan(p, c, algorithm=algorithm)
    assert tree.intra  # a hierarchical tree
    count = _Counted(monkeypatch)
    fast = tree.lower(p, c)
    assert count.ops == 0
    assert fast == trees_module.lower_with_builder(tree, p, c)
    cs.validate(p, c, fast)


@pytest.mark.parametrize("seed", range(3))
def test_a_scatter_allgather_cluster_goes_through_the_builder(seed, monkeypatch):
    rng = random.Random(seed)
    p = cs.topologies.star(9)
    hosts = list(p.hosts)
    tree = random_hierarchical(rng, hosts, scatter=True)
    c = cs.Broadcast(source=hosts[0], targets=hosts, size=1e6)
    count = _Counted(monkeypatch)
    prog = tree.lower(p, c)
    assert count.ops == prog.n_ops
    cs.validate(p, c, prog)


def test_the_trees_checks_still_raise():
    p = cs.topologies.star(4)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    twice = TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h1": ("h3",)},
                         clusters=(("h0",), ("h1", "h2"), ("h3",)), intra={"h1": "flat:1"})
    with pytest.raises(ScheduleError, match="cluster of 'h2' is entered twice, at 'h1' and 'h2'"):
        twice.lower(p, c)
    stray = TreeSchedule(root="h0", children={"h0": ("h1",), "h1": ("h2", "h3")},
                         clusters=(("h0", "h1"), ("h2",), ("h3",)), intra={"h0": "flat:1"})
    with pytest.raises(ScheduleError, match="host 'h1' sends to another cluster but is not its cluster's coordinator"):
        stray.lower(p, c)


def test_whole_messages_weigh_the_size_and_pieces_the_builders_arithmetic():
    """0.1 * 3 / 3 is not 0.1 in floating point: whole messages weigh 0.1, thirds 0.1 * 1 / 3."""
    assert 0.1 * 3 / 3 != 0.1
    p = cs.topologies.star(4)
    c = cs.Broadcast(source="h0", targets=p.hosts, size=0.1)
    tree = TreeSchedule(root="h0", children={"h0": ("h1", "h2"), "h2": ("h3",)},
                        clusters=(("h0", "h1"), ("h2", "h3")), intra={"h0": "chain:1", "h2": "chain:3"})
    fast = tree.lower(p, c)
    assert fast == trees_module.lower_with_builder(tree, p, c)
    assert fast.denominator == 3
    assert fast.op_size[::2].tolist() == [0.1, 0.1 * 3 / 3, 0.1 * 1 / 3, 0.1 * 1 / 3, 0.1 * 1 / 3]


def _arrays(tree: TreeSchedule):
    """The tree's nodes as arrays and each node's cluster segment count, as ``_hierarchical_messages`` passes them."""
    h = tree._hierarchy
    specs = trees_module._intra_specs(tree)
    per_cluster = {h.cluster_of[u]: specs.get(u, ("tree", tree.segments))[1] for u in trees_module._coordinators(tree)[2]}
    segments = np.array([per_cluster[c] for c in h.cluster.tolist()], np.int64)
    return h.parent, h.cluster, h.coordinator, segments, trees_module._hierarchical_denominator(tree, specs)


@pytest.mark.parametrize("seed", range(20))
def test_the_rust_message_list_is_numpys(seed):
    rng = random.Random(seed)
    hosts = [f"h{i}" for i in range(rng.randint(2, 40))]
    tree = random_hierarchical(rng, hosts)
    args = _arrays(tree)
    fast, reference = _core.tree_messages(*args), tree_columns.hierarchical_messages(*args)
    assert fast[4] == reference[4]
    for a, b in zip(fast[:4] + fast[5:], reference[:4] + reference[5:]):
        assert a.tolist() == b.tolist()


def test_more_segments_than_the_denominator():
    """A cluster cut in more segments than the (capped) denominator has an empty piece: numpy declines (None, the
    builder lowers it), Rust lists what main's Python list did (its output for this tree, pasted)."""
    parent, cluster, coordinator = np.array([-1, 0, 1]), np.array([0, 1, 1]), np.array([True, True, False])
    segments = np.array([1, 3, 3])
    assert tree_columns.hierarchical_messages(parent, cluster, coordinator, segments, 2) is None
    src, dst, start, end, n_whole, ptr, deps = _core.tree_messages(parent, cluster, coordinator, segments, 2)
    assert (src.tolist(), dst.tolist(), start.tolist(), end.tolist(), n_whole) == \
        ([0, 1, 1, 1], [1, 2, 2, 2], [0, 0, 0, 1], [2, 0, 1, 2], 1)
    assert ptr.tolist() == [0, 0, 0, 1, 1, 3, 3, 5, 5] and deps.tolist() == [1, 1, 2, 1, 4]


def test_bad_arrays_raise_in_rust():
    with pytest.raises(ValueError, match="node 1's parent 1 is not an earlier node"):
        _core.tree_messages(np.array([-1, 1]), np.array([0, 0]), np.array([True, False]), np.array([1, 1]), 1)
    with pytest.raises(ValueError, match="differ in length"):
        _core.tree_messages(np.array([-1]), np.array([0, 0]), np.array([True]), np.array([1]), 1)


@pytest.mark.parametrize("seed", range(4))
def test_the_numpy_message_list_lowers_to_the_builders_program(seed, monkeypatch):
    """An extension built before ``tree_messages`` (a stale copy) lowers through the numpy list."""
    monkeypatch.delattr(_core, "tree_messages")
    rng = random.Random(seed)
    p = cs.topologies.hypercube(4)
    hosts = list(p.hosts)
    tree = random_hierarchical(rng, hosts)
    c = cs.Broadcast(source=hosts[0], targets=hosts, size=1e6)
    count = _Counted(monkeypatch)
    fast = tree.lower(p, c)
    assert count.ops == 0
    assert fast == trees_module.lower_with_builder(tree, p, c)
