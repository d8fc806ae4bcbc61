"""Platforms as collsched's native JSON documents (see :mod:`collsched.fileformat`).

The body of a platform document::

    {"format": "collsched", "version": 1, "kind": "platform",
     "name": "t1",
     "nodes": [{"id": "h0", "kind": "host", "speed": 1e9, "send_overhead": 0.0, "recv_overhead": 0.0},
               {"id": "sw", "kind": "router", ...}],
     "links": [{"id": "l0", "bandwidth": 1.25e8, "latency": 1e-5, "ends": ["h0", "sw"],
                "sharing": "full_duplex", "directed": false}],
     "routing": {"kind": "shortest_path", "metric": "hops"},
     "clusters": [["h0", "h1"], ["h2"]]}

Fields and defaults (those of :class:`~collsched.platform.Node` and :class:`~collsched.platform.Link`):

* node: ``id`` (required), ``kind`` (``host`` | ``router``, default host),
  ``speed`` (flop/s, default 1e9), ``send_overhead``/``recv_overhead`` (s, default 0);
* link: ``id`` and ``bandwidth`` (bytes/s) required, ``latency`` (s, default 0),
  ``ends`` (two node ids, or null), ``sharing`` (``full_duplex`` | ``shared`` |
  ``fatpipe``, default full_duplex), ``directed`` (default false);
* routing (default shortest path by hops), one of
  ``{"kind": "shortest_path", "metric": "hops" | "latency"}``,
  ``{"kind": "table", "symmetric": true, "routes": [{"src": "a", "dst": "b", "hops": [["l0", true], "l1"]}],
  "fallback": null | <routing>}`` (a hop is a link id or ``[link id, forward]``),
  ``{"kind": "ecube", "address": {"h0": 0, "h1": 1}}``;
* ``clusters``: a partition of the hosts, or null; ``name`` (default ``"platform"``).

Quantities may be numbers in SI units or strings with a unit (``"86MBps"``,
``"10us"``, ``"1Gf"``); the writer always writes SI numbers, with ``repr``, so a
platform read back is equal to the one written.

Examples
--------
>>> from collsched.platform import Platform, Node, Link
>>> p = Platform([Node("a"), Node("b")], [Link("ab", 1e8, 1e-5, ends=("a", "b"))], name="pair")
>>> platform_from_json(platform_to_json(p)) == p
True
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Mapping

from ...errors import FormatError, PlatformError
from ...fileformat import Where, check_keys, dump_document, elements, field, load_document
from ..model import HOST, ROUTER, SHARING_POLICIES, Link, Node, Platform
from ..routing import DModK, ECube, RouteTable, Routing, ShortestPath

__all__ = ["platform_to_json", "platform_from_json", "platform_to_dict", "platform_from_dict",
           "routing_to_dict", "routing_from_dict"]

_NODE_DEFAULTS = {f.name: f.default for f in fields(Node)}
_LINK_DEFAULTS = {f.name: f.default for f in fields(Link)}
ROUTING_KINDS = ("shortest_path", "table", "ecube", "d_mod_k")


# --- writing -------------------------------------------------------------------------

def platform_to_json(p: Platform) -> str:
    """The platform as a native JSON document.

    Parameters
    ----------
    p : Platform

    Returns
    -------
    str
        The document (see the module docstring for its fields), ending with a newline.

    Raises
    ------
    FormatError
        If the platform's routing is not one of the kinds files know.

    Examples
    --------
    >>> from collsched.platform import Platform, Node, Link
    >>> print(platform_to_json(Platform([Node("a"), Node("b")], [Link("ab", 1e8, ends=("a", "b"))])), end="")
    {
     "format": "collsched",
     "version": 1,
     "kind": "platform",
     "name": "platform",
     "nodes": [
      {"id": "a", "kind": "host", "speed": 1000000000.0, "send_overhead": 0.0, "recv_overhead": 0.0},
      {"id": "b", "kind": "host", "speed": 1000000000.0, "send_overhead": 0.0, "recv_overhead": 0.0}
     ],
     "links": [
      {"id": "ab", "bandwidth": 100000000.0, "latency": 0.0, "ends": ["a", "b"], "sharing": "full_duplex", "directed": false}
     ],
     "routing": {"kind": "shortest_path", "metric": "hops"},
     "clusters": null
    }
    """
    return dump_document("platform", platform_to_dict(p))


def platform_to_dict(p: Platform) -> dict[str, Any]:
    """The body of the platform's native document, as plain JSON data (to embed in other documents).

    Parameters
    ----------
    p : Platform

    Returns
    -------
    dict
        ``name``, ``nodes``, ``links``, ``routing`` and ``clusters``, with SI floats.

    Raises
    ------
    FormatError
        If the platform's routing is not one of the kinds files know.

    Examples
    --------
    >>> from collsched.platform import Platform, Node
    >>> platform_to_dict(Platform([Node("a")], []))["routing"]
    {'kind': 'shortest_path', 'metric': 'hops'}
    """
    return {
        "name": p.name,
        "nodes": [{"id": n.id, "kind": n.kind, "speed": float(n.speed), "send_overhead": float(n.send_overhead),
                   "recv_overhead": float(n.recv_overhead)} for n in p.nodes.values()],
        "links": [{"id": link.id, "bandwidth": float(link.bandwidth), "latency": float(link.latency),
                   "ends": None if link.ends is None else list(link.ends), "sharing": link.sharing,
                   "directed": bool(link.directed)} for link in p.links.values()],
        "routing": routing_to_dict(p.routing),
        "clusters": None if p.clusters is None else [list(group) for group in p.clusters],
    }


def routing_to_dict(routing: Routing) -> dict[str, Any]:
    """A routing as plain JSON data (the ``routing`` field of a platform document).

    Hops of a route table are written as they were given: a link id alone, or ``[link id, forward]``.

    Parameters
    ----------
    routing : ShortestPath, RouteTable or ECube

    Returns
    -------
    dict
        With a ``kind`` field: ``shortest_path``, ``table`` or ``ecube``.

    Raises
    ------
    FormatError
        For a routing class files do not know.

    Examples
    --------
    >>> routing_to_dict(RouteTable({("a", "b"): ["l0", ("l1", False)]}, symmetric=False))
    {'kind': 'table', 'symmetric': False, 'routes': [{'src': 'a', 'dst': 'b', 'hops': ['l0', ['l1', False]]}], 'fallback': None}
    >>> routing_to_dict(ECube({"h0": 0, "h1": 1}))
    {'kind': 'ecube', 'address': {'h0': 0, 'h1': 1}}
    """
    if isinstance(routing, ShortestPath):
        return {"kind": "shortest_path", "metric": routing.metric}
    if isinstance(routing, RouteTable):
        routes = [{"src": src, "dst": dst,
                   "hops": [hop if isinstance(hop, str) else [hop[0], bool(hop[1])] for hop in hops]}
                  for (src, dst), hops in routing.routes.items()]
        fallback = None if routing.fallback is None else routing_to_dict(routing.fallback)
        return {"kind": "table", "symmetric": bool(routing.symmetric), "routes": routes, "fallback": fallback}
    if isinstance(routing, ECube):
        return {"kind": "ecube", "address": {node: int(a) for node, a in routing.address.items()}}
    if isinstance(routing, DModK):
        return {"kind": "d_mod_k", "leaf": dict(routing.leaf), "spines": list(routing.spines)}
    raise FormatError(f"cannot write routing {type(routing).__name__}",
                      fix=f"files know the routing kinds {', '.join(ROUTING_KINDS)}")


# --- reading -------------------------------------------------------------------------

def platform_from_json(text: str, where: str = "<string>") -> Platform:
    """Read a platform from a native JSON document.

    Parameters
    ----------
    text : str
        The document.
    where : str
        Its file name, for error messages.

    Returns
    -------
    Platform

    Raises
    ------
    FormatError
        Malformed JSON, wrong format, kind or version, a missing, unknown or
        bad field (the message names the file and the field's JSON path).
    PlatformError
        If the data does not make a valid platform (duplicate ids, unknown
        nodes, bad routes); the message names the file.

    Examples
    --------
    >>> doc = '''{"format": "collsched", "version": 1, "kind": "platform",
    ...  "nodes": [{"id": "a"}, {"id": "b"}],
    ...  "links": [{"id": "l0", "bandwidth": "1Gbps", "latency": "10us", "ends": ["a", "b"]}]}'''
    >>> p = platform_from_json(doc, where="pair.json")
    >>> p.links["l0"].bandwidth, p.route("a", "b")
    (125000000.0, ('l0',))
    >>> platform_from_json(doc.replace('"b"]', '"c"]'), where="pair.json")
    Traceback (most recent call last):
    ...
    collsched.errors.PlatformError: pair.json: link 'l0' names unknown node 'c' (declare the node first)
    """
    return platform_from_dict(load_document(text, where=where, kind="platform"), Where(where))


def platform_from_dict(body: Mapping[str, Any], where: Where | str) -> Platform:
    """Build a platform from the body of a native document (e.g. one embedded in another document).

    Parameters
    ----------
    body : mapping
        The fields ``name``, ``nodes``, ``links``, ``routing``, ``clusters``.
    where : Where or str
        The location of ``body``, for error messages.

    Returns
    -------
    Platform

    Raises
    ------
    FormatError, PlatformError
        As :func:`platform_from_json`.

    Examples
    --------
    >>> platform_from_dict({"nodes": [{"id": "a", "speed": "2Gf"}], "links": []}, "inline").nodes["a"].speed
    2000000000.0
    """
    where = Where(where) if isinstance(where, str) else where
    check_keys(body, where, ("name", "nodes", "links", "routing", "clusters"))
    name = field(body, "name", where, type=str, default="platform")
    nodes = [_node(item, here) for here, item in elements(body, "nodes", where)]
    links = [_link(item, here) for here, item in elements(body, "links", where, default=[])]
    spec = field(body, "routing", where, type=(dict, type(None)), default=None)
    routing = None if spec is None else routing_from_dict(spec, where.at("routing"))
    clusters = field(body, "clusters", where, type=(list, type(None)), default=None)
    if clusters is not None:
        clusters = [_names(group, here) for here, group in elements(body, "clusters", where, type=list)]
    try:
        return Platform(nodes, links, routing, name=name, clusters=clusters)
    except PlatformError as exc:
        raise PlatformError(exc.what, where=str(where), fix=exc.fix) from None


def _node(obj: Mapping[str, Any], where: Where) -> Node:
    check_keys(obj, where, tuple(_NODE_DEFAULTS))
    d = _NODE_DEFAULTS
    return Node(id=field(obj, "id", where, type=str),
                kind=field(obj, "kind", where, choices=(HOST, ROUTER), default=d["kind"]),
                speed=field(obj, "speed", where, dimension="speed", positive=True, default=d["speed"]),
                send_overhead=field(obj, "send_overhead", where, dimension="time", minimum=0,
                                    default=d["send_overhead"]),
                recv_overhead=field(obj, "recv_overhead", where, dimension="time", minimum=0,
                                    default=d["recv_overhead"]))


def _link(obj: Mapping[str, Any], where: Where) -> Link:
    check_keys(obj, where, tuple(_LINK_DEFAULTS))
    d = _LINK_DEFAULTS
    ends = field(obj, "ends", where, type=(list, type(None)), default=None)
    if ends is not None:
        ends = tuple(_names(ends, where.at("ends")))
        if len(ends) != 2:
            raise where.at("ends").error(f"expected the ids of two nodes, found {len(ends)}")
    return Link(id=field(obj, "id", where, type=str),
                bandwidth=field(obj, "bandwidth", where, dimension="bandwidth", positive=True),
                latency=field(obj, "latency", where, dimension="time", minimum=0, default=d["latency"]),
                ends=ends,
                sharing=field(obj, "sharing", where, choices=SHARING_POLICIES, default=d["sharing"]),
                directed=field(obj, "directed", where, type=bool, default=d["directed"]))


def _names(items: list, where: Where) -> list[str]:
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise where.at(i).error(f"expected a node id (a string), found {item!r}")
    return list(items)


def routing_from_dict(obj: Mapping[str, Any], where: Where | str) -> Routing:
    """Read a routing from plain JSON data (the ``routing`` field of a platform document).

    Parameters
    ----------
    obj : mapping
        The routing object (see the module docstring).
    where : Where or str
        Its location, for error messages.

    Returns
    -------
    Routing
        Not yet bound: a platform checks it when built.

    Raises
    ------
    FormatError
        An unknown kind or field, a malformed route or address.

    Examples
    --------
    >>> routing_from_dict({"kind": "shortest_path", "metric": "latency"}, "p.json")
    ShortestPath(metric='latency')
    >>> routing_from_dict({"kind": "table", "routes": [{"src": "a", "dst": "b", "hops": [["l0", True]]}]}, "p.json")
    RouteTable(1 routes, symmetric=True, fallback=None)
    >>> routing_from_dict({"kind": "fastest"}, Where("p.json").at("routing"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: p.json: routing.kind: 'fastest' is not one of 'shortest_path', 'table', 'ecube', 'd_mod_k'
    """
    where = Where(where) if isinstance(where, str) else where
    kind = field(obj, "kind", where, choices=ROUTING_KINDS)
    if kind == "shortest_path":
        check_keys(obj, where, ("kind", "metric"))
        return ShortestPath(field(obj, "metric", where, choices=("hops", "latency"), default="hops"))
    if kind == "ecube":
        check_keys(obj, where, ("kind", "address"))
        address = field(obj, "address", where, type=dict)
        for node, a in address.items():
            if not isinstance(a, int) or isinstance(a, bool) or a < 0:
                raise where.at("address").at(node).error(f"expected an address (an integer >= 0), found {a!r}")
        return ECube(dict(address))
    if kind == "d_mod_k":
        check_keys(obj, where, ("kind", "leaf", "spines"))
        leaf = field(obj, "leaf", where, type=dict)
        for host, switch in leaf.items():
            if not isinstance(switch, str):
                raise where.at("leaf").at(host).error(f"expected a leaf switch id, found {switch!r}")
        spines = [spine for _, spine in elements(obj, "spines", where, type=str)]
        return DModK(dict(leaf), tuple(spines))
    check_keys(obj, where, ("kind", "symmetric", "routes", "fallback"))
    routes: dict[tuple[str, str], list] = {}
    for here, item in elements(obj, "routes", where, default=[]):
        check_keys(item, here, ("src", "dst", "hops"))
        key = (field(item, "src", here, type=str), field(item, "dst", here, type=str))
        if key in routes:
            raise here.error(f"second route from {key[0]!r} to {key[1]!r}", fix="give each pair one route")
        routes[key] = [_hop(hop, w) for w, hop in elements(item, "hops", here, type=(str, list))]
    fallback = field(obj, "fallback", where, type=(dict, type(None)), default=None)
    return RouteTable(routes, symmetric=field(obj, "symmetric", where, type=bool, default=True),
                      fallback=None if fallback is None else routing_from_dict(fallback, where.at("fallback")))


def _hop(hop: str | list, where: Where) -> str | tuple[str, bool]:
    if isinstance(hop, str):
        return hop
    if len(hop) != 2 or not isinstance(hop[0], str) or not isinstance(hop[1], bool):
        raise where.error(f"expected a link id or [link id, forward], found {hop!r}")
    return (hop[0], hop[1])
