r"""GPU fabrics: the multi-GPU machines that TE-CCL and ForestColl plan collectives on.

Each generator rebuilds one peer tool's model of a machine, number for
number, as a collsched platform: GPUs are hosts ``h0, h1, ...`` in the
source's GPU order (chassis by chassis), NVSwitches, NICs and InfiniBand
switches are routers, a one-way connection is a ``directed=True`` link, a
two-way one a full-duplex link with the source's bandwidth in each
direction. Routing is shortest path by hop count (deterministic ties): GPU
→ switch → GPU inside an NVSwitch box, GPU → GPU over point-to-point links
(on MI250, a table keeps routes inside a node on xGMI); a route may pass
through a GPU, which forwards, as in the sources' flow models. The sources
plan over the graph, not over routes: the static routes matter to the
routed view and the simulators, the graph view (every link direction a
capacity) to the multi-port LPs. ``clusters`` is the partition of GPUs by
chassis (node).

==========================  ================================================  =====================================
generator                   fabric                                            source
==========================  ================================================  =====================================
:func:`dgx2`                16 V100 per chassis on one NVSwitch; one-way      TE-CCL ``teccl/topologies/dgx2.py``
                            links odd GPU → even GPU between chassis
:func:`ndv2`                8 V100 per chassis, NVLink hybrid cube-mesh;      TE-CCL ``teccl/topologies/ndv2.py``
                            GPU 0 sends, GPU 1 receives between chassis
:func:`dgx_a100`            8 A100 per node on one NVSwitch, a NIC per GPU,   ForestColl ``topologies.py``
                            two InfiniBand switches (NICs by parity)          (``a100_topology``)
:func:`mi250`               16 MI250 GCDs per node, xGMI mesh; every GCD on   ForestColl ``topologies.py``
                            one InfiniBand switch                             (``mi250_topology``)
==========================  ================================================  =====================================

Units. Both sources write bandwidths in GB/s. TE-CCL's GB is 10**9 bytes
(``teccl/examples/json_gen.py`` sizes 1 KB as ``1e-6`` GB and 1 MB as
``1e-3``); ForestColl does not say, and its numbers are the vendors'
decimal link rates (25 GB/s = 200 Gb/s InfiniBand), so 10**9 as well.
collsched uses SI bytes/s: 125 GB/s is ``125e9``.

Latencies. TE-CCL gives a per-link α, taken here as the link latency.
ForestColl models bandwidth only; the latencies of :func:`dgx_a100` and
:func:`mi250` are nominal values borrowed from TE-CCL (each docstring says
which), to be overridden when measured ones are known. Compute speeds are
nominal too (1 Tflop/s): neither source models computation.

References
----------
.. [1] X. Liu, B. Arzani, S. K. R. Kakarla, L. Zhao, V. Liu, M. Castro,
   S. Kandula, L. Marshall, "Rethinking Machine Learning Collective
   Communication as a Multi-Commodity Flow Problem" (TE-CCL), ACM SIGCOMM
   2024, doi:10.1145/3651890.3672249; code: github.com/microsoft/TE-CCL.
.. [2] L. Zhao et al., "ForestColl: Throughput-Optimal Collective
   Communications on Heterogeneous Network Fabrics", arXiv:2402.06787,
   2024; code: github.com/liangyuRain/ForestColl.
.. [3] A. Shah et al., "TACCL: Guiding Collective Algorithm Synthesis using
   Communication Sketches", NSDI 2023 (the inter-chassis GPU pairs of
   TE-CCL's DGX-2 and NDv2 are TACCL's sketches).

Examples
--------
>>> from collsched.platform import topologies
>>> [len(g().hosts) for g in (topologies.dgx2, topologies.ndv2, topologies.dgx_a100, topologies.mi250)]
[32, 16, 16, 32]
"""

from __future__ import annotations

import networkx as nx

from ..model import Platform
from ..routing import RouteTable, ShortestPath
from ._common import MAX_HOSTS, Builder, Options, Spec, Value

__all__ = ["dgx2", "ndv2", "dgx_a100", "mi250"]

GPU_SPEED = 1e12
"""Nominal GPU compute speed in flop/s (the sources model communication only)."""

MAX_DGX2_CHASSIS = 64
"""DGX-2 chassis are joined all-to-all (8 one-way links per ordered pair): the link count grows as chassis**2."""

