"""Export → read: every registered algorithm of AllGather, ReduceScatter, AllReduce on dgx2(1), ndv2(1), dgx_a100(1)."""

from __future__ import annotations

import pytest

import collsched as cs
from collsched.errors import CollschedError
from collsched.algorithms import registry
from collsched.interop import msccl

FABRICS = {"dgx2": lambda: cs.topologies.dgx2(1), "ndv2": lambda: cs.topologies.ndv2(1),
           "dgx_a100": lambda: cs.topologies.dgx_a100(1)}
KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}

CASES = [(f, k, a.name) for f in FABRICS for k, C in KINDS.items()
         for a in registry.applicable(C(participants=["h0", "h1"], size=1.0))]


@pytest.mark.parametrize("fabric, kind, algorithm", CASES)
def test_export_reads_back_valid(tmp_path, fabric, kind, algorithm):
    g = FABRICS[fabric]()
    c = KINDS[kind](participants=g.hosts, size=2 ** 20)
    program = cs.plan(g, c, algorithm=algorithm).lower(g, c)
    path = msccl.write(tmp_path / f"{algorithm}.xml", g, c, program)
    result = msccl.check(path, g, size=c.size)
    imp = result.imported
    assert imp.collective == c
    cs.validate(g, imp.collective, imp.program)
    algo = imp.algo
    assert algo.min_bytes == algo.max_bytes == int(msccl.call_bytes(c)) and algo.ngpus == len(g.hosts)
    assert all(w.message.startswith("gpu ") and "RCCL accepts 64" in w.message for w in result.warnings)
    before = cs.simulate(g, program, c, model=cs.models.Fluid()).makespan
    after = cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan
    assert after == before
    assert imp.program.bytes_sent == program.bytes_sent


def test_registration_file(tmp_path):
    g = cs.topologies.ndv2(1)
    c = cs.AllGather(participants=g.hosts, size=2 ** 20)
    a = msccl.write(tmp_path / "ring.xml", g, c, cs.plan(g, c, algorithm="ring"))
    b = msccl.write(tmp_path / "direct.xml", g, c, cs.plan(g, c, algorithm="direct"))
    reg = msccl.write_registration(tmp_path / "algos.xml", [a, b])
    assert reg.read_text() == '<msccl_algos>\n  <load path="ring.xml"/>\n  <load path="direct.xml"/>\n</msccl_algos>\n'


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
    before = cs.simulate(g, program, c, model=cs.models.Fluid()).makespan
    assert cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan == before
