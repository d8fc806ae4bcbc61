"""The liquid-schedule search (seed 001, Section 4) and its exact generalisation to any length.

A schedule of length ``L`` partitions the traffic into ``L`` simultaneities.
With ``r`` steps left, a link of load ``r`` in the reduced traffic must be
used by every remaining step (a link of load above ``r`` is a dead end), so
each step is a *team* of the reduced traffic for the links of load ``r``;
for ``L = Λ`` these are exactly the paper's bottlenecks and the search is
the paper's: choose a full team of the reduced traffic, recurse, backtrack.
Full teams suffice (Section 4.2: any step of a solution can be made full by
moving transfers in from later steps), and so does ``L > Λ`` with the same
argument, which makes the search an exact test "is there a schedule of
length L" and the shortest schedule the first ``L`` that succeeds.

Speed-ups beyond the paper, all exact: with ``symmetry=True`` the step
chosen must contain one fixed remaining transfer (steps are unordered, so
the step holding it may as well come first); reduced traffics already
proved dead are remembered; and the fission splits first on a transfer of
the bottleneck with fewest candidates, the most *urgent* one (highest
summed load of its links), so that teams holding the hardest transfers
come first (the paper takes "an arbitrary transfer"; this only orders the
search). The fixed transfer is the most urgent one too.

Examples
--------
>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
>>> X = traffic_of(figure1_platform(), figure1_collective())
>>> r = search(X, X.duration)
>>> r.status.value, len(r.steps), sorted(len(s) for s in r.steps)
('optimal', 6, [3, 4, 4, 4, 5, 5])
>>> search(X, 5).status.value
'infeasible'
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ...schedules.base import Status
from .teams import bits, iter_full_teams
from .traffic import Traffic


ENGINES = ("auto", "rust", "python")


def core_function(name: str, engine: str):
    """The Rust core's ``name`` for ``engine`` ("auto", "rust") or None for the Python loop.

    Raises
    ------
    ValueError
        If ``engine`` is not one of :data:`ENGINES`.
    ImportError
        If ``engine`` is "rust" and the core lacks ``name``.

    Examples
    --------
    >>> core_function("liquid_search", "python") is None, callable(core_function("liquid_search", "auto"))
    (True, True)
    >>> core_function("liquid_search", "gpu")
    Traceback (most recent call last):
    ...
    ValueError: option engine must be 'auto', 'rust' or 'python', got 'gpu'
    """
    if engine not in ENGINES:
        raise ValueError(f"option engine must be 'auto', 'rust' or 'python', got {engine!r}")
    if engine == "python":
        return None
    from ... import _core

    function = getattr(_core, name, None)
    if function is None and engine == "rust":
        raise ImportError(f"collsched._core has no {name}; rebuild the extension")
    return function

__all__ = ["SearchResult", "search", "search_python"]


@dataclass(frozen=True)
class SearchResult:
    """What a search for a schedule of a given length found.

    Attributes
    ----------
    status : Status
        OPTIMAL: ``steps`` is a schedule of the length asked; INFEASIBLE: none
        exists (proved); LIMIT: the budget ran out first.
    steps : tuple of tuple of int
        Transfer indices of each step (empty unless OPTIMAL).
    nodes : int
        Categories visited (the size of the search tree).
    seconds : float
        Wall-clock time of the search.

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import Traffic
    >>> X = Traffic(transfers=(("a", "b", 0),), routes=((0,),), resources=("l",))
    >>> r = search(X, 1)
    >>> r.status.value, r.steps
    ('optimal', ((0,),))
    """

    status: Status
    steps: tuple[tuple[int, ...], ...]
    nodes: int
    seconds: float


def search(traffic: Traffic, length: int, *, budget: int = 2_000_000, symmetry: bool = True,
           engine: str = "auto") -> SearchResult:
    """Look for a schedule of ``traffic`` with exactly ``length`` steps (``length = Λ``: a liquid schedule).

    Parameters
    ----------
    traffic : Traffic
        The transfers and their links.
    length : int
        The number of steps wanted (a schedule can always be padded, so
        "at most" and "exactly" coincide for ``length >= 1``).
    budget : int
        Largest number of categories to visit before giving up (LIMIT).
    symmetry : bool
        Fix one transfer of each step (exact; False: the paper's search).
    engine : {"auto", "rust", "python"}
        The Rust core (auto, when built) or this module's reference.

    Returns
    -------
    SearchResult

    Raises
    ------
    ValueError
        If ``length`` < 0, ``budget`` < 1 or ``engine`` is unknown.

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import Traffic
    >>> X = Traffic(transfers=(("a", "b", 0), ("c", "b", 0)), routes=((0, 1), (2, 1)), resources=("la", "lb", "lc"))
    >>> search(X, 2).steps
    ((0,), (1,))
    """
    if length < 0:
        raise ValueError(f"option length must be >= 0, got {length}")
    if budget < 1:
        raise ValueError(f"option budget must be >= 1, got {budget}")
    liquid_search = core_function("liquid_search", engine)
    if liquid_search is not None:
        t0 = time.perf_counter()
        code, steps, nodes = liquid_search([list(r) for r in traffic.routes], len(traffic.resources),
                                           length, budget, symmetry)
        status = {0: Status.OPTIMAL, 1: Status.INFEASIBLE, 2: Status.LIMIT}[code]
        return SearchResult(status, tuple(tuple(s) for s in steps), nodes, time.perf_counter() - t0)
    return search_python(traffic, length, budget=budget, symmetry=symmetry)


def search_python(traffic: Traffic, length: int, *, budget: int = 2_000_000, symmetry: bool = True) -> SearchResult:
    """The reference search in pure Python (the same tree as the Rust core).

    Parameters
    ----------
    traffic : Traffic
    length : int
    budget : int
    symmetry : bool
        As for :func:`search`.

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective, traffic_of
    >>> X = traffic_of(figure1_platform(), figure1_collective())
    >>> search_python(X, 6, symmetry=False).status.value
    'optimal'
    """
    t0 = time.perf_counter()
    conflicts, links = traffic.conflicts, traffic.link_masks
    routes = traffic.routes
    n_res = len(traffic.resources)
    dead: set[tuple[int, int]] = set()
    chosen: list[int] = []

    class Budget(Exception):
        pass

    class Counter(list):  # counts categories, stops the search past the budget
        def __setitem__(self, k, v):
            if v > budget:
                raise Budget
            super().__setitem__(k, v)

    counter = Counter([0])

    def rec(X: int, r: int) -> bool:
        if not X:
            return True
        if r == 0 or (X, r) in dead:
            return False
        loads = [0] * n_res
        for i in bits(X):
            for res in routes[i]:
                loads[res] += 1
        if max(loads) > r:
            dead.add((X, r))
            return False
        need = sum(1 << res for res, load in enumerate(loads) if load == r)
        # urgency of each transfer: the summed load of its resources (the most loaded first)
        score = [0] * len(routes)
        for i in bits(X):
            score[i] = sum(loads[res] for res in routes[i])
        pick = None
        if symmetry:
            cands = [i for i in bits(X) if links[i] & need] if need else list(bits(X))
            pick = max(cands, key=lambda i: (score[i], -i))
        for team in iter_full_teams(X, conflicts, links, need, counter, containing=pick, score=score):
            chosen.append(team)
            if rec(X & ~team, r - 1):
                return True
            chosen.pop()
        dead.add((X, r))
        return False

    everything = (1 << len(traffic)) - 1
    try:
        found = rec(everything, length) if len(traffic) else True
    except Budget:
        return SearchResult(Status.LIMIT, (), counter[0], time.perf_counter() - t0)
    if not found:
        return SearchResult(Status.INFEASIBLE, (), counter[0], time.perf_counter() - t0)
    steps = tuple(tuple(bits(t)) for t in chosen)
    return SearchResult(Status.OPTIMAL, steps, counter[0], time.perf_counter() - t0)
