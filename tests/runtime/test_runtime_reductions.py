"""ReduceScatter and AllReduce over MPI: the direct programs with real sums (and ordered products), every byte and
every result checked; MPI_Reduce_scatter_block and MPI_Allreduce on the same data; a double-counting program caught."""

import pytest

import collsched as cs
from collsched.algorithms.baselines.reduce_scatter import direct_program
from collsched.runtime import MPICollective, run_many
from collsched.schedules.values import Piece, reduced
from conftest import needs_mpi

pytestmark = needs_mpi


@pytest.fixture(scope="module")
def batch():
    """One MPI job on 4 ranks: direct programs of both collectives (commutative, ordered, a series), then MPI's own."""
    p = cs.topologies.star(4, bandwidth="1GBps", latency="1us")
    order = ["h2", "h0", "h3", "h1"]  # not the host order
    items = [cs.ReduceScatter(participants=order, size=4096, task_cost=1e4),
             cs.AllReduce(participants=order, size=8192, task_cost=1e4),
             cs.ReduceScatter(participants=order, size=4096, commutative=False),
             cs.AllReduce(participants=order, size=8192, commutative=False),
             cs.Series(cs.AllReduce(participants=order, size=4096), count=3)]
    programs = [(direct_program(p, c, order=[3, 1, 0, 2] if c.base.commutative else None), c) for c in items]
    baselines = [MPICollective(c) for c in items[:4]]
    results = run_many(p, programs + baselines, repeat=2, timeout=120)
    return p, items, results[:len(items)], results[len(items):]


def test_direct_programs_run_verified(batch):
    _, items, results, _ = batch
    for c, r in zip(items, results):
        assert r.verified and not r.problems, c
        assert len(r.makespans) == 2 and r.makespan > 0
        assert (r.throughput is not None) == isinstance(c, cs.Series)


def test_mpi_reduce_scatter_block_and_allreduce_verified(batch):
    _, _, _, baselines = batch
    assert [b.what for b in baselines] == ["MPI_Reduce_scatter_block", "MPI_Allreduce"] * 2
    assert all(b.verified and b.makespan > 0 for b in baselines)


def test_a_reduction_that_counts_an_operand_twice_is_caught():
    """Every byte arrives as sent; only the sums are wrong, and the final check names them."""
    p = cs.topologies.star(3)
    c = cs.ReduceScatter(participants=p.hosts, size=64)
    good = direct_program(p, c)
    bad = cs.ProgramBuilder(p.hosts, denominator=3)
    for op in good:  # the same program, except that h0 adds its own operand twice into a claimed Σ{0,1,2}
        if op.kind == "send":
            bad.send(op.rank, op.peer, op.pieces, size=op.size)
        elif op.kind == "compute" and op.rank == "h0":
            own = Piece(reduced(0, [0]), 0, 1)
            bad.compute("h0", [own, Piece(reduced(0, [1]), 0, 1)], Piece(reduced(0, [0, 1]), 0, 1), cost=0)
            bad.compute("h0", [Piece(reduced(0, [0, 1]), 0, 1), own], Piece(reduced(0, [0, 1, 2]), 0, 1), cost=0)
        elif op.kind == "compute":
            bad.compute(op.rank, op.pieces[:-1], op.pieces[-1], cost=op.size)
    with pytest.raises(cs.ValidationError, match="operand sets overlap"):
        cs.validate(p, c, bad.build())
    ok, wrong = run_many(p, [(good, c), (bad.build(), c)], check=False)
    assert ok.verified and not wrong.verified
    assert wrong.problems == ("rank 0 (h0) repetition 0: Σ{0..2}@0 segment 0 is not the sum of its operands",)
