"""``steady_state`` for series of ReduceScatters and AllReduces: LP, reduction trees per block, broadcast trees.

The LP (:mod:`.lp_reducescatter`) has one reduce per block ``j`` (to
``P_j``) and, for an AllReduce, one broadcast per block (from ``P_j``). Its
solution is lowered as :func:`~.plan` does for a reduce and a broadcast:
each block's reduce is cut into reduction trees (:func:`~.trees.extract_trees`,
exact), each broadcast packed into trees (:func:`~.lp_broadcast.pack_trees`),
every tree gets whole operations per period, and the period's transfers and
computations are laid into slots. A task of block ``j`` moves and combines
only fragment ``[j/N, (j+1)/N)`` of the whole-vector values
(``plan._fragments``); values are partial results ``v[k..m]`` with
``commutative=False`` and sets ``Σ{k..m}`` otherwise (an interval tree is a
valid commutative tree). An AllReduce's broadcast of instance ``t`` of
block ``j`` waits for the reduction of that block at ``P_j``: in steady
state it runs in a later period. A node that already holds the result
(the reduction tree computed it there, or relayed it there on its way to
``P_j``) forwards its own copy down the broadcast tree instead of
receiving another.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)
>>> c = cs.Series(cs.ReduceScatter(participants=p.hosts, size=1, commutative=False), count=8)
>>> s = cs.plan(p, c, algorithm="steady_state")
>>> s.throughput, s.status.value, s.denominator % 3
(Fraction(1, 2), 'optimal', 0)
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction

from ...collectives import AllReduce, ReduceScatter
from ...schedules.base import Status
from .periodic import shortest_period
from .plan import LOWERINGS, _failed, _finish, _owned_counts, _params, _slots, _tree_preds

__all__ = ["plan_reductions"]


def plan_reductions(platform, base, *, ports: str, max_ops: int, split: bool, time_limit: float, phases: str):
    """The periodic schedule of a series of ``base`` (a ReduceScatter or an AllReduce) at the LP's optimum.

    Parameters
    ----------
    platform : Platform
    base : ReduceScatter or AllReduce
    ports, max_ops, split, time_limit, phases
        As :func:`~.plan.steady_state`.

    Returns
    -------
    PeriodicSchedule
        ``bound`` the LP optimum (see :mod:`.lp_reducescatter` for what it
        is optimal over); status OPTIMAL when the schedule reaches it.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> s = plan_reductions(p, cs.AllReduce(participants=p.hosts, size=2), ports="multi", max_ops=64,
    ...                     split=True, time_limit=60.0, phases="pipelined")
    >>> s.throughput, s.ports
    (Fraction(1, 2), 'multi')
    """
    from ...schedules.periodic import PeriodicTask
    from ...schedules.values import partial, reduced
    from .lp_broadcast import pack_trees
    from .lp_reducescatter import solve_allreduce, solve_reducescatter
    from .trees import extract_trees

    t0 = time.perf_counter()
    solve = solve_allreduce if isinstance(base, AllReduce) else solve_reducescatter
    r = solve(platform, base, ports=ports, time_limit=time_limit)
    sol = r.solution
    params = _params(sol, r.size, time.perf_counter() - t0, phases, ports)
    if sol.status is not Status.OPTIMAL:
        return _failed(sol, r.size, params)
    params["canonical"] = "unique" if sol.unique else "not proven unique"  # the LP optimum chosen (canonical.py)
    tp = r.throughput
    n = len(base.participants)
    net = r.network
    acts = {"TP": tp}
    for j, red in enumerate(r.reduces):
        for (u, v, k, m), val in red.send.items():
            acts[f"send[{j}]({u}->{v}, v[{k}..{m}])"] = val
        for (i, k, l, m), val in red.cons.items():
            acts[f"cons[{j}]({i}, T({k},{l},{m}))"] = val
    for b in r.broadcasts:
        for (u, v), val in b.usage.items():
            acts[f"n[{b.source}]({u}->{v})"] = val
        for (u, v, t), val in b.flows.items():
            acts[f"x[{b.source}][{t}]({u}->{v})"] = val
    T = shortest_period(acts.values())
    t0 = time.perf_counter()
    rtrees = [(w, tree, j) for j, red in enumerate(r.reduces) for w, tree in extract_trees(red)]
    btrees = [(w, tree, n + j) for j, b in enumerate(r.broadcasts)
              for w, tree in pack_trees(b, partial=ports == "multi")]
    params["timings"]["decomposition"] = time.perf_counter() - t0
    trees = rtrees + btrees
    T = shortest_period([w for w, _, _ in trees], multiple_of=T)  # integer tree weights per period
    owners = n + len(r.broadcasts)
    packed = min(sum((w for w, _, o in trees if o == k), Fraction(0)) for k in range(owners))
    counts, q, period, exact = _owned_counts([w for w, _, _ in trees], [o for _, _, o in trees], owners, T, packed,
                                             max_ops)
    block = r.blocks[0].block
    cost = r.blocks[0].cost

    def value(rel, k, m):
        return reduced(rel, range(k, m + 1)) if base.commutative else partial(rel, k, m)

    preds = [_tree_preds(tree) if o < n else None for _, tree, o in trees]

    def build(counts, q, tag):
        items: dict = {}
        work: dict = {}
        deps: dict = {}
        nxt = [0] * owners
        holders: dict = {}  # (j, t) -> {node: key of the reduction task that gave it block j's result}
        for (_, tree, o), c, before in zip(trees, counts, preds):
            if o >= n:
                continue
            for _ in range(c):
                t = nxt[o]
                for x, task in enumerate(tree):
                    key = ("rs", o, t, x)
                    deps[key] = [("rs", o, t, p) for p in before[x]]
                    rel = tag(key, t, task.stage)
                    if task.key[0] == "send":
                        _, u, v, k, m = task.key
                        items.setdefault((u, v), []).append((value(rel, k, m), block * net.cost[(u, v)],
                                                             float(block)))
                    else:
                        _, i, k, l, m = task.key
                        work.setdefault(i, []).append(
                            (PeriodicTask(i, [value(rel, k, l), value(rel, l + 1, m)], value(rel, k, m),
                                          float(cost)), cost / net.speed[i]))
                got = holders[(o, t)] = {}
                for x, task in enumerate(tree):
                    if task.key[0] == "send" and task.key[3:] == (0, n - 1):
                        got[task.key[2]] = ("rs", o, t, x)
                    elif task.key[0] == "cons" and (task.key[2], task.key[4]) == (0, n - 1):
                        got[task.key[1]] = ("rs", o, t, x)
                nxt[o] += 1
        for (_, tree, o), c in zip(trees, counts):
            if o < n:
                continue
            j = o - n
            for _ in range(c):
                t = nxt[o]
                got = dict(holders[(j, t)])
                for v, (u, d) in sorted(tree.items(), key=lambda e: e[1][1]):  # parents first
                    if v in got:  # the reduction already brought it the result (it relayed or computed it)
                        continue
                    key = got[v] = ("ag", j, t, v)
                    deps[key] = [got[u]]
                    items.setdefault((u, v), []).append((value(tag(key, t, d), 0, n - 1), block * net.cost[(u, v)],
                                                         float(block)))
                nxt[o] += 1
        return items, work, deps

    slots, den, q2, scale = _slots(build, counts, q, split, params, net, max_ops, parts=(lambda key: key[1], n))
    params.update(tree_weights=[str(w * T) for w, _, _ in trees], packed_rate=str(packed), n_trees=len(trees))
    nodes = {x for _, tr, o in rtrees for t in tr if t.key[0] == "send" for x in t.key[1:3]}
    nodes |= {x for _, tr, _ in btrees for v, (u, _) in tr.items() for x in (u, v)}
    what = f"{len(rtrees)} reduction trees for {n} blocks" + (f", {len(btrees)} broadcast trees" if btrees else "")
    below = "" if packed == tp else (f"; the broadcast trees carry {float(packed):.6g} of the LP's {float(tp):.6g} "
                                     "operations/s (a multicast: nodes that are not targets relay part of a flow)")
    bound, status = _claim(platform, base, ports, tp)
    s = _finish(platform, sol=sol, size=r.size, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                scale=scale, slots=slots, den=den, items_nodes=nodes, params=params, extra=f"; {what}{below}",
                net=net, routes=len(trees), base=packed, ports=ports, bound=bound)
    return s if status is None or s.status is not Status.OPTIMAL else dataclasses.replace(s, status=status)


def _claim(platform, base, ports: str, tp: Fraction):
    """What the schedule is measured against: ``(Bound, status to report instead of OPTIMAL or None)``.

    Non-commutative ReduceScatter: the LP optimum, the certified optimum.
    Commutative ReduceScatter, multi-port: the cut bound of the reversed
    fabric (valid for any schedule; it ignores computation); OPTIMAL only
    when the schedule reaches it. Commutative ReduceScatter, one-port: no
    bound is known beyond the interval LP's optimum, which a commutative
    schedule may beat: FEASIBLE. AllReduce: the LP optimum of the
    ReduceScatter-then-AllGather strategy, OPTIMAL over that strategy with
    a non-commutative operator, FEASIBLE with a commutative one.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=2, latency=0)
    >>> b, status = _claim(p, cs.ReduceScatter(participants=p.hosts, size=1, task_cost=1), "multi", Fraction(1, 2))
    >>> b.value, b.name, status
    (Fraction(1, 1), 'cut bound of the reversed fabric (exact, ForestColl; ignores computation)', None)
    """
    from ...schedules.base import Bound
    from ..gpu.cut_bound import cut_bound

    if isinstance(base, AllReduce):
        name = ("LP optimum of ReduceScatter-then-AllGather over interval reduction trees and broadcast trees "
                "(exact; not a bound over all AllReduce algorithms)")
        return Bound(tp, "throughput", name), Status.FEASIBLE if base.commutative else None
    if not base.commutative:
        return Bound(tp, "throughput", "steady-state LP optimum (exact)"), None
    if ports == "multi":
        x, _ = cut_bound(platform, base.participants, kind="reducescatter")
        return Bound(x / Fraction(base.size), "throughput",
                     "cut bound of the reversed fabric (exact, ForestColl; ignores computation)"), None
    return Bound(tp, "throughput", "LP optimum over interval reduction trees (exact; a commutative operator may "
                 "beat it)"), Status.FEASIBLE


LOWERINGS.append((lambda base, ports, method: isinstance(base, (ReduceScatter, AllReduce)), plan_reductions))