# NDv2's NVLink hybrid cube-mesh, after TE-CCL teccl/topologies/ndv2.py lines 26-33 (the 8 x 8 block of
# the 16 x 16 matrix, identical for both chassis): code 23 (beta 23 us/MB, two NVLinks, 50 GB/s)
# -> 2 links, code 46 (one NVLink, 25 GB/s) -> 1 link. Pairs (i, j) with i < j, chassis-local GPU indices.
NDV2_NVLINKS = {(0, 1): 2, (0, 2): 1, (0, 3): 1, (0, 4): 2, (1, 2): 1, (1, 3): 2, (1, 5): 1, (2, 3): 2,
                (2, 6): 2, (3, 7): 1, (4, 5): 2, (4, 6): 1, (4, 7): 1, (5, 6): 1, (5, 7): 2, (6, 7): 2}

# MI250's xGMI mesh of 16 GCDs, after ForestColl topologies.py lines 31-48 (MI250_ADJ_MAT, symmetric):
# the number of xGMI links of each pair (i, j), i < j; every GCD has 7.
MI250_XGMI = {(0, 1): 4, (0, 4): 2, (0, 8): 1, (1, 5): 1, (1, 9): 1, (1, 10): 1, (2, 3): 4, (2, 6): 1,
              (2, 9): 1, (2, 10): 1, (3, 7): 2, (3, 11): 1, (4, 5): 4, (4, 6): 1, (5, 6): 1, (5, 7): 1,
              (6, 7): 4, (8, 9): 4, (8, 12): 2, (9, 13): 1, (10, 11): 4, (10, 14): 1, (11, 15): 2,
              (12, 13): 4, (12, 14): 1, (13, 14): 1, (13, 15): 1, (14, 15): 4}


