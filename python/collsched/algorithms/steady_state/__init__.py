"""Steady-state scheduling of series of scatters, all-to-alls, reduces, broadcasts, all-gathers, reduce-scatters
and all-reduces (seed 000).

Two port models (``ports=``): seed 000's one-port nodes, or every link
direction its own capacity (GPU fabrics; :func:`.lp_alltoall.port_rows`).

Modules: :mod:`.exact` (HiGHS, exact rational recovery, certificate),
:mod:`.lp_alltoall` (SSPA2A; SSSP, the scatter LP, is its one-source case),
:mod:`.lp_reduce` (SSR; its canonical stages priced by reduction trees in
:mod:`.tree_pricing`), :mod:`.lp_reducescatter` (N reduces, and N
broadcasts for an AllReduce), :mod:`.lp_broadcast` (series of broadcasts
and all-gathers, tree packing), :mod:`.periodic` (period, weighted edge
colouring, slots, the variant without split messages, lowering), :mod:`.trees` (FIND_TREE /
EXTRACT_TREE), :mod:`.baseline` (MPICH binomial reduce, exact throughput)
and :mod:`.plan` (the registered ``steady_state``, with the fixed period of
section 4.6; :mod:`.plan_reductions` lowers ReduceScatters and AllReduces, :mod:`.plan_trees`
plans multi-port AllGathers and commutative ReduceScatters at the cut bound).
"""

from . import plan_reductions, plan_trees  # noqa: F401 (they register their plans)
from .plan import fixed_counts, steady_state

__all__ = ["steady_state", "fixed_counts"]
