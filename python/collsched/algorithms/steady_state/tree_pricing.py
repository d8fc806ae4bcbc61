"""The reduce LP's canonical stages by column generation: reduction trees priced by dynamic programming (issue 17).

SSR (:mod:`.lp_reduce`) has a column per edge and interval and per host
and task (80k for 24 participants), but an optimum uses few of them.
Each stage of :func:`~.canonical.solve_canonical` (``max c·x`` over the
face left by the stages before: the columns ``fixed`` held at zero) is
solved on a few columns ``S`` only, grown until the whole LP has nothing
better to offer:

1. solve the LP restricted to ``S`` (HiGHS, simplex warm-started as ``S``
   grows); read the duals ``π`` of the capacity rows (port and computation
   rows, right-hand side 1);
2. price every free column at once: with ``w_j = Σ_r π_r a_rj - c_j``, the
   cheapest way ``D(i, [k..m])`` of holding ``v[k..m]`` at node ``i`` is a
   dynamic programme over intervals by length (the combination
   ``D(i,[k..l]) + D(i,[l+1..m]) + w``, then shortest paths over the
   sends of that interval, Bellman-Ford), with ``D = 0`` where ``v_k``
   starts. A reduction tree whose price ``D(t, [0..N])`` is below the TP
   column's ``c`` improves the restricted LP: its columns join ``S``
   (so does a cycle of negative price, if Bellman-Ford finds one); none
   means step 1's solution is optimal for the whole face;
3. exactly: the LP on ``S`` is solved again and certified in rationals
   (:func:`.exact.solve`); its exact ``π`` priced again (in floats: a
   tree found goes back to step 1), then ``D`` computed in rationals along
   the cheapest choices the floats found, and ``y = (π, -D)`` is a dual of
   the whole LP: every send and task column satisfies ``A^T y >= c`` when
   ``D`` is a fixed point, the TP column if ``D(t, [0..N]) >= c_TP``, and
   the gap is zero since ``b·y = Σ π`` (conservation rows have ``b = 0``)
   equals the restricted optimum. The certificate is checked on the whole
   matrix, independently (:func:`.certificate.certify`: the signs of the
   reduced costs far from zero proven in floating point with an error
   bound, the others in rationals); if the floats
   chose wrong (a tie, a rounding), the whole programme runs in rationals
   and the certificate is checked again.

Any failure (a negative cycle in the exact programme, a certificate that
does not hold, too many rounds) returns None and the caller solves the
stage on the whole LP with HiGHS, as before.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.steady_state.lp_reduce import _build
>>> from collsched.algorithms.steady_state.exact import SparseLP
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)
>>> lp, tp, scol, ccol, seconds, net, hosts_of, target = _build(
...     p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1))
>>> pricing = TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp)
>>> sol = pricing.stage(lp, frozenset(), [])
>>> sol.objective, sol.certified
(Fraction(1, 1), True)
"""

from __future__ import annotations

import time
from operator import itemgetter

import flint
import numpy as np

from ...schedules.base import Status
from .certificate import certify
from .exact import LinearProgram, LPSolution, SparseLP, _fmpq_array, _fractions_of, _nonzero, _row_sums, solve

__all__ = ["TreePricing", "MAX_ROUNDS"]

#: Largest number of pricing rounds in a stage before handing it back to HiGHS on the whole LP.
MAX_ROUNDS = 400


