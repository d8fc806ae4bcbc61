"""Read a SimGrid platform file (DTD version 4.1) into a tree of zones, as SimGrid builds it.

This is the first half of :func:`collsched.platform.io.platform_from_simgrid`:
elements become :class:`SgZone`, :class:`SgNode` and :class:`SgLink` objects,
``<cluster>`` and ``<cabinet>`` are expanded exactly as SimGrid expands them
(``src/kernel/xml/sg_platf.cpp``), and every ``<link_ctn>`` becomes a hop
``(link id, up)``: ``up`` is True except for the DOWN half of a
SPLITDUPLEX link. The second half, :mod:`._simgrid_routing`, computes routes.

Supported: ``<zone>``/``<AS>`` with routing Full, Floyd, Dijkstra,
DijkstraCache, None and Cluster; ``<host>``, ``<router>``, ``<link>``,
``<route>``, ``<zoneRoute>``/``<ASroute>``, flat ``<cluster>``, ``<cabinet>``,
``<backbone>``, ``<host_link>``, ``<prop>``. Ignored (no effect on routes):
``<config>``, ``<actor>``, traces, disks and storage. Anything else is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field as _field
from typing import Callable

from ...fileformat import Where, field
from ._xml import Element

__all__ = ["SgLink", "SgNode", "SgRoute", "SgZone", "SgPlatform", "read_simgrid", "reverse", "SHARING"]

Hop = tuple[str, bool]
SHARING = {"SHARED": "shared", "SPLITDUPLEX": "full_duplex", "FULLDUPLEX": "full_duplex", "FATPIPE": "fatpipe"}
ROUTINGS = {"full": "full", "floyd": "floyd", "dijkstra": "dijkstra", "dijkstracache": "dijkstra",
            "none": "none", "cluster": "star"}
_IGNORED = {"config", "actor", "process", "argument", "trace", "trace_connect", "random", "storage_type",
            "storage", "mount", "disk", "model_prop"}
_UNSUPPORTED = {"include", "peer", "bypassRoute", "bypassZoneRoute", "bypassASroute", "bypassAsRoute"}


@dataclass
class SgLink:
    id: str
    bandwidth: float
    latency: float
    sharing: str  # collsched's name: full_duplex (SPLITDUPLEX), shared, fatpipe
    line: int
    props: dict[str, str] = _field(default_factory=dict)


@dataclass
class SgNode:
    id: str
    kind: str  # "host" or "router"
    zone: SgZone
    line: int
    speed: float | None = None
    props: dict[str, str] = _field(default_factory=dict)


@dataclass
class SgRoute:
    """A declared ``<route>`` (no gateways) or ``<zoneRoute>`` (between two sub-zones, with gateways)."""

    src: str
    dst: str
    hops: tuple[Hop, ...]
    gw_src: str | None
    gw_dst: str | None
    symmetrical: bool
    line: int


@dataclass
class SgZone:
    id: str
    routing: str  # full, floyd, dijkstra, none, star
    parent: SgZone | None
    line: int
    members: list[str] = _field(default_factory=list)  # hosts, routers, sub-zones, in creation order
    routes: list[SgRoute] = _field(default_factory=list)
    star: dict[str, tuple[tuple[Hop, ...], tuple[Hop, ...]]] = _field(default_factory=dict)  # member: (up, down)
    center: str | None = None  # the router every star route passes by (a <cluster>'s router)
    props: dict[str, str] = _field(default_factory=dict)
    children: list[SgZone] = _field(default_factory=list)


@dataclass
class SgPlatform:
    root: SgZone
    nodes: dict[str, SgNode]  # hosts and routers, in document order
    zones: dict[str, SgZone]
    links: dict[str, SgLink]  # in creation order

    def reverse(self, hops: tuple[Hop, ...]) -> tuple[Hop, ...]:
        """The hops of the symmetrical route."""
        return reverse(hops, self.links)


def reverse(hops: tuple[Hop, ...], links: dict[str, SgLink]) -> tuple[Hop, ...]:
    """The hops of the symmetrical route: reversed, with UP and DOWN swapped on SPLITDUPLEX links."""
    return tuple((link, not up) if links[link].sharing == "full_duplex" else (link, up) for link, up in reversed(hops))


def _where(source: str, element: Element) -> Where:
    a = element.attrib
    keys = ("id",) if "id" in a else tuple(k for k in ("src", "dst") if k in a)
    selector = "".join(f"[@{k}={a[k]!r}]" for k in keys)
    return Where(f"{source}:{element.line}", f"{element.tag}{selector}", sep="/@")


def read_simgrid(root: Element, source: str) -> SgPlatform:
    """Build the zone tree of a parsed SimGrid platform file.

    Raises
    ------
    FormatError
        ``file:line: element/@attribute: what`` for any element or value SimGrid would reject
        (or that this reader does not support).
    """
    return _Reader(source).platform(root)


class _Reader:
    def __init__(self, source: str):
        self.source = source
        self.nodes: dict[str, SgNode] = {}
        self.zones: dict[str, SgZone] = {}
        self.links: dict[str, SgLink] = {}
        self.lines: dict[tuple[str, str], int] = {}  # ("netpoint" or "link", id) -> line of its declaration
        self.pending: list[tuple[SgZone, Element]] = []  # routes, resolved once every link is known

    # --- the document ------------------------------------------------------------------
    def platform(self, root: Element) -> SgPlatform:
        where = _where(self.source, root)
        if root.tag != "platform":
            raise where.error(f"not a SimGrid platform: the root element is <{root.tag}>, not <platform>")
        version = root.attrib.get("version", "0.0")
        if version.split(".")[0] != "4":
            raise where.at("version").error(f"SimGrid platform version {version!r} is not supported",
                                            fix="collsched reads version 4.1; upgrade the file with simgrid_update_xml")
        top = None
        for child in root.children:
            if child.tag in ("zone", "AS", "cluster"):
                if top is not None:
                    raise _where(self.source, child).error("a second root zone", fix="put both in one englobing zone")
                top = self.zone(child, None) if child.tag != "cluster" else self.cluster(child, None)
            else:
                self.other(child)
        if top is None:
            raise where.error("the platform has no <zone>", fix="put hosts, links and routes in a <zone>")
        for zone, element in self.pending:
            zone.routes.append(self.route(zone, element))
        return SgPlatform(top, self.nodes, self.zones, self.links)

    def other(self, element: Element) -> None:
        where = _where(self.source, element)
        if element.tag in _UNSUPPORTED:
            raise where.error(f"<{element.tag}> is not supported by collsched's SimGrid reader")
        if element.tag not in _IGNORED:
            raise where.error(f"unexpected element <{element.tag}> here")

    # --- zones -------------------------------------------------------------------------
    def new_zone(self, ident: str, routing: str, parent: SgZone | None, element: Element) -> SgZone:
        self.declare(ident, element)
        zone = SgZone(ident, routing, parent, element.line)
        self.zones[ident] = zone
        if parent is not None:
            if len(parent.members) > len(parent.children):  # it holds hosts or routers
                raise _where(self.source, element).error(
                    f"zone {parent.id!r} holds both hosts or routers and sub-zones",
                    fix="SimGrid zones hold one or the other: move the hosts into a zone of their own")
            parent.members.append(ident)
            parent.children.append(zone)
        return zone

    def zone(self, element: Element, parent: SgZone | None) -> SgZone:
        where = _where(self.source, element)
        routing = field(element.attrib, "routing", where, type=str)
        if routing.lower() not in ROUTINGS:
            raise where.at("routing").error(f"zone routing {routing!r} is not supported",
                                            fix="use Full, Floyd, Dijkstra, DijkstraCache, None or Cluster")
        zone = self.new_zone(field(element.attrib, "id", where, type=str), ROUTINGS[routing.lower()], parent, element)
        cluster = _ClusterParts()
        handlers: dict[str, Callable[[Element], object]] = {
            "zone": lambda e: self.zone(e, zone), "AS": lambda e: self.zone(e, zone),
            "cluster": lambda e: self.cluster(e, zone), "host": lambda e: self.host(e, zone),
            "router": lambda e: self.router(e, zone), "link": self.link,
            "prop": lambda e: self.prop(e, zone.props),
            "route": lambda e: self.pending.append((zone, e)), "zoneRoute": lambda e: self.pending.append((zone, e)),
            "ASroute": lambda e: self.pending.append((zone, e)),
            "backbone": lambda e: setattr(cluster, "backbone", self.backbone(e, zone)),
            "host_link": cluster.host_links.append, "cabinet": lambda e: self.cabinet(e, zone, cluster),
        }
        for child in element.children:
            here = _where(self.source, child)
            if child.tag in ("backbone", "host_link", "cabinet") and zone.routing != "star":
                raise here.error(f"<{child.tag}> is only allowed in a zone with routing=\"Cluster\"")
            if child.tag in ("route", "zoneRoute", "ASroute") and zone.routing == "star":
                raise here.error(f"<{child.tag}> is not allowed in a zone with routing=\"Cluster\"",
                                 fix="connect its hosts with <host_link>")
            handlers.get(child.tag, self.other)(child)
        if zone.routing == "star":
            for item in cluster.host_links:
                self.host_link(item, zone, cluster.backbone)
        return zone

    # --- hosts, routers, links -----------------------------------------------------------
    def declare(self, ident: str, element: Element, kind: str = "netpoint") -> None:
        where = _where(self.source, element)
        if not ident:
            raise where.at("id").error("empty id")
        taken = ident in self.links if kind == "link" else ident in self.nodes or ident in self.zones
        if taken:
            raise where.at("id").error(f"duplicate {'link' if kind == 'link' else 'host, router or zone'} id "
                                       f"{ident!r} (first declared at line {self.lines[kind, ident]})")
        self.lines[kind, ident] = element.line

    def add_node(self, ident: str, kind: str, zone: SgZone, element: Element, speed: float | None = None,
                 props: dict[str, str] | None = None) -> None:
        if zone.children:
            raise _where(self.source, element).error(
                f"zone {zone.id!r} holds both sub-zones and hosts or routers",
                fix="SimGrid zones hold one or the other: move the hosts into a zone of their own")
        self.declare(ident, element)
        self.nodes[ident] = SgNode(ident, kind, zone, element.line, speed, props or {})
        zone.members.append(ident)

    def host(self, element: Element, zone: SgZone) -> None:
        where = _where(self.source, element)
        ident = field(element.attrib, "id", where, type=str)
        speeds = field(element.attrib, "speed", where, type=str).split(",")
        pstate = element.attrib.get("pstate", "0")
        try:
            index = int(float(pstate))
        except ValueError:
            index = -1
        if not 0 <= index < len(speeds) or index != float(pstate):
            raise where.at("pstate").error(f"no pstate {pstate!r} among the {len(speeds)} speeds given")
        speed = field({"speed": speeds[index].strip()}, "speed", where, dimension="speed", positive=True)
        props: dict[str, str] = {}
        for child in element.children:
            self.prop(child, props) if child.tag == "prop" else self.other(child)
        self.add_node(ident, "host", zone, element, speed, props)

    def router(self, element: Element, zone: SgZone) -> None:
        self.add_node(field(element.attrib, "id", _where(self.source, element), type=str), "router", zone, element)

    def link(self, element: Element) -> None:
        where = _where(self.source, element)
        a = element.attrib
        policy = field(a, "sharing_policy", where, default="SHARED")
        if policy not in SHARING:
            raise where.at("sharing_policy").error(f"sharing policy {policy!r} is not supported",
                                                   fix="use SHARED, SPLITDUPLEX or FATPIPE")
        props: dict[str, str] = {}
        for child in element.children:
            self.prop(child, props) if child.tag == "prop" else self.other(child)
        self.new_link(field(a, "id", where, type=str),
                      field(a, "bandwidth", where, dimension="bandwidth", positive=True),
                      field(a, "latency", where, dimension="time", minimum=0, default=0.0), SHARING[policy],
                      element, props)

    def new_link(self, ident: str, bandwidth: float, latency: float, sharing: str, element: Element,
                 props: dict[str, str] | None = None) -> str:
        self.declare(ident, element, "link")
        self.links[ident] = SgLink(ident, bandwidth, latency, sharing, element.line, props or {})
        return ident

    def prop(self, element: Element, props: dict[str, str]) -> None:
        where = _where(self.source, element)
        props[field(element.attrib, "id", where, type=str)] = field(element.attrib, "value", where, type=str)

    # --- routes ----------------------------------------------------------------------------
    def route(self, zone: SgZone, element: Element) -> SgRoute:
        where = _where(self.source, element)
        a = element.attrib
        src, dst = field(a, "src", where, type=str), field(a, "dst", where, type=str)
        between_zones = element.tag != "route"
        for end in ("src", "dst"):
            self.check_member(a[end], zone, between_zones, where, end)
        gateways: list[str | None] = [None, None]
        if between_zones:
            for i, (end, gw) in enumerate((("src", "gw_src"), ("dst", "gw_dst"))):
                gateways[i] = field(a, gw, where, type=str)
                if gateways[i] not in self.nodes:
                    raise where.at(gw).error(f"unknown host or router {gateways[i]!r}")
                if not _inside(self.nodes[gateways[i]].zone, self.zones[a[end]]):
                    raise where.at(gw).error(f"gateway {gateways[i]!r} is not inside zone {a[end]!r}")
        symmetrical = field(a, "symmetrical", where, choices=("YES", "NO", "yes", "no"), default="YES")
        hops = []
        for child in element.children:
            if child.tag != "link_ctn":
                raise _where(self.source, child).error(f"unexpected element <{child.tag}> in a route")
            here = _where(self.source, child)
            direction = field(child.attrib, "direction", here, choices=("UP", "DOWN", "NONE"), default="NONE")
            hops.append(self.link_ref(field(child.attrib, "id", here, type=str), direction, here))
        return SgRoute(src, dst, tuple(hops), gateways[0], gateways[1], symmetrical.upper() == "YES", element.line)

    def check_member(self, ident: str, zone: SgZone, is_zone: bool, where: Where, end: str) -> None:
        kind = "zone" if is_zone else "host or router"
        if ident not in (self.zones if is_zone else self.nodes):
            other = " (it is a zone: use <zoneRoute>)" if ident in self.zones else (
                " (it is a host or router: use <route>)" if ident in self.nodes else "")
            raise where.at(end).error(f"unknown {kind} {ident!r}{other}")
        if (self.zones[ident].parent if is_zone else self.nodes[ident].zone) is not zone:
            raise where.at(end).error(f"{kind} {ident!r} is not directly in zone {zone.id!r}",
                                      fix="declare the route in the zone that holds both ends")

    def link_ref(self, ident: str, direction: str, where: Where) -> Hop:
        """A hop on the link that SimGrid names ``ident`` (``X``, or ``X_UP``/``X_DOWN`` for SPLITDUPLEX ``X``)."""
        link = self.links.get(ident)
        if link is not None:
            if link.sharing != "full_duplex":
                return (ident, True)
            if direction == "NONE":
                raise where.error(f"link {ident!r} is SPLITDUPLEX, so the route must say its direction",
                                  fix='add direction="UP" or direction="DOWN"')
            return (ident, direction == "UP")
        for suffix, up in (("_UP", True), ("_DOWN", False)):
            base = ident[: -len(suffix)]
            if ident.endswith(suffix) and base in self.links and self.links[base].sharing == "full_duplex":
                return (base, up)
        raise where.at("id").error(f"unknown link {ident!r}")

    # --- clusters --------------------------------------------------------------------------
    def cluster(self, element: Element, parent: SgZone | None) -> SgZone:
        """Expand ``<cluster>`` as SimGrid does (``sg_platf_new_cluster_flat``)."""
        where = _where(self.source, element)
        a = element.attrib
        if a.get("topology", "FLAT") != "FLAT":
            raise where.at("topology").error(f"cluster topology {a['topology']!r} is not supported",
                                             fix="collsched reads FLAT clusters")
        ident = field(a, "id", where, type=str)
        prefix, suffix = field(a, "prefix", where, type=str), field(a, "suffix", where, type=str)
        speed = field({"speed": field(a, "speed", where, type=str).split(",")[0].strip()}, "speed", where,
                      dimension="speed", positive=True)
        bw = field(a, "bw", where, dimension="bandwidth", positive=True)
        lat = field(a, "lat", where, dimension="time", minimum=0)
        policy = field(a, "sharing_policy", where, choices=("SHARED", "SPLITDUPLEX", "FULLDUPLEX", "FATPIPE"),
                       default="SPLITDUPLEX")
        radicals = _radicals(field(a, "radical", where, type=str), where.at("radical"))
        zone = self.new_zone(ident, "star", parent, element)
        for child in element.children:
            self.prop(child, {}) if child.tag == "prop" else self.other(child)
        backbone = None
        bb_lat = field(a, "bb_lat", where, dimension="time", minimum=0, default=0.0)
        if a.get("bb_bw", "") or bb_lat > 0:
            bb_policy = field(a, "bb_sharing_policy", where, choices=("SHARED", "FATPIPE"), default="SHARED")
            bb_bw = field(a, "bb_bw", where, dimension="bandwidth", positive=True)
            backbone = (self.new_link(f"{ident}_backbone", bb_bw, bb_lat, SHARING[bb_policy], element), True)
        limiter = None
        if a.get("limiter_link"):
            limiter = field(a, "limiter_link", where, dimension="bandwidth", positive=True)
        for i in radicals:
            host = f"{prefix}{i}{suffix}"
            self.add_node(host, "host", zone, element, speed)
            up: list[Hop] = []
            if limiter is not None:
                up.append((self.new_link(f"{ident}_link_{i}_limiter", limiter, 0.0, "shared", element), True))
            up.append((self.new_link(f"{ident}_link_{i}", bw, lat, SHARING[policy], element), True))
            if backbone is not None:
                up.append(backbone)
            zone.star[host] = (tuple(up), reverse(tuple(up), self.links))
        zone.center = a.get("router_id") or f"{prefix}{ident}_router{suffix}"
        self.add_node(zone.center, "router", zone, element)
        return zone

    def backbone(self, element: Element, zone: SgZone) -> Hop:
        where = _where(self.source, element)
        a = element.attrib
        bandwidth = field(a, "bandwidth", where, dimension="bandwidth", positive=True)
        latency = field(a, "latency", where, dimension="time", minimum=0)
        return (self.new_link(field(a, "id", where, type=str), bandwidth, latency, "shared", element), True)

    def host_link(self, element: Element, zone: SgZone, backbone: Hop | None) -> None:
        where = _where(self.source, element)
        a = element.attrib
        host = field(a, "id", where, type=str)
        if host not in zone.members or self.nodes[host].kind != "host":
            raise where.at("id").error(f"host {host!r} is not in zone {zone.id!r}")
        up = self.link_ref(field(a, "up", where, type=str), "NONE", where.at("up"))
        down = self.link_ref(field(a, "down", where, type=str), "NONE", where.at("down"))
        zone.star[host] = ((up, backbone) if backbone else (up,), (backbone, down) if backbone else (down,))

    def cabinet(self, element: Element, zone: SgZone, parts: _ClusterParts) -> None:
        where = _where(self.source, element)
        a = element.attrib
        speed = field(a, "speed", where, dimension="speed", positive=True)
        bw = field(a, "bw", where, dimension="bandwidth", positive=True)
        lat = field(a, "lat", where, dimension="time", minimum=0)
        for i in _radicals(field(a, "radical", where, type=str), where.at("radical")):
            host = f"{field(a, 'prefix', where, type=str)}{i}{field(a, 'suffix', where, type=str)}"
            self.add_node(host, "host", zone, element, speed)
            up = self.new_link(f"link_{host}_UP", bw, lat, "shared", element)
            down = self.new_link(f"link_{host}_DOWN", bw, lat, "shared", element)
            parts.host_links.append(Element("host_link", {"id": host, "up": up, "down": down}, element.line))


@dataclass
class _ClusterParts:
    """What a ``<zone routing="Cluster">`` declares for its star routes, applied when the zone closes."""

    backbone: Hop | None = None
    host_links: list[Element] = _field(default_factory=list)


def _inside(zone: SgZone | None, ancestor: SgZone) -> bool:
    while zone is not None:
        if zone is ancestor:
            return True
        zone = zone.parent
    return False


def _radicals(text: str, where: Where) -> list[int]:
    """SimGrid's radical: ``"0-3,5,7-9"`` is 0, 1, 2, 3, 5, 7, 8, 9 (ranges include both ends)."""
    out: list[int] = []
    for group in text.split(","):
        ends = group.split("-")
        try:
            numbers = [int(end) for end in ends]
        except ValueError:
            raise where.error(f"malformed radical {text!r}", fix="write e.g. '0-3,5,7-9'") from None
        if len(numbers) > 2 or numbers[0] > numbers[-1]:
            raise where.error(f"malformed radical {text!r}: {group!r} is not a number or a range a-b with a <= b",
                              fix="write e.g. '0-3,5,7-9'")
        out.extend(range(numbers[0], numbers[-1] + 1))
    return out
