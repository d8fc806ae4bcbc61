"""Intra-cluster broadcast: the pLogP cost models of seed 003's Table 1, their trees, and the choice per cluster.

Inside a homogeneous logical cluster of ``P`` hosts, with pLogP parameters
``L`` and ``g(m)``, a message of ``m`` bytes cut into ``k`` segments of
``s = m / k`` bytes costs (Table 1, formulas as printed):

==========================  =====================================================
``flat``                    ``L + (P-1) g(m)``
``segmented_flat``          ``L + (P-1) g(s) k``
``chain``                   ``(P-1) (g(m) + L)``
``pipelined_chain``         ``(P-1) (g(s) + L) + g(s) (k-1)``
``binary``                  ``ceil(log2 P) (2 g(m) + L)`` (an upper bound)
``binomial``                ``ceil(log2 P) L + floor(log2 P) g(m)``
``segmented_binomial``      ``ceil(log2 P) L + floor(log2 P) g(s) k``
``k_chain`` (degree ``d``)  ``(d + ceil((P-(2d+1)) / (2d+1))) (g(s) + L) + g(s) (k-1)``
``scatter_allgather``       ``(log2 P + P - 1) L + 2 ((P-1)/P) g(m)``
==========================  =====================================================

Each is also a tree over relative ranks ``0 .. P-1`` (0 is the cluster's
coordinator), lowered by :class:`~collsched.schedules.TreeSchedule`:
``scatter_allgather`` (van de Geijn's scatter then collection) scatters
``P`` blocks down a binomial tree and then runs a ring all-gather, which the
hierarchical lowering of trees.py builds.

:func:`choose` searches, for the segmented models, ``k = 2^i`` (``s = m /
2^i``, seed 003 section 5.1) and then a local hill-climb on ``k``
(Kielmann et al.), and returns the fastest model.

References
----------
Seed 003, section 5.1 and Table 1. T. Kielmann, H. E. Bal, S. Gorlatch,
K. Verstoep, R. Hofman, "Network performance-aware collective communication
for clustered wide-area systems", Parallel Computing 27(11), 2001.
M. Barnett, D. G. Payne, R. van de Geijn, J. Watts, "Broadcasting on meshes
with wormhole routing", JPDC 35(2), 1996.

Examples
--------
>>> from collsched.simulation.plogp import Piecewise, PLogPParams
>>> gige = PLogPParams(L=5e-5, g=Piecewise.linear(2e-5, 8e-9))
>>> round(cost("binomial", 8, 1e6, gige), 6)
0.02421
>>> choose(50, 1e6, gige).algorithm
'scatter_allgather'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from ...schedules.trees import INTRA_MODELS
from ...simulation.plogp import PLogPParams
from ..baselines.binomial import binomial_children

__all__ = ["MODELS", "CHOICE", "SEGMENTED", "K_CHAIN_DEGREE", "IntraChoice", "cost", "children", "choose", "spec"]

#: The models of Table 1, by name (the names a hierarchical TreeSchedule lowers).
MODELS = INTRA_MODELS
#: Those that cut the message into segments.
SEGMENTED = ("segmented_flat", "pipelined_chain", "segmented_binomial", "k_chain")
#: The models :func:`choose` picks from by default: all but ``k_chain``, whose printed formula charges one
#: ``g(s)`` per segment although the coordinator feeds ``d`` chains (it underestimates our k-chain by ~1.9x).
CHOICE = tuple(m for m in MODELS if m != "k_chain")
#: The degree ``d`` of the k-chain (number of chains the coordinator feeds).
K_CHAIN_DEGREE = 2


def cost(model: str, P: int, m: float, params: PLogPParams, segments: int = 1) -> float:
    """Table 1's predicted broadcast time of ``model`` on ``P`` hosts.

    Parameters
    ----------
    model : str
        One of :data:`MODELS`.
    P : int
        Hosts in the cluster (the coordinator included).
    m : float
        Message size in bytes.
    params : PLogPParams
        The cluster's pLogP parameters (``L`` and ``g``).
    segments : int
        ``k``, for the models of :data:`SEGMENTED` (``s = m / k``).

    Returns
    -------
    float
        Seconds; 0 for one host.

    Raises
    ------
    ValueError
        If ``model`` is unknown.

    Examples
    --------
    >>> from collsched.simulation.plogp import PLogPParams
    >>> p = PLogPParams(L=1.0, g=([0, 1], [0, 1]))
    >>> [cost(name, 4, 8, p, segments=2) for name in MODELS]
    [25.0, 25.0, 27.0, 19.0, 34.0, 18.0, 18.0, 14.0, 17.0]
    """
    if model not in MODELS:
        raise ValueError(f"intra-cluster model {model!r} is not one of {MODELS}")
    if P <= 1:
        return 0.0
    k = segments if model in SEGMENTED else 1
    L, gm, gs = params.L, float(params.g(m)), float(params.g(m / k))
    up, down = math.ceil(math.log2(P)), math.floor(math.log2(P))
    d = K_CHAIN_DEGREE
    return {
        "flat": lambda: L + (P - 1) * gm,
        "segmented_flat": lambda: L + (P - 1) * gs * k,
        "chain": lambda: (P - 1) * (gm + L),
        "pipelined_chain": lambda: (P - 1) * (gs + L) + gs * (k - 1),
        "binary": lambda: up * (2 * gm + L),
        "binomial": lambda: up * L + down * gm,
        "segmented_binomial": lambda: up * L + down * gs * k,
        "k_chain": lambda: (d + math.ceil((P - (2 * d + 1)) / (2 * d + 1))) * (gs + L) + gs * (k - 1),
        "scatter_allgather": lambda: (math.log2(P) + P - 1) * L + 2 * ((P - 1) / P) * gm,
    }[model]()


def children(model: str, P: int) -> dict[int, list[int]]:
    """The tree of ``model`` over relative ranks ``0 .. P-1`` (0 is the root), children in send order.

    Parameters
    ----------
    model : str
        One of :data:`MODELS` (``scatter_allgather``: its scatter tree, a binomial tree).
    P : int
        Number of hosts.

    Returns
    -------
    dict of int to list of int

    Examples
    --------
    >>> children("chain", 3), children("binary", 5), children("k_chain", 5)
    ({0: [1], 1: [2]}, {0: [1, 2], 1: [3, 4]}, {0: [1, 3], 1: [2], 3: [4]})
    """
    if model not in MODELS:
        raise ValueError(f"intra-cluster model {model!r} is not one of {MODELS}")
    if model in ("flat", "segmented_flat"):
        out = {0: list(range(1, P))}
    elif model in ("chain", "pipelined_chain"):
        out = {i: [i + 1] for i in range(P - 1)}
    elif model == "binary":
        out = {i: [c for c in (2 * i + 1, 2 * i + 2) if c < P] for i in range(P)}
    elif model == "k_chain":
        # the root feeds K_CHAIN_DEGREE chains of consecutive ranks, as long as one another
        d = min(K_CHAIN_DEGREE, P - 1)
        bounds = [1 + (P - 1) * c // d for c in range(d + 1)] if d else [1]
        out = {0: [bounds[c] for c in range(d)]}
        for c in range(d):
            out.update({i: [i + 1] for i in range(bounds[c], bounds[c + 1] - 1)})
    else:
        out = binomial_children(P, largest_first=True)
    return {u: cs for u, cs in out.items() if cs}


@dataclass(frozen=True)
class IntraChoice:
    """The model chosen for one cluster.

    Attributes
    ----------
    algorithm : str
        One of :data:`MODELS`.
    segments : int
        ``k`` (1 for the unsegmented models).
    time : float
        Its predicted time (Table 1), seconds.

    Examples
    --------
    >>> IntraChoice("chain", 1, 2.0).spec
    'chain:1'
    """

    algorithm: str
    segments: int
    time: float

    @property
    def spec(self) -> str:
        """``"model:k"``, as the ``intra`` field of a hierarchical TreeSchedule records it.

        Examples
        --------
        >>> IntraChoice("pipelined_chain", 16, 0.1).spec
        'pipelined_chain:16'
        """
        return spec(self.algorithm, self.segments)


def spec(model: str, segments: int) -> str:
    """The ``intra`` entry of a hierarchical TreeSchedule: ``"model:k"`` (read back by
    :func:`collsched.schedules.trees.parse_intra`).

    Examples
    --------
    >>> spec("binomial", 1)
    'binomial:1'
    """
    return f"{model}:{segments}"


def _best_segments(model: str, P: int, m: float, params: PLogPParams, max_segments: int) -> tuple[int, float]:
    # step 1: s = m / 2^i, i = 0 .. log2(m), as long as k = 2^i stays within max_segments
    top = max(0, min(int(math.log2(max(m, 1.0))), int(math.log2(max_segments))))
    times = [(cost(model, P, m, params, 2 ** i), 2 ** i) for i in range(top + 1)]
    best_t, best_k = min(times)
    # step 2: local hill-climb on k from the best power of two
    while True:
        moves = [(cost(model, P, m, params, k), k) for k in (best_k - 1, best_k + 1) if 1 <= k <= max_segments]
        t, k = min(moves) if moves else (best_t, best_k)
        if t >= best_t:
            return best_k, best_t
        best_t, best_k = t, k


def choose(P: int, m: float, params: PLogPParams, *, models: Sequence[str] = CHOICE,
           max_segments: int = 64) -> IntraChoice:
    """The fastest model of Table 1 for a cluster, its segment count and predicted time.

    Parameters
    ----------
    P : int
        Hosts in the cluster.
    m : float
        Message size (bytes).
    params : PLogPParams
        The cluster's pLogP parameters.
    models : sequence of str
        The candidates (default: :data:`CHOICE`, every model but ``k_chain``).
    max_segments : int
        Largest ``k`` the segment search tries (it bounds the program size).

    Returns
    -------
    IntraChoice
        Ties go to the earlier model of ``models``; a one-host cluster gets
        ``binomial`` with time 0.

    Raises
    ------
    ValueError
        If a model is unknown or ``max_segments < 1``.

    Notes
    -----
    ``O(|models| (log m + climb))`` formula evaluations.

    Examples
    --------
    >>> from collsched.simulation.plogp import Piecewise, PLogPParams
    >>> slow = PLogPParams(L=1e-3, g=Piecewise.linear(1e-4, 1e-7))
    >>> c = choose(8, 1e6, slow, models=("chain", "pipelined_chain"))
    >>> c.algorithm, c.segments, round(c.time, 4)
    ('pipelined_chain', 64, 0.1234)
    """
    if isinstance(max_segments, bool) or not isinstance(max_segments, int) or max_segments < 1:
        raise ValueError(f"intra option max_segments={max_segments!r} is not an integer >= 1")
    for name in models:
        if name not in MODELS:
            raise ValueError(f"intra-cluster model {name!r} is not one of {MODELS}")
    if P <= 1:
        return IntraChoice("binomial", 1, 0.0)
    best = None
    for name in models:
        k, t = _best_segments(name, P, m, params, max_segments) if name in SEGMENTED else \
            (1, cost(name, P, m, params))
        if best is None or t < best.time:
            best = IntraChoice(name, k, t)
    return best
