"""Races between thread blocks, rooted collectives read from hand-written files, and GPUs that are not the platform's
first hosts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import collsched as cs
from collsched.errors import FormatError, ValidationError
from collsched.interop import msccl
from collsched.interop.msccl.threadblocks import drop_signals
from collsched.interop.msccl.xml_read import EXAMPLE

DATA = Path(__file__).parent / "data"


def test_race_write_write():
    """gpu 1 gets a second block that overwrites the chunk its receive brings, with nothing ordering the two."""
    extra = ('    <tb id="1" send="-1" recv="-1" chan="0">\n      <step s="0" type="cpy" srcbuf="o" srcoff="1" dstbuf="o" '
             'dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>\n    </tb>\n  </gpu>\n</algo>\n')
    text = EXAMPLE[:EXAMPLE.rindex("  </gpu>")] + extra
    with pytest.raises(ValidationError) as err:
        msccl.check_text(text, source="w.xml")
    assert str(err.value) == ("w.xml:15: gpu 1: race on o[0]: tb 0 step 1 writes it and tb 1 step 0 writes it, and no "
                              "dependency orders them (thread blocks run concurrently) (make one wait for the other "
                              "with depid/deps)")
    # ordered by a dependency (and the waited step signalled): no race, and the receive's value is the last
    fixed = text.replace('dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>\n    </tb>\n  </gpu>\n</algo>',
                         'dstoff="0" cnt="1" depid="0" deps="1" hasdep="0"/>\n    </tb>\n  </gpu>\n</algo>')
    fixed = fixed.replace('type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"',
                          'type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="1"')
    with pytest.raises(ValidationError, match=r"^w\.xml:15: gpu 1 tb 1 step 0: output chunk 0 holds m\[1→\*\]@0"):
        msccl.check_text(fixed, source="w.xml")   # ordered now: the copy comes last and leaves the wrong value


def test_race_read_write_in_teccl_file():
    """TE-CCL's file without the dependency of gpu 0's send of o[8] on the receive that brings it (line 9)."""
    lines = (DATA / "teccl_amd_32.xml").read_text().split("\n")
    assert lines[8].strip().startswith('<step s="3" type="s" srcbuf="o" srcoff="8"') and 'depid="8" deps="1"' in lines[8]
    lines[8] = lines[8].replace('depid="8" deps="1"', 'depid="-1" deps="-1"')
    with pytest.raises(ValidationError) as err:
        msccl.check_text("\n".join(lines), source="t.xml")
    assert str(err.value) == ("t.xml:106: gpu 0: race on o[8]: tb 0 step 3 reads it and tb 8 step 1 writes it, and no "
                              "dependency orders them (thread blocks run concurrently) (make one wait for the other "
                              "with depid/deps)")


BCAST = """<algo name="b" proto="Simple" nchannels="1" nchunksperloop="1" ngpus="3" coll="broadcast" inplace="0"
      outofplace="1" minBytes="1" maxBytes="1024">
  <gpu id="0" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="-1" recv="2" chan="0">
      <step s="0" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="-1" recv="2" chan="0">
      <step s="0" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="2" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="0" recv="-1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="1" send="1" recv="-1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
    <tb id="2" send="-1" recv="-1" chan="0">
      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
"""


def test_hand_written_broadcast_with_root_2():
    result = msccl.check_text(BCAST, source="b.xml", size=8.0)
    assert result.imported.collective == cs.Broadcast(source="h2", targets=["h0", "h1"], size=8.0)
    # in place, as msccl-tools writes a broadcast: the output is the input, the root has nothing to copy
    in_place = BCAST.replace('inplace="0"\n      outofplace="1"', 'inplace="1"\n      outofplace="0"').replace(
        '      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" '
        'hasdep="0"/>\n', '')
    assert in_place.count("cpy") == 0 and 'inplace="1"' in in_place
    assert msccl.check_text(in_place, source="b.xml", size=8.0).imported.inplace
    # the root's output must hold the data too (NCCL's broadcast writes the root's receive buffer)
    no_copy = BCAST.replace('      <step s="0" type="cpy" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" '
                            'deps="-1" hasdep="0"/>\n', '')
    with pytest.raises(ValidationError, match=r"^b\.xml:13: gpu 2: output chunk 0 is never written"):
        msccl.check_text(no_copy, source="b.xml")
    two_roots = BCAST.replace('<tb id="0" send="-1" recv="2" chan="0">\n      <step s="0" type="r"',
                              '<tb id="0" send="-1" recv="2" chan="0">\n      <step s="0" type="cpy"', 1)
    with pytest.raises(FormatError) as err:
        msccl.check_text(two_roots, source="b.xml")
    assert str(err.value) == ("b.xml:1: broadcast: gpus 0, 2 all receive nothing, so the root is ambiguous (every gpu "
                              "but the root receives)")


REDUCE = """<algo name="r" proto="Simple" nchannels="1" nchunksperloop="1" ngpus="3" coll="reduce" inplace="0"
      outofplace="1" minBytes="1" maxBytes="1024">
  <gpu id="0" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="-1" recv="FIRST" chan="0">
      <step s="0" type="rrc" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="1"/>
    </tb>
    <tb id="1" send="-1" recv="SECOND" chan="0">
      <step s="0" type="rrc" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="0" deps="0" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="0" recv="-1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="2" i_chunks="1" o_chunks="1" s_chunks="0">
    <tb id="0" send="0" recv="-1" chan="0">
      <step s="0" type="s" srcbuf="i" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