class TreePricing:
    """SSR's columns as index arrays, for pricing reduction trees (module docstring).

    Parameters
    ----------
    lp : LinearProgram
        SSR, from :func:`.lp_reduce._build`.
    sparse : SparseLP
        Its matrix.
    scol, ccol : dict
        ``(u, v, k, m) -> column`` and ``(i, k, l, m) -> column``.
    net : Network
    hosts_of : list
        ``hosts_of[k]`` holds ``v_k``.
    target : str
    tp : int
        The TP column.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.steady_state.lp_reduce import _build
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> lp, tp, scol, ccol, _, net, hosts_of, target = _build(p, cs.Reduce(participants=p.hosts, target="h0", size=1))
    >>> TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp).shape
    (2, 3)
    """

    def __init__(self, lp: LinearProgram, sparse: SparseLP, scol: dict, ccol: dict, net, hosts_of: list, target,
                 tp: int):
        N = len(hosts_of) - 1
        q = {}
        for k in range(N + 1):
            for m in range(k, N + 1):
                q[(k, m)] = len(q)
        node = {v: i for i, v in enumerate(net.nodes)}
        self.shape = (len(node), len(q))
        self.sparse, self.tp, self.n = sparse, tp, len(lp.names)
        number = np.full((N + 1, N + 1), -1, np.int64)  # number[k, m] = q[(k, m)]
        for (k, m), t in q.items():
            number[k, m] = t

        def part(keys, i, index=None):  # the keys' i-th parts as an array (mapped through index), without a loop
            parts = map(itemgetter(i), keys)
            return np.fromiter(parts if index is None else map(index.__getitem__, parts), np.int64, len(keys))

        keys = list(scol)
        self.su, self.sv = part(keys, 0, node), part(keys, 1, node)
        self.sq = number[part(keys, 2), part(keys, 3)]
        self.sj = np.fromiter(scol.values(), np.int64, len(scol))
        keys = list(ccol)
        k, l, m = part(keys, 1), part(keys, 2), part(keys, 3)
        self.ci = part(keys, 0, node)
        self.cq, self.cl, self.cr = number[k, m], number[k, l], number[l + 1, m]
        self.cj = np.fromiter(ccol.values(), np.int64, len(ccol))
        length = np.array([m - k for k, m in q], np.int64)
        self.s_by_len = [np.flatnonzero(length[self.sq] == L) for L in range(N + 1)]
        self.c_by_len = [np.flatnonzero(length[self.cq] == L) for L in range(N + 1)]
        self.leaves = np.array([node[h] * len(q) + q[(k, k)] for k, h in enumerate(hosts_of)], np.int64)
        self.root = node[target] * len(q) + q[(0, N)]
        m = sparse.shape[0]
        rhs = _nonzero(sparse.rhs)
        self.capacity = np.flatnonzero(rhs)  # port and computation rows (b = 1); the rest conserve (b = 0)
        self.slacks = np.array([j for j, name in enumerate(lp.names) if isinstance(name, tuple) and name[0] == "slack"],
                               np.int64)
        on = rhs[sparse.row]
        self._cap = np.flatnonzero(on)  # nonzeros on capacity rows, row-major
        # conservation row of each (node, interval): a send's +1 is at (v, q), its -1 at (u, q); a task's +1 at (i, q)
        kind = np.full(self.n, -1, np.int64)
        kind[self.sj] = np.arange(len(self.sj))
        ckind = np.full(self.n, -1, np.int64)
        ckind[self.cj] = np.arange(len(self.cj))
        row_of = np.full(len(node) * len(q), -1, np.int64)
        cons = np.flatnonzero(~on)
        r, c, pos = sparse.row[cons], sparse.col[cons], sparse.floats[cons] > 0
        s = kind[c]
        sel = s >= 0
        row_of[np.where(pos[sel], self.sv[s[sel]], self.su[s[sel]]) * len(q) + self.sq[s[sel]]] = r[sel]
        t = ckind[c]
        sel = (t >= 0) & pos
        row_of[self.ci[t[sel]] * len(q) + self.cq[t[sel]]] = r[sel]
        self.row_of = row_of
        self.rows_cons = np.flatnonzero(row_of >= 0)
        start, index, value = sparse.csc()
        self._csc = (start.astype(np.int64), index, value)
        self.m = m

    # -- the dynamic programme --------------------------------------------------------------------------------

    def _programme(self, w, c_tp, exact: bool):
        """``D`` (flattened ``(node, interval)``) and, in floats, each entry's cheapest column (-1: a leaf or none).

        ``w`` per column (floats, or fmpq with ``exact``); only the free
        columns (:meth:`_restrict`) take part. Returns ``(D, pred, cycle)``:
        ``cycle`` is empty when ``D`` is a fixed point; when Bellman-Ford
        does not settle on an interval's sends, it lists, with ``exact``,
        that interval's sends, in floats the columns of the negative cycle
        ``pred`` closes (empty if it closes none: ``D`` is then no fixed
        point, a pricing only, which the exact step's certificate judges).
        """
        V, Q = self.shape
        D = np.empty(V * Q, dtype=object if exact else np.float64)
        # an entry no free column reaches starts at a value above any tree's price (each column counts once in a
        # tree): then no tree through it prices below c_tp, and every constraint still holds at the fixed point
        sj, cj = self._s[3], self._c[4]
        if exact:
            big = abs(c_tp) + 1 + sum(abs(v) for v in w[sj]) + sum(abs(v) for v in w[cj])
        else:
            big = 2 * (abs(c_tp) + 1 + np.abs(w[sj]).sum() + np.abs(w[cj]).sum())
        D[:] = big
        D[self.leaves] = flint.fmpq(0) if exact else 0.0
        pred = np.full(V * Q, -1, np.int64)
        su, sv, sq, sj = self._s
        ci, cq, cl, cr, cj = self._c
        for L, (sidx, cidx) in enumerate(zip(self._s_len, self._c_len)):
            if len(cidx):
                out = ci[cidx] * Q + cq[cidx]
                val = D[ci[cidx] * Q + cl[cidx]] + D[ci[cidx] * Q + cr[cidx]] + w[cj[cidx]]
                self._relax(D, pred, out, val, cj[cidx], exact)
            if not len(sidx):
                continue
            src, dst, cols = su[sidx] * Q + sq[sidx], sv[sidx] * Q + sq[sidx], sj[sidx]
            wc = w[cols]
            for _ in range(V + 1):
                if not self._relax(D, pred, dst, D[src] + wc, cols, exact):
                    break
            else:
                return D, pred, cols.tolist() if exact else self._cycle(pred, dst, src, cols)
        return D, pred, []

    @staticmethod
    def _relax(D, pred, dst, val, cols, exact: bool) -> bool:
        """``D[dst] = min(D[dst], val)`` (and the argmin column in ``pred``); whether anything improved."""
        better = np.flatnonzero(np.fromiter((a < b for a, b in zip(val, D[dst])), bool, len(val)) if exact
                                else val < D[dst])
        if not len(better):
            return False
        d, v = dst[better], val[better]
        np.minimum.at(D, d, v)
        win = np.flatnonzero(np.fromiter((a == b for a, b in zip(v, D[d])), bool, len(v)) if exact else v == D[d])
        pred[d[win]] = cols[better[win]]
        return True

    def _along(self, pred, w_exact, w, c_tp) -> np.ndarray:
        """``D`` in rationals along the float programme's cheapest choices ``pred`` (entries in dependency order)."""
        V, Q = self.shape
        kind = self._kind
        has = pred >= 0
        j = np.where(has, pred, 0)
        k = kind[j]
        send = has & (k >= 0)
        c = np.where(k < 0, -k - 1, 0)
        node = np.arange(V * Q) // Q
        first = np.where(send, self.su[np.where(send, k, 0)] * Q + self.sq[np.where(send, k, 0)],
                         node * Q + self.cl[c])
        second = np.where(send | ~has, -1, node * Q + self.cr[c])
        big = abs(c_tp) + 1 + np.abs(w[self._s[3]]).sum() + np.abs(w[self._c[4]]).sum()
        D = np.empty(V * Q, dtype=object)
        D[:] = flint.fmpq(int(2 * big) + 1)  # above any tree's price, as in _programme
        D[self.leaves] = flint.fmpq(0)
        done = ~has
        while True:
            ready = ~done & done[first] & (done[np.maximum(second, 0)] | (second < 0))
            at = np.flatnonzero(ready)
            if not len(at):
                break
            val = D[first[at]] + w_exact[j[at]]
            two = second[at] >= 0
            val[two] = val[two] + D[second[at][two]]
            D[at] = val
            done[at] = True
        return D

    def _cycle(self, pred, dst, src, cols) -> list:
        """The columns of a negative cycle among the sends of one interval, following ``pred`` back."""
        col_src = dict(zip(cols.tolist(), src.tolist()))
        at = int(dst[0])
        for _ in range(self.shape[0] + 1):
            j = int(pred[at])
            if j not in col_src:
                return []
            at = col_src[j]
        seen, out = at, []
        while True:
            j = int(pred[at])
            out.append(j)
            at = col_src[j]
            if at == seen or len(out) > self.shape[0]:
                return out

    def _tree(self, pred) -> list:
        """The columns of the cheapest reduction tree of ``[0..N]`` at the target (``pred`` of the programme)."""
        V, Q = self.shape
        kind = self._kind
        out, stack = [], [self.root]
        while stack:
            at = stack.pop()
            j = int(pred[at])
            if j < 0:
                continue
            out.append(j)
            s = kind[j]
            if s >= 0:
                stack.append(int(self.su[s]) * Q + int(self.sq[s]))
            else:
                c = -s - 1
                i = int(self.ci[c])
                stack += [i * Q + int(self.cl[c]), i * Q + int(self.cr[c])]
        return out

    def _restrict(self, free: np.ndarray) -> None:
        """Keep only the free send and task columns in the programme's arrays."""
        self._free = free
        fs, fc = free[self.sj], free[self.cj]
        self._s = (self.su[fs], self.sv[fs], self.sq[fs], self.sj[fs])
        self._c = (self.ci[fc], self.cq[fc], self.cl[fc], self.cr[fc], self.cj[fc])
        pos_s = np.cumsum(fs) - 1
        pos_c = np.cumsum(fc) - 1
        self._s_len = [pos_s[i[fs[i]]] for i in self.s_by_len]
        self._c_len = [pos_c[i[fc[i]]] for i in self.c_by_len]
        kind = np.zeros(self.n, np.int64)
        kind[self.sj] = np.arange(len(self.sj))
        kind[self.cj] = -np.arange(len(self.cj)) - 1
        self._kind = kind

    # -- a stage ------------------------------------------------------------------------------------------------

    def stage(self, stage_lp: LinearProgram, fixed: frozenset, support, *, time_limit: float = 60.0,
              duals: bool = True):
        """``max stage_lp.objective · x`` over the columns not ``fixed``, exactly, or None (module docstring).

        Parameters
        ----------
        stage_lp : LinearProgram
            SSR's rows and columns with this stage's objective.
        fixed : frozenset
            Columns held at zero.
        support : iterable
            Columns to start from (a previous stage's nonzeros: a feasible start).
        time_limit : float
            Seconds for each HiGHS run.
        duals : bool
            Return ``y`` (as Fractions); False leaves it empty (the later
            stages of :func:`~.canonical.solve_canonical` need only ``x`` and
            ``positive``, and converting ``y`` costs more than finding it).

        Returns
        -------
        LPSolution or None
            Certified on the whole LP (``positive`` over every column), or
            None if the pricing could not finish (then solve the stage with HiGHS).

        Examples
        --------
        The first stage (throughput) of two hosts' reduce, from no column: one
        reduction per second.

        >>> import collsched as cs
        >>> from collsched.algorithms.steady_state.lp_reduce import _build
        >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
        >>> lp, tp, scol, ccol, _, net, hosts_of, target = _build(p, cs.Reduce(participants=p.hosts, target="h0", size=1))
        >>> sol = TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp).stage(lp, frozenset(), ())
        >>> sol.x[tp]
        Fraction(1, 1)
        """
        import highspy

        from ..._highs import new_highs

        t0 = time.perf_counter()
        n, sparse = self.n, self.sparse
        free = np.ones(n, bool)
        free[list(fixed)] = False
        self._restrict(free)
        c, cost = _objective_arrays(stage_lp.objective, n)
        start, index, value = self._csc
        S = set(int(j) for j in support) | {int(j) for j in self.slacks if free[j]}
        if free[self.tp]:
            S.add(self.tp)
        h = new_highs()
        h.setOptionValue("time_limit", float(time_limit))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        rhs = np.array([float(v) for v in sparse.rhs])
        h.addRows(self.m, rhs, rhs, 0, np.zeros(self.m, np.int32), np.zeros(0, np.int32), np.zeros(0))
        inside = np.zeros(n, bool)
        rows_cap = self.capacity

        def add(cols) -> int:
            cols = np.array(sorted({int(j) for j in cols if free[j] and not inside[j]}), np.int64)
            if not len(cols):
                return 0
            inside[cols] = True
            lo, hi = start[cols], start[cols + 1]
            starts = np.concatenate([[0], np.cumsum(hi - lo)[:-1]]).astype(np.int32)
            idx = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi)])
            h.addCols(len(cols), c[cols], np.zeros(len(cols)), np.full(len(cols), highspy.kHighsInf), len(idx),
                      starts, index[idx].astype(np.int32), value[idx])
            return len(cols)

        add(S)
        c_tp_exact = cost[self.tp]
        pi = np.zeros(self.m)
        rounds = 0
        t_exact = t_cert = 0.0
        while True:
            # step 1 and 2, in floats: grow S until no tree (or cycle) prices below the TP column's cost
            while True:
                rounds += 1
                if rounds > MAX_ROUNDS:
                    return None
                h.run()
                if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                    return None
                pi[rows_cap] = np.array(h.getSolution().row_dual)[rows_cap]
                found, _, _ = self._price(pi, c)
                if not found or not add(found):
                    break
            # step 3, exactly: the LP on S certified, its exact π priced again, then D in rationals
            t1 = time.perf_counter()
            cols = np.flatnonzero(inside)
            rows_kept = _kept_rows(sparse, cols, rows_cap)
            sol = solve(_sub_lp(stage_lp, sparse, cols, rows_kept), time_limit=time_limit)
            if sol.status is not Status.OPTIMAL:
                return None
            pi_exact = np.full(self.m, flint.fmpq(0), dtype=object)
            pi_exact[rows_cap] = _fmpq_array(sol.y)[np.searchsorted(rows_kept, rows_cap)]
            w_exact = self._weights_exact(pi_exact, cost)
            found, pred, w = self._price(np.array([float(v) for v in pi_exact]), c)
            if found:  # the exact dual differs from HiGHS's (a degenerate LP has many): it prices a better tree
                t_exact += time.perf_counter() - t1
                if not add(found):
                    return None
                continue
            x = np.full(n, flint.fmpq(0), dtype=object)
            x[cols] = _fmpq_array(sol.x)
            y = np.full(self.m, flint.fmpq(0), dtype=object)
            y[rows_cap] = pi_exact[rows_cap]
            # D in rationals along the cheapest choices found in floats, then (if the certificate refuses it: a tie
            # or a rounding the floats got wrong) the whole programme in rationals
            for attempt in range(2):
                if attempt == 0:
                    D = self._along(pred, w_exact, w, c[self.tp])
                else:
                    D, _, cycle = self._programme(w_exact, cost[self.tp], exact=True)
                    if cycle:
                        return None
                y[self.row_of[self.rows_cons]] = -D[self.rows_cons]
                t2 = time.perf_counter()
                t_exact += t2 - t1
                positive = certify(sparse, x, y, cost, fixed, c)  # c: float(cost), from the same Fractions
                t_cert += time.perf_counter() - t2
                t1 = time.perf_counter()
                if positive is not None:
                    break
            else:
                return None
            break
        objective = sol.objective
        timings = {"solve": time.perf_counter() - t0 - t_exact - t_cert, "recovery": t_exact, "certificate": t_cert}
        return LPSolution(Status.OPTIMAL, _fractions_of(x), _fractions_of(y) if duals else [], objective, True,
                          sol.highs_status, sol.float_objective, timings, sol.recovery, positive=positive)

    def _price(self, pi: np.ndarray, c: np.ndarray) -> tuple[list, np.ndarray, np.ndarray]:
        """``(columns, pred, w)``: the columns that improve the restricted LP under the duals ``pi`` (a negative
        cycle, or the cheapest tree if it prices below the TP column's cost; empty if none), the programme's
        choices and the weights, in floats."""
        c_tp = c[self.tp]
        w = self._weights_float(pi, c)
        D, pred, cycle = self._programme(w, c_tp, exact=False)
        if cycle:
            return cycle, pred, w
        if D[self.root] - c_tp >= -1e-9 * max(1.0, abs(c_tp)):
            return [], pred, w
        return self._tree(pred), pred, w

    def _weights_float(self, pi: np.ndarray, c: np.ndarray) -> np.ndarray:
        """``w = A_R^T π - c`` in floats (capacity rows ``R``)."""
        k = self._cap
        w = np.bincount(self.sparse.col[k], weights=self.sparse.floats[k] * pi[self.sparse.row[k]], minlength=self.n)
        return w - c

    def _weights_exact(self, pi: np.ndarray, cost: np.ndarray) -> np.ndarray:
        """``w = A_R^T π - c`` exactly (fmpq), on the free columns (zero on the others: unused)."""
        k = self._cap
        k = k[self._free[self.sparse.col[k]] & _nonzero(pi)[self.sparse.row[k]]]
        order = k[np.argsort(self.sparse.col[k], kind="stable")]
        w = _row_sums(self.sparse.col[order], self.sparse.times_rows(order, pi), self.n) - cost
        w[~self._free] = flint.fmpq(0)
        return w


