"""The ranks' side of a calibration: ping-pong between pairs of ranks, inside the MPI job.

:func:`~collsched.runtime.calibrate.calibrate` launches the job; every rank
runs :func:`pingpong_rank` (from :mod:`.worker`), which measures one-way
times, gaps and overheads as :mod:`collsched.runtime.calibrate` describes.
This module is apart from it so that imports run one way: calibrate →
launch → worker → pingpong.

Examples
--------
>>> callable(pingpong_rank)
True
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["pingpong_rank"]


def pingpong_rank(comm, task: dict, world: list[str]) -> dict | None:
    """This rank's part of a calibration job (inside the MPI job); rank 0 returns the measurements.

    Examples
    --------
    See :func:`~collsched.runtime.calibrate.calibrate` (it needs an MPI job).

    >>> callable(pingpong_rank)
    True
    """
    from mpi4py import MPI

    me = comm.rank
    sizes, reps, burst, span, enough = (task[k] for k in ("sizes", "repeat", "burst", "time_per_size", "max_time"))
    rows = {k: [] for k in ("one_way", "gap", "send_overhead", "recv_overhead")}
    big = np.zeros(max(sizes) * burst, dtype=np.uint8)
    ack = np.zeros(1, dtype=np.uint8)
    again = np.zeros(1, dtype=np.uint8)
    for a_name, b_name in task["pairs"]:
        a, b = world.index(a_name), world.index(b_name)
        _quiet_barrier(comm)
        if me not in (a, b):
            continue
        peer = b if me == a else a
        row = {k: [] for k in rows}
        for m in sizes:
            if len(row["one_way"]) >= 2 and not row["one_way"][-1] < enough:  # both ends agreed on it: NaN from there
                row["one_way"].append(np.nan)
                continue
            buf = big[:m]
            best, r, start = np.inf, 0, time.perf_counter()
            while True:  # round trips, the first one warms up
                t = time.perf_counter()
                if me == a:
                    comm.Send(buf, dest=peer, tag=1)
                    comm.Recv(buf, source=peer, tag=1)
                else:
                    comm.Recv(buf, source=peer, tag=1)
                    comm.Send(buf, dest=peer, tag=1)
                if r:
                    best = min(best, (time.perf_counter() - t) / 2)
                r += 1
                # at least ``reps`` timed round trips and ``span`` seconds: a decides, b follows
                if me == a:
                    again[0] = r <= reps or time.perf_counter() - start < span
                    comm.Send(again, dest=peer, tag=9)
                else:
                    comm.Recv(again, source=peer, tag=9)
                if not again[0]:
                    break
            row["one_way"].append(_agree(comm, peer, best))
        t0 = row["one_way"][0]
        for m, tm in zip(sizes, row["one_way"]):
            if np.isnan(tm):  # a size not measured
                for k in ("gap", "send_overhead" if me == a else "recv_overhead"):
                    row[k].append(np.nan)
                continue
            # gap: a burst of messages, then one byte back
            t = time.perf_counter()
            if me == a:
                reqs = [comm.Isend(big[k * m:(k + 1) * m], dest=peer, tag=2) for k in range(burst)]
                MPI.Request.Waitall(reqs)
                comm.Recv(ack, source=peer, tag=3)
            else:
                for k in range(burst):
                    comm.Recv(big[k * m:(k + 1) * m], source=peer, tag=2)
                comm.Send(ack, dest=peer, tag=3)
            row["gap"].append(max(0.0, (time.perf_counter() - t - 2 * t0) / burst))
            # send overhead: b posts its receive, says so, a times its Send
            if me == b:
                req = comm.Irecv(big[:m], source=peer, tag=4)
                comm.Send(ack, dest=peer, tag=5)
                req.Wait()
            else:
                comm.Recv(ack, source=peer, tag=5)
                t = time.perf_counter()
                comm.Send(big[:m], dest=peer, tag=4)
                row["send_overhead"].append(time.perf_counter() - t)
            # receive overhead: a sends, b waits for it to arrive, then times its Recv
            if me == a:
                comm.Send(big[:m], dest=peer, tag=6)
            else:
                time.sleep(2 * tm)
                t = time.perf_counter()
                comm.Recv(big[:m], source=peer, tag=6)
                row["recv_overhead"].append(time.perf_counter() - t)
        if me == b:
            comm.send(row["recv_overhead"], dest=a, tag=7)
        else:
            row["recv_overhead"] = comm.recv(source=b, tag=7)
            for k in rows:
                rows[k].append(row[k])
    gathered = comm.gather(rows if rows["one_way"] else None, root=0)
    if me != 0:
        return None
    # each pair's row is on its first rank, in pair order: put them back in the order of the pairs
    out = {k: [] for k in rows}
    cursor: dict[int, int] = {}
    for a_name, _ in task["pairs"]:
        a = world.index(a_name)
        k = cursor.get(a, 0)
        cursor[a] = k + 1
        for name in out:
            out[name].append(gathered[a][name][k])
    return out


def _quiet_barrier(comm) -> None:
    """A barrier that sleeps while it waits (idle ranks must not take the CPU from the measured pair)."""
    req = comm.Ibarrier()
    while not req.Test():
        time.sleep(1e-3)


def _agree(comm, peer: int, value: float) -> float:
    """The larger of the two ends' estimates (the two ranks of a pair measure the same round trips)."""
    other = comm.sendrecv(value, dest=peer, source=peer, sendtag=8, recvtag=8)
    return max(value, other)
