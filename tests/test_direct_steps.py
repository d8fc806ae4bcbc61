"""Step schedules held as columns (DirectSteps): the caterpillar against its loop, lowering against the builder's."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms.baselines.caterpillar import caterpillar
from collsched.compare import program_size
from collsched.errors import ScheduleError
from collsched.schedules import SYNC_MODES, StepSchedule, Transfer
from collsched.schedules.io import schedule_from_json, schedule_to_json
from collsched.schedules.steps import DirectSteps


def caterpillar_loop(platform, collective):
    """The obvious caterpillar: per instance, step k = 1 .. n-1, host i sends to host i + k if the collective has it."""
    involved = set(collective.hosts)
    hosts = [h for h in platform.hosts if h in involved]
    wanted = set(collective.pairs())
    n = len(hosts)
    steps = []
    for inst in range(collective.count):
        for k in range(1, n):
            step = tuple(Transfer(hosts[i], hosts[(i + k) % n], inst=inst) for i in range(n)
                         if (hosts[i], hosts[(i + k) % n]) in wanted)
            if step:
                steps.append(step)
    return tuple(steps)


def exchanges():
    rng = np.random.default_rng(7)
    p = cs.topologies.fat_tree(3, 3)
    hosts = p.hosts
    sizes = rng.choice([0.0, 1e3, 5e3], size=(9, 9))
    yield p, cs.AllToAll(senders=hosts, size=1e4)
    yield p, cs.AllToAll(senders=hosts, size=sizes)  # zero sizes: messages the exchange has not
    yield p, cs.AllToAll(senders=hosts[:4], receivers=hosts[2:7], size=1e3)  # all-to-some
    yield p, cs.AllToMany({(hosts[a], hosts[b]): float(1 + a + b) for a, b in rng.integers(0, 9, size=(20, 2)) if a != b})
    yield p, cs.Series(cs.AllToAll(senders=hosts[1:6], size=1e3), count=3)
    yield p, cs.AllToMany({(hosts[8], hosts[0]): 1.0})


@pytest.mark.parametrize("case", range(6))
def test_caterpillar_columns_are_the_loop_s_steps(case):
    p, c = list(exchanges())[case]
    s = caterpillar(p, c)
    assert isinstance(s.steps, DirectSteps)
    reference = caterpillar_loop(p, c)
    assert s.steps == reference and tuple(s.steps) == reference and len(s) == len(reference)
    assert s.n_transfers == sum(len(step) for step in reference)
    as_tuples = StepSchedule(steps=reference, algorithm="caterpillar")
    assert s == as_tuples and as_tuples == s and hash(s.steps) == hash(reference)
    for sync in SYNC_MODES:
        fast = s.lower(p, c, sync=sync)
        assert fast == as_tuples.lower(p, c, sync=sync)
        assert program_size(s, p, c, sync) == fast.n_ops
        cs.validate(p, c, fast)


def test_hosts_the_platform_has_not_are_left_out_as_the_loop_leaves_them():
    p = cs.topologies.star(3)
    c = cs.AllToMany({("h0", "h1"): 1.0, ("h2", "zz"): 1.0, ("h2", "h0"): 2.0})
    assert caterpillar(p, c).steps == caterpillar_loop(p, c) == ((Transfer("h0", "h1"), Transfer("h2", "h0")),)


def test_a_series_longer_than_the_steps_name_is_tiled():
    p = cs.topologies.star(4)
    base = cs.AllToAll(senders=p.hosts, size=1e3)
    s = caterpillar(p, base)
    series = cs.Series(base, count=3)
    as_tuples = StepSchedule(steps=tuple(s.steps), algorithm="caterpillar")
    for sync in SYNC_MODES:
        assert s.lower(p, series, sync=sync) == as_tuples.lower(p, series, sync=sync)
        assert program_size(s, p, series, sync) == s.lower(p, series, sync=sync).n_ops


def test_columns_read_as_their_steps():
    d = DirectSteps(["a", "b", "c"], [0, 2, 2, 3], [0, 1, 2], [1, 2, 0], [0, 0, 1])
    assert len(d) == 3 and d[1] == () and d[-1] == (Transfer("c", "a", inst=1),)
    assert d[0:3:2] == ((Transfer("a", "b"), Transfer("b", "c")), (Transfer("c", "a", inst=1),))
    assert d == DirectSteps(["c", "b", "a"], [0, 2, 2, 3], [2, 1, 0], [1, 0, 2], [0, 0, 1])
    assert d != DirectSteps(["a", "b", "c"], [0, 2, 2, 3], [0, 1, 2], [1, 2, 0], [0, 0, 0])
    with pytest.raises(IndexError, match="step 3 out of range"):
        d[3]
    assert pickle.loads(pickle.dumps(d)) == d


def test_a_schedule_of_columns_saves_as_any_other():
    p = cs.topologies.star(4)
    c = cs.AllToAll(senders=p.hosts, size=1e3)
    s = caterpillar(p, c)
    back = schedule_from_json(schedule_to_json(s))
    assert back == s and back.lower(p, c, sync="ready") == s.lower(p, c, sync="ready")


@pytest.mark.parametrize("args, message", [
    ((["a", "b"], [0, 1], [0], [0], [0]), "transfer from 'a' to itself"),
    ((["a", "b"], [0, 2], [0], [1], [0]), "not a pointer"),
    ((["a", "b"], [0, 1], [0], [2], [0]), "out of range"),
])
def test_bad_columns_are_refused(args, message):
    with pytest.raises(ScheduleError, match=message):
        DirectSteps(*args)
