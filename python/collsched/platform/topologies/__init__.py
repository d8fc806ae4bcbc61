"""Topology generators: functions that build a sealed :class:`~collsched.platform.Platform`.

One module per family; every generator takes its size arguments first, then
keyword-only options (validated before any work: a bad value raises
:class:`~collsched.errors.PlatformError` naming the option), names hosts
``h0``, ``h1``, ... in rank order, and is deterministic: heterogeneous values
given as ``(low, high)`` ranges, and random topologies, are drawn from
``numpy.random.default_rng(seed)``.

=========================  ==========================================================
generator                  platform
=========================  ==========================================================
:func:`star`               hosts on one switch
:func:`two_switches`       two switches of hosts and the link between them
:func:`fully_connected`    a private link per pair of hosts (values may be matrices)
:func:`hypercube`          binary hypercube, e-cube routing
:func:`torus`              2-D/3-D torus, shortest-path or dimension-order routing
:func:`fat_tree`           two-level leaf-spine fat tree, d-mod-k routing
:func:`switch_ring`        ring of switches with chords (K-ring-like, Swiss-T1)
:func:`grid_of_clusters`   switched clusters joined by a WAN, with ``clusters``
:func:`tiers`              random WAN/MAN/LAN internetwork after Doar's Tiers
:func:`dgx2`               DGX-2 chassis after TE-CCL: NVSwitch, one-way links between chassis
:func:`ndv2`               Azure NDv2 chassis after TE-CCL: NVLink cube-mesh, GPU 0 -> GPU 1 out
:func:`dgx_a100`           DGX A100 nodes after ForestColl: NVSwitch, a NIC per GPU, 2 IB switches
:func:`mi250`              AMD MI250 nodes after ForestColl: xGMI mesh, one IB switch
=========================  ==========================================================

Examples
--------
>>> from collsched.platform import topologies
>>> topologies.star(4).hosts
('h0', 'h1', 'h2', 'h3')
>>> topologies.hypercube(2, bandwidth=(1e8, 2e8), seed=7) == topologies.hypercube(2, bandwidth=(1e8, 2e8), seed=7)
True
"""

from .basic import fully_connected, star, two_switches
from .fat_tree import fat_tree
from .gpu import dgx2, dgx_a100, mi250, ndv2
from .grid import grid_of_clusters
from .hypercube import hypercube
from .ring import switch_ring
from .tiers import tiers
from .torus import torus

__all__ = ["star", "two_switches", "fully_connected", "hypercube", "torus", "fat_tree", "switch_ring",
           "grid_of_clusters", "tiers", "dgx2", "ndv2", "dgx_a100", "mi250"]
