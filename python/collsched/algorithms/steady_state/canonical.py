"""A canonical optimum of a steady-state LP: the same optimal solution whatever HiGHS's version (issue 13).

An LP may have many optimal vertices (seed 000's Fig. 6 has at least two:
one reduction tree, or trees of weights 1/3 and 2/3); which one a simplex
or interior-point code returns depends on its pivoting rules, so it changes
with the solver's version, and the schedule built from it with it.
:func:`solve_canonical` removes that freedom with a documented rule,
**lexicographic optimisation over the optimal faces**:

1. maximise ``TP`` (the LP itself), certified exactly (:func:`.exact.solve`);
2. among the optimal solutions, minimise the **busy time**: the seconds per
   second of every link (``Σ send·size·c``) plus, for reduces, of every
   processor (``Σ cons·w``). The least busy optimum uses no needless relay,
   detour or circulation, hence fewer transfers per period and a shorter
   start-up;
3. while the optimum is not proven unique, minimise a **tie-break**
   ``Σ ρ_j x_j`` with fixed generic integer weights ``ρ_j`` in
   ``[1000, 2000)`` drawn from a CRC-32 of the column's name (its node
   names and indices, so the same input gives the same weights), at most
   :data:`TIE_BREAKS` times.

Each stage runs over the optimal face of the one before, found exactly from
that stage's certified dual ``y``: by complementary slackness the optimal
solutions are the feasible ``x`` that are zero on every column of positive
reduced cost ``(A^T y - c)_j > 0``, so those columns are held at zero
(only bounds and costs change: the small LPs warm-start the simplex from the
previous basis, the large ones run interior point and crossover again, much
faster there than the simplex; the reduce LP instead solves each stage on
the columns of a few reduction trees, :mod:`.tree_pricing`, and completes
its dual to the whole LP)
and every stage is certified exactly like the first, on the whole LP.

**Uniqueness** is proven, not assumed: when the columns left free (not held
at zero) are linearly independent (an exact rank computation: singleton
peeling, then elimination in rationals), ``A x = b`` has at most one
solution on them, so the stage's optimum is the only one. Then any exact LP
solver, any HiGHS version, gives this ``x``: the schedule built from it is
solver-independent. :attr:`LPSolution.unique` records whether the proof
holds (it is False only if every tie-break met a tie, which generic weights
make a coincidence).

The final ``x`` is optimal for the original LP: it is feasible (its
stage's certificate) and zero wherever the first stage's reduced costs are
positive (complementary slackness with the first stage's dual); its
objective is checked to be ``TP`` exactly.

Examples
--------
``max x0 + x1`` subject to ``x0 + x1 + s = 1`` has a segment of optima; the
busy time ``2 x0 + x1`` picks ``x1 = 1``:

>>> from fractions import Fraction
>>> from collsched.algorithms.steady_state.exact import LinearProgram
>>> lp = LinearProgram()
>>> x0, x1, s = (lp.column(n) for n in ("x0", "x1", "s"))
>>> lp.objective[x0] = lp.objective[x1] = Fraction(1)
>>> _ = lp.row({x0: 1, x1: 1, s: 1}, 1)
>>> sol = solve_canonical(lp, {x0: 2, x1: 1})
>>> sol.x[x0], sol.x[x1], sol.unique, [name for name, _ in sol.stages]
(Fraction(0, 1), Fraction(1, 1), True, ['throughput', 'busy time'])
"""

from __future__ import annotations

import dataclasses
import heapq
import time
import zlib
from fractions import Fraction

import numpy as np

from ...schedules.base import Status
from .exact import LinearProgram, LPSolution, SparseLP, _highs, _run

__all__ = ["solve_canonical", "tie_break_weights", "independent", "TIE_BREAKS"]

#: Largest number of tie-break stages (step 3) before giving up the uniqueness proof.
TIE_BREAKS = 3


def tie_break_weights(names: list, stage: int, columns=None) -> dict:
    """The generic weights ``ρ_j`` of tie-break ``stage``: integers in ``[1000, 2000)`` from a CRC-32 of the name.

    Stable across runs, processes and Python versions (unlike :func:`hash`).

    Parameters
    ----------
    names : list
        The LP's column names.
    stage : int
        The tie-break's number (each gets its own weights).
    columns : iterable of int, optional
        Only these columns (default all).

    Returns
    -------
    dict
        ``{column: weight}``.

    Examples
    --------
    >>> tie_break_weights([("send", "a", "b", 0)], 1)
    {0: 1031}
    """
    if columns is None:
        columns = range(len(names))
    return {j: 1000 + zlib.crc32(repr((stage, names[j])).encode()) % 1000 for j in columns}


