"""``msccl.plan``: a schedule planned in MSCCL's model, whose planned time the exported file takes exactly.

The forest on every fabric of the round trip (one chassis at 1 MiB in 4 chunks, as the round trip plans it, but
``mi250`` at 4 kB; two at 4 kB, the planner's chunks), one collective per fabric, each kind on two or three of them
(``python benchmarks/bench_msccl_planned.py --planned`` runs all 24); baselines; the grid shares against the LP
relaxation and against rounding; and ``collsched msccl plan``.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from typer.testing import CliRunner

import collsched as cs
from collsched.algorithms.gpu.lower_shallow import link_loads
from collsched.cli import app, main
from collsched.cli_msccl import report
from collsched.collective_io import save_collective
from collsched.interop import msccl
from collsched.schedules.base import Status
from collsched.schedules.validate import lower_any
from test_msccl_roundtrip import mi250_forest   # tests/interop is on the path (as tests/)

FLUID = cs.models.Fluid()
KINDS = {"allgather": cs.AllGather, "reducescatter": cs.ReduceScatter, "allreduce": cs.AllReduce}


def file_makespan(g, c, text):
    """The file read back (checked valid, the collective it claims ``c``), under Fluid."""
    imported = msccl.check_text(text, g, size=c.size).imported
    assert imported.collective == c
    cs.validate(g, c, imported.program)
    return cs.simulate(g, imported.program, c, model=FLUID).makespan


# fabric, boxes, kind, size, chunks
FORESTS = [("dgx2", 1, "allreduce", 2 ** 20, 4), ("ndv2", 1, "allgather", 2 ** 20, 4),
           ("dgx_a100", 1, "reducescatter", 2 ** 20, 4), ("mi250", 1, "allreduce", 4096, None),
           ("dgx2", 2, "reducescatter", 4096, None), ("ndv2", 2, "allreduce", 4096, None),
           ("dgx_a100", 2, "allgather", 4096, None), ("mi250", 2, "reducescatter", 4096, None)]


@pytest.mark.parametrize("fabric, boxes, kind, size, chunks", FORESTS)
def test_forest_planned_time_is_the_files(fabric, boxes, kind, size, chunks):
    """The forest planned in MSCCL's model (``msccl.plan``'s: ``fastest_forest`` of the planner's forest, fewer
    chunks too where the planner chose them) is exported unchanged, its planned time is the file's to the last bit,
    it is no slower than ``msccl.ready``'s file of the planner's forest, nor than any candidate it lists as slower."""
    if (fabric, boxes) == ("mi250", 2):   # its 445 trees planned and made ready once per run
        g, c, forest, made = mi250_forest(kind)
    else:
        g = getattr(cs.topologies, fabric)(boxes)
        c = KINDS[kind](participants=g.hosts, size=size)
        forest = cs.plan(g, c, algorithm="forest", chunks=chunks)
        made = msccl.ready(g, c, forest)
    p = msccl.fastest_forest(g, c, forest, fewer=chunks is None, made=made)
    r = p.ready
    assert r.changes == () and r.makespan == r.planned_makespan and p.same
    assert r.planned is p.exported and r.planned_makespan == cs.simulate(g, lower_any(g, c, p.exported), c,
                                                                         model=FLUID).makespan
    assert file_makespan(g, c, r.text) == r.makespan
    assert r.makespan <= made.makespan and p.given_makespan == made.planned_makespan
    slower = [float(x.split(": ")[1].split(" us")[0]) for x in p.rejected if x.endswith(" us, slower")]
    assert slower and all(t >= round(r.makespan * 1e6, 3) for t in slower)
    if p.grid is not None:   # the shares are on the grid, and the forest claims the grid's throughput
        assert p.schedule is p.exported and p.made_ready == ()
        assert all((s * p.grid.k).denominator == 1 for s in p.schedule.shares())
        assert p.schedule.throughput == p.grid.throughput <= p.schedule.rate_bound
        assert msccl.ready(g, c, p.schedule).text == r.text   # and msccl.ready of it changes nothing either
    else:   # msccl.ready's file of the planner's forest was the fastest: the plan is the Program it runs
        assert p.made_ready == made.changes != () and p.exported is made.program and r.text == made.text
        assert p.schedule is made.schedule


def test_grid_shares_exact_and_bounded():
    """dgx_a100(2), 4 kB reduce-scatter (130 trees): on every grid the units add up to K per root, the throughput is
    the exact one of those units, no more than the LP relaxation's, and at least what rounding the planner's shares
    claims (``round_shares``: 0.7692 of the planner's on 1/32, where the grid's best is 0.9979)."""
    g = cs.topologies.dgx_a100(2)
    c = cs.ReduceScatter(participants=g.hosts, size=4096)
    f = cs.plan(g, c, algorithm="forest")
    for k in (32, 4, 1):
        s = msccl.grid_shares(g, f, k)
        assert s.status is Status.OPTIMAL
        for root in f.participants:
            assert sum(u for u, t in zip(s.units, f.trees) if t.root == root) == k
        arcs = [(u, v, Fraction(n, k)) for n, t in zip(s.units, f.trees) for u, v in t.arcs]
        assert s.throughput == min(Fraction(g.links[x].bandwidth) / load
                                   for (x, _), load in link_loads(g, arcs).items() if load)
        assert float(s.throughput) <= s.relaxation
        assert s.throughput >= msccl.round_shares(f, k).throughput
    assert f"{float(msccl.grid_shares(g, f, 32).throughput / f.throughput):.4f}" == "0.9979"
    assert f"{float(msccl.round_shares(f, 32).throughput / f.throughput):.4f}" == "0.7692"


@pytest.mark.parametrize("fabric, boxes, kind, size, algorithm", [
    ("ndv2", 1, "allreduce", 2 ** 20, "halving_doubling"), ("dgx2", 1, "allgather", 2 ** 20, "ring"),
    ("ndv2", 2, "reducescatter", 4096, "hierarchical"), ("dgx2", 2, "allreduce", 4096, "double_binary_tree")])
def test_baseline_planned_without_signals(fabric, boxes, kind, size, algorithm):
    """A baseline is planned (lowered) for MSCCL without its messages without data: its planned time is the
    file's; the schedule as planned with signals takes another."""
    g = getattr(cs.topologies, fabric)(boxes)
    c = KINDS[kind](participants=g.hosts, size=size)
    p = msccl.plan(g, c, algorithm=algorithm)
    r = p.ready
    assert r.changes == () and r.makespan == r.planned_makespan and p.grid is None and p.signals > 0
    assert file_makespan(g, c, r.text) == r.makespan
    with_signals = msccl.ready(g, c, p.schedule)
    assert with_signals.text == r.text and with_signals.makespan == r.makespan
    assert with_signals.planned_makespan != r.planned_makespan
    assert with_signals.changes == (f"{p.signals} messages without data dropped (the runtime has none)",)


