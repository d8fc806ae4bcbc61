"""Programs as LogGOPSim GOAL text (export only)."""

from __future__ import annotations

import json
import math
import numbers
import os
from typing import Mapping


from ..errors import ScheduleError
from ..fileformat import atomic_write
from .program import Program

__all__ = ["program_to_goal", "save_goal"]


# --- GOAL export ---------------------------------------------------------------------

def _whole(x: float) -> int:
    """``x`` rounded up to an integer, except that a value within 1e-9 (relative) of one is that integer."""
    n = round(x)
    return int(n) if abs(x - n) <= 1e-9 * max(1.0, abs(x)) else math.ceil(x)


def program_to_goal(p: Program, *, speed: float | Mapping[str, float] = 1e9) -> str:
    """The program as LogGOPSim's GOAL text (Hoefler, Schneider and Lumsdaine, 2010).

    A ``num_ranks`` line, then per rank (numbered as in ``p.ranks``) a block
    ``rank r { ... }`` of labelled operations ``lN: send Sb to R tag T``,
    ``lN: recv Sb from R tag T`` and ``lN: calc C``, each followed by its
    dependencies ``lN requires lM``. Labels count the rank's operations in
    program order from ``l1``; the tag is the message id, so messages match
    exactly as in the program. Sizes are whole bytes, rounded **up** (a
    size within 1e-9 of an integer is that integer). ``calc`` is the time of
    the computation in **nanoseconds** (LogGOPSim's time unit, as for its L,
    o, g) at ``speed`` flop/s, rounded up likewise: with the default 1 Gflop/s
    it is the flop count. A comment line lists the rank names.

    Parameters
    ----------
    p : Program
    speed : float or mapping, keyword-only
        Flop/s of every rank, or ``{rank name: flop/s}`` (e.g. a platform's node speeds).

    Returns
    -------
    str
        The GOAL text, ending with a newline; ``txt2bin`` turns it into LogGOPSim's input.

    Raises
    ------
    ValueError
        A speed is missing, not finite or not positive.
    ScheduleError
        An operation depends on an operation of another rank (GOAL cannot say so).

    References
    ----------
    T. Hoefler, T. Schneider, A. Lumsdaine, "LogGOPSim: Simulating Large-Scale
    Applications in the LogGOPS Model", HPDC 2010, DOI 10.1145/1851476.1851564.

    Examples
    --------
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import partial
    >>> b = ProgramBuilder(["h0", "h1"], name="pair")
    >>> _ = b.send("h1", "h0", [partial(0, 1, 1)], size=7.5)
    >>> _ = b.compute("h0", [partial(0, 0, 0), partial(0, 1, 1)], partial(0, 0, 1), cost=300)
    >>> print(program_to_goal(b.build(), speed=1e8), end="")
    // collsched program "pair"; ranks ["h0", "h1"]; sizes in bytes (rounded up); calc in ns
    num_ranks 2
    <BLANKLINE>
    rank 0 {
    l1: recv 8b from 1 tag 0
    l2: calc 3000
    l2 requires l1
    }
    <BLANKLINE>
    rank 1 {
    l1: send 8b to 0 tag 0
    }
    """
    speeds = [speed.get(r) if isinstance(speed, Mapping) else speed for r in p.ranks]
    for r, s in zip(p.ranks, speeds):
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s) or s <= 0:
            raise ValueError(f"speed of rank {r!r} is {s!r}; give a positive number of flop/s")
    lines = [f"// collsched program {json.dumps(p.name, ensure_ascii=False)}; ranks "
             f"{json.dumps(list(p.ranks), ensure_ascii=False)}; sizes in bytes (rounded up); calc in ns",
             f"num_ranks {len(p.ranks)}"]
    for r in range(len(p.ranks)):
        ops = p.ops_of(r)
        label = {int(i): f"l{j + 1}" for j, i in enumerate(ops)}
        lines += ["", f"rank {r} {{"]
        for i in ops:
            op = p.op(int(i))
            if op.kind == "compute":
                lines.append(f"{label[op.index]}: calc {_whole(op.size * (1e9 / speeds[r]))}")
            else:
                where = f"to {p.op_peer[i]}" if op.kind == "send" else f"from {p.op_peer[i]}"
                lines.append(f"{label[op.index]}: {op.kind} {_whole(op.size)}b {where} tag {op.msg}")
            for d in op.after:
                if d not in label:
                    raise ScheduleError(f"op {op.index} of rank {op.rank!r} depends on op {d} of another rank",
                                        fix="GOAL dependencies stay within a rank")
                lines.append(f"{label[op.index]} requires {label[d]}")
        lines.append("}")
    return "\n".join(lines) + "\n"


def save_goal(p: Program, path: str | os.PathLike, *, speed: float | Mapping[str, float] = 1e9) -> None:
    """Write :func:`program_to_goal` of ``p`` to ``path`` atomically.

    Parameters
    ----------
    p : Program
    path : str or path-like
        The file to create or replace (conventionally ``.goal``).
    speed : float or mapping, keyword-only
        As for :func:`program_to_goal`.

    Raises
    ------
    ValueError, ScheduleError
        As :func:`program_to_goal`.
    FormatError
        If the file cannot be written (it is then untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> from collsched.schedules.program import ProgramBuilder
    >>> path = os.path.join(tempfile.mkdtemp(), "p.goal")
    >>> save_goal(ProgramBuilder(["a"]).build(), path)
    >>> from collsched.fileformat import read_text
    >>> print(read_text(path), end="")
    // collsched program ""; ranks ["a"]; sizes in bytes (rounded up); calc in ns
    num_ranks 1
    <BLANKLINE>
    rank 0 {
    }
    """
    atomic_write(path, program_to_goal(p, speed=speed))

