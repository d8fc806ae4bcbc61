"""Collectives: validated when built, and against a platform."""

import math

import numpy as np
import pytest

import collsched as cs
from collsched.errors import CollectiveError, PlatformError
from collsched.platform import Link, Node, Platform


@pytest.fixture
def star():
    return cs.topologies.star(4)


@pytest.mark.parametrize("size", [0, -5, math.nan, math.inf, True, "big"])
def test_sizes_must_be_positive_and_finite(size):
    with pytest.raises(CollectiveError, match=r"scatter size is .* \(sizes and costs must be finite and > 0\)"):
        cs.Scatter(source="h0", targets=["h1"], size=size)


@pytest.mark.parametrize("make", [
    lambda: cs.Scatter(source="h0", targets=[], size=1),
    lambda: cs.Gather(sources=[], target="h0", size=1),
    lambda: cs.Broadcast(source="h0", targets=(), size=1),
    lambda: cs.Reduce(participants=[], target="h0", size=1),
    lambda: cs.AllToAll(senders=[], size=1),
    lambda: cs.AllToMany({}),
])
def test_empty_participant_lists(make):
    with pytest.raises(CollectiveError, match="empty|no message"):
        make()


def test_repeated_participant():
    with pytest.raises(CollectiveError, match="reduce participants lists 'h1' twice"):
        cs.Reduce(participants=["h1", "h2", "h1"], target="h1", size=1)


def test_participant_that_is_a_router(star):
    c = cs.Broadcast(source="h0", targets=["h1", "sw"], size=1)
    with pytest.raises(CollectiveError, match="broadcast participant 'sw' is a router"):
        c.validate(star)


def test_participant_not_in_platform(star):
    c = cs.Gather(sources=["h1", "h9"], target="h0", size=1)
    with pytest.raises(CollectiveError, match=r"gather participant 'h9' is not in platform 'star-4' \(hosts are h0, h1"):
        c.validate(star)


def test_unreachable_host_the_collective_needs():
    p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))], name="split")
    cs.Scatter(source="a", targets=["b"], size=1).validate(p)
    with pytest.raises(PlatformError, match="host 'c' is unreachable from host 'a', which the scatter needs"):
        cs.Scatter(source="a", targets=["b", "c"], size=1).validate(p)


def test_alltoall_size_matrix_and_all_to_some():
    m = np.array([[0, 1, 2], [3, 0, 0], [5, 6, 0]])
    c = cs.AllToAll(senders=["a", "b", "c"], size=m)
    assert c.messages() == [("a", "b", 1.0), ("a", "c", 2.0), ("b", "a", 3.0), ("c", "a", 5.0), ("c", "b", 6.0)]
    assert c.total_bytes == 17
    some = cs.AllToAll(senders=["a", "b", "c"], receivers=["a"], size=2)
    assert [(s, r) for s, r, _ in some.messages()] == [("b", "a"), ("c", "a")]
    with pytest.raises(CollectiveError, match=r"has shape \(2, 2\)"):
        cs.AllToAll(senders=["a", "b", "c"], size=np.ones((2, 2)))
    with pytest.raises(CollectiveError, match="negative or non-finite"):
        cs.AllToAll(senders=["a", "b"], size=[[0, -1], [1, 0]])


def test_reduce_values_are_ordered_partials(star):
    c = cs.Reduce(participants=["h2", "h0", "h3"], target="h1", size=8, partial_sizes={(0, 2): 16},
                  task_costs={(0, 1, 2): 7}, task_cost=3)
    assert c.hosts == ("h2", "h0", "h3", "h1")
    initial, final = c.instance_values(star, 0)
    assert [(h, repr(v)) for h, v in initial] == [("h2", "v[0..0]@0"), ("h0", "v[1..1]@0"), ("h3", "v[2..2]@0")]
    assert [(h, repr(v)) for h, v in final] == [("h1", "v[0..2]@0")]
    assert c.partial_size(0, 2) == 16 and c.partial_size(1, 2) == 8
    assert c.task_cost_of(0, 1, 2) == 7 and c.task_cost_of(0, 0, 1) == 3
    with pytest.raises(CollectiveError, match=r"T\(0,2,1\), not a task"):
        cs.Reduce(participants=["a", "b"], target="a", size=1, task_costs={(0, 2, 1): 1})


