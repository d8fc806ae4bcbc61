"""Baselines from MPI libraries, so that real schedules flow end to end.

``binomial`` (reduce, broadcast, scatter, gather), ``linear`` (flat trees)
and ``caterpillar`` (all-to-all).
"""

from .binomial import binomial, binomial_children
from .caterpillar import caterpillar
from .linear import linear

__all__ = ["binomial", "binomial_children", "linear", "caterpillar"]
