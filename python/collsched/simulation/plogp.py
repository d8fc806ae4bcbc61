"""pLogP parameters: ``L`` and the piecewise-linear functions ``o_s(m)``, ``o_r(m)``, ``g(m)``.

pLogP (Kielmann et al., 2000) measures, for message sizes ``m`` at a few
breakpoints, the send overhead ``o_s(m)``, the receive overhead ``o_r(m)``
and the gap ``g(m)`` (the least time between two consecutive messages of
size ``m``), plus one end-to-end latency ``L``. Between breakpoints the
functions are linear; beyond the last one they go on along their last
segment (a measured gap grows with the size); below the first they keep
the first value.

Examples
--------
>>> g = Piecewise([0, 1024, 65536], [5e-6, 1.5e-5, 6e-4])
>>> round(float(g(512)), 12), round(float(g(131072)), 9)
(1e-05, 0.001194286)
>>> PLogPParams(L=2e-5, g=g).o_r(100)
array(0.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["Piecewise", "PLogPParams"]


def _finite_nonneg(name: str, x: object) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)) or not np.isfinite(x) or x < 0:
        raise ValueError(f"{name}={x!r} is not a finite number >= 0")
    return float(x)


@dataclass(frozen=True, init=False)
class Piecewise:
    """A piecewise-linear function of the message size, from breakpoints.

    Parameters
    ----------
    sizes : sequence of float
        Breakpoints in bytes, strictly increasing, ``>= 0``.
    values : sequence of float
        Seconds at each breakpoint, ``>= 0``.

    Notes
    -----
    Evaluation is ``numpy.interp`` between the breakpoints, the last
    segment's line beyond the last one (a constant if there is one
    breakpoint), the first value below the first one; never below 0.

    Examples
    --------
    >>> f = Piecewise([0, 100], [1.0, 2.0])
    >>> f(np.array([50.0, 300.0])).tolist()
    [1.5, 4.0]
    >>> Piecewise.constant(3.0)(1e9)
    array(3.)
    >>> Piecewise([10, 5], [0, 0])
    Traceback (most recent call last):
    ...
    ValueError: Piecewise sizes=[10, 5] are not strictly increasing
    """

    sizes: tuple[float, ...]
    values: tuple[float, ...]

    def __init__(self, sizes: Sequence[float], values: Sequence[float]):
        sizes, values = list(sizes), list(values)
        if not sizes or len(sizes) != len(values):
            raise ValueError(f"Piecewise needs as many values as sizes, at least one (got {len(sizes)} sizes, "
                             f"{len(values)} values)")
        s = tuple(_finite_nonneg("Piecewise size", x) for x in sizes)
        v = tuple(_finite_nonneg("Piecewise value", x) for x in values)
        if any(b <= a for a, b in zip(s, s[1:])):
            raise ValueError(f"Piecewise sizes={sizes!r} are not strictly increasing")
        object.__setattr__(self, "sizes", s)
        object.__setattr__(self, "values", v)

    @classmethod
    def constant(cls, value: float) -> Piecewise:
        """The same value for every size.

        Examples
        --------
        >>> Piecewise.constant(0.5).values
        (0.5,)
        """
        return cls([0.0], [value])

    @classmethod
    def linear(cls, base: float, per_byte: float) -> Piecewise:
        """``base + per_byte * m`` (e.g. a gap ``1/bandwidth`` per byte).

        Examples
        --------
        >>> round(float(Piecewise.linear(1e-5, 1e-8)(1e6)), 12)
        0.01001
        """
        return cls([0.0, 1.0], [base, base + per_byte])

    def __call__(self, m) -> np.ndarray:
        m = np.asarray(m, dtype=np.float64)
        xs, ys = np.array(self.sizes), np.array(self.values)
        out = np.interp(m, xs, ys)
        if len(xs) > 1:
            slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
            out = np.where(m > xs[-1], ys[-1] + slope * (m - xs[-1]), out)
        return np.asarray(np.maximum(out, 0.0))


def _piecewise(name: str, x) -> Piecewise:
    if isinstance(x, Piecewise):
        return x
    if isinstance(x, tuple) and len(x) == 2 and not np.isscalar(x[0]):
        return Piecewise(*x)
    try:
        return Piecewise.constant(_finite_nonneg(name, x))
    except ValueError:
        raise ValueError(f"PLogPParams option {name}={x!r} is not a number >= 0, a (sizes, values) pair "
                         f"or a Piecewise") from None


@dataclass(frozen=True, init=False)
class PLogPParams:
    """The pLogP parameters of one pair of clusters (or the default).

    Parameters
    ----------
    L : float
        End-to-end latency in seconds.
    g : Piecewise, float or (sizes, values)
        Gap ``g(m)``: how long the sender's port stays busy per message.
    o_s, o_r : Piecewise, float or (sizes, values)
        Send and receive overheads; 0 by default.

    Examples
    --------
    >>> p = PLogPParams(L=1e-4, g=([0, 1e6], [1e-5, 1e-2]), o_r=2e-6)
    >>> float(p.g(5e5)), float(p.o_r(1e9))
    (0.005005, 2e-06)
    >>> PLogPParams(L=-1, g=0)
    Traceback (most recent call last):
    ...
    ValueError: PLogPParams option L=-1 is not a finite number >= 0
    """

    L: float
    g: Piecewise
    o_s: Piecewise
    o_r: Piecewise

    def __init__(self, *, L: float, g, o_s=0.0, o_r=0.0):
        try:
            latency = _finite_nonneg("L", L)
        except ValueError:
            raise ValueError(f"PLogPParams option L={L!r} is not a finite number >= 0") from None
        object.__setattr__(self, "L", latency)
        object.__setattr__(self, "g", _piecewise("g", g))
        object.__setattr__(self, "o_s", _piecewise("o_s", o_s))
        object.__setattr__(self, "o_r", _piecewise("o_r", o_r))
