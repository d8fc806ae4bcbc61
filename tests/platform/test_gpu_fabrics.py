"""Tests of the GPU fabrics (collsched.topologies.dgx2, ndv2, dgx_a100, mi250).

The numbers checked here are the peers' own; each check names the file and
lines it comes from: TE-CCL (github.com/microsoft/TE-CCL) ``teccl/topologies/dgx2.py``
and ``ndv2.py``; ForestColl (github.com/liangyuRain/ForestColl) ``topologies.py``.
"""

from __future__ import annotations

import itertools

import pytest

import collsched as cs
from collsched import topologies
from collsched.cli import main
from collsched.errors import PlatformError
from collsched.platform import Platform

FABRICS = {"dgx2": topologies.dgx2, "ndv2": topologies.ndv2, "dgx_a100": topologies.dgx_a100,
           "mi250": topologies.mi250}


def nodes_of(p: Platform, src: str, dst: str) -> list[str]:
    """The nodes a route visits, checking that it is a path that uses every link in a direction it carries."""
    at, visited = src, [src]
    for link_id, forward in p.route_hops(src, dst):
        link = p.links[link_id]
        assert forward or not link.directed, f"{src}->{dst}: {link_id} used backwards"
        tail, head = link.ends if forward else link.ends[::-1]
        assert tail == at, f"{src}->{dst}: {link_id} starts at {tail}, not {at}"
        at = head
        visited.append(at)
    assert at == dst and len(set(visited)) == len(visited), visited
    return visited


# --- shapes ---------------------------------------------------------------------------

@pytest.mark.parametrize("generator, size, hosts, routers, links", [
    # dgx2: 16 GPUs + 1 switch per chassis (dgx2.py lines 8-14), 8 one-way links per ordered chassis pair
    ("dgx2", 1, 16, 1, 16),
    ("dgx2", 2, 32, 2, 16 * 2 + 8 * 2),
    ("dgx2", 3, 48, 3, 16 * 3 + 8 * 6),
    # ndv2: 16 NVLink pairs per chassis (ndv2.py lines 26-33); 2 chassis: two direct one-way links
    # (lines 27, 35); more: one switch, GPU 0 in and GPU 1 out per chassis (lines 63-67)
    ("ndv2", 1, 8, 0, 16),
    ("ndv2", 2, 16, 0, 34),
    ("ndv2", 4, 32, 1, 16 * 4 + 2 * 4),
    # dgx_a100: NVSwitch per node; with 2+ nodes a NIC per GPU and 2 IB switches (topologies.py lines 8-26)
    ("dgx_a100", 1, 8, 1, 8),
    ("dgx_a100", 2, 16, 2 + 16 + 2, 16 * 3),
    ("dgx_a100", 3, 24, 3 + 24 + 2, 24 * 3),
    # mi250: 28 xGMI pairs per node (topologies.py lines 31-48); with 2+ nodes one IB switch (lines 61-63)
    ("mi250", 1, 16, 0, 28),
    ("mi250", 2, 32, 1, 28 * 2 + 32),
    ("mi250", 3, 48, 1, 28 * 3 + 48),
])
def test_counts(generator, size, hosts, routers, links):
    p = FABRICS[generator](size)
    assert p.hosts == tuple(f"h{i}" for i in range(hosts))
    assert (len(p.routers), len(p.links)) == (routers, links)
    per_box = hosts // size
    assert p.clusters == tuple(tuple(f"h{i}" for i in range(c * per_box, (c + 1) * per_box)) for c in range(size))
    for a, b in itertools.permutations(p.hosts, 2):
        nodes_of(p, a, b)


def test_defaults_are_two_boxes():
    assert [FABRICS[name]().name for name in FABRICS] == ["dgx2-2", "ndv2-2", "dgx-a100-2", "mi250-2"]


# --- numbers of the sources -------------------------------------------------------------

