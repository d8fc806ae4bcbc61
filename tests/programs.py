"""Test helpers: rebuild programs from operation rows, and mutate them."""

from __future__ import annotations

import numpy as np

from collsched.schedules.program import RECV, SEND, Program


def rows(program: Program) -> list[dict]:
    """The program as a list of plain dicts, one per operation."""
    out = []
    for i in range(program.n_ops):
        out.append(dict(rank=int(program.op_rank[i]), kind=int(program.op_kind[i]), peer=int(program.op_peer[i]),
                        msg=int(program.op_msg[i]), size=float(program.op_size[i]),
                        deps=[int(d) for d in program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]],
                        pieces=[tuple(int(x) for x in r) for r in program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]]))
    return out


def build(ranks, ops: list[dict], denominator: int = 1, name: str = "mutant") -> Program:
    """A program from rows (deps are indices into ``ops``)."""
    def arr(key, dtype=np.int64):
        return np.array([op[key] for op in ops], dtype=dtype)
    dep_ptr = np.concatenate([[0], np.cumsum([len(op["deps"]) for op in ops])]).astype(np.int64)
    piece_ptr = np.concatenate([[0], np.cumsum([len(op["pieces"]) for op in ops])]).astype(np.int64)
    pieces = np.array([p for op in ops for p in op["pieces"]], dtype=np.int64).reshape(-1, 6)
    return Program(tuple(ranks), denominator, arr("rank"), arr("kind"), arr("peer"), arr("msg"),
                   arr("size", np.float64), dep_ptr, np.array([d for op in ops for d in op["deps"]], dtype=np.int64),
                   piece_ptr, pieces, name)


def remove_ops(ops: list[dict], doomed: set[int]) -> list[dict]:
    """Drop operations; dependencies on them are dropped too, the rest renumbered."""
    new_index, kept = {}, []
    for i, op in enumerate(ops):
        if i not in doomed:
            new_index[i] = len(kept)
            kept.append(dict(op))
    for op in kept:
        op["deps"] = [new_index[d] for d in op["deps"] if d in new_index]
    return kept


def data_messages(program: Program) -> list[int]:
    """Ids of messages that carry pieces."""
    ops = rows(program)
    return sorted(op["msg"] for op in ops if op["kind"] == SEND and op["pieces"])


def drop_message(program: Program, msg: int) -> Program:
    ops = rows(program)
    doomed = {i for i, op in enumerate(ops) if op["kind"] in (SEND, RECV) and op["msg"] == msg}
    return build(program.ranks, remove_ops(ops, doomed), program.denominator)


def duplicate_message(program: Program, msg: int) -> Program:
    """Send message ``msg`` a second time, right after the first, under a new id."""
    ops = rows(program)
    send = next(i for i, op in enumerate(ops) if op["kind"] == SEND and op["msg"] == msg)
    recv = next(i for i, op in enumerate(ops) if op["kind"] == RECV and op["msg"] == msg)
    new_id = max(op["msg"] for op in ops) + 1
    ops.append(dict(ops[send], msg=new_id, deps=[send]))
    ops.append(dict(ops[recv], msg=new_id, deps=[recv]))
    return build(program.ranks, ops, program.denominator)


def hoist(program: Program, op_index: int) -> Program:
    """Move an operation to the front of its rank, waiting for nothing (a reordering)."""
    ops = rows(program)
    moved = dict(ops[op_index], deps=[])
    order = [op_index] + [i for i in range(len(ops)) if i != op_index]
    new_index = {old: new for new, old in enumerate(order)}
    out = []
    for old in order:
        op = moved if old == op_index else dict(ops[old])
        op["deps"] = [new_index[d] for d in op["deps"] if d != op_index or old == op_index]
        out.append(op)
    return build(program.ranks, out, program.denominator)


def forwarding_ops(program: Program) -> list[int]:
    """Sends and computations that use a piece their rank received or computed (not one it started with)."""
    ops = rows(program)
    produced: dict[tuple, int] = {}
    out = []
    for i, op in enumerate(ops):
        if op["kind"] == RECV:
            send = next(o for o in ops if o["kind"] == SEND and o["msg"] == op["msg"])
            for p in send["pieces"]:
                produced[(op["rank"], p)] = i
        else:
            uses = op["pieces"][:-1] if op["kind"] == 2 else op["pieces"]
            if any((op["rank"], p) in produced for p in uses):
                out.append(i)
            if op["kind"] == 2 and op["pieces"]:
                produced[(op["rank"], op["pieces"][-1])] = i
    return out


def swap_pieces(program: Program, a: int, b: int) -> Program:
    """Exchange what two data messages carry (sizes included)."""
    ops = rows(program)
    sa = next(i for i, op in enumerate(ops) if op["kind"] == SEND and op["msg"] == a)
    sb = next(i for i, op in enumerate(ops) if op["kind"] == SEND and op["msg"] == b)
    ops[sa]["pieces"], ops[sb]["pieces"] = ops[sb]["pieces"], ops[sa]["pieces"]
    return build(program.ranks, ops, program.denominator)
