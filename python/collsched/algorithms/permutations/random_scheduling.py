"""Random scheduling avoiding node (and link) contention: RS_N, RS_NL, RS_NP, RS_NLP.

Seed 002, sections 4.2 and 5 (Figures 3 and 4). Step 1 compresses COM into
``CCOM`` (each row's destinations in random order); then every phase starts
at a random row ``x`` and, for rows ``x, x+1, ...`` (mod n), takes the first
entry of the row whose destination does not receive yet (``RS_N``), and
whose route is free in this phase (``Check_Path`` / ``Mark_Path``, ``L``);
with ``P``, ``Locate_Pair(x)`` first pairs up exchanges ``i -> k``,
``k -> i``. A taken entry is replaced by the row's last one (no holes).
The loops run in the Rust core.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.hypercube(3)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> [len(cs.plan(p, c, algorithm=a, seed=2)) >= 7 for a in ("rs_n", "rs_nl", "rs_np", "rs_nlp")]
[True, True, True, True]
"""

from __future__ import annotations

import numpy as np

from ... import _core
from ...schedules import StepSchedule
from ..registry import register
from .common import check_kind, com_matrix, route_resources, steps_from_pieces, with_bound

__all__ = ["rs_n", "rs_nl", "rs_np", "rs_nlp", "decompose"]

_EMPTY = np.zeros(0, dtype=np.int64)


def decompose(platform, collective, *, name: str, pairs: bool, links: bool, seed: int,
              heap_k: int | None = None, denominator: int = 1) -> StepSchedule:
    """Run the Rust decomposition with the paper's letters as flags; the schedule of its pieces.

    Parameters
    ----------
    platform : Platform
        Its hosts are ``P_0 .. P_{n-1}``; with ``links``, its routes give ``Check_Path``.
    collective : AllToMany or AllToAll
    name : str
        The algorithm name recorded in the schedule.
    pairs, links : bool
        ``Locate_Pair`` (P); ``Check_Path`` / ``Mark_Path`` (L).
    seed : int
        Seed of the random row orders and start rows.
    heap_k : int, optional
        Heap variant (H): ``M_thresh`` is the ``heap_k``-th smallest size of the phase.
    denominator : int
        Units per message for the heap variant's parts.

    Returns
    -------
    StepSchedule
        ``params`` holds ``phases`` and ``max_degree`` (a lower bound on the phases).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.AllToMany({("h0", "h1"): 1, ("h1", "h0"): 1, ("h2", "h3"): 1})
    >>> s = decompose(p, c, name="rs_np", pairs=True, links=False, seed=0)
    >>> len(s), dict(s.params)["max_degree"]
    (1, 1)
    """
    com = com_matrix(platform, check_kind(collective, name))
    if links:
        path_ptr, path, n_res = route_resources(platform, com)
    else:
        path_ptr, path, n_res = np.zeros(len(com.src) + 1, dtype=np.int64), _EMPTY, 0
    msg, phase, start, end = _core.decompose_permutations(
        com.n, com.row_ptr, com.dst, com.size, path_ptr, path, n_res, pairs=pairs, links=links,
        heap_k=heap_k, denominator=denominator, seed=int(seed) % 2**64)
    n_phases = int(phase.max()) + 1 if len(phase) else 0
    params = {"seed": seed, "phases": n_phases, "max_degree": com.max_degree}
    if heap_k is not None:
        params.update(lam=heap_k / com.n, denominator=denominator)
    return with_bound(steps_from_pieces(com, msg, phase, start, end, denominator=denominator if heap_k is not None
                                        else 1, algorithm=name, params=params), platform, collective)


_DOC = """{title}

    Seed 002, {where}. {what}

    Parameters
    ----------
    platform : Platform
        Its hosts, in order, are the paper's ``P_0 .. P_{{n-1}}``{routes}.
    collective : AllToMany or AllToAll
        The COM matrix (any sizes; every message goes whole).
    seed : int
        Seed of the random ``CCOM`` row orders and of each phase's start row.

    Returns
    -------
    StepSchedule
        Disjoint partial permutations{link_disjoint}; ``params["phases"]`` and
        ``params["max_degree"]`` (no schedule has fewer phases).

    Raises
    ------
    CollectiveError
        If the collective is not an all-to-many or all-to-all.

    Notes
    -----
    Per phase ``O(n d)`` worst case; the paper proves an expected
    ``O(n ln d + n)`` per phase and at most ``d + log d`` phases for RS_N on
    random ``d``-regular patterns.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.hypercube(3)
    >>> c = cs.AllToMany({{("h0", "h1"): 1e3, ("h1", "h0"): 1e3, ("h0", "h3"): 1e3, ("h2", "h1"): 1e3}})
    >>> s = {name}(p, c, seed=0)
    >>> len(s) >= s.params["max_degree"], s.n_transfers
    (True, 4)
    >>> cs.validate(p, c, s)

    References
    ----------
    S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", Syracuse University, 1993 (seed 002).
    """


def _doc(name, title, where, what, links):
    return _DOC.format(name=name, title=title, where=where, what=what,
                       routes="; its routes (e-cube on a hypercube) give ``Check_Path``" if links else "",
                       link_disjoint=", and within a phase no two routes share a link direction" if links else "")


@register("rs_n", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="random scheduling avoiding node contention (seed 002, RS_N)")
def rs_n(platform, collective, *, seed: int = 0) -> StepSchedule:
    return decompose(platform, collective, name="rs_n", pairs=False, links=False, seed=seed)


@register("rs_nl", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="RS_N plus Check_Path/Mark_Path: no link contention (seed 002, RS_NL)")
def rs_nl(platform, collective, *, seed: int = 0) -> StepSchedule:
    return decompose(platform, collective, name="rs_nl", pairs=False, links=True, seed=seed)


@register("rs_np", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="RS_N plus Locate_Pair: pairwise exchanges first (seed 002, RS_NP)")
def rs_np(platform, collective, *, seed: int = 0) -> StepSchedule:
    return decompose(platform, collective, name="rs_np", pairs=True, links=False, seed=seed)


@register("rs_nlp", family="permutations", kinds=("alltomany", "alltoall"), series=False,
          summary="RS_N with Locate_Pair and Check_Path/Mark_Path (seed 002, RS_NLP)")
def rs_nlp(platform, collective, *, seed: int = 0) -> StepSchedule:
    return decompose(platform, collective, name="rs_nlp", pairs=True, links=True, seed=seed)


rs_n.__doc__ = _doc("rs_n", "RS_N: random scheduling avoiding node contention.", "section 4.2, Figure 3",
                    "Every phase is a partial permutation.", False)
rs_nl.__doc__ = _doc("rs_nl", "RS_NL: random scheduling avoiding node and link contention.", "section 7.1",
                     "RS_N with ``Check_Path`` / ``Mark_Path`` on the routed view.", True)
rs_np.__doc__ = _doc("rs_np", "RS_NP: random scheduling avoiding node contention, pairwise exchanges first.",
                     "section 7.1", "RS_N with ``Locate_Pair`` at the start of each phase.", False)
rs_nlp.__doc__ = _doc("rs_nlp", "RS_NLP: random scheduling avoiding node and link contention, with pairwise exchanges.",
                      "section 5, Figure 4", "``Locate_Pair``, then ``Check_Path`` / ``Mark_Path``.", True)
