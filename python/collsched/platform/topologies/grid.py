"""A grid of clusters: switched clusters joined by a wide-area network."""

from __future__ import annotations

from typing import Sequence

from ..model import Platform
from ..routing import ShortestPath
from ._common import Builder, Matrix, MatrixLike, Options, Value

__all__ = ["grid_of_clusters"]

WANS = ("mesh", "core")


def grid_of_clusters(sizes: Sequence[int], *, intra_bandwidth: Value = 1.25e8, intra_latency: Value = 5e-5,
                     inter_bandwidth: Value | MatrixLike = (1e6, 1e8),
                     inter_latency: Value | MatrixLike = (1e-3, 1.5e-2), wan: str = "mesh",
                     speed: Value = 1e9, seed: int = 0, name: str | None = None) -> Platform:
    r"""Clusters of hosts, each behind its own switch, joined by a wide-area network.

    ::

        h0  h1  h2          h3  h4        cluster j: switch c{j}-sw, its hosts
          \ |  /              \ /         joined by links l{k} (ends ("h{k}", "c{j}-sw"))
          c0-sw ---w0-1--- c1-sw
              \             /             wan="mesh": one link w{a}-{b} per pair
             w0-2       w1-2              of clusters (a < b)
                \         /               wan="core": one link w{j} from each
                  c2-sw                   c{j}-sw to a router "core"
                  /   \
                h5     h6

    Inside a cluster every host link has the cluster's bandwidth and latency
    (clusters are homogeneous, as the logical clusters of seed 003); between
    clusters each WAN link has its own. The defaults follow seed 003's
    simulations: inter-cluster latency 1 to 15 ms and bandwidth 1 to 100 MB/s,
    Gigabit Ethernet clusters.

    Parameters
    ----------
    sizes : sequence of int
        Number of hosts of each cluster (each >= 1). Hosts are numbered
        cluster by cluster.
    intra_bandwidth, intra_latency : float, str or (low, high)
        Of the host links; a range is drawn once per cluster.
    inter_bandwidth, inter_latency : float, str, (low, high) or matrix
        Of the WAN links; a range is drawn per WAN link (per cluster pair with
        ``wan="mesh"``, per cluster with ``wan="core"``). With ``wan="mesh"``
        a clusters x clusters matrix gives the value of each pair; if it is
        not symmetric, WAN links are directed, one per ordered pair.
    wan : {"mesh", "core"}
        A private link per pair of clusters, or a star around a core router
        (then an inter-cluster route has two WAN links).
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn once per cluster.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"grid-{clusters}c-{hosts}h"``, e.g. ``"grid-3c-7h"``.

    Returns
    -------
    Platform
        Shortest-path routing by hop count; ``clusters`` is the partition of
        hosts by cluster.

    Raises
    ------
    PlatformError
        If an option has a bad value, or a matrix is given with ``wan="core"``.

    References
    ----------
    .. [1] L. A. Steffenel, G. Mounié, a framework for adaptive collective
       communications on heterogeneous hierarchical grids, preprint, 2007
       (seed 003), Section 7.

    Examples
    --------
    >>> p = grid_of_clusters([3, 2, 2], seed=1)
    >>> p.clusters
    (('h0', 'h1', 'h2'), ('h3', 'h4'), ('h5', 'h6'))
    >>> p.route("h0", "h6")
    ('l0', 'w0-2', 'l6')
    >>> 1e-3 <= p.links["w0-2"].latency <= 1.5e-2
    True
    >>> grid_of_clusters([1, 1], wan="core").route("h0", "h1")
    ('l0', 'w0', 'w1', 'l1')
    """
    opt = Options("grid_of_clusters")
    sizes = opt.sizes("sizes", sizes)
    opt.hosts("sizes", sum(sizes))
    k = len(sizes)
    intra_bw, intra_lat = opt.link_values(intra_bandwidth, intra_latency, "intra_")
    inter_bw = opt.value_or_matrix("inter_bandwidth", inter_bandwidth, "bandwidth", k)
    inter_lat = opt.value_or_matrix("inter_latency", inter_latency, "latency", k)
    wan = opt.choice("wan", wan, WANS)
    for option, value in (("inter_bandwidth", inter_bw), ("inter_latency", inter_lat)):
        if wan == "core" and isinstance(value, Matrix):
            raise opt.error(option, "is a matrix, which needs wan='mesh'")
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = []
    for j, size in enumerate(sizes):
        cluster_speed, bw, lat = b.draw(sp), b.draw(intra_bw), b.draw(intra_lat)
        groups.append(b.hosts(size, cluster_speed))
        b.attach(groups[-1], b.router(f"c{j}-sw"), bw, lat)
    switches = [f"c{j}-sw" for j in range(k)]
    if wan == "mesh":
        b.pairwise(switches, "w", inter_bw, inter_lat)
    else:
        b.router("core")
        for j, switch in enumerate(switches):
            b.link(f"w{j}", switch, "core", inter_bw, inter_lat)
    return b.build(ShortestPath(), opt.name(name, f"grid-{k}c-{sum(sizes)}h"), clusters=groups)
