"""A Tiers-like random internetwork: a WAN, MANs below it, LANs of hosts below them."""

from __future__ import annotations

import numpy as np

from ..model import Platform
from ..routing import ShortestPath
from ._common import Builder, Options, Spec, Value

__all__ = ["tiers"]

MAX_LEVEL_NODES = 1024


def tiers(*, wan_nodes: int = 4, mans: int = 2, man_nodes: int = 3, lans_per_man: int = 2, lan_hosts: int = 4,
          wan_redundancy: int = 2, man_redundancy: int = 2, man_wan_redundancy: int = 1,
          lan_man_redundancy: int = 1,
          wan_bandwidth: Value = (1e6, 1e7), wan_latency: Value = (1e-3, 5e-3),
          man_bandwidth: Value = (5e6, 5e7), man_latency: Value = (1e-4, 1e-3),
          lan_bandwidth: Value = (1e7, 1.25e8), lan_latency: Value = (1e-5, 1e-4),
          wan_extent: float = 1e6, man_extent: float = 5e4, signal_speed: float = 2e8,
          metric: str = "latency", speed: Value = (1e8, 1e9), seed: int = 0, name: str | None = None) -> Platform:
    r"""A random three-level internetwork in the manner of Doar's Tiers generator.

    This re-implements the idea of the Tiers generator of Calvert and Doar [1]_
    [2]_ (not its code): a WAN, MANs attached to the WAN, LANs attached to
    the MANs. Seed 000 compared reduction schedules on such platforms of about
    30 nodes, with random bandwidths and speeds; the defaults make one of that
    flavour (30 nodes: 4 WAN and 6 MAN routers, 4 LAN routers, 16 hosts).

    ::

        WAN    wan0 ------- wan1 ------ wan3      routers placed uniformly in a square,
                 |    \_____  |       /           joined by a Euclidean minimum
                 |          \ |     wan2          spanning tree plus redundancy edges
        MAN    man0.0 --- man0.1    man1.0 ...    (one square per MAN)
                 |          |
        LAN     lan0       lan1       ...         a LAN is a star: a router and its
               / | | \    / | | \                 hosts, the only hosts of the platform
             h0 h1 h2 h3 h4 h5 h6 h7

    Construction, level by level, all draws from one seeded generator:

    1. WAN: ``wan_nodes`` routers ``wan{i}`` placed uniformly in a square of
       side ``wan_extent`` metres; a minimum spanning tree over Euclidean
       distances; then, Doar's intranetwork redundancy, each router in turn is
       joined to its nearest non-neighbours until it has ``wan_redundancy``
       links (or is joined to all).
    2. Each of the ``mans`` MANs likewise, routers ``man{m}.{i}`` in their own
       square of side ``man_extent``; then (internetwork redundancy)
       ``man_wan_redundancy`` distinct MAN routers, drawn at random, are each
       linked to a WAN router drawn at random.
    3. Each MAN has ``lans_per_man`` LANs: a router ``lan{j}`` (j counts LANs
       over all MANs) with ``lan_hosts`` hosts, linked to
       ``lan_man_redundancy`` distinct routers of its MAN drawn at random.

    Links inside the WAN and MANs have the level's bandwidth and latency, plus
    a propagation delay of distance / ``signal_speed``; MAN-WAN links take
    the WAN's values and LAN-MAN links the MAN's (no distance term); host links
    take the LAN's values. Ids: ``{u}:{v}`` between routers, ``l{k}`` for the
    link of host ``h{k}``.

    Parameters
    ----------
    wan_nodes, man_nodes : int
        Routers per WAN and per MAN (Doar's S_W, S_M), 1 .. 1024.
    mans, lans_per_man : int
        MANs under the WAN and LANs under each MAN (N_M, N_L), >= 1.
    lan_hosts : int
        Hosts per LAN (S_L minus the LAN router), >= 1.
    wan_redundancy, man_redundancy : int
        Intranetwork redundancy (R_W, R_M): the degree each router is raised
        to inside its network; 1 keeps the spanning tree.
    man_wan_redundancy, lan_man_redundancy : int
        Internetwork redundancy (R_MW, R_LM): links from each MAN to the WAN,
        from each LAN to its MAN (capped at the number of routers).
    wan_bandwidth, wan_latency, man_bandwidth, man_latency, lan_bandwidth, lan_latency : float, str or (low, high)
        Link values per level; ranges drawn per link.
    wan_extent, man_extent : float
        Side of the placement squares, in metres.
    signal_speed : float
        Propagation speed in m/s (about 2e8 in fibre).
    metric : {"latency", "hops"}
        Shortest-path routing metric.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of every draw.
    name : str, optional
        Default ``"tiers-{nodes}n-seed{seed}"``.

    Returns
    -------
    Platform
        Hosts are the LAN nodes; every other node is a router.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    Notes
    -----
    The spanning trees are computed by Prim's algorithm on the complete
    Euclidean graph, O(n²) per network, in a few lines here rather than
    through SciPy, whose import alone costs more than the whole default build.

    References
    ----------
    .. [1] M. B. Doar, "A better model for generating test networks",
       Proc. IEEE GLOBECOM 1996, pp. 86-93, doi:10.1109/GLOCOM.1996.586131.
    .. [2] K. L. Calvert, M. B. Doar, E. W. Zegura, "Modeling Internet
       topology", IEEE Communications Magazine 35(6), 1997, pp. 160-163.

    Examples
    --------
    >>> p = tiers()
    >>> len(p.nodes), len(p.hosts), len(p.routers)
    (30, 16, 14)
    >>> sum(r.startswith("man") for r in p.routers)
    6
    >>> p.route("h0", "h1")
    ('l0', 'l1')
    >>> p == tiers() and p != tiers(seed=1)
    True
    >>> all(p.has_route("h0", h) for h in p.hosts)
    True
    """
    opt = Options("tiers")
    wan_nodes = opt.count("wan_nodes", wan_nodes, maximum=MAX_LEVEL_NODES)
    man_nodes = opt.count("man_nodes", man_nodes, maximum=MAX_LEVEL_NODES)
    mans = opt.count("mans", mans, maximum=MAX_LEVEL_NODES)
    lans_per_man = opt.count("lans_per_man", lans_per_man)
    lan_hosts = opt.count("lan_hosts", lan_hosts)
    opt.hosts("mans * lans_per_man * lan_hosts", mans * lans_per_man * lan_hosts)
    redundancy = {option: opt.count(option, value) for option, value in (
        ("wan_redundancy", wan_redundancy), ("man_redundancy", man_redundancy),
        ("man_wan_redundancy", man_wan_redundancy), ("lan_man_redundancy", lan_man_redundancy))}
    wan = opt.link_values(wan_bandwidth, wan_latency, "wan_")
    man = opt.link_values(man_bandwidth, man_latency, "man_")
    lan = opt.link_values(lan_bandwidth, lan_latency, "lan_")
    extents = opt.number("wan_extent", wan_extent, "length"), opt.number("man_extent", man_extent, "length")
    signal = opt.number("signal_speed", signal_speed, "signal speed")
    metric = opt.choice("metric", metric, ("latency", "hops"))
    sp = opt.value("speed", speed, "speed")
    seed = opt.seed(seed)

    b = Builder(seed)
    # step 1: the WAN
    wan_ids = _network(b, [f"wan{i}" for i in range(wan_nodes)], extents[0], redundancy["wan_redundancy"],
                       wan, signal)
    lan_id = 0
    for m in range(mans):
        # step 2: a MAN, and its links to the WAN
        man_ids = _network(b, [f"man{m}.{i}" for i in range(man_nodes)], extents[1], redundancy["man_redundancy"],
                           man, signal)
        for u in _pick(b.rng, man_ids, redundancy["man_wan_redundancy"]):
            w = wan_ids[int(b.rng.integers(wan_nodes))]
            b.link(f"{u}:{w}", u, w, *wan)
        # step 3: its LANs, stars of hosts, and their links to the MAN
        for _ in range(lans_per_man):
            router = b.router(f"lan{lan_id}")
            b.attach(b.hosts(lan_hosts, sp), router, *lan)
            for v in _pick(b.rng, man_ids, redundancy["lan_man_redundancy"]):
                b.link(f"{router}:{v}", router, v, *man)
            lan_id += 1
    return b.build(ShortestPath(metric), opt.name(name, f"tiers-{len(b.nodes)}n-seed{seed}"))


