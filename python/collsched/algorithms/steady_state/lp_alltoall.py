"""SSPA2A: the steady-state LP of a series of personalized all-to-alls (seed 000, section 3.5).

Variables, per time unit: ``send(i→j, m_kl)`` messages of type ``m_kl``
(from ``P_k`` to ``P_l``) on edge ``(i, j)`` of the platform's graph view
(routers are nodes that forward and obey one-port like hosts), and the
throughput ``TP``. Constraints:

* ports (``ports="one"``, seed 000): ``Σ_j Σ_kl send(i→j, m_kl) δ_kl c(i,j) <= 1``
  for sends and likewise for receives, at every node; or
  (``ports="multi"``, GPU fabrics) ``Σ_kl send(i→j, m_kl) δ_kl c(i,j) <= 1``
  for every link direction ``(i, j)`` (:func:`port_rows`);
* conservation at every node other than ``P_k`` and ``P_l``;
* **net** inflow of ``m_kl`` at ``P_l`` equals ``TP`` (DESIGN.md's pitfall:
  seed 000's printed gross inflow lets a cycle through ``P_l`` "deliver"
  messages that never left ``P_k``); columns for edges into ``P_k`` or out
  of ``P_l`` are left out, as they only carry cycles.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1e6, latency=0)
>>> c = cs.AllToAll(senders=p.hosts, size=1e6)
>>> f = solve_flows(p, commodities_of(c))
>>> f.throughput, f.solution.certified
(Fraction(1, 6), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import networkx as nx

from ...collectives import AllToAll, AllToMany, Scatter
from ...errors import CollectiveError
from ...schedules.base import Status
from .canonical import solve_canonical
from .exact import LinearProgram, LPSolution, SteadyStateError

__all__ = ["Network", "network", "FlowSolution", "commodities_of", "solve_flows", "flows_lp", "PORTS", "check_ports",
           "port_rows"]

#: The port models of the steady-state LPs: seed 000's one-port nodes, or every link direction its own capacity.
PORTS = ("one", "multi")


def check_ports(ports) -> str:
    """``ports`` if it names a port model, else ValueError (one line naming the option).

    Examples
    --------
    >>> check_ports("multi")
    'multi'
    >>> check_ports("two")
    Traceback (most recent call last):
    ...
    ValueError: steady_state option ports='two' must be 'one' (one-port nodes, seed 000) or 'multi' (every link direction its own capacity)
    """
    if not isinstance(ports, str) or ports not in PORTS:
        raise ValueError(f"steady_state option ports={ports!r} must be 'one' (one-port nodes, seed 000) or 'multi' "
                         "(every link direction its own capacity)")
    return ports


@dataclass
class Network:
    """The graph view as exact data: nodes, edges ``(u, v)`` with their cost ``c`` (s/byte, Fraction).

    ``channel`` maps each edge to the capacity it draws on under the
    multi-port model: the edge itself (a direction of a full-duplex link, a
    directed link), or ``("shared", link)`` for both directions of a
    ``sharing="shared"`` link.

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.star(2))
    >>> len(net.nodes), len(net.edges)
    (3, 4)
    """

    nodes: list
    edges: list
    cost: dict
    speed: dict
    graph: object = None
    out_edges: dict = field(default_factory=dict)
    in_edges: dict = field(default_factory=dict)
    channel: dict = field(default_factory=dict)


def _exact_cost(edge) -> Fraction:
    """The edge's seconds per byte as an exact rational: ``1 / bandwidth`` or the cost itself, whichever is simpler.

    Both are exact readings of the data (a bandwidth of ``1e6`` means a cost
    of exactly ``1/1000000``; a cost of ``3.0`` a bandwidth of ``1/3``).
    """
    by_bw = 1 / Fraction(float(edge["bandwidth"]))
    by_cost = Fraction(float(edge["cost"]))
    if abs(float(by_bw) - float(by_cost)) > 1e-12 * float(by_cost):
        return by_cost
    return min(by_bw, by_cost, key=lambda f: f.denominator)


def network(platform) -> Network:
    """The platform's graph view (:meth:`Platform.graph`) with exact edge costs and host speeds.

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.star(2, bandwidth=4, latency=0))
    >>> net.cost[net.edges[0]]
    Fraction(1, 4)
    """
    g = platform.graph()
    nodes = list(platform.nodes)
    edges = [(u, v) for u, v in g.edges() if u != v]
    cost = {e: _exact_cost(g.edges[e]) for e in edges}
    speed = {h: Fraction(float(platform.nodes[h].speed)) for h in platform.hosts}
    out_e: dict = {n: [] for n in nodes}
    in_e: dict = {n: [] for n in nodes}
    for e in edges:
        out_e[e[0]].append(e)
        in_e[e[1]].append(e)
    channel = {}
    for e in edges:
        links = g.edges[e]["links"]
        shared = len(links) == 1 and platform.links[links[0]].sharing == "shared"
        channel[e] = ("shared", links[0]) if shared else e
    return Network(nodes, edges, cost, speed, g, out_e, in_e, channel)


def commodities_of(collective) -> list[tuple[str, str, Fraction]]:
    """``(source, destination, bytes)`` of each message type of a scatter, all-to-all or all-to-many.

    Raises
    ------
    CollectiveError
        For another kind of collective.

    Examples
    --------
    >>> import collsched as cs
    >>> commodities_of(cs.Scatter(source="h0", targets=["h1", "h0"], size=2))
    [('h0', 'h1', Fraction(2, 1))]
    """
    c = collective.base
    if isinstance(c, Scatter):
        return [(c.source, t, Fraction(c.size)) for t in c.targets if t != c.source]
    if isinstance(c, AllToAll):
        return [(a, b, Fraction(s)) for a, b, s in c.messages()]
    if isinstance(c, AllToMany):
        return [(a, b, Fraction(s)) for (a, b), s in c.sizes.items() if a != b]
    raise CollectiveError(f"no flow commodities for a {c.kind}")


@dataclass
class FlowSolution:
    """The exact optimum of SSSP / SSPA2A.

    Attributes
    ----------
    throughput : Fraction
        Operations per second.
    send : dict
        ``(u, v, k) -> messages per second`` of commodity ``k`` on edge ``(u, v)`` (non-zero only).
    occupation : dict
        ``(u, v) -> s(u→v)``, the fraction of time the edge is busy.
    commodities : list
    solution : LPSolution
    size : tuple
        ``(rows, columns, nonzeros)`` of the LP.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2, bandwidth=1, latency=0)
    >>> f = solve_flows(p, [("h0", "h1", Fraction(1))])
    >>> f.throughput, f.occupation[("h0", "sw")]
    (Fraction(1, 1), Fraction(1, 1))
    """

    throughput: Fraction
    send: dict
    occupation: dict
    commodities: list
    solution: LPSolution
    size: tuple
    network: Network


def _check_reachable(net: Network, pairs) -> None:
    reach: dict = {}  # the nodes each source reaches, found once per source
    for a, b in pairs:
        if a in net.graph and a not in reach:
            reach[a] = nx.descendants(net.graph, a) | {a}
        if a not in net.graph or b not in reach[a]:
            raise SteadyStateError(f"host {b!r} is unreachable from {a!r} in the platform's graph view",
                                   fix="connect it or drop it from the collective")


def one_port_rows(lp: LinearProgram, net: Network, busy: dict) -> None:
    """Add ``Σ out-time + slack = 1`` and ``Σ in-time + slack = 1`` for every node.

    ``busy`` maps an edge to ``{column: seconds per unit of that column}``.

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.star(2))
    >>> lp = LinearProgram(); one_port_rows(lp, net, {})
    >>> lp.size
    (0, 0, 0)
    """
    for side, edges in (("out", net.out_edges), ("in", net.in_edges)):
        for n in net.nodes:
            coefs: dict = {}
            for e in edges[n]:
                for j, a in busy.get(e, {}).items():
                    coefs[j] = coefs[j] + a if j in coefs else a
            if coefs:
                coefs[lp.column(("slack", side, n))] = Fraction(1)
                lp.row(coefs, 1)


def link_rows(lp: LinearProgram, net: Network, busy: dict) -> None:
    """Add ``Σ time on the channel + slack = 1`` for every channel of the multi-port model (:class:`Network`).

    ``busy`` maps an edge to ``{column: seconds per unit of that column}``.

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.star(2))
    >>> lp = LinearProgram(); x = lp.column("x"); link_rows(lp, net, {("h0", "sw"): {x: 2}})
    >>> lp.rows, lp.names[1]
    ([{0: Fraction(2, 1), 1: Fraction(1, 1)}], ('slack', 'link', ('h0', 'sw')))
    """
    rows: dict = {}
    for e in net.edges:
        for j, a in busy.get(e, {}).items():
            coefs = rows.setdefault(net.channel[e], {})
            coefs[j] = coefs[j] + a if j in coefs else a
    for ch, coefs in rows.items():
        coefs[lp.column(("slack", "link", ch))] = Fraction(1)
        lp.row(coefs, 1)


def port_rows(lp: LinearProgram, net: Network, busy: dict, ports: str) -> None:
    """The capacity rows of the port model: :func:`one_port_rows` (``"one"``) or :func:`link_rows` (``"multi"``).

    Examples
    --------
    >>> import collsched as cs
    >>> net = network(cs.topologies.star(2))
    >>> lp = LinearProgram(); x = lp.column("x"); port_rows(lp, net, {("h0", "sw"): {x: 1}}, "one")
    >>> [lp.names[j] for r in lp.rows for j in r if j]
    [('slack', 'out', 'h0'), ('slack', 'in', 'sw')]
    """
    (one_port_rows if check_ports(ports) == "one" else link_rows)(lp, net, busy)


def flows_lp(platform, commodities, *, ports: str = "one") -> LinearProgram:
    """SSPA2A as a :class:`~.exact.LinearProgram`, its columns named ``("send", u, v, k)`` and ``"TP"``.

    For checking activities found elsewhere (seed 000's figures) with
    :func:`~.exact.objective_of`. ``ports`` as in :func:`solve_flows`.

    Examples
    --------
    >>> import collsched as cs
    >>> flows_lp(cs.topologies.star(2, bandwidth=1, latency=0), [("h0", "h1", Fraction(1))]).size
    (6, 7, 12)
    """
    return _build(platform, commodities, ports)[0]


def _build(platform, commodities, ports: str = "one"):
    """SSPA2A and its column maps: (lp, TP, send columns, busy seconds per edge and column, network)."""
    net = network(platform)
    for a, b, s in commodities:
        if not s > 0:
            raise SteadyStateError(f"message {a}->{b} has size {s}", fix="give positive sizes")
    _check_reachable(net, [(a, b) for a, b, _ in commodities])
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    col: dict = {}
    busy: dict = {}
    seconds: dict = {}  # size · c(e), computed once per distinct size and edge
    for k, (a, b, size) in enumerate(commodities):
        for e in net.edges:
            if e[1] == a or e[0] == b:
                continue
            j = col[(e[0], e[1], k)] = lp.column(("send", e[0], e[1], k))
            sec = seconds.get((size, e))
            if sec is None:
                sec = seconds[(size, e)] = size * net.cost[e]
            busy.setdefault(e, {})[j] = sec
    for k, (a, b, _) in enumerate(commodities):
        for n in net.nodes:
            if n == a:
                continue
            coefs: dict = {}  # edges join distinct nodes, so each column appears once
            for e in net.in_edges[n]:
                j = col.get((e[0], e[1], k))
                if j is not None:
                    coefs[j] = 1
            for e in net.out_edges[n]:
                j = col.get((e[0], e[1], k))
                if j is not None:
                    coefs[j] = -1
            if n == b:
                coefs[tp] = Fraction(-1)
            if coefs:
                lp.row(coefs, 0)
    port_rows(lp, net, busy, ports)
    return lp, tp, col, busy, net


def solve_flows(platform, commodities, *, ports: str = "one", time_limit: float = 60.0) -> FlowSolution:
    """Build and solve SSPA2A (SSSP when every commodity leaves one source), exactly.

    Parameters
    ----------
    platform : Platform
    commodities : list of (str, str, Fraction)
        ``(source, destination, bytes)`` per message type.
    ports : {"one", "multi"}
        One-port nodes (seed 000) or every link direction its own capacity
        (hosts send and receive on all their links at once, routers forward).
    time_limit : float
        Seconds for HiGHS.

    Returns
    -------
    FlowSolution
        Exact and certified when ``solution.status`` is OPTIMAL. The LP
        solved (``size``, ``solution``) is the one with a commodity per
        source (:func:`_build_by_source`), whose optimum equals
        :func:`flows_lp`'s; ``send`` is its split per message type.
        ``solution.unique`` also requires the split to be forced.

    Raises
    ------
    SteadyStateError
        If a destination is unreachable, or the throughput is zero.
    ValueError
        If ``ports`` is not a port model.

    Examples
    --------
    A scatter from ``h0`` on a star: one-port, ``h0`` sends one message at
    a time; multi-port, its one link to the switch is still the bottleneck,
    but the switch sends to ``h1`` and ``h2`` at once. An all-to-all gains
    more: every host sends and receives at once.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1, latency=0)
    >>> scatter = [("h0", "h1", Fraction(1)), ("h0", "h2", Fraction(1))]
    >>> solve_flows(p, scatter).throughput, solve_flows(p, scatter, ports="multi").throughput
    (Fraction(1, 2), Fraction(1, 2))
    >>> a2a = commodities_of(cs.AllToAll(senders=p.hosts, size=1))
    >>> solve_flows(p, a2a).throughput, solve_flows(p, a2a, ports="multi").throughput
    (Fraction(1, 6), Fraction(1, 2))
    """
    lp, tp, col, busy, net, demand = _build_by_source(platform, commodities, check_ports(ports))
    sol = solve_canonical(lp, {j: sec for cols in busy.values() for j, sec in cols.items()}, time_limit=time_limit)
    if sol.status is not Status.OPTIMAL:
        return FlowSolution(Fraction(0), {}, {}, list(commodities), sol, lp.size, net)
    if sol.objective == 0:
        raise SteadyStateError("the steady-state throughput is zero", fix="check link bandwidths")
    send, forced = _split_by_destination(commodities, {key: sol.x[j] for key, j in col.items() if sol.x[j]},
                                         demand, sol.objective)
    occ: dict = {}
    for (u, v, k), val in send.items():
        occ[(u, v)] = occ.get((u, v), 0) + val * commodities[k][2] * net.cost[(u, v)]
    sol = replace(sol, unique=sol.unique and forced)
    return FlowSolution(sol.objective, send, occ, list(commodities), sol, lp.size, net)


def _build_by_source(platform, commodities, ports: str = "one"):
    """SSPA2A with the commodities of one source merged: (lp, TP, flow columns, busy, network, demands).

    Columns ``("flow", u, v, a)``: what leaves source ``a`` on edge
    ``(u, v)`` per time unit, counted in the source's largest message (so
    that the coefficients keep the scale of :func:`flows_lp`'s, which HiGHS
    needs); at every other node ``n``, net inflow equals ``TP`` times the
    messages ``a -> n`` in that unit (``demand[a][n]``). Any
    solution of :func:`flows_lp` sums to one of this LP with the same ``TP``
    and the same busy time, and any solution of this LP splits into one of
    :func:`flows_lp` (:func:`_split_by_destination`) with no more busy time:
    the two optima are equal (``tests/steady_state/test_steady_state_by_source.py``
    checks it exactly), with N times fewer columns for an all-to-all of N.
    """
    net = network(platform)
    for a, b, s in commodities:
        if not s > 0:
            raise SteadyStateError(f"message {a}->{b} has size {s}", fix="give positive sizes")
    _check_reachable(net, [(a, b) for a, b, _ in commodities])
    unit: dict = {}
    for a, _, size in commodities:
        unit[a] = max(unit.get(a, size), size)
    demand: dict = {}
    for a, b, size in commodities:
        demand.setdefault(a, {})
        demand[a][b] = demand[a].get(b, 0) + size / unit[a]
    lp = LinearProgram()
    tp = lp.column("TP")
    lp.objective[tp] = Fraction(1)
    col: dict = {}
    busy: dict = {}
    for a in demand:
        for e in net.edges:
            if e[1] != a:  # edges into the source only carry cycles
                j = col[(e[0], e[1], a)] = lp.column(("flow", e[0], e[1], a))
                busy.setdefault(e, {})[j] = unit[a] * net.cost[e]
    for a, sinks in demand.items():
        for n in net.nodes:
            if n == a:
                continue
            coefs: dict = {}
            for e in net.in_edges[n]:
                coefs[col[(e[0], e[1], a)]] = 1
            for e in net.out_edges[n]:
                j = col.get((e[0], e[1], a))
                if j is not None:
                    coefs[j] = -1
            if n in sinks:
                coefs[tp] = -sinks[n]
            if coefs:
                lp.row(coefs, 0)
    port_rows(lp, net, busy, ports)
    return lp, tp, col, busy, net, demand


def _split_by_destination(commodities, flow: dict, demand: dict, tp: Fraction) -> tuple[dict, bool]:
    """Per-message sends ``{(u, v, k): messages per time unit}`` from the per-source flows of :func:`_build_by_source`.

    Step 1: per source, paths to each destination along the flow's edges
    (breadth first), each carrying the least of its bottleneck and what the
    destination still lacks, until every message type gets ``TP`` messages
    per time unit (a path always exists while one lacks: conservation).
    Step 2: bytes become messages of the type's size. Also returns whether
    the split was forced: every node receives a source's flow on one edge at
    most (a tree), so every optimum of :func:`flows_lp` is this split of a
    unique optimum of the merged LP.
    """
    rest: dict = {}
    for (u, v, a), x in flow.items():
        rest.setdefault(a, {}).setdefault(u, {})[v] = x
    into: dict = {}
    for (u, v, a) in flow:
        into[(a, v)] = into.get((a, v), 0) + 1
    forced = all(c == 1 for c in into.values())
    lacking = {(a, b): tp * size for a, sinks in demand.items() for b, size in sinks.items()}
    kinds: dict = {}
    for k, (a, b, _) in enumerate(commodities):
        kinds.setdefault((a, b), []).append(k)
    send: dict = {}
    for (a, b), need in lacking.items():
        out = rest.get(a, {})
        while need > 0:
            parent = {a: None}  # step 1: a path a -> b along edges with flow left, breadth first
            frontier = [a]
            while b not in parent:
                if not frontier:  # pragma: no cover - conservation rules it out
                    raise SteadyStateError(f"the flow from {a!r} does not reach {b!r}", fix="report this bug")
                nxt = []
                for u in frontier:
                    for v, x in out.get(u, {}).items():
                        if x > 0 and v not in parent:
                            parent[v] = u
                            nxt.append(v)
                frontier = nxt
            hops = []
            v = b
            while parent[v] is not None:
                hops.append((parent[v], v))
                v = parent[v]
            r = min([need] + [out[u][v] for u, v in hops])
            need -= r
            for u, v in hops:
                out[u][v] -= r
            for k in kinds[(a, b)]:  # step 2: as many messages of each of the pair's types
                for u, v in hops:
                    send[(u, v, k)] = send.get((u, v, k), 0) + r / demand[a][b]
    return send, forced
