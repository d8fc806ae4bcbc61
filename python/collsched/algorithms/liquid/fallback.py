"""When no liquid schedule exists: the shortest schedule with a certified bound, and a fast heuristic.

:func:`shortest` tries lengths ``Λ, Λ+1, ...`` with the exact search of
:mod:`.search` (a proof of infeasibility at ``L`` raises the certified lower
bound to ``L+1``), starting from the heuristic's length as an upper bound,
so its answer always says "length L, bound B". :func:`heuristic_steps` is the
heuristic for traffics too large for exact search: the shorter of a first
fit in the caterpillar's order (:func:`shift_steps`, linear time) and a
greedy that fills each step with the transfers whose most loaded link is
most loaded (:func:`greedy_steps`, the bottlenecks first, as a liquid
schedule would).

Examples
--------
>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
>>> X = traffic_of(figure1_platform(), figure1_collective())
>>> len(greedy_steps(X)) >= X.duration
True
>>> r = shortest(X)
>>> r.length, r.bound, r.status.value
(6, 6, 'optimal')
"""

from __future__ import annotations

from dataclasses import dataclass

from ...schedules.base import Status
from .search import core_function, search
from .traffic import Traffic

__all__ = ["Shortest", "shortest", "greedy_steps", "shift_steps", "heuristic_steps"]


@dataclass(frozen=True)
class Shortest:
    """The shortest schedule found and its certified lower bound.

    Attributes
    ----------
    steps : tuple of tuple of int
        Transfer indices per step.
    length : int
        ``len(steps)``.
    bound : int
        Certified lower bound on the length (Λ, or more when lengths below were proved infeasible).
    status : Status
        OPTIMAL when ``length == bound``, else LIMIT.
    liquid : bool
        Whether ``length == Λ``.
    nodes : int
        Categories visited over all searches.
    seconds : float
        Search time over all searches.

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import Traffic
    >>> X = Traffic(transfers=(("a", "b", 0),), routes=((0,),), resources=("l",))
    >>> r = shortest(X)
    >>> r.steps, r.length, r.bound, r.liquid
    (((0,),), 1, 1, True)
    """

    steps: tuple[tuple[int, ...], ...]
    length: int
    bound: int
    status: Status
    liquid: bool
    nodes: int
    seconds: float


def greedy_steps(traffic: Traffic, *, engine: str = "auto") -> tuple[tuple[int, ...], ...]:
    """A schedule built step by step, most loaded links first (a fast heuristic).

    Each step scans the remaining transfers by decreasing load of their most
    loaded link (loads of the reduced traffic, recomputed every step) and
    takes every transfer that does not congest with those already taken.

    Parameters
    ----------
    traffic : Traffic
    engine : {"auto", "rust", "python"}
        The Rust core (auto, when built) or the Python loop (same steps).

    Returns
    -------
    tuple of tuple of int
        Steps of transfer indices; every step a simultaneity.

    Notes
    -----
    ``O(S · (n log n + Σ|route|))`` for ``S`` steps and ``n`` transfers.

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import Traffic
    >>> X = Traffic(transfers=(("a", "b", 0), ("c", "b", 0)), routes=((0, 1), (2, 1)), resources=("la", "lb", "lc"))
    >>> greedy_steps(X)
    ((0,), (1,))
    """
    liquid_greedy = core_function("liquid_greedy", engine)
    if liquid_greedy is not None:
        return tuple(tuple(s) for s in liquid_greedy([list(r) for r in traffic.routes], len(traffic.resources)))
    routes = traffic.routes
    loads = list(traffic.loads)
    left = list(range(len(traffic)))
    steps = []
    while left:
        left.sort(key=lambda i: (-max((loads[r] for r in routes[i]), default=0), i))
        used: set[int] = set()
        step, rest = [], []
        for i in left:
            if used.isdisjoint(routes[i]):
                step.append(i)
                used.update(routes[i])
            else:
                rest.append(i)
        for i in step:
            for r in routes[i]:
                loads[r] -= 1
        steps.append(tuple(sorted(step)))
        left = rest
    return tuple(steps)


