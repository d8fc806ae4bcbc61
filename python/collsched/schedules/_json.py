"""Field helpers shared by the schedule and program JSON readers and writers (private)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any


from ..errors import FormatError
from ..fileformat import REQUIRED, Where, elements, field
from .values import BLOCK, PARTIAL, REDUCED, Piece, Value

_NONE = type(None)
_FRACTION = re.compile(r"\s*-?\d+(/\d+)?\s*")
_COLUMNS = ["rank", "kind", "peer", "msg", "size", "deps", "pieces"]


# --- fields shared by the shapes and programs ------------------------------------------

def _show(value: Any) -> str:
    return repr(value) if isinstance(value, str) else json.dumps(value)[:60]


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def _read_frac(value: Any, where: Where) -> Fraction:
    if isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    if isinstance(value, str) and _FRACTION.fullmatch(value):
        try:
            return Fraction(value.strip())
        except ZeroDivisionError:
            pass
    raise where.error(f"cannot read {_show(value)} as an exact fraction", fix="write 'p/q' with integers, e.g. '3/4'")


def _fraction(obj, name, where, default=REQUIRED) -> Fraction:
    value = field(obj, name, where, type=(str, float), default=default)
    return value if value is default else _read_frac(value, where.at(name))


_HEX = re.compile(r"0x[0-9a-f]+")


def _piece(x: Value | Piece) -> list:
    """``[kind, inst, a, b(, start, end)]``; a reduction's operand set ``a`` as a hex string ``"0x..."`` (any size)."""
    value, frag = (x.value, [int(x.start), int(x.end)]) if isinstance(x, Piece) else (x, [])
    a = hex(value.a) if value.kind == REDUCED else int(value.a)
    return [int(value.kind), int(value.inst), a, int(value.b), *frag]


def _read_piece(item: Any, where: Where, lengths=(4, 6)) -> Value | Piece:
    found = item
    if isinstance(item, list) and len(item) in lengths and item[0] == REDUCED:
        mask = item[2] if isinstance(item[2], str) and _HEX.fullmatch(item[2]) else None
        item = None if mask is None or int(mask, 16) == 0 else [item[0], item[1], int(mask, 16), *item[3:]]
    if not (isinstance(item, list) and len(item) in lengths and item[0] in (BLOCK, PARTIAL, REDUCED)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item)):
        shape = " or ".join(["[kind, inst, a, b]", "[kind, inst, a, b, start, end]"][n == 6] for n in lengths)
        raise where.error(f"expected {shape} (integers, kind 0, 1 or 2; for kind 2, a the hex mask of the "
                          f"operands, e.g. \"0x29\"), found {_show(found)}")
    return Value(*item[:4]) if len(item) == 4 else Piece(Value(*item[:4]), item[4], item[5])


def _pieces(obj, name, where, lengths=(4, 6)) -> tuple:
    return tuple(_read_piece(item, w, lengths) for w, item in elements(obj, name, where, type=list))


def _cells(row: Any, where: Where, sizes: range, what: str) -> dict[int, Any]:
    """A JSON list as ``{index: item}``, so that :func:`field` reads item ``j`` at ``where[j]``."""
    if not isinstance(row, list) or len(row) not in sizes:
        raise where.error(f"expected {what}, found {_show(row)}")
    return dict(enumerate(row))


def _strings(obj, name, where) -> tuple[str, ...]:
    return tuple(h for _, h in elements(obj, name, where, type=str))


def _check_params(value: Any, path: str) -> None:
    if value is None or isinstance(value, (str, bool, int, float)):
        return
    if isinstance(value, list) or (isinstance(value, dict) and all(isinstance(k, str) for k in value)):
        for k, v in (enumerate(value) if isinstance(value, list) else value.items()):
            _check_params(v, f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}")
        return
    raise FormatError(f"cannot write schedule {path}: a {type(value).__name__} has no exact JSON form",
                      fix="keep params to strings, numbers, booleans, null, lists and objects with string keys")
