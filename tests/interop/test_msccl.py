"""MSCCL XML: the reference files read, check and simulate; mutations are rejected with the right line; the CLI."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import collsched as cs
from collsched.errors import CollschedError, FormatError, ValidationError
from collsched.interop import msccl
from collsched.interop.msccl.threadblocks import drop_signals

DATA = Path(__file__).parent / "data"
SMALL = ["allgather_allpairs.xml", "allgather_ring.xml", "allgather_ring_4_2_1.xml", "allreduce_a100_ring.xml",
         "alltoall_allpairs.xml", "reducescatter_allpairs.xml"]


@pytest.fixture(scope="module")
def dgx2():
    return cs.topologies.dgx2(1)


@pytest.mark.parametrize("name", SMALL)
def test_reference_file_checks_and_simulates(name, dgx2):
    result = msccl.check(DATA / name, dgx2)
    imp = result.imported
    algo = msccl.parse(DATA / name)
    assert imp.collective.kind == algo.coll and len(imp.program.ranks) == algo.ngpus
    assert result.summary().startswith(f"valid {algo.coll} on {algo.ngpus} gpus")
    cs.validate(dgx2, imp.collective, imp.program)
    r = cs.simulate(dgx2, imp.program, imp.collective, model=cs.models.Fluid())
    assert r.makespan > 0
    # msccl-tools writes minBytes = maxBytes = 0: the one warning
    assert [w.message.split(":")[0] for w in result.warnings] == ["minBytes and maxBytes are both 0"]


def test_teccl_32_gpus_on_mi250():
    g = cs.topologies.mi250(2)
    result = msccl.check(DATA / "teccl_amd_32.xml", g, size=2 ** 25)
    imp = result.imported
    assert result.warnings == ()
    assert imp.algo.n_steps == 3886 and len(imp.program.ranks) == 32
    assert imp.chunk_bytes == 2 ** 25 / 2          # 64 chunks per loop, 2 per GPU's block
    assert imp.program.n_messages == 1910          # one message per s step (1,910 s, 1,910 r in the file)
    r = cs.simulate(g, imp.program, imp.collective, model=cs.models.Fluid())
    assert r.makespan > 0


def _mutate(tmp_path, name, old, new, count=1):
    text = (DATA / name).read_text()
    assert text.count(old) >= count, old
    path = tmp_path / name
    path.write_text(text.replace(old, new, count))
    return path


def _line_of(path, needle):
    return next(k for k, line in enumerate(Path(path).read_text().splitlines(), 1) if needle in line)


RING = "allgather_ring.xml"
R0 = '<step s="7" type="r" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1"'   # gpu 0 tb 0, last receive


def test_chunk_written_to_the_wrong_offset(tmp_path):
    path = _mutate(tmp_path, RING, R0, R0.replace('dstoff="1"', 'dstoff="2"'))
    line = _line_of(path, R0.replace('dstoff="1"', 'dstoff="2"'))
    with pytest.raises(ValidationError) as err:
        msccl.check(path)
    assert str(err.value) == (f"{path}:{line}: gpu 0 tb 0 step 7: output chunk 2 holds m[1→*]@0 fragment 0, expected "
                              "m[2→*]@0 fragment 0; output chunk 1 is never written (the file does not implement allgather)")


def test_dependency_cycle(tmp_path):
    # gpu 0's first step waits for its own last step: a cycle through the ring
    first = '<step s="0" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>'
    text = (DATA / "allgather_allpairs.xml").read_text()
    path = tmp_path / "cycle.xml"
    # allpairs gpu 0: tb 0 sends to 1 then receives from 1; tb 1 likewise with 2. Make tb 0 step 0 wait for tb 1 step 1
    # and tb 1 step 0 wait for tb 0 step 1.
    lines = text.splitlines()
    tb_lines = [k for k, l in enumerate(lines) if "<tb " in l][:2]
    s0, s1 = tb_lines[0] + 1, tb_lines[1] + 1
    lines[s0] = lines[s0].replace('depid="-1" deps="-1"', 'depid="1" deps="1"')
    lines[s1] = lines[s1].replace('depid="-1" deps="-1"', 'depid="0" deps="1"')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CollschedError) as err:
        msccl.check(path)
    message = str(err.value)
    # hasdep is 0 on the waited-for steps: the lint names the first one; with hasdep set, the cycle is named
    assert message == (f"{path}:{s0 + 2}: gpu 0 tb 0 step 1: another thread block waits for it but hasdep is 0: the "
                       "runtime never signals it and that block hangs (set hasdep=\"1\")")
    for k in (s0 + 1, s1 + 1):
        lines[k] = lines[k].replace('hasdep="0"', 'hasdep="1"')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValidationError) as err:
        msccl.check(path)
    assert str(err.value) == (f"{path}: deadlock: gpu 0 tb 0 step 0 (line {s0 + 1}) waits for gpu 0 tb 1 step 1 "
                              f"(line {s1 + 2}), which waits for gpu 0 tb 1 step 0 (line {s1 + 1}), which waits for "
                              f"gpu 0 tb 0 step 1 (line {s0 + 2}), which waits for gpu 0 tb 0 step 0 (line {s0 + 1}) "
                              "(break the cycle: remove or reorder one of these dependencies)")
    assert first  # the unmutated step text the mutation starts from


@pytest.mark.parametrize("old, new, kind, message", [
    (' ngpus="8"', "", ValidationError,
     ':1: ngpus is missing: the runtime matches a file to a communicator by ngpus and never uses this one (write ngpus="8")'),
    ('srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>',
     'srcbuf="x" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>', FormatError,
     ":{line}: gpu 0 tb 0 step 7: srcbuf is 'x' (buffers are i (input), o (output), s (scratch))"),
    (R0, R0.replace('dstoff="1"', 'dstoff="8"'), FormatError,
     ":{line}: gpu 0 tb 0 step 7: dst o[8:9] is outside the buffer of 8 chunks (give dstoff and cnt inside gpu 0's o_chunks)"),
    ('<tb id="0" send="1" recv="7" chan="0">', '<tb id="0" send="8" recv="7" chan="0">', FormatError,
     ":{line}: gpu 0 tb 0: send peer is 8 (peers are other gpus 0..7, or -1 for none)"),
    (R0 + ' depid="-1"', R0 + ' depid="3"', FormatError,
     ":{line}: gpu 0 tb 0 step 7: depid 3 names no thread block of gpu 0 (name one of its tbs [0], or -1)"),
    (R0, R0.replace('type="r"', 'type="rx"'), FormatError,
     ":{line}: gpu 0 tb 0 step 7: unknown step type 'rx' (use one of s, r, rcs, rrs, rrc, rrcs, cpy, re, nop)"),
])
def test_mutations_rejected_with_line(tmp_path, old, new, kind, message):
    path = _mutate(tmp_path, RING, old, new)
    line = _line_of(path, new) if new else 1
    with pytest.raises(kind) as err:
        msccl.check(path)
    assert str(err.value) == f"{path}" + message.format(line=line)


def test_ngpus_unequal_to_the_gpus_described(tmp_path):
    path = _mutate(tmp_path, RING, ' ngpus="8"', ' ngpus="9"')
    with pytest.raises(FormatError) as err:
        msccl.check(path)
    assert str(err.value) == (f"{path}:1: algo: ngpus is 9 but the file describes 8 gpus (describe one <gpu> per rank "
                              "and set ngpus to their number)")


def test_truncated_file(tmp_path):
    text = (DATA / RING).read_text()
    path = tmp_path / "cut.xml"
    path.write_text(text[:len(text) // 2])
    with pytest.raises(FormatError) as err:
        msccl.check(path)
    n = len(text[:len(text) // 2].splitlines())
    assert re.fullmatch(rf"{re.escape(str(path))}:{n}: malformed XML: .* \(the file is truncated or not XML\)", str(err.value))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "collsched.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_cli_exit_codes(tmp_path):
    ok = _cli("msccl", "check", DATA / "allgather_ring_4_2_1.xml")
    assert ok.returncode == 0 and "valid allgather on 4 gpus" in ok.stdout
    bad = _mutate(tmp_path, RING, ' ngpus="8"', "")
    out = _cli("msccl", "check", bad)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.strip().startswith(f"collsched: error: {bad}:1: ngpus is missing") and out.stderr.count("\n") == 1
    sim = _cli("msccl", "simulate", DATA / "allgather_ring.xml", "dgx2", "--size", "1MiB", "--gantt", tmp_path / "g.svg")
    assert sim.returncode == 0 and "makespan" in sim.stdout and "gap" in sim.stdout
    assert (tmp_path / "g.svg").stat().st_size > 1000


def test_compare_with_an_msccl_file(dgx2):
    imp = msccl.check(DATA / "allgather_ring.xml", dgx2).imported
    from collsched.compare import compare
    cmp = compare(dgx2, imp.collective, algorithms=["ring"], extra={"msccl:ring": imp.program})
    rows = {c.algorithm: c for c in cmp.candidates}
    assert set(rows) == {"ring", "msccl:ring"} and rows["msccl:ring"].valid
    assert rows["msccl:ring"].achieved == cs.simulate(dgx2, imp.program, imp.collective, model=cs.models.Fluid()).makespan


def test_cli_export_and_simulate_compare(tmp_path):
    from collsched.collective_io import save_collective
    from collsched.schedules.io import save_schedule

    g = cs.topologies.ndv2(1)
    c = cs.ReduceScatter(participants=g.hosts, size=2 ** 20)
    save_collective(c, tmp_path / "c.json")
    save_schedule(cs.plan(g, c, algorithm="ring"), tmp_path / "s.json")
    out = _cli("msccl", "export", "ndv2", tmp_path / "c.json", tmp_path / "s.json", "-o", tmp_path / "rs.xml",
               "--registration", tmp_path / "algos.xml")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["changed to fit the runtime: exported ring: the Program of msccl.ready's file: 144 "
                         "messages without data dropped (the runtime has none)",
                         f"wrote {tmp_path / 'rs.xml'}: valid reducescatter on 8 gpus (out of place): "
                         "16 thread blocks, 224 steps, 1.049MB per chunk per rank (8 chunks per loop), 0 warnings"]
    given = cs.plan(g, c, algorithm="ring").lower(g, c)
    ring = cs.simulate(g, drop_signals(given), c, model=cs.models.Fluid())
    # the time shown as the schedule exported's is the file's; the schedule given's is shown as another's
    assert lines[2].startswith(f"Fluid: the schedule exported takes {ring.makespan * 1e6:.3f} us, gap ")
    assert lines[2].endswith(f"; the file read back {ring.makespan * 1e6:.3f} us (= the schedule exported's); the "
                             f"schedule given, as planned, "
                             f"{cs.simulate(g, given, c, model=cs.models.Fluid()).makespan * 1e6:.3f} us, another "
                             "schedule (above)")
    assert lines[3:] == [f"wrote {tmp_path / 'algos.xml'}"]
    algo = msccl.parse(tmp_path / "rs.xml")
    assert (algo.coll, algo.min_bytes, algo.max_bytes, algo.inplace, algo.outofplace) == \
        ("reducescatter", 8 * 2 ** 20, 8 * 2 ** 20 + 1, False, True)
    sim = _cli("msccl", "simulate", tmp_path / "rs.xml", "ndv2", "--size", "1MiB", "--compare")
    assert sim.returncode == 0, sim.stderr
    program = drop_signals(cs.plan(g, c, algorithm="ring").lower(g, c))   # the file has no signals
    ring = cs.simulate(g, program, c, model=cs.models.Fluid()).makespan
    first = sim.stdout.splitlines()[0]
    assert f"makespan {ring * 1e6:.3f} us" in first
    assert any(line.startswith("msccl:rs | ") for line in sim.stdout.splitlines())
    bad = _cli("msccl", "export", "ndv2", tmp_path / "c.json", tmp_path / "s.json", "-o", tmp_path / "rs.txt")
    assert bad.returncode == 2 and bad.stderr.startswith("collsched: error: -o ") and "Traceback" not in bad.stderr
