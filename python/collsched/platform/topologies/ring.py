"""A ring of switches with chords (K-ring-like), hosts on the switches."""

from __future__ import annotations

import numbers
from typing import Sequence

from ..model import Platform
from ..routing import ShortestPath
from ._common import Builder, Options, Value

__all__ = ["switch_ring"]


def switch_ring(switches: int, hosts_per_switch: int | Sequence[int], *,
                chords: int | Sequence[int] | Sequence[tuple[int, int]] | None = None,
                bandwidth: Value = 1.25e8, latency: Value = 1e-5, trunk_bandwidth: Value | None = None,
                trunk_latency: Value | None = None, speed: Value = 1e9, seed: int = 0,
                name: str | None = None) -> Platform:
    r"""Switches on a ring, with chords between them, and hosts on the switches.

    ::

              h0 h1        h2 h3
                \|          |/          ring link r{i}: sw{i} -- sw{i+1 mod n}
                sw0 --r0-- sw1           chord c{i}-{j}: sw{i} -- sw{j}, i < j
                 | \        / |          host link l{k}: h{k} -- its switch
                r3  c0-2  c1-3 r1
                 |   \    /   |          switches = 4, hosts_per_switch = 2,
                sw3 --r2-- sw2           chords = 2
                /|          |\
              h6 h7        h5 h4

    The chord wiring is that of a K-ring [1]_ when given as skip distances
    (each switch ``i`` is linked to ``i + s mod n`` for each skip ``s``: a
    circulant graph), or any wiring when given as switch pairs. The Swiss-T1
    cluster of seed 001 (32 nodes on 8 switches of 4, 86 MB/s links, static
    routing) has this shape: ``switch_ring(8, 4, chords=..., bandwidth=86e6)``
    with its chord wiring.

    Parameters
    ----------
    switches : int
        Number of switches ``sw0`` .. ``sw{n-1}`` (>= 1).
    hosts_per_switch : int or sequence of int
        Hosts on each switch, or one count per switch (0 allowed, at least
        one host in all). Hosts are numbered switch by switch.
    chords : int, sequence of int, or sequence of (i, j), optional
        None: a plain ring. An int or a sequence of ints: skip distances, each
        in 2 .. n-2 (a chord that a smaller skip already gives is made once).
        A sequence of switch pairs: one chord per pair, each pair distinct and
        not already ring neighbours (a single chord is ``[(i, j)]``: a bare
        ``(i, j)`` reads as two skip distances).
    bandwidth, latency : float, str or (low, high)
        Of each host link; a range is drawn per link.
    trunk_bandwidth, trunk_latency : float, str or (low, high), optional
        Of each ring and chord link; default: as the host links.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"switch-ring-{switches}"``.

    Returns
    -------
    Platform
        Static shortest-path routing by hop count (deterministic ties).

    Raises
    ------
    PlatformError
        If an option has a bad value or a chord is invalid.

    References
    ----------
    .. [1] P. Kuonen, "The K-Ring: a versatile model for the design of MIMD
       computer topology", Proc. HPC'99, San Diego, 1999, pp. 381-385.
    .. [2] E. Gabrielyan, R. D. Hersch, "Efficient construction of liquid
       schedules for a collective communication" (seed 001), the T1 testbed.

    Examples
    --------
    >>> p = switch_ring(4, 2, chords=2)
    >>> len(p.hosts), sorted(link for link in p.links if link[0] in "rc")
    (8, ['c0-2', 'c1-3', 'r0', 'r1', 'r2', 'r3'])
    >>> p.route("h0", "h4")
    ('l0', 'c0-2', 'l4')
    >>> q = switch_ring(8, [4, 0, 4, 4, 0, 4, 4, 4], chords=[(0, 4)], bandwidth=86e6)
    >>> len(q.hosts), q.route("h0", "h8")
    (24, ('l0', 'c0-4', 'r3', 'l8'))
    """
    opt = Options("switch_ring")
    n = opt.count("switches", switches, maximum=4096)
    counts = opt.counts("hosts_per_switch", hosts_per_switch, n)
    opt.hosts("hosts_per_switch", sum(counts))
    pairs = _chords(opt, chords, n)
    bw, lat = opt.link_values(bandwidth, latency)
    tbw, tlat = opt.link_values(trunk_bandwidth, trunk_latency, "trunk_", default=(bw, lat))
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    for i, count in enumerate(counts):
        b.attach(b.hosts(count, sp), b.router(f"sw{i}"), bw, lat)
    for i in range(n if n > 2 else n - 1):
        b.link(f"r{i}", f"sw{i}", f"sw{(i + 1) % n}", tbw, tlat)
    for i, j in pairs:
        b.link(f"c{i}-{j}", f"sw{i}", f"sw{j}", tbw, tlat)
    return b.build(ShortestPath(), opt.name(name, f"switch-ring-{n}"))


def _chords(opt: Options, chords: object, n: int) -> list[tuple[int, int]]:
    """The chord wiring as sorted switch pairs, in order of first appearance."""
    if chords is None:
        return []
    if isinstance(chords, numbers.Integral) and not isinstance(chords, bool):
        chords = [chords]
    if not isinstance(chords, Sequence) or isinstance(chords, str):
        raise opt.error("chords", f"must be a skip distance, skip distances or switch pairs, got {chords!r}")
    ring = {(i, (i + 1) % n) if i + 1 < n else (0, i) for i in range(n)}
    out: list[tuple[int, int]] = []
    if all(isinstance(c, numbers.Integral) and not isinstance(c, bool) for c in chords):
        if chords and n < 4:
            raise opt.error("chords", f"as skip distances need at least 4 switches, got {n}")
        for k, skip in enumerate(chords):
            opt.count(f"chords[{k}]", skip, minimum=2, maximum=n - 2)
            for i in range(n):
                pair = tuple(sorted((i, (i + skip) % n)))
                if pair not in out:
                    out.append(pair)
        return out
    for k, pair in enumerate(chords):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise opt.error(f"chords[{k}]", f"must be a pair of switch indices, got {pair!r}")
        i, j = sorted(opt.count(f"chords[{k}]", x, minimum=0, maximum=n - 1) for x in pair)
        if i == j or (i, j) in ring or (i, j) in out:
            what = "joins a switch to itself" if i == j else "repeats a ring link or a chord"
            raise opt.error(f"chords[{k}]", f"{what}: {tuple(pair)!r}")
        out.append((i, j))
    return out