def test_cli_plan_writes_the_file_and_says_the_times_are_equal(tmp_path):
    g = cs.topologies.ndv2(2)
    c = cs.AllGather(participants=g.hosts, size=4096)
    save_collective(c, tmp_path / "c.json")
    out = CliRunner().invoke(app, ["msccl", "plan", "ndv2:2", str(tmp_path / "c.json"), "-o", str(tmp_path / "f.xml")])
    assert out.exit_code == 0, out.output
    p = msccl.plan(g, c, name="f")
    lines = out.output.splitlines()
    assert lines[0] == p.summary() == ("forest in 1 chunks, tree shares on a grid of 1/32 (16 of 16 trees), the "
                                       "fastest under Fluid of 2 candidates: throughput 1.0000 of the planner's "
                                       "(optimal; LP relaxation 1.0000), gap +0.0% to the rate bound")
    assert lines[1].startswith(f"wrote {tmp_path / 'f.xml'}: valid allgather on 16 gpus")
    t = f"{p.ready.planned_makespan * 1e6:.3f} us"
    assert file_makespan(g, c, (tmp_path / "f.xml").read_text()) == p.ready.planned_makespan == p.given_makespan
    assert lines[2] == report(p, p.ready.planned_makespan, "planned")
    assert lines[2].startswith(f"Fluid: the schedule planned takes {t}, gap ")
    assert lines[2].endswith(f"; the file read back {t} (= the schedule planned's)")
    assert (tmp_path / "f.xml").read_text() == p.ready.text


def test_cli_plan_bad_algorithm_is_one_line(tmp_path, capsys):
    """An algorithm the collective has not: one line naming it, exit 2, no file, no traceback."""
    c = cs.AllGather(participants=cs.topologies.ndv2(1).hosts, size=4096)
    save_collective(c, tmp_path / "c.json")
    with pytest.raises(SystemExit) as stop:
        main(["msccl", "plan", "ndv2", str(tmp_path / "c.json"), "-o", str(tmp_path / "f.xml"), "--algorithm", "nope"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("collsched: error: ") and "nope" in err
    assert err.count("\n") == 1 and not (tmp_path / "f.xml").exists()
    with pytest.raises(SystemExit) as stop:
        main(["msccl", "plan", "ndv2", str(tmp_path / "c.json"), "-o", str(tmp_path / "f.xml"), "--algorithm", "ring",
              "--chunks", "4"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err == ("collsched: error: chunks=4 is the forest's option, not ring's (leave "
                                            "chunks out, or plan algorithm='forest')\n")
