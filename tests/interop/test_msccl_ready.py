"""``msccl.ready``: the schedule made ready for MSCCL, whose Program's time under Fluid the exported file takes exactly.

On one chassis (signals dropped) and two, and through ``collsched msccl export``, which exports ``msccl.exported``'s
schedule by default and refuses with ``--strict``. The forests fitted (fewer chunks or shares rounded, messages merged or cut) on two chassis:
``test_msccl_forest_fabrics.py``, which asserts the same equality.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import collsched as cs
from collsched.cli import app
from collsched.collective_io import save_collective
from collsched.interop import msccl
from collsched.interop.msccl.lint import ChunkGridError
from collsched.schedules.io import save_schedule

FLUID = cs.models.Fluid()
KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}


def file_makespan(g, c, text):
    """The file read back (checked valid), under Fluid."""
    imported = msccl.check_text(text, g, size=c.size).imported
    assert imported.collective == c
    return cs.simulate(g, imported.program, c, model=FLUID).makespan


# fabric(boxes), kind, algorithm, size; what changed (phrase prefixes, in order)
CASES = [("dgx2", 1, "allgather", "ring", 2 ** 20, ("896 messages without data dropped (the runtime has none)",)),
         ("dgx_a100", 1, "allreduce", "forest", 2 ** 20, ()),
         ("ndv2", 2, "reducescatter", "forest", 4096, ())]


@pytest.mark.parametrize("fabric, boxes, kind, algorithm, size, changes", CASES)
def test_file_takes_the_ready_programs_time_exactly(fabric, boxes, kind, algorithm, size, changes):
    g = getattr(cs.topologies, fabric)(boxes)
    c = KINDS[kind](participants=g.hosts, size=size)
    s = cs.plan(g, c, algorithm=algorithm)
    r = msccl.ready(g, c, s)
    assert r.makespan == cs.simulate(g, r.program, c, model=FLUID).makespan
    assert file_makespan(g, c, r.text) == r.makespan
    assert len(r.changes) == len(changes) and all(x.startswith(p) for x, p in zip(r.changes, changes))
    assert r.planned_makespan == cs.simulate(g, s.lower(g, c), c, model=FLUID).makespan
    if not r.changes:   # nothing changed: the file takes the schedule's own time
        assert r.makespan == r.planned_makespan
    cs.validate(g, c, r.program)


def test_cli_export_fits_by_default_and_reports_the_files_time(tmp_path):
    """``collsched msccl export``: dgx_a100(2), 4 kB all-gather, as planned 186,368 chunks per loop, which do not
    fit. It exports ``msccl.exported``'s schedule (the fastest of the forest's shares on each chunk grid and of
    ``msccl.ready``'s file), says so in one line, then the check's summary, and the time of the schedule exported,
    which the file read back takes, beside the schedule given's; ``--strict`` refuses (the file not written)."""
    g = cs.topologies.dgx_a100(2)
    c = cs.AllGather(participants=g.hosts, size=4096)
    s = cs.plan(g, c, algorithm="forest")
    save_collective(c, tmp_path / "c.json")
    save_schedule(s, tmp_path / "s.json")
    args = ["msccl", "export", "dgx_a100:2", str(tmp_path / "c.json"), str(tmp_path / "s.json"), "-o",
            str(tmp_path / "f.xml")]
    refused = CliRunner().invoke(app, args + ["--strict"])
    assert isinstance(refused.exception, ChunkGridError) and "186368 chunks per loop" in str(refused.exception)
    assert not (tmp_path / "f.xml").exists()
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0].startswith("changed to fit the runtime: exported forest in 1 chunks, ")
    assert lines[1].startswith(f"wrote {tmp_path / 'f.xml'}: valid allgather on 16 gpus")
    # the time shown as the schedule exported's is the file's, read back; the schedule given's is named as another's
    read_back = file_makespan(g, c, (tmp_path / "f.xml").read_text())
    given = cs.simulate(g, s.lower(g, c), c, model=FLUID).makespan
    assert lines[2].startswith(f"Fluid: the schedule exported takes {read_back * 1e6:.3f} us, gap ")
    assert lines[2].endswith(f"; the file read back {read_back * 1e6:.3f} us (= the schedule exported's); the "
                             f"schedule given, as planned, {given * 1e6:.3f} us, another schedule (above)")
