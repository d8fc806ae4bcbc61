"""Programs as native JSON documents.

**Program documents** are a table, so their fields sit beside the envelope
(as a platform's do) and every operation is written on a line of its own::

    {"format": "collsched", "version": 1, "kind": "program",
     "name": "binomial", "ranks": ["h0", "h1"], "denominator": 1,
     "columns": ["rank", "kind", "peer", "msg", "size", "deps", "pieces"],
     "ops": [["h1", "send", "h0", 0, 8.0, [], [[1, 0, 1, 1, 0, 1]]],
             ["h0", "recv", "h1", 0, 8.0, [], []], ...]}

One row per operation, in program order (row ``i`` is op ``i``): rank,
``send`` | ``recv`` | ``compute``, peer rank (null for a compute), message id
(null for a compute), bytes or flop, dependencies (indices of earlier ops)
and pieces (for a compute: the inputs, then the output). A piece is
``[kind, inst, a, b, start, end]``; for a commutative reduction (kind 2)
``a`` is the hex bitmask of its operand positions, ``"0x29"`` for operands
0, 3 and 5, so that sets of any size are exact.

Message ids are labels: any integers ``0 <= id < 2**63``, in any order and
with gaps (a send and a receive with the same id are one message). They are
kept as written; executors and the validator renumber them ``0 .. M-1``
(:meth:`Program.renumbered <collsched.schedules.program.Program.renumbered>`)
before indexing anything by them.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.Reduce(participants=p.hosts, target="h0", size=8, task_cost=100)
>>> prog = cs.plan(p, c, algorithm="binomial").lower(p, c)
>>> program_from_json(program_to_json(prog)) == prog
True
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import numpy as np

from ..collective_io import count_field
from ..fileformat import Where, atomic_write, check_keys, dump_document, elements, field, load_document, read_text
from .program import COMPUTE, OP_KINDS, Program, piece_row
from ._json import _COLUMNS, _NONE, _cells, _piece, _pieces, _strings
from .values import as_piece

#: Message ids are int64: ``0 <= id < MAX_MESSAGE_ID``.
MAX_MESSAGE_ID = 2**63

__all__ = ["program_to_json", "program_from_json", "load_program", "save_program", "program_to_dict",
           "program_from_dict"]


# --- programs ------------------------------------------------------------------------

def program_to_dict(p: Program) -> dict[str, Any]:
    """The fields of a program document: one row per operation (see the module docstring).

    Parameters
    ----------
    p : Program

    Returns
    -------
    dict
        ``name``, ``ranks``, ``denominator``, ``columns`` and ``ops`` (one row per operation).

    Examples
    --------
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Value
    >>> b = ProgramBuilder(["a", "b"])
    >>> _ = b.send("a", "b", [Value(0, 0, 0, 1)], size=8)
    >>> program_to_dict(b.build())["ops"]
    [['a', 'send', 'b', 0, 8.0, [], [[0, 0, 0, 1, 0, 1]]], ['b', 'recv', 'a', 0, 8.0, [], []]]
    """
    ops = [[op.rank, op.kind, op.peer, None if op.msg < 0 else op.msg, op.size, list(op.after),
            [_piece(x) for x in op.pieces]] for op in p]
    return {"name": p.name, "ranks": list(p.ranks), "denominator": p.denominator, "columns": _COLUMNS, "ops": ops}


def program_from_dict(obj: Mapping[str, Any], where: Where | str = "<string>") -> Program:
    """The program described by ``obj``, the fields of a program document located at ``where``.

    Parameters
    ----------
    obj : mapping
        The fields of a program document (parsed JSON).
    where : Where or str
        Its location, for error messages.

    Returns
    -------
    Program

    Raises
    ------
    FormatError
        A bad field, an unknown rank, a dependency on a later operation, a message sent or received twice.

    Examples
    --------
    >>> program_from_dict({"ranks": ["a", "b"], "ops": [["a", "send", "b", 0, 8, [0], []]]}, Where("p.json"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: p.json: ops[0][5][0]: op 0 depends on op 0 (dependencies name earlier operations)
    """
    where = Where(where) if isinstance(where, str) else where
    check_keys(obj, where, ("name", "ranks", "denominator", "columns", "ops"))
    ranks = _strings(obj, "ranks", where)
    index = {r: i for i, r in enumerate(ranks)}
    if len(index) != len(ranks):
        j = next(j for j, r in enumerate(ranks) if ranks.index(r) < j)
        raise where.at("ranks").at(j).error(f"rank {ranks[j]!r} is listed twice")
    if field(obj, "columns", where, type=list, default=_COLUMNS) != _COLUMNS:
        raise where.at("columns").error(f"expected {json.dumps(_COLUMNS)}")
    rows, seen, sets = [], set(), {}
    for i, (w, row) in enumerate(elements(obj, "ops", where, type=list)):
        rows.append(_read_op(i, row, w, index, sets))
        kind, msg = rows[-1][1], rows[-1][3]
        if kind != COMPUTE and (kind, msg) in seen:
            raise w.at(3).error(f"message {msg} has two {OP_KINDS[kind]}s",
                                fix="every message has one send and one recv")
        seen.add((kind, msg))
    rank, kind, peer, msg, size, deps, pieces = (list(col) for col in zip(*rows)) if rows else [[]] * 7
    arrays = {name: np.array(col, dtype=np.int64) for name, col in
              (("op_rank", rank), ("op_kind", kind), ("op_peer", peer), ("op_msg", msg),
               ("dep_ptr", np.cumsum([0] + [len(d) for d in deps])), ("dep_idx", [x for d in deps for x in d]),
               ("piece_ptr", np.cumsum([0] + [len(p) for p in pieces])))}
    arrays["op_size"] = np.array(size, dtype=np.float64)
    arrays["pieces"] = np.array([r for p in pieces for r in p], dtype=np.int64).reshape(-1, 6)
    for a in arrays.values():
        a.setflags(write=False)
    return Program(ranks=ranks, denominator=count_field(obj, "denominator", where, default=1),
                   name=field(obj, "name", where, type=str, default=""), operand_sets=tuple(sets), **arrays)


def _read_op(i: int, row: Any, where: Where, index: Mapping[str, int], sets: dict[int, int]) -> tuple:
    """One row of ``ops`` as ``(rank, kind, peer, msg, size, deps, pieces)``, in the Program's numbers."""
    cells = _cells(row, where, range(7, 8), f"an operation {json.dumps(_COLUMNS)}")
    kind = OP_KINDS.index(field(cells, 1, where, type=str, choices=OP_KINDS))
    talks = kind != COMPUTE  # a send or recv has a peer and a message id; a compute has null for both
    rank, peer = (field(cells, j, where, type=str if j == 0 or talks else _NONE) for j in (0, 2))
    for j, name in ((0, rank), (2, peer)):
        if name is not None and name not in index:
            raise where.at(j).error(f"{name!r} is not a rank of the program")
    msg = field(cells, 3, where, type=int if talks else _NONE)
    if talks and msg < 0:
        raise where.at(3).error(f"expected a message id >= 0, found {msg}")
    if talks and msg >= MAX_MESSAGE_ID:
        raise where.at(3).error(f"expected a message id below 2**63, found {msg}", fix="renumber the messages")
    deps = [d for _, d in elements(cells, 5, where, type=int)]
    for j, d in enumerate(deps):
        if not 0 <= d < i:
            raise where.at(5).at(j).error(f"op {i} depends on op {d}", fix="dependencies name earlier operations")
    size = field(cells, 4, where, dimension="size" if talks else "flops", minimum=0)
    return (index[rank], kind, index[peer] if talks else -1, msg if talks else -1, size, deps,
            [piece_row(as_piece(x, 1), sets) for x in _pieces(cells, 6, where, (6,))])


def program_to_json(p: Program) -> str:
    """The program as a native JSON document (see the module docstring).

    Parameters
    ----------
    p : Program

    Returns
    -------
    str
        The document, ending with a newline.

    Examples
    --------
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Value
    >>> b = ProgramBuilder(["a", "b"], name="demo")
    >>> _ = b.send("a", "b", [Value(0, 0, 0, 1)], size=8)
    >>> print(program_to_json(b.build()), end="")
    {
     "format": "collsched",
     "version": 1,
     "kind": "program",
     "name": "demo",
     "ranks": ["a", "b"],
     "denominator": 1,
     "columns": ["rank", "kind", "peer", "msg", "size", "deps", "pieces"],
     "ops": [["a", "send", "b", 0, 8.0, [], [[0, 0, 0, 1, 0, 1]]], ["b", "recv", "a", 0, 8.0, [], []]]
    }
    """
    return dump_document("program", program_to_dict(p))


def program_from_json(text: str, *, where: str = "<string>") -> Program:
    """Read a program document; errors are one line naming ``where`` and the JSON path.

    Parameters
    ----------
    text : str
        The document.
    where : str
        Where it comes from (a file name), for error messages.

    Returns
    -------
    Program

    Raises
    ------
    FormatError
        Malformed JSON, another kind of document, or a bad field.

    Examples
    --------
    >>> program_from_json('{"format": "collsched", "version": 1, "kind": "program", '
    ...                   '"ranks": ["a"], "ops": [["a", "compute", null, null, "1Gf", [], []]]}').op_size
    array([1.e+09])
    """
    return program_from_dict(load_document(text, where=where, kind="program"), Where(where))


def load_program(path: str | os.PathLike) -> Program:
    """Read a program document from a file (see :func:`program_from_json`).

    Parameters
    ----------
    path : str or path-like
        A native program document.

    Returns
    -------
    Program

    Raises
    ------
    FormatError
        If the file cannot be read or is not a valid program document.

    Examples
    --------
    >>> import os, tempfile
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Value
    >>> path = os.path.join(tempfile.mkdtemp(), "p.json")
    >>> save_program(ProgramBuilder(["a"]).build(), path)
    >>> load_program(path)
    <Program '': 1 ranks, 0 ops, 0 messages>
    """
    return program_from_json(read_text(path), where=os.fspath(path))


def save_program(p: Program, path: str | os.PathLike) -> None:
    """Write a program document to ``path`` atomically.

    Parameters
    ----------
    p : Program
    path : str or path-like
        The file to create or replace.

    Raises
    ------
    FormatError
        If the file cannot be written (it is then untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> from collsched.schedules.program import ProgramBuilder
    >>> from collsched.schedules.values import Value
    >>> path = os.path.join(tempfile.mkdtemp(), "p.json")
    >>> b = ProgramBuilder(["a", "b"])
    >>> _ = b.send("a", "b", [], size=8)
    >>> save_program(b.build(), path)
    >>> load_program(path).n_messages
    1
    """
    atomic_write(path, program_to_json(p))


