"""Exact optimum of a steady-state LP: HiGHS's basis, re-solved in rationals, and its certificate.

The LPs of this package are built in standard form, ``max c·x`` subject to
``A x = b``, ``x >= 0`` (one-port and compute constraints carry explicit
slack columns). HiGHS solves it in floating point; :func:`solve` then reads
HiGHS's values and duals as nearby simple fractions and, when that guess
fails the checks below, takes HiGHS's optimal basis and solves the basis
system ``A_B x_B = b`` and the dual system ``A_B^T y = c_B`` in
python-flint's exact rationals (:class:`flint.fmpq`, sparse Gaussian
elimination). Either way it re-checks exactly, on the matrix's coordinate
arrays (:class:`SparseLP`, the arithmetic in C)

* primal feasibility: ``A x = b`` row by row, ``x >= 0``;
* dual feasibility: ``A^T y >= c`` column by column;
* zero gap: ``c·x == b·y``.

Together they prove that ``x`` is optimal (weak duality), so the throughput
claimed is the exact optimum, not a rounded one.

Examples
--------
``max x0 + x1`` subject to ``x0 + 2 x1 + s = 4``, ``3 x0 + x1 + t = 6``:

>>> from fractions import Fraction
>>> lp = LinearProgram()
>>> x0, x1, s, t = (lp.column(n) for n in ("x0", "x1", "s", "t"))
>>> lp.objective[x0] = lp.objective[x1] = Fraction(1)
>>> lp.row({x0: 1, x1: 2, s: 1}, 4)
0
>>> lp.row({x0: 3, x1: 1, t: 1}, 6)
1
>>> sol = solve(lp)
>>> sol.objective, sol.x[x0], sol.x[x1], sol.certified
(Fraction(14, 5), Fraction(8, 5), Fraction(6, 5), True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain

import flint
import numpy as np

from ...errors import CollschedError
from ...schedules.base import Status

__all__ = ["LinearProgram", "LPSolution", "SparseLP", "solve", "solve_sparse", "SteadyStateError", "objective_of"]

#: Extra HiGHS options (the benchmark tries solvers through it).
_HIGHS_OPTIONS: dict = {}


class SteadyStateError(CollschedError):
    """A steady-state problem that has no meaningful answer (unreachable host, zero throughput).

    Examples
    --------
    >>> raise SteadyStateError("target 'h3' is unreachable from source 'h0'")
    Traceback (most recent call last):
    ...
    collsched.algorithms.steady_state.exact.SteadyStateError: target 'h3' is unreachable from source 'h0'
    """


_ONE, _MINUS_ONE, _ZERO = Fraction(1), Fraction(-1), Fraction(0)
_ZERO_Q = flint.fmpq(0)


def _fraction(v) -> Fraction:
    """``Fraction(v)``, sharing the ubiquitous ±1 (flow LPs have millions of them)."""
    return _ONE if v == 1 else _MINUS_ONE if v == -1 else Fraction(v)


@dataclass
class LinearProgram:
    """``max objective·x`` subject to ``rows[i]·x = rhs[i]``, ``x >= 0``, with exact coefficients.

    Attributes
    ----------
    names : list of str
        One per column.
    rows : list of dict
        Sparse rows ``{column: Fraction}``.
    rhs : list of Fraction
    objective : dict
        ``{column: Fraction}``.

    Examples
    --------
    >>> lp = LinearProgram()
    >>> x = lp.column("x")
    >>> lp.row({x: 2}, 1)
    0
    >>> lp.size
    (1, 1, 1)
    """

    names: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    rhs: list = field(default_factory=list)
    objective: dict = field(default_factory=dict)

    def column(self, name) -> int:
        """Add a column (a variable ``>= 0``) and return its index.

        Examples
        --------
        >>> LinearProgram().column("tp")
        0
        """
        self.names.append(name)
        return len(self.names) - 1

    def row(self, coefs: dict, rhs) -> int:
        """Add the equality ``coefs·x = rhs`` (zero coefficients dropped) and return its index.

        Examples
        --------
        >>> lp = LinearProgram(); a = lp.column("a")
        >>> lp.row({a: 1}, 0)
        0
        """
        self.rows.append({j: v if type(v) is Fraction else _fraction(v) for j, v in coefs.items() if v})
        self.rhs.append(Fraction(rhs))
        return len(self.rows) - 1

    def add_rows(self, counts: np.ndarray, cols: np.ndarray, values: np.ndarray, rhs: list) -> None:
        """Add many equalities at once: row ``r`` is ``counts[r]`` entries of ``cols`` and ``values``, in turn.

        The same rows as :meth:`row` called on each (``values`` exact and
        nonzero, ``cols`` distinct within a row), without a Python step per
        entry.

        Examples
        --------
        >>> lp = LinearProgram(); a = lp.column("a"); b = lp.column("b")
        >>> lp.add_rows(np.array([2, 1]), np.array([a, b, b]), np.array([_ONE, _MINUS_ONE, _ONE]), [0, 1])
        >>> lp.rows, lp.rhs
        ([{0: Fraction(1, 1), 1: Fraction(-1, 1)}, {1: Fraction(1, 1)}], [Fraction(0, 1), Fraction(1, 1)])
        """
        ends = np.cumsum(counts).tolist()
        cols, values = cols.tolist(), list(values)
        self.rows.extend(dict(zip(cols[a:b], values[a:b])) for a, b in zip([0] + ends[:-1], ends))
        self.rhs.extend(v if type(v) is Fraction else Fraction(v) for v in rhs)

    @property
    def size(self) -> tuple[int, int, int]:
        """``(rows, columns, nonzeros)``.

        Examples
        --------
        >>> LinearProgram().size
        (0, 0, 0)
        """
        return len(self.rows), len(self.names), sum(len(r) for r in self.rows)


@dataclass
class LPSolution:
    """An LP's exact optimum and how it was obtained.

    Attributes
    ----------
    status : Status
        OPTIMAL when certified, LIMIT when HiGHS stopped at its time limit,
        INFEASIBLE or ERROR otherwise.
    x : list of Fraction
        Primal values (exact; empty unless OPTIMAL).
    y : list of Fraction
        Dual values of the rows (the certificate).
    objective : Fraction
    certified : bool
        Primal feasibility, dual feasibility and zero gap all checked exactly.
    highs_status : str
        HiGHS's own model status message.
    float_objective : float
        HiGHS's floating-point objective (what was found so far, on LIMIT).
    recovery : str
        How the exact values were found: ``"rounded"`` (HiGHS's floats read
        as nearby fractions, then certified) or ``"basis"`` (the optimal
        basis system solved in rationals, then certified); for a stage
        priced by reduction trees (:mod:`.tree_pricing`), how the restricted
        LP's values were found.
    timings : dict
        Seconds spent passing the LP to HiGHS (``input``), in HiGHS
        (``solve``), recovering the exact basic solution and duals
        (``recovery``) and checking them (``certificate``); with
        :func:`~.canonical.solve_canonical`, ``canonical`` is the time of its
        later stages (already counted in the other three).
    unique : bool
        Proven the only optimal solution of the last stage run by
        :func:`~.canonical.solve_canonical` (False from :func:`solve`, which
        does not check).
    stages : tuple
        ``(name, exact objective)`` of each stage of
        :func:`~.canonical.solve_canonical` (empty from :func:`solve`).
    reduced : numpy object array of flint.fmpq
        The reduced costs ``A^T y - c`` of the certificate, exact (empty
        unless certified; zero on the columns the stage held at zero): the
        optimal solutions are the feasible ``x`` that are zero wherever it
        is positive. Not compared by ``==`` (``x``,
        ``y`` and ``objective`` determine it). Empty from a stage priced
        by reduction trees (:mod:`.tree_pricing`), whose certificate
        decides the signs only (:func:`.certificate.certify`).
    positive : numpy bool array
        The columns whose reduced cost the certificate proved positive
        (False on the columns the stage held at zero): the columns the
        next stage of :func:`~.canonical.solve_canonical` holds at zero.
        Not compared by ``==``.

    Examples
    --------
    >>> LPSolution(Status.ERROR).certified
    False
    """

    status: Status
    x: list = field(default_factory=list)
    y: list = field(default_factory=list)
    objective: Fraction = Fraction(0)
    certified: bool = False
    highs_status: str = ""
    float_objective: float = float("nan")
    timings: dict = field(default_factory=dict)
    recovery: str = ""
    unique: bool = False
    stages: tuple = ()
    reduced: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=object), repr=False, compare=False)
    positive: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool), repr=False, compare=False)


def solve_sparse(rows: list[dict], rhs: list[Fraction], cols: list) -> dict:
    """Solve the square system ``rows · x = rhs`` over the unknowns ``cols`` exactly.

    Sparse Gaussian elimination in exact rationals (:class:`fractions.Fraction`
    or :class:`flint.fmpq`, as given: fmpq runs in C, many times faster),
    pivoting on the shortest remaining row (flow bases are nearly
    triangular, so fill-in stays small).

    Parameters
    ----------
    rows : list of dict
        ``{unknown: coefficient}``, one per equation (as many as ``cols``).
    rhs : list
        Of the same kind of rationals as the coefficients.
    cols : list
        The unknowns.

    Returns
    -------
    dict
        ``{unknown: value}``.

    Raises
    ------
    CollschedError
        If the system is singular.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> solve_sparse([{"a": F(1), "b": F(1)}, {"a": F(1), "b": F(-1)}], [F(3), F(1)], ["a", "b"])
    {'a': Fraction(2, 1), 'b': Fraction(1, 1)}
    """
    if len(rows) != len(cols):
        raise CollschedError(f"exact basis system has {len(rows)} equations for {len(cols)} unknowns")
    work = [(dict(r), Fraction(v) if isinstance(v, int) else v) for r, v in zip(rows, rhs)]
    col_rows: dict = {c: set() for c in cols}
    for i, (r, _) in enumerate(work):
        for c in r:
            col_rows[c].add(i)
    alive = set(range(len(work)))
    order = []  # (pivot row, pivot column)
    import heapq
    heap = [(len(r), i) for i, (r, _) in enumerate(work)]
    heapq.heapify(heap)
    while alive:
        n, i = heapq.heappop(heap)
        if i not in alive or n != len(work[i][0]):
            continue
        r, v = work[i]
        if not r:
            raise CollschedError("exact basis system is singular")
        c = min(r, key=lambda k: len(col_rows[k]))
        alive.discard(i)
        order.append((i, c))
        piv = r[c]
        for k in list(col_rows[c]):
            if k == i or k not in alive:
                continue
            rk, vk = work[k]
            f = rk[c] / piv
            for cc, a in r.items():
                nv = rk.get(cc, 0) - f * a
                if nv == 0:
                    if cc in rk:
                        del rk[cc]
                        col_rows[cc].discard(k)
                else:
                    if cc not in rk:
                        col_rows[cc].add(k)
                    rk[cc] = nv
            work[k] = (rk, vk - f * v)
            heapq.heappush(heap, (len(rk), k))
        for cc in r:
            col_rows[cc].discard(i)
    out: dict = {}
    for i, c in reversed(order):
        r, v = work[i]
        s = v - sum(a * out[cc] for cc, a in r.items() if cc != c)
        out[c] = s / r[c]
    return {c: out[c] for c in cols}


def objective_of(lp: LinearProgram, values: dict) -> Fraction:
    """The objective of the activities ``values`` (``{column name: value}``), after checking them feasible exactly.

    Columns not named are zero, except the slack columns (named
    ``("slack", ...)``), each filled in from the one row it appears in. With
    a certified optimum ``TP`` of the same LP, ``objective_of(lp, v) == TP``
    proves ``v`` another optimal solution (seed 000's figures are checked so).

    Parameters
    ----------
    lp : LinearProgram
    values : dict
        ``{column name: number}`` (exact), the others zero or slack.

    Returns
    -------
    Fraction
        ``objective · x``.

    Raises
    ------
    CollschedError
        Naming the first unknown column, negative value or violated row.

    Examples
    --------
    >>> lp = LinearProgram(); x = lp.column("x"); s = lp.column(("slack", "x"))
    >>> lp.objective[x] = Fraction(1)
    >>> _ = lp.row({x: 3, s: 1}, 1)
    >>> objective_of(lp, {"x": Fraction(1, 4)})
    Fraction(1, 4)
    >>> objective_of(lp, {"x": Fraction(1, 2)})
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: activities violate row 0 of the LP: slack ('slack', 'x') would be -1/2
    """
    index = {name: j for j, name in enumerate(lp.names)}
    x = [Fraction(0)] * len(lp.names)
    for name, v in values.items():
        if name not in index:
            raise CollschedError(f"activity {name!r} is not a column of the LP")
        if v < 0:
            raise CollschedError(f"activity {name!r} is negative ({v})")
        x[index[name]] = Fraction(v)
    for i, r in enumerate(lp.rows):
        slacks = [j for j in r if isinstance(lp.names[j], tuple) and lp.names[j][:1] == ("slack",)
                  and lp.names[j] not in values]
        rest = sum((a * x[j] for j, a in r.items() if j not in slacks), Fraction(0))
        if len(slacks) == 1:
            j = slacks[0]
            x[j] = (lp.rhs[i] - rest) / r[j]
            if x[j] < 0:
                raise CollschedError(f"activities violate row {i} of the LP: slack {lp.names[j]!r} would be {x[j]}")
        elif rest != lp.rhs[i]:
            raise CollschedError(f"activities violate row {i} of the LP: {rest} != {lp.rhs[i]}")
    return sum((c * x[j] for j, c in lp.objective.items()), Fraction(0))


def _as_float(a: Fraction, name) -> float:
    """``a`` as HiGHS's double, refusing what a double cannot hold (a wrong LP would follow)."""
    try:
        f = float(a)
    except OverflowError:
        f = math.inf
    if not (math.isfinite(f) and f != 0 and 1e-250 < abs(f) < 1e250):
        exp = len(str(abs(a.numerator))) - len(str(a.denominator))
        raise SteadyStateError(f"LP coefficient ~1e{exp} of {name} is out of floating-point range",
                               fix="give sizes, costs, bandwidths and speeds in units that keep their ratios "
                                   "within 1e250")
    return f


class SparseLP:
    """An LP's matrix as coordinate arrays (row-major, each row's entries in its dict's order), built once.

    What HiGHS is given (floats, column-wise, in one call) and what the
    exact checks compute with (:class:`flint.fmpq`, python-flint's exact
    rationals, in numpy object arrays: the arithmetic runs in C).

    Parameters
    ----------
    lp : LinearProgram

    Attributes
    ----------
    row, col : int64 arrays
        Per nonzero.
    exact : object array of flint.fmpq
        Per nonzero, the coefficient.
    floats : float64 array
        Per nonzero, the coefficient as a double (:func:`_as_float`'s checks).
    unit : int8 array
        Per nonzero, 1 or -1 where the coefficient is exactly that, else 0.
    rhs : object array of flint.fmpq
    shape : (rows, columns)

    Raises
    ------
    SteadyStateError
        If a coefficient is out of floating-point range (the first one, in row order).

    Examples
    --------
    >>> lp = LinearProgram(); x = lp.column("x"); y = lp.column("y")
    >>> _ = lp.row({x: Fraction(1, 3), y: 2}, 1)
    >>> a = SparseLP(lp)
    >>> a.row.tolist(), a.col.tolist(), [str(v) for v in a.exact], a.floats.tolist()[1]
    ([0, 0], [0, 1], ['1/3', '2'], 2.0)
    """

    def __init__(self, lp: LinearProgram):
        m, n = len(lp.rows), len(lp.names)
        self.shape = (m, n)
        counts = np.fromiter((len(r) for r in lp.rows), np.int64, m)
        self.row = np.repeat(np.arange(m, dtype=np.int64), counts)
        self.col = np.fromiter(chain.from_iterable(lp.rows), np.int64, int(counts.sum()))
        # few distinct coefficient objects (±1 are shared, a row's sizes and costs often are): convert each once
        # (the objects are alive in lp.rows, so their ids are distinct); each entry points at its object's number
        coefs = list(chain.from_iterable(r.values() for r in lp.rows))
        first, key = np.unique(np.fromiter(map(id, coefs), np.int64, len(coefs)), return_index=True,
                               return_inverse=True)[1:]
        distinct = [coefs[k] for k in first.tolist()]
        exact = np.empty(len(distinct), dtype=object)
        exact[:] = [_fmpq(a) for a in distinct]
        self.exact = exact[key]
        self.key = key  # per nonzero, its distinct coefficient's number (products by coefficient and row: times_rows)
        self.floats = np.array([_float_or_nan(a) for a in distinct], np.float64)[key]
        self.unit = np.array([1 if a == 1 else -1 if a == -1 else 0 for a in distinct], np.int8)[key]  # ±1 exactly
        bad = ~(np.isfinite(self.floats) & (np.abs(self.floats) > 1e-250) & (np.abs(self.floats) < 1e250))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            _as_float(coefs[k], lp.names[int(self.col[k])])  # raises, naming the column
        self.rhs = _fmpq_array(lp.rhs)

    def times(self, entries: np.ndarray, values: np.ndarray) -> np.ndarray:
        """``exact[entries] * values`` (object array), without multiplying where the coefficient is ±1.

        Examples
        --------
        >>> lp = LinearProgram(); x = lp.column("x"); y = lp.column("y")
        >>> _ = lp.row({x: -1, y: Fraction(1, 3)}, 1)
        >>> [str(v) for v in SparseLP(lp).times(np.arange(2), _fmpq_array([3, 3]))]
        ['-3', '1']
        """
        out = np.empty(len(entries), dtype=object)
        u = self.unit[entries]
        plus, minus = u == 1, u == -1
        out[plus] = values[plus]
        out[minus] = -values[minus]
        rest = ~(plus | minus)
        out[rest] = self.exact[entries[rest]] * values[rest]
        return out

    def times_rows(self, entries: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``exact[entries] * y[row[entries]]`` (object array), each distinct product of a coefficient and a row's
        ``y`` made once (a port row holds the same few sizes times costs many times), none for ±1.

        Examples
        --------
        >>> lp = LinearProgram(); x = lp.column("x"); y = lp.column("y"); z = lp.column("z")
        >>> third = Fraction(1, 3)
        >>> _ = lp.row({x: -1, y: third, z: third}, 1)
        >>> [str(v) for v in SparseLP(lp).times_rows(np.arange(3), _fmpq_array([3]))]
        ['-3', '1', '1']
        """
        rows = self.row[entries]
        out = np.empty(len(entries), dtype=object)
        u = self.unit[entries]
        plus, minus = u == 1, u == -1
        out[plus] = y[rows[plus]]
        out[minus] = -y[rows[minus]]
        rest = np.flatnonzero(~(plus | minus))
        if len(rest):
            pair = self.key[entries[rest]] * self.shape[0] + rows[rest]
            _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
            out[rest] = (self.exact[entries[rest[first]]] * y[rows[rest[first]]])[inverse]
        return out

    def csc(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(start, index, value)``: the matrix column-wise in doubles, rows increasing within a column.

        Examples
        --------
        >>> lp = LinearProgram(); x = lp.column("x"); y = lp.column("y")
        >>> _ = lp.row({y: 1}, 1); _ = lp.row({x: 2, y: 3}, 1)
        >>> [a.tolist() for a in SparseLP(lp).csc()]
        [[0, 1, 3], [1, 0, 1], [2.0, 1.0, 3.0]]
        """
        order = np.argsort(self.col, kind="stable")
        start = np.zeros(self.shape[1] + 1, dtype=np.int32)
        np.cumsum(np.bincount(self.col, minlength=self.shape[1]), out=start[1:])
        return start, self.row[order].astype(np.int32), self.floats[order]


def _fmpq(a):
    """An exact rational (int, Fraction or fmpq) as a :class:`flint.fmpq`."""
    if type(a) is Fraction:
        return flint.fmpq(a.numerator, a.denominator)
    if type(a) is int:
        return flint.fmpq(a)
    if isinstance(a, flint.fmpq):
        return a
    a = Fraction(a)
    return flint.fmpq(a.numerator, a.denominator)


def _fmpq_array(values) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = [_ZERO_Q if not v else _fmpq(v) for v in values]
    return out


def _fraction_of(q) -> Fraction:
    """A :class:`flint.fmpq` as a :class:`fractions.Fraction` (0 and ±1 shared)."""
    if not q:
        return _ZERO
    p, d = int(q.p), int(q.q)
    if d == 1:
        return _ONE if p == 1 else _MINUS_ONE if p == -1 else Fraction(p)
    return Fraction(p, d)


def _fractions_of(a: np.ndarray) -> list:
    """An fmpq array as a list of :class:`fractions.Fraction`, converting only the nonzero entries (0 shared)."""
    out = [_ZERO] * len(a)
    for i in np.flatnonzero(_nonzero(a)).tolist():
        out[i] = _fraction_of(a[i])
    return out


def _float_or_nan(a) -> float:
    try:
        return float(a)
    except OverflowError:
        return math.inf


def _highs(lp: LinearProgram, time_limit: float, sparse: SparseLP | None = None):
    """A HiGHS instance holding ``lp`` (maximisation), and the seconds spent passing it (and building ``sparse``)."""
    import highspy

    from ..._highs import new_highs

    t0 = time.perf_counter()
    m, n = len(lp.rows), len(lp.names)
    sparse = SparseLP(lp) if sparse is None else sparse
    start, index, value = sparse.csc()
    h = new_highs()  # silent: no banner on stdout (collsched._highs)
    h.setOptionValue("time_limit", float(time_limit))
    if n > 2000:  # interior point + crossover (an optimal basis) is much faster than simplex on the big LPs
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "on")
    for k, v in _HIGHS_OPTIONS.items():
        h.setOptionValue(k, v)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = n, m
    model.col_cost_ = np.array([float(lp.objective.get(j, 0)) for j in range(n)])
    model.col_lower_ = np.zeros(n)
    model.col_upper_ = np.full(n, highspy.kHighsInf)
    rhs = np.array([float(v) for v in lp.rhs])
    model.row_lower_, model.row_upper_ = rhs, rhs.copy()
    model.sense_ = highspy.ObjSense.kMaximize
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = start
    model.a_matrix_.index_ = index
    model.a_matrix_.value_ = value
    model.a_matrix_.num_col_, model.a_matrix_.num_row_ = n, m
    h.passModel(model)
    return h, time.perf_counter() - t0


def solve(lp: LinearProgram, *, time_limit: float = 60.0) -> LPSolution:
    """Solve ``lp`` with HiGHS, then recover and certify its optimum exactly.

    Parameters
    ----------
    lp : LinearProgram
    time_limit : float
        Seconds HiGHS may take; past it the status is LIMIT.

    Returns
    -------
    LPSolution
        OPTIMAL only if the exact certificate holds. Which optimal vertex
        comes back is HiGHS's choice (it may change with its version); see
        :func:`solve_canonical` for a choice that does not.

    Examples
    --------
    >>> lp = LinearProgram(); x = lp.column("x"); s = lp.column("s")
    >>> lp.objective[x] = Fraction(1)
    >>> _ = lp.row({x: 3, s: 1}, 1)
    >>> sol = solve(lp)
    >>> sol.status.value, sol.objective, sol.highs_status
    ('optimal', Fraction(1, 3), 'Optimal')
    """
    sparse = SparseLP(lp)
    h, t_input = _highs(lp, time_limit, sparse)
    return _run(lp, h, {"input": t_input}, sparse=sparse)


def _run(lp: LinearProgram, h, timings: dict, fixed: frozenset = frozenset(),
         sparse: SparseLP | None = None) -> LPSolution:
    """Run HiGHS on the model it holds (``lp``, with the columns ``fixed`` at zero), then recover exactly."""
    import highspy

    m, n = len(lp.rows), len(lp.names)
    sparse = SparseLP(lp) if sparse is None else sparse
    t_run = time.perf_counter()
    h.run()
    st = h.getModelStatus()
    message = h.modelStatusToString(st)
    t1 = time.perf_counter()
    timings = dict(timings, solve=timings.get("solve", 0.0) + t1 - t_run)
    obj = h.getInfo().objective_function_value
    if st == highspy.HighsModelStatus.kInfeasible:
        return LPSolution(Status.INFEASIBLE, highs_status=message, timings=timings)
    if st in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit):
        return LPSolution(Status.LIMIT, highs_status=message, float_objective=obj, timings=timings)
    if st != highspy.HighsModelStatus.kOptimal:
        return LPSolution(Status.ERROR, highs_status=message, float_objective=obj, timings=timings)
    basis = h.getBasis()
    basic = highspy.HighsBasisStatus.kBasic
    bcols = [j for j, s in enumerate(basis.col_status) if s == basic]  # fixed ones included: the basis is square
    cost = _fmpq_array([lp.objective.get(j, 0) for j in range(n)])
    # first try: HiGHS's floats rounded to nearby simple fractions; kept only if the certificate holds (the duals
    # are rounded only once the primal values pass, which is most of the certificate's time when they do not)
    solution = h.getSolution()
    x = _rounded_primal(lp, solution, [j for j in bcols if j not in fixed])
    if x is not None and _primal_feasible(sparse, x, fixed):
        y = _rounded_dual(solution)
        t2 = time.perf_counter()
        reduced = _reduced_costs(lp, x, y, fixed, sparse, cost)
        if reduced is not None:
            return _optimal(x, y, cost, reduced, message, obj, timings, "rounded", t1, t2)
    brows = {i for i, s in enumerate(basis.row_status) if s == basic}
    eq_rows = [i for i in range(m) if i not in brows]
    is_eq = np.zeros(m, bool)
    is_eq[eq_rows] = True
    is_b = np.zeros(n, bool)
    is_b[bcols] = True
    sel = np.flatnonzero(is_eq[sparse.row] & is_b[sparse.col])
    entries = list(zip(sparse.row[sel].tolist(), sparse.col[sel].tolist(), sparse.exact[sel]))
    by_row: dict = {i: {} for i in eq_rows}
    by_col: dict = {j: {} for j in bcols}
    for i, j, a in entries:
        by_row[i][j] = a
        by_col[j][i] = a
    xb = solve_sparse([by_row[i] for i in eq_rows], [sparse.rhs[i] for i in eq_rows], bcols)
    x = np.full(n, _ZERO_Q, dtype=object)
    x[bcols] = [xb[j] for j in bcols]
    # dual: A_B^T y = c_B over the non-basic rows (basic rows have y = 0)
    yv = solve_sparse([by_col[j] for j in bcols], [cost[j] for j in bcols], eq_rows)
    y = np.full(m, _ZERO_Q, dtype=object)
    y[eq_rows] = [yv[i] for i in eq_rows]
    t2 = time.perf_counter()
    reduced = _reduced_costs(lp, x, y, fixed, sparse, cost)
    if reduced is None:
        objective = _fraction_of(_dot(cost, x))
        timings["recovery"] = timings.get("recovery", 0.0) + t2 - t1
        timings["certificate"] = timings.get("certificate", 0.0) + time.perf_counter() - t2
        return LPSolution(Status.ERROR, [_fraction_of(v) for v in x], [_fraction_of(v) for v in y], objective, False,
                          message, obj, timings, "basis")
    return _optimal(x, y, cost, reduced, message, obj, timings, "basis", t1, t2)


