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