def independent(rows: list, cols, sparse: SparseLP | None = None) -> bool:
    """Whether the columns ``cols`` of the sparse matrix ``rows`` are linearly independent, exactly.

    Singleton peeling first (a column or a row with one entry left is a
    pivot: drop both), then sparse elimination in rationals on what remains.

    Parameters
    ----------
    rows : list of dict
        ``{column: Fraction}`` per row.
    cols : iterable
        The columns to test.
    sparse : SparseLP, optional
        The same matrix as coordinate arrays: its entries on ``cols`` are
        then selected at once instead of row by row.

    Returns
    -------
    bool
        True if no non-trivial combination of them is zero (then ``A x = b``
        has at most one solution supported on them).

    Notes
    -----
    Peeling is linear in the nonzeros; flow LPs are nearly triangular, so
    little is left for the elimination. With ``sparse``, the peeling runs
    first on its coordinate arrays, every singleton at once per round
    (:func:`_peel`).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> rows = [{0: F(1), 1: F(1)}, {0: F(1), 1: F(-1), 2: F(2)}]
    >>> independent(rows, [0, 1]), independent(rows, [0, 1, 2])
    (True, False)
    """
    cols = set(cols)
    if len(cols) > len(rows):  # more vectors than their dimension
        return False
    if sparse is not None:
        on = np.zeros(sparse.shape[1], bool)
        on[list(cols)] = True
        sel = np.flatnonzero(on[sparse.col])  # row-major, as the loop below
        if len(cols) > len(np.unique(sparse.row[sel])):  # more columns than rows: dependent, without the dicts
            return False
        numbered = np.array(sorted(cols), np.int64)
        left = _peel(sparse.row[sel], np.searchsorted(numbered, sparse.col[sel]), len(numbered), sparse.shape[0])
        if left is None:
            return False
        sel, cols = sel[left[0]], set(numbered[left[1]].tolist())  # what the peeling left, for the loops below
    col_rows: dict = {c: {} for c in cols}
    row_cols: dict = {}
    if sparse is not None:
        for i, c, a in zip(sparse.row[sel].tolist(), sparse.col[sel].tolist(), sparse.exact[sel]):
            col_rows[c][i] = a
            row_cols.setdefault(i, set()).add(c)
    else:
        for i, r in enumerate(rows):
            for c, a in r.items():
                if c in cols and a:
                    col_rows[c][i] = a
                    row_cols.setdefault(i, set()).add(c)
    if len(cols) > len(row_cols):
        return False
    # peeling: a column (row) with a single entry left is independent of the rest through that row (column)
    queue = [("c", c) for c, r in col_rows.items() if len(r) <= 1] + [("r", i) for i, cs in row_cols.items()
                                                                       if len(cs) == 1]
    while queue:
        kind, k = queue.pop()
        if kind == "c":
            if k not in col_rows or len(col_rows[k]) > 1:
                continue
            if not col_rows[k]:
                return False
            (i,) = col_rows[k]
            pivot_col = k
        else:
            if k not in row_cols or len(row_cols[k]) != 1:
                continue
            i = k
            (pivot_col,) = row_cols[k]
        for c in row_cols.pop(i):
            del col_rows[c][i]
            if c != pivot_col and len(col_rows[c]) <= 1:
                queue.append(("c", c))
        for i2 in col_rows.pop(pivot_col):
            row_cols[i2].discard(pivot_col)
            if len(row_cols[i2]) == 1:
                queue.append(("r", i2))
    if len(col_rows) > len([i for i, cs in row_cols.items() if cs]):
        return False
    # the core: eliminate column by column against the pivots found so far (each zero on earlier pivots' rows)
    pivots: list = []  # (row, vector)
    order: dict = {}  # row -> position in pivots
    for c in sorted(col_rows, key=str):
        v = dict(col_rows[c])
        heap = [order[i] for i in v if i in order]
        heapq.heapify(heap)
        while heap:
            k = heapq.heappop(heap)
            r, p = pivots[k]
            if r not in v:
                continue
            f = v[r] / p[r]
            for i, a in p.items():
                nv = v.get(i, 0) - f * a
                if nv:
                    if i not in v and i in order and order[i] > k:
                        heapq.heappush(heap, order[i])
                    v[i] = nv
                else:
                    v.pop(i, None)
        if not v:
            return False
        r = min(v, key=lambda i: (len(row_cols.get(i, ())), i))
        order[r] = len(pivots)
        pivots.append((r, v))
    return True


