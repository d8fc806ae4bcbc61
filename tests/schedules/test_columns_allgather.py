"""All-gathers of direct messages (each participant's own block) lower column-wise to the builder's program."""

import random

import numpy as np
import pytest

import collsched as cs
from collsched.schedules import OrderSchedule, StepSchedule, columns, orders
from collsched.schedules.steps import SYNC_MODES, Transfer

PLATFORMS = [cs.topologies.star(5, bandwidth=(5e5, 3e6), seed=2), cs.topologies.hypercube(3),
             cs.topologies.fat_tree(2, 3)]


def _through_builder(schedule, platform, collective, monkeypatch, **options):
    """The program of the ProgramBuilder path (every column-wise path of direct messages switched off)."""
    with monkeypatch.context() as m:
        m.setattr(columns, "_direct", lambda *args, **kwargs: None)
        m.setattr(orders, "direct_order_program", lambda *args, **kwargs: None)
        return schedule.lower(platform, collective, **options)


def _allgathers(p, rng):
    hosts = list(p.hosts)
    rng.shuffle(hosts)
    some = hosts[:max(2, len(hosts) - 2)]
    return [cs.AllGather(participants=hosts, size=1e4), cs.AllGather(participants=some, size=3e3),
            cs.Series(cs.AllGather(participants=hosts, size=1e3), count=4)]


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_direct_allgather_is_the_builders_program(platform, seed, monkeypatch):
    for c in _allgathers(platform, random.Random(seed)):
        s = cs.plan(platform, c, algorithm="direct")
        fast = s.lower(platform, c)
        assert fast == _through_builder(s, platform, c, monkeypatch)
        assert fast.n_data_messages == len(c.base.participants) * (len(c.base.participants) - 1) * c.count
        cs.validate(platform, c, fast)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_orders_of_blocks_are_the_builders_program(seed, monkeypatch):
    """Orders that name instances out of turn, and a series longer than the orders (tiled)."""
    rng = random.Random(seed)
    p = cs.topologies.hypercube(3)
    hosts = list(p.hosts)[:6]
    order = {h: [(d, t) for t in range(2) for d in hosts if d != h] for h in hosts}
    for seq in order.values():
        rng.shuffle(seq)
    s = OrderSchedule(orders=order, algorithm="shuffled")
    for count in (2, 5):
        c = cs.Series(cs.AllGather(participants=hosts, size=2e3), count=count)
        fast = s.lower(p, c)
        assert fast == _through_builder(s, p, c, monkeypatch)
        cs.validate(p, c, fast)


@pytest.mark.parametrize("seed", [0, 1])
def test_steps_of_block_parts_are_the_builders_program(seed, monkeypatch):
    """A step schedule of all-gather blocks cut in parts, under every synchronisation."""
    rng = random.Random(seed)
    p = cs.topologies.star(6, bandwidth=(1e6, 3e6), seed=seed)
    hosts = list(p.hosts)
    c = cs.AllGather(participants=hosts, size=5e3)
    transfers = [Transfer(a, b, part=(k, k + 1)) for a in hosts for b in hosts if a != b for k in range(3)]
    rng.shuffle(transfers)
    steps = [transfers[i:i + 7] for i in range(0, len(transfers), 7)]
    s = StepSchedule(steps=steps, denominator=3, algorithm="parts")
    for sync in SYNC_MODES:
        fast = s.lower(p, c, sync=sync)
        assert fast == _through_builder(s, p, c, monkeypatch, sync=sync)
        assert np.array_equal(fast.pieces[:, 3], np.full(len(transfers), -1))  # the blocks are everyone's
        cs.validate(p, c, fast)


def test_a_transfer_between_non_participants_raises_as_before():
    p = cs.topologies.star(4)
    c = cs.AllGather(participants=["h0", "h1", "h2"], size=1e3)
    s = OrderSchedule(orders={"h0": ["h1", "h3"]})
    with pytest.raises(cs.errors.CollectiveError, match="allgather has no message h0->h3"):
        s.lower(p, c)
