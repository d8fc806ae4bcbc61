"""The forest's exports on two-chassis GPU fabrics, within every runtime limit (issue 16), and what they cost.

Each exported file reads back (``parse_text``), checks valid (the symbolic run) and stays within the runtime's
limits; its time under ``Fluid`` is compared with the Program's as ``docs/msccl.md`` states it. Small sizes keep the
forest in one or two chunks; the packing's fallbacks (messages serialised on fewer channels, fewer chunks) are
tested on small platforms, where they are cheap.
"""

from __future__ import annotations

import pytest

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.lint import LimitError
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals
from test_msccl_roundtrip import _within_limits   # tests/interop is on the path, as tests/ is for programs.py

KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}
FLUID = cs.models.Fluid()


def export_and_read_back(g, c, schedule):
    """The file's text checked valid (the symbolic run, deadlock and race checks), parsed, within limits."""
    text = msccl.to_xml(g, c, schedule)
    algo = msccl.parse_text(text)
    _within_limits(algo)
    imported = msccl.check_text(text, g, size=c.size).imported
    assert imported.collective == c
    return imported


def cut_program(g, c, schedule):
    """The schedule's Program without signals, its messages cut to what one MSCCL step moves (what the file runs)."""
    program = drop_signals(schedule.lower(g, c)).renumbered()
    unit, scale, _ = chunk_grid(program, c.kind, len(g.hosts))
    return split_messages(program, unit=unit, scale=scale)


