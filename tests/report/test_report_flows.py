"""The platform drawing: layout, link widths and colours, the busiest link marked, Figure 10's labels placed
without overlap, outputs."""

import xml.etree.ElementTree as ET
from fractions import Fraction

import numpy as np
import pytest

import collsched as cs
from collsched.platform import Link, Node, Platform
from collsched.platform.routing import RouteTable
from collsched.report.platform_flows import (IDLE_COLOUR, TASK_LINES, activity_labels, busiest_link, drawn_labels,
                                             platform_flows, platform_flows_figure, platform_flows_svg,
                                             platform_layout)
from collsched.schedules import PeriodicSchedule


def _lines(fig):
    return {line.get_gid(): line for line in fig.axes[0].lines if line.get_gid()}


@pytest.fixture(scope="module")
def chain():
    """h0 - r0 - r1 - h1 with a slow middle link, and h2 on r0: a send h0 -> h1 is busiest on the middle."""
    nodes = [Node("h0"), Node("h1"), Node("h2"), Node("r0", kind="router"), Node("r1", kind="router")]
    links = [Link("a", 1e8, ends=("h0", "r0")), Link("mid", 1e6, ends=("r0", "r1")),
             Link("b", 1e8, ends=("r1", "h1")), Link("c", 1e7, ends=("h2", "r0"))]
    return Platform(nodes, links, name="chain")


@pytest.fixture(scope="module")
def chain_result(chain):
    b = cs.ProgramBuilder(chain.hosts)
    b.send("h0", "h1", [], size=1e6)
    b.send("h2", "h0", [], size=1e5)
    return cs.simulate(chain, b.build(), model=cs.models.Fluid())


def test_busiest_link_is_marked(chain, chain_result):
    assert busiest_link(chain_result) == "mid"
    fig = platform_flows_figure(chain, chain_result)
    lines = _lines(fig)
    halo, mid = lines["busiest-link"], lines["link-mid"]
    assert np.allclose(halo.get_xydata(), mid.get_xydata())
    assert halo.get_linewidth() > mid.get_linewidth() and halo.get_color() == "black"
    assert "busiest link mid (100%)" in fig.axes[0].get_title()


def test_colours_and_widths(chain, chain_result):
    lines = _lines(platform_flows_figure(chain, chain_result))
    assert lines["link-b"].get_color() != IDLE_COLOUR   # carries h0 -> h1
    assert lines["link-mid"].get_linewidth() < lines["link-c"].get_linewidth() < lines["link-a"].get_linewidth()
    idle = _lines(platform_flows_figure(chain, None))
    assert all(line.get_color() == IDLE_COLOUR for line in idle.values())
    assert "busiest-link" not in idle


def test_utilisation_labels_on_carrying_links(chain, chain_result):
    texts = [t.get_text() for t in platform_flows_figure(chain, chain_result).axes[0].texts]
    util = dict(zip(chain_result.link_ids, chain_result.link_utilisation))
    assert texts.count(f"{util['mid']:.0%}") >= 1 and f"{util['c']:.0%}" in texts
    none = [t.get_text() for t in platform_flows_figure(chain, chain_result, max_labels=0).axes[0].texts]
    assert "100%" not in none


def test_svg_is_xml_with_scoped_ids(chain, chain_result):
    svg = platform_flows_svg(chain, chain_result, scope="x")
    root = ET.fromstring(svg)
    ids = [el.get("id") for el in root.iter() if el.get("id")]
    assert "x-busiest-link" in ids and "x-link-mid" in ids
    assert all(i.startswith("x-") for i in ids) and len(ids) == len(set(ids))


