"""The registered names of the GPU-collective baselines, one per algorithm, whatever the kind.

NCCL's and MPI's algorithms keep their names across collectives (a
``ring`` all-gather and a ``ring`` all-reduce), and the registry holds one
function per name; each function here takes the collective's kind to the
module that builds it:

======================  ============================  ==========================================
name                    kinds                         built by
======================  ============================  ==========================================
``ring``                allgather, RS, AR             :mod:`.allgather`, :mod:`.rings`
``direct``              allgather, RS, AR             :mod:`.allgather`, :mod:`.reduce_scatter`
``recursive_doubling``  allgather                     :mod:`.allgather`
``halving_doubling``    RS, AR                        :mod:`.halving_doubling`
``double_binary_tree``  AR                            :mod:`.double_binary_tree`
``hierarchical``        allgather, RS, AR             :mod:`.hierarchical`
======================  ============================  ==========================================

(RS: reducescatter, AR: allreduce.) Which keep operand order for
``commutative=False``: ``direct`` and ``double_binary_tree`` (an even
number of participants); ``ring``, ``halving_doubling`` and
``hierarchical`` raise.

Examples
--------
>>> from collsched.algorithms import registry
>>> registry.get("ring").kinds
('allgather', 'reducescatter', 'allreduce')
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> cs.plan(p, cs.AllReduce(participants=p.hosts, size=8e6), algorithm="ring").denominator
4
"""

from __future__ import annotations

from ..registry import register
from . import allgather
from .double_binary_tree import double_binary_tree as _double_binary_tree
from .halving_doubling import halving_doubling as _halving_doubling
from .hierarchical import hierarchical as _hierarchical
from .reduce_scatter import direct as _direct_reduction
from .rings import ring_reduction

__all__ = ["ring", "direct", "recursive_doubling", "halving_doubling", "double_binary_tree", "hierarchical"]

GPU_KINDS = ("allgather", "reducescatter", "allreduce")
REDUCTIONS = ("reducescatter", "allreduce")


@register("ring", family="baselines", kinds=GPU_KINDS,
          summary="NCCL's ring: N-1 steps (all-gather, reduce-scatter) or 2(N-1) (all-reduce); channels= rings")
def ring(platform, collective, *, seed: int = 0, channels: int = 1):
    """NCCL's ring, ``channels`` rings: :func:`.allgather.ring` or :func:`.rings.ring_reduction` by kind.

    Parameters
    ----------
    platform : Platform
    collective : AllGather, ReduceScatter or AllReduce
        Or a series of one.
    seed : int
        Unused.
    channels : int
        Rings sharing the data (``>= 1``).

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> ag, ar = cs.AllGather(participants=p.hosts, size=1), cs.AllReduce(participants=p.hosts, size=1)
    >>> len(ring(p, ag)), len(ring(p, ar))
    (2, 4)
    """
    if collective.base.kind == "allgather":
        return allgather.ring(platform, collective, seed=seed, channels=channels)
    return ring_reduction(platform, collective, seed=seed, channels=channels)


@register("direct", family="baselines", kinds=GPU_KINDS,
          summary="all-pairs: every participant sends every other its block (or the fragment it reduces)")
def direct(platform, collective, *, seed: int = 0):
    """All-pairs: :func:`.allgather.direct` or :func:`.reduce_scatter.direct` by kind.

    Parameters
    ----------
    platform : Platform
    collective : AllGather, ReduceScatter or AllReduce
        Or a series of one.
    seed : int
        Unused.

    Returns
    -------
    OrderSchedule (all-gather) or StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> direct(p, cs.AllGather(participants=p.hosts, size=1)).n_transfers
    6
    >>> direct(p, cs.ReduceScatter(participants=p.hosts, size=1)).n_transfers
    6
    """
    if collective.base.kind == "allgather":
        return allgather.direct(platform, collective, seed=seed)
    return _direct_reduction(platform, collective, seed=seed)


@register("recursive_doubling", family="baselines", kinds=("allgather",),
          summary="MPICH's recursive doubling: log2 N exchanges of doubling block sets (+2 fix-up steps)")
def recursive_doubling(platform, collective, *, seed: int = 0):
    """MPICH's recursive-doubling all-gather (:func:`.allgather.recursive_doubling`).

    Parameters
    ----------
    platform : Platform
    collective : AllGather
        Or a series of one.
    seed : int
        Unused.

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(8)
    >>> len(recursive_doubling(p, cs.AllGather(participants=p.hosts, size=1)))
    3
    """
    return allgather.recursive_doubling(platform, collective, seed=seed)


@register("halving_doubling", family="baselines", kinds=REDUCTIONS,
          summary="Rabenseifner (MPICH): recursive halving reduce-scatter, recursive doubling all-gather")
def halving_doubling(platform, collective, *, seed: int = 0):
    """Rabenseifner's reduce-scatter / all-reduce (:func:`.halving_doubling.halving_doubling`).

    Parameters
    ----------
    platform : Platform
    collective : ReduceScatter or AllReduce
        Or a series of one; commutative.
    seed : int
        Unused.

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(8)
    >>> len(halving_doubling(p, cs.AllReduce(participants=p.hosts, size=8)))
    6
    """
    return _halving_doubling(platform, collective, seed=seed)


@register("double_binary_tree", family="baselines", kinds=("allreduce",),
          summary="NCCL's double binary tree: two complementary trees, each reducing and broadcasting half")
def double_binary_tree(platform, collective, *, seed: int = 0, chunks: int = 4):
    """NCCL's double binary tree all-reduce (:func:`.double_binary_tree.double_binary_tree`).

    Parameters
    ----------
    platform : Platform
    collective : AllReduce
        Or a series of one.
    seed : int
        Unused.
    chunks : int
        Pipelined pieces per half (``>= 1``).

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> double_binary_tree(p, cs.AllReduce(participants=p.hosts, size=8), chunks=2).denominator
    4
    """
    return _double_binary_tree(platform, collective, seed=seed, chunks=chunks)


@register("hierarchical", family="baselines", kinds=GPU_KINDS,
          summary="two levels: rings inside each box (platform clusters) and across boxes among same-index GPUs")
def hierarchical(platform, collective, *, seed: int = 0, channels: int = 1):
    """Intra-box and inter-box rings (:func:`.hierarchical.hierarchical`).

    Parameters
    ----------
    platform : Platform
        Its clusters are the boxes.
    collective : AllGather, ReduceScatter or AllReduce
        Or a series of one.
    seed : int
        Unused.
    channels : int
        Rings per group (``>= 1``).

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.dgx_a100(2)
    >>> len(hierarchical(g, cs.AllReduce(participants=g.hosts, size=8)))
    16
    """
    return _hierarchical(platform, collective, seed=seed, channels=channels)