#: Rounds of :func:`_peel` before the rest of the peeling goes on one singleton at a time.
PEEL_ROUNDS = 200


def _peel(row: np.ndarray, col: np.ndarray, n_cols: int, n_rows: int):
    """Singleton peeling on coordinate arrays, every singleton of a round at once.

    ``col`` numbers the columns ``0 .. n_cols - 1``. A column with a single
    entry left is independent of the others through its row: column and row
    go (two such columns on one row are dependent); a row with a single
    entry left forces its column's coefficient to zero: the column goes. A
    column left with no entry is dependent.

    Returns
    -------
    tuple or None
        ``(entries, columns)``: bool masks of what is left after at most
        :data:`PEEL_ROUNDS` rounds (the columns are independent if and only
        if those left are); None if the columns are found dependent.

    Examples
    --------
    A triangle peels entirely; two equal columns do not.

    >>> [m.tolist() for m in _peel(np.array([0, 0, 1]), np.array([0, 1, 1]), 2, 2)]
    [[False, False, False], [False, False]]
    >>> _peel(np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1]), 2, 2)[1].tolist()  # a 2 × 2 core is left
    [True, True]
    >>> _peel(np.array([0, 0]), np.array([0, 1]), 2, 1) is None
    True
    """
    alive = np.ones(len(row), bool)
    left = np.ones(n_cols, bool)
    for _ in range(PEEL_ROUNDS):
        count = np.bincount(col[alive], minlength=n_cols)
        if (left & (count == 0)).any():
            return None
        single = alive & (count[col] == 1)
        if single.any():
            rows = row[single]
            if len(np.unique(rows)) < len(rows):
                return None
            gone = np.zeros(n_rows, bool)
            gone[rows] = True
            left[col[single]] = False
            alive &= ~gone[row] & left[col]
            continue
        single = alive & (np.bincount(row[alive], minlength=n_rows)[row] == 1)
        if not single.any():
            break
        left[col[single]] = False
        alive &= left[col]
    return alive, left