def _optimal(x, y, cost, reduced, message: str, obj: float, timings: dict, recovery: str, t1: float,
             t2: float) -> LPSolution:
    """The certified solution, in Fractions, with the recovery and certificate times added."""
    objective = _fraction_of(_dot(cost, x))
    xs, ys = _fractions_of(x), _fractions_of(y)
    timings["recovery"] = timings.get("recovery", 0.0) + t2 - t1
    timings["certificate"] = timings.get("certificate", 0.0) + time.perf_counter() - t2
    return LPSolution(Status.OPTIMAL, xs, ys, objective, True, message, obj, timings, recovery, reduced=reduced,
                      positive=_nonzero(reduced))  # reduced >= 0 here: nonzero is positive


def _dot(a: np.ndarray, b: np.ndarray):
    """``Σ a_i b_i`` over the entries where both are nonzero, exactly."""
    both = np.flatnonzero(_nonzero(a) & _nonzero(b))
    return sum((a[both] * b[both]).tolist(), _ZERO_Q) if len(both) else _ZERO_Q


def _nonzero(a: np.ndarray) -> np.ndarray:
    return np.fromiter(map(bool, a), bool, len(a))


#: Largest denominator tried when rounding HiGHS's floats (the certificate decides whether the guess stands).
ROUND_DENOMINATOR = 10**6


