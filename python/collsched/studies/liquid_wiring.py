"""Which Swiss-T1 wiring? A search of a wiring family against two of seed 001's counts.

Seed 001 does not give the Swiss-T1's inter-switch wiring nor its routing
tables; it gives two numbers they determine: **363** distinct liquid
throughputs over the 5^8 node allocations (section 5) and **48,704** edges
in the conflict graph of the all-to-all among all 32 nodes (Annex B: a
vertex per transfer, an edge between two transfers sharing a link). This
module searches a family of wirings for one that gives both:

* **wiring**: 8 switches of 4 nodes on a ring, plus the chords of every
  subset of skips {2, 3, 4} (the circulant graphs ``C8(1, S)``; a K-ring is
  a union of rings, and these are the unions of the ring with the skip-s
  rings);
* **routing**: every rotation-invariant choice of shortest switch paths
  (the route from ``a`` to ``b`` is the route from 0 to ``b - a`` shifted by
  ``a``; one shortest path chosen per offset), and collsched's own
  shortest-path routing with deterministic ties (which need not be
  rotation-invariant);
* **transfers**: ``n (n - 1)`` (no node sends to itself, collsched's
  AllToAll) or ``n^2`` (each node's emitting processor also sends to its own
  receiving processor through the node link, as "each emitting processor
  sends one packet to each receiving processor" may mean).

Examples
--------
>>> routes = offset_routes((2, 3))
>>> len(routes[4]), routes[1]
(6, [(0, 1)])
>>> paths = rotation_paths(8, (2, 3), {4: (0, 2, 4)})
>>> paths[(1, 5)]
('1>3', '3>5')
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["SKIP_SETS", "offset_routes", "rotation_paths", "conflict_edges", "distinct_throughputs", "wirings",
           "switch_paths", "enumerate_allocations"]

#: The chord skip sets of the family (the ring alone is ``()``).
SKIP_SETS = ((), (2,), (3,), (4,), (2, 3), (2, 4), (3, 4), (2, 3, 4))
#: The paper's counts: distinct liquid throughputs (section 5) and conflict-graph edges of the 32 x 32 all-to-all.
PAPER = {"distinct": 363, "edges": 48704}


def switch_paths(p, switches: int, per: int) -> dict[tuple[int, int], tuple[str, ...]]:
    """The trunk resources (link directions between switches) of the route from switch ``a`` to switch ``b``.

    Checks that every host pair of the two switches takes the same trunk
    path, so that loads depend only on the node counts per switch.

    Parameters
    ----------
    p : Platform
    switches, per : int
        Switch count and hosts per switch (hosts numbered switch by switch).

    Returns
    -------
    dict of (int, int) to tuple of str
        Trunk resource names, as in :func:`~collsched.algorithms.liquid.traffic.traffic_of`.

    Raises
    ------
    AssertionError
        If two host pairs of the same switch pair take different trunk paths.

    Examples
    --------
    >>> from collsched.studies.liquid import swiss_t1
    >>> p, _ = swiss_t1()
    >>> switch_paths(p, 8, 4)[(0, 4)]
    ('r0', 'c1-4')
    """
    host_links = {f"l{k}" for k in range(switches * per)}
    out: dict[tuple[int, int], tuple[str, ...]] = {}
    for a in range(switches):
        for b in range(switches):
            if a == b:
                continue
            seen = set()
            for i in range(per):
                for j in range(per):
                    hops = p.route_hops(f"h{a * per + i}", f"h{b * per + j}")
                    seen.add(tuple(lid if fwd else f"{lid}<" for lid, fwd in hops if lid not in host_links))
            assert len(seen) == 1, f"switches {a} and {b} use several trunk paths"
            out[(a, b)] = seen.pop()
    return out


def enumerate_allocations(paths, switches: int, per: int):
    """Every allocation of ``0 .. per`` nodes per switch, with its traffic's size and duration Λ.

    Returns
    -------
    counts : ndarray of shape (A, switches)
        Nodes per switch, one row per allocation of at least 2 nodes.
    n_transfers : ndarray of shape (A,)
        ``n (n - 1)``.
    duration : ndarray of shape (A,)
        Λ: the largest of ``n - 1`` (node links) and every trunk direction's
        ``Σ n_a n_b`` over the switch pairs routed through it.

    Examples
    --------
    >>> from collsched.studies.liquid import swiss_t1
    >>> p, _ = swiss_t1()
    >>> counts, nt, lam = enumerate_allocations(switch_paths(p, 2, 4), 2, 4)
    >>> len(counts), int(nt.max()), int(lam.max())
    (22, 56, 16)
    """
    counts = np.indices((per + 1,) * switches, dtype=np.int64).reshape(switches, -1).T
    n = counts.sum(axis=1)
    keep = n >= 2
    counts, n = counts[keep], n[keep]
    trunks = sorted({r for path in paths.values() for r in path})
    col = {r: k for k, r in enumerate(trunks)}
    # trunk t carries Σ n_a n_b over the switch pairs routed through it: one product per switch pair, then
    # (products) @ W with W[pair, t] = 1 if the pair's route holds t (float32 products are exact: every value
    # is below 2^24)
    pairs = sorted(paths)
    w = np.zeros((len(pairs), len(trunks)), dtype=np.float32)
    for k, pair in enumerate(pairs):
        for r in paths[pair]:
            w[k, col[r]] += 1
    nf = counts.astype(np.float32)
    prod = np.stack([nf[:, a] * nf[:, b] for a, b in pairs], axis=1)
    most = (prod @ w).max(axis=1) if len(trunks) else np.zeros(len(counts), dtype=np.float32)
    loads = np.rint(most).astype(np.int64)[:, None]
    duration = np.maximum(n - 1, loads.max(axis=1))
    return counts, n * (n - 1), duration


def offset_routes(skips, switches: int = 8) -> dict[int, list[tuple[int, ...]]]:
    """Every shortest switch path from switch 0 to each offset on the circulant graph ``C_n(1, skips)``.

    Parameters
    ----------
    skips : sequence of int
        Chord skips besides the ring's 1.
    switches : int

    Returns
    -------
    dict of int to list of tuple of int
        ``offset -> [(0, ..., offset), ...]``, every shortest path, sorted.

    Examples
    --------
    >>> offset_routes((), 4)[2]
    [(0, 1, 2), (0, 3, 2)]
    """
    steps = sorted({s % switches for k in (1, *skips) for s in (k, -k)})
    out: dict[int, list[tuple[int, ...]]] = {}
    frontier = [(0,)]
    seen = {0}
    while len(seen) < switches:
        nxt = [p + ((p[-1] + s) % switches,) for p in frontier for s in steps
               if (p[-1] + s) % switches not in seen]
        for p in nxt:
            out.setdefault(p[-1], []).append(p)
        seen |= {p[-1] for p in nxt}
        frontier = nxt
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def rotation_paths(switches: int, skips, choice: dict[int, tuple[int, ...]]) -> dict[tuple[int, int], tuple[str, ...]]:
    """Trunk resources of every switch pair's route, each route the chosen one of its offset, shifted.

    Parameters
    ----------
    switches : int
    skips : sequence of int
        Unused but for the record (the paths in ``choice`` are on ``C_n(1, skips)``).
    choice : dict of int to tuple of int
        The path from switch 0 for the offsets with several shortest paths;
        the others take their only one.

    Returns
    -------
    dict of (int, int) to tuple of str
        ``(a, b) -> ("u>v", ...)``: the link directions the route holds.

    Examples
    --------
    >>> rotation_paths(4, (), {2: (0, 3, 2)})[(1, 3)]
    ('1>0', '0>3')
    """
    routes = offset_routes(skips, switches)
    out = {}
    for a in range(switches):
        for b in range(switches):
            if a == b:
                continue
            off = (b - a) % switches
            path = choice.get(off, routes[off][0])
            seq = [(a + v) % switches for v in path]
            out[(a, b)] = tuple(f"{u}>{v}" for u, v in zip(seq, seq[1:]))
    return out


def conflict_edges(paths, switches: int, per: int, *, self_transfers: bool) -> int:
    """Edges of the conflict graph of the all-to-all among every node: pairs of transfers sharing a link direction.

    A transfer ``i -> j`` holds ``i``'s node link upwards, ``j``'s downwards
    and the trunk directions of its switches' route.

    Examples
    --------
    >>> paths = rotation_paths(2, (), {})
    >>> conflict_edges(paths, 2, 1, self_transfers=False)   # h0 -> h1 and h1 -> h0 share no direction
    0
    >>> conflict_edges(paths, 2, 1, self_transfers=True)    # h0 -> h0 shares h0's links with both
    4
    """
    n = switches * per
    index: dict = {}
    rows = []
    for i in range(n):
        for j in range(n):
            if i == j and not self_transfers:
                continue
            res = [("up", i), ("down", j)] + list(paths.get((i // per, j // per), ()))
            rows.append([index.setdefault(r, len(index)) for r in res])
    a = np.zeros((len(rows), len(index)), dtype=np.float32)
    for k, r in enumerate(rows):
        a[k, r] = 1.0
    share = (a @ a.T) > 0
    return int((int(share.sum()) - len(rows)) // 2)


def distinct_throughputs(paths, switches: int, per: int, *, self_transfers: bool) -> int:
    """Distinct liquid throughputs ``#(X) / Λ(X)`` over every allocation of 0 .. ``per`` nodes per switch.

    Examples
    --------
    >>> distinct_throughputs(rotation_paths(2, (), {}), 2, 2, self_transfers=False)   # 2/1 (n=2) and 3 (n=3, 4)
    2
    """
    counts, n_tr, lam = enumerate_allocations(paths, switches, per)
    if self_transfers:
        n = counts.sum(axis=1)
        n_tr, lam = n * n, np.maximum(lam, n)
    g = np.gcd(n_tr, lam)
    return len(np.unique((n_tr // g) * (int(lam.max()) + 1) + lam // g))


def wirings(switches: int = 8, skip_sets=SKIP_SETS):
    """Every wiring of the family: ``(skips, routing label, paths)``, rotation-invariant routings first.

    The label names the chosen path of each offset with several shortest
    paths (``"3:0-1-3"``), or ``"collsched ties"`` for the platform's own
    routing (:func:`collsched.topologies.switch_ring`).

    Examples
    --------
    >>> [(s, label) for s, label, _ in wirings(4, ((),))]
    [((), '2:0-1-2'), ((), '2:0-3-2'), ((), 'collsched ties')]
    """
    from .. import topologies

    for skips in skip_sets:
        routes = offset_routes(skips, switches)
        multi = [k for k, v in routes.items() if len(v) > 1]
        for pick in itertools.product(*(routes[k] for k in multi)):
            choice = dict(zip(multi, pick))
            label = " ".join(f"{k}:{'-'.join(map(str, p))}" for k, p in choice.items()) or "unique"
            yield skips, label, rotation_paths(switches, skips, choice)
        p = topologies.switch_ring(switches, 1, chords=list(skips) or None, bandwidth=1.0, latency=0.0)
        own = switch_paths(p, switches, 1)
        ends = {lid: link.ends for lid, link in p.links.items()}

        def name(r, ends=ends):
            u, v = ends[r.rstrip("<")]
            u, v = (v, u) if r.endswith("<") else (u, v)
            return f"{u[2:]}>{v[2:]}"

        yield skips, "collsched ties", {k: tuple(name(r) for r in v) for k, v in own.items()}
