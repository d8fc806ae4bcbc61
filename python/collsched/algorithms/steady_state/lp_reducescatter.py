r"""Series of ReduceScatters and AllReduces: ``N`` reduces (and ``N`` broadcasts) sharing one steady-state LP.

A ReduceScatter of participants ``P_0 .. P_{N-1}`` is ``N`` reduces, one
per block: commodity ``j`` reduces every participant's block ``j`` (``size``
bytes; combining two costs ``task_cost / N``, the fragment's share of a
whole-vector combination) to ``P_j``. Each commodity has seed 000's SSR
columns and conservation rows (:func:`~.lp_reduce.reduce_rows`: partial
results ``v[k..m]`` of adjacent operand intervals, computations
``T(k,l,m)``); all run at the one rate ``TP`` and share the port rows
(one-port per node, or a capacity per link direction) and the computation
rows ``Σ_j Σ cons_j · w <= 1`` per host.

An AllReduce (``size`` the whole vector, block ``size / N``) adds the ``N``
broadcasts of an AllGather of the reduced blocks (``P_j`` broadcasts block
``j``; :func:`~.lp_broadcast.broadcast_rows`), at the same rate, sharing the
same ports. In steady state the AllGather of period ``t`` sends the results
of earlier periods' reductions, so both halves run at once.

**What the optimum is optimal over.** Over every periodic schedule whose
reductions follow *interval* reduction trees (seed 000's model: only
adjacent partial results combine, which is all a non-commutative operator
allows) and, for an AllReduce, whose results are then spread by broadcast
trees from ``P_j`` (the ReduceScatter-then-AllGather strategy). With
``commutative=False`` that is every ReduceScatter schedule (certified
optimum). With a commutative operator a schedule may combine any disjoint
sets, which the LP does not model: its optimum is then achievable but not
proven the best (under ``ports="multi"`` the planner uses the cut bound for
a commutative ReduceScatter instead, :mod:`.forest_reductions`). For an
AllReduce the optimum is never a bound over all AllReduce algorithms (a
schedule need not reduce each block at one participant first).

Examples
--------
Three hosts pairwise connected at 1 byte/s, one-port, blocks of 1 byte, no
computation cost: each host must send its two foreign blocks (alone or
combined) and receive two, so 2 s per ReduceScatter at best, which the LP
reaches:

>>> import collsched as cs
>>> p = cs.topologies.fully_connected(3, bandwidth=1, latency=0, speed=1)
>>> r = solve_reducescatter(p, cs.ReduceScatter(participants=p.hosts, size=1, commutative=False))
>>> r.throughput, r.solution.certified, [c.target for c in r.reduces]
(Fraction(1, 2), True, ['h0', 'h1', 'h2'])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ...collectives import AllReduce, ReduceScatter
from ...schedules.base import Status
from .canonical import solve_canonical
from .exact import LinearProgram, LPSolution, SteadyStateError
from .lp_alltoall import Network, check_ports, network
from .lp_broadcast import BroadcastSolution, broadcast_rows
from .lp_reduce import ReduceSolution, finish_rows, reduce_rows

__all__ = ["BlockReduce", "ReductionsSolution", "reductions_lp", "solve_reducescatter", "solve_allreduce"]


@dataclass(frozen=True)
class BlockReduce:
    """Commodity ``j`` of a ReduceScatter or AllReduce: block ``j`` of every operand, reduced to ``target``.

    Duck-types the :class:`~collsched.collectives.Reduce` that
    :func:`~.lp_reduce.reduce_rows` and :func:`~.trees.extract_trees` read,
    with exact sizes.

    Attributes
    ----------
    participants : tuple of str
        Operand order.
    target : str
        ``P_j``.
    block : Fraction
        Bytes of every partial result (one block).
    cost : Fraction
        Flop of one combination (of one block).
    index : int
        ``j``.

    Examples
    --------
    >>> b = BlockReduce(("h0", "h1"), "h1", Fraction(4), Fraction(3), 1)
    >>> b.partial_size(0, 1), b.task_cost_of(0, 0, 1)
    (Fraction(4, 1), Fraction(3, 1))
    """

    participants: tuple
    target: str
    block: Fraction
    cost: Fraction
    index: int

    def partial_size(self, k: int, m: int) -> Fraction:
        """Bytes of ``v[k..m]``: one block.

        Examples
        --------
        >>> BlockReduce(("h0", "h1"), "h1", Fraction(4), Fraction(3), 1).partial_size(0, 0)
        Fraction(4, 1)
        """
        return self.block

    def task_cost_of(self, k: int, l: int, m: int) -> Fraction:
        """Flop of ``T(k,l,m)`` on one block.

        Examples
        --------
        >>> BlockReduce(("h0", "h1"), "h1", Fraction(4), Fraction(3), 1).task_cost_of(0, 0, 1)
        Fraction(3, 1)
        """
        return self.cost


def blocks_of(collective) -> tuple[list[BlockReduce], Fraction]:
    """The ``N`` block reduces of a ReduceScatter or AllReduce, and the block size in bytes.

    Examples
    --------
    >>> import collsched as cs
    >>> bs, block = blocks_of(cs.AllReduce(participants=["h0", "h1"], size=8, task_cost=6))
    >>> block, [(b.target, b.cost) for b in bs]
    (Fraction(4, 1), [('h0', Fraction(3, 1)), ('h1', Fraction(3, 1))])
    """
    hosts = tuple(collective.participants)
    n = len(hosts)
    block = Fraction(collective.size) / (n if isinstance(collective, AllReduce) else 1)
    cost = Fraction(collective.task_cost) / n
    return [BlockReduce(hosts, t, block, cost, j) for j, t in enumerate(hosts)], block


@dataclass
class ReductionsSolution:
    """The exact optimum of the ReduceScatter or AllReduce LP, split by commodity.

    Attributes
    ----------
    throughput : Fraction
        Operations (ReduceScatters or AllReduces) per second.
    reduces : tuple of ReduceSolution
        Commodity ``j``'s reduce to ``P_j`` (its ``send`` and ``cons``
        activities), each with the whole LP's ``throughput``.
    broadcasts : tuple of BroadcastSolution
        AllReduce: ``P_j``'s broadcast of reduced block ``j``; empty for a ReduceScatter.
    blocks : list of BlockReduce
    solution : LPSolution
    size : tuple
    network : Network

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> r = solve_allreduce(p, cs.AllReduce(participants=p.hosts, size=2))
    >>> r.throughput, len(r.reduces), len(r.broadcasts)
    (Fraction(1, 2), 2, 2)
    """

    throughput: Fraction
    reduces: tuple
    broadcasts: tuple
    blocks: list
    solution: LPSolution
    size: tuple
    network: Network


def _build(platform, collective, ports: str):
    """The LP and its column maps: (lp, seconds, network, blocks, per-commodity (send, cons), broadcast columns)."""
    net = network(platform)
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    busy: dict = {}
    compute: dict = {}
    blocks, block = blocks_of(collective)
    cols = [reduce_rows(lp, tp, net, platform, b, busy, compute, tag=("rs", b.index)) for b in blocks]
    bcols = None
    if isinstance(collective, AllReduce):
        hosts = list(collective.participants)
        bcols = broadcast_rows(lp, tp, net, hosts, {r: [t for t in hosts if t != r] for r in hosts}, block, busy,
                               tag=("ag",))
    seconds = finish_rows(lp, net, busy, compute, ports)
    return lp, seconds, net, blocks, cols, bcols


def reductions_lp(platform, collective, *, ports: str = "one") -> LinearProgram:
    """The LP of a ReduceScatter or AllReduce series, for checking activities with :func:`~.exact.objective_of`.

    Columns ``("send", "rs", j, u, v, k, m)``, ``("cons", "rs", j, i, k, l,
    m)``, and for an AllReduce ``("n", "ag", r, u, v)`` and ``("x", "ag", r,
    u, v, t)``; ``"TP"``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> reductions_lp(p, cs.ReduceScatter(participants=p.hosts, size=1)).size
    (12, 15, 34)
    """
    return _build(platform, collective, check_ports(ports))[0]


def _solve(platform, collective, ports: str, time_limit: float) -> ReductionsSolution:
    lp, seconds, net, blocks, cols, bcols = _build(platform, collective, check_ports(ports))
    sol = solve_canonical(lp, seconds, time_limit=time_limit)
    hosts = list(collective.participants)
    if sol.status is not Status.OPTIMAL:
        return ReductionsSolution(Fraction(0), (), (), blocks, sol, lp.size, net)
    if sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths and speeds")
    tp = sol.objective
    reduces = tuple(
        ReduceSolution(tp, {key: sol.x[j] for key, j in scol.items() if sol.x[j]},
                       {key: sol.x[j] for key, j in ccol.items() if sol.x[j]}, sol, lp.size, net, hosts, b.target)
        for b, (scol, ccol) in zip(blocks, cols))
    broadcasts = ()
    if bcols is not None:
        ncol, xcol = bcols
        broadcasts = tuple(
            BroadcastSolution(tp, {(u, v): sol.x[j] for (s, u, v), j in ncol.items() if s == r and sol.x[j]},
                              {(u, v, t): sol.x[j] for (s, u, v, t), j in xcol.items() if s == r and sol.x[j]},
                              sol, lp.size, net, r, [t for t in hosts if t != r])
            for r in hosts)
    return ReductionsSolution(tp, reduces, broadcasts, blocks, sol, lp.size, net)


def solve_reducescatter(platform, collective: ReduceScatter, *, ports: str = "one",
                        time_limit: float = 60.0) -> ReductionsSolution:
    """Build and solve the series-of-ReduceScatters LP exactly (module docstring).

    Parameters
    ----------
    platform : Platform
    collective : ReduceScatter
    ports : {"one", "multi"}
    time_limit : float
        Seconds for HiGHS.

    Returns
    -------
    ReductionsSolution

    Raises
    ------
    SteadyStateError
        If a participant cannot reach another, or the throughput is zero.
    ValueError
        If ``ports`` is not a port model.

    Examples
    --------
    Two hosts, one link of 1 byte/s each way, blocks of 1 byte: each sends
    the other its foreign block, both at once under either port model.

    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> c = cs.ReduceScatter(participants=p.hosts, size=1)
    >>> solve_reducescatter(p, c).throughput, solve_reducescatter(p, c, ports="multi").throughput
    (Fraction(1, 1), Fraction(1, 1))
    """
    return _solve(platform, collective, ports, time_limit)


def solve_allreduce(platform, collective: AllReduce, *, ports: str = "one",
                    time_limit: float = 60.0) -> ReductionsSolution:
    """Build and solve the series-of-AllReduces LP exactly: ReduceScatter and AllGather at one rate.

    Parameters
    ----------
    platform : Platform
    collective : AllReduce
    ports : {"one", "multi"}
    time_limit : float
        Seconds for HiGHS.

    Returns
    -------
    ReductionsSolution
        ``throughput`` is the optimum over interval reduction trees and
        broadcast trees (module docstring), not a bound over all AllReduce
        algorithms.

    Raises
    ------
    SteadyStateError
        If a participant cannot reach another, or the throughput is zero.
    ValueError
        If ``ports`` is not a port model.

    Examples
    --------
    Two hosts, 1 byte/s each way, a 2-byte vector: each sends its foreign
    half (1 s) and gets the reduced half back (1 s).

    >>> import collsched as cs
    >>> p = cs.topologies.fully_connected(2, bandwidth=1, latency=0)
    >>> solve_allreduce(p, cs.AllReduce(participants=p.hosts, size=2)).throughput
    Fraction(1, 2)
    """
    return _solve(platform, collective, ports, time_limit)
