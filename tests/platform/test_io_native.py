"""Platforms as native JSON documents: round trips, and one test per bad input with its one-line message.

The hypothesis strategy :func:`platforms` is shared with test_io_simgrid.py.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched.errors import FormatError, PlatformError
from collsched.fileformat import atomic_write, dump_document, load_document, read_text
from collsched.platform import HOST, ROUTER, SHARING_POLICIES, ECube, Link, Node, Platform, RouteTable, ShortestPath
from collsched.platform.io import load_platform, platform_from_json, platform_to_json, save_platform

# --- random platforms ------------------------------------------------------------------

IDS = st.text(alphabet="abhrxyz019-_.:é&<'\" ", min_size=1, max_size=4)
POSITIVE = st.floats(min_value=0.0, exclude_min=True, allow_infinity=False)
NONNEGATIVE = st.floats(min_value=0.0, allow_infinity=False)
NAMES = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=8)
ROUTINGS = ("shortest_path", "table", "table_over_paths", "ecube")


@st.composite
def _nodes(draw, n_hosts: int, n_routers: int) -> list[Node]:
    ids = draw(st.lists(IDS, min_size=n_hosts + n_routers, max_size=n_hosts + n_routers, unique=True))
    kinds = draw(st.permutations([HOST] * n_hosts + [ROUTER] * n_routers))
    return [Node(i, k, speed=draw(POSITIVE), send_overhead=draw(NONNEGATIVE), recv_overhead=draw(NONNEGATIVE))
            if k == HOST or draw(st.booleans()) else Node(i, k) for i, k in zip(ids, kinds)]


@st.composite
def _link(draw, ident: str, ends: tuple[str, str] | None) -> Link:
    return Link(ident, draw(POSITIVE), draw(NONNEGATIVE), ends=ends, sharing=draw(st.sampled_from(SHARING_POLICIES)),
                directed=ends is not None and draw(st.booleans()))


@st.composite
def platforms(draw, routings=ROUTINGS) -> Platform:
    """Small random platforms built directly from Node and Link, with every routing kind."""
    kind = draw(st.sampled_from(routings))
    if kind == "ecube":
        dimension = draw(st.integers(0, 2))
        nodes = draw(_nodes(2 ** dimension, 0))
        names = [n.id for n in nodes]
        address = dict(zip(names, draw(st.permutations(range(2 ** dimension)))))
        at = {a: name for name, a in address.items()}
        links = [draw(_link(f"e{a}-{a ^ bit}", draw(st.permutations([at[a], at[a ^ bit]]))))
                 for a in range(2 ** dimension) for bit in (1, 2) if a < a ^ bit < 2 ** dimension]
        links = [Link(k.id, k.bandwidth, k.latency, tuple(k.ends), k.sharing) for k in links]  # e-cube: undirected
        routing = ECube(address)
    else:
        nodes = draw(_nodes(draw(st.integers(1, 4)), draw(st.integers(0, 2))))
        names = [n.id for n in nodes]
        hosts = [n.id for n in nodes if n.kind == HOST]
        link_ids = draw(st.lists(IDS, max_size=5 if len(names) > 1 or kind == "table" else 0, unique=True))
        pairs = draw(st.lists(st.tuples(st.sampled_from(hosts), st.sampled_from(hosts)).filter(lambda p: p[0] != p[1]),
                              max_size=5, unique=True)) if len(hosts) > 1 else []
        if kind == "table":  # links without ends, any sequence of hops
            links = [draw(_link(i, None)) for i in link_ids]
            hop = st.one_of(st.sampled_from(link_ids), st.tuples(st.sampled_from(link_ids), st.booleans()))
            routing = RouteTable({p: draw(st.lists(hop, min_size=1, max_size=3)) for p in pairs} if link_ids else {},
                                 symmetric=draw(st.booleans()))
        else:
            links = [draw(_link(i, tuple(draw(st.permutations(names))[:2]))) for i in link_ids]
            routing = ShortestPath(draw(st.sampled_from(["hops", "latency"])))
            if kind == "table_over_paths":
                base = Platform(nodes, links, routing)
                routing = RouteTable({p: base.route_hops(*p) for p in pairs if base.has_route(*p)},
                                     symmetric=False, fallback=draw(st.sampled_from([None, routing])))
    labels = draw(st.none() | st.lists(st.integers(0, 2), min_size=len(hosts := [n.id for n in nodes if n.is_host]),
                                       max_size=len(hosts)))
    clusters = None if labels is None else [[h for h, g in zip(hosts, labels) if g == label]
                                            for label in dict.fromkeys(labels)]
    return Platform(nodes, links, routing, name=draw(NAMES), clusters=clusters)


def same_routes(p: Platform, q: Platform) -> bool:
    return all(p.has_route(a, b) == q.has_route(a, b) and (not p.has_route(a, b) or p.route_hops(a, b) == q.route_hops(a, b))
               for a in p.hosts for b in p.hosts)


# --- round trips -----------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(platforms())
def test_json_round_trip_is_identity(p):
    text = platform_to_json(p)
    q = platform_from_json(text, where="random.json")
    assert q == p
    assert same_routes(p, q)
    assert platform_to_json(q) == text  # stable text: same data, same bytes


@settings(max_examples=30, deadline=None)
@given(platforms())
def test_save_and_load_json_file(tmp_path_factory, p):
    path = tmp_path_factory.mktemp("p") / "p.json"
    save_platform(p, path)
    assert load_platform(path) == p
    assert os.listdir(path.parent) == ["p.json"]  # no temporary file left behind


def test_units_in_files_are_read_as_si():
    p = platform_from_json(_document(nodes=[{"id": "a", "speed": "2Gf", "send_overhead": "5us"}, {"id": "b"}]))
    assert p.nodes["a"].speed == 2e9 and p.nodes["a"].send_overhead == 5e-6
    assert p.links["ab"].bandwidth == 1e9 and p.links["ab"].latency == 1e-5
    assert '"bandwidth": 1000000000.0' in platform_to_json(p)  # written back as plain SI numbers


def test_every_routing_kind_reads_back():
    nodes = [{"id": "a"}, {"id": "b"}]
    table = {"kind": "table", "symmetric": False, "routes": [{"src": "a", "dst": "b", "hops": ["ab"]}],
             "fallback": {"kind": "shortest_path", "metric": "latency"}}
    p = platform_from_json(_document(nodes=nodes, routing=table))
    assert p.routing == RouteTable({("a", "b"): ["ab"]}, symmetric=False, fallback=ShortestPath("latency"))
    assert p.route("b", "a") == ("ab",)  # by the fallback
    cube = platform_from_json(_document(nodes=nodes, routing={"kind": "ecube", "address": {"a": 0, "b": 1}}))
    assert cube.routing == ECube({"a": 0, "b": 1})


def test_table_with_a_table_fallback():
    table = {"kind": "table", "symmetric": False, "routes": [{"src": "a", "dst": "b", "hops": ["ab"]}],
             "fallback": {"kind": "table", "symmetric": False, "routes": [{"src": "b", "dst": "a", "hops": ["ab"]}]}}
    p = platform_from_json(_document(routing=table))
    assert p.route("a", "b") == ("ab",) and p.route("b", "a") == ("ab",)


def test_clusters_and_name_read_back():
    p = platform_from_json(_document(name="two", clusters=[["b"], ["a"]]))
    assert p.name == "two" and p.clusters == (("b",), ("a",))


# --- bad input: one test each, one line saying what and where ------------------------------

def _document(**body) -> str:
    doc = {"format": "collsched", "version": 1, "kind": "platform", "name": "pair",
           "nodes": [{"id": "a"}, {"id": "b"}],
           "links": [{"id": "ab", "bandwidth": "1GBps", "latency": "10us", "ends": ["a", "b"]}]}
    doc.update(body)
    return json.dumps(doc, indent=1)


def _link_doc(**fields) -> str:
    return _document(links=[{"id": "ab", "bandwidth": 1e9, "latency": 1e-5, "ends": ["a", "b"], **fields}])


def _error(text: str, kind=FormatError) -> str:
    with pytest.raises(kind) as info:
        platform_from_json(text, where="pair.json")
    message = str(info.value)
    assert "\n" not in message
    return message


def test_link_naming_an_unknown_node():
    assert _error(_link_doc(ends=["a", "zz"]), PlatformError) == \
        "pair.json: link 'ab' names unknown node 'zz' (declare the node first)"


def test_route_naming_an_unknown_node():
    table = {"kind": "table", "routes": [{"src": "a", "dst": "zz", "hops": ["ab"]}]}
    assert _error(_document(routing=table), PlatformError) == "pair.json: route a->zz names unknown node 'zz'"


def test_route_naming_an_unknown_link():
    table = {"kind": "table", "routes": [{"src": "a", "dst": "b", "hops": [["ba", True]]}]}
    assert _error(_document(routing=table), PlatformError) == "pair.json: route a->b names unknown link 'ba'"


def test_duplicate_node_id():
    assert _error(_document(nodes=[{"id": "a"}, {"id": "b"}, {"id": "a", "kind": "router"}]), PlatformError) == \
        "pair.json: duplicate node id 'a' (give every node a unique id)"


def test_duplicate_link_id():
    link = {"id": "ab", "bandwidth": 1e9, "ends": ["a", "b"]}
    assert _error(_document(links=[link, link]), PlatformError) == \
        "pair.json: duplicate link id 'ab' (give every link a unique id)"


def test_duplicate_route():
    route = {"src": "a", "dst": "b", "hops": ["ab"]}
    message = _error(_document(routing={"kind": "table", "routes": [route, route]}))
    assert message == "pair.json: routing.routes[1]: second route from 'a' to 'b' (give each pair one route)"


@pytest.mark.parametrize("bandwidth, shown", [(0, "0"), (-1e9, "-1000000000.0"), ("-1GBps", "'-1GBps'")])
def test_bandwidth_not_positive(bandwidth, shown):
    assert _error(_link_doc(bandwidth=bandwidth)) == \
        f"pair.json: links[0].bandwidth: expected a positive bandwidth, found {shown}"


def test_bandwidth_nan():
    assert _error(_link_doc().replace("1000000000.0", "NaN")) == \
        "pair.json: links[0].bandwidth: expected a finite bandwidth, found NaN"


@pytest.mark.parametrize("literal", ["Infinity", "1e999"])
def test_bandwidth_infinite(literal):
    assert _error(_link_doc().replace("1000000000.0", literal)) == \
        "pair.json: links[0].bandwidth: expected a finite bandwidth, found Infinity"


def test_latency_negative():
    assert _error(_link_doc(latency="-10us")) == "pair.json: links[0].latency: expected a time >= 0, found '-10us'"


def test_unit_that_does_not_parse():
    assert _error(_link_doc(latency="12 parsecs")) == ("pair.json: links[0].latency: cannot read '12 parsecs' as a "
                                                       "time (write e.g. '10us', '1.5ms' or a number of seconds)")


def test_unit_of_the_wrong_dimension():
    assert _error(_document(nodes=[{"id": "a", "speed": "10us"}, {"id": "b"}])).startswith(
        "pair.json: nodes[0].speed: cannot read '10us' as a speed")


def test_wrong_type():
    assert _error(_link_doc(directed="yes")) == "pair.json: links[0].directed: expected true or false, found 'yes'"


def test_unknown_field_suggests_the_right_one():
    assert _error(_link_doc(bandwith=1e9)) == "pair.json: links[0].bandwith: unknown field (did you mean 'bandwidth'?)"


def test_missing_field():
    assert _error(_document(links=[{"id": "ab", "ends": ["a", "b"]}])) == \
        "pair.json: links[0]: missing field 'bandwidth'"


def test_bad_sharing_policy():
    assert _error(_link_doc(sharing="SPLITDUPLEX")) == \
        "pair.json: links[0].sharing: 'SPLITDUPLEX' is not one of 'full_duplex', 'shared', 'fatpipe'"


def test_bad_ends():
    assert _error(_link_doc(ends=["a"])) == "pair.json: links[0].ends: expected the ids of two nodes, found 1"


def test_unknown_routing_kind():
    assert _error(_document(routing={"kind": "adaptive"})) == \
        "pair.json: routing.kind: 'adaptive' is not one of 'shortest_path', 'table', 'ecube', 'd_mod_k'"


def test_bad_hop():
    table = {"kind": "table", "routes": [{"src": "a", "dst": "b", "hops": [["ab", "up"]]}]}
    assert _error(_document(routing=table)) == \
        "pair.json: routing.routes[0].hops[0]: expected a link id or [link id, forward], found ['ab', 'up']"


def test_malformed_json():
    assert _error('{"format": "collsched" "version": 1}') == \
        "pair.json:1:24: invalid JSON: Expecting ',' delimiter"


def test_truncated_json():
    text = _document()
    message = _error(text[: len(text) // 2])
    assert message.startswith("pair.json:") and ": invalid JSON: " in message
    assert message.endswith("(the file ends too early: it may be truncated)")


def test_empty_file():
    assert _error("") == "pair.json:1:1: invalid JSON: Expecting value (the file ends too early: it may be truncated)"


def test_newer_version():
    assert _error(_document(version=2)) == \
        "pair.json: version: unsupported platform document version 2, expected 1 (upgrade collsched to read it)"


def test_unknown_version():
    assert _error(_document(version="1.0")) == \
        "pair.json: version: unsupported platform document version '1.0', expected 1 (write the version as an integer)"


def test_not_a_collsched_document():
    assert _error('{"nodes": []}') == ("pair.json: not a collsched document: no 'format' field, expected \"format\": "
                                       "\"collsched\" (collsched reads its own JSON documents, or SimGrid XML platforms)")


def test_another_kind_of_document():
    assert _error(_document(kind="schedule")) == ("pair.json: kind: this is a 'schedule' document, expected a "
                                                  "'platform' document (load it with the reader for schedules)")


def test_not_an_object():
    assert _error("[1, 2]") == "pair.json: expected a JSON object with \"format\": \"collsched\", found [1, 2]"


# --- files ---------------------------------------------------------------------------

def test_missing_file(tmp_path):
    path = tmp_path / "nothere.json"
    with pytest.raises(FormatError, match=f"^{path}: no such file \\(check the path\\)$"):
        load_platform(path)


def test_directory_instead_of_file(tmp_path):
    path = tmp_path / "dir.json"
    path.mkdir()
    with pytest.raises(FormatError, match=f"^{path}: is a directory, not a file"):
        load_platform(path)


def test_unknown_extension(tmp_path):
    with pytest.raises(FormatError, match=r"t1\.yaml: unknown platform file type \(extension '\.yaml'\) "
                                          r"\(use \.json or \.xml"):
        load_platform(tmp_path / "t1.yaml")
    with pytest.raises(FormatError, match="no extension"):
        save_platform(platform_from_json(_document()), tmp_path / "t1")


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(_link_doc(latency=-1))
    with pytest.raises(FormatError, match=f"^{path}: links\\[0\\].latency: expected a time >= 0, found -1$"):
        load_platform(path)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(FormatError, match=f"^{path}: not UTF-8 text"):
        load_platform(path)


def test_atomic_write_keeps_the_old_file_when_it_fails(tmp_path, monkeypatch):
    path = tmp_path / "p.json"
    atomic_write(path, "old\n")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(FormatError, match=f"^{path}: cannot write the file: No space left on device$"):
        atomic_write(path, "new\n")
    assert read_text(path) == "old\n"
    assert os.listdir(tmp_path) == ["p.json"]


def test_atomic_write_into_a_missing_directory(tmp_path):
    with pytest.raises(FormatError, match="does not exist"):
        atomic_write(tmp_path / "no" / "p.json", "{}")


def test_envelope_round_trip():
    body = {"b": [1.5, None, "x"], "a": {"z": 1}}
    assert load_document(dump_document("schedule", body), where="s.json", kind="schedule") == body
    with pytest.raises(ValueError, match="cannot have a field 'kind'"):
        dump_document("schedule", {"kind": "x"})
    with pytest.raises(FormatError, match="cannot write the program as JSON"):
        dump_document("program", {"x": float("nan")})
