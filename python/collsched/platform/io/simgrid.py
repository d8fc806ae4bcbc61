"""Platforms as SimGrid platform XML (DTD version 4.1).

**Reading** (:func:`platform_from_simgrid`) gives a file the meaning SimGrid
gives it:

* ``<host>`` becomes a host whose speed is that of its current pstate (the
  first of a comma-separated list by default); ``core`` is ignored, as a
  collsched task runs on one core. ``<router>`` becomes a router.
* ``<link>`` keeps its bandwidth and latency; ``sharing_policy`` SHARED (the
  default) becomes ``shared``, SPLITDUPLEX (or the old FULLDUPLEX)
  ``full_duplex``, FATPIPE ``fatpipe``.
* ``<cluster>`` is expanded as SimGrid does: hosts ``prefix + i + suffix``
  for each ``i`` of the radical, one private link ``<id>_link_<i>`` per host
  (SPLITDUPLEX unless told otherwise), a backbone ``<id>_backbone`` when
  ``bb_bw`` is given, a limiter ``<id>_link_<i>_limiter`` when
  ``limiter_link`` is given, and a router (``router_id``, by default
  ``prefix + id + "_router" + suffix``) that is the cluster's gateway.
* Routes are computed as SimGrid computes them (zones Full, Floyd,
  Dijkstra, DijkstraCache, None and Cluster; routes, zone routes and
  gateways; see :mod:`._simgrid_routing`) for every ordered pair of hosts,
  and kept in a :class:`~collsched.platform.RouteTable` (not symmetric). A
  hop is ``(link, forward)``, ``forward`` False on the DOWN half of a
  SPLITDUPLEX link.
* When every link is a one-link route between two nodes (a declared route,
  or a cluster's private link to its router when the cluster has no
  backbone) and every host-to-host route walks along these ends, links get
  those ends, so the graph view is the physical one; otherwise no link has ends.
* When the hosts are spread over several zones, the hosts of each zone form
  a cluster (:attr:`Platform.clusters`). The name is the root zone's id.

**Writing** (:func:`platform_to_simgrid`) gives one ``<zone routing="Full">``
with the hosts (speed in flop/s), routers, links (bandwidth in bytes/s,
latency in s) and a ``<route symmetrical="NO">`` for every ordered pair of
hosts that has one (``direction`` UP or DOWN on full-duplex links). What
SimGrid cannot say goes in ``<prop id="collsched:...">``: on the zone
``name``, ``routing`` (the routing as in native files, JSON), ``clusters`` and
``routers`` (routers' non-default speeds and overheads, JSON); on hosts
``send_overhead`` and ``recv_overhead``; on links ``ends`` (JSON) and
``directed``. A file with a ``collsched:routing`` prop is read from its
props, so writing then reading gives an equal platform, and its routes are
checked against the ``<route>`` elements that SimGrid will use. Host
overheads and the name are read from their props in any file.

Examples
--------
>>> xml = '''<?xml version="1.0"?>
... <platform version="4.1">
...   <zone id="world" routing="Full">
...     <cluster id="c" prefix="n" suffix="" radical="0-2" speed="1Gf" bw="125MBps" lat="50us"
...              bb_bw="2.25GBps" bb_lat="500us"/>
...   </zone>
... </platform>'''
>>> p = platform_from_simgrid(xml, where="cluster.xml")
>>> p.hosts, p.routers
(('n0', 'n1', 'n2'), ('nc_router',))
>>> p.route_hops("n0", "n2")
(('c_link_0', True), ('c_backbone', True), ('c_link_2', False))
>>> platform_from_simgrid(platform_to_simgrid(p)) == p
True
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import fields

from ...errors import FormatError, PlatformError
from ...fileformat import Where, field
from ..model import HOST, ROUTER, Hop, Link, Node, Platform
from ..routing import RouteTable
from ._simgrid_parse import SgNode, SgPlatform, read_simgrid
from ._simgrid_routing import SimgridRoutes
from ._xml import parse_xml
from .native import routing_from_dict, routing_to_dict

__all__ = ["platform_from_simgrid", "platform_to_simgrid"]

_POLICY = {"full_duplex": "SPLITDUPLEX", "shared": "SHARED", "fatpipe": "FATPIPE"}
_NODE_DEFAULTS = {f.name: f.default for f in fields(Node) if f.name in ("speed", "send_overhead", "recv_overhead")}
_PROPS = {"zone": ("collsched:name", "collsched:routing", "collsched:clusters", "collsched:routers"),
          "host": ("collsched:send_overhead", "collsched:recv_overhead"),
          "link": ("collsched:ends", "collsched:directed")}
_HEADER = '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


# --- reading -------------------------------------------------------------------------

def platform_from_simgrid(text: str, where: str = "<string>") -> Platform:
    """Read a SimGrid platform file (version 4.1), as SimGrid reads it.

    Parameters
    ----------
    text : str
        The XML document.
    where : str
        Its file name, for error messages.

    Returns
    -------
    Platform
        See the module docstring for how SimGrid's elements become collsched's.

    Raises
    ------
    FormatError
        Malformed or truncated XML (``file:line: malformed XML: ...``), an
        unsupported version or element, a bad value (``file:line:
        element[@id='x']/@attribute: ...``), or collsched props that disagree
        with the file's routes.
    PlatformError
        If the result is not a valid platform; the message names the file.

    Examples
    --------
    >>> xml = '''<platform version="4.1"><zone id="z" routing="Full">
    ...   <host id="a" speed="1Gf"/><host id="b" speed="2Gf"/>
    ...   <link id="ab" bandwidth="1GBps" latency="10us"/>
    ...   <route src="a" dst="b"><link_ctn id="ab"/></route>
    ... </zone></platform>'''
    >>> p = platform_from_simgrid(xml)
    >>> p.route("b", "a"), p.links["ab"].ends, p.links["ab"].sharing
    (('ab',), ('a', 'b'), 'shared')
    >>> platform_from_simgrid(xml.replace("1GBps", "12 parsecs"), where="t.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: t.xml:3: link[@id='ab']/@bandwidth: cannot read '12 parsecs' as a bandwidth (write e.g. '86MBps', '10Gbps' or a number of bytes/s)
    """
    sg = read_simgrid(parse_xml(text, where), where)
    _check_props(sg, where)
    engine = SimgridRoutes(sg, where)
    if "collsched:routing" in sg.root.props:
        return _from_props(sg, engine, where)
    return _from_simgrid(sg, engine, where)


def _from_simgrid(sg: SgPlatform, engine: SimgridRoutes, source: str) -> Platform:
    hosts = [n.id for n in sg.nodes.values() if n.kind == HOST]
    routes = {(a, b): hops for a in hosts for b in hosts if a != b and (hops := engine.route(a, b)) is not None}
    for (a, b), hops in routes.items():
        if not hops:
            raise FormatError(f"the route from host {a!r} to host {b!r} has no link", where=source,
                              fix="collsched routes need a link: add one (FATPIPE with a large bandwidth costs little)")
    inferred = _infer_ends(sg, routes)
    ends, routes = inferred if inferred is not None else ({}, routes)
    links = [Link(link.id, link.bandwidth, link.latency, ends=ends.get(link.id), sharing=link.sharing)
             for link in sg.links.values()]
    nodes = [_node(n, source) for n in sg.nodes.values()]
    groups: dict[str, list[str]] = {}
    for h in hosts:
        groups.setdefault(sg.nodes[h].zone.id, []).append(h)
    clusters = list(groups.values()) if len(groups) > 1 else None
    name = sg.root.props.get("collsched:name", sg.root.id)
    return _platform(nodes, links, RouteTable(routes, symmetric=False), name, clusters, source)


def _infer_ends(sg: SgPlatform, routes: dict[tuple[str, str], tuple[Hop, ...]]):
    """Ends for every link and the routes as walks along them, or None if some link cannot have ends."""
    ends: dict[str, tuple[str, str]] = {}
    for (link, up), (u, v) in _one_link_routes(sg):
        pair = (u, v) if up else (v, u)
        known = ends.setdefault(link, pair)
        if u == v or (known != pair and (sg.links[link].sharing == "full_duplex" or set(known) != set(pair))):
            return None
    if len(ends) != len(sg.links):
        return None
    walks = {}
    for (src, dst), hops in routes.items():
        at, walk = src, []
        for link, up in hops:
            a, b = ends[link]
            if at not in (a, b) or (sg.links[link].sharing == "full_duplex" and (at == a) != up):
                return None
            walk.append((link, at == a))
            at = b if at == a else a
        if at != dst:
            return None
        walks[(src, dst)] = tuple(walk)
    return ends, walks


def _one_link_routes(sg: SgPlatform):
    """``(hop, (from, to))`` for every declared route of one link between two nodes."""
    for zone in sg.zones.values():
        for r in zone.routes:
            if len(r.hops) == 1:
                yield r.hops[0], ((r.gw_src, r.gw_dst) if r.gw_src is not None else (r.src, r.dst))
        if zone.center is not None:
            for member, (up, down) in zone.star.items():
                if len(up) == 1:
                    yield up[0], (member, zone.center)
                if len(down) == 1:
                    yield down[0], (zone.center, member)


def _node(n: SgNode, source: str, extra: dict | None = None) -> Node:
    if n.kind == ROUTER:
        return Node(n.id, ROUTER, **(extra or {}))
    where = Where(f"{source}:{n.line}", f"host[@id={n.id!r}]", sep="/prop/@")
    overheads = {attr: field(n.props, f"collsched:{attr}", where, dimension="time", minimum=0, default=0.0)
                 for attr in ("send_overhead", "recv_overhead")}
    return Node(n.id, HOST, speed=n.speed, **overheads)


def _platform(nodes, links, routing, name, clusters, source) -> Platform:
    try:
        return Platform(nodes, links, routing, name=name, clusters=clusters)
    except PlatformError as exc:
        raise PlatformError(exc.what, where=source, fix=exc.fix) from None


def _check_props(sg: SgPlatform, source: str) -> None:
    owners = [("zone", z.id, z.line, z.props) for z in sg.zones.values()]
    owners += [("host", n.id, n.line, n.props) for n in sg.nodes.values()]
    owners += [("link", link.id, link.line, link.props) for link in sg.links.values()]
    for tag, ident, line, props in owners:
        for key in props:
            if key.startswith("collsched:") and key not in _PROPS[tag]:
                raise FormatError(f"{tag} {ident!r}: unknown prop {key!r}", where=f"{source}:{line}",
                                  fix=f"a {tag} may have {', '.join(_PROPS[tag])}")


# --- reading collsched's props ---------------------------------------------------------

def _from_props(sg: SgPlatform, engine: SimgridRoutes, source: str) -> Platform:
    root = sg.root
    where = Where(f"{source}:{root.line}", f"zone[@id={root.id!r}]", sep="/prop/@")
    if root.routing != "full" or root.children:
        raise where.error("collsched:routing is only read on a platform of one Full zone, as collsched writes them",
                          fix="delete the collsched:* props to read the file as SimGrid does")
    routing = routing_from_dict(_json(root.props, "collsched:routing", where, dict), where.at("collsched:routing"))
    routers = _json(root.props, "collsched:routers", where, dict, {})
    nodes = []
    for n in sg.nodes.values():
        extra = routers.get(n.id, {})
        if not isinstance(extra, dict) or set(extra) - set(_NODE_DEFAULTS):
            raise where.at("collsched:routers").error(f"bad attributes for router {n.id!r}: {extra!r}",
                                                      fix=f"give an object with {', '.join(_NODE_DEFAULTS)}")
        nodes.append(_node(n, source, extra))
    links = []
    for link in sg.links.values():
        here = Where(f"{source}:{link.line}", f"link[@id={link.id!r}]", sep="/prop/@")
        ends = _json(link.props, "collsched:ends", here, (list, type(None)), None)
        links.append(Link(link.id, link.bandwidth, link.latency, ends=None if ends is None else tuple(ends),
                          sharing=link.sharing, directed=_json(link.props, "collsched:directed", here, bool, False)))
    clusters = _json(root.props, "collsched:clusters", where, (list, type(None)), None)
    p = _platform(nodes, links, routing, root.props.get("collsched:name", root.id), clusters, source)
    _check_routes_agree(p, sg, engine, source)
    return p


def _json(props: dict[str, str], name: str, where: Where, kind, default=None):
    if name not in props:
        return default
    try:
        value = json.loads(props[name])
    except json.JSONDecodeError as exc:
        raise where.at(name).error(f"invalid JSON: {exc.msg}") from None
    return field({name: value}, name, where, type=kind)


def _check_routes_agree(p: Platform, sg: SgPlatform, engine: SimgridRoutes, source: str) -> None:
    """The routes collsched will use (from the props) must be those SimGrid will use (from the <route>s)."""
    for a in p.hosts:
        for b in p.hosts:
            if a == b:
                continue
            theirs = engine.route(a, b)
            ours = p.route_hops(a, b) if p.has_route(a, b) else None
            if _show(p, ours) != _show(p, theirs):
                line = next((r.line for r in sg.root.routes if (r.src, r.dst) == (a, b)
                             or (r.symmetrical and (r.dst, r.src) == (a, b))), sg.root.line)
                raise FormatError(f"the route from {a!r} to {b!r} is {_show(p, theirs)} in the file's <route>s "
                                  f"but {_show(p, ours)} by its collsched:routing prop", where=f"{source}:{line}",
                                  fix="edit both, or delete the collsched:* props to read the file as SimGrid does")


def _show(p: Platform, hops: tuple[Hop, ...] | None) -> str:
    if hops is None:
        return "none"
    return "[" + ", ".join(link + ("" if p.links[link].sharing != "full_duplex" else " UP" if forward else " DOWN")
                           for link, forward in hops) + "]"


# --- writing -------------------------------------------------------------------------

def platform_to_simgrid(p: Platform) -> str:
    """The platform as a SimGrid platform file (version 4.1) that reads back equal.

    Parameters
    ----------
    p : Platform

    Returns
    -------
    str
        The XML document (see the module docstring for its content).

    Raises
    ------
    FormatError
        If an id or the name holds a character XML cannot represent, or the
        routing is not one files know.

    Examples
    --------
    >>> from collsched.platform import Platform, Node, Link
    >>> p = Platform([Node("a"), Node("b", send_overhead=1e-6)], [Link("ab", 1e9, 1e-5, ends=("a", "b"))],
    ...              name="pair")
    >>> print(platform_to_simgrid(p), end="")
    <?xml version="1.0" encoding="utf-8"?>
    <!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
    <platform version="4.1">
      <zone id="pair" routing="Full">
        <prop id="collsched:name" value="pair" />
        <prop id="collsched:routing" value="{&quot;kind&quot;: &quot;shortest_path&quot;, &quot;metric&quot;: &quot;hops&quot;}" />
        <host id="a" speed="1000000000.0f" />
        <host id="b" speed="1000000000.0f">
          <prop id="collsched:send_overhead" value="1e-06" />
        </host>
        <link id="ab" bandwidth="1000000000.0Bps" latency="1e-05s" sharing_policy="SPLITDUPLEX">
          <prop id="collsched:ends" value="[&quot;a&quot;, &quot;b&quot;]" />
        </link>
        <route src="a" dst="b" symmetrical="NO">
          <link_ctn id="ab" direction="UP" />
        </route>
        <route src="b" dst="a" symmetrical="NO">
          <link_ctn id="ab" direction="DOWN" />
        </route>
      </zone>
    </platform>
    """
    names = [("name", p.name)] + [("node id", n) for n in p.nodes] + [("link id", k) for k in p.links]
    for kind, ident in names:
        if _NOT_XML.search(ident):
            raise FormatError(f"cannot write {kind} {ident!r} in XML: it holds a control character",
                              where=f"platform {p.name!r}", fix="rename it")
    root = ET.Element("platform", {"version": "4.1"})
    zone_id, i = p.name or "platform", 1
    while zone_id in p.nodes:
        zone_id, i = f"{p.name or 'platform'}-zone{i}", i + 1
    zone = ET.SubElement(root, "zone", {"id": zone_id, "routing": "Full"})
    _prop(zone, "collsched:name", p.name)
    _prop(zone, "collsched:routing", json.dumps(routing_to_dict(p.routing)))
    if p.clusters is not None:
        _prop(zone, "collsched:clusters", json.dumps([list(group) for group in p.clusters]))
    routers = {n.id: {k: getattr(n, k) for k in _NODE_DEFAULTS} for n in p.nodes.values() if not n.is_host}
    routers = {r: attrs for r, attrs in routers.items() if attrs != _NODE_DEFAULTS}
    if routers:
        _prop(zone, "collsched:routers", json.dumps(routers))
    for node in p.nodes.values():
        if not node.is_host:
            ET.SubElement(zone, "router", {"id": node.id})
            continue
        host = ET.SubElement(zone, "host", {"id": node.id, "speed": f"{float(node.speed)!r}f"})
        for attr in ("send_overhead", "recv_overhead"):
            if getattr(node, attr):
                _prop(host, f"collsched:{attr}", repr(float(getattr(node, attr))))
    for link in p.links.values():
        element = ET.SubElement(zone, "link", {"id": link.id, "bandwidth": f"{float(link.bandwidth)!r}Bps",
                                               "latency": f"{float(link.latency)!r}s",
                                               "sharing_policy": _POLICY[link.sharing]})
        if link.ends is not None:
            _prop(element, "collsched:ends", json.dumps(list(link.ends)))
        if link.directed:
            _prop(element, "collsched:directed", "true")
    for a in p.hosts:
        for b in p.hosts:
            if a != b and p.has_route(a, b):
                route = ET.SubElement(zone, "route", {"src": a, "dst": b, "symmetrical": "NO"})
                for link, forward in p.route_hops(a, b):
                    attrs = {"id": link}
                    if p.links[link].sharing == "full_duplex":
                        attrs["direction"] = "UP" if forward else "DOWN"
                    ET.SubElement(route, "link_ctn", attrs)
    ET.indent(root, space="  ")
    return _HEADER + ET.tostring(root, encoding="unicode") + "\n"


def _prop(parent: ET.Element, key: str, value: str) -> None:
    ET.SubElement(parent, "prop", {"id": key, "value": value})