"""


def test_reduce_of_operand_ranges_that_are_not_adjacent():
    """A reduce file is read as ordered partial results: v[0..0] with v[1..1], then with v[2..2]; not v[0..0] with v[2..2]."""
    good = REDUCE.replace('"FIRST"', '"1"').replace('"SECOND"', '"2"')
    imp = msccl.check_text(good, source="r.xml", size=8.0).imported
    assert imp.collective == cs.Reduce(participants=["h0", "h1", "h2"], target="h0", size=8.0)
    bad = REDUCE.replace('"FIRST"', '"2"').replace('"SECOND"', '"1"')
    with pytest.raises(ValidationError) as err:
        msccl.check_text(bad, source="r.xml")
    assert str(err.value) == ("r.xml:5: gpu 0 tb 0 step 0: reduces v[0..0]@0 fragment 0 with v[2..2]@0 fragment 0, "
                              "operand ranges that are not adjacent (collsched reads a reduce as ordered partial "
                              "results v[k..m]: combine adjacent ranges)")


def test_participants_not_the_first_hosts(tmp_path):
    """GPU g of the file is the collective's g-th participant: here dgx2's last eight GPUs, in reverse order."""
    g = cs.topologies.dgx2(1)
    hosts = list(reversed(g.hosts[8:]))
    c = cs.AllGather(participants=hosts, size=2 ** 20)
    program = cs.plan(g, c, algorithm="ring").lower(g, c)
    path = msccl.write(tmp_path / "ag.xml", g, c, program)
    imp = msccl.check(path, g, size=c.size, ranks=hosts).imported
    assert imp.collective == c and imp.program.ranks == tuple(hosts)
    before = cs.simulate(g, drop_signals(program), c, model=cs.models.Fluid()).makespan
    assert cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid()).makespan == before
    # read as the first eight hosts instead, it is another (valid) allgather on other GPUs
    assert msccl.check(path, g, size=c.size).imported.collective.participants == tuple(g.hosts[:8])
    with pytest.raises(FormatError, match=r"ranks: host 'x9' is not a host of the platform"):
        msccl.read(path, g, ranks=hosts[:-1] + ["x9"])
    cli = [sys.executable, "-m", "collsched.cli", "msccl", "simulate", str(path), "dgx2", "--ranks", ",".join(hosts)]
    out = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"makespan {before * 1e6:.3f} us" in out.stdout.splitlines()[0]


def test_vector_clock_race_check_agrees_with_bit_sets():
    """The fast check (vector clocks, thread-block chains) says "a race" exactly when the quadratic one finds one."""
    import random

    from collsched.interop.msccl.races import _any_race, _first_race_exact

    rng = random.Random(16)
    verdicts = set()
    for _ in range(400):
        n = rng.randint(2, 14)
        gpu = [rng.randrange(2) for _ in range(n)]
        tb = [rng.randrange(3) for _ in range(n)]
        waits = []
        for i in range(n):
            ws = {j for j in range(i) if rng.random() < 0.15}
            prev = [j for j in range(i) if (gpu[j], tb[j]) == (gpu[i], tb[i])]
            if prev:
                ws.add(prev[-1])   # a block's steps run in order
            waits.append(sorted(ws))
        access = [[(rng.randrange(3), rng.choice("rw")) for _ in range(rng.randint(0, 2))] for _ in range(n)]
        fast = _any_race(access, tb, waits, gpu)
        assert fast == (_first_race_exact(access, tb, waits, gpu) is not None)
        verdicts.add(fast)
    assert verdicts == {True, False}
