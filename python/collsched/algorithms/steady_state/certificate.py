r"""The exact certificate of a large steady-state LP, its dual checks filtered in floating point (issue 17).

:func:`.exact._reduced_costs` proves ``(x, y)`` optimal by computing every
reduced cost ``r_j = (A^T y - c)_j`` in exact rationals. On the reduce LP
(80k columns for 24 participants) most of that time goes into columns
whose ``r_j`` is far from zero, summed from fractions of thousands of bits
(the dual of a reduction tree adds up link costs whose denominators are
the bandwidths' 53-bit mantissas). Only the **sign** of ``r_j`` matters
(dual feasibility ``r_j >= 0``; the next canonical stage holds the columns
with ``r_j > 0`` at zero), so :func:`certify` decides it as exact
geometric predicates do (a floating-point filter, then exact arithmetic):

1. ``r̂_j``, the sum of the column's terms ``â_ij ŷ_i`` and ``-ĉ_j`` in
   doubles, and a bound on its error, from the standard bounds on
   floating-point products and recursive sums (Higham, *Accuracy and
   Stability of Numerical Algorithms*, 2nd ed., 2002, §2.2 and §4.2): with
   ``u = 2^-53``, inputs converted with relative error at most ``2u``
   (``â`` is ``float(Fraction)``, correctly rounded; ``ŷ`` and ``ĉ`` are
   python-flint's ``float(fmpq)``, which a test checks within ``u`` on
   random rationals of up to 3,000 bits), ``K`` the column's number of
   terms and ``S_j`` the computed sum of their absolute values,
   ``|r̂_j - r_j| <= (K + 6) u S_j`` to first order in ``u`` (``K - 1``
   roundings of the sum, at most ``5u`` in each product, ``2u`` in
   ``ĉ``), plus ``2^-1075`` per product that underflows.
   :func:`certify` uses four times that, ``4 (K + 6) u S_j + (K + 2)
   2^-1060``, which also covers the terms of higher order.
   Where ``|r̂_j|`` exceeds the bound, ``r_j`` has ``r̂_j``'s sign: proven.
2. Every other free column (those with ``r_j = 0`` above all: the basic
   columns and the reduction trees' columns), and every column with a
   value a double cannot hold (a ``y_i`` or ``c_j`` nonzero with
   magnitude outside ``[1e-250, 1e250]``, a sum that overflows), is
   summed in exact rationals (python-flint's ``fmpq``), as before.

Primal feasibility ``A x = b``, ``x >= 0`` and the zero gap ``c·x = b·y``
are checked exactly as in :func:`.exact._reduced_costs`. The result is a
proof: a sign the filter gives is the exact sign.

Examples
--------
``max x0 + x1`` subject to ``x0 + 2 x1 + s = 4``, ``3 x0 + x1 + t = 6``: the
optimum ``x = (8/5, 6/5)`` and its dual ``y = (2/5, 1/5)``; the slacks'
reduced costs are ``2/5`` and ``1/5``, positive.

>>> from fractions import Fraction as F
>>> from collsched.algorithms.steady_state.exact import LinearProgram, SparseLP, _fmpq_array
>>> lp = LinearProgram()
>>> x0, x1, s, t = (lp.column(n) for n in ("x0", "x1", "s", "t"))
>>> lp.objective[x0] = lp.objective[x1] = F(1)
>>> _ = lp.row({x0: 1, x1: 2, s: 1}, 4); _ = lp.row({x0: 3, x1: 1, t: 1}, 6)
>>> cost = _fmpq_array([1, 1, 0, 0])
>>> certify(SparseLP(lp), _fmpq_array([F(8, 5), F(6, 5), 0, 0]), _fmpq_array([F(2, 5), F(1, 5)]), cost).tolist()
[False, False, True, True]
>>> certify(SparseLP(lp), _fmpq_array([F(8, 5), F(6, 5), 0, 0]), _fmpq_array([F(2, 5), F(1, 6)]), cost) is None
True
"""

from __future__ import annotations

import numpy as np

from .exact import _ZERO_Q, SparseLP, _nonzero, _primal_feasible, _row_sums

__all__ = ["certify", "float_reduced_costs"]

_U = 2.0 ** -53  # the unit roundoff of doubles
_TINY, _HUGE = 1e-250, 1e250  # the magnitudes a y_i or c_j must have for the filter to use its double


