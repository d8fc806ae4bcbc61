"""Programs the benchmarks share, built column-wise with numpy (building a
million-message program through the Python lowering would dominate the
figures). Each is checked against the lowering of the same schedule by
`validation in the benchmark scripts (``cs.validate``)."""

from __future__ import annotations

import numpy as np

from collsched.schedules.program import Program
from collsched.schedules.values import BLOCK


def caterpillar(hosts: tuple[str, ...], size: float, *, sequential: bool) -> Program:
    """All-to-all, step k: host i sends to host i+k (mod n), as the caterpillar orders it.

    Per rank, operations alternate send (step k) and receive (step k). With
    ``sequential`` each rank's sends wait for its previous send and its
    receives for its previous receive (blocking per-sender order); without
    it, everything is in flight at once.
    """
    n = len(hosts)
    per = 2 * (n - 1)
    i = np.repeat(np.arange(n), n - 1)
    k = np.tile(np.arange(1, n), n)
    total = n * per
    kind = np.tile(np.array([0, 1]), n * (n - 1))
    peer = np.empty(total, np.int64)
    peer[0::2] = (i + k) % n
    peer[1::2] = (i - k) % n
    msg = np.empty(total, np.int64)
    msg[0::2] = i * (n - 1) + (k - 1)
    msg[1::2] = ((i - k) % n) * (n - 1) + (k - 1)
    idx = np.arange(total)
    chained = (idx % per) >= 2 if sequential else np.zeros(total, bool)
    dep_ptr = np.concatenate([[0], np.cumsum(chained)]).astype(np.int64)
    dep_idx = (idx - 2)[chained]
    # each send carries the block m[i→i+k]
    piece_ptr = np.concatenate([[0], np.cumsum(kind == 0)]).astype(np.int64)
    pieces = np.zeros((n * (n - 1), 6), np.int64)
    pieces[:, 0] = BLOCK
    pieces[:, 2] = i
    pieces[:, 3] = (i + k) % n
    pieces[:, 5] = 1
    return Program(tuple(hosts), 1, np.repeat(np.arange(n), per), kind, peer, msg, np.full(total, float(size)),
                   dep_ptr, dep_idx, piece_ptr, pieces, "caterpillar")
