"""The two-level fat tree (leaf-spine network)."""

from __future__ import annotations

from ..model import Platform
from ..routing import DModK, ShortestPath
from ._common import Builder, Options, Value

__all__ = ["fat_tree"]

ROUTINGS = ("d_mod_k", "shortest_path")


def fat_tree(k_leaves: int, hosts_per_leaf: int, *, spines: int = 2, routing: str = "d_mod_k",
             bandwidth: Value = 1.25e8, latency: Value = 1e-5, trunk_bandwidth: Value | None = None,
             trunk_latency: Value | None = None, speed: Value = 1e9, seed: int = 0,
             name: str | None = None) -> Platform:
    r"""A two-level fat tree: leaf switches with hosts, every leaf linked to every spine.

    ::

          spine0           spine1          link leaf{j}-spine{s} joins every
            |  \__________/  |             leaf to every spine
            |   ____/\____   |
            |  /          \  |
          leaf0           leaf1            host h{i} is on leaf{i // hosts_per_leaf},
          /   \           /   \            by link l{i} (ends ("h{i}", "leaf{j}"))
        h0     h1       h2     h3

    Parameters
    ----------
    k_leaves : int
        Number of leaf switches ``leaf0`` .. (>= 1).
    hosts_per_leaf : int
        Hosts on each leaf (>= 1); ``k_leaves * hosts_per_leaf`` hosts in all.
    spines : int
        Number of spine switches ``spine0`` .. (>= 1). With ``spines ==
        hosts_per_leaf`` and equal bandwidths the tree is non-blocking; fewer
        spines oversubscribe the leaves' uplinks.
    routing : {"d_mod_k", "shortest_path"}
        ``"d_mod_k"``: a transfer to host ``h{t}`` on another leaf climbs to
        spine ``t mod spines``, which spreads destinations evenly over the
        spines (:class:`~collsched.platform.routing.DModK`, routes computed on demand).
        ``"shortest_path"``: hop-count shortest paths with the deterministic
        tie-break, which sends every inter-leaf transfer through ``spine0``.
    bandwidth, latency : float, str or (low, high)
        Of each host link; a range is drawn per link.
    trunk_bandwidth, trunk_latency : float, str or (low, high), optional
        Of each leaf-spine link; default: as the host links.
    speed : float, str or (low, high)
        Host compute speed in flop/s; a range is drawn per host.
    seed : int
        Seed of the draws.
    name : str, optional
        Default ``"fat-tree-{k_leaves}x{hosts_per_leaf}-{spines}spines"``.

    Returns
    -------
    Platform
        Hosts first, then routers ``leaf{j}`` and ``spine{s}``.

    Raises
    ------
    PlatformError
        If an option has a bad value.

    References
    ----------
    .. [1] C. E. Leiserson, "Fat-trees: universal networks for hardware-efficient
       supercomputing", IEEE Trans. Computers C-34(10), 1985.
    .. [2] E. Zahavi, "D-Mod-K routing providing non-blocking traffic for shift
       permutations on real life fat trees", CCIT Report 776, Technion, 2010.

    Examples
    --------
    >>> p = fat_tree(4, 2, spines=2)
    >>> len(p.hosts), len(p.routers), len(p.links)
    (8, 6, 16)
    >>> p.route("h0", "h1")
    ('l0', 'l1')
    >>> p.route("h0", "h3"), p.route("h0", "h2")
    (('l0', 'leaf0-spine1', 'leaf1-spine1', 'l3'), ('l0', 'leaf0-spine0', 'leaf1-spine0', 'l2'))
    """
    opt = Options("fat_tree")
    k_leaves = opt.count("k_leaves", k_leaves)
    hosts_per_leaf = opt.count("hosts_per_leaf", hosts_per_leaf)
    opt.hosts("k_leaves * hosts_per_leaf", k_leaves * hosts_per_leaf)
    spines = opt.count("spines", spines, maximum=1024)
    routing = opt.choice("routing", routing, ROUTINGS)
    bw, lat = opt.link_values(bandwidth, latency)
    tbw, tlat = opt.link_values(trunk_bandwidth, trunk_latency, "trunk_", default=(bw, lat))
    sp = opt.value("speed", speed, "speed")

    b = Builder(opt.seed(seed))
    groups = [b.hosts(hosts_per_leaf, sp) for _ in range(k_leaves)]
    for j, hosts in enumerate(groups):
        b.attach(hosts, b.router(f"leaf{j}"), bw, lat)
    for s in range(spines):
        b.router(f"spine{s}")
    for j in range(k_leaves):
        for s in range(spines):
            b.link(f"leaf{j}-spine{s}", f"leaf{j}", f"spine{s}", tbw, tlat)
    scheme = ShortestPath()
    if routing == "d_mod_k":
        scheme = DModK({h: f"leaf{j}" for j, hosts in enumerate(groups) for h in hosts},
                       tuple(f"spine{s}" for s in range(spines)))
    return b.build(scheme, opt.name(name, f"fat-tree-{k_leaves}x{hosts_per_leaf}-{spines}spines"))
