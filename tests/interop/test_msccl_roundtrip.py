"""Export → read: every registered algorithm of AllGather, ReduceScatter, AllReduce, Broadcast and Reduce (and
AlltoAll) on every GPU fabric, one chassis (dgx2, ndv2, dgx_a100 at 1 MiB; mi250 at 4 kB) and two (dgx2(2), ndv2(2),
dgx_a100(2), mi250(2) at 4 kB): valid, within the runtime's limits, and exactly as fast under Fluid as the Program
``msccl.ready`` says it runs, and as the schedule ``msccl.exported`` exports and ``collsched msccl export`` reports; that Program as fast as the schedule's without its signals where nothing but the signals
changed (the forests that do not fit as planned are fitted by ``msccl.ready``: ``test_msccl_forest_fabrics.py`` and
``test_msccl_ready.py``). The forest on mi250(2) (445 trees) is planned and made ready once per run
(:func:`mi250_forest`), for this file and ``test_msccl_forest_fabrics.py``."""

from __future__ import annotations

import functools

import pytest

import collsched as cs
from collsched.algorithms import registry
from collsched.interop import msccl
from collsched.interop.msccl.fabrics import KINDS, ROUND_TRIP, collective, fabric
from collsched.interop.msccl.lint import ChunkGridError, MAX_CHANNELS, MAX_COUNT, MAX_STEPS, MAX_TBS, MAX_TBS_PER_CHANNEL
from collsched.interop.msccl.parts import round_parts
from collsched.interop.msccl.threadblocks import drop_signals

ALLTOALL = [a.name for a in registry.applicable(KINDS["alltoall"](["h0", "h1", "h2"], 1.0))]


CASES = [(f, k, a.name) for f in ROUND_TRIP for k, make in KINDS.items() if k != "alltoall"
         for a in registry.applicable(make(["h0", "h1", "h2"], 1.0))] + \
        [(f, "alltoall", a) for f in ROUND_TRIP for a in ALLTOALL]


@functools.cache
def mi250_forest(kind: str):
    """``(platform, collective, schedule, msccl.ready(...))`` of the forest on mi250(2) at 4 kB, its own chunk count:
    computed once per run (seconds: its 445 trees), for this file and ``test_msccl_forest_fabrics.py``."""
    g = fabric("mi250:2")
    c = collective(kind, g, ROUND_TRIP["mi250:2"])
    s = cs.plan(g, c, algorithm="forest")
    return g, c, s, msccl.ready(g, c, s)


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


@pytest.mark.parametrize("name, kind, algorithm", CASES)
def test_export_reads_back_valid(tmp_path, name, kind, algorithm):
    g = fabric(name)
    c = collective(kind, g, ROUND_TRIP[name])
    # the forest on one chassis in 4 chunks (its own choice at 1 MiB, up to 64, takes minutes to fit on ndv2(1));
    # on two, its own choice at 4 kB (1 chunk)
    options = {"chunks": 4} if algorithm == "forest" and ":" not in name else {}
    if (name, algorithm) == ("mi250:2", "forest"):
        g, c, schedule, ready = mi250_forest(kind)
        program = None   # not needed: msccl.ready fits this forest (below)
    else:
        schedule = cs.plan(g, c, algorithm=algorithm, **options)
        program = schedule.lower(g, c)
        ready = msccl.ready(g, c, schedule)
    path = ready.write(tmp_path / f"{algorithm}.xml")
    result = msccl.check(path, g, size=c.size)
    imp = result.imported
    assert imp.collective == c
    cs.validate(g, imp.collective, imp.program)
    algo = imp.algo
    assert (algo.min_bytes, algo.max_bytes) == (int(msccl.call_bytes(c)), int(msccl.call_bytes(c)) + 1)
    assert algo.ngpus == len(g.hosts)
    assert all(w.message.startswith("gpu ") and "RCCL accepts 64" in w.message for w in result.warnings)
    _within_limits(algo)
    # the file takes exactly the time of the Program ready() says it runs (its cpy and nop steps cost nothing)
    after = cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan
    assert after == ready.makespan
    if all(x.endswith("messages without data dropped (the runtime has none)") for x in ready.changes):
        # the file has no messages without data (the runtime has none): it runs the Program without its signals,
        # packed into thread blocks, in the same time under Fluid
        assert ready.schedule is schedule and after == cs.simulate(g, drop_signals(program), c,
                                                                   model=cs.models.Fluid()).makespan
        assert imp.program.bytes_sent == program.bytes_sent
    elif algorithm == "open_shop_preemptive":
        # its parts of messages on 1/2**40 are no chunks: as it is, refused in one line; made ready, rounded to
        # 1/64 of a message (64 chunks, within one step's 71), and the file runs that schedule without its signals
        with pytest.raises(ChunkGridError, match=r"^the program cuts values into 1/1099511627776 pieces: MSCCL would "
                                                 r"need \d+ chunks per loop, collsched writes at most 65536"):
            msccl.write(tmp_path / "a.xml", g, c, program)
        assert not (tmp_path / "a.xml").exists()
        parts, signals = ready.changes
        assert parts == (f"parts of messages rounded from 1/{2 ** 40} to 1/64 of a message ({schedule.n_transfers} "
                         f"parts → {ready.schedule.n_transfers})")
        assert signals.endswith("messages without data dropped (the runtime has none)")
        assert ready.schedule == round_parts(schedule, 64)
        cs.validate(g, c, ready.schedule)
        rounded = drop_signals(ready.schedule.lower(g, c))
        assert after == cs.simulate(g, rounded, c, model=cs.models.Fluid()).makespan
        assert imp.program.bytes_sent == rounded.bytes_sent
    else:   # only the forest changes otherwise: fitted, its messages merged or cut, its thread blocks' order
        assert algorithm == "forest"
    # what ``collsched msccl export`` writes and reports as the schedule's time (the schedule exported's,
    # msccl.exported): the file's, exactly
    p = msccl.exported(g, c, schedule, made=ready)
    r = p.ready
    assert r.changes == () and r.planned_makespan == r.makespan and r.planned is p.exported
    if r.text == ready.text:
        assert after == r.planned_makespan
    else:   # a forest that does not export as it is: the fastest of its shares on each grid and ready's file
        assert algorithm == "forest" and p.grid is not None and r.makespan <= ready.makespan
        back = msccl.check_text(r.text, g, size=c.size).imported
        cs.validate(g, c, back.program)
        _within_limits(back.algo)
        assert cs.simulate(g, back.program, c, model=cs.models.Fluid()).makespan == r.planned_makespan


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