def test_dgx2_numbers():
    p = topologies.dgx2(2)
    # dgx2.py line 25 (125 GB/s, GB = 1e9 B) and line 28 (alpha 0.35 us), every GPU-switch link, both ways
    for k in range(32):
        link = p.links[f"l{k}"]
        assert (link.bandwidth, link.latency, link.directed) == (125e9, 0.35e-6, False)
        assert link.ends == (f"h{k}", f"nvs{k // 16}")
    # dgx2.py lines 31-44: 12.5 GB/s, alpha 2.6 us, odd GPU i -> GPU i-1 of the other chassis, one way
    inter = {link_id: link for link_id, link in p.links.items() if link_id.startswith("x")}
    assert sorted(link.ends for link in inter.values()) == sorted(
        [(f"h{i}", f"h{16 + i - 1}") for i in range(1, 16, 2)] + [(f"h{16 + i}", f"h{i - 1}") for i in range(1, 16, 2)])
    assert all((link.bandwidth, link.latency, link.directed) == (12.5e9, 2.6e-6, True) for link in inter.values())
    g = p.graph()
    assert g.has_edge("h1", "h16") and not g.has_edge("h16", "h1")
    assert g.edges["nvs0", "h3"]["bandwidth"] == g.edges["h3", "nvs0"]["bandwidth"] == 125e9


def test_ndv2_numbers():
    p = topologies.ndv2(2)
    bandwidth = {link_id: link.bandwidth for link_id, link in p.links.items()}
    # ndv2.py line 26, row 0: [0, 23, 46, 46, 23, 0, 0, 0]; code 23 -> 50 GB/s (line 18), 46 -> 25 GB/s (line 19)
    assert (bandwidth["n0-1"], bandwidth["n0-2"], bandwidth["n0-3"], bandwidth["n0-4"]) == (50e9, 25e9, 25e9, 50e9)
    assert "n0-5" not in bandwidth and "n0-7" not in bandwidth
    # line 33, row 7: [0, 0, 0, 46, 46, 23, 23, 0]; the second chassis is the same block (lines 34-41)
    assert (bandwidth["n3-7"], bandwidth["n4-7"], bandwidth["n5-7"], bandwidth["n6-7"]) == (25e9, 25e9, 50e9, 50e9)
    assert (bandwidth["n11-15"], bandwidth["n13-15"]) == (25e9, 50e9)
    # six NVLinks of 25 GB/s per GPU
    for h in p.hosts:
        assert sum(link.bandwidth for n, link in p.neighbours(h) if not link.directed) == 150e9
    # alpha 0.7 us on NVLinks (line 81), 1.3 us and 12.5 GB/s on the code-107 links (lines 22, 79), which the
    # transpose of line 68 turns into GPU 0 -> GPU 1 of the other chassis (lines 27 and 35)
    assert all(link.latency == 0.7e-6 for link_id, link in p.links.items() if link_id.startswith("n"))
    for link_id, ends in (("x0-9", ("h0", "h9")), ("x8-1", ("h8", "h1"))):
        link = p.links[link_id]
        assert (link.ends, link.directed, link.bandwidth, link.latency) == (ends, True, 12.5e9, 1.3e-6)
    q = topologies.ndv2(3)
    assert [q.links[f"x{8 * c}-ib"].ends for c in range(3)] == [("h0", "ib"), ("h8", "ib"), ("h16", "ib")]
    assert [q.links[f"xib-{8 * c + 1}"].ends for c in range(3)] == [("ib", "h1"), ("ib", "h9"), ("ib", "h17")]


def test_dgx_a100_numbers():
    p = topologies.dgx_a100(2)
    # topologies.py lines 4, 15-16: NVLINK_BW = 300 GB/s between each GPU and its node's NVSwitch, both ways
    assert all(p.links[f"l{k}"].bandwidth == 300e9 and p.links[f"l{k}"].ends == (f"h{k}", f"nvs{k // 8}")
               for k in range(16))
    # lines 5, 19-20 and 24-25: A100_IB_BW = 25 GB/s GPU <-> mlx5 NIC <-> IB switch b % 2, both ways
    for k in range(16):
        assert p.links[f"p{k}"].ends == (f"h{k}", f"nic{k}") and p.links[f"p{k}"].bandwidth == 25e9
        assert p.links[f"q{k}"].ends == (f"nic{k}", f"ib{k % 2}") and p.links[f"q{k}"].bandwidth == 25e9
    assert not any(link.directed for link in p.links.values())
    # line 17 / 21: one node has no NICs
    assert set(topologies.dgx_a100(1).links) == {f"l{k}" for k in range(8)}


