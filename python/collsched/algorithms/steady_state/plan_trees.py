"""``steady_state`` under ``ports="multi"``: AllGathers, commutative ReduceScatters and AllReduces by tree packing.

On a multi-port fabric the exact optimal rate of a series of AllGathers, or
of ReduceScatters with a commutative operator, is ForestColl's cut bound
``x* = min_S B⁺(S) / |S ∩ participants|`` (bytes/s per root; for a
ReduceScatter, of the reversed fabric), certified as an exact rational
from integer maximum flows (:func:`~collsched.algorithms.gpu.cut_bound.cut_bound`),
and spanning out-trees (in-trees) per root whose weights sum to ``x*``
reach it (:func:`~collsched.algorithms.gpu.forest.pack_forest`, checked
independently by :func:`~collsched.algorithms.gpu.forest.check_forest`).
No LP is solved: found in milliseconds where the AllGather LP takes
minutes on two-chassis GPU fabrics. The optimum is ``TP = x* / block``
operations per second.

Each tree carries whole operations of its root's block (``weight / block``
of them per second); its arcs go between participants along the
platform's static routes, hop by hop through the switches. An AllGather
tree forwards the root's block down; a node (or switch) the tree has
already reached forwards its copy rather than receiving another. A
ReduceScatter in-tree combines at each participant its own operand with
its children's partial sums (one computation of ``children`` combinations,
each costing the fragment's share ``task_cost / N``) and sends the sum up;
commodity ``j`` moves only fragment ``[j/N, (j+1)/N)``.

**Phases.** The trees are deep (a switch split into a ring gives paths
through every GPU, one period per hop and per computation), so the
initialisation and clean-up would copy the pattern for tens of periods.
With ``phases="pipelined"`` (the default) none are built: under the
multi-port model (one slot, no matchings) the pattern's first and last
``lag`` periods, restricted to the instances that exist, are exactly those
phases, and the lowering runs them so. ``phases="sequential"`` builds the
paper's one-transfer-per-slot phases.

**Where the bound cannot be reached.** Switch removal keeps every cut
capacity when each switch is Eulerian (as much capacity in as out) and
routes let it split; otherwise some capacity is dropped and the packing
falls below ``x*``. ``steady_state`` promises the exact optimum, so it then
raises :class:`~.exact.SteadyStateError` naming the switch or link and the
two rates; ``algorithm="forest"`` keeps the best packing along the routes
and reports the gap.

A commutative **AllReduce** (no task cost) runs a ReduceScatter packing
and an AllGather packing (each at its cut bound ``x_rs``, ``x_ag``) in the
same period, each scaled to ``1 / (b/x_rs + b/x_ag)`` operations per second
for blocks of ``b`` bytes (time-sharing: every link fits), the AllGather of
block ``j`` after its reduction; the period is the busiest link's load, so
the throughput is that rate or more where the two packings' busiest links
differ. That is feasible, not proven optimal: the bound given is the
ReduceScatter's ``x_rs / b`` (every AllReduce schedule is a ReduceScatter
schedule), FEASIBLE, with the gap in the message.

A commutative ReduceScatter with a task cost is planned by the interval LP
(:mod:`.plan_reductions`), whose schedule is measured against the cut
bound (which ignores computation, so stays valid).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=2, latency=0)
>>> c = cs.Series(cs.ReduceScatter(participants=p.hosts, size=1), count=12)
>>> s = cs.plan(p, c, algorithm="steady_state", ports="multi")
>>> s.throughput, s.status.value, s.bound.name
(Fraction(1, 1), 'optimal', 'cut bound (exact, ForestColl)')
>>> cs.validate(p, c, s)
"""

from __future__ import annotations

import time
from fractions import Fraction

from ...collectives import AllGather, AllReduce, ReduceScatter
from ...schedules.base import Bound
from .exact import SteadyStateError
from .lp_alltoall import network
from .periodic import shortest_period
from .plan import LOWERINGS, _finish, _owned_counts, _slots

__all__ = ["plan_trees", "hop_path"]


def hop_path(platform, src: str, dst: str) -> list[str]:
    """The nodes of the static route from ``src`` to ``dst``, both included.

    Examples
    --------
    >>> import collsched as cs
    >>> hop_path(cs.topologies.star(3), "h0", "h2")
    ['h0', 'sw', 'h2']
    """
    path = [src]
    for link, forward in platform.route_hops(src, dst):
        ends = platform.links[link].ends
        path.append(ends[1] if forward else ends[0])
    return path


