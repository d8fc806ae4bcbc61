"""The k-ary n-cube (torus) with shortest-path or dimension-order routing."""

from __future__ import annotations

import itertools
import math
from typing import Sequence

from ..model import Platform
from ..routing import RouteTable, ShortestPath
from ._common import Builder, Options, Value

__all__ = ["torus"]

ROUTINGS = ("shortest_path", "dimension_order")


def torus(dims: Sequence[int], *, routing: str = "shortest_path", bandwidth: Value = 1.25e8,
          latency: Value = 1e-5, speed: Value = 1e9, seed: int = 0, name: str | None = None) -> Platform:
    """A torus: hosts on a grid of shape ``dims``, wrap-around links in every dimension.

    ::

        h0 --- h1 --- h2 --- h3 ...      dims = (4, 4): host h{4x + y} at (x, y);
        |      |      |      |           each host is linked to its neighbours
        h4 --- h5 --- h6 --- h7 ...      in every dimension, with wrap-around
        |      |      |      |           (h0 -- h3, h0 -- h12); link e{a}-{b},
        ...                              a < b, ends ("h{a}", "h{b}")

    A dimension of size 2 has one link per pair (the wrap-around link would
    duplicate it), a dimension of size 1 none.

    Parameters
    ----------
    dims : sequence of int
        Size of each dimension (each >= 1), usually 2 or 3 of them, e.g.
        ``(4, 4)`` or ``(2, 3, 4)``. Host ``h{i}`` sits at coordinates
        ``numpy.unravel_index(i, dims)`` (the last coordinate varies fastest).
    routing : {"shortest_path", "dimension_order"}
        ``"shortest_path"``: :class:`~collsched.platform.ShortestPath` by hop
        count (ties broken by declaration order). ``"dimension_order"``: an
        explicit route table that corrects the coordinates one dimension at a
        time, first dimension first, each the short way round (the ``+``
        direction on a tie) — the deterministic routing of torus machines;
        building it costs O(N² · diameter) for N hosts.
    bandwidth, latency : float, str or (low, high)
        Of each link; a range is drawn per link.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"torus-{d0}x{d1}..."``.

    Returns
    -------
    Platform
        Hosts only, no router. Every route is a shortest path; the diameter is
        ``sum(d // 2 for d in dims)``.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    References
    ----------
    .. [1] W. J. Dally, B. Towles, *Principles and Practices of Interconnection
       Networks*, Morgan Kaufmann, 2004, chapters 5 and 8 (tori and
       dimension-order routing).

    Examples
    --------
    >>> p = torus((4, 4))
    >>> len(p.hosts), len(p.links)
    (16, 32)
    >>> p.route("h0", "h3")
    ('e0-3',)
    >>> q = torus((3, 3), routing="dimension_order")
    >>> q.route("h0", "h4"), q.route("h4", "h0")
    (('e0-3', 'e3-4'), ('e1-4', 'e0-1'))
    >>> len(torus((2, 2, 2)).links)
    12
    """
    opt = Options("torus")
    dims = opt.sizes("dims", dims)
    opt.hosts("dims", math.prod(dims))
    routing = opt.choice("routing", routing, ROUTINGS)
    bw, lat = opt.link_values(bandwidth, latency)
    sp = opt.value("speed", speed, "speed")
    b = Builder(opt.seed(seed))
    coords = list(itertools.product(*(range(n) for n in dims)))
    index = {c: i for i, c in enumerate(coords)}
    hosts = b.hosts(len(coords), sp)
    links = {}  # unordered pair of host indices -> link id
    for i, c in enumerate(coords):
        for k, n in enumerate(dims):
            j = index[_step(c, k, 1, n)]
            if n > 2 or (n == 2 and c[k] == 0):
                a, z = min(i, j), max(i, j)
                links[a, z] = b.link(f"e{a}-{z}", hosts[a], hosts[z], bw, lat)
    if routing == "shortest_path":
        scheme = ShortestPath()
    else:
        scheme = RouteTable({(hosts[s], hosts[t]): _dimension_order(coords[s], coords[t], dims, index, links)
                             for s in range(len(hosts)) for t in range(len(hosts)) if s != t}, symmetric=False)
    return b.build(scheme, opt.name(name, "torus-" + "x".join(map(str, dims))))


def _step(c: tuple[int, ...], k: int, delta: int, n: int) -> tuple[int, ...]:
    return c[:k] + ((c[k] + delta) % n,) + c[k + 1:]


def _dimension_order(src, dst, dims, index, links) -> list[tuple[str, bool]]:
    """Hops from coordinates ``src`` to ``dst``, correcting dimension 0 first, the short way round."""
    hops = []
    at = src
    for k, n in enumerate(dims):
        ahead = (dst[k] - at[k]) % n
        delta, count = (1, ahead) if ahead <= n - ahead else (-1, n - ahead)
        for _ in range(count):
            nxt = _step(at, k, delta, n)
            i, j = index[at], index[nxt]
            hops.append((links[min(i, j), max(i, j)], i < j))
            at = nxt
    return hops
