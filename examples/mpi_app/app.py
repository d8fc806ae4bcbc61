"""Parameter averaging, as data-parallel training does it: an mpi4py program that calls collsched.mpi.

Every rank fits a linear model to its own data by a few steps of gradient
descent, then the ranks average their parameters (``allreduce`` of the
parameter vector, ``MPI.SUM``, divided by the number of ranks) and rank 0
gathers the total loss (``reduce``). The loop runs twice in the same job:
with ``collsched.mpi`` (``--plans FOLDER``) and with mpi4py's own
``Allreduce``/``Reduce``; rank 0 prints the seconds spent in the
collectives by each, the speed-up, and whether both ended with the same
parameters. Before either is timed, each runs ``--warmup`` untimed steps
(default 1) on a copy of the parameters: the first call pays what later
calls do not (``collsched.mpi`` prepares its plan's program; Open MPI over
TCP opens its connections, between the pairs each algorithm uses), and
without the warm-up whichever loop runs first would pay it.

Run over MPI: ``mpirun -n 8 python examples/mpi_app/app.py --plans plans/``
(``run.py`` beside it plans and runs it on the emulated two-switch network).
"""

import argparse
import json
import time

import numpy as np
from mpi4py import MPI

from collsched import mpi as csmpi


def train(comm, params: np.ndarray, data: np.ndarray, steps: int, use_collsched: bool, plans):
    """``steps`` rounds of local gradient descent then averaging; returns (params, seconds in collectives)."""
    n = comm.size
    total = np.empty_like(params)
    loss = np.zeros(1)
    loss_sum = np.zeros(1) if comm.rank == 0 else None
    spent = 0.0
    for _ in range(steps):
        residual = data @ params[:data.shape[1]] - 1.0
        params[:data.shape[1]] -= 1e-3 * (data.T @ residual) / data.shape[0]  # one local gradient step
        loss[0] = float(residual @ residual)
        comm.Barrier()
        t = time.perf_counter()
        if use_collsched:
            csmpi.allreduce(comm, params, total, MPI.SUM, plans=plans)
            csmpi.reduce(comm, loss, loss_sum, MPI.SUM, 0, plans=plans)
        else:
            comm.Allreduce(params, total, op=MPI.SUM)
            comm.Reduce(loss, loss_sum, op=MPI.SUM, root=0)
        spent += comm.allreduce(time.perf_counter() - t, op=MPI.MAX)
        params = total / n
    return params, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--plans", required=True, help="plan folder written by collsched plan-suite")
    ap.add_argument("--size", type=int, default=1_000_000, help="bytes of the parameter vector (float64)")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed steps of each loop first (default 1)")
    args = ap.parse_args()
    comm = MPI.COMM_WORLD
    rng = np.random.default_rng(comm.rank)
    data = rng.standard_normal((64, 16))
    start = np.zeros(args.size // 8)
    for use_collsched in (True, False):
        train(comm, start.copy(), data, args.warmup, use_collsched, args.plans)
    ours, t_ours = train(comm, start.copy(), data, args.steps, True, args.plans)
    theirs, t_mpi = train(comm, start.copy(), data, args.steps, False, args.plans)
    if comm.rank == 0:
        print(json.dumps({"ranks": comm.size, "steps": args.steps, "warmup": args.warmup, "bytes": args.size,
                          "collsched_seconds": t_ours,
                          "mpi_seconds": t_mpi, "speedup": t_mpi / t_ours,
                          "same_parameters": bool(np.allclose(ours, theirs, rtol=1e-12, atol=1e-15))}))


if __name__ == "__main__":
    main()
