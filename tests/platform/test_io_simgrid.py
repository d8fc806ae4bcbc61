"""Platforms as SimGrid XML: round trips, SimGrid's routing semantics on hand-written files, and bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from test_io_native import platforms, same_routes  # the shared strategy (tests/platform is on sys.path)

from collsched.errors import FormatError, PlatformError
from collsched.platform import Link, Node, Platform, RouteTable, ShortestPath
from collsched.platform.io import load_platform, platform_from_simgrid, platform_to_simgrid, save_platform

DATA = Path(__file__).parent.parent / "data"


def _strip_collsched_props(xml: str) -> str:
    return re.sub(r'\s*<prop id="collsched:[^"]*" value="[^"]*" />', "", xml)


# --- round trips -----------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(platforms())
def test_xml_round_trip_is_identity(p):
    xml = platform_to_simgrid(p)
    q = platform_from_simgrid(xml, where="random.xml")
    assert q == p
    assert same_routes(p, q)
    assert platform_to_simgrid(q) == xml


@settings(max_examples=30, deadline=None)
@given(platforms())
def test_written_file_means_the_same_routes_to_simgrid(p):
    """Without collsched's props the file is read as SimGrid reads it: the routes must be the same."""
    q = platform_from_simgrid(_strip_collsched_props(platform_to_simgrid(p)), where="plain.xml")
    assert q.hosts == p.hosts and q.routers == p.routers
    assert [(k.id, k.bandwidth, k.latency, k.sharing) for k in q.links.values()] == \
           [(k.id, k.bandwidth, k.latency, k.sharing) for k in p.links.values()]
    for a in p.hosts:
        for b in p.hosts:
            assert q.has_route(a, b) == p.has_route(a, b)
            if p.has_route(a, b):
                assert q.route(a, b) == p.route(a, b)
                full_duplex = [fwd for link, fwd in p.route_hops(a, b) if p.links[link].sharing == "full_duplex"]
                assert [fwd for link, fwd in q.route_hops(a, b) if q.links[link].sharing == "full_duplex"] == full_duplex


def test_save_and_load_xml_file(tmp_path):
    p = Platform([Node("a", send_overhead=2e-6), Node("s", kind="router", speed=3.0), Node("b")],
                 [Link("as", 1e9, 1e-5, ends=("a", "s"), directed=True), Link("sb", 5e8, ends=("s", "b"), sharing="shared"),
                  Link("bs", 5e8, ends=("b", "s"), sharing="fatpipe")], ShortestPath("latency"), name="trio",
                 clusters=[["b"], ["a"]])
    save_platform(p, tmp_path / "trio.xml")
    assert load_platform(tmp_path / "trio.xml") == p


def test_written_file_has_one_route_per_ordered_pair():
    p = Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b")), Link("x", 1e9, sharing="shared")],
                 RouteTable({("a", "b"): ["ab", "x"]}))
    xml = platform_to_simgrid(p)
    assert '<route src="a" dst="b" symmetrical="NO">\n      <link_ctn id="ab" direction="UP" />\n' \
           '      <link_ctn id="x" />\n    </route>' in xml
    assert '<route src="b" dst="a" symmetrical="NO">\n      <link_ctn id="x" />\n' \
           '      <link_ctn id="ab" direction="DOWN" />\n    </route>' in xml
    assert '<link id="x" bandwidth="1000000000.0Bps" latency="0.0s" sharing_policy="SHARED" />' in xml


def test_zone_id_does_not_clash_with_a_node():
    p = Platform([Node("pair"), Node("b")], [Link("l", 1e9, ends=("pair", "b"))], name="pair")
    assert '<zone id="pair-zone1" routing="Full">' in platform_to_simgrid(p)
    assert platform_from_simgrid(platform_to_simgrid(p)) == p


# --- a hand-written file: two clusters, a Full zone, zone routes through gateways ---------------