def solve_canonical(lp: LinearProgram, busy: dict, *, time_limit: float = 60.0, pricing=None) -> LPSolution:
    """Solve ``lp`` exactly and return its canonical optimum (module docstring: TP, busy time, tie-breaks).

    Parameters
    ----------
    lp : LinearProgram
        ``max objective·x``; its optimum is the throughput.
    busy : dict
        ``{column: seconds per unit}``: the busy time minimised in step 2.
    time_limit : float
        Seconds for each HiGHS run.
    pricing : TreePricing, optional
        Solves each stage by column generation (:mod:`.tree_pricing`, the
        reduce LP); a stage it cannot finish runs on the whole LP in HiGHS.

    Returns
    -------
    LPSolution
        ``x`` the canonical optimum, ``y``, ``objective`` and ``certified``
        those of the first stage (the certificate of the optimum ``TP``,
        which ``x`` also satisfies, checked exactly); ``stages`` the exact
        objective of each stage run; ``unique`` whether ``x`` is proven the
        only solution of the last stage. If a later stage fails (time limit,
        or no certificate), the first stage's solution is returned with
        ``unique`` False and the reason in ``stages``.

    Examples
    --------
    Two equal routes: the tie-break chooses one, and proves it the only one.

    >>> lp = LinearProgram()
    >>> tp, a, b, s = (lp.column(n) for n in ("TP", "a", "b", "s"))
    >>> lp.objective[tp] = Fraction(1)
    >>> _ = lp.row({a: 1, b: 1, tp: -1}, 0)
    >>> _ = lp.row({a: 1, b: 1, s: 1}, 1)
    >>> sol = solve_canonical(lp, {a: 1, b: 1})
    >>> sol.objective, sorted([sol.x[a], sol.x[b]]), sol.unique, [name for name, _ in sol.stages]
    (Fraction(1, 1), [Fraction(0, 1), Fraction(1, 1)], True, ['throughput', 'busy time', 'tie-break 1'])
    """
    sparse = pricing.sparse if pricing is not None else SparseLP(lp)  # the matrix once, for every stage
    highs: list = []  # [HiGHS instance, columns already held at zero in it], built when a stage first needs it
    n = len(lp.names)

    def run(stage_lp: LinearProgram, fixed: frozenset, support, timings: dict, duals: bool = False) -> LPSolution:
        """One stage: by pricing when given (None if it cannot finish), else HiGHS on the whole LP; ``y`` only if
        ``duals`` when priced (only the first stage's is returned)."""
        if pricing is not None:
            sol = pricing.stage(stage_lp, fixed, support, time_limit=time_limit, duals=duals)
            if sol is not None:
                return dataclasses.replace(sol, timings={k: timings.get(k, 0.0) + sol.timings.get(k, 0.0)
                                                         for k in set(timings) | set(sol.timings)})
        if not highs:
            h, t_input = _highs(lp, time_limit, sparse)
            highs[:] = [h, set()]
            timings = dict(timings, input=timings.get("input", 0.0) + t_input)
        h, held = highs
        new = sorted(fixed - held)
        if new:
            idx = np.array(new, dtype=np.int32)
            h.changeColsBounds(len(idx), idx, np.zeros(len(idx)), np.zeros(len(idx)))
            held.update(new)
        h.changeColsCost(n, np.arange(n, dtype=np.int32),
                         np.array([float(stage_lp.objective.get(j, 0)) for j in range(n)]))
        return _run(stage_lp, h, timings, fixed, sparse)

    first = run(lp, frozenset(), (), {}, duals=True)
    if first.status is not Status.OPTIMAL:
        return first
    timings = dict(first.timings)
    t_stages = time.perf_counter()

    negated: dict = {}  # few distinct busy times (a size times a link's cost): each negated once

    def stage_objective(k: int, free: list) -> tuple:  # built only when needed, on the columns not held at zero
        if k == 0:
            out = {}
            for j in free:
                v = busy.get(j)
                if v:
                    minus = negated.get(id(v))
                    if minus is None:
                        minus = negated[id(v)] = -(v if type(v) is Fraction else Fraction(v))
                    out[j] = minus
            return "busy time", out
        return f"tie-break {k}", {j: -v for j, v in tie_break_weights(lp.names, k, free).items()}  # exact integers

    stages = [("throughput", first.objective)]
    sol, fixed = first, set()
    unique = False
    free_mask = np.ones(n, bool)
    for k in range(TIE_BREAKS + 2):
        held = free_mask & sol.positive  # exact, the certificate's: zero at every optimum of this stage
        fixed.update(np.flatnonzero(held).tolist())
        free_mask &= ~held
        free = np.flatnonzero(free_mask).tolist()
        unique = independent(lp.rows, free, sparse)
        if unique or k == TIE_BREAKS + 1:
            break
        name, objective = stage_objective(k, free)
        stage_lp = LinearProgram(lp.names, lp.rows, lp.rhs, objective)
        nxt = run(stage_lp, frozenset(fixed), np.flatnonzero(np.fromiter(map(bool, sol.x), bool, n)).tolist(), timings)
        timings = dict(nxt.timings)
        if nxt.status is not Status.OPTIMAL:
            stages.append((name, f"{nxt.status.value}: {nxt.highs_status}"))
            sol = first
            break
        sol = nxt
        stages.append((name, -sol.objective))
    timings["canonical"] = time.perf_counter() - t_stages
    # x is feasible (its stage's certificate) and zero wherever the first stage's reduced costs are positive, so it
    # is optimal for lp by complementary slackness with the first stage's dual; its objective says so exactly
    if sum((c * sol.x[j] for j, c in lp.objective.items()), Fraction(0)) != first.objective:  # pragma: no cover
        return LPSolution(Status.ERROR, highs_status=first.highs_status, timings=timings,
                          stages=tuple(stages) + (("check", "canonical x lost the optimum"),))
    return LPSolution(first.status, sol.x, first.y, first.objective, first.certified, first.highs_status,
                      first.float_objective, timings, first.recovery, unique=unique, stages=tuple(stages))