def _mesh_paths(links: dict[tuple[int, int], int], n: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """Fewest-hop paths over a mesh of ``n`` GPUs, for every pair ``(i, j)``, ``i < j``.

    Breadth-first from ``i`` (networkx), each GPU's neighbours in increasing
    order; a GPU keeps the predecessor that reached it first, so ties between
    shortest paths go to the earlier-reached (mostly lower-numbered) GPUs.
    """
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(sorted(links))  # sorted pairs: every node's neighbours in increasing order
    paths = {}
    for i in range(n):
        reached = nx.single_source_shortest_path(g, i)
        paths.update(((i, j), tuple(reached[j])) for j in range(i + 1, n))
    return paths


def _meshes(b: Builder, boxes: int, per_box: int, links: dict[tuple[int, int], int], prefix: str,
            bandwidth: Spec, latency: Spec) -> None:
    """The same GPU mesh in every box: link ``{prefix}{a}-{z}`` per linked pair, ``count`` lanes wide."""
    for box in range(boxes):
        for (i, j), count in links.items():
            a, z = per_box * box + i, per_box * box + j
            b.link(f"{prefix}{a}-{z}", f"h{a}", f"h{z}", _lanes(b, count, bandwidth), latency)


def _lanes(b: Builder, count: int, bandwidth: Spec) -> float:
    """Bandwidth of ``count`` parallel lanes merged into one link (one draw per link)."""
    return count * b.draw(bandwidth)


def dgx2(chassis: int = 2, *, nvswitch_bandwidth: Value = 125e9, nvswitch_latency: Value = 0.35e-6,
         inter_bandwidth: Value = 12.5e9, inter_latency: Value = 2.6e-6, speed: Value = GPU_SPEED,
         seed: int = 0, name: str | None = None) -> Platform:
    r"""NVIDIA DGX-2 chassis as TE-CCL models them: 16 GPUs on one NVSwitch, one-way links between chassis.

    ::

        chassis 0                          chassis 1
        h0 h1 ... h15                      h16 h17 ... h31     GPU h{16c+i} joins nvs{c}
         \ |  ... /                          \  |  ...  /      by link l{16c+i} (full duplex)
           nvs0                                 nvs1
        h1  ---- x1-16 ---->  h16          odd GPU i of chassis c sends to GPU i-1 of
        h17 ---- x17-0 ---->  h0           every other chassis d: link x{16c+i}-{16d+i-1}
        h3  ---- x3-18 ---->  h18          (directed, 8 per ordered pair of chassis)
        ...

    Numbers from TE-CCL's ``teccl/topologies/dgx2.py`` [1]_: 16 GPUs per
    chassis and one switch (lines 8-14: row/column 0 of each 17-node block
    is the switch, joined both ways to each GPU); 125 GB/s on every
    GPU-switch link in each direction (line 25) with α = 0.35 µs (line 28);
    between chassis 12.5 GB/s (line 31) with α = 2.6 µs (line 44) from each
    odd GPU to the even GPU below it in the other chassis (lines 32-44, the
    dict named after TACCL's sketch [3]_). In the machine, each pair of
    GPUs shares one 100 Gb/s InfiniBand NIC, full duplex; TE-CCL splits it
    into an outgoing link at the odd GPU and an incoming one at the even
    GPU, which keeps 12.5 GB/s per pair and direction.

    ``dgx2.py`` fixes ``chassis = 2`` (line 16); for more chassis this
    generator follows the loop of lines 34-44, which joins every ordered
    pair of distinct chassis the same way.

    Parameters
    ----------
    chassis : int
        Number of chassis, 1 .. 64 (one chassis has no inter-chassis link).
    nvswitch_bandwidth, nvswitch_latency : float, str or (low, high)
        Of each GPU-NVSwitch link ``l{k}``, per direction; a range is drawn
        per link. Default 125 GB/s, 0.35 µs.
    inter_bandwidth, inter_latency : float, str or (low, high)
        Of each one-way inter-chassis link. Default 12.5 GB/s, 2.6 µs.
    speed : float, str or (low, high)
        GPU compute speed in flop/s (nominal; a range is drawn per GPU).
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"dgx2-{chassis}"``.

    Returns
    -------
    Platform
        ``16 * chassis`` hosts, routers ``nvs0 ..``, shortest-path routing
        (by hops), ``clusters`` by chassis.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = dgx2(2)
    >>> len(p.hosts), p.routers, len(p.links)
    (32, ('nvs0', 'nvs1'), 48)
    >>> p.route("h2", "h5"), p.bandwidth("h2", "h5")
    (('l2', 'l5'), 125000000000.0)
    >>> p.route("h1", "h16"), p.links["x1-16"].directed, p.bandwidth("h1", "h16")
    (('x1-16',), True, 12500000000.0)
    >>> p.route("h0", "h16"), round(p.latency("h0", "h16"), 9)
    (('l0', 'l1', 'x1-16'), 3.3e-06)
    """
    opt = Options("dgx2")
    chassis = opt.count("chassis", chassis, maximum=MAX_DGX2_CHASSIS)
    nv_bw, nv_lat = opt.link_values(nvswitch_bandwidth, nvswitch_latency, "nvswitch_")
    x_bw, x_lat = opt.link_values(inter_bandwidth, inter_latency, "inter_")
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = [b.hosts(16, sp) for _ in range(chassis)]
    for c, gpus in enumerate(groups):
        b.attach(gpus, b.router(f"nvs{c}"), nv_bw, nv_lat)
    for c in range(chassis):
        for d in range(chassis):
            if c != d:
                for i in range(1, 16, 2):
                    src, dst = 16 * c + i, 16 * d + i - 1
                    b.link(f"x{src}-{dst}", f"h{src}", f"h{dst}", x_bw, x_lat, directed=True)
    return b.build(ShortestPath(), opt.name(name, f"dgx2-{chassis}"), clusters=groups)


def ndv2(chassis: int = 2, *, nvlink_bandwidth: Value = 25e9, nvlink_latency: Value = 0.7e-6,
         inter_bandwidth: Value = 12.5e9, inter_latency: Value = 1.3e-6, speed: Value = GPU_SPEED,
         seed: int = 0, name: str | None = None) -> Platform:
    r"""Azure NDv2 chassis as TE-CCL models them: 8 V100 in a hybrid cube-mesh, GPU 0 → GPU 1 between chassis.

    ::

        chassis 0 (h0..h7)                 chassis 1 (h8..h15)
        NVLink n{a}-{b} per linked pair    (the same mesh, GPU numbers + 8)
        of GPUs (a < b), full duplex:
        25 GB/s x its number of links

        chassis == 2:   h0 ---- x0-9 ---->  h9       one-way, no switch
                        h8 ---- x8-1 ---->  h1
        chassis != 2:   h{8c} -- x{8c}-ib --> ib -- xib-{8c+1} --> h{8c+1}
                        (one-way, through one switch "ib", for every chassis c)

    Numbers from TE-CCL's ``teccl/topologies/ndv2.py`` [1]_. Inside a
    chassis (lines 26-33, the same 8 x 8 block for every chassis) each GPU
    has 6 NVLinks: code 23 marks a pair joined by two NVLinks, 50 GB/s
    (line 18, which overrides the 43.48 GB/s of line 16), code 46 a pair
    joined by one, 25 GB/s (line 19); α = 0.7 µs (line 81). Between
    chassis, code 107 is 12.5 GB/s (line 22) with α = 1.3 µs (line 79).
    The matrix is transposed (line 68) before use, so the 107 entries of
    lines 27 and 35 become one-way links GPU 0 → GPU 1 of the other chassis
    (``h0 → h9``, ``h8 → h1``), TACCL's sketch [3]_ ``{"0": [1]}``. With
    another number of chassis (lines 43-67) every chassis's GPU 0 sends to
    one switch and the switch sends to every chassis's GPU 1, so a transfer
    between chassis takes two 1.3 µs hops.

    Where this departs from the machine the TE-CCL paper evaluates (Azure
    NDv2: one 100 Gb/s InfiniBand NIC per chassis, full duplex, that all 8
    GPUs reach over PCIe, chassis joined by a switched network): only GPU 0
    can send out of a chassis and only GPU 1 can receive, so the other GPUs
    reach the NIC over NVLink through them; the NIC itself is not a node;
    with two chassis there is no switch, the two one-way links join the
    chassis directly. And where it departs from
    ``ndv2.py``: for one chassis the code still adds its switch, fed by
    GPU 0 and feeding GPU 1 of the same chassis (a detour, never a
    shortcut); here one chassis is the NVLink mesh alone. The code's
    ``set_switch_indicies`` also names node 0 as a switch for two chassis,
    where node 0 is GPU 0; this generator keeps it a GPU.

    Parameters
    ----------
    chassis : int
        Number of chassis (>= 1).
    nvlink_bandwidth, nvlink_latency : float, str or (low, high)
        Of one NVLink, per direction (a pair with two NVLinks gets twice the
        bandwidth, on one link ``n{a}-{b}``), and of each NVLink link; a
        range is drawn per link. Default 25 GB/s, 0.7 µs.
    inter_bandwidth, inter_latency : float, str or (low, high)
        Of each one-way inter-chassis link. Default 12.5 GB/s, 1.3 µs.
    speed : float, str or (low, high)
        GPU compute speed in flop/s (nominal; a range is drawn per GPU).
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"ndv2-{chassis}"``.

    Returns
    -------
    Platform
        ``8 * chassis`` hosts, router ``ib`` when ``chassis >= 3``,
        shortest-path routing (by hops), ``clusters`` by chassis.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = ndv2(2)
    >>> len(p.hosts), p.routers, len(p.links)
    (16, (), 34)
    >>> p.links["n0-1"].bandwidth, p.links["n0-2"].bandwidth
    (50000000000.0, 25000000000.0)
    >>> p.route("h0", "h9"), p.route("h9", "h0")
    (('x0-9',), ('n8-9', 'x8-1', 'n0-1'))
    >>> q = ndv2(3)
    >>> q.routers, q.route("h0", "h17")
    (('ib',), ('x0-ib', 'xib-17'))
    """
    opt = Options("ndv2")
    chassis = opt.count("chassis", chassis, maximum=MAX_HOSTS // 8)
    nv_bw, nv_lat = opt.link_values(nvlink_bandwidth, nvlink_latency, "nvlink_")
    x_bw, x_lat = opt.link_values(inter_bandwidth, inter_latency, "inter_")
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = [b.hosts(8, sp) for _ in range(chassis)]
    _meshes(b, chassis, 8, NDV2_NVLINKS, "n", nv_bw, nv_lat)
    if chassis == 2:
        b.link("x0-9", "h0", "h9", x_bw, x_lat, directed=True)
        b.link("x8-1", "h8", "h1", x_bw, x_lat, directed=True)
    elif chassis > 2:
        b.router("ib")
        for c in range(chassis):
            b.link(f"x{8 * c}-ib", f"h{8 * c}", "ib", x_bw, x_lat, directed=True)
            b.link(f"xib-{8 * c + 1}", "ib", f"h{8 * c + 1}", x_bw, x_lat, directed=True)
    return b.build(ShortestPath(), opt.name(name, f"ndv2-{chassis}"), clusters=groups)


def dgx_a100(nodes: int = 2, *, nvswitch_bandwidth: Value = 300e9, nvswitch_latency: Value = 0.35e-6,
             nic_bandwidth: Value = 25e9, nic_latency: Value = 0.65e-6, speed: Value = GPU_SPEED,
             seed: int = 0, name: str | None = None) -> Platform:
    r"""NVIDIA DGX A100 nodes as ForestColl models them: an NVSwitch per node, a NIC per GPU, two IB switches.

    ::

        node 0                                 node 1
        h0 h1 ... h7                           h8 h9 ... h15       l{k}: h{k} -- nvs{node}
         \  |  ... /                            \  |  ... /
           nvs0                                   nvs1
        h{k} --p{k}-- nic{k} --q{k}-- ib{k % 2}                    (two or more nodes)
        nic0, nic2, ... of every node on ib0; nic1, nic3, ... on ib1

    Numbers from ForestColl's ``topologies.py``, ``a100_topology`` [2]_:
    8 GPUs per node (line 12), each joined both ways to the node's
    NVSwitch at ``NVLINK_BW`` = 300 GB/s (lines 4, 15-16); with more than
    one node, each GPU to its own ``mlx5`` NIC and each NIC to InfiniBand
    switch ``b % 2`` (``b`` the GPU's index in its node), both ways, at
    ``A100_IB_BW`` = 25 GB/s (lines 5, 17-25). All links are full duplex:
    ForestColl adds an edge each way with the same capacity. With one node
    there are no NICs, as in the source. ForestColl has no latencies; the
    defaults here are nominal: 0.35 µs per NVSwitch link (TE-CCL's DGX-2
    NVSwitch α) and 0.65 µs per NIC link, so that the four links from a
    GPU to a GPU of another node add up to TE-CCL's 2.6 µs between DGX-2
    chassis.

    ``topologies.py`` has one A100 model, this one; in it every GPU has its
    own NIC (a node with NICs shared by GPU pairs, or a rail-optimised
    network with one switch per NIC index, would be other fabrics).

    Parameters
    ----------
    nodes : int
        Number of DGX A100 nodes (>= 1).
    nvswitch_bandwidth, nvswitch_latency : float, str or (low, high)
        Of each GPU-NVSwitch link, per direction; a range is drawn per link.
        Default 300 GB/s, 0.35 µs.
    nic_bandwidth, nic_latency : float, str or (low, high)
        Of each GPU-NIC link ``p{k}`` and NIC-switch link ``q{k}``, per
        direction. Default 25 GB/s, 0.65 µs.
    speed : float, str or (low, high)
        GPU compute speed in flop/s (nominal; a range is drawn per GPU).
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"dgx-a100-{nodes}"``.

    Returns
    -------
    Platform
        ``8 * nodes`` hosts; routers ``nvs{n}`` per node, then (two or more
        nodes) ``nic{k}`` per GPU and ``ib0``, ``ib1``; shortest-path
        routing (by hops), ``clusters`` by node.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = dgx_a100(2)
    >>> len(p.hosts), len(p.routers), len(p.links)
    (16, 20, 48)
    >>> p.route("h0", "h3"), p.bandwidth("h0", "h3")
    (('l0', 'l3'), 300000000000.0)
    >>> p.route("h0", "h8"), p.bandwidth("h0", "h8")
    (('p0', 'q0', 'q8', 'p8'), 25000000000.0)
    >>> dgx_a100(1).routers
    ('nvs0',)
    """
    opt = Options("dgx_a100")
    nodes = opt.count("nodes", nodes, maximum=MAX_HOSTS // 8)
    nv_bw, nv_lat = opt.link_values(nvswitch_bandwidth, nvswitch_latency, "nvswitch_")
    nic_bw, nic_lat = opt.link_values(nic_bandwidth, nic_latency, "nic_")
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = [b.hosts(8, sp) for _ in range(nodes)]
    for n, gpus in enumerate(groups):
        b.attach(gpus, b.router(f"nvs{n}"), nv_bw, nv_lat)
    if nodes > 1:
        for k in range(8 * nodes):
            b.link(f"p{k}", f"h{k}", b.router(f"nic{k}"), nic_bw, nic_lat)
        b.router("ib0")
        b.router("ib1")
        for k in range(8 * nodes):
            b.link(f"q{k}", f"nic{k}", f"ib{k % 2}", nic_bw, nic_lat)
    return b.build(ShortestPath(), opt.name(name, f"dgx-a100-{nodes}"), clusters=groups)


def mi250(nodes: int = 2, *, xgmi_bandwidth: Value = 50e9, xgmi_latency: Value = 0.7e-6,
          ib_bandwidth: Value = 16e9, ib_latency: Value = 1.3e-6, speed: Value = GPU_SPEED,
          seed: int = 0, name: str | None = None) -> Platform:
    r"""AMD MI250 nodes as ForestColl models them: 16 GCDs in an xGMI mesh, each on one InfiniBand switch.

    ::

        node 0 (h0..h15)                       node 1 (h16..h31)
        xGMI g{a}-{b} per linked pair of       (the same mesh, GPU numbers + 16)
        GCDs (a < b), full duplex:
        50 GB/s x its number of links
        h{k} --- l{k} --- ib                   every GCD of every node (two or more nodes)

    Numbers from ForestColl's ``topologies.py``, ``mi250_topology`` [2]_:
    16 GCDs (GPUs) per node (line 55); the pair ``(b, c)`` has
    ``MI250_ADJ_MAT[b][c]`` xGMI links (lines 31-48: 28 linked pairs, 7
    links per GCD, symmetric), an edge each way of ``count`` x ``xGMI_BW``
    = 50 GB/s (lines 29, 56-59), kept here as one full-duplex link of that
    bandwidth, not as parallel links; with more than one node, every GCD
    joined both ways to the one switch ``(-1, "IB", 0)`` at
    ``MI250_IB_BW`` = 16 GB/s (lines 30, 61-63). The README's picture of
    2 x 16 MI250 (``assets/mi250_topo.png``) draws the same mesh and switch.
    With one node there is no switch, as in the source. ForestColl has no latencies; the defaults are
    nominal: 0.7 µs per xGMI link (TE-CCL's NVLink α in ``ndv2.py``) and
    1.3 µs per switch link (two of them between nodes: TE-CCL's 2.6 µs
    between DGX-2 chassis).

    ``topologies.py`` has one MI250 model, this one. TE-CCL's
    ``teccl/topologies/amd.py`` has the same xGMI matrix but another
    network: one switch per pair of GCDs at 25 GB/s, each joined to a
    central switch, and its latencies come from the user's input.

    Parameters
    ----------
    nodes : int
        Number of nodes (>= 1).
    xgmi_bandwidth, xgmi_latency : float, str or (low, high)
        Of one xGMI link, per direction (a pair with ``m`` links gets ``m``
        times the bandwidth on its link ``g{a}-{b}``), and of each xGMI
        link; a range is drawn per link. Default 50 GB/s, 0.7 µs.
    ib_bandwidth, ib_latency : float, str or (low, high)
        Of each GCD-switch link ``l{k}``, per direction. Default 16 GB/s, 1.3 µs.
    speed : float, str or (low, high)
        GCD compute speed in flop/s (nominal; a range is drawn per GCD).
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"mi250-{nodes}"``.

    Returns
    -------
    Platform
        ``16 * nodes`` hosts, router ``ib`` with two or more nodes,
        ``clusters`` by node. Routing: inside a node, a route table of the
        fewest-hop xGMI paths (ties to the lowest-numbered GCDs; by hops
        alone a pair 2 or more hops apart could detour through the switch);
        between nodes, shortest path, GCD → ``ib`` → GCD.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = mi250(2)
    >>> len(p.hosts), p.routers, len(p.links)
    (32, ('ib',), 88)
    >>> p.links["g0-1"].bandwidth, p.links["g0-8"].bandwidth
    (200000000000.0, 50000000000.0)
    >>> p.route("h0", "h5"), p.route("h0", "h16")
    (('g0-1', 'g1-5'), ('l0', 'l16'))
    >>> p.route("h3", "h12")
    ('g2-3', 'g2-9', 'g8-9', 'g8-12')
    >>> len(mi250(1).links)
    28
    """
    opt = Options("mi250")
    nodes = opt.count("nodes", nodes, maximum=MAX_HOSTS // 16)
    x_bw, x_lat = opt.link_values(xgmi_bandwidth, xgmi_latency, "xgmi_")
    ib_bw, ib_lat = opt.link_values(ib_bandwidth, ib_latency, "ib_")
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = [b.hosts(16, sp) for _ in range(nodes)]
    _meshes(b, nodes, 16, MI250_XGMI, "g", x_bw, x_lat)
    if nodes > 1:
        b.attach([h for gpus in groups for h in gpus], b.router("ib"), ib_bw, ib_lat)
    # inside a node, stay on xGMI (by hops alone, a pair 2+ hops apart could detour through the switch)
    table = {}
    for (i, j), path in _mesh_paths(MI250_XGMI, 16).items():
        for n in range(nodes):
            ids = [16 * n + g for g in path]
            table[f"h{ids[0]}", f"h{ids[-1]}"] = [f"g{min(u, v)}-{max(u, v)}" for u, v in zip(ids, ids[1:])]
    return b.build(RouteTable(table, fallback=ShortestPath()), opt.name(name, f"mi250-{nodes}"), clusters=groups)
