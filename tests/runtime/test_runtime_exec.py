"""Programs of every schedule shape executed over MPI on 4 and 8 ranks, every byte verified."""

import numpy as np
import pytest

import collsched as cs
from collsched.runtime import MPICollective, RunError, comparison_table, run, run_baseline, run_many
from conftest import needs_mpi, shapes, worker_processes

pytestmark = needs_mpi


@pytest.fixture(scope="module", params=[4, 8])
def batch(request):
    """One MPI job per rank count: every shape, then MPI's own collective for the tree and periodic ones."""
    p, items = shapes(request.param)
    baselines = [c for label, _, c in items if "tree" in label or "periodic" in label]
    results = run_many(p, [(s, c) for _, s, c in items] + [MPICollective(c) for c in baselines], repeat=2,
                       timeout=120)
    return p, items, results[:len(items)], results[len(items):]


def test_every_shape_runs_verified(batch):
    p, items, results, _ = batch
    for (label, schedule, c), r in zip(items, results):
        assert r.verified and not r.problems, label
        assert len(r.makespans) == 2 and r.makespan > 0, label
        assert r.trace.n_ops == schedule.lower(p, c).n_ops, label
        assert np.all(r.trace.end >= r.trace.start), label
        assert r.result.backend == "mpi" and r.trace.ranks == schedule.lower(p, c).ranks


def test_no_operation_starts_before_its_dependencies_end(batch):
    p, items, results, _ = batch
    for (label, schedule, c), r in zip(items, results):
        prog = schedule.lower(p, c)
        for i in range(prog.n_ops):
            deps = prog.dep_idx[prog.dep_ptr[i]:prog.dep_ptr[i + 1]]
            assert np.all(r.trace.start[i] >= r.trace.end[deps]), (label, i)


def test_series_report_a_throughput(batch):
    _, items, results, _ = batch
    for (label, _, c), r in zip(items, results):
        assert (r.throughput is not None) == isinstance(c, cs.Series), label


def test_receives_end_after_their_sends_start(batch):
    p, items, results, _ = batch
    for (label, schedule, c), r in zip(items, results):
        prog = schedule.lower(p, c)
        send, recv = prog.message_ops()
        assert np.all(r.trace.end[recv] >= r.trace.start[send] - 1e-6), label


def test_mpi_collectives_verified(batch):
    _, _, _, baselines = batch
    assert [b.what for b in baselines] == ["MPI_Reduce", "MPI_Bcast", "MPI_Scatter", "MPI_Reduce"]
    assert all(b.verified and b.makespan > 0 for b in baselines)


def test_measured_beside_simulated(batch, tmp_path):
    from collsched.report.gantt import gantt
    from collsched.runtime import comparison_plot

    p, items, results, _ = batch
    label, schedule, c = items[4]
    columns = {"mpi": results[4], "fluid": cs.simulate(p, schedule, c)}
    table = comparison_table(columns)
    assert table.columns == ("rank", "mpi", "fluid") and table.rows[-1][0] == "makespan"
    assert len(table.rows) == len(p.hosts) + 1
    assert comparison_plot(columns, tmp_path / "cmp.svg").stat().st_size > 1000
    assert gantt(results[4].result, tmp_path / "mpi.png", platform=p).stat().st_size > 1000


@pytest.fixture(scope="module")
def reduce4():
    p = cs.topologies.star(4)
    c = cs.Reduce(participants=["h3", "h1", "h0", "h2"], target="h1", size=64, task_cost=1e3)
    return p, c, cs.plan(p, c, algorithm="binomial")


