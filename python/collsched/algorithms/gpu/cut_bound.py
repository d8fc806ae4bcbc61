"""The exact optimal AllGather/ReduceScatter rate of a multi-port fabric: ForestColl's cut bound.

With participants ``V_c`` (``N`` of them), each broadcasting its block at
``x`` bytes/s, an AllGather is feasible at rate ``x`` if and only if every
cut ``S`` with ``S ∩ V_c ≠ ∅`` and ``V_c ⊄ S`` has

    x · |S ∩ V_c| <= B⁺(S)          (B⁺(S): capacity of the arcs leaving S),

equivalently, with a super source ``s`` and arcs ``s → v`` of capacity
``x`` for ``v ∈ V_c``, every ``t ∈ V_c`` has ``λ(s, t) >= N · x``
(necessity: the blocks of ``S``'s participants must leave ``S``;
sufficiency: Edmonds' branching theorem on the fabric with switches split
off, :mod:`.splitting`). So ``x* = min_S B⁺(S) / |S ∩ V_c|``.

**Algorithm** (Dinkelbach's parametric search, exact). Start from
``x = min_v B⁺({v})`` (a cut's ratio, so ``x >= x*``). Write ``x = p/q``,
multiply every capacity by ``q`` and give the source arcs ``p``; for each
sink ``t`` compute the maximum flow up to ``N p``. If every sink reaches it,
``x`` is feasible and equals ``x*``. Otherwise a minimum cut ``S`` of a
short sink has ``B⁺(S) < x |S ∩ V_c|``: its ratio is the next ``x``,
strictly smaller. The ratios of finitely many cuts bound the number of
rounds; in practice two or three (``N`` flows each). Everything is integer.

References
----------
L. Zhao, S. Maleki, A. Shah, Z. Yang, H. Pourreza, A. Krishnamurthy.
ForestColl: throughput-optimal collective communications on heterogeneous
network fabrics. arXiv:2402.06787, 2024 (Theorem on the cut bound).
W. Dinkelbach. On nonlinear fractional programming. Management Science
13(7), 1967. https://doi.org/10.1287/mnsc.13.7.492

Examples
--------
>>> from collsched import topologies
>>> x, cut = cut_bound(topologies.dgx2(2), [f"h{i}" for i in range(32)])
>>> x, x * 32 / 10**9, len(cut)
(Fraction(125000000000, 31), Fraction(4000, 31), 33)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from ...platform.model import Platform
from .capacity import capacity_graph, flow_network

__all__ = ["cut_bound", "best_rate"]


def best_rate(n: int, tails: Sequence[int], heads: Sequence[int], capacity: Sequence[int],
              n_compute: int) -> tuple[Fraction, frozenset[int]]:
    """``min_S B⁺(S) / |S ∩ C|`` over cuts leaving a compute node out, on an integer digraph.

    Parameters
    ----------
    n : int
        Number of nodes; nodes ``0 .. n_compute-1`` are the compute nodes ``C``.
    tails, heads, capacity : sequences of int
        The arcs and their integer capacities.
    n_compute : int
        ``|C|``, at least 2.

    Returns
    -------
    (Fraction, frozenset of int)
        The exact minimum ratio (in capacity units) and a cut attaining it.

    Notes
    -----
    Dinkelbach's iteration (module docstring): each round is ``|C|``
    maximum flows (Dinic, :class:`collsched._core.FlowNetwork`) stopped at
    ``N p``.

    Examples
    --------
    A directed triangle of capacity 1 and a reverse arc 0 <- 1 of 2:

    >>> best_rate(3, [0, 1, 2, 1], [1, 2, 0, 0], [1, 1, 1, 2], 3)
    (Fraction(1, 2), frozenset({0, 2}))
    """
    out = [0] * n
    for a, c in zip(tails, capacity):
        out[a] += c
    v0 = min(range(n_compute), key=lambda v: out[v])
    x, cut = Fraction(out[v0]), frozenset([v0])
    s = n
    while x > 0:
        p, q = x.numerator, x.denominator
        net = flow_network(n, tails, heads, [c * q for c in capacity])
        for v in range(n_compute):
            net.add_arc(s, v, p)
        need = n_compute * p
        best = None
        for t in range(n_compute):
            f = net.max_flow([s], [t], need)
            if f < need:
                side = [v for v in net.source_side() if v != s]
                k = sum(1 for v in side if v < n_compute)
                # the min cut's value f = p·(N - k) + q·B⁺(side)
                ratio = Fraction(f - p * (n_compute - k), q * k)
                if best is None or ratio < best[0]:
                    best = (ratio, frozenset(side))
        if best is None:
            return x, cut
        x, cut = best
    return x, cut


def cut_bound(platform: Platform, participants: Sequence[str], *,
              kind: str = "allgather") -> tuple[Fraction, frozenset[str]]:
    """The exact optimal rate ``x*`` (bytes/s per root) of an AllGather or ReduceScatter, and a tightest cut.

    Parameters
    ----------
    platform : Platform
        Multi-port model: every direction of every link is its own capacity;
        routers forward; latencies are ignored.
    participants : sequence of str
        The GPUs (hosts), distinct, at least two.
    kind : {"allgather", "reducescatter"}
        A ReduceScatter is the AllGather of the reversed fabric.

    Returns
    -------
    (Fraction, frozenset of str)
        ``x* = min_S B⁺(S) / |S ∩ V_c|`` exactly (bytes/s of each
        participant's block stream; one AllGather of total output ``M``
        takes at least ``(M / N) / x*``), and a node set ``S`` attaining it
        (for a ReduceScatter, a set whose *entering* capacity is tight).
        Valid for any schedule under the model.

    Raises
    ------
    CollectiveError, PlatformError
        As :func:`~.capacity.capacity_graph`.

    Notes
    -----
    Capacities are converted exactly (``Fraction(float)``, scaled to
    integers); see :func:`best_rate` for the algorithm.

    References
    ----------
    L. Zhao et al. ForestColl, arXiv:2402.06787, 2024.

    Examples
    --------
    One DGX-2 chassis pair as TE-CCL models it: the bound is an odd GPU's
    125 GB/s of ingress shared by its 31 peers' blocks, so a 1 GB AllGather
    takes 7.75 ms (TE-CCL's published optimum):

    >>> from collsched import topologies
    >>> gpus = [f"h{i}" for i in range(32)]
    >>> x, cut = cut_bound(topologies.dgx2(2), gpus)
    >>> float((1e9 / 32) / x)
    0.00775
    >>> sorted(set(gpus) - cut)
    ['h1']
    >>> cut_bound(topologies.dgx2(2), gpus, kind="reducescatter")[0] == x
    True
    """
    g = capacity_graph(platform, participants, kind=kind)
    x, cut = best_rate(len(g.nodes), g.tails, g.heads, g.relaxed, g.n_compute)
    return x / g.scale, frozenset(g.nodes[v] for v in cut)