def _objective_arrays(objective: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The objective as doubles and as fmpq, each distinct value object converted once (busy times are shared)."""
    c = np.zeros(n)
    cost = np.full(n, flint.fmpq(0), dtype=object)
    if objective:
        cols = np.fromiter(objective.keys(), np.int64, len(objective))
        values = list(objective.values())
        first, inverse = np.unique(np.fromiter(map(id, values), np.int64, len(values)), return_index=True,
                                   return_inverse=True)[1:]
        distinct = [values[k] for k in first.tolist()]  # alive in objective: distinct ids, distinct objects
        c[cols] = np.array([float(v) for v in distinct], np.float64)[inverse]
        cost[cols] = _fmpq_array(distinct)[inverse]
    return c, cost


def _kept_rows(sparse: SparseLP, cols: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """The rows the columns ``cols`` touch, and every capacity row: the rows of the restricted LP, in order."""
    on = np.zeros(sparse.shape[1], bool)
    on[cols] = True
    rows = np.zeros(sparse.shape[0], bool)
    rows[sparse.row[on[sparse.col]]] = True
    rows[capacity] = True
    return np.flatnonzero(rows)


def _sub_lp(lp: LinearProgram, sparse: SparseLP, cols: np.ndarray, rows: np.ndarray) -> LinearProgram:
    """``lp`` restricted to the columns ``cols`` and the rows ``rows`` (both renumbered in order; the entries picked
    on the coordinate arrays, each row's in its order in ``lp``)."""
    new_col = np.full(sparse.shape[1], -1, np.int64)
    new_col[cols] = np.arange(len(cols))
    new_row = np.full(sparse.shape[0], -1, np.int64)
    new_row[rows] = np.arange(len(rows))
    sel = np.flatnonzero((new_col[sparse.col] >= 0) & (new_row[sparse.row] >= 0))
    sub = LinearProgram([lp.names[j] for j in cols.tolist()], [{} for _ in range(len(rows))],
                        [lp.rhs[i] for i in rows.tolist()], {})
    for i, j in zip(sparse.row[sel].tolist(), sparse.col[sel].tolist()):
        sub.rows[new_row[i]][int(new_col[j])] = lp.rows[i][j]
    sub.objective = {int(new_col[j]): v for j, v in lp.objective.items() if new_col[j] >= 0 and v}
    return sub
