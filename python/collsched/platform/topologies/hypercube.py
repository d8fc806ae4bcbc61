"""The binary hypercube with e-cube (dimension-order) routing."""

from __future__ import annotations

from ..model import Platform
from ..routing import ECube
from ._common import MAX_HOSTS, Builder, Options, Value

__all__ = ["hypercube"]

MAX_DIMENSION = MAX_HOSTS.bit_length() - 1


def hypercube(d: int, *, bandwidth: Value = 1.25e8, latency: Value = 1e-5, speed: Value = 1e9, seed: int = 0,
              name: str | None = None) -> Platform:
    """A ``d``-dimensional binary hypercube of ``2**d`` hosts, routed by e-cube.

    ::

              h6 ---------- h7         host h{i} has address i; hosts one bit
             /|            /|          apart are joined by link e{a}-{b}
           h2 ---------- h3 |          (a < b, ends ("h{a}", "h{b}"))
            | |           | |
            | h4 ---------|-h5         d = 3
            |/            |/
           h0 ---------- h1

    Parameters
    ----------
    d : int
        Dimension, 0 .. 16.
    bandwidth, latency : float, str or (low, high)
        Of each link; a range is drawn per link. Default: 1 Gb/s, 10 us.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"hypercube-{d}"``.

    Returns
    -------
    Platform
        ``2**d`` hosts, ``d * 2**(d-1)`` links, no router,
        :class:`~collsched.platform.ECube` routing: differing address bits are
        corrected from the lowest to the highest, so a route has as many hops
        as the Hamming distance of the two addresses (the iPSC/860's routing in
        seed 002).

    Raises
    ------
    PlatformError
        If an option has a bad value.

    References
    ----------
    .. [1] S. Ranka, J.-C. Wang, "Static and runtime scheduling of unstructured
       communication", 1993 (seed 002), Section 2.
    .. [2] H. Sullivan, T. R. Bashkow, "A large scale, homogeneous, fully
       distributed parallel machine, I", Proc. 4th ISCA, 1977, pp. 105-117.

    Examples
    --------
    >>> p = hypercube(3)
    >>> len(p.hosts), len(p.links)
    (8, 12)
    >>> p.route("h0", "h7")
    ('e0-1', 'e1-3', 'e3-7')
    >>> p.route("h6", "h1")
    ('e6-7', 'e5-7', 'e1-5')
    """
    opt = Options("hypercube")
    d = opt.count("d", d, minimum=0, maximum=MAX_DIMENSION)
    bw, lat = opt.link_values(bandwidth, latency)
    sp = opt.value("speed", speed, "speed")
    b = Builder(opt.seed(seed))
    hosts = b.hosts(2**d, sp)
    for a in range(2**d):
        for k in range(d):
            if not a >> k & 1:
                b.link(f"e{a}-{a | 1 << k}", hosts[a], hosts[a | 1 << k], bw, lat)
    return b.build(ECube({h: i for i, h in enumerate(hosts)}), opt.name(name, f"hypercube-{d}"))