def _network(b: Builder, ids: list[str], extent: float, redundancy: int, values: tuple[Spec, Spec],
             signal: float) -> list[str]:
    """Routers placed in a square, joined by a Euclidean MST plus redundancy edges."""
    for ident in ids:
        b.router(ident)
    xy = b.rng.uniform(0.0, extent, size=(len(ids), 2))
    dist = np.hypot(*(xy[:, None, :] - xy[None, :, :]).transpose(2, 0, 1))
    edges = _prim(dist)
    adjacent = [set() for _ in ids]
    for i, j in edges:
        adjacent[i].add(j)
        adjacent[j].add(i)
    for i in range(len(ids)):
        for j in np.argsort(dist[i], kind="stable"):
            if len(adjacent[i]) >= redundancy:
                break
            if j != i and j not in adjacent[i]:
                edges.append((i, int(j)))
                adjacent[i].add(int(j))
                adjacent[int(j)].add(i)
    for i, j in edges:
        b.link(f"{ids[i]}:{ids[j]}", ids[i], ids[j], *values, extra_latency=float(dist[i, j]) / signal)
    return ids


def _prim(dist: np.ndarray) -> list[tuple[int, int]]:
    """Edges ``(parent, child)`` of a minimum spanning tree of the complete graph ``dist``, from node 0."""
    n = len(dist)
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best, parent = dist[0].copy(), np.zeros(n, dtype=int)
    edges = []
    for _ in range(n - 1):
        j = int(np.argmin(np.where(in_tree, np.inf, best)))
        edges.append((int(parent[j]), j))
        in_tree[j] = True
        closer = dist[j] < best
        best[closer], parent[closer] = dist[j][closer], j
    return edges


def _pick(rng: np.random.Generator, ids: list[str], count: int) -> list[str]:
    """``min(count, len(ids))`` distinct ids drawn at random, in drawn order."""
    return [ids[i] for i in rng.choice(len(ids), size=min(count, len(ids)), replace=False)]
