"""Hierarchical broadcast on grids of clusters (seed 003): intra-cluster model selection and inter-cluster heuristics.

Algorithms (registered names): ``flat_tree``, ``fef``, ``ecef``,
``ecef_la``, ``ecef_lat`` (ECEF-LAt) and ``ecef_lat_max`` (ECEF-LAT), each a
hierarchical :class:`~collsched.schedules.TreeSchedule` for a
:class:`~collsched.collectives.Broadcast` on a platform whose hosts form
logical clusters (:mod:`collsched.platform.clustering`). Modules:
:mod:`.params` (pLogP parameters and the measurement plan), :mod:`.intra`
(Table 1's models and the choice per cluster), :mod:`.inter` (the
heuristics, vectorised over many grids, and the exhaustive optimum),
:mod:`.plan` (the planner). See ``docs/hierarchical.md``.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.grid_of_clusters([2, 2, 1], seed=0)
>>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
>>> for plan in (flat_tree, fef, ecef, ecef_la, ecef_lat, ecef_lat_max):
...     cs.validate(p, c, plan(p, c))
"""

from .inter import HEURISTICS
from .intra import MODELS, IntraChoice, choose
from .params import GridParams, Measurement, MeasurementPlan
from .plan import ecef, ecef_la, ecef_lat, ecef_lat_max, fef, flat_tree, hierarchical_broadcast

__all__ = ["flat_tree", "fef", "ecef", "ecef_la", "ecef_lat", "ecef_lat_max", "hierarchical_broadcast",
           "HEURISTICS", "MODELS", "IntraChoice", "choose", "GridParams", "Measurement", "MeasurementPlan"]
