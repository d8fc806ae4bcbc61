"""Type stub of the Rust extension ``collsched._core`` (crates/py)."""

import numpy as np
import numpy.typing as npt

__version__: str

class ProgramInvalid(ValueError):
    """A program does not implement its collective; ``args == (code, details)``."""

def validate_program(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    dep_ptr: npt.NDArray[np.int64],
    dep_idx: npt.NDArray[np.int64],
    piece_ptr: npt.NDArray[np.int64],
    pieces: npt.NDArray[np.int64],
    denominator: int,
    initial: npt.NDArray[np.int64],
    finals: npt.NDArray[np.int64],
    *,
    rendezvous: bool = False,
) -> list[int]: ...

class SimulationFailed(ValueError):
    """A simulation cannot run to the end; ``args == (code, details)``.

    ``code`` is a structure code of :class:`ProgramInvalid` (``"bad_op"``,
    ``"bad_dependency"``, ``"unmatched_message"``, ...), ``"bad_stages"``
    (``details["reason"]``) or ``"deadlock"`` (``details["stuck"]``: op indices).
    """

def simulate(
    n_ranks: int,
    op_rank: npt.NDArray[np.int64],
    op_kind: npt.NDArray[np.int64],
    op_peer: npt.NDArray[np.int64],
    op_msg: npt.NDArray[np.int64],
    dep_ptr: npt.NDArray[np.int64],
    dep_idx: npt.NDArray[np.int64],
    act_ptr: npt.NDArray[np.int64],
    kind: npt.NDArray[np.int64],
    amount: npt.NDArray[np.float64],
    res_ptr: npt.NDArray[np.int64],
    res: npt.NDArray[np.int64],
    chan_ptr: npt.NDArray[np.int64],
    chan: npt.NDArray[np.int64],
    cap: npt.NDArray[np.float64],
    needs_recv: npt.NDArray[np.uint8],
    sender_done: npt.NDArray[np.int64],
    recv_begins: npt.NDArray[np.int64],
    n_resources: int,
    capacities: npt.NDArray[np.float64],
    *,
    tie: str | int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], int, float]:
    """Run a program's stage table (``docs/engine.md``); the GIL is released during the run.

    ``tie`` is ``"fixed"`` (or None: activity order) or a seed ``>= 0`` (a
    random priority per activity). Returns ``(op_start, op_end,
    resource_busy, channel_busy, events, makespan)``; raises
    :class:`SimulationFailed`.
    """

def shortest_path_trees(
    ptr: npt.NDArray[np.int64],
    node: npt.NDArray[np.int64],
    arc: npt.NDArray[np.int64],
    latency: npt.NDArray[np.float64],
    sources: npt.NDArray[np.int64],
    *,
    by_latency: bool,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