@pytest.fixture(scope="module")
def grid() -> Platform:
    return load_platform(DATA / "two_clusters.xml")


def test_grid_hosts_routers_and_clusters(grid):
    assert grid.name == "grid"
    assert grid.hosts == ("a-0.site", "a-1.site", "a-2.site", "b0", "b3", "b4", "b5", "x", "y")
    assert grid.routers == ("a-cA_router.site", "gwB", "gw-lab")
    assert grid.clusters == (("a-0.site", "a-1.site", "a-2.site"), ("b0", "b3", "b4", "b5"), ("x", "y"))
    assert [grid.nodes[h].speed for h in ("a-0.site", "b3", "x", "y")] == [1e9, 2e9, 5e8, 4e9]


def test_grid_links(grid):
    assert list(grid.links) == ["cA_backbone", "cA_link_0", "cA_link_1", "cA_link_2", "cB_link_0", "cB_link_3",
                                "cB_link_4", "cB_link_5", "x-gw", "y-gw", "x-y", "wan-AB", "wan-A-lab", "wan-B-lab"]
    assert grid.links["cA_backbone"] == Link("cA_backbone", 2.25e9, 5e-4, sharing="shared")
    assert grid.links["cA_link_1"] == Link("cA_link_1", 1.25e8, 5e-5, sharing="full_duplex")
    assert grid.links["cB_link_3"] == Link("cB_link_3", 1.25e8, 1e-5, sharing="shared")
    assert grid.links["x-y"].sharing == "fatpipe" and grid.links["wan-A-lab"].sharing == "full_duplex"
    assert all(link.ends is None for link in grid.links.values())  # a backbone has no two ends


def test_grid_route_inside_a_cluster(grid):
    assert grid.route_hops("a-0.site", "a-2.site") == (("cA_link_0", True), ("cA_backbone", True), ("cA_link_2", False))
    assert grid.route_hops("b0", "b5") == (("cB_link_0", True), ("cB_link_5", True))


def test_grid_route_between_clusters_through_gateways(grid):
    assert grid.route_hops("a-0.site", "b3") == (("cA_link_0", True), ("cA_backbone", True), ("wan-AB", True),
                                                 ("cB_link_3", True))
    assert grid.route_hops("b3", "a-0.site") == (("cB_link_3", True), ("wan-AB", True), ("cA_backbone", True),
                                                 ("cA_link_0", False))


def test_grid_symmetrical_zone_route_swaps_up_and_down(grid):
    assert grid.route_hops("a-1.site", "x") == (("cA_link_1", True), ("cA_backbone", True), ("wan-A-lab", True),
                                                ("x-gw", False))
    assert grid.route_hops("x", "a-1.site") == (("x-gw", True), ("wan-A-lab", False), ("cA_backbone", True),
                                                ("cA_link_1", False))
    assert grid.route_hops("y", "a-0.site") == (("y-gw", True), ("wan-A-lab", False), ("cA_backbone", True),
                                                ("cA_link_0", False))


def test_grid_asymmetric_zone_routes(grid):
    assert grid.route("x", "b0") == ("x-gw", "wan-B-lab", "cB_link_0")
    assert grid.route("b0", "x") == ("cB_link_0", "wan-B-lab", "wan-AB", "x-gw")  # the <ASroute>, not a reverse


def test_grid_route_inside_a_full_zone(grid):
    assert grid.route_hops("x", "y") == (("x-y", True),)
    assert grid.route_hops("y", "x") == (("x-y", True),)
    assert len(grid.routing.routes) == 9 * 8


def test_grid_round_trips(grid):
    assert platform_from_simgrid(platform_to_simgrid(grid)) == grid


# --- Floyd and Dijkstra zones --------------------------------------------------------------

def _platform(zones: str) -> str:
    return f'<?xml version="1.0"?>\n<platform version="4.1">\n{zones}\n</platform>\n'


