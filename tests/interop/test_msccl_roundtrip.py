"""Export → read: every registered algorithm of AllGather, ReduceScatter, AllReduce, Broadcast and Reduce on dgx2(1),
ndv2(1), dgx_a100(1): valid, within the runtime's limits, and as fast under Fluid as the Program it came from (the
forest on ndv2(1): its shares rounded to 1/32, its messages sent together merged, as the file runs them)."""

from __future__ import annotations

import dataclasses

import pytest

import collsched as cs
from collsched.algorithms import registry
from collsched.errors import CollschedError
from collsched.interop import msccl
from collsched.interop.msccl.fit import round_shares
from collsched.interop.msccl.lint import MAX_CHANNELS, MAX_COUNT, MAX_STEPS, MAX_TBS, MAX_TBS_PER_CHANNEL, ChunkGridError
from collsched.interop.msccl.merge import merge_concurrent
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals

FABRICS = {"dgx2": lambda: cs.topologies.dgx2(1), "ndv2": lambda: cs.topologies.ndv2(1),
           "dgx_a100": lambda: cs.topologies.dgx_a100(1)}
KINDS = {"allgather": lambda h: cs.AllGather(participants=h, size=2 ** 20),
         "reducescatter": lambda h: cs.ReduceScatter(participants=h, size=2 ** 20),
         "allreduce": lambda h: cs.AllReduce(participants=h, size=2 ** 20),
         "broadcast": lambda h: cs.Broadcast(source=h[0], targets=h[1:], size=2 ** 20),
         "reduce": lambda h: cs.Reduce(participants=h, target=h[0], size=2 ** 20)}

CASES = [(f, k, a.name) for f in FABRICS for k, make in KINDS.items()
         for a in registry.applicable(make(["h0", "h1", "h2"]))]


def _within_limits(algo) -> None:
    """What the runtime refuses: more thread blocks per GPU or per channel, channels, steps per block."""
    assert algo.nchannels <= MAX_CHANNELS
    for g in algo.gpus:
        assert len(g.tbs) <= MAX_TBS
        for chan in range(algo.nchannels):
            assert sum(1 for tb in g.tbs if tb.chan == chan and tb.send >= 0) <= MAX_TBS_PER_CHANNEL
            assert sum(1 for tb in g.tbs if tb.chan == chan and tb.recv >= 0) <= MAX_TBS_PER_CHANNEL
        assert all(len(tb.steps) <= MAX_STEPS for tb in g.tbs)
        assert all(st.cnt <= MAX_COUNT for tb in g.tbs for st in tb.steps)
        # a nop only carries a dependency, and every dependency is needed: no nop without one
        assert all(st.depid >= 0 for tb in g.tbs for st in tb.steps if st.type == "nop")
        # every other step moves data: no cnt="0" send or receive, which the runtime skips
        assert all(st.cnt > 0 for tb in g.tbs for st in tb.steps if st.type != "nop")


@pytest.mark.parametrize("fabric, kind, algorithm", CASES)
def test_export_reads_back_valid(tmp_path, fabric, kind, algorithm):
    g = FABRICS[fabric]()
    c = KINDS[kind](list(g.hosts))
    schedule = cs.plan(g, c, algorithm=algorithm)
    rounded = algorithm == "forest" and fabric == "ndv2"
    if rounded:   # chunks not whole bytes (a share's denominator 3): shares on a grid of 1/32, fewer chunks
        with pytest.raises(ChunkGridError):
            msccl.to_xml(g, c, schedule)
        schedule = round_shares(dataclasses.replace(schedule, chunks={"allreduce": 4}.get(kind, 32)), 32)
    program = schedule.lower(g, c)
    path = msccl.write(tmp_path / f"{algorithm}.xml", g, c, program)
    result = msccl.check(path, g, size=c.size)
    imp = result.imported
    assert imp.collective == c
    cs.validate(g, imp.collective, imp.program)
    algo = imp.algo
    assert (algo.min_bytes, algo.max_bytes) == (int(msccl.call_bytes(c)), int(msccl.call_bytes(c)) + 1)
    assert algo.ngpus == len(g.hosts)
    assert all(w.message.startswith("gpu ") and "RCCL accepts 64" in w.message for w in result.warnings)
    _within_limits(algo)
    # the file has no messages without data (the runtime has none): it runs the Program without its signals,
    # packed into thread blocks, in the same time under Fluid
    sent = drop_signals(program)
    before = cs.simulate(g, sent, c, model=cs.models.Fluid()).makespan
    after = cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan
    if rounded:   # its messages do not fit as they run: the file runs them merged (merge_concurrent), not serialised
        sent = drop_signals(program).renumbered()
        unit, scale, _ = chunk_grid(sent, kind, len(g.hosts))
        merged = split_messages(merge_concurrent(sent, unit=unit, scale=scale), unit=unit, scale=scale)
        before = cs.simulate(g, merged, c, model=cs.models.Fluid()).makespan
    assert after == before
    assert imp.program.bytes_sent == program.bytes_sent


def test_forest_thread_blocks_within_the_runtime_limit():
    """The forest's concurrent messages between two GPUs (once 120 channels, 240 thread blocks per GPU): within limits.

    The figures follow the forest plan of main today (one chunk; the test said 13 channels, 25 blocks before)."""
    g = cs.topologies.dgx2(1)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    algo = msccl.parse_text(msccl.to_xml(g, c, cs.plan(g, c, algorithm="forest")))
    assert (algo.nchannels, max(len(x.tbs) for x in algo.gpus)) == (1, 30)
    _within_limits(algo)


def test_registration_file(tmp_path):
    g = cs.topologies.ndv2(1)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    a = msccl.write(tmp_path / "ring.xml", g, c, cs.plan(g, c, algorithm="ring"))
    b = msccl.write(tmp_path / "direct.xml", g, c, cs.plan(g, c, algorithm="direct"), proto="LL")
    reg = msccl.write_registration(tmp_path / "algos.xml", [a, b])
    assert reg.read_text() == (
        '<msccl_algos>\n'
        '  <load path="ring.xml" minbytes="8388608" maxbytes="8388609" proto="Simple"/>\n'
        '  <load path="direct.xml" minbytes="8388608" maxbytes="8388609" proto="LL"/>\n'
        '</msccl_algos>\n')


A2A = [a.name for a in registry.applicable(cs.AllToAll(senders=["h0", "h1"], size=1.0))]


@pytest.mark.parametrize("algorithm", A2A)
def test_alltoall_export_reads_back_valid(tmp_path, algorithm):
    g = cs.topologies.ndv2(1)
    c = cs.AllToAll(senders=g.hosts, size=2 ** 20)
    program = cs.plan(g, c, algorithm=algorithm).lower(g, c)
    if program.denominator > 2 ** 20:   # open_shop_preemptive cuts messages into 1/2**40: refused, one line
        with pytest.raises(CollschedError, match=r"^the program cuts values into 1/\d+ pieces: MSCCL would need"):
            msccl.write(tmp_path / "a.xml", g, c, program)
        assert not (tmp_path / "a.xml").exists()
        return
    path = msccl.write(tmp_path / f"{algorithm}.xml", g, c, program)
    imp = msccl.check(path, g, size=c.size).imported
    assert imp.collective == c
    _within_limits(imp.algo)
    before = cs.simulate(g, drop_signals(program), c, model=cs.models.Fluid()).makespan
    assert cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan == before
