"""Reduction trees from an SSR solution: FIND_TREE / EXTRACT_TREE (seed 000, section 4.4, Fig. 8).

Before extraction, the circulations of every partial result's send flow are
cancelled (a cycle ``i → j → i`` of ``v[k..m]`` is conservative and carries
nothing to the target; left in, FIND_TREE could walk it forever). Then
EXTRACT_TREE peels trees off greedily: FIND_TREE walks back from
``(v[0..N], target)``, taking a computation in place when one remains, else
a reception; the tree's weight is the smallest remaining activity of its
tasks (divided by its multiplicity in the tree), which is subtracted. Each
round zeroes at least one activity, so it ends after at most as many trees
as there are non-zero activities. What is left when the weights reach ``TP``
is a conservative activity delivering nothing: with the send cycles
cancelled and computations only ever growing intervals, it is zero, so
``Σ weight · χ`` equals the (cancelled) solution exactly — Lemma 2, which
:func:`check_trees` verifies on every extraction.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.steady_state.lp_reduce import solve_reduce
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)
>>> r = solve_reduce(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1))
>>> trees = extract_trees(r)
>>> sum(w for w, _ in trees) == r.throughput
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import networkx as nx

from ...errors import CollschedError

__all__ = ["TreeTask", "cancel_circulations", "find_tree", "extract_trees", "check_trees"]


@dataclass(frozen=True)
class TreeTask:
    """One task of a reduction tree and its stage (longest chain of tasks before it).

    ``key`` is ``("send", u, v, k, m)`` or ``("cons", i, k, l, m)``.

    Examples
    --------
    >>> TreeTask(("send", "h1", "h0", 1, 1), 0).key[0]
    'send'
    """

    key: tuple
    stage: int


def cancel_circulations(send: dict) -> dict:
    """``send`` ``{(u, v, k, m): rate}`` with every cycle of each ``v[k..m]`` flow cancelled.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> cancel_circulations({("a", "b", 0, 0): F(2), ("b", "a", 0, 0): F(1)})
    {('a', 'b', 0, 0): Fraction(1, 1)}
    """
    out = {}
    by_interval: dict = {}
    for (u, v, k, m), val in send.items():
        by_interval.setdefault((k, m), {})[(u, v)] = Fraction(val)
    for (k, m), flow in by_interval.items():
        while True:
            g = nx.DiGraph(list(flow))
            try:
                cycle = nx.find_cycle(g)
            except nx.NetworkXNoCycle:
                break
            eps = min(flow[(a, b)] for a, b in cycle)
            for a, b in cycle:
                flow[(a, b)] -= eps
                if flow[(a, b)] == 0:
                    del flow[(a, b)]
        for (u, v), val in flow.items():
            out[(u, v, k, m)] = val
    return out


def find_tree(activity: dict, host_of: list, target: str) -> list[TreeTask]:
    """FIND_TREE: one reduction tree in the positive part of ``activity``, its tasks with stages.

    ``activity`` maps task keys to remaining rates.

    Raises
    ------
    CollschedError
        If no producer is found for a needed partial result (the activities
        are not conservative).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> act = {("send", "b", "a", 1, 1): F(1), ("cons", "a", 0, 0, 1): F(1)}
    >>> [t.key[0] for t in find_tree(act, ["a", "b"], "a")]
    ['send', 'cons']
    """
    N = len(host_of) - 1
    recv: dict = {}
    cons: dict = {}
    for key, val in activity.items():
        if val <= 0:
            continue
        if key[0] == "send":
            recv.setdefault((key[2], key[3], key[4]), []).append(key)
        else:
            cons.setdefault((key[1], key[2], key[4]), []).append(key)
    tasks: list[TreeTask] = []

    def produce(k, m, i, depth=0) -> int:
        """Append the subtree producing v[k..m] on i; return its stage (-1 for a leaf)."""
        if k == m and i == host_of[k]:
            return -1
        if depth > 10 * (len(activity) + 1):
            raise CollschedError(f"reduction tree walk does not end at v[{k}..{m}] on {i!r}")
        for key in cons.get((i, k, m), ()):
            l = key[3]
            s = max(produce(k, l, i, depth + 1), produce(l + 1, m, i, depth + 1)) + 1
            tasks.append(TreeTask(key, s))
            return s
        for key in recv.get((i, k, m), ()):
            s = produce(k, m, key[1], depth + 1) + 1
            tasks.append(TreeTask(key, s))
            return s
        raise CollschedError(f"no producer of v[{k}..{m}] on {i!r} in the remaining activities")

    produce(0, N, target)
    return tasks


def extract_trees(solution) -> list[tuple[Fraction, list[TreeTask]]]:
    """EXTRACT_TREE: weighted reduction trees (rates, per second) whose sum is the solution, checked exactly.

    Parameters
    ----------
    solution : ReduceSolution

    Returns
    -------
    list of (Fraction, list of TreeTask)
        ``Σ weight = TP`` and ``Σ weight · χ`` equals the solution's
        activities (circulations cancelled) exactly.

    Raises
    ------
    CollschedError
        If the check (:func:`check_trees`) fails.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.steady_state.lp_reduce import solve_reduce
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0, speed=1)
    >>> r = solve_reduce(p, cs.Reduce(participants=p.hosts, target="h0", size=1, task_cost=1))
    >>> [(w, [t.key for t in tree]) for w, tree in extract_trees(r)]  # canonical: h0 computes
    [(Fraction(1, 1), [('send', 'h1', 'h0', 1, 1), ('cons', 'h0', 0, 0, 1)])]
    """
    send = cancel_circulations(solution.send)
    act = {("send", *k): v for k, v in send.items()}
    act.update({("cons", *k): v for k, v in solution.cons.items()})
    original = dict(act)
    trees = []
    total = Fraction(0)
    while total < solution.throughput:
        tree = find_tree(act, solution.host_of, solution.target)
        mult: dict = {}
        for t in tree:
            mult[t.key] = mult.get(t.key, 0) + 1
        w = min(act[k] / n for k, n in mult.items())
        w = min(w, solution.throughput - total)
        for k, n in mult.items():
            act[k] -= w * n
        trees.append((w, tree))
        total += w
    check_trees(trees, original, solution.throughput)
    return trees


def check_trees(trees: list, activities: dict, throughput: Fraction) -> None:
    """Lemma 2, exactly: ``Σ weight = TP`` and ``Σ weight · χ(T)`` equals every activity (``A`` per second).

    Multiplying both sides by the period ``T`` gives the paper's
    ``Σ weight(T) · χ_T = A^T`` with integer weights.

    Raises
    ------
    CollschedError
        Naming the first task whose rate the trees do not reproduce.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> tree = [TreeTask(("send", "b", "a", 1, 1), 0), TreeTask(("cons", "a", 0, 0, 1), 1)]
    >>> check_trees([(F(1, 2), tree)], {("send", "b", "a", 1, 1): F(1, 2), ("cons", "a", 0, 0, 1): F(1, 2)}, F(1, 2))
    >>> check_trees([(F(1, 2), tree)], {("send", "b", "a", 1, 1): F(1), ("cons", "a", 0, 0, 1): F(1, 2)}, F(1, 2))
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: reduction trees carry ('send', 'b', 'a', 1, 1) at rate 1/2, the LP at 1
    """
    total = sum((w for w, _ in trees), Fraction(0))
    if total != throughput:
        raise CollschedError(f"reduction trees of total weight {total}, the LP's throughput is {throughput}")
    rebuilt: dict = {}
    for w, tree in trees:
        for t in tree:
            rebuilt[t.key] = rebuilt.get(t.key, 0) + w
    for key in sorted(set(rebuilt) | {k for k, v in activities.items() if v}, key=str):
        if rebuilt.get(key, 0) != activities.get(key, 0):
            raise CollschedError(f"reduction trees carry {key} at rate {rebuilt.get(key, 0)}, "
                                 f"the LP at {activities.get(key, 0)}")