def plan_trees(platform, base, *, ports: str, max_ops: int, split: bool, time_limit: float, phases: str):
    """The periodic schedule of AllGathers or commutative ReduceScatters (at the cut bound) or AllReduces, multi-port.

    Parameters
    ----------
    platform : Platform
    base : AllGather, ReduceScatter or AllReduce
    ports : {"multi"}
    max_ops, split, time_limit, phases
        As :func:`~.plan.steady_state` (``split`` and ``time_limit`` unused: no matchings, no LP).

    Returns
    -------
    PeriodicSchedule
        ``bound`` the cut bound in operations per second (an AllReduce: its
        ReduceScatter's); OPTIMAL when the schedule reaches it.

    Raises
    ------
    SteadyStateError
        If the trees along the platform's routes cannot reach the cut bound
        (a non-Eulerian switch, or routes that cut it): the switch or link
        and both rates, with the fix.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=2, latency=0)
    >>> s = plan_trees(p, cs.AllGather(participants=p.hosts, size=1), ports="multi", max_ops=64, split=True,
    ...                time_limit=60.0, phases="pipelined")
    >>> s.throughput, s.params["method"]
    (Fraction(1, 1), 'cut bound and spanning-tree packing')
    """
    from ...schedules.periodic import PeriodicTask
    from ...schedules.values import block as block_value
    from ...schedules.values import reduced
    from ..gpu.forest import check_forest, pack_forest

    t0 = time.perf_counter()
    gather = isinstance(base, AllGather)
    allreduce = isinstance(base, AllReduce)
    kinds = ["reducescatter", "allgather"] if allreduce else ["allgather" if gather else "reducescatter"]
    forests = [pack_forest(platform, base.participants, kind=kind) for kind in kinds]
    for kind, f in zip(kinds, forests):
        if f.throughput != f.bound:
            raise SteadyStateError(
                f"{kind} under ports='multi': the spanning trees along the platform's routes reach "
                f"{float(f.throughput):.6g} bytes/s per root, below the cut bound {float(f.bound):.6g} "
                f"({f.note.split(': ', 1)[-1]})",
                fix="use algorithm='forest' for the best packing along routes, below the bound, or method='lp' "
                    + ("(the LP, where switches may copy data)" if gather else "(the interval LP's schedule)"))
        check_forest(platform, f)
    elapsed = time.perf_counter() - t0
    hosts = list(base.participants)
    n = len(hosts)
    size = Fraction(base.size) / (n if allreduce else 1)  # one block
    # an AllReduce time-shares its two packings: each block costs size/x_rs seconds of the ReduceScatter's
    # capacity and size/x_ag of the AllGather's, so both run at 1 / (size/x_rs + size/x_ag) operations per second
    tp = 1 / sum(size / f.bound for f in forests)
    trees = [(tree, tp * tree.weight / f.bound, hosts.index(tree.root) + n * i, kind)
             for i, (kind, f) in enumerate(zip(kinds, forests)) for tree in f.trees]
    rates = [r for _, r, _, _ in trees]
    owner = [o for _, _, o, _ in trees]
    net = network(platform)
    acts = {"TP": tp}
    for k, (tree, r, _, kind) in enumerate(trees):
        acts[f"tree[{k}]({kind}, {tree.root})"] = r
    T = shortest_period(rates)
    counts, q, period, exact = _owned_counts(rates, owner, n * len(kinds), T, tp, max_ops)
    paths = {arc: hop_path(platform, *arc) for tree, _, _, _ in trees for arc in tree.arcs}
    params = {"lp_size": [0, 0, 0], "highs_status": "no LP", "phases": phases, "ports": ports,
              "method": "cut bound and spanning-tree packing", "timings": {"forest": elapsed}}
    s_idx = [platform.host_index(h) for h in hosts]
    cost = Fraction(base.task_cost if not gather else 0) / n

    def gather_tree(tree, j, t, tag, items, deps, first=None):
        # node -> (key of the transfer that brought it the block, hops from the root); AllReduce: the root's
        # block comes from its reduction (``first``)
        got = {tree.root: (first, 0)}
        for arc in tree.arcs:
            path = paths[arc]
            for a, b in zip(path, path[1:]):
                if b in got:
                    continue
                key = ("ag", j, t, b)
                before, d = got[a]
                deps[key] = [before] if before else []
                got[b] = (key, d + 1)
                value = reduced(tag(key, t, d), range(n)) if allreduce else block_value(tag(key, t, d), s_idx[j], -1)
                items.setdefault((a, b), []).append((value, size * net.cost[(a, b)], float(size)))

    def reduce_tree(tree, j, t, tag, items, work, deps):
        """Block ``j``'s in-tree for instance ``t``; returns the key of the root's last computation."""
        children: dict = {}
        for child, parent in tree.arcs:
            children.setdefault(parent, []).append(child)
        made: dict = {}  # participant -> (key of what makes its partial sum there, positions, stage)
        for child, parent in list(tree.arcs)[::-1] + [(tree.root, None)]:  # leaves first, the root last
            kids = children.get(child, [])
            pos = [hosts.index(child)]
            ins, stage = [], 0
            for c in kids:
                key, p, st = made[c]
                ins.append(key)
                pos += p
                stage = max(stage, st + 1)
            if kids:  # one computation: its operand and every child's sum
                key = ("rs", j, t, child)
                deps[key] = ins
                rel = tag(key, t, stage)
                inputs = [reduced(rel, [hosts.index(child)])] + [reduced(rel, made[c][1]) for c in kids]
                task_cost = cost * len(kids)
                work.setdefault(child, []).append(
                    (PeriodicTask(child, inputs, reduced(rel, pos), float(task_cost)), task_cost / net.speed[child]))
                last, stage = [key], stage + 1
            else:
                last = []
            if parent is not None:
                path = paths[(child, parent)]
                for h, (a, b) in enumerate(zip(path, path[1:])):
                    key = ("rs", j, t, child, h)
                    deps[key] = last
                    items.setdefault((a, b), []).append((reduced(tag(key, t, stage + h), pos),
                                                         size * net.cost[(a, b)], float(size)))
                    last = [key]
                stage += len(path) - 1
            made[child] = (last[0] if last else None, pos, stage)
        return made[tree.root][0]

    def build(counts, q, tag):
        items: dict = {}
        work: dict = {}
        deps: dict = {}
        nxt = [0] * (n * len(kinds))
        reduced_at: dict = {}  # AllReduce: (j, t) -> the key of the computation that completes block j at P_j
        for stage in ("reducescatter", "allgather"):  # an AllReduce's broadcasts wait for its reductions
            for (tree, _, k, kind), c in zip(trees, counts):
                for _ in range(c if kind == stage else 0):
                    j, t = k % n, nxt[k]
                    if kind == "reducescatter":
                        reduced_at[(j, t)] = reduce_tree(tree, j, t, tag, items, work, deps)
                    else:
                        gather_tree(tree, j, t, tag, items, deps, reduced_at.get((j, t)))
                    nxt[k] += 1
        return items, work, deps

    parts = None if gather else (lambda key: key[1], n)
    slots, den, q2, scale = _slots(build, counts, q, split, params, net, max_ops, parts=parts)
    params.update(tree_weights=[str(r * T) for r in rates], n_trees=len(trees))
    nodes = {x for path in paths.values() for x in path}
    what = "; ".join(f"{len(f.trees)} spanning {'out' if kind == 'allgather' else 'in'}-trees for {n} roots"
                     for kind, f in zip(kinds, forests))
    bounds = " and ".join(f"{kind} cut bound {f.bound} bytes/s per root" for kind, f in zip(kinds, forests))
    if allreduce:
        head = (f"{bounds}, each reached by its tree packing (exact, {elapsed:.3g} s); the AllReduce runs both in "
                f"one period, at least {float(tp):.6g} operations/s (time-sharing them), not proven optimal (bound: "
                f"the ReduceScatter it contains)")
        bound = Bound(forests[0].bound / size, "throughput",
                      "cut bound of the ReduceScatter an AllReduce contains (exact, ForestColl; not tight)")
    else:
        head = f"{bounds}, reached by the tree packing (exact, {elapsed:.3g} s)"
        bound = Bound(tp, "throughput", "cut bound (exact, ForestColl)")
    return _finish(platform, sol=None, size=None, tp=tp, acts=acts, T=T, q=q2, period=period, exact=exact,
                   scale=scale, slots=slots, den=den, items_nodes=nodes, params=params, extra=f"; {what}",
                   net=net, routes=len(trees), ports=ports, head=head, bound=bound, phased=phases == "sequential")

def _applies(base, ports: str, method: str) -> bool:
    """Multi-port AllGathers, commutative ReduceScatters and AllReduces without task cost, unless ``method="lp"``."""
    cut = isinstance(base, AllGather) or (isinstance(base, (ReduceScatter, AllReduce)) and base.commutative
                                          and not base.task_cost)
    return ports == "multi" and method == "auto" and cut


LOWERINGS.insert(0, (_applies, plan_trees))  # before the LP plans of the same collectives