def _shortest_path_zone(routing: str) -> str:
    return _platform(f'''<zone id="f" routing="{routing}">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <router id="r"/>
  <link id="ar" bandwidth="1GBps" latency="1ms"/>
  <link id="rb" bandwidth="1GBps" latency="1ms" sharing_policy="SPLITDUPLEX"/>
  <link id="rc" bandwidth="1GBps" latency="10ms"/>
  <link id="bc" bandwidth="1GBps" latency="1us"/>
  <route src="a" dst="r"><link_ctn id="ar"/></route>
  <route src="r" dst="b"><link_ctn id="rb" direction="UP"/></route>
  <route src="r" dst="c"><link_ctn id="rc"/></route>
  <route src="b" dst="c"><link_ctn id="bc"/></route>
</zone>''')


@pytest.mark.parametrize("routing", ["Floyd", "Dijkstra", "DijkstraCache"])
def test_shortest_path_zone_counts_links_as_simgrid_does(routing):
    p = platform_from_simgrid(_shortest_path_zone(routing), where="floyd.xml")
    # two links through r (11 ms) rather than three through r and b (2.001 ms): SimGrid weighs routes by link count
    assert p.route("a", "c") == ("ar", "rc")
    assert p.route("a", "b") == ("ar", "rb")
    assert p.route("b", "c") == ("bc",)


@pytest.mark.parametrize("routing", ["Floyd", "Dijkstra"])
def test_shortest_path_zone_gives_links_their_ends(routing):
    p = platform_from_simgrid(_shortest_path_zone(routing))
    assert [p.links[k].ends for k in ("ar", "rb", "rc", "bc")] == [("a", "r"), ("r", "b"), ("r", "c"), ("b", "c")]
    assert p.route_hops("c", "a") == (("rc", False), ("ar", False))
    assert p.route_hops("b", "a") == (("rb", False), ("ar", False))
    assert sorted(p.graph().successors("r")) == ["a", "b", "c"]


def test_floyd_zone_of_zones_joins_gateways():
    p = platform_from_simgrid(_platform('''<zone id="top" routing="Floyd">
  <zone id="z1" routing="None"><host id="h1" speed="1Gf"/></zone>
  <zone id="z2" routing="Full">
    <host id="h2a" speed="1Gf"/><host id="h2b" speed="1Gf"/>
    <link id="l2" bandwidth="1GBps"/>
    <route src="h2a" dst="h2b"><link_ctn id="l2"/></route>
  </zone>
  <zone id="z3" routing="None"><host id="h3" speed="1Gf"/></zone>
  <link id="l12" bandwidth="1GBps"/><link id="l23" bandwidth="1GBps"/>
  <zoneRoute src="z1" dst="z2" gw_src="h1" gw_dst="h2a"><link_ctn id="l12"/></zoneRoute>
  <zoneRoute src="z2" dst="z3" gw_src="h2b" gw_dst="h3"><link_ctn id="l23"/></zoneRoute>
</zone>'''))
    assert p.route("h1", "h3") == ("l12", "l2", "l23")
    assert p.route("h3", "h1") == ("l23", "l2", "l12")
    assert p.links["l2"].ends == ("h2a", "h2b") and p.route_hops("h3", "h1")[0] == ("l23", False)
    assert p.clusters == (("h1",), ("h2a", "h2b"), ("h3",))


def test_cluster_without_backbone_links_hosts_to_its_router():
    p = platform_from_simgrid(_platform('''<zone id="w" routing="Full">
  <cluster id="c" prefix="n-" suffix="" radical="1-3" speed="1Gf" bw="1GBps" lat="1us"/>
</zone>'''))
    assert p.routers == ("n-c_router",)
    assert p.links["c_link_2"].ends == ("n-2", "n-c_router")
    assert p.route_hops("n-1", "n-3") == (("c_link_1", True), ("c_link_3", False))
    assert p.latency("n-1", "n-3") == 2e-6


