"""A message of several pieces: packed and unpacked by copying, or sent in place through an MPI derived datatype.

Why :mod:`collsched.mpi.layout` posts a message of several pieces as
``[MPI.BOTTOM, 1, hindexed type]``: on 2 local ranks, rank 0 sends ``k``
pieces of ``size`` bytes (every other block of an array) to rank 1, which
puts them back in the same places, ``N`` times, three ways: (copy) the
pieces concatenated into one buffer and unpacked by copying (what
collsched.mpi did before), (type per message) an
``MPI_Type_create_hindexed_block`` made, committed and freed per message,
(type once) one committed type reused. It prints the CPU seconds
(``time.process_time``) per message of each rank, twice per shape, checks
that the bytes arrived in place, and the load average.

Run: ``.venv/bin/python benchmarks/bench_pieces.py``
"""

from __future__ import annotations

import os
import sys
import time

from _cli import parser, run

SHAPES = ((4, 256, 3000), (4, 4096, 2000), (4, 65536, 300), (8, 262144, 40))


def _one(comm, k: int, size: int, n: int) -> None:
    import numpy as np
    from mpi4py import MPI

    me = comm.rank
    src = np.arange(2 * k * size, dtype=np.uint8)
    dst = np.zeros(2 * k * size, np.uint8)
    offsets = [2 * p * size for p in range(k)]
    sent = [src[o:o + size] for o in offsets]
    placed = [dst[o:o + size] for o in offsets]

    def by_copy():
        if me == 0:
            comm.Send(np.concatenate(sent), 1, 0)
        else:
            buf = np.empty(k * size, np.uint8)
            comm.Recv(buf, 0, 0)
            for p, v in enumerate(placed):
                v[...] = buf[p * size:(p + 1) * size]

    def by_type(t):
        if me == 0:
            comm.Send([src, 1, t], 1, 0)
        else:
            comm.Recv([dst, 1, t], 0, 0)

    def type_per_message():
        t = MPI.BYTE.Create_hindexed_block(size, offsets).Commit()
        by_type(t)
        t.Free()

    once = MPI.BYTE.Create_hindexed_block(size, offsets).Commit()
    cpu, ok = {}, True
    for name, step in (("copy", by_copy), ("type per message", type_per_message), ("type once", lambda: by_type(once))):
        dst[...] = 0
        comm.Barrier()
        c = time.process_time()
        for _ in range(n):
            step()
        cpu[name] = (time.process_time() - c) / n
        ok = ok and (me == 0 or all(np.array_equal(a, b) for a, b in zip(sent, placed)))
    once.Free()
    got = comm.gather((cpu, ok), root=0)
    if me == 0:
        print(f"{k} pieces of {size} B, {n} messages: " + "; ".join(
            f"{name} {1e6 * got[0][0][name]:.1f} / {1e6 * got[1][0][name]:.1f} us" for name in cpu)
            + f" (CPU per message, rank 0 / rank 1); in place {all(x for _, x in got)}")


def main() -> None:
    from collsched.mpi.emulated import run_script
    from collsched.runtime import mpi_available

    if mpi_available() is not None:
        print(f"skipped: {mpi_available()}")
        return
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(run_script(["h0", "h1"], __file__, ["--rank"], timeout=600).rstrip())
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--rank"]:
        from mpi4py import MPI

        for shape in SHAPES:
            for _ in range(2):
                _one(MPI.COMM_WORLD, *shape)
        sys.exit(0)
    parser(__doc__).parse_args()
    run(main)