def test_mi250_numbers():
    p = topologies.mi250(2)
    # topologies.py line 32, row 0: [0, 4, 0, 0, 2, 0, 0, 0, 1, ...] x xGMI_BW = 50 GB/s (line 29)
    assert (p.links["g0-1"].bandwidth, p.links["g0-4"].bandwidth, p.links["g0-8"].bandwidth) == (200e9, 100e9, 50e9)
    # line 47, row 15: [..., 2 (col 11), 0, 1 (col 13), 4 (col 14), 0]; the second node the same, GPUs + 16
    assert (p.links["g27-31"].bandwidth, p.links["g29-31"].bandwidth, p.links["g30-31"].bandwidth) == (
        100e9, 50e9, 200e9)
    # every GCD has 7 xGMI links: 350 GB/s
    for h in p.hosts:
        assert sum(link.bandwidth for n, link in p.neighbours(h) if n != "ib") == 350e9
    # lines 30, 61-63: MI250_IB_BW = 16 GB/s between every GCD and the one IB switch, both ways
    assert all(p.links[f"l{k}"].ends == (f"h{k}", "ib") and p.links[f"l{k}"].bandwidth == 16e9 for k in range(32))


# --- routes -------------------------------------------------------------------------------

def test_routes_inside_a_box():
    # NVSwitch boxes: GPU -> switch -> GPU
    assert nodes_of(topologies.dgx2(2), "h17", "h30") == ["h17", "nvs1", "h30"]
    assert nodes_of(topologies.dgx_a100(2), "h9", "h14") == ["h9", "nvs1", "h14"]
    # point-to-point meshes: over NVLink / xGMI only, never out of the box
    ndv2 = topologies.ndv2(3)
    for a, b in itertools.permutations(ndv2.clusters[1], 2):
        assert set(nodes_of(ndv2, a, b)) <= set(ndv2.clusters[1])
    assert nodes_of(ndv2, "h0", "h5") == ["h0", "h1", "h5"]
    mi250 = topologies.mi250(2)
    for box in mi250.clusters:
        for a, b in itertools.permutations(box, 2):
            visited = nodes_of(mi250, a, b)
            assert set(visited) <= set(box), visited
            assert len(visited) <= 6  # the xGMI mesh has diameter 5
    assert nodes_of(mi250, "h3", "h12") == ["h3", "h2", "h9", "h8", "h12"]


def test_routes_across_boxes():
    dgx2 = topologies.dgx2(2)
    assert dgx2.route("h1", "h16") == ("x1-16",)
    assert nodes_of(dgx2, "h0", "h17") == ["h0", "nvs0", "h1", "h16", "nvs1", "h17"]
    assert dgx2.latency("h1", "h16") == 2.6e-6 and dgx2.bandwidth("h0", "h17") == 12.5e9
    ndv2 = topologies.ndv2(2)
    assert ndv2.route("h0", "h9") == ("x0-9",) and ndv2.route("h9", "h0") == ("n8-9", "x8-1", "n0-1")
    assert nodes_of(topologies.ndv2(4), "h24", "h9") == ["h24", "ib", "h9"]
    a100 = topologies.dgx_a100(2)
    assert nodes_of(a100, "h2", "h10") == ["h2", "nic2", "ib0", "nic10", "h10"]
    assert a100.bandwidth("h2", "h10") == 25e9
    assert nodes_of(a100, "h0", "h9")[:3] == ["h0", "nic0", "ib0"]  # other parity: across, then NVSwitch
    mi250 = topologies.mi250(2)
    assert nodes_of(mi250, "h5", "h20") == ["h5", "ib", "h20"] and mi250.bandwidth("h5", "h20") == 16e9


# --- options ------------------------------------------------------------------------------

def test_bandwidth_overrides():
    p = topologies.dgx2(2, nvswitch_bandwidth="150GBps", inter_bandwidth=25e9, inter_latency="1us")
    assert p.links["l0"].bandwidth == 150e9 and p.links["x1-16"].bandwidth == 25e9 and p.links["x1-16"].latency == 1e-6
    assert topologies.ndv2(2, nvlink_bandwidth=20e9).links["n0-1"].bandwidth == 40e9
    assert topologies.dgx_a100(2, nic_bandwidth="50GBps").links["q3"].bandwidth == 50e9
    assert topologies.mi250(1, xgmi_bandwidth=10e9).links["g0-1"].bandwidth == 40e9
    a = topologies.mi250(2, ib_bandwidth=(10e9, 20e9), seed=4)
    assert a == topologies.mi250(2, ib_bandwidth=(10e9, 20e9), seed=4)
    assert len({a.links[f"l{k}"].bandwidth for k in range(32)}) == 32