def test_cluster_limiter_links():
    p = platform_from_simgrid(_platform('''<zone id="w" routing="Full">
  <cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us" limiter_link="2GBps"/>
</zone>'''))
    assert p.route("n0", "n1") == ("c_link_0_limiter", "c_link_0", "c_link_1", "c_link_1_limiter")
    assert p.links["c_link_0_limiter"] == Link("c_link_0_limiter", 2e9, sharing="shared")


def test_cluster_zone_with_host_links_and_backbone():
    p = platform_from_simgrid(_platform('''<zone id="star" routing="Cluster">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="a-up" bandwidth="1GBps"/><link id="a-down" bandwidth="1GBps"/>
  <link id="b" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>
  <backbone id="bb" bandwidth="10GBps" latency="1us"/>
  <host_link id="a" up="a-up" down="a-down"/>
  <host_link id="b" up="b_UP" down="b_DOWN"/>
</zone>'''))
    assert p.route_hops("a", "b") == (("a-up", True), ("bb", True), ("b", False))
    assert p.route_hops("b", "a") == (("b", True), ("bb", True), ("a-down", True))


def test_our_overhead_props_are_read_in_any_file():
    p = platform_from_simgrid(_platform('''<zone id="z" routing="Full">
  <host id="a" speed="1Gf"><prop id="collsched:send_overhead" value="2us"/></host>
  <host id="b" speed="1Gf"/>
  <link id="l" bandwidth="1GBps"/>
  <route src="a" dst="b"><link_ctn id="l"/></route>
</zone>'''))
    assert p.nodes["a"].send_overhead == 2e-6 and p.nodes["b"].send_overhead == 0.0


# --- bad input: one test each, one line saying what and where ------------------------------

def _error(xml: str, kind=FormatError) -> str:
    with pytest.raises(kind) as info:
        platform_from_simgrid(xml, where="bad.xml")
    message = str(info.value)
    assert "\n" not in message
    return message


def _pair(link: str = '<link id="ab" bandwidth="1GBps" latency="10us"/>', route: str = '<link_ctn id="ab"/>',
          src: str = "a", dst: str = "b") -> str:
    return _platform(f'''<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/>
  <host id="b" speed="1Gf"/>
  {link}
  <route src="{src}" dst="{dst}">{route}</route>
</zone>''')


def test_route_naming_an_unknown_node():
    assert _error(_pair(dst="zz")) == "bad.xml:7: route[@src='a'][@dst='zz']/@dst: unknown host or router 'zz'"


def test_route_naming_an_unknown_link():
    assert _error(_pair(route='<link_ctn id="ba"/>')) == "bad.xml:7: link_ctn[@id='ba']/@id: unknown link 'ba'"


def test_route_naming_a_zone():
    assert _error(_pair(dst="z")) == \
        "bad.xml:7: route[@src='a'][@dst='z']/@dst: unknown host or router 'z' (it is a zone: use <zoneRoute>)"


def test_duplicate_host_id():
    xml = _pair().replace('<host id="b" speed="1Gf"/>', '<host id="a" speed="2Gf"/>')
    assert _error(xml) == "bad.xml:5: host[@id='a']/@id: duplicate host, router or zone id 'a' (first declared at line 4)"


def test_duplicate_link_id():
    xml = _pair(link='<link id="ab" bandwidth="1GBps"/><link id="ab" bandwidth="2GBps"/>')
    assert _error(xml) == "bad.xml:6: link[@id='ab']/@id: duplicate link id 'ab' (first declared at line 6)"


def test_duplicate_host_made_by_a_cluster():
    xml = _platform('<zone id="z" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-2,2" speed="1Gf" '
                    'bw="1GBps" lat="0"/></zone>')
    assert _error(xml).startswith("bad.xml:3: cluster[@id='c']/@id: duplicate host, router or zone id 'n2'")


