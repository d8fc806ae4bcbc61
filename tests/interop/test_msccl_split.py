"""Messages of more chunks than one MSCCL step moves: cut into consecutive steps, read back, same time as the cut
Program (a forest all-reduce lowered in rounds on dgx2(2), whose round messages carry up to 82 chunks)."""

from __future__ import annotations

import collsched as cs
from collsched.interop import msccl
from collsched.interop.msccl.lint import MAX_COUNT
from collsched.interop.msccl.split import chunk_grid, split_messages
from collsched.interop.msccl.threadblocks import drop_signals
from collsched.schedules.program import SEND


def _chunks(program, unit, scale):
    """Chunks each message of ``program`` moves."""
    rows = program.pieces
    per_row = (rows[:, 5] - rows[:, 4]) // unit * scale
    return [int(per_row[program.piece_ptr[i]:program.piece_ptr[i + 1]].sum())
            for i in range(program.n_ops) if program.op_kind[i] == SEND]


def test_round_forest_allreduce_exports_cut_messages():
    g = cs.topologies.dgx2(2)
    c = cs.AllReduce(participants=g.hosts, size=2 ** 20)
    s = msccl.fit_chunks(g, c, cs.plan(g, c, algorithm="forest", chunks=1))   # its shares on a grid of whole bytes
    assert s.messages == "round"
    program = drop_signals(s.lower(g, c)).renumbered()
    unit, scale, nchunks = chunk_grid(program, "allreduce", len(g.hosts))
    big = [k for k in _chunks(program, unit, scale) if k > MAX_COUNT]
    assert big   # the round messages the runtime could not move in one step
    cut = split_messages(program, unit=unit, scale=scale)
    assert max(_chunks(cut, unit, scale)) <= MAX_COUNT
    assert cut.n_messages - program.n_messages == sum(-(-k // MAX_COUNT) - 1 for k in big)
    assert cut.bytes_sent == program.bytes_sent
    cs.validate(g, c, cut)
    result = msccl.check_text(msccl.to_xml(g, c, s), g, size=c.size)
    imp = result.imported
    assert imp.algo.nchunksperloop == nchunks
    assert max(st.cnt for x in imp.algo.gpus for tb in x.tbs for st in tb.steps) <= MAX_COUNT
    fluid = cs.models.Fluid()   # check() has validated the Program read back
    before = cs.simulate(g, program, c, model=fluid).makespan
    after = cs.simulate(g, imp.program, imp.collective, model=fluid).makespan
    # the file runs the cut Program, in its time; a part waits for the one before it to arrive, so the cut pays
    # route latencies again (here one inter-chassis latency, 2.6 us, on the critical path)
    assert after == cs.simulate(g, cut, c, model=fluid).makespan
    assert before < after <= before + (cut.n_messages - program.n_messages) * g.latency("h0", "h16")


def test_split_keeps_small_messages():
    """A program whose messages fit in a step is exported as before: the same object, not a copy."""
    g = cs.topologies.dgx2(1)
    c = cs.AllReduce(participants=g.hosts, size=2 ** 20)
    program = drop_signals(cs.plan(g, c, algorithm="forest").lower(g, c)).renumbered()
    unit, scale, _ = chunk_grid(program, "allreduce", len(g.hosts))
    assert split_messages(program, unit=unit, scale=scale) is program


def test_round_forest_allgather_on_two_ndv2_chassis():
    """A forest all-gather lowered in rounds (what a series gets; one instance here, the file has one) on ndv2(2):
    its round messages fit in a step, and the file takes the Program's time exactly."""
    import dataclasses

    g = cs.topologies.ndv2(2)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    s = dataclasses.replace(cs.plan(g, c, algorithm="forest", chunks=1), messages="round")
    program = drop_signals(s.lower(g, c)).renumbered()
    imp = msccl.check_text(msccl.to_xml(g, c, s), g, size=c.size).imported
    fluid = cs.models.Fluid()   # check() has validated the Program read back
    assert cs.simulate(g, imp.program, c, model=fluid).makespan == cs.simulate(g, program, c, model=fluid).makespan