def _near(v: float):
    """``v`` as the nearest fraction of denominator at most :data:`ROUND_DENOMINATOR` (0 below 1e-12)."""
    return _fmpq(Fraction(v).limit_denominator(ROUND_DENOMINATOR)) if abs(v) > 1e-12 else _ZERO_Q


def _rounded_primal(lp: LinearProgram, solution, bcols: list):
    """HiGHS's primal values of the basic columns as nearby fractions (fmpq array), or None.

    A solution read this way is only a guess: the certificate accepts it
    (then it is an exact optimum, whatever its origin) or the exact basis
    solve runs. Flow LPs on platforms with simple costs have simple optimal
    vertices, so the guess usually holds and saves the rational elimination.
    """
    xs, ys = solution.col_value, solution.row_dual
    if len(xs) != len(lp.names) or len(ys) != len(lp.rows):
        return None
    x = np.full(len(lp.names), _ZERO_Q, dtype=object)
    for j in bcols:
        v = xs[j]
        if v != v or abs(v) > 1e12:
            return None
        x[j] = _near(v)
    return x


def _rounded_dual(solution) -> np.ndarray:
    """HiGHS's row duals as nearby fractions (fmpq array)."""
    y = np.empty(len(solution.row_dual), dtype=object)
    y[:] = [_near(v) for v in solution.row_dual]
    return y