def test_files_by_suffix(tmp_path, chain, chain_result):
    png = platform_flows(chain, chain_result, tmp_path / "f.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = platform_flows(chain, chain_result, tmp_path / "f.svg")
    ET.parse(svg)
    with pytest.raises(ValueError, match="must end with one of .png, .svg, .pdf"):
        platform_flows(chain, chain_result, tmp_path / "f.gif")
    with pytest.raises(ValueError, match="max_labels"):
        platform_flows_figure(chain, chain_result, max_labels=-1)


def test_result_of_another_platform(chain_result):
    with pytest.raises(ValueError, match="not simulated on platform"):
        platform_flows_figure(cs.topologies.star(3), chain_result)


def test_layout_is_deterministic_and_fills_the_unit_square():
    p = cs.topologies.tiers(seed=2)
    pos = platform_layout(p)
    assert pos == platform_layout(cs.topologies.tiers(seed=2))
    assert set(pos) == set(p.nodes)
    xy = np.array(list(pos.values()))
    assert xy.min() >= -1e-12 and xy.max() <= 1 + 1e-12
    assert np.isclose(max(np.ptp(xy, axis=0)), 1.0)


def test_large_platform_uses_the_spring_layout():
    p = cs.topologies.hypercube(8)   # 256 nodes: beyond Kamada-Kawai's limit
    pos = platform_layout(p)
    assert len(pos) == 256 and pos == platform_layout(p)


def test_route_table_platform_draws_routed_pairs():
    nodes = [Node("a"), Node("b"), Node("c")]
    links = [Link("x", 1e6), Link("y", 1e6)]
    p = Platform(nodes, links, RouteTable({("a", "b"): ["x"], ("a", "c"): ["x", "y"]}), name="table")
    b = cs.ProgramBuilder(p.hosts)
    b.send("a", "c", [], size=1e6)
    r = cs.simulate(p, b.build(), model=cs.models.OnePort())
    lines = _lines(platform_flows_figure(p, r))
    assert {"link-a-_b", "link-a-_c", "busiest-link"} <= set(lines)


def test_figure_10_labels_of_a_periodic_schedule(chain):
    s = PeriodicSchedule(throughput=Fraction(2, 9), period=Fraction(9, 2),
                         activities={"TP": Fraction(2, 9), "send(h0->r0, v[0..0])": Fraction(1, 9),
                                     "send(r0->r1, v[0..0])": Fraction(1, 9), "cons(h1, T(0,0,1))": Fraction(2, 9),
                                     "s(h0->r0)": Fraction(1, 2)})
    edges, nodes = activity_labels(s)
    assert edges == {("h0", "r0"): ["v[0..0]: 0.111/s"], ("r0", "r1"): ["v[0..0]: 0.111/s"]}
    assert nodes == {"h1": ["T(0,0,1): 0.222/s"]}
    texts = [t.get_text() for t in platform_flows_figure(chain, None, schedule=s).axes[0].texts]
    assert "h0→r0 v[0..0]: 0.111/s" in texts and "r0→r1 v[0..0]: 0.111/s" in texts
    assert "h1\nT(0,0,1): 0.222/s" in texts
    assert activity_labels(cs.plan(chain, cs.Gather(sources=chain.hosts, target="h0", size=1))) == ({}, {})


def test_too_many_activities_fall_back_to_utilisations(chain, chain_result):
    acts = {f"send(h0->r0, v[{k}..{k}])": Fraction(1, 9) for k in range(5)}
    s = PeriodicSchedule(throughput=Fraction(1, 9), period=Fraction(9), activities=acts)
    texts = [t.get_text() for t in platform_flows_figure(chain, chain_result, schedule=s, max_labels=4).axes[0].texts]
    assert not any("→" in t for t in texts) and "100%" in texts
    texts = [t.get_text() for t in platform_flows_figure(chain, chain_result, schedule=s, max_labels=5).axes[0].texts]
    assert any(t.startswith("h0→r0 v[0..0]: 0.111/s") for t in texts)


@pytest.fixture(scope="module")
def demo_flows():
    """The demo platform with a gather's utilisations, and a synthetic steady state with tasks on every host."""
    from collsched.demo import demo_platform

    p = demo_platform()
    c = cs.Gather(sources=p.hosts, target=p.hosts[-1], size=1e6)
    r = cs.simulate(p, cs.plan(p, c, algorithm="binomial"), model=cs.models.OnePort())
    few = {f"cons({h}, T({i},{i},{i + 1}))": Fraction(1, 3 + i) for i, h in enumerate(p.hosts[:12:2])}
    many = {f"cons({h}, T({i},{j},{j + 1}))": Fraction(1, 7) for i, h in enumerate(p.hosts) for j in range(3)}
    return p, r, PeriodicSchedule(throughput=1, period=1, activities=few), PeriodicSchedule(
        throughput=1, period=1, activities=many)


def _label_boxes(fig):
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    return [(t.get_text(), t.get_window_extent(renderer)) for t in fig.axes[0].texts if t.get_visible()]


@pytest.mark.parametrize("tasks", [None, "few", "many"])
def test_labels_do_not_overlap(demo_flows, tasks):
    p, r, few, many = demo_flows
    fig = platform_flows_figure(p, r, schedule={"few": few, "many": many, None: None}[tasks])
    boxes = _label_boxes(fig)
    texts = [t for t, _ in boxes]
    assert set(p.hosts) <= {t.split("\n")[0] for t in texts}   # every host named
    assert {"lan0", "wan2", "man1.1"} <= set(texts)           # routers too
    assert sum(t.endswith("%") for t in texts) >= 10           # and most carrying links
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[:i]:
            assert not ba.overlaps(bb), (a, b)
    renderer = fig.canvas.get_renderer()
    legend = fig.axes[0].get_legend().get_window_extent(renderer)
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1 and fig.bbox.y0 <= legend.y0
    for t, box in boxes:
        assert not box.overlaps(legend), t
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 and fig.bbox.y0 <= box.y0 and box.y1 <= fig.bbox.y1, t


def test_tasks_under_hosts_when_few_else_names_only(demo_flows):
    p, r, few, many = demo_flows
    texts = [t.get_text() for t in platform_flows_figure(p, r, schedule=few).axes[0].texts]
    assert "h0\nT(0,0,1): 0.333/s" in texts
    texts = [t.get_text() for t in platform_flows_figure(p, r, schedule=many).axes[0].texts]
    assert "h0" in texts and not any("T(" in t for t in texts)
    assert sum(len(v) for v in activity_labels(many)[1].values()) > TASK_LINES


def test_router_labels_are_legible(demo_flows):
    p, r, _, _ = demo_flows
    fig = platform_flows_figure(p, r)
    routers = [t for t in fig.axes[0].texts if t.get_text() in p.routers]
    assert len(routers) == len(p.routers)
    assert all(t.get_fontsize() >= 7 and t.get_color() == "#333333" for t in routers)


def test_drawn_labels_and_the_fallback_to_utilisations(chain, chain_result):
    assert drawn_labels(platform_flows_figure(chain, chain_result)) == ("utilisation", set())
    s = PeriodicSchedule(throughput=1, period=1, activities={"send(h0->r0, v[0..0])": Fraction(1, 9),
                                                             "cons(h1, T(0,0,1))": Fraction(1, 9)})
    assert drawn_labels(platform_flows_figure(chain, chain_result, schedule=s)) == ("activities", {"h1"})
    assert drawn_labels(platform_flows_figure(chain, None)) == (None, set())


def test_flows_that_cannot_all_be_labelled_give_way_to_utilisations(demo_flows):
    """Ten flows on each of three short links of the demo do not fit: a partial picture would mislead, so none is
    drawn."""
    p, r, _, _ = demo_flows
    assert {p.links[lid].ends for lid in p.links} >= {("h1", "lan0"), ("h2", "lan0"), ("h3", "lan0")}
    acts = {f"send({h}->lan0, v[{i}..{j}])": Fraction(1, 7)
            for i, h in enumerate(p.hosts[1:4], 1) for j in range(i, i + 10)}
    s = PeriodicSchedule(throughput=1, period=1, activities=acts)
    fig = platform_flows_figure(p, r, schedule=s)
    assert drawn_labels(fig)[0] == "utilisation"
    assert not any("→" in t.get_text() for t in fig.axes[0].texts)


def test_a_fallback_after_some_flows_were_placed(demo_flows):
    """Flows on long links fit, those on the crowded leaf links do not: the placed ones are taken back."""
    p, r, _, _ = demo_flows
    acts = {"send(man0.1->wan2, v[0..7])": Fraction(1, 7), "send(wan2->man1.1, v[0..7])": Fraction(1, 7)}
    acts.update({f"send({h}->lan0, v[{i}..{j}])": Fraction(1, 7) for i, h in enumerate(p.hosts[1:4], 1)
                 for j in range(i, i + 10)})
    fig = platform_flows_figure(p, r, schedule=PeriodicSchedule(throughput=1, period=1, activities=acts))
    assert drawn_labels(fig)[0] == "utilisation"
    boxes = _label_boxes(fig)
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[:i]:
            assert not ba.overlaps(bb), (a, b)