def test_duplicate_route():
    xml = _pair(route='<link_ctn id="ab"/></route><route src="b" dst="a"><link_ctn id="ab"/>')
    assert _error(xml) == ("bad.xml:7: second route from 'b' to 'a' in zone 'z' (routes are symmetrical by default: "
                           "remove the reverse route or write symmetrical=\"NO\")")


@pytest.mark.parametrize("bandwidth, message", [
    ("0", "expected a positive bandwidth, found '0'"),
    ("-1GBps", "expected a positive bandwidth, found '-1GBps'"),
    ("1e999Bps", "expected a finite bandwidth, found '1e999Bps'"),
    ("NaN", "cannot read 'NaN' as a bandwidth (write e.g. '86MBps', '10Gbps' or a number of bytes/s)"),
    ("inf", "cannot read 'inf' as a bandwidth (write e.g. '86MBps', '10Gbps' or a number of bytes/s)"),
])
def test_bad_bandwidth(bandwidth, message):
    assert _error(_pair(link=f'<link id="ab" bandwidth="{bandwidth}"/>')) == \
        f"bad.xml:6: link[@id='ab']/@bandwidth: {message}"


def test_negative_latency():
    assert _error(_pair(link='<link id="ab" bandwidth="1GBps" latency="-10us"/>')) == \
        "bad.xml:6: link[@id='ab']/@latency: expected a time >= 0, found '-10us'"


def test_unit_that_does_not_parse():
    assert _error(_pair(link='<link id="ab" bandwidth="1GBps" latency="12 parsecs"/>')) == \
        "bad.xml:6: link[@id='ab']/@latency: cannot read '12 parsecs' as a time (write e.g. '10us', '1.5ms' or a number of seconds)"


def test_bad_host_speed():
    assert _error(_pair().replace('speed="1Gf"/>\n  <host id="b"', 'speed="fast"/>\n  <host id="b"')).startswith(
        "bad.xml:4: host[@id='a']/@speed: cannot read 'fast' as a speed")


def test_bad_cluster_bandwidth():
    xml = _platform('<zone id="z" routing="Full">\n<cluster id="c" prefix="n" suffix="" radical="0-1" speed="1Gf" '
                    'bw="0Bps" lat="0"/></zone>')
    assert _error(xml) == "bad.xml:4: cluster[@id='c']/@bw: expected a positive bandwidth, found '0Bps'"


def test_malformed_radical():
    xml = _platform('<zone id="z" routing="Full"><cluster id="c" prefix="n" suffix="" radical="0-3-5" speed="1Gf" '
                    'bw="1GBps" lat="0"/></zone>')
    assert _error(xml) == ("bad.xml:3: cluster[@id='c']/@radical: malformed radical '0-3-5': '0-3-5' is not a number "
                           "or a range a-b with a <= b (write e.g. '0-3,5,7-9')")


def test_split_duplex_link_needs_a_direction():
    xml = _pair(link='<link id="ab" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>')
    assert _error(xml) == ("bad.xml:7: link_ctn[@id='ab']: link 'ab' is SPLITDUPLEX, so the route must say its "
                           "direction (add direction=\"UP\" or direction=\"DOWN\")")


def test_gateway_outside_its_zone():
    xml = _platform('''<zone id="top" routing="Full">
  <zone id="z1" routing="None"><host id="h1" speed="1Gf"/></zone>
  <zone id="z2" routing="None"><host id="h2" speed="1Gf"/></zone>
  <link id="l" bandwidth="1GBps"/>
  <zoneRoute src="z1" dst="z2" gw_src="h1" gw_dst="h1"><link_ctn id="l"/></zoneRoute>
</zone>''')
    assert _error(xml) == "bad.xml:7: zoneRoute[@src='z1'][@dst='z2']/@gw_dst: gateway 'h1' is not inside zone 'z2'"