def _certify(lp: LinearProgram, x: list, y: list, fixed=frozenset()) -> bool:
    """Primal feasibility, dual feasibility and zero duality gap, exactly (columns ``fixed`` held at zero)."""
    return _reduced_costs(lp, x, y, fixed) is not None


def _row_sums(keys: np.ndarray, terms: np.ndarray, size: int) -> np.ndarray:
    """``out[k] = Σ terms[keys == k]`` exactly (fmpq), ``keys`` sorted."""
    out = np.full(size, _ZERO_Q, dtype=object)
    if len(keys):
        starts = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
        out[keys[starts]] = np.add.reduceat(terms, starts)
    return out


def _primal_feasible(sparse: SparseLP, x: np.ndarray, fixed=frozenset(), nonzero: np.ndarray | None = None) -> bool:
    """``x >= 0``, zero on ``fixed``, and ``A x = b``, exactly (``nonzero``: ``_nonzero(x)``, if known)."""
    nonzero = _nonzero(x) if nonzero is None else nonzero
    nz = np.flatnonzero(nonzero)
    if any(v < 0 for v in x[nz]) or any(nonzero[j] for j in fixed):
        return False
    on = np.flatnonzero(nonzero[sparse.col])  # row-major: the row keys stay sorted
    ax = _row_sums(sparse.row[on], sparse.exact[on] * x[sparse.col[on]], sparse.shape[0])
    return bool(np.all(ax == sparse.rhs))  # fmpq against fmpq, entry by entry


