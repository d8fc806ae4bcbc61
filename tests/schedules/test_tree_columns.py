"""One hierarchical broadcast lowers column-wise (schedules/tree_columns.py) to the builder's program.

Claims checked: the trees of the six hierarchical planners and random
hierarchical trees (random clusters, coordinators, intra-cluster models and
segment counts, seeded) lower to the very program
:class:`~collsched.schedules.program.ProgramBuilder` builds, with no
operation through the builder; a tree with a ``scatter_allgather`` cluster
goes through the builder; a repeated lowering of the same tree gives the
same program; the tree's checks still raise.
"""

from __future__ import annotations

import random

import pytest

import collsched as cs
from collsched.errors import ScheduleError
from collsched.schedules import TreeSchedule
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