def test_a_commuted_reduction_is_caught(reduce4):
    """A program that combines v1 ⊕ v0 (the wrong order) delivers every byte as sent; the final product catches it."""
    from collsched.schedules.values import partial
    p, c, _ = reduce4
    b = cs.ProgramBuilder(p.hosts)
    for k, h in enumerate(c.participants):
        if h != "h1":
            b.send(h, "h1", [partial(0, k, k)], size=64)
    b.compute("h1", [partial(0, 2, 2), partial(0, 3, 3)], partial(0, 2, 3), cost=1e3)
    b.compute("h1", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), cost=1e3)
    b.compute("h1", [partial(0, 0, 1), partial(0, 2, 3)], partial(0, 0, 3), cost=1e3)
    bad_b = cs.ProgramBuilder(p.hosts)
    for k, h in enumerate(c.participants):
        if h != "h1":
            bad_b.send(h, "h1", [partial(0, k, k)], size=64)
    bad_b.compute("h1", [partial(0, 2, 2), partial(0, 3, 3)], partial(0, 2, 3), cost=1e3)
    bad_b.compute("h1", [partial(0, 1, 1), partial(0, 0, 0)], partial(0, 0, 1), cost=1e3)  # commuted
    bad_b.compute("h1", [partial(0, 0, 1), partial(0, 2, 3)], partial(0, 0, 3), cost=1e3)
    cs.validate(p, c, b.build())
    ok, wrong = run_many(p, [(b.build(), c), (bad_b.build(), c)], check=False)
    assert ok.verified
    assert not wrong.verified
    assert "rank 1 (h1)" in wrong.problems[0] and "operand order" in wrong.problems[0]


def test_a_failing_rank_is_named(reduce4):
    import socket

    p, c, s = reduce4
    with pytest.raises(RunError) as info:
        run(p, s, c, fault={"rank": "h2", "what": "raise"})
    assert str(info.value) == (f"MPI rank 2 (h2) on host {socket.gethostname()} failed: RuntimeError: injected "
                               "failure (fault='raise')")
    assert worker_processes() == []


def test_a_killed_rank_is_named_with_its_host_and_signal(reduce4):
    """SIGKILL leaves mpirun's own words, which name the rank only sometimes: one line either way."""
    import socket

    p, c, s = reduce4
    with pytest.raises(RunError) as info:
        run(p, s, c, fault={"rank": "h2", "what": "kill"})
    message = str(info.value)
    assert "\n" not in message and "Primary job" not in message
    assert message.startswith(f"MPI rank 2 (h2) on host ")
    assert (f"on host {socket.gethostname()} died without a word (a signal it could not catch: SIGKILL)" in message
            or "was killed by signal 9 (Killed)" in message)
    assert worker_processes() == []


def test_a_corrupted_message_is_named(reduce4):
    p, c, s = reduce4
    with pytest.raises(RunError, match=r"rank \d \(h\d\) repetition 0: op \d+ \(recv msg \d+ from h0\): byte"):
        run(p, s, c, fault={"rank": "h0", "what": "corrupt"})


def test_a_hung_rank_times_out_and_leaves_nothing(reduce4):
    """One line: every rank still running, its host, the signal that ended it and where it was (h3: its sleep)."""
    import inspect
    import socket

    from collsched.runtime import worker

    p, c, s = reduce4
    with pytest.raises(RunError) as info:
        run(p, s, c, fault={"rank": "h3", "what": "hang"}, timeout=8)  # time for 4 ranks to start on a loaded machine
    message = str(info.value)
    lines, first = inspect.getsourcelines(worker._program_task)
    hang = first + next(k for k, line in enumerate(lines) if "time.sleep(1e6)" in line)
    assert "\n" not in message
    assert message.startswith("the MPI job (4 ranks, 1 tasks) did not finish within 8 s; ended ")
    assert f"rank 3 (h3) on host {socket.gethostname()}, in _program_task at worker.py:{hang}" in message
    assert "by SIGTERM: rank 0 (h0) on host " in message
    assert worker_processes() == []


def test_bad_options_are_named(reduce4):
    p, c, s = reduce4
    with pytest.raises(ValueError, match="repeat=0"):
        run(p, s, c, repeat=0)
    with pytest.raises(ValueError, match="compute='fast'"):
        run(p, s, c, compute="fast")
    with pytest.raises(cs.CollschedError, match="MPI has no collective call for a alltomany"):
        run_baseline(p, cs.AllToMany({("h0", "h1"): 8.0}))
    stranger = cs.ProgramBuilder(["h0", "x9"])
    stranger.send("h0", "x9", [], size=8)
    with pytest.raises(RunError, match="ranks x9 are not nodes of platform 'star-4'"):
        run(p, stranger.build())
