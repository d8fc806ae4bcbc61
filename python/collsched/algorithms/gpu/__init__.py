"""Throughput-optimal AllGather and ReduceScatter on multi-port GPU fabrics (ForestColl's method).

Modules: :mod:`.capacity` (the exact integer capacity digraph),
:mod:`.cut_bound` (the optimal rate ``x*`` by Dinkelbach's search over
maximum flows), :mod:`.splitting` (switch removal by route-consistent edge
splitting), :mod:`.trees` (spanning trees per root, Edmonds/Lovász) and
:mod:`.forest` (the :class:`Forest` result, :func:`pack_forest` and the
independent checker :func:`check_forest`).
"""

from .cut_bound import cut_bound
from .forest import Forest, Tree, check_forest, pack_forest

__all__ = ["cut_bound", "pack_forest", "check_forest", "Forest", "Tree"]