@pytest.mark.parametrize("call, option", [
    (lambda: topologies.dgx2(0), "chassis"),
    (lambda: topologies.dgx2(65), "chassis"),
    (lambda: topologies.dgx2(2.0), "chassis"),
    (lambda: topologies.dgx2(2, inter_bandwidth=0), "inter_bandwidth"),
    (lambda: topologies.dgx2(2, nvswitch_latency=-1), "nvswitch_latency"),
    (lambda: topologies.ndv2(True), "chassis"),
    (lambda: topologies.ndv2(2, nvlink_bandwidth="fast"), "nvlink_bandwidth"),
    (lambda: topologies.dgx_a100(-1), "nodes"),
    (lambda: topologies.dgx_a100(2, nic_latency=(2e-6, 1e-6)), "nic_latency"),
    (lambda: topologies.mi250("2"), "nodes"),
    (lambda: topologies.mi250(2, ib_bandwidth=float("inf")), "ib_bandwidth"),
    (lambda: topologies.mi250(2, name=""), "name"),
])
def test_bad_options_name_the_option(call, option):
    with pytest.raises(PlatformError, match=rf"^\w+: {option} "):
        call()


# --- files and the command line -----------------------------------------------------------

@pytest.mark.parametrize("generator", sorted(FABRICS))
@pytest.mark.parametrize("extension", ["json", "xml"])
def test_file_round_trip(tmp_path, generator, extension):
    p = FABRICS[generator](3 if generator == "ndv2" else 2)
    path = tmp_path / f"{generator}.{extension}"
    cs.save_platform(p, path)
    q = cs.load_platform(path)
    assert q == p
    last = p.hosts[-1]
    assert all(q.route(a, b) == p.route(a, b) for a, b in [("h0", "h1"), ("h1", last), ("h5", "h2"), (last, "h0")])


def test_cli_generate(tmp_path, capsys):
    out = tmp_path / "x.json"
    main(["platform", "generate", "dgx2", "-p", "chassis=2", "-o", str(out)])
    assert "32 hosts, 2 routers, 48 links" in capsys.readouterr().out
    assert cs.load_platform(out) == topologies.dgx2(2)
    main(["platform", "generate", "mi250", "-p", "nodes=3", "-p", 'ib_bandwidth="25GBps"', "-o", str(out)])
    assert cs.load_platform(out) == topologies.mi250(3, ib_bandwidth=25e9)


@pytest.mark.parametrize("generator, size, out_of_a_box", [
    ("dgx2", 2, 8 * 12.5e9),    # 8 odd GPUs, one 12.5 GB/s link each (dgx2.py lines 31-44)
    ("dgx2", 3, 16 * 12.5e9),   # ... to each of the 2 other chassis
    ("ndv2", 2, 12.5e9),        # GPU 0's one link (ndv2.py lines 22, 27, 35)
    ("ndv2", 4, 12.5e9),
    ("dgx_a100", 2, 8 * 25e9),  # 8 NICs of 25 GB/s (topologies.py lines 5, 24-25)
    ("mi250", 2, 16 * 16e9),    # 16 GCDs of 16 GB/s (topologies.py lines 30, 61-63)
])
def test_capacity_out_of_a_box(generator, size, out_of_a_box):
    """The graph view's capacity leaving a box (its GPUs and its own switches and NICs) is the source's."""
    p = FABRICS[generator](size)
    g = p.graph()
    box = set(p.clusters[0]) | ({"nvs0"} | {f"nic{k}" for k in range(8)}) & set(p.nodes)  # box 0's own routers
    leaving = sum(e["bandwidth"] for u, v, e in g.edges(data=True) if u in box and v not in box)
    entering = sum(e["bandwidth"] for u, v, e in g.edges(data=True) if v in box and u not in box)
    assert leaving == entering == out_of_a_box
