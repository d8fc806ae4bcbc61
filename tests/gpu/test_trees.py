"""The tree packing in the Rust core returns exactly what the pure-Python construction it replaced returned.

``pack_spanning_trees`` (``crates/core/src/arborescence.rs``) against ``trees._reference`` (the old function, one
flow per arc tried): the same trees, weights and order, or the same one-line error, on the packings the forest asks
for on GPU fabrics (the split graph of ``pack_forest`` and the direct routes of ``shallow_trees``) and on seeded
random capacity graphs at their largest feasible rate (where trees split most) and one above it (where no packing
exists).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.algorithms.gpu import forest, lower_shallow
from collsched.algorithms.gpu.trees import _reference, pack_spanning_trees
from collsched.errors import CollschedError


def both(n, capacity, rate):
    """The two constructions' results (or their errors' lines), which must be equal."""
    out = []
    for f in (pack_spanning_trees, _reference):
        try:
            out.append(f(n, dict(capacity), rate))
        except CollschedError as err:
            out.append(str(err))
    assert out[0] == out[1]
    return out[0]


@pytest.mark.parametrize("fabric, boxes", [("dgx2", 1), ("ndv2", 1), ("dgx_a100", 1), ("mi250", 1), ("ndv2", 2),
                                           ("dgx_a100", 2), ("dgx2", 2)])
def test_same_trees_as_the_reference_on_gpu_fabrics(monkeypatch, fabric, boxes):
    """Both packings of the forest (the split graph, then the direct routes), all-gather and reduce-scatter."""
    asked = []

    def compared(n, capacity, rate):
        result = both(n, capacity, rate)
        asked.append(len(result))
        return result

    monkeypatch.setattr(forest, "pack_spanning_trees", compared)
    monkeypatch.setattr(lower_shallow, "pack_spanning_trees", compared)
    g = getattr(cs.topologies, fabric)(boxes)
    for kind in ("allgather", "reducescatter"):
        f = forest.pack_forest(g, g.hosts, kind=kind)
        assert lower_shallow.shallow_trees(g, g.hosts, kind, Fraction(f.throughput)) is not None
    assert len(asked) == 4 and min(asked) >= len(g.hosts)


def largest_rate(n, capacity):
    """The largest integer rate at which every set ``X`` has ``c(δ⁻(X)) >= rate·(n - |X|)`` (Edmonds), brute force."""
    best = None
    for k in range(1, n):
        for inside in itertools.combinations(range(n), k):
            into = sum(c for (u, v), c in capacity.items() if v in inside and u not in inside and c > 0 and u != v)
            best = into // (n - k) if best is None else min(best, into // (n - k))
    return best


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_same_trees_as_the_reference_on_random_graphs(seed):
    """Random digraphs of 2-8 nodes (some arcs missing, some of capacity 0, loops), at the largest feasible rate and
    one above."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    capacity = {(int(u), int(v)): int(rng.integers(0, 12)) for u in range(n) for v in range(n) if rng.random() < 0.7}
    rate = largest_rate(n, capacity)
    if rate > 0:
        trees = both(n, capacity, rate)
        assert sorted({r for r, _, _ in trees}) == list(range(n))
        assert all(sum(w for r, w, _ in trees if r == root) == rate for root in range(n))
    assert both(n, capacity, rate + 1).startswith("no spanning tree for root ")


def test_splits_and_the_order_of_a_hand_checked_packing():
    """A one-way ring of capacity 3 with reverse arcs of 1, rate 2. Root 0 tries its thin arc ``0→2`` first: it
    admits 1 of the 2, so the rest of root 0 waits as a tree of weight 1 at ``{0}``; ``0→1`` completes the first
    tree; the rest finds ``0→2`` used up and grows ``0→1→2``. Each root alike, by symmetry."""
    capacity = {(0, 1): 3, (1, 2): 3, (2, 0): 3, (1, 0): 1, (2, 1): 1, (0, 2): 1}
    assert both(3, capacity, 2) == [(0, 1, [(0, 2), (0, 1)]), (0, 1, [(0, 1), (1, 2)]),
                                    (1, 1, [(1, 0), (1, 2)]), (1, 1, [(1, 2), (2, 0)]),
                                    (2, 1, [(2, 1), (2, 0)]), (2, 1, [(2, 0), (0, 1)])]
    assert both(3, capacity, 3) == ("no spanning tree for root 0 can grow past 2 of 3 nodes: some cut is below 3·3 "
                                    "(Edmonds' condition fails)")


def test_bad_input():
    with pytest.raises(IndexError, match="node 5 is not a node of the flow network"):
        pack_spanning_trees(2, {(0, 5): 1}, 1)
    with pytest.raises(ValueError, match="capacity -1 is negative"):
        pack_spanning_trees(2, {(0, 1): 1}, -1)
    assert pack_spanning_trees(1, {}, 3) == [(0, 3, [])]