def _reduced_costs(lp: LinearProgram, x, y, fixed=frozenset(), sparse: SparseLP | None = None, cost=None):
    """``A^T y - c`` (fmpq array) when ``(x, y)`` is an exact certificate of optimality, else None.

    Columns in ``fixed`` are held at zero (upper bound 0): they must be zero
    in ``x`` and their reduced cost may have any sign (it is not computed:
    zero in the array returned). ``x`` and ``y`` are
    sequences of exact rationals (Fraction or fmpq).
    """
    sparse = SparseLP(lp) if sparse is None else sparse
    m, n = sparse.shape
    x = x if isinstance(x, np.ndarray) else _fmpq_array(x)
    y = y if isinstance(y, np.ndarray) else _fmpq_array(y)
    cost = _fmpq_array([lp.objective.get(j, 0) for j in range(n)]) if cost is None else cost
    if not _primal_feasible(sparse, x, fixed):
        return None
    free = np.ones(n, bool)
    free[list(fixed)] = False
    on = np.flatnonzero(_nonzero(y)[sparse.row] & free[sparse.col])  # a held column's reduced cost is not needed
    order = on[np.argsort(sparse.col[on], kind="stable")]
    reduced = _row_sums(sparse.col[order], sparse.times(order, y[sparse.row[order]]), n) - cost
    reduced[~free] = _ZERO_Q
    if any(d < 0 for d in reduced[free]):
        return None
    return reduced if _dot(cost, x) == _dot(sparse.rhs, y) else None