def float_reduced_costs(sparse: SparseLP, y: np.ndarray, cost: np.ndarray, free: np.ndarray,
                        y_nz: np.ndarray | None = None, c_nz: np.ndarray | None = None,
                        cost_float: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(r̂, bound, safe)`` per column: ``A^T y - c`` in doubles, a bound on its error, whether the bound holds.

    ``safe`` is False on the columns not ``free``, and on those with an
    input a double cannot hold to relative ``2u`` or a non-finite sum
    (module docstring, step 1); elsewhere ``|r̂ - (A^T y - c)| <= bound``.
    ``y_nz`` and ``c_nz``, where ``y`` and ``cost`` are nonzero, and
    ``cost_float``, ``float(cost)`` entry by entry, if known.

    Examples
    --------
    >>> from collsched.algorithms.steady_state.exact import LinearProgram, _fmpq_array
    >>> lp = LinearProgram(); a = lp.column("a"); b = lp.column("b")
    >>> _ = lp.row({a: 1, b: 3}, 1)
    >>> r, bound, safe = float_reduced_costs(SparseLP(lp), _fmpq_array([1]), _fmpq_array([1, 0]), np.ones(2, bool))
    >>> r.tolist(), float(bound[1]) == 4 * (2 + 6) * 2.0**-53 * 3, safe.tolist()  # K = 2 terms: 3·1 and -0
    ([0.0, 3.0], True, [True, True])
    """
    m, n = sparse.shape
    y_nz = _nonzero(y) if y_nz is None else y_nz
    c_nz = _nonzero(cost) if c_nz is None else c_nz
    yf = np.array([float(v) for v in y], np.float64)  # python-flint's conversion: relative error below 2u
    cf = np.array([float(v) for v in cost], np.float64) if cost_float is None else cost_float
    y_bad = y_nz & ~((np.abs(yf) >= _TINY) & (np.abs(yf) <= _HUGE))  # NaN fails both comparisons: bad
    c_bad = c_nz & ~((np.abs(cf) >= _TINY) & (np.abs(cf) <= _HUGE))
    on = np.flatnonzero(y_nz[sparse.row] & free[sparse.col])
    col = sparse.col[on]
    terms = sparse.floats[on] * yf[sparse.row[on]]
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.bincount(col, weights=terms, minlength=n) - cf
        total = np.bincount(col, weights=np.abs(terms), minlength=n) + np.abs(cf)
        count = np.bincount(col, minlength=n) + 1  # the column's terms, with -c
        bound = 4.0 * (count + 6) * _U * total + (count + 2) * 2.0 ** -1060
    bad = c_bad | (np.bincount(col, weights=y_bad[sparse.row[on]], minlength=n) > 0)
    safe = free & ~bad & np.isfinite(r) & np.isfinite(bound)
    return r, bound, safe


def certify(sparse: SparseLP, x: np.ndarray, y: np.ndarray, cost: np.ndarray, fixed=frozenset(),
            cost_float: np.ndarray | None = None):
    """The columns of positive reduced cost (bool array) when ``(x, y)`` is an exact certificate of optimality, else None.

    Proves, exactly, what :func:`.exact._reduced_costs` proves (``A x = b``,
    ``x >= 0``, ``x`` zero on ``fixed``, ``A^T y >= c`` on every column not
    ``fixed``, ``c·x = b·y``), deciding the signs of the reduced costs far
    from zero in floating point with a proven error bound and the others in
    exact rationals (module docstring). Columns in ``fixed`` are held at
    zero: False in the array returned, whatever their sign.

    Parameters
    ----------
    sparse : SparseLP
        The LP's matrix.
    x, y, cost : object arrays of flint.fmpq
        Primal values, row duals, the objective.
    fixed : iterable of int
        Columns held at zero.
    cost_float : float64 array, optional
        ``float(cost)`` entry by entry (correctly rounded, or within
        ``2u``), if known.

    Returns
    -------
    numpy bool array or None
        ``(A^T y - c)_j > 0`` per column.

    Examples
    --------
    See the module docstring.
    """
    m, n = sparse.shape
    x_nz, y_nz, c_nz = _nonzero(x), _nonzero(y), _nonzero(cost)
    if not _primal_feasible(sparse, x, fixed, x_nz):
        return None
    free = np.ones(n, bool)
    free[list(fixed)] = False
    r, bound, safe = float_reduced_costs(sparse, y, cost, free, y_nz, c_nz, cost_float)
    decided = safe & (np.abs(r) > bound)
    if (decided & (r < 0)).any():  # proven negative: y is not dual feasible
        return None
    positive = decided & (r > 0)
    # the rest in exact rationals: the terms of the undecided free columns, summed column by column
    rest = free & ~decided
    on = np.flatnonzero(y_nz[sparse.row] & rest[sparse.col])
    order = on[np.argsort(sparse.col[on], kind="stable")]
    sums = _row_sums(sparse.col[order], sparse.times_rows(order, y), n)
    idx = np.flatnonzero(rest)
    values = sums[idx] - cost[idx]
    nz = np.flatnonzero(_nonzero(values))  # most are zero (basic and tree columns): only the others compared
    signs = np.array([v > 0 for v in values[nz]], bool)
    if not signs.all():
        return None
    positive[idx[nz]] = True
    both = np.flatnonzero(c_nz & x_nz)
    rhs = np.flatnonzero(y_nz & _nonzero(sparse.rhs))
    gap = sum((cost[both] * x[both]).tolist(), _ZERO_Q) - sum((sparse.rhs[rhs] * y[rhs]).tolist(), _ZERO_Q)
    return None if gap else positive
