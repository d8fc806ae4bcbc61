"""Small switched and direct topologies: a star, two switches, a complete graph."""

from __future__ import annotations

from ..model import Platform
from ..routing import ShortestPath
from ._common import MAX_HOSTS, Builder, MatrixLike, Options, Value

__all__ = ["star", "two_switches", "fully_connected"]


def star(n: int, *, bandwidth: Value = 1.25e8, latency: Value = 1e-5, speed: Value = 1e9, seed: int = 0,
         name: str | None = None) -> Platform:
    """``n`` hosts joined to one switch: the simplest switched cluster.

    ::

               h1
               |
        h0 --- sw --- h2          link l{i} joins h{i} to sw
               |
              ...

    Parameters
    ----------
    n : int
        Number of hosts (>= 1), named ``h0`` .. ``h{n-1}``.
    bandwidth, latency : float, str or (low, high)
        Of each host link ``l{i}`` (ends ``("h{i}", "sw")``), in bytes/s and s;
        a range is drawn uniformly per link. Default: 1 Gb/s, 10 us.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws (only used when a range is given).
    name : str, optional
        Platform name; default ``"star-{n}"``.

    Returns
    -------
    Platform
        Hosts ``h0`` .. ``h{n-1}``, router ``sw``, shortest-path routing.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = star(3)
    >>> p.hosts, p.routers
    (('h0', 'h1', 'h2'), ('sw',))
    >>> p.route("h0", "h1")
    ('l0', 'l1')
    >>> p = star(4, bandwidth=(1e8, 2e8), seed=1)
    >>> all(1e8 <= link.bandwidth <= 2e8 for link in p.links.values())
    True
    """
    opt = Options("star")
    n = opt.count("n", n, maximum=MAX_HOSTS)
    bw, lat = opt.link_values(bandwidth, latency)
    sp = opt.value("speed", speed, "speed")
    b = Builder(opt.seed(seed))
    hosts = b.hosts(n, sp)
    b.attach(hosts, b.router("sw"), bw, lat)
    return b.build(ShortestPath(), opt.name(name, f"star-{n}"))


def two_switches(k: int, *, bandwidth: Value = 1.25e8, latency: Value = 1e-5, trunk_bandwidth: Value | None = None,
                 trunk_latency: Value | None = None, speed: Value = 1e9, seed: int = 0,
                 name: str | None = None) -> Platform:
    """Two switches with ``k`` hosts each and one link between the switches.

    The inter-switch link is the bottleneck of every transfer between the two
    halves: the smallest platform on which link contention matters.

    ::

        h0 ---+              +--- h{k}
        h1 ---+-- sw0 ==== sw1 --+--- h{k+1}
        ...   |     sw0-sw1      |    ...
       h{k-1}-+              +--- h{2k-1}

    Parameters
    ----------
    k : int
        Hosts per switch (>= 1): ``h0`` .. ``h{k-1}`` on ``sw0``, ``h{k}`` ..
        ``h{2k-1}`` on ``sw1``.
    bandwidth, latency : float, str or (low, high)
        Of each host link ``l{i}`` (ends ``("h{i}", "sw{0|1}")``); ranges drawn per link.
    trunk_bandwidth, trunk_latency : float, str or (low, high), optional
        Of the inter-switch link ``sw0-sw1``; default: as the host links.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"two-switches-{k}"``.

    Returns
    -------
    Platform
        Shortest-path routing; ``clusters`` are the hosts of each switch.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Examples
    --------
    >>> p = two_switches(2, trunk_bandwidth=1e7)
    >>> p.hosts
    ('h0', 'h1', 'h2', 'h3')
    >>> p.route("h1", "h2")
    ('l1', 'sw0-sw1', 'l2')
    >>> p.bandwidth("h0", "h3"), p.clusters
    (10000000.0, (('h0', 'h1'), ('h2', 'h3')))
    """
    opt = Options("two_switches")
    k = opt.count("k", k, maximum=MAX_HOSTS // 2)
    bw, lat = opt.link_values(bandwidth, latency)
    tbw, tlat = opt.link_values(trunk_bandwidth, trunk_latency, "trunk_", default=(bw, lat))
    sp = opt.value("speed", speed, "speed")
    b = Builder(opt.seed(seed))
    groups = [b.hosts(k, sp), b.hosts(k, sp)]
    for j, hosts in enumerate(groups):
        b.attach(hosts, b.router(f"sw{j}"), bw, lat)
    b.link("sw0-sw1", "sw0", "sw1", tbw, tlat)
    return b.build(ShortestPath(), opt.name(name, f"two-switches-{k}"), clusters=groups)


def fully_connected(n: int, *, bandwidth: Value | MatrixLike = 1.25e8, latency: Value | MatrixLike = 1e-5,
                    speed: Value = 1e9, seed: int = 0, name: str | None = None) -> Platform:
    r"""``n`` hosts with a private link between every two of them (no router).

    ::

        h0 ------- h1          link l{i}-{j} joins h{i} and h{j} (i < j);
        | \     / |          with an asymmetric matrix, one directed link
        |   \ /   |          l{i}-{j} from h{i} to h{j} per ordered pair
        |   / \   |
        | /     \ |
        h3 ------- h2

    This is the platform of the matrix view: every pair has its own latency
    and bandwidth and no two transfers share a link (as in seed 004's
    heterogeneous clusters, where costs are per pair).

    Parameters
    ----------
    n : int
        Number of hosts (>= 1).
    bandwidth, latency : float, str, (low, high) or n x n matrix
        Of each link; a range is drawn per link; a matrix (numpy array or
        nested lists, diagonal ignored) gives the value of pair ``(i, j)``.
        If a matrix is not symmetric, links are directed, one per ordered pair.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"fully-connected-{n}"``.

    Returns
    -------
    Platform
        Direct routes (shortest path by hops, always the pair's own link).

    Raises
    ------
    PlatformError
        If an option has a bad value or a matrix has the wrong shape.

    Examples
    --------
    >>> p = fully_connected(3)
    >>> sorted(p.links)
    ['l0-1', 'l0-2', 'l1-2']
    >>> p.route("h2", "h0")
    ('l0-2',)
    >>> q = fully_connected(2, bandwidth=[[0, 1e6], [2e6, 0]])
    >>> q.route("h1", "h0"), q.bandwidth("h1", "h0")
    (('l1-0',), 2000000.0)
    """
    opt = Options("fully_connected")
    n = opt.count("n", n, maximum=MAX_HOSTS)
    bw = opt.value_or_matrix("bandwidth", bandwidth, "bandwidth", n)
    lat = opt.value_or_matrix("latency", latency, "latency", n)
    sp = opt.value("speed", speed, "speed")
    b = Builder(opt.seed(seed))
    b.pairwise(b.hosts(n, sp), "l", bw, lat)
    return b.build(ShortestPath(), opt.name(name, f"fully-connected-{n}"))
