"""The column-wise lowering (collsched.schedules.columns) builds exactly the ProgramBuilder's program."""

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms import registry
from collsched.schedules import OrderSchedule, StepSchedule, columns
from collsched.schedules.steps import SYNC_MODES, Transfer, tiled


def _builder_program(schedule, platform, collective, sync, monkeypatch):
    """The program of the ProgramBuilder path (the column-wise path switched off)."""
    with monkeypatch.context() as m:
        m.setattr(columns, "_direct", lambda *args, **kwargs: None)
        if isinstance(schedule, StepSchedule):
            return schedule.lower(platform, collective, sync=sync)
        return schedule.lower(platform, collective)


PLATFORMS = [cs.topologies.star(5, bandwidth=(5e5, 3e6), seed=2), cs.topologies.hypercube(3),
             cs.topologies.fat_tree(2, 3)]


def _collectives(p):
    hosts = p.hosts
    sizes = {(a, b): 1e3 * (1 + i % 3) for i, (a, b) in enumerate((a, b) for a in hosts for b in hosts if a != b)
             if i % 4 != 1}
    return [cs.AllToAll(senders=hosts, size=1e4),
            cs.AllToAll(senders=hosts[:3], receivers=hosts[1:], size=2e3),
            cs.AllToMany(sizes),
            cs.Series(cs.AllToAll(senders=hosts, size=1e3), count=3)]


@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p.name)
def test_every_alltoall_algorithm_lowers_to_the_builders_program(platform, monkeypatch):
    for c in _collectives(platform):
        for algo in registry.applicable(c):
            s = algo.function(platform, c, seed=1)
            if not isinstance(s, (StepSchedule, OrderSchedule)):
                continue
            for sync in SYNC_MODES if isinstance(s, StepSchedule) else (None,):
                if isinstance(s, StepSchedule):
                    if columns._direct(tiled(s.steps, c.count), platform, c, s.denominator) is None:
                        continue  # parts or relayed values: the builder's path only
                    fast = s.lower(platform, c, sync=sync)
                else:
                    fast = s.lower(platform, c)
                slow = _builder_program(s, platform, c, sync, monkeypatch)
                assert fast == slow, (algo.name, c.kind, sync)
                assert (fast.name, fast.denominator) == (slow.name, slow.denominator)


def test_parts_lower_column_wise_to_the_builders_program(monkeypatch):
    p = cs.topologies.star(3, bandwidth=(1e6, 3e6), seed=1)
    c = cs.AllToAll(senders=p.hosts, size=[[0, 3, 7], [5, 0, 1], [2, 9, 0]])
    steps = ((Transfer("h0", "h1", part=(0, 1)), Transfer("h2", "h0", part=(0, 3))),
             (Transfer("h0", "h1", part=(1, 4)), Transfer("h1", "h2")),
             (Transfer("h1", "h0"), Transfer("h2", "h0", part=(3, 4)), Transfer("h0", "h2"), Transfer("h2", "h1")))
    s = StepSchedule(steps=steps, denominator=4)
    for sync in SYNC_MODES:
        fast = columns.step_program(s.steps, p, c, sync, denominator=4, name="")
        assert fast is not None and fast == _builder_program(s, p, c, sync, monkeypatch), sync
        first_data = int(np.flatnonzero(np.diff(fast.piece_ptr))[0])
        assert fast.pieces[:2, 4:].tolist() == [[0, 1], [0, 3]] and fast.op_size[first_data] == 3 * 1.0 / 4
        cs.validate(p, c, fast)
    # a part beyond the denominator is the builder's to refuse; so are relayed values
    over = StepSchedule(steps=((Transfer("h0", "h1", part=(0, 5)),),), denominator=4)
    assert columns.step_program(over.steps, p, c, "barrier", denominator=4, name="") is None
    with pytest.raises(cs.errors.ScheduleError, match=r"part \(0, 5\) exceeds the denominator 4"):
        over.lower(p, c)
    relay = ((Transfer("h0", "h1", values=[cs.schedules.values.block(0, 0, 2)]),),)
    assert columns.step_program(relay, p, c, "barrier", denominator=1, name="") is None


def test_a_missing_message_raises_as_before():
    p = cs.topologies.star(3)
    c = cs.AllToMany({("h0", "h1"): 5.0})
    s = StepSchedule.from_pairs([[("h1", "h0")]])
    with pytest.raises(cs.errors.CollectiveError, match="has no message h1->h0"):
        s.lower(p, c)


def test_step_program_with_idle_ranks_and_uneven_steps(monkeypatch):
    p = cs.topologies.star(6)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    steps = [[("h0", "h1"), ("h0", "h2"), ("h3", "h1")], [("h2", "h5")], [], [("h5", "h0"), ("h1", "h0")]]
    s = StepSchedule.from_pairs(steps, algorithm="uneven")
    for sync in SYNC_MODES:
        fast = columns.step_program(tiled(s.steps, 1), p, c, sync, denominator=1, name="uneven")
        assert fast == _builder_program(s, p, c, sync, monkeypatch), sync


@pytest.mark.parametrize("seed", range(6))
def test_random_steps_lower_to_the_builders_program(seed, monkeypatch):
    # idle ranks, ranks busy several times in a step, steps of one transfer, ranks counts not powers of two
    rng = np.random.default_rng(seed)
    p = cs.topologies.star(int(rng.integers(2, 8)))
    c = cs.AllToAll(senders=p.hosts, size=rng.choice([1e3, 2e3], size=(len(p.hosts),) * 2))
    pairs = [(a, b) for a in p.hosts for b in p.hosts if a != b]
    order = rng.permutation(len(pairs))
    cuts = np.sort(rng.choice(np.arange(1, len(pairs)), size=min(len(pairs) - 1, int(rng.integers(1, 6))),
                              replace=False))
    steps = [[pairs[i] for i in chunk] for chunk in np.split(order, cuts)]
    s = StepSchedule.from_pairs(steps, algorithm="random")
    for sync in SYNC_MODES:
        fast = columns.step_program(tiled(s.steps, 1), p, c, sync, denominator=1, name="random")
        assert fast == _builder_program(s, p, c, sync, monkeypatch), sync
