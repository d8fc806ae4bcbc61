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
from collsched.interop.msccl.lint import ChunkGridError, LimitError
from collsched.interop.msccl.merge import merge_concurrent
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals
from test_msccl_roundtrip import _within_limits, mi250_forest   # tests/interop is on the path (as tests/)

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


def cut_program(g, c, schedule, *, merged=False):
    """The schedule's Program without signals (``merged``: its messages sent together merged), its messages cut to
    what one MSCCL step moves (what the file runs)."""
    program = drop_signals(schedule.lower(g, c)).renumbered()
    unit, scale, _ = chunk_grid(program, c.kind, len(g.hosts))
    if merged:
        program = merge_concurrent(program, unit=unit, scale=scale)
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


def test_forest_on_two_dgx2_chassis_allreduce():
    """dgx2(2), 4 kB, one chunk: the all-reduce in rounds, its 960 chunks per loop not whole bytes at minBytes 4096,
    its shares rounded to 1/32 (the 284 trees kept), runs its Program with the messages cut to 71 chunks, exactly
    (4.0 % slower than the schedule as planned)."""
    g = cs.topologies.dgx2(2)
    c = cs.AllReduce(participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    assert s.chunks == 1
    fitted = msccl.fit_chunks(g, c, s)
    assert (fitted.chunks, len(fitted.trees)) == (1, 284) and all((x * 32).denominator == 1 for x in fitted.shares())
    imported = export_and_read_back(g, c, fitted)
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == cs.simulate(g, cut_program(g, c, fitted), c, model=FLUID).makespan
    assert round(after / before - 1, 3) == 0.040


# fabric, kind: the refusal of the forest as planned (pieces per value, chunks per loop: None when the chunks are too
# many to be whole bytes), the fitted forest's trees, its throughput over the planned one's, nchunksperloop, and the
# file's time over the schedule's under Fluid, as docs/msccl.md states them
ROUNDED = [("dgx2", "allgather", (None, 960), 207, "0.9725", 1024, -0.047),
           ("dgx2", "reducescatter", (None, 960), 198, "0.9725", 1024, -0.005),
           ("dgx_a100", "allgather", (11648, 186368), 99, "0.7692", 512, 0.013),
           ("dgx_a100", "reducescatter", (186368, 186368), 99, "0.7692", 512, 0.023)]


@pytest.mark.parametrize("fabric, kind, refused, trees, ratio, nchunks, cost", ROUNDED)
def test_forest_shares_rounded_to_fit(fabric, kind, refused, trees, ratio, nchunks, cost):
    """4 kB, one chunk. As planned, the forest is refused in one line: on dgx2(2) its 960 chunks per loop are not
    whole bytes at minBytes 131072 (the runtime would drop the rest), on dgx_a100(2) its 130 trees cut a block into
    more chunks than collsched writes. ``fit_chunks`` rounds each root's shares to multiples of 1/32 (a tree rounded
    to nothing dropped, the throughput lowered until no arc carries more than before): it exports, the messages each
    pair of GPUs sends together merged (dgx2(2): 983 thread blocks on a GPU otherwise), and the file runs that merged
    Program exactly."""
    from fractions import Fraction

    g = getattr(cs.topologies, fabric)(2)
    c = KINDS[kind](participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    assert s.chunks == 1
    with pytest.raises(ChunkGridError) as err:
        msccl.to_xml(g, c, s)
    pieces, chunks = refused
    fix = "(export a schedule with coarser pieces (msccl.fit_chunks() rounds a forest's)"
    if pieces is None:
        assert str(err.value) == (f"at minBytes 131072, {chunks} chunks per loop are chunks of {131072 / chunks:.4g} "
                                  "bytes, not a whole number of elements of any type: the runtime rounds a chunk down "
                                  f"to whole elements and never moves the rest {fix}, or give another min_bytes)")
    else:
        assert str(err.value) == (f"the program cuts values into 1/{pieces} pieces: MSCCL would need {chunks} chunks "
                                  f"per loop, collsched writes at most 65536 {fix})")
    fitted = msccl.fit_chunks(g, c, s)
    assert (fitted.chunks, len(fitted.trees), f"{float(fitted.throughput / s.throughput):.4f}") == (1, trees, ratio)
    assert all((x * 32).denominator == 1 for x in fitted.shares())
    assert fitted.throughput <= s.throughput and all(t.weight > 0 for t in fitted.trees)
    assert sum(fitted.shares(), Fraction(0)) == len(g.hosts)
    imported = export_and_read_back(g, c, fitted)
    assert imported.algo.nchunksperloop == nchunks
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == cs.simulate(g, cut_program(g, c, fitted, merged=True), c, model=FLUID).makespan
    assert round(after / before - 1, 3) == cost


# kind: nchunksperloop of the file, whether the messages were merged (else only cut to 71 chunks), and the file's
# time over the schedule's under Fluid, as docs/msccl.md states them
MI250 = [("allgather", 1024, True, 0.002), ("reducescatter", 1024, True, 0.038), ("allreduce", 1024, False, 0.127)]


@pytest.mark.parametrize("kind, nchunks, merged, cost", MI250)
def test_forest_on_two_mi250_chassis(kind, nchunks, merged, cost):
    """mi250(2), 4 kB, one chunk, 445 trees: ``msccl.ready`` rounds the shares to multiples of 1/32 (394 trees kept,
    the throughput 0.9572 of the planned one), merges the messages each pair of GPUs sends together (all-gather,
    reduce-scatter) or cuts the all-reduce's to 71 chunks, and the file runs that Program exactly. Planned and made
    ready once per run (``mi250_forest``), shared with ``test_msccl_roundtrip.py``."""
    g, c, s, ready = mi250_forest(kind)
    fitted = ready.schedule
    assert (s.chunks, len(s.trees), fitted.chunks, len(fitted.trees)) == (1, 445, 1, 394)
    assert ready.changes[0] == ("the forest in 1 chunks exported in 1 chunks with its tree shares on a grid of 1/32 "
                                "(394 of 445 trees kept, throughput 0.9572 of the planned)")
    assert all((x * 32).denominator == 1 for x in fitted.shares())
    imported = msccl.check_text(ready.text, g, size=c.size).imported   # the file ready() made
    _within_limits(imported.algo)
    assert imported.collective == c and imported.algo.nchunksperloop == nchunks
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == ready.makespan == cs.simulate(g, cut_program(g, c, fitted, merged=merged), c, model=FLUID).makespan
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    assert round(after / before - 1, 3) == cost


def test_forest_allreduce_on_two_dgx_a100_chassis():
    """dgx_a100(2), 4 kB, one chunk, in rounds: 5,824 chunks per loop are not whole bytes at minBytes 4096; with the
    shares rounded to 1/32 (99 of 130 trees) no message exceeds 71 chunks and the file runs the rounded Program
    exactly, 11.8 % faster than the schedule as planned under Fluid."""
    g = cs.topologies.dgx_a100(2)
    c = cs.AllReduce(participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    fitted = msccl.fit_chunks(g, c, s)
    assert (fitted.chunks, len(fitted.trees)) == (1, 99)
    imported = export_and_read_back(g, c, fitted)
    before = cs.simulate(g, drop_signals(s.lower(g, c)), c, model=FLUID).makespan
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == cs.simulate(g, drop_signals(fitted.lower(g, c)), c, model=FLUID).makespan
    assert round(after / before - 1, 3) == -0.118


def test_concurrent_messages_beyond_the_runtime_are_merged_else_serialised():
    """Every GPU of a 5-GPU star sends its block to 4 peers as 32 concurrent messages each: one channel per message
    would be 256 thread blocks a GPU. The export merges each pair's 32 messages (sent together) into one of 32
    chunks: 1 channel, 8 blocks a GPU, and the file runs the merged Program exactly. Unmerged, the packing
    serialises them: 20 channels and 160 blocks."""
    from collsched.interop.msccl.threadblocks import place
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
    assert (imported.algo.nchannels, max(len(x.tbs) for x in imported.algo.gpus)) == (1, 8)
    merged = merge_concurrent(program, unit=1, scale=1)
    assert merged.n_messages == 20
    after = cs.simulate(g, imported.program, c, model=FLUID).makespan
    assert after == cs.simulate(g, merged, c, model=FLUID).makespan
    placed = place(program, g, c, {k: k for k in range(5)})
    blocks = max(len({placed.tb[i] for i in placed.order if placed.gpu[i] == x}) for x in range(5))
    assert (1 + max(placed.channel.values()), blocks) == (20, 160)


def test_forest_in_too_many_chunks_names_the_count_that_fits(tmp_path):
    """A forest in 8,192 chunks on a 3-GPU star: 8,192 messages between two GPUs do not fit even serialised; the
    error names the chunk count that does, ``collsched msccl export --strict`` refuses it so, and ``collsched msccl
    export`` exports it there (``msccl.exported``), saying so in its first line (the times: ``test_msccl_ready.py``)."""
    import dataclasses

    from typer.testing import CliRunner

    from collsched.cli import app
    from collsched.collective_io import save_collective
    from collsched.schedules.io import save_schedule

    g = cs.topologies.star(3)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)   # chunks of whole bytes in 8192 chunks (128) and fewer
    s = cs.plan(g, c, algorithm="forest", chunks=8192)
    with pytest.raises(LimitError) as err:
        msccl.to_xml(g, c, s)
    assert str(err.value) == ("gpu 0 sends to gpu 1 in an order that needs more than 32 channels; the forest in 8192 "
                              "chunks does not fit, in 256 it does (plan the forest with chunks=256, or take "
                              "msccl.ready() or msccl.fit_chunks() (collsched msccl export without --strict))")
    cs.save_platform(g, tmp_path / "p.json")
    save_collective(c, tmp_path / "c.json")
    save_schedule(s, tmp_path / "s.json")
    args = ["msccl", "export", str(tmp_path / "p.json"), str(tmp_path / "c.json"), str(tmp_path / "s.json"), "-o",
            str(tmp_path / "f.xml")]
    refused = CliRunner().invoke(app, args + ["--strict"])
    assert str(refused.exception) == str(err.value) and not (tmp_path / "f.xml").exists()
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    fitted = dataclasses.replace(s, chunks=256)
    # msccl.exported: the fastest in 256 chunks of the forest's shares on each grid and ready's file
    assert out.output.splitlines()[0].startswith("changed to fit the runtime: exported forest in 256 chunks, ")
    assert msccl.parse(tmp_path / "f.xml").nchunksperloop == 3 * 256
    assert msccl.fit_chunks(g, c, fitted) is fitted
