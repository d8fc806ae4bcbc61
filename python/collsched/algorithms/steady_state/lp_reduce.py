r"""SSR: the steady-state LP of a series of reduces with a non-commutative operator (seed 000, section 4.2).

Participants ``P_0 .. P_N`` (operand order) hold ``v_0 .. v_N``; partial
results ``v[k..m]`` combine only as ``v[k..l] ⊕ v[l+1..m]`` (task
``T(k,l,m)``). Variables per time unit: ``send(i→j, v[k..m])`` on every edge
of the graph view (routers forward and obey one-port), ``cons(i, T(k,l,m))``
on every host (full overlap of computation and communication), and ``TP``.

**Conservation, derived again from the reduction-tree model** (seed 000's
(10) and (11) have index slips: (10) says "or" where both exceptions hold at
once, and (11) sums ``0 <= l < N-1``, which leaves out ``T(0,N-1,N)``). For
every node ``i`` and interval ``[k,m]``, with ``host(k)`` the participant
holding ``v_k`` and ``t`` the target:

.. math::

   \sum_{j} send(j→i, v[k..m]) + \sum_{k \le l < m} cons(i, T(k,l,m))
   - \sum_{j} send(i→j, v[k..m]) - \sum_{n > m} cons(i, T(k,m,n))
   - \sum_{n < k} cons(i, T(n,k-1,m)) = 0,

except (a) ``([k,k], host(k))``, where ``v_k`` is available without limit
(no constraint), and (b) ``([0,N], t)``, where the left-hand side (the
**net** number of final results produced or received at the target) equals
``TP`` — the corrected (11): ``TP = Σ_j send(j→t, v[0..N]) - Σ_j send(t→j, v[0..N])
+ Σ_{0 <= l < N} cons(t, T(0,l,N))``. Columns that can only carry cycles
(``v[k..k]`` into ``host(k)``, ``v[0..N]`` out of the target) are left out.

One-port on sends and receives as for scatters (or, with
``ports="multi"``, a capacity per link direction:
:func:`~.lp_alltoall.port_rows`); computation
``Σ cons(i, T) w(i, T) <= 1`` with ``w(i, T(k,l,m)) = task_cost(k,l,m) / speed(i)``.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)
>>> c = cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1)
>>> r = solve_reduce(p, c)
>>> r.throughput, r.solution.certified
(Fraction(1, 1), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import networkx as nx
import numpy as np

from ...schedules.base import Status
from .canonical import solve_canonical
from .exact import _MINUS_ONE, _ONE, _ZERO, LinearProgram, LPSolution, SparseLP, SteadyStateError
from .lp_alltoall import Network, check_ports, network, port_rows
from .tree_pricing import TreePricing

__all__ = ["ReduceSolution", "solve_reduce", "reduce_lp", "reduce_rows", "conservation_rows", "finish_rows"]


@dataclass
class ReduceSolution:
    """The exact optimum of SSR.

    Attributes
    ----------
    throughput : Fraction
    send : dict
        ``(u, v, k, m) -> Fraction``, non-zero entries.
    cons : dict
        ``(i, k, l, m) -> Fraction``, non-zero entries.
    solution : LPSolution
    size : tuple
    network : Network
    host_of : list
        ``host_of[k]`` holds ``v_k``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> r = solve_reduce(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1))
    >>> r.throughput, sum(r.cons.values())
    (Fraction(1, 1), Fraction(1, 1))
    """

    throughput: Fraction
    send: dict
    cons: dict
    solution: LPSolution
    size: tuple
    network: Network
    host_of: list
    target: str


def reduce_lp(platform, reduce, *, ports: str = "one") -> LinearProgram:
    """SSR as a :class:`~.exact.LinearProgram`; columns ``("send", u, v, k, m)``, ``("cons", i, k, l, m)``, ``"TP"``.

    For checking activities found elsewhere (seed 000's figures) with
    :func:`~.exact.objective_of`.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> reduce_lp(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1)).size
    (10, 12, 23)
    """
    return _build(platform, reduce, ports)[0]


def _build(platform, reduce, ports: str = "one"):
    """SSR and its column maps: (lp, TP, send and cons columns, busy seconds per column, network, hosts, target)."""
    net = network(platform)
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    busy: dict = {}
    compute: dict = {}
    scol, ccol = reduce_rows(lp, tp, net, platform, reduce, busy, compute)
    seconds = finish_rows(lp, net, busy, compute, ports)
    return lp, tp, scol, ccol, seconds, net, list(reduce.participants), reduce.target


def reduce_rows(lp: LinearProgram, tp: int, net: Network, platform, reduce, busy: dict, compute: dict,
                tag: tuple = ()) -> tuple[dict, dict]:
    """One reduce's columns and conservation rows in ``lp``, at rate ``tp``; returns its send and cons columns.

    Columns are named ``("send", *tag, u, v, k, m)`` and ``("cons", *tag, i, k, l, m)``
    (``tag`` tells commodities apart when several reduces share the LP);
    their seconds per unit of rate are added to ``busy`` (``{edge: {column:
    seconds}}``, for the port rows) and ``compute`` (``{host: {column:
    seconds}}``, for the computation rows): see :func:`finish_rows`.

    Raises
    ------
    SteadyStateError
        If a participant cannot reach the target, or a partial result has no positive size.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> lp = LinearProgram(); tp = lp.column("TP")
    >>> scol, ccol = reduce_rows(lp, tp, network(p), p, cs.Reduce(participants=p.hosts, target="h0", size=1),
    ...                          {}, {}, tag=(0,))
    >>> sorted(scol), lp.names[ccol[("h0", 0, 0, 1)]]
    ([('h0', 'h1', 0, 0), ('h1', 'h0', 0, 1), ('h1', 'h0', 1, 1)], ('cons', 0, 'h0', 0, 0, 1))
    """
    hosts_of = list(reduce.participants)
    N = len(hosts_of) - 1
    target = reduce.target
    for h in hosts_of:
        if h != target and not nx.has_path(net.graph, h, target):
            raise SteadyStateError(f"participant {h!r} cannot reach target {target!r} in the platform's graph view",
                                   fix="connect it or drop it from the reduce")
    intervals = [(k, m) for k in range(N + 1) for m in range(k, N + 1)]
    size = {(k, m): Fraction(reduce.partial_size(k, m)) for k, m in intervals}
    for (k, m), s in size.items():
        if not s > 0:
            raise SteadyStateError(f"partial result v[{k}..{m}] has size {s}", fix="give positive sizes")
    scol: dict = {}
    names = lp.names  # columns appended in place: lp.column's effect, without a call per column
    distinct: dict = {}  # equal sizes made one object, so that a product is keyed by the size's id
    size = {key: distinct.setdefault(s, s) for key, s in size.items()}
    seconds: dict = {}  # (size's id, edge) -> size · cost: few distinct sizes, each product made once
    busy_of: dict = {}  # edge -> its dictionary in busy, made when its first column is (the order port_rows reads)
    for k, m in intervals:
        s = size[(k, m)]
        for e in net.edges:
            if (k == m and e[1] == hosts_of[k]) or ((k, m) == (0, N) and e[0] == target):
                continue
            j = scol[(e[0], e[1], k, m)] = len(names)
            names.append(("send", *tag, e[0], e[1], k, m))
            sec = seconds.get((id(s), e))
            if sec is None:
                sec = seconds[(id(s), e)] = s * net.cost[e]
            b = busy_of.get(e)
            if b is None:
                b = busy_of[e] = busy.setdefault(e, {})
            b[j] = sec
    ccol: dict = {}
    tasks = [(k, l, m) for k in range(N + 1) for m in range(k + 1, N + 1) for l in range(k, m)]
    costs: list = []  # the distinct task costs (few), each asked of the reduce once, in the tasks' order
    cost_no: dict = {}
    of_task: list = []  # task -> its cost's number
    for i in platform.hosts:
        if not of_task:
            for k, l, m in tasks:
                cost = reduce.task_cost_of(k, l, m)
                of_task.append(cost_no.setdefault(cost, len(costs)))
                if of_task[-1] == len(costs):
                    costs.append(cost)
        speed = net.speed[i]
        weights = [Fraction(cost) / speed for cost in costs]  # seconds on i of each distinct cost
        base = len(names)
        names.extend(("cons", *tag, i, k, l, m) for k, l, m in tasks)
        ccol.update(zip([(i, k, l, m) for k, l, m in tasks], range(base, base + len(tasks))))
        busy_i = {base + t: weights[c] for t, c in enumerate(of_task) if weights[c]}
        if busy_i:
            compute.setdefault(i, {}).update(busy_i)
    conservation_rows(lp, tp, net, hosts_of, target, scol, ccol, intervals, platform.hosts)
    return scol, ccol


def conservation_rows(lp: LinearProgram, tp: int, net: Network, hosts_of: list, target, scol: dict, ccol: dict,
                      intervals: list, hosts) -> None:
    """The conservation rows of one reduce (module docstring), added to ``lp`` at once from coordinate arrays.

    One row per node and interval ``[k..m]`` (nodes in ``net.nodes``'
    order, intervals in ``intervals``' order; none for ``v_k`` at
    ``host(k)``, none where no column enters), its columns in the order: the
    sends into the node (+1, in ``net.in_edges``' order), the sends out of
    it (-1, ``net.out_edges``), the tasks making ``[k..m]`` there (+1), the
    tasks using it as their left, then right operand (-1), and ``TP`` (-1,
    for ``[0..N]`` at the target). Built node by node as a table of
    intervals × columns (``-1`` where there is none), read row-major.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> lp = LinearProgram(); tp = lp.column("TP")
    >>> _ = reduce_rows(lp, tp, network(p), p, cs.Reduce(participants=p.hosts, target="h0", size=1), {}, {})
    >>> [(lp.names[j], int(a)) for j, a in lp.rows[0].items()]  # [0..0] at h0, which holds v_0: no row; [0..1] at h0
    [(('send', 'h1', 'h0', 0, 1), 1), (('cons', 'h0', 0, 0, 1), 1), ('TP', -1)]
    """
    N = len(hosts_of) - 1
    T, E = len(intervals), len(net.edges)
    edge_no = {e: t for t, e in enumerate(net.edges)}
    send_of = np.array([scol.get((u, v, k, m), -1) for k, m in intervals for u, v in net.edges],
                       np.int64).reshape(T, E)
    # a host's tasks T(k,l,m) are numbered k, m, l as in reduce_rows; per interval, those making it and those using
    # it as the left, then the right operand, padded with -1
    offset: dict = {}
    for k in range(N + 1):
        for m in range(k + 1, N + 1):
            for l in range(k, m):
                offset[(k, l, m)] = len(offset)
    produce = np.full((T, max(N, 1)), -1, np.int64)
    consume = np.full((T, max(N, 1)), -1, np.int64)
    for t, (k, m) in enumerate(intervals):
        made = [offset[(k, l, m)] for l in range(k, m)]
        used = [offset[(k, m, n)] for n in range(m + 1, N + 1)] + [offset[(n, k - 1, m)] for n in range(0, k)]
        produce[t, :len(made)] = made
        consume[t, :len(used)] = used
    first = {i: ccol[(i, 0, 0, 1)] for i in hosts} if N >= 1 else {}
    holder = np.array([hosts_of[k] if k == m else None for k, m in intervals], dtype=object)
    whole = np.array([(k, m) == (0, N) for k, m in intervals])
    counts, cols, signs = [], [], []
    for i in net.nodes:
        ins = [edge_no[e] for e in net.in_edges[i]]
        outs = [edge_no[e] for e in net.out_edges[i]]
        table = [send_of[:, ins], send_of[:, outs]]
        sign = [np.ones(len(ins), np.int8), -np.ones(len(outs), np.int8)]
        base = first.get(i)
        if base is not None:
            table += [np.where(produce >= 0, base + produce, -1), np.where(consume >= 0, base + consume, -1)]
            sign += [np.ones(produce.shape[1], np.int8), -np.ones(consume.shape[1], np.int8)]
        if i == target:
            table.append(np.where(whole, tp, -1)[:, None])
            sign.append(-np.ones(1, np.int8))
        table = np.hstack(table)
        sign = np.broadcast_to(np.concatenate(sign), table.shape)
        on = table >= 0
        on[holder == i] = False  # v_k at host(k): no row
        n_on = on.sum(axis=1)
        kept = n_on > 0
        counts.append(n_on[kept])
        cols.append(table[kept][on[kept]])
        signs.append(sign[kept][on[kept]])
    counts, cols, signs = np.concatenate(counts), np.concatenate(cols), np.concatenate(signs)
    lp.add_rows(counts, cols, np.where(signs > 0, _ONE, _MINUS_ONE), [_ZERO] * len(counts))


def finish_rows(lp: LinearProgram, net: Network, busy: dict, compute: dict, ports: str) -> dict:
    """The port rows over ``busy`` and ``Σ cons · w <= 1`` per host over ``compute``; the seconds per column.

    The seconds (busy time of a link or processor per unit of each column)
    are what the canonical optimum minimises (:mod:`.canonical`).

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.fully_connected(2, bandwidth=1, latency=0))
    >>> lp = LinearProgram(); x = lp.column("x")
    >>> finish_rows(lp, net, {("h0", "h1"): {x: Fraction(2)}}, {"h0": {x: Fraction(1, 2)}}, "multi")
    {0: Fraction(5, 2)}
    """
    port_rows(lp, net, busy, ports)
    for i, coefs in compute.items():
        coefs = dict(coefs)
        coefs[lp.column(("slack", "cpu", i))] = Fraction(1)
        lp.row(coefs, 1)
    # the canonical optimum minimises the busy time of the links and processors (canonical.py)
    seconds: dict = {}
    for cols in list(busy.values()) + list(compute.values()):
        for j, sec in cols.items():
            before = seconds.get(j)
            seconds[j] = sec if before is None else before + sec  # most columns have one term: no addition
    return seconds


def solve_reduce(platform, reduce, *, ports: str = "one", time_limit: float = 60.0) -> ReduceSolution:
    """Build and solve SSR exactly.

    Parameters
    ----------
    platform : Platform
    reduce : Reduce
    ports : {"one", "multi"}
        One-port nodes (seed 000) or every link direction its own capacity.
    time_limit : float

    Returns
    -------
    ReduceSolution

    Raises
    ------
    SteadyStateError
        If a participant cannot reach the target, or the throughput is zero.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0, speed=1)
    >>> solve_reduce(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=0)).throughput
    Fraction(1, 2)
    """
    lp, tp, scol, ccol, seconds, net, hosts_of, target = _build(platform, reduce, check_ports(ports))
    pricing = TreePricing(lp, SparseLP(lp), scol, ccol, net, hosts_of, target, tp)  # reduction trees (issue 17)
    sol = solve_canonical(lp, seconds, time_limit=time_limit, pricing=pricing)
    if sol.status is not Status.OPTIMAL:
        return ReduceSolution(Fraction(0), {}, {}, sol, lp.size, net, hosts_of, target)
    if sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths and speeds")
    send = {key: sol.x[j] for key, j in scol.items() if sol.x[j]}
    cons = {key: sol.x[j] for key, j in ccol.items() if sol.x[j]}
    return ReduceSolution(sol.objective, send, cons, sol, lp.size, net, hosts_of, target)
