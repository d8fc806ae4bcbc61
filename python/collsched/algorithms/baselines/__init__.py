"""Baselines from MPI libraries and NCCL, so that real schedules flow end to end.

``binomial`` (reduce, broadcast, scatter, gather), ``linear`` (flat trees),
``caterpillar`` (all-to-all); for the GPU collectives (all-gather,
reduce-scatter, all-reduce) ``ring``, ``direct``, ``recursive_doubling``,
``halving_doubling``, ``double_binary_tree`` and ``hierarchical``,
registered by :mod:`.dispatch`.
"""

from .binomial import binomial, binomial_children
from .caterpillar import caterpillar
from .dispatch import direct, double_binary_tree, halving_doubling, hierarchical, recursive_doubling, ring
from .linear import linear

__all__ = ["binomial", "binomial_children", "linear", "caterpillar", "ring", "direct", "recursive_doubling",
           "halving_doubling", "double_binary_tree", "hierarchical"]