def test_series_counts_instances(star):
    s = cs.Series(cs.Scatter(source="h0", targets=["h1", "h2"], size=5), count=3)
    assert len(s.final_values(star)) == 6
    assert {v.inst for _, v in s.final_values(star)} == {0, 1, 2}
    with pytest.raises(CollectiveError, match="series count is 0"):
        cs.Series(cs.Scatter(source="h0", targets=["h1"], size=5), count=0)
    with pytest.raises(CollectiveError, match="a series of series"):
        cs.Series(s, count=2)


def test_alltomany_is_sparse():
    c = cs.AllToMany({("a", "b"): 1e3, ("c", "a"): "x"} if False else {("a", "b"): 1e3, ("c", "a"): 2e3})
    assert c.hosts == ("a", "b", "c") and c.total_bytes == 3e3
    with pytest.raises(CollectiveError, match=r"alltomany size of a->b is -1"):
        cs.AllToMany({("a", "b"): -1})


def test_alltoall_value_sizes_come_from_the_platform(star):
    c = cs.AllToAll(senders=["h0", "h1"], size=[[0, 3], [5, 0]])
    v = c.direct_value(star, 0, "h1", "h0")
    assert c.sizer(star)(v) == 5.0
    with pytest.raises(CollectiveError, match="depends on the platform's host indices"):
        c.value_size(v)


def test_the_bases_are_abstract():
    with pytest.raises(TypeError):
        cs.Collective()
    with pytest.raises(TypeError):
        cs.Schedule()
    with pytest.raises(TypeError):
        cs.models.Model()


@pytest.mark.parametrize("seed", range(4))
def test_alltoall_messages_are_those_of_the_double_loop(seed):
    rng = np.random.default_rng(seed)
    hosts = [f"h{i}" for i in range(12)]
    senders = [hosts[i] for i in rng.permutation(12)[:9]]
    receivers = [hosts[i] for i in rng.permutation(12)[:7]]
    sizes = rng.choice([0.0, 1.5, 2.0, 1e6], size=(9, 7))
    if not (sizes > 0).any():
        sizes[0, 0] = 1.0
    c = cs.AllToAll(senders=senders, receivers=receivers, size=sizes)
    expected = [(s, r, float(sizes[i, j])) for i, s in enumerate(senders) for j, r in enumerate(receivers)
                if s != r and sizes[i, j] > 0]
    assert c.messages() == expected and all(type(m) is float for _, _, m in c.messages())


@pytest.mark.parametrize("seed", range(4))
def test_message_columns_are_the_messages_in_host_indices(seed):
    rng = np.random.default_rng(seed)
    p = cs.topologies.star(12)
    senders = [p.hosts[i] for i in rng.permutation(12)[:9]]
    receivers = [p.hosts[i] for i in rng.permutation(12)[:7]]
    sizes = rng.choice([0.0, 1.5, 2.0, 1e6], size=(9, 7))
    sizes[0, 0] = 1.0 if senders[0] != receivers[0] else sizes[0, 0]
    pairs = {(s, r): float(rng.choice([1.0, 3e5])) for s in senders for r in receivers if s != r and rng.random() < 0.3}
    for c in (cs.AllToAll(senders=senders, receivers=receivers, size=sizes), cs.AllToMany(pairs or {("h0", "h1"): 1})):
        src, dst, size = c.message_columns(p)
        assert [(p.hosts[a], p.hosts[b], m) for a, b, m in zip(src.tolist(), dst.tolist(), size.tolist())] \
            == c.messages()
        assert src.dtype == dst.dtype == np.int64 and size.dtype == np.float64
        assert c.total_bytes == sum(m for _, _, m in c.messages())


def test_an_exchange_names_its_first_unreachable_pair_as_check_reachable_does():
    p = Platform([Node("a"), Node("b"), Node("c"), Node("d")], [Link("ab", 1e9, ends=("a", "b")),
                 Link("cd", 1e9, ends=("c", "d"))], name="split")
    c = cs.AllToAll(senders=["b", "a", "d", "c"], size=1)
    with pytest.raises(PlatformError) as by_pairs:
        p.check_reachable(c.pairs(), needed_by="the alltoall")
    with pytest.raises(PlatformError, match="host 'd' is unreachable from host 'b', which the alltoall needs") as ours:
        c.validate(p)
    assert str(ours.value) == str(by_pairs.value)
    cs.AllToMany({("a", "b"): 1, ("d", "c"): 2}).validate(p)
