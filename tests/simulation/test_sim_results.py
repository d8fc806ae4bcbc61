"""The result types (Trace, SimResult) and the Gantt chart."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import collsched as cs
from collsched.report import gantt, link_utilisation_over_time
from collsched.schedules.trace import SimResult, Trace


def reduce_result(model=None):
    p = cs.topologies.star(5, bandwidth=(1e6, 3e6), latency=1e-4, seed=2, speed=(5e8, 1e9))
    c = cs.Reduce(participants=p.hosts, target="h0", size=1e6, task_cost=3e8)
    s = cs.plan(p, c, algorithm="binomial")
    return p, cs.simulate(p, s, c, model=model or cs.models.OnePort())


def test_trace_columns_are_frozen_copies_and_checked():
    p, r = reduce_result()
    t = r.trace
    with pytest.raises(ValueError):
        t.start[0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.ranks = ()
    with pytest.raises(ValueError, match="trace column 'end' has 1 entries, expected 2"):
        Trace(("a",), [0, 0], [2, 2], [-1, -1], [-1, -1], [1, 1], [0.0, 0.0], [1.0])
    with pytest.raises(ValueError, match="'zz' is not a rank of this trace"):
        t.by_rank("zz")
    with pytest.raises(ValueError, match="kind 'put'"):
        t.by_rank("h0", "put")


def test_trace_shares_read_only_columns_and_copies_the_rest():
    p = cs.topologies.star(3)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    prog = b.build()
    t = cs.simulate(p, prog).trace
    assert t.rank is prog.op_rank and t.size is prog.op_size   # the program's frozen columns, not copies
    assert not t.start.flags.writeable and not t.end.flags.writeable
    start = np.array([0.0, 0.0])
    view = np.array([0, 0, 5])[:2]
    view.setflags(write=False)   # read-only, but a view of a writable array
    mine = Trace(("a", "b"), view, [0, 1], [0, 0], [1, 0], [1.0, 1.0], start, [1.0, 1.0])
    start[0] = 9.0
    assert mine.start.tolist() == [0.0, 0.0] and mine.rank is not view and not mine.rank.flags.writeable


def test_trace_helpers_agree_with_the_result():
    p, r = reduce_result()
    t = r.trace
    assert t.makespan == r.makespan
    assert np.allclose(t.busy("compute"), r.cpu_busy)
    assert np.allclose(t.busy("send"), r.send_busy)      # synchronous one-port: a send is its hold
    assert np.allclose(t.busy("recv"), r.recv_busy)
    h0 = t.by_rank("h0")
    assert np.all(np.diff(t.start[h0]) >= 0)
    assert set(t.kind[t.by_rank("h0", "recv")].tolist()) == {1}
    assert repr(t).startswith("<Trace: 5 ranks, 4 sends, 4 recvs, 4 computes, makespan")


def test_sim_result_fields_and_checks():
    p, r = reduce_result()
    assert r.ranks == p.hosts and r.link_ids == tuple(p.links) and r.backend == "collsched"
    assert r.model == "OnePort(sync=True, cost='linear', ties='fixed')"
    assert np.allclose(r.link_utilisation, r.link_busy / r.makespan)
    assert r.events > 0 and r.throughput is None
    assert "makespan" in repr(r)
    with pytest.raises(ValueError, match="backend 'ns3'"):
        dataclasses.replace(r, backend="ns3")
    with pytest.raises(ValueError, match="send_busy has 2 entries for 5 ranks"):
        dataclasses.replace(r, send_busy=np.zeros(2))
    with pytest.raises(ValueError, match="unknown link 'zz'"):
        r.link("zz")
    assert isinstance(r, SimResult)


def test_link_utilisation_over_time_is_a_step_function_within_bounds():
    p, r = reduce_result(cs.models.Fluid())
    times, curves = link_utilisation_over_time(r, p)
    assert np.all(np.diff(times) > 0) and times[0] == 0.0 and times[-1] == pytest.approx(r.makespan)
    for lid, u in curves.items():
        assert u.shape == (times.shape[0] - 1,) and np.all((0 <= u) & (u <= 1))
    # the integral of a lone transfer's estimate is its bytes over the bandwidth
    q = cs.topologies.star(2, bandwidth=1e6, latency=0.0)
    b = cs.ProgramBuilder(q.hosts)
    b.send("h0", "h1", [], size=5e5)
    t, u = link_utilisation_over_time(cs.simulate(q, b.build()), q)
    assert np.sum(np.diff(t) * u["l0"]) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="unknown link"):
        link_utilisation_over_time(r, p, ["zz"])


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_gantt_writes_a_picture(tmp_path, suffix):
    p, r = reduce_result()
    out = gantt(r, tmp_path / "sub" / f"reduce{suffix}", platform=p)
    assert out == tmp_path / "sub" / f"reduce{suffix}"
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]
    assert gantt(r, tmp_path / "small.png", ranks=["h0", "h1"], max_links=0).exists()


def test_gantt_rejects_bad_options(tmp_path):
    p, r = reduce_result()
    with pytest.raises(ValueError, match="must end with one of .png, .svg, .pdf"):
        gantt(r, tmp_path / "x.jpg")
    with pytest.raises(ValueError, match="max_ranks=-1"):
        gantt(r, tmp_path / "x.png", max_ranks=-1)
    with pytest.raises(ValueError, match="'h9' is not a rank"):
        gantt(r, tmp_path / "x.png", ranks=["h9"])
