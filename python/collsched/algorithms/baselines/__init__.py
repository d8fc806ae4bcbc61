"""Baselines from MPI libraries, so that real schedules flow end to end.

``binomial`` (reduce, broadcast, scatter, gather), ``linear`` (flat trees),
``caterpillar`` (all-to-all), and ``ring``, ``direct`` and
``recursive_doubling`` (all-gather).
"""

from .allgather import direct, recursive_doubling, ring
from .binomial import binomial, binomial_children
from .caterpillar import caterpillar
from .linear import linear

__all__ = ["binomial", "binomial_children", "linear", "caterpillar", "ring", "direct", "recursive_doubling"]
