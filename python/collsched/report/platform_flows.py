"""A platform drawn with the flows of a simulated schedule (the picture of seed 000's Figure 10).

Hosts are blue circles, routers grey squares; every link with two ends is a
segment whose width grows with the logarithm of its bandwidth. Given a
:class:`~collsched.schedules.trace.SimResult`, each link is coloured by its
utilisation (busy time over makespan, ``SimResult.link_utilisation``; idle
links stay light grey), carrying links are labelled with their utilisation,
and the busiest link is outlined in black and named in the title. Given a
:class:`~collsched.schedules.PeriodicSchedule` from the steady-state LPs, the
links are labelled instead, as in seed 000's Figure 10, with the messages
they carry per second (``send(u->v, v[k..m])`` activities) and the hosts
with the tasks they compute (``cons(i, T(k,l,m))``).

Drawn with matplotlib's object API on the Agg canvas, like
:mod:`collsched.report.gantt`; saved as PNG, SVG or PDF from the file name,
or returned as SVG text for an HTML page. Every link is an SVG group whose
id is ``link-<id>`` and the busiest link's outline is ``busiest-link``.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
>>> c = cs.Gather(sources=p.hosts, target="h0", size=1e6)
>>> r = cs.simulate(p, cs.plan(p, c, algorithm="linear"), model=cs.models.OnePort())
>>> busiest_link(r)
'l0'
>>> svg = platform_flows_svg(p, r)
>>> 'id="busiest-link"' in svg
True
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..units import format_quantity
from . import _figures

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules import Schedule
    from ..schedules.trace import SimResult

__all__ = ["platform_flows", "platform_flows_svg", "platform_flows_figure", "platform_layout", "busiest_link",
           "activity_labels", "drawn_labels", "TASK_LINES", "HOST_COLOUR", "ROUTER_COLOUR", "IDLE_COLOUR"]

HOST_COLOUR = "#3b75af"
ROUTER_COLOUR = "#8c8c8c"
IDLE_COLOUR = "#d4d4d4"
_CMAP = "YlOrRd"
_SEND = re.compile(r"^send\((?P<u>.+?)->(?P<v>.+?), (?P<what>.+)\)$")
_CONS = re.compile(r"^cons\((?P<node>[^,]+), (?P<what>.+)\)$")
#: Hosts are labelled with their tasks (``T(k,l,m): r/s``) when all hosts have at most this many in all;
#: beyond, with their names only (the HTML report lists the tasks in a table).
TASK_LINES = 16
_KK_LIMIT = 150  # Kamada-Kawai up to this many nodes (quadratic), seeded spring layout beyond


def platform_layout(platform: Platform) -> dict[str, tuple[float, float]]:
    """Deterministic positions of the platform's nodes, in the unit square.

    The graph is the platform's links (undirected; a platform whose links
    have no ends, described by a route table, is drawn as its hosts with
    one edge per routed pair). Kamada-Kawai up to 150 nodes (it follows
    hop distances, so trees and stars come out readable), a spring layout
    seeded with 0 beyond.

    Parameters
    ----------
    platform : Platform

    Returns
    -------
    dict of str to (float, float)
        Per node id (hosts and routers), its position.

    Examples
    --------
    >>> from collsched import topologies
    >>> pos = platform_layout(topologies.star(4))
    >>> sorted(pos), pos == platform_layout(topologies.star(4))
    (['h0', 'h1', 'h2', 'h3', 'sw'], True)
    >>> all(0.0 <= x <= 1.0 and 0.0 <= y <= 1.0 for x, y in pos.values())
    True
    """
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(platform.nodes if _drawn_links(platform) else platform.hosts)
    g.add_edges_from(_segments(platform).values())
    if g.number_of_nodes() == 1:
        return {next(iter(g)): (0.5, 0.5)}
    if g.number_of_nodes() <= _KK_LIMIT and nx.is_connected(g):
        raw = nx.kamada_kawai_layout(g)
    else:
        raw = nx.spring_layout(g, seed=0)
    xy = np.array([raw[n] for n in g.nodes])
    lo, span = xy.min(axis=0), np.ptp(xy, axis=0)
    scale = float(span.max()) or 1.0
    xy = (xy - lo) / scale + (1.0 - span / scale) / 2   # keep the aspect ratio, centre in the unit square
    return {n: (float(x), float(y)) for n, (x, y) in zip(g.nodes, xy)}


def _drawn_links(platform: Platform) -> bool:
    return bool(platform.links) and all(link.ends is not None for link in platform.links.values())


def _segments(platform: Platform) -> dict[str, tuple[str, str]]:
    """Per drawn item, its two ends: link id -> ends, or (route-table platforms) ``a->b`` -> host pair."""
    if _drawn_links(platform):
        return {lid: link.ends for lid, link in platform.links.items()}
    g = platform.graph()
    return {f"{a}->{b}": (a, b) for a, b in g.edges if a < b or not g.has_edge(b, a)}


def busiest_link(result: SimResult) -> str | None:
    """The id of the link with the largest busy time (first in platform order on ties), None if all idle.

    Parameters
    ----------
    result : SimResult

    Returns
    -------
    str or None

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> busiest_link(cs.simulate(p, b.build()))
    'l1'
    """
    if not len(result.link_ids) or not np.any(result.link_busy > 0):
        return None
    return result.link_ids[int(np.argmax(result.link_busy))]


def activity_labels(schedule: Schedule) -> tuple[dict[tuple[str, str], list[str]], dict[str, list[str]]]:
    """Figure 10's labels of a steady-state schedule: what crosses each edge and what each node computes.

    Reads the schedule's activity variables (per second): ``send(u->v, X)``
    becomes the line ``"X: r/s"`` of edge ``(u, v)`` and ``cons(i, T)``
    the line ``"T: r/s"`` of node ``i``. Sends are shown as net flows: a
    linear program's optimum may also move ``X`` both ways across an edge
    (a circulation that costs capacity but carries nothing, and that the
    extracted trees never use), so ``r`` is the rate from ``u`` to ``v``
    less the rate back, and only positive ones are kept; zero tasks are
    left out. Any other schedule has no activities, hence no labels.

    Parameters
    ----------
    schedule : Schedule

    Returns
    -------
    edges : dict of (str, str) to list of str
    nodes : dict of str to list of str

    Examples
    --------
    >>> from fractions import Fraction
    >>> from collsched.schedules import PeriodicSchedule
    >>> s = PeriodicSchedule(throughput=Fraction(2, 9), period=Fraction(9, 2),
    ...                      activities={"TP": Fraction(2, 9), "send(h1->h6, v[1..6])": Fraction(1, 9),
    ...                                  "cons(h6, T(0,0,6))": Fraction(2, 9), "send(h2->h6, v[2..2])": 0,
    ...                                  "send(h2->h3, v[2..2])": Fraction(1, 3), "send(h3->h2, v[2..2])": Fraction(1, 3)})
    >>> activity_labels(s)
    ({('h1', 'h6'): ['v[1..6]: 0.111/s']}, {'h6': ['T(0,0,6): 0.222/s']})
    """
    sends: dict[tuple[str, str, str], float] = {}
    nodes: dict[str, list[str]] = {}
    for name, value in dict(getattr(schedule, "activities", None) or {}).items():
        if m := _SEND.match(name):
            sends[(m["u"], m["v"], m["what"])] = value
        elif (m := _CONS.match(name)) and value:
            nodes.setdefault(m["node"], []).append(f"{m['what']}: {float(value):.3g}/s")
    edges: dict[tuple[str, str], list[str]] = {}
    for (u, v, what), value in sends.items():
        net = value - sends.get((v, u, what), 0)   # an LP optimum may also carry useless 2-cycles
        if net > 0:
            edges.setdefault((u, v), []).append(f"{what}: {float(net):.3g}/s")
    return edges, nodes


def _link_label_kind(platform: Platform, result: SimResult | None, schedule: Schedule | None, *,
                     max_labels: int) -> str | None:
    """The links' labels to try first: activities when at most ``max_labels`` lines, else utilisations when at most
    ``max_labels`` carrying links, else none."""
    segments = _segments(platform)
    edge_acts = activity_labels(schedule)[0] if schedule is not None else {}
    by_link = _activities_by_link(segments, edge_acts) if edge_acts else {}
    if by_link and sum(len(v) for v in by_link.values()) <= max_labels:
        return "activities"
    util = _utilisation(platform, result, segments)[0]
    carrying = sum(1 for v in util.values() if v > 0)
    return "utilisation" if 0 < carrying <= max_labels else None


def platform_flows_figure(platform: Platform, result: SimResult | None = None, *, schedule: Schedule | None = None,
                          title: str | None = None, max_labels: int = 40, width: float = 9.0):
    """The platform drawn with the flows of ``result`` (and ``schedule``'s activities), as a matplotlib Figure.

    Parameters
    ----------
    platform : Platform
    result : SimResult, optional
        A simulation on ``platform``: links are coloured by utilisation.
        Without it, only the platform is drawn (links by bandwidth).
    schedule : Schedule, optional
        The simulated schedule; if it has steady-state activities (a
        :class:`~collsched.schedules.PeriodicSchedule`), links and hosts are
        labelled with them (:func:`activity_labels`) instead of utilisations.
    title : str, optional
        Default: the platform's name, the model and the busiest link.
    max_labels : int
        Label links (and name routers) only when there are at most this many
        labels (activity lines, else carrying links: too many activities fall
        back to utilisations); hosts are named up to 64 nodes.
    width : float
        Figure width in inches (the height follows the layout's shape, from 4.5 to 8.5 inches).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If ``result`` was not simulated on a platform with these links, or ``max_labels < 0``.

    Examples
    --------
    >>> from collsched import topologies
    >>> fig = platform_flows_figure(topologies.star(3), title="a star")
    >>> fig.axes[0].get_title()
    'a star'
    """
    if isinstance(max_labels, bool) or not isinstance(max_labels, int) or max_labels < 0:
        raise ValueError(f"platform_flows option max_labels={max_labels!r} is not an integer >= 0")
    segments = _segments(platform)
    util, busiest = _utilisation(platform, result, segments)
    edge_acts, node_acts = activity_labels(schedule) if schedule is not None else ({}, {})
    pos = platform_layout(platform)
    span = np.ptp(np.array(list(pos.values())), axis=0)
    aspect = float(span[1] / span[0]) if span[0] > 0 else 1.0
    fig = _figures.new_figure(width, min(max(width * aspect * 0.85, 4.5), 8.5))   # follow the layout's shape
    ax = fig.subplots()
    ax.set_axis_off()
    ax.set_aspect("equal")
    ids = list(segments)
    lines = _offset_lines([segments[k] for k in ids], pos)
    bw, lw = _draw_links(ax, platform, ids, lines, util, busiest)

    # link labels: Figure 10's activities, else the utilisation of carrying links (busiest first)
    kind = _link_label_kind(platform, result, schedule, max_labels=max_labels)

    hosts, routers, size = _draw_nodes(ax, platform, pos)
    ax.margins(0.06)
    _legend(fig, ax, hosts, routers, bw, lw, colour_bar=result is not None)
    tasks = sum(len(v) for v in node_acts.values()) <= TASK_LINES
    if title is None:
        title = platform.name or "platform"
        if result is not None:
            tp = "" if result.throughput is None else f", throughput {result.throughput:.4g}/s"
            title += f": makespan {result.makespan:.4g} s{tp}\n{result.model}"
            if busiest is not None:
                tied = sum(1 for v in util.values() if math.isclose(v, util[busiest], rel_tol=1e-9)) - 1
                title += f"; busiest link {busiest} ({util[busiest]:.0%}"
                title += f", tied with {tied} other{'s' * (tied > 1)})" if tied else ")"
    ax.set_title(title, fontsize=9, parse_math=False)   # node and link names are not TeX

    # the labels last, once the layout is fixed: each where it overlaps nothing drawn or placed before it
    fig.draw_without_rendering()
    placer = _Placer(fig, ax, pos, size)
    if len(pos) <= 64:
        for n in hosts:
            gid = f"host-label-{n}"
            if tasks and node_acts.get(n) and placer.node_label(   # the tasks under the name if they fit ...
                    n, n + "".join("\n" + t for t in node_acts[n]), fontsize=7.5, colour="#1a3c5e", required=False,
                    gid=gid):
                continue
            placer.node_label(n, n, fontsize=7.5, colour="#1a3c5e", required=True, gid=gid)   # ... else the name
        if len(routers) <= max_labels:
            for n in routers:
                placer.node_label(n, n, fontsize=7, colour="#333333", required=False, gid=f"router-label-{n}")
    if kind == "activities":
        placed = [placer.link_label(lines[ids.index(k)], "\n".join(v), fontsize=6 if len(v) > 1 else 6.5,
                                    gid="link-label-" + re.sub(r"[^\w.-]", "_", k))
                  for k, v in _activities_by_link(segments, edge_acts).items()]
        if not all(placed):   # some flows missing would mislead: utilisations instead (the report lists the flows)
            for text in placed:
                if text is not None:
                    placer.forget(text)
            kind = "utilisation" if 0 < sum(1 for v in util.values() if v > 0) <= max_labels else None
    if kind == "utilisation":
        for k in sorted((k for k in ids if util.get(k, 0.0) > 0), key=lambda k: -util[k]):
            placer.link_label(lines[ids.index(k)], f"{util[k]:.0%}", fontsize=6.5,
                              gid="link-label-" + re.sub(r"[^\w.-]", "_", k))
    return fig


def drawn_labels(fig) -> tuple[str | None, set[str]]:
    """What a figure of :func:`platform_flows_figure` labels: its links' kind of label, and the hosts with tasks.

    Parameters
    ----------
    fig : matplotlib.figure.Figure

    Returns
    -------
    kind : {"activities", "utilisation"} or None
        What the link labels say: the steady state's flows (``u→v v[k..m]: r/s``), utilisations, or nothing.
    hosts : set of str
        Hosts labelled with their tasks (``T(k,l,m): r/s`` under the name).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> drawn_labels(platform_flows_figure(p, cs.simulate(p, b.build())))
    ('utilisation', set())
    """
    texts = {t.get_gid(): t.get_text() for t in fig.axes[0].texts if t.get_gid()}
    links = [text for gid, text in texts.items() if gid.startswith("link-label-")]
    kind = None if not links else "activities" if any("→" in t for t in links) else "utilisation"
    return kind, {gid[len("host-label-"):] for gid, text in texts.items()
                  if gid.startswith("host-label-") and "\n" in text}


class _Placer:
    """Places text labels one by one where they overlap no node, legend, colour bar, title or earlier label.

    Works in display pixels of the laid-out figure; the labels are kept out
    of the layout (``set_in_layout(False)``) so that drawing the figure again
    keeps every position. A required label (a host's name) that has no free
    place takes the least crowded one; any other is left out.
    """

    _PAD = 2.0   # pixels kept free around every label (browser fonts are not matplotlib's)

    def __init__(self, fig, ax, pos, size: float):
        self.fig, self.ax, self.pos = fig, ax, pos
        self.renderer = fig.canvas.get_renderer()
        self.px = fig.dpi / 72.0
        self.radius = math.sqrt(size) / 2 * self.px   # of a host's marker, in pixels
        self.boxes = [self._node_box(n) for n in pos]
        for artist in [ax.get_legend(), ax.title, *[a for a in fig.axes if a is not ax]]:
            if artist is not None and (artist is not ax.title or artist.get_text()):
                self.boxes.append(tuple(float(v) for v in artist.get_window_extent(self.renderer).extents))
        self.frame = fig.bbox.extents
        self.owned: dict[int, tuple[float, float, float, float]] = {}

    def _node_box(self, n):
        x, y = self.ax.transData.transform(self.pos[n])
        r = self.radius
        return (x - r, y - r, x + r, y + r)

    def _cost(self, box) -> float:
        """Area of ``box`` over other boxes (infinite when it leaves the figure)."""
        x0, y0, x1, y1 = box
        f = self.frame
        if x0 < f[0] or y0 < f[1] or x1 > f[2] or y1 > f[3]:
            return math.inf
        total = 0.0
        for b in self.boxes:
            w, h = min(x1, b[2]) - max(x0, b[0]), min(y1, b[3]) - max(y0, b[1])
            if w > 0 and h > 0:
                total += w * h
        return total

    def _try(self, text, candidates, required: bool):
        best, best_cost = None, math.inf
        for place in candidates:
            place(text)
            e = text.get_window_extent(self.renderer)
            pad = self._PAD + (text.get_bbox_patch().get_boxstyle().pad * text.get_fontsize() * self.px
                               if text.get_bbox_patch() is not None else 0.0)
            box = (e.x0 - pad, e.y0 - pad, e.x1 + pad, e.y1 + pad)
            cost = self._cost(box)
            if cost == 0:
                best = (place, box)
                break
            if required and cost < best_cost:
                best, best_cost = (place, box), cost
        if best is None:
            text.remove()
            return None
        best[0](text)
        self.boxes.append(best[1])
        self.owned[id(text)] = best[1]
        return text

    def forget(self, text) -> None:
        """Take a placed label off the figure (its place is free again)."""
        box = self.owned.pop(id(text))
        del self.boxes[next(i for i, b in enumerate(self.boxes) if b is box)]
        text.remove()

    def node_label(self, n, label: str, *, fontsize: float, colour: str, required: bool, gid: str):
        import matplotlib.patheffects as pe

        text = self.ax.annotate(label, self.pos[n], xytext=(0, 0), textcoords="offset points", fontsize=fontsize,
                                color=colour, zorder=6, parse_math=False, annotation_clip=False,
                                path_effects=[pe.withStroke(linewidth=2.5, foreground="white")])
        text.set_in_layout(False)
        text.set_gid(gid)
        d = self.radius / self.px + 1.5   # points from the node's centre
        candidates = []
        for reach in (d, 2 * d, 3.5 * d):
            for dx, dy, ha, va in ((0, -1, "center", "top"), (0, 1, "center", "bottom"), (1, 0, "left", "center"),
                                   (-1, 0, "right", "center"), (0.7, -0.7, "left", "top"),
                                   (-0.7, -0.7, "right", "top"), (0.7, 0.7, "left", "bottom"),
                                   (-0.7, 0.7, "right", "bottom")):
                candidates.append(self._offset(dx * reach, dy * reach, ha, va))
        return self._try(text, candidates, required)

    @staticmethod
    def _offset(dx, dy, ha, va):
        def place(text):
            text.xyann = (dx, dy)
            text.set_horizontalalignment(ha)
            text.set_verticalalignment(va)
        return place

    def link_label(self, line, label: str, *, fontsize: float, gid: str):
        """On the link (its middle, then towards either end), else just beside it."""
        (x0, y0), (x1, y1) = line
        text = self.ax.annotate(label, ((x0 + x1) / 2, (y0 + y1) / 2), xytext=(0, 0), textcoords="offset points",
                                fontsize=fontsize, ha="center", va="center", zorder=5, parse_math=False,
                                annotation_clip=False,
                                bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.85))
        text.set_in_layout(False)
        text.set_gid(gid)
        e = text.get_window_extent(self.renderer)
        w, h = e.width / self.px / 2 + 3, e.height / self.px / 2 + 3   # points from the line to beside it

        def at(t, dx, dy):
            def place(txt):
                txt.xy = (x0 + t * (x1 - x0), y0 + t * (y1 - y0))
                txt.xyann = (dx, dy)
            return place

        ts = (0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78)
        candidates = [at(t, 0, 0) for t in ts]
        candidates += [at(t, dx, dy) for t in ts[:5] for dx, dy in ((0, h), (0, -h), (w, 0), (-w, 0))]
        return self._try(text, candidates, required=False)



def _colour(u: float):
    """The colour of a link at utilisation ``u`` (light grey when idle; the colour map from 20 % of its range)."""
    from matplotlib import colormaps

    return IDLE_COLOUR if u <= 0 else colormaps[_CMAP](0.2 + 0.8 * min(u, 1.0))


def _utilisation(platform: Platform, result: SimResult | None, segments) -> tuple[dict[str, float], str | None]:
    """Per drawn item its utilisation, and the busiest item (None without a result or when all idle)."""
    if result is None:
        return {}, None
    if tuple(result.link_ids) != tuple(platform.links):
        raise ValueError(f"the result was not simulated on platform {platform.name!r} (its links differ)")
    util = dict(zip(result.link_ids, result.link_utilisation.tolist()))
    if _drawn_links(platform):
        return util, busiest_link(result)
    # route-table platform: a host pair shows its route's busiest link
    util = {k: max((util[lid] for lid in platform.route(a, b)), default=0.0) for k, (a, b) in segments.items()}
    return util, (max(util, key=util.get) if any(util.values()) else None)


def _draw_links(ax, platform: Platform, ids, lines, util, busiest) -> tuple[np.ndarray, np.ndarray]:
    """One line per link (width by log bandwidth, colour by utilisation), a black outline under the busiest."""
    from matplotlib.lines import Line2D

    bw = np.array([_bandwidth(platform, k) for k in ids]) if ids else np.zeros(0)
    lo, hi = (math.log(bw.min()), math.log(bw.max())) if ids else (0.0, 0.0)
    thin = 1.0 if len(ids) <= 60 else max(0.35, math.sqrt(60 / len(ids)))   # many links: thinner lines
    lw = thin * (1.0 + 4.0 * ((np.log(bw) - lo) / (hi - lo) if hi > lo else np.full(len(ids), 0.5)))
    if busiest is not None:
        i = ids.index(busiest)
        (x0, y0), (x1, y1) = lines[i]
        halo = Line2D([x0, x1], [y0, y1], color="black", linewidth=lw[i] + 4.0, solid_capstyle="round", zorder=1)
        halo.set_gid("busiest-link")
        ax.add_line(halo)
    for k, ((x0, y0), (x1, y1)), w in zip(ids, lines, lw):
        seg = Line2D([x0, x1], [y0, y1], color=_colour(util.get(k, 0.0)), linewidth=w, solid_capstyle="round",
                     zorder=2)
        seg.set_gid("link-" + re.sub(r"[^\w.-]", "_", k))
        ax.add_line(seg)
    return bw, lw


def _draw_nodes(ax, platform: Platform, pos) -> tuple[list[str], list[str], float]:
    """Hosts as blue circles, routers as grey squares; returns both lists and the hosts' marker size (points²)."""
    hosts = [n for n in pos if platform.nodes[n].is_host]
    routers = [n for n in pos if not platform.nodes[n].is_host]
    size = 150 if len(pos) <= 40 else max(12, 6000 / len(pos))
    for group, colour, marker, scale in ((hosts, HOST_COLOUR, "o", 1.0), (routers, ROUTER_COLOUR, "s", 0.6)):
        if group:
            xy = np.array([pos[n] for n in group])
            ax.scatter(xy[:, 0], xy[:, 1], s=size * scale, c=colour, marker=marker, edgecolors="white",
                       linewidths=0.8, zorder=3)
    return hosts, routers, size


def _legend(fig, ax, hosts, routers, bw, lw, *, colour_bar: bool) -> None:
    """Node kinds and the bandwidth range; the colour bar of utilisation."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import ListedColormap, Normalize
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker=marker, linestyle="", color=colour, label=f"{kind} ({len(group)})")
               for kind, group, marker, colour in (("host", hosts, "o", HOST_COLOUR),
                                                   ("router", routers, "s", ROUTER_COLOUR)) if group]
    for i in sorted({int(np.argmin(bw)), int(np.argmax(bw))} if len(bw) else (), key=lambda i: bw[i]):
        handles.append(Line2D([], [], color="0.45", linewidth=float(lw[i]),
                              label=format_quantity(float(bw[i]), "bandwidth", 3)))
    ax.legend(handles=handles, loc="lower left", fontsize=7, framealpha=0.9, title="link width: bandwidth",
              title_fontsize=7)
    if colour_bar:
        shown = ListedColormap([_colour(u) for u in np.linspace(1e-9, 1, 64)])
        bar = fig.colorbar(ScalarMappable(norm=Normalize(0.0, 1.0), cmap=shown), ax=ax, shrink=0.6, pad=0.01)
        bar.set_label("link utilisation (busy / makespan)", fontsize=8)
        bar.ax.tick_params(labelsize=7)
        bar.ax.yaxis.set_major_formatter(lambda x, _: f"{x:.0%}")


def _bandwidth(platform: Platform, key: str) -> float:
    if key in platform.links:
        return platform.links[key].bandwidth
    a, b = key.split("->", 1)
    return platform.bandwidth(a, b)


def _offset_lines(ends: list[tuple[str, str]], pos) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Segments between the ends' positions; parallel links between one pair are spread apart."""
    seen: dict[frozenset, int] = {}
    count: dict[frozenset, int] = {}
    for a, b in ends:
        count[frozenset((a, b))] = count.get(frozenset((a, b)), 0) + 1
    out = []
    for a, b in ends:
        key = frozenset((a, b))
        k, n = seen.get(key, 0), count[key]
        seen[key] = k + 1
        (x0, y0), (x1, y1) = pos[a], pos[b]
        shift = (k - (n - 1) / 2) * 0.012
        length = math.hypot(x1 - x0, y1 - y0) or 1.0
        dx, dy = -(y1 - y0) / length * shift, (x1 - x0) / length * shift
        out.append(((x0 + dx, y0 + dy), (x1 + dx, y1 + dy)))
    return out


def _activities_by_link(segments, edge_acts) -> dict[str, list[str]]:
    """Figure 10's edge labels per drawn link: ``u→v X: r/s`` on the (first) link joining u and v."""
    by_pair = {}
    for k, (a, b) in segments.items():
        by_pair.setdefault(frozenset((a, b)), k)
    out: dict[str, list[str]] = {}
    for (u, v), lines in sorted(edge_acts.items()):
        k = by_pair.get(frozenset((u, v)))
        if k is not None:
            out.setdefault(k, []).extend(f"{u}→{v} {t}" for t in lines)
    return out


def platform_flows(platform: Platform, result: SimResult | None, path: str | Path, **options) -> Path:
    """Draw the platform with the flows of ``result`` and save it (PNG, SVG or PDF, from the suffix).

    Parameters
    ----------
    platform : Platform
    result : SimResult or None
    path : str or Path
    **options
        As for :func:`platform_flows_figure` (``schedule``, ``title``, ``max_labels``, ``width``).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        An unknown suffix, or a bad option.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import collsched as cs
    >>> p = cs.topologies.hypercube(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    >>> r = cs.simulate(p, cs.plan(p, c, algorithm="binomial"))
    >>> out = platform_flows(p, r, pathlib.Path(tempfile.mkdtemp()) / "flows.png")
    >>> out.suffix, out.stat().st_size > 1000
    ('.png', True)
    """
    path = _figures.check_path(path, "platform_flows")
    return _figures.save(platform_flows_figure(platform, result, **options), path)


def platform_flows_svg(platform: Platform, result: SimResult | None, *, scope: str = "", **options) -> str:
    """The platform with the flows of ``result`` as SVG text, to inline in an HTML page.

    Parameters
    ----------
    platform : Platform
    result : SimResult or None
    scope : str
        Prefix of every id of the drawing (``scope-link-l3``, ``scope-busiest-link``).
    **options
        As for :func:`platform_flows_figure`.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2, bandwidth=1e6)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> svg = platform_flows_svg(p, cs.simulate(p, b.build()), scope="s1")
    >>> 'id="s1-busiest-link"' in svg, 'id="s1-link-l1"' in svg
    (True, True)
    """
    return _figures.svg_text(platform_flows_figure(platform, result, **options), scope=scope)