def shift_steps(traffic: Traffic, *, engine: str = "auto") -> tuple[tuple[int, ...], ...]:
    """First fit in the caterpillar's order: each transfer goes to its shift's step, or the first step with room.

    Senders and receivers are numbered in order of first appearance; the
    transfer from the ``i``-th sender to the ``j``-th receiver of instance
    ``t`` has the home step ``t · m + (j - i) mod m`` (``m`` the larger
    count). Transfers are taken home by home; one that congests in its home
    goes to the first step where its links are free, or a new step. On a
    network that carries every shift without congestion (a non-blocking fat
    tree with d-mod-k routing), an all-to-all gets exactly its ``n - 1``
    shifts, which is Λ.

    Parameters
    ----------
    traffic : Traffic
    engine : {"auto", "rust", "python"}
        The Rust core (auto, when built) or the Python loop (same steps).

    Returns
    -------
    tuple of tuple of int
        Steps of transfer indices; every step a simultaneity.

    Notes
    -----
    ``O(Σ |route| · tries)``: linear when few transfers leave their home.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.liquid.traffic import traffic_of
    >>> p = cs.topologies.fat_tree(4, 4, spines=4)
    >>> X = traffic_of(p, cs.AllToAll(senders=p.hosts, size=1))
    >>> len(shift_steps(X)), X.duration
    (15, 15)
    """
    liquid_first_fit = core_function("liquid_first_fit", engine)
    senders: dict[str, int] = {}
    receivers: dict[str, int] = {}
    for src, dst, _ in traffic.transfers:
        senders.setdefault(src, len(senders))
        receivers.setdefault(dst, len(receivers))
    m = max(len(senders), len(receivers), 1)
    home = [inst * m + (receivers[dst] - senders[src]) % m for src, dst, inst in traffic.transfers]
    order = sorted(range(len(traffic)), key=lambda i: (home[i], senders[traffic.transfers[i][0]]))
    if liquid_first_fit is not None:
        steps = liquid_first_fit([list(r) for r in traffic.routes], len(traffic.resources), order, home)
        return tuple(tuple(s) for s in steps)
    used: list[set[int]] = []
    steps: list[list[int]] = []
    for i in order:
        route = traffic.routes[i]
        while len(used) <= home[i]:
            used.append(set())
            steps.append([])
        k = home[i] if used[home[i]].isdisjoint(route) else \
            next((k for k in range(len(used)) if used[k].isdisjoint(route)), None)
        if k is None:
            used.append(set())
            steps.append([])
            k = len(used) - 1
        used[k].update(route)
        steps[k].append(i)
    return tuple(tuple(sorted(s)) for s in steps if s)


def heuristic_steps(traffic: Traffic, *, engine: str = "auto",
                    greedy_limit: int = 200_000) -> tuple[tuple[int, ...], ...]:
    """The shorter of :func:`shift_steps` and (up to ``greedy_limit`` transfers) :func:`greedy_steps`.

    Parameters
    ----------
    traffic : Traffic
    engine : {"auto", "rust", "python"}
    greedy_limit : int
        Largest traffic given to the greedy (it sorts the remaining
        transfers at every step).

    Returns
    -------
    tuple of tuple of int

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.liquid.traffic import traffic_of
    >>> p = cs.topologies.star(5)
    >>> X = traffic_of(p, cs.AllToAll(senders=p.hosts, size=1))
    >>> len(greedy_steps(X)), len(shift_steps(X)), len(heuristic_steps(X)), X.duration
    (6, 4, 4, 4)
    """
    best = shift_steps(traffic, engine=engine)
    if len(traffic) <= greedy_limit and len(best) > traffic.duration:
        other = greedy_steps(traffic, engine=engine)
        if len(other) < len(best):
            best = other
    return best


def shortest(traffic: Traffic, *, budget: int = 2_000_000, symmetry: bool = True, engine: str = "auto") -> Shortest:
    """The shortest schedule: the liquid search at Λ, then exact searches at Λ+1, ... below the heuristic's length.

    Parameters
    ----------
    traffic : Traffic
    budget : int
        Categories allowed per search; a search that runs out stops the
        climb (status LIMIT, the heuristic's or last schedule kept).
    symmetry : bool
        See :func:`~.search.search`.
    engine : {"auto", "rust", "python"}
        See :func:`~.search.search`.

    Returns
    -------
    Shortest

    Examples
    --------
    Three transfers on a triangle of links, pairwise congesting but with no
    common link: Λ = 2, yet 3 steps are needed (the paper's Figure 5 case).

    >>> from collsched.algorithms.liquid.traffic import Traffic
    >>> X = Traffic(transfers=(("a", "b", 0), ("b", "c", 0), ("c", "a", 0)),
    ...             routes=((0, 1), (1, 2), (2, 0)), resources=("x", "y", "z"))
    >>> r = shortest(X)
    >>> (r.length, r.bound, r.liquid, r.status.value)
    (3, 3, False, 'optimal')
    """
    best = heuristic_steps(traffic, engine=engine)
    bound = traffic.duration
    nodes, seconds = 0, 0.0
    length = bound
    while length < len(best):
        r = search(traffic, length, budget=budget, symmetry=symmetry, engine=engine)
        nodes, seconds = nodes + r.nodes, seconds + r.seconds
        if r.status is Status.OPTIMAL:
            best = r.steps
            break
        if r.status is Status.LIMIT:
            break
        bound = length + 1
        length += 1
    status = Status.OPTIMAL if len(best) == bound else Status.LIMIT
    return Shortest(tuple(best), len(best), bound, status, len(best) == traffic.duration, nodes, seconds)
