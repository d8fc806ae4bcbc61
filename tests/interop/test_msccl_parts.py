"""A step schedule's parts of messages rounded onto a chunk grid (``msccl.round_parts``, ``msccl.grid_for``):
every message still delivered exactly once; the grid ``msccl.ready`` takes; the one line when no grid fits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.lint import ChunkGridError
from collsched.schedules import StepSchedule, Transfer

DEN = 2 ** 40


@settings(max_examples=60)
@given(cuts=st.lists(st.lists(st.integers(1, DEN - 1), max_size=5), min_size=6, max_size=6),
       d=st.integers(1, 64))
def test_rounded_parts_deliver_every_message_once(cuts, d):
    """Each message of a 3-host all-to-all cut at random bounds, part ``k`` in step ``k``: rounded, still valid, and
    each message's parts are consecutive from 0 to ``d``."""
    g = cs.topologies.star(3)
    c = cs.AllToAll(senders=g.hosts, size=2 ** 20)
    pairs = [(a, b) for a in g.hosts for b in g.hosts if a != b]
    steps: list[list[Transfer]] = [[] for _ in range(6)]
    for (a, b), cut in zip(pairs, cuts):
        bounds = [0] + sorted(set(cut)) + [DEN]
        for k, part in enumerate(zip(bounds, bounds[1:])):
            steps[k].append(Transfer(a, b, part=part))
    s = StepSchedule(steps=[x for x in steps if x], denominator=DEN)
    cs.validate(g, c, s)
    r = msccl.round_parts(s, d)
    cs.validate(g, c, r)
    assert r.denominator == d and all(step for step in r.steps)
    for a, b in pairs:
        parts = [t.part for step in r.steps for t in step if (t.src, t.dst) == (a, b)]
        assert [x for p in parts for x in p] == [0] + [x for p in parts[:-1] for x in (p[1], p[1])] + [d]


def test_grid_for_the_round_trip_fabrics():
    """64 chunks a message (one step's most, 71, rounded down to a power of two) where it fits; coarser where 64 would
    be more than 65,536 chunks per loop or not whole bytes."""
    assert msccl.grid_for("alltoall", 32, 32 * 4096, DEN) == 64
    assert msccl.grid_for("alltoall", 2048, 2048 * 2 ** 20, DEN) == 32   # 2,048 GPUs: 65,536 chunks per loop
    assert msccl.grid_for("alltoall", 8, 8 * 96, DEN) == 32              # 96-byte messages: 3-byte chunks
    assert msccl.grid_for("alltoall", 8, 8 * 96, 3) == 2                 # never finer than the schedule's own


def test_no_grid_fits_refused_in_one_line(tmp_path):
    """A 1.5-byte all-to-all on 2 GPUs (minBytes 3) has no whole chunks on any grid: refused, naming both reasons."""
    g = cs.topologies.star(2)
    c = cs.AllToAll(senders=g.hosts, size=1.5)
    s = StepSchedule(steps=[[Transfer("h0", "h1", part=(0, 3)), Transfer("h1", "h0")],
                            [Transfer("h0", "h1", part=(3, 10))]], denominator=10)
    first = ("at minBytes 3, 20 chunks per loop are chunks of 0.15 bytes, not a whole number of elements of any type: "
             "the runtime rounds a chunk down to whole elements and never moves the rest")
    with pytest.raises(ChunkGridError) as err:
        msccl.ready(g, c, s)
    assert str(err.value).splitlines() == [
        f"{first}; nor are they whole chunks with the parts of messages rounded to 1/8 .. 1/1 (export a schedule with "
        "coarser pieces (msccl.fit_chunks() rounds a forest's), or give another min_bytes)"]
    with pytest.raises(ChunkGridError, match=r"never moves the rest \("):   # strict: as to_xml refuses it
        msccl.ready(g, c, s, strict=True)


def test_preempted_open_shop_exported_rounded():
    """ndv2(1), 1 MiB: open_shop_preemptive's 72 parts on 1/2**40 become 72 parts on 1/64; the file reads back valid
    and takes the time ``msccl.exported`` reports as the schedule exported's (the rounded one, without signals)."""
    g = cs.topologies.ndv2(1)
    c = cs.AllToAll(senders=g.hosts, size=2 ** 20)
    s = cs.plan(g, c, algorithm="open_shop_preemptive")
    p = msccl.exported(g, c, s)
    assert p.schedule == msccl.round_parts(s, 64) and p.made_ready[0] == (
        f"parts of messages rounded from 1/{DEN} to 1/64 of a message (72 parts → 72)")
    back = msccl.check_text(p.ready.text, g, size=c.size).imported
    cs.validate(g, c, back.program)
    assert cs.simulate(g, back.program, c, model=cs.models.Fluid()).makespan == p.ready.planned_makespan
