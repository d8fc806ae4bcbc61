"""Numbers with units: ``"86MBps"``, ``"10us"``, ``"1Gf"``, ``"1MiB"``.

collsched works in SI units everywhere (bytes, seconds, bytes/s, flop/s);
files may instead give a string with a unit, as SimGrid platform files do.
:func:`parse` turns either form into a float of the right dimension and
:func:`format_quantity` turns a float back into a short readable string.

Dimensions and units (decimal prefixes k M G T P, binary prefixes Ki Mi Gi Ti Pi):

==========  =====================================================  ===========
dimension   units                                                  SI result
==========  =====================================================  ===========
bandwidth   ``Bps`` ``B/s`` (bytes/s), ``bps`` ``b/s`` (bits/s)    bytes/s
time        ``s`` ``ms`` ``us`` ``ns`` ``ps``, ``m`` ``h`` ``d``    seconds
speed       ``f`` ``flops`` (flop/s)                               flop/s
size        ``B`` (bytes), ``b`` (bits)                            bytes
flops       ``f`` ``flop`` (an amount of work)                     flop
==========  =====================================================  ===========

Examples
--------
>>> parse("86MBps", "bandwidth")
86000000.0
>>> parse("10Gbps", "bandwidth")
1250000000.0
>>> parse("10us", "time")
1e-05
>>> parse("1Gf", "speed")
1000000000.0
>>> parse("1KiB", "size")
1024.0
>>> parse(2.5, "time")
2.5
>>> format_quantity(86e6, "bandwidth")
'86MBps'
"""

from __future__ import annotations

import math
import re
from decimal import Decimal

from .errors import UnitError

__all__ = ["parse", "format_quantity", "DIMENSIONS"]

_DECIMAL = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}

# unit suffix -> factor to the SI base of the dimension; prefixes combine with them
_PREFIXABLE = {
    "bandwidth": {"Bps": 1.0, "B/s": 1.0, "bps": 0.125, "b/s": 0.125},
    "size": {"B": 1.0, "b": 0.125, "byte": 1.0, "bytes": 1.0},
    "speed": {"f": 1.0, "flops": 1.0, "flop/s": 1.0},
    "flops": {"f": 1.0, "flop": 1.0, "flops": 1.0},
    "time": {"s": 1.0},
}
# time units that take no prefix, checked before the prefixed forms
_TIME_FIXED = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12, "m": 60.0, "min": 60.0,
               "h": 3600.0, "d": 86400.0, "w": 604800.0}

DIMENSIONS = tuple(_PREFIXABLE)

_NUMBER = re.compile(r"^\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z/]*)\s*$")


def parse(value: object, dimension: str, *, where: str | None = None) -> float:
    """Return ``value`` in SI units of ``dimension``.

    Parameters
    ----------
    value : float, int or str
        A plain number (already SI) or a string such as ``"86MBps"``.
    dimension : str
        One of ``bandwidth``, ``time``, ``speed``, ``size``, ``flops``.
    where : str, optional
        Where the value comes from, for the error message.

    Returns
    -------
    float
        The value in bytes/s, seconds, flop/s, bytes or flop.

    Raises
    ------
    UnitError
        If the string does not parse or its unit belongs to another dimension.

    Examples
    --------
    >>> parse("1.5ms", "time")
    0.0015
    >>> parse("125MBps", "bandwidth")
    125000000.0
    >>> parse("12 parsecs", "time")
    Traceback (most recent call last):
    ...
    collsched.errors.UnitError: cannot read '12 parsecs' as a time (write e.g. '10us', '1.5ms' or a number of seconds)
    """
    if dimension not in _PREFIXABLE:
        raise ValueError(f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}")
    if isinstance(value, bool):
        raise UnitError(f"{value!r} is not a {dimension}", where=where, fix=_EXAMPLES[dimension])
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise UnitError(f"{value!r} is not a {dimension}", where=where, fix=_EXAMPLES[dimension])
    match = _NUMBER.match(value)
    factor = _unit_factor(match.group(2), dimension) if match else None
    if factor is None:
        raise UnitError(f"cannot read {value!r} as a {dimension}", where=where, fix=_EXAMPLES[dimension])
    # decimal arithmetic, so that '10us' is exactly the float 1e-05
    return float(Decimal(match.group(1)) * Decimal(repr(factor)))


_EXAMPLES = {
    "bandwidth": "write e.g. '86MBps', '10Gbps' or a number of bytes/s",
    "time": "write e.g. '10us', '1.5ms' or a number of seconds",
    "speed": "write e.g. '1Gf' or a number of flop/s",
    "size": "write e.g. '1MB', '64KiB' or a number of bytes",
    "flops": "write e.g. '1Gf' or a number of flop",
}


def _unit_factor(unit: str, dimension: str) -> float | None:
    if unit == "":
        return 1.0
    if dimension == "time" and unit in _TIME_FIXED:
        return _TIME_FIXED[unit]
    for suffix, base in _PREFIXABLE[dimension].items():
        if unit.endswith(suffix):
            prefix = unit[: -len(suffix)]
            scale = _BINARY.get(prefix, _DECIMAL.get(prefix))
            if scale is not None:
                return scale * base
    return None


_SHOW = {"bandwidth": "Bps", "time": "s", "speed": "f", "size": "B", "flops": "f"}


def format_quantity(value: float, dimension: str, digits: int = 4) -> str:
    """A short readable string for an SI value (for tables, not for files).

    Parameters
    ----------
    value : float
        In SI units of ``dimension``.
    dimension : str
        One of :data:`DIMENSIONS`.
    digits : int
        Significant digits shown.

    Returns
    -------
    str
        The number scaled to a decimal prefix (or, for times below a second,
        to ms, us, ns or ps), followed by the unit.

    Raises
    ------
    KeyError
        If ``dimension`` is unknown.

    Examples
    --------
    >>> format_quantity(1e-5, "time")
    '10us'
    >>> format_quantity(1.25e9, "bandwidth")
    '1.25GBps'
    >>> format_quantity(0, "time")
    '0s'
    """
    if dimension not in _SHOW:
        raise ValueError(f"unknown dimension {dimension!r}; expected one of {', '.join(DIMENSIONS)}")
    unit = _SHOW[dimension]
    if value == 0 or not math.isfinite(value):
        return f"{value:g}{unit}"
    if dimension == "time" and abs(value) < 1:
        for name, scale in (("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12)):
            if abs(value) >= scale * (1 - 1e-12):
                return f"{value / scale:.{digits}g}{name}"
        return f"{value:.{digits}g}s"
    for prefix in ("P", "T", "G", "M", "k", ""):
        scale = _DECIMAL[prefix]
        if abs(value) >= scale * (1 - 1e-12):
            return f"{value / scale:.{digits}g}{prefix}{unit}"
    return f"{value:.{digits}g}{unit}"
