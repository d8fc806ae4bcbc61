"""Beyond both papers: the preemptive open shop, exact (Gonzalez and Sahni 1976; Birkhoff-von Neumann).

When a message may be cut into parts at no cost (the linear model with no
latency, ``OnePort(cost="linear")``), an exchange whose time matrix ``T``
has largest row or column sum ``D`` can be finished in exactly ``D``: pad
``T`` into a square matrix whose every row and column sums to ``D``, then
peel off permutation matrices (Birkhoff-von Neumann); each permutation is
one step of length ``lambda``, the smallest entry it uses.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1.0, latency=0.0)
>>> c = cs.AllToAll(senders=p.hosts, size=[[0, 3, 1], [2, 0, 5], [4, 1, 0]])
>>> s = open_shop_preemptive(p, c)
>>> r = cs.simulate(p, s, model=cs.models.OnePort())
>>> round(r.makespan, 6), s.bound.value
(7.0, 7.0)
"""

from __future__ import annotations

import numpy as np

from ...schedules import Status, StepSchedule, Transfer
from ..registry import register
from .common import check_seed
from .costs import Exchange

__all__ = ["open_shop_preemptive", "bvn_steps"]

DENOMINATOR = 1 << 40


def bvn_steps(T: np.ndarray, *, tol: float = 1e-12) -> list[tuple[float, list[tuple[int, int]]]]:
    """Birkhoff-von Neumann steps of a nonnegative ``S x R`` time matrix.

    Parameters
    ----------
    T : ndarray
    tol : float
        Relative size below which an entry counts as zero.

    Returns
    -------
    list of (float, list of (int, int))
        ``(lambda, pairs)``: for ``lambda`` seconds, each pair ``(i, j)`` of
        real messages is sent; the lambdas sum to the largest row or column sum.

    Notes
    -----
    Step 1 (Gonzalez and Sahni): pad ``T`` to the ``(S+R) x (S+R)`` matrix
    ``[[T, diag(D - rows)], [diag(D - cols), T']]``, whose lines all sum to
    ``D``. Step 2: while it is not zero, find a perfect matching in its
    support (one exists by Birkhoff's theorem; here a maximum-weight
    assignment that prefers large entries), subtract its smallest entry
    along it. Each step zeroes an entry: at most ``(S+R)^2`` steps.

    Examples
    --------
    >>> steps = bvn_steps(np.array([[0, 2.0], [1.0, 0]]))
    >>> sum(l for l, _ in steps), [sorted(p) for _, p in steps]
    (2.0, [[(0, 1), (1, 0)], [(0, 1)]])
    """
    from scipy.optimize import linear_sum_assignment  # scipy.optimize takes ~1 s to import: only when used

    S, R = T.shape
    rows, cols = T.sum(axis=1), T.sum(axis=0)
    D = float(max(rows.max(initial=0.0), cols.max(initial=0.0)))
    if D <= 0:
        return []
    n = S + R
    M = np.zeros((n, n))
    M[:S, :R] = T
    M[:S, R:] = np.diag(D - rows)
    M[S:, :R] = np.diag(D - cols)
    M[S:, R:] = T.T
    eps = tol * D
    M[M < eps] = 0.0
    steps = []
    left = D
    while left > eps:
        support = M > 0
        weight = np.where(support, 1.0 + M / D, 0.0)
        r, c = linear_sum_assignment(weight, maximize=True)
        if not support[r, c].all():  # numerical dust: no perfect matching left
            break
        lam = float(M[r, c].min())
        M[r, c] -= lam
        M[M < eps] = 0.0
        left -= lam
        steps.append((lam, [(int(i), int(j)) for i, j in zip(r, c) if i < S and j < R and T[i, j] > 0]))
    return steps


@register("open_shop_preemptive", family="orderings", kinds=("alltoall", "alltomany"), series=False,
          summary="preemptive open shop by Birkhoff-von Neumann steps: reaches the open-shop bound")
def open_shop_preemptive(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Preemptive open-shop schedule of the linear costs ``L + m/B``: makespan = open-shop bound when ``L = 0``.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Unused (deterministic); checked.

    Returns
    -------
    StepSchedule
        Steps with parts of messages (``denominator`` 2**40) and durations;
        status OPTIMAL (under ``OnePort(sync=True, cost="linear")`` with
        zero latencies, lowered with barriers, its makespan is the bound).

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    Notes
    -----
    Each part of a message pays the route latency again, so with ``L > 0``
    the makespan exceeds the bound by up to the number of steps times ``L``;
    per-message overheads (``cost="overheads"``) likewise make preemption
    cost, which is why seed 004's model has no exact preemptive schedule.

    References
    ----------
    T. Gonzalez, S. Sahni, "Open shop scheduling to minimize finish time",
    J. ACM 23(4), 1976, doi:10.1145/321978.321985. G. Birkhoff, "Tres
    observaciones sobre el algebra lineal", 1946.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth=1e6, latency=0.0)
    >>> c = cs.AllToAll(senders=p.hosts, receivers=["h0", "h1"], size=1e6)
    >>> s = open_shop_preemptive(p, c)
    >>> cs.validate(p, c, s)
    >>> round(cs.simulate(p, s, model=cs.models.OnePort()).makespan, 6), s.bound.value
    (3.0, 3.0)
    """
    from .exchange_bound import exchange_bound
    from ...simulation.models import OnePort

    check_seed(seed)
    x = Exchange.of(platform, collective, overheads=False)
    T = x.cost
    steps_out, durations = [], []
    done = np.zeros(T.shape)          # seconds of each message sent so far
    sent = np.zeros(T.shape, dtype=np.int64)  # denominator units sent so far
    steps = bvn_steps(T)
    last = {}
    for k, (_, pairs) in enumerate(steps):
        for ij in pairs:
            last[ij] = k
    for k, (lam, pairs) in enumerate(steps):
        step = []
        for i, j in pairs:
            done[i, j] += lam
            end = DENOMINATOR if last[(i, j)] == k else min(DENOMINATOR, int(round(done[i, j] / T[i, j] * DENOMINATOR)))
            start = int(sent[i, j])
            if end > start:
                step.append(Transfer(x.senders[i], x.receivers[j], part=(start, end)))
                sent[i, j] = end
        if step:
            steps_out.append(tuple(step))
            durations.append(lam)
    bound = exchange_bound(platform, collective, model=OnePort(sync=True, cost="linear"))
    return StepSchedule(steps=tuple(steps_out), denominator=DENOMINATOR, durations=tuple(durations),
                        algorithm="open_shop_preemptive", params={"seed": seed}, bound=bound,
                        status=Status.OPTIMAL, message=f"{len(steps_out)} Birkhoff-von Neumann steps",
                        collective=collective)