def test_route_without_links():
    assert _error(_pair(route="")) == ("bad.xml: the route from host 'a' to host 'b' has no link (collsched routes "
                                       "need a link: add one (FATPIPE with a large bandwidth costs little))")


def test_hosts_and_zones_mixed():
    xml = _platform('<zone id="top" routing="Full"><host id="h" speed="1Gf"/>'
                    '<zone id="z" routing="None"><host id="g" speed="1Gf"/></zone></zone>')
    assert _error(xml).startswith("bad.xml:3: zone[@id='z']: zone 'top' holds both hosts or routers and sub-zones")


def test_unsupported_element():
    xml = _pair().replace("</zone>", '<bypassRoute src="a" dst="b"><link_ctn id="ab"/></bypassRoute></zone>')
    assert _error(xml) == "bad.xml:8: bypassRoute[@src='a'][@dst='b']: <bypassRoute> is not supported by " \
                          "collsched's SimGrid reader"


def test_unknown_zone_routing():
    assert _error(_pair().replace('routing="Full"', 'routing="Vivaldi"')) == \
        "bad.xml:3: zone[@id='z']/@routing: zone routing 'Vivaldi' is not supported " \
        "(use Full, Floyd, Dijkstra, DijkstraCache, None or Cluster)"


def test_malformed_xml():
    assert _error(_pair().replace("</route>", "</rout>")) == "bad.xml:7: malformed XML: mismatched tag"


def test_truncated_xml():
    xml = _pair()
    assert _error(xml[: xml.index("<route")]) == \
        "bad.xml:7: malformed XML: no element found (the file ends too early: it may be truncated)"
    assert _error(xml[: xml.index('speed="1Gf"')]) == \
        "bad.xml:4: malformed XML: unclosed token (the file ends too early: it may be truncated)"


def test_wrong_version():
    assert _error(_pair().replace('version="4.1"', 'version="3"')) == \
        "bad.xml:2: platform/@version: SimGrid platform version '3' is not supported " \
        "(collsched reads version 4.1; upgrade the file with simgrid_update_xml)"


def test_not_a_platform():
    assert _error('<?xml version="1.0"?>\n<svg/>') == \
        "bad.xml:2: svg: not a SimGrid platform: the root element is <svg>, not <platform>"


def test_unknown_collsched_prop():
    xml = _pair().replace('<host id="b" speed="1Gf"/>', '<host id="b" speed="1Gf"><prop id="collsched:speed" value="1"/></host>')
    assert _error(xml) == ("bad.xml:5: host 'b': unknown prop 'collsched:speed' (a host may have "
                           "collsched:send_overhead, collsched:recv_overhead)")


def test_props_that_disagree_with_the_routes():
    p = Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b")), Link("x", 1e9, sharing="shared")],
                 RouteTable({("a", "b"): ["ab"]}))
    xml = platform_to_simgrid(p).replace('<link_ctn id="ab" direction="DOWN" />', '<link_ctn id="x" />')
    assert _error(xml) == ("bad.xml:16: the route from 'b' to 'a' is [x] in the file's <route>s but [ab DOWN] by its "
                           "collsched:routing prop (edit both, or delete the collsched:* props to read the file as "
                           "SimGrid does)")


def test_invalid_platform_names_the_file():
    xml = platform_to_simgrid(Platform([Node("a"), Node("b")], [Link("ab", 1e9, ends=("a", "b"))]))
    xml = xml.replace('value="[&quot;a&quot;, &quot;b&quot;]"', 'value="[&quot;a&quot;, &quot;zz&quot;]"')
    assert _error(xml, PlatformError) == "bad.xml: link 'ab' names unknown node 'zz' (declare the node first)"


def test_control_character_cannot_be_written():
    with pytest.raises(FormatError, match=r"^platform 'p': cannot write node id 'a\\x01' in XML"):
        platform_to_simgrid(Platform([Node("a\x01")], [], name="p"))