@pytest.mark.parametrize("kind", list(KINDS))
def test_forest_on_two_ndv2_chassis_exports_in_the_programs_time(kind):
    """ndv2(2), 4 kB: the forest's own chunk count exports as it is, and the file takes the Program's time."""
    g = cs.topologies.ndv2(2)
    c = KINDS[kind](participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    imported = export_and_read_back(g, c, s)
    program = drop_signals(s.lower(g, c))
    assert cs.simulate(g, imported.program, c, model=FLUID).makespan == cs.simulate(g, program, c, model=FLUID).makespan


@pytest.mark.parametrize("kind", ["allgather", "reducescatter", "allreduce"])
def test_forest_on_two_dgx2_chassis(kind):
    """dgx2(2), 4 kB, one chunk. The all-gather's 207 trees and the reduce-scatter's 198 would need 983 and 995
    thread blocks on a GPU: serialised, they fit, and run 22.7 and 26.2 times slower than their schedules
    (``docs/msccl.md``). The all-reduce in rounds fits as it is and runs its Program with the messages cut to 71
    chunks, exactly (4.0 % slower than the schedule)."""
    g = cs.topologies.dgx2(2)
    c = KINDS[kind](participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    assert s.chunks == 1
    imported = export_and_read_back(g, c, s)
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    if kind == "allreduce":
        assert after == cs.simulate(g, cut_program(g, c, s), c, model=FLUID).makespan
        assert round(after / before - 1, 3) == 0.040
    else:
        assert round(after / before, 1) == {"allgather": 22.7, "reducescatter": 26.2}[kind]


def test_forest_allreduce_on_two_dgx_a100_chassis():
    """dgx_a100(2), 4 kB, one chunk, in rounds: the file runs the Program with its messages cut to 71 chunks exactly,
    81.7 % slower than the schedule (a part pays the route latency again)."""
    g = cs.topologies.dgx_a100(2)
    c = cs.AllReduce(participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    imported = export_and_read_back(g, c, s)
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == cs.simulate(g, cut_program(g, c, s), c, model=FLUID).makespan
    assert round(after / before - 1, 3) == 0.817


@pytest.mark.parametrize("fabric, kind, pieces, chunks", [("dgx_a100", "allgather", 11648, 186368),
                                                          ("dgx_a100", "reducescatter", 186368, 186368),
                                                          ("mi250", "allgather", 5312, 169984)])
def test_forest_too_finely_cut_is_refused_in_one_line(fabric, kind, pieces, chunks):
    """dgx_a100(2) and mi250(2): the forest's 130 and 445 trees cut a block so finely that even one chunk needs more
    chunks per loop than collsched writes; no chunk count fits, and the error says so in one line."""
    g = getattr(cs.topologies, fabric)(2)
    c = KINDS[kind](participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    assert s.chunks == 1
    with pytest.raises(LimitError) as err:
        msccl.to_xml(g, c, s)
    assert str(err.value) == (f"the program cuts values into 1/{pieces} pieces: MSCCL would need {chunks} chunks per "
                              "loop, collsched writes at most 65536 (export a schedule with coarser pieces)")
    with pytest.raises(LimitError) as again:
        msccl.fit_chunks(g, c, s)
    assert str(again.value) == str(err.value)


def test_concurrent_messages_beyond_the_runtime_are_serialised():
    """Every GPU of a 5-GPU star sends its block to 4 peers as 32 concurrent messages each: one channel per message
    would be 256 thread blocks a GPU; serialised, 20 channels and 160 blocks, and the file is slower than the Program
    by the latencies of the messages that now wait for the one before them on their channel (0.7 % here)."""
    from collsched.schedules.program import ProgramBuilder
    from collsched.schedules.values import Piece, block

    g = cs.topologies.star(5)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    b = ProgramBuilder(g.hosts, denominator=32)
    for src in g.hosts:
        for dst in g.hosts:
            for k in range(32 if dst != src else 0):
                b.send(src, dst, [Piece(block(0, g.host_index(src), -1), k, k + 1)], size=2 ** 15, after=(),
                       recv_after=())
    program = b.build()
    imported = export_and_read_back(g, c, program)
    assert (imported.algo.nchannels, max(len(x.tbs) for x in imported.algo.gpus)) == (20, 160)
    before = cs.simulate(g, program, c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert before < after < before * 1.01


def test_forest_in_too_many_chunks_names_the_count_that_fits(tmp_path):
    """A forest in 8,192 chunks on a 3-GPU star: 8,192 messages between two GPUs do not fit even serialised; the
    error names the chunk count that does, and ``collsched msccl export --fit-chunks`` exports it there, printing
    both times under Fluid."""
    import dataclasses

    from typer.testing import CliRunner

    from collsched.cli import app
    from collsched.collective_io import save_collective
    from collsched.schedules.io import save_schedule

    g = cs.topologies.star(3)
    c = cs.AllGather(participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest", chunks=8192)
    with pytest.raises(LimitError) as err:
        msccl.to_xml(g, c, s)
    assert str(err.value) == ("gpu 0 sends to gpu 1 in an order that needs more than 32 channels; the forest in 8192 "
                              "chunks does not fit, in 256 it does (plan the forest with chunks=256, or take "
                              "msccl.fit_chunks() (collsched msccl export --fit-chunks))")
    cs.save_platform(g, tmp_path / "p.json")
    save_collective(c, tmp_path / "c.json")
    save_schedule(s, tmp_path / "s.json")
    out = CliRunner().invoke(app, ["msccl", "export", str(tmp_path / "p.json"), str(tmp_path / "c.json"),
                                   str(tmp_path / "s.json"), "-o", str(tmp_path / "f.xml"), "--fit-chunks"])
    assert out.exit_code == 0, out.output
    fitted = dataclasses.replace(s, chunks=256)
    before, after = (cs.simulate(g, x.lower(g, c), c, model=FLUID).makespan for x in (s, fitted))
    assert out.output.splitlines()[0] == (f"the forest in 8192 chunks exceeds the runtime's limits: exported in 256 "
                                          f"chunks (Fluid: {after * 1e6:.3f} us, against {before * 1e6:.3f} us in 8192)")
    assert msccl.parse(tmp_path / "f.xml").nchunksperloop == 3 * 256
    assert msccl.fit_chunks(g, c, fitted) is fitted
