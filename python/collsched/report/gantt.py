"""Gantt charts of a simulation: per node a send, a receive and a compute lane; link utilisation below.

A run without computations (a scatter, a broadcast) has no compute lanes.

A short run is drawn operation by operation (``mode="ops"``). A long one,
a series of hundreds of operations say, would be slivers thinner than a
pixel, so it is drawn as busy bands (``mode="busy"``): the run, always up
to its makespan, is cut into ``bins`` equal bins and each lane is filled
to the fraction of the bin it was busy; the link panel shows each link's
mean utilisation per bin, and under each node's name is the share of the
run each of its lanes was busy. ``mode="auto"`` picks (:func:`choose_mode`). A
periodic schedule can be shown one period at a time (``window`` and
``period``, from :func:`steady_period`), its period boundaries marked.

Drawn with matplotlib's object API on the Agg canvas (no pyplot, no window,
no global backend change), saved as PNG or SVG from the file name.

Examples
--------
>>> import tempfile, pathlib
>>> import collsched as cs
>>> p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
>>> c = cs.Reduce(participants=p.hosts, target="h0", size=1e6, task_cost=1e8)
>>> r = cs.simulate(p, cs.plan(p, c, algorithm="binomial"), c, model=cs.models.OnePort())
>>> out = gantt(r, pathlib.Path(tempfile.mkdtemp()) / "reduce.png", platform=p)
>>> out.suffix, out.stat().st_size > 1000
('.png', True)
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..schedules.program import COMPUTE, RECV, SEND
from . import _figures

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.trace import SimResult

__all__ = ["gantt", "gantt_svg", "gantt_figure", "link_utilisation_over_time", "choose_mode", "busy_fraction",
           "steady_period", "bin_edges", "default_title", "LANES", "COLOURS", "MODES", "MAX_OPS", "MIN_WIDTH", "BINS",
           "PERIOD_BINS"]

LANES = ("send", "recv", "compute")
COLOURS = {SEND: "#3b75af", RECV: "#ef8636", COMPUTE: "#519e3e"}
MODES = ("auto", "ops", "busy")
#: ``mode="auto"`` draws operations one by one up to this many in view ...
MAX_OPS = 5000
#: ... and when most are at least this fraction of the time span wide (a pixel on a 1,000-pixel axis).
MIN_WIDTH = 1e-3
#: Bins of the busy bands (``mode="busy"``) across the time span.
BINS = 600
#: Bins of the link panel under a chart of bars whose links change rate too often to draw every step.
LINK_BINS = 120
#: Busy bands are whole periods when the span holds at least this many periods (:func:`bin_edges`).
PERIOD_BINS = 20
# legends right of their axes: never over the bars or lines, and inside the figure (constrained layout makes room)
_LEGEND = dict(loc="upper left", bbox_to_anchor=(1.005, 1.0), borderaxespad=0.0, fontsize=7, title_fontsize=7,
               framealpha=0.9)


def _levels(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, int]:
    """Sub-rows for overlapping bars of one lane: each bar on the lowest row free at its start."""
    order = np.lexsort((end, start))
    level = np.zeros(start.shape[0], dtype=np.int64)
    free_at: list[float] = []
    for i in order:
        for lv, t in enumerate(free_at):
            if t <= start[i]:
                level[i], free_at[lv] = lv, end[i]
                break
        else:
            level[i] = len(free_at)
            free_at.append(end[i])
    return level, max(len(free_at), 1)


def link_utilisation_over_time(result: SimResult, platform: Platform,
                               links: Sequence[str] | None = None) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Per link, its utilisation (0..1) as a step function of time, estimated from the trace.

    Each message is taken to cross every link of its route at its average
    rate over its receive, ``size / (receive end - receive start)`` (the
    receive covers the transfer in every model: the hold of a one-port or
    circuit transfer, the drain of an asynchronous one, the flow of a fluid
    one); a link's utilisation is the sum of these rates over its bandwidth,
    in its busier direction (both directions together on a shared link),
    at most 1. It is an estimate for a picture: rate changes within a
    transfer and latencies are smoothed out (exact for transfers alone on
    their links without latency).

    Parameters
    ----------
    result : SimResult
    platform : Platform
        The platform the result was simulated on.
    links : sequence of str, optional
        Link ids; default every link.

    Returns
    -------
    times : numpy array
        Breakpoints; the value of a step holds from ``times[k]`` to ``times[k+1]``.
    curves : dict of str to numpy array
        Per link id, the utilisation on each step (one less entry than ``times``).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> t, u = link_utilisation_over_time(cs.simulate(p, b.build(), model=cs.models.OnePort()), p, ["l0", "l2"])
    >>> t.tolist(), u["l0"].tolist(), u["l2"].tolist()
    ([0.0, 1.0, 2.0], [1.0, 0.0], [1.0, 1.0])
    """
    from ..platform.routes import channels, pair_routes, unique_pairs

    tr = result.trace
    link_ids = tuple(platform.links)
    wanted = list(link_ids if links is None else links)
    for lid in wanted:
        if lid not in platform.links:
            raise ValueError(f"unknown link {lid!r} in platform {platform.name!r}")
    sends = np.flatnonzero(tr.kind == SEND)
    recvs = np.flatnonzero(tr.kind == RECV)
    recv_of = dict(zip(tr.msg[recvs].tolist(), recvs.tolist()))
    matched = np.array([m in recv_of for m in tr.msg[sends].tolist()], dtype=bool)
    sends = sends[matched]
    recv = np.array([recv_of[m] for m in tr.msg[sends].tolist()], dtype=np.int64)
    t0, t1 = tr.start[recv], tr.end[recv]
    src, dst = tr.rank[sends], tr.peer[sends]
    pair, ps, pd = unique_pairs(src, dst, len(tr.ranks))
    routes = pair_routes(platform, tr.ranks, ps, pd)
    span = t1 - t0
    rate = np.where(span > 0, tr.size[sends] / np.where(span > 0, span, 1.0), 0.0)
    times = np.unique(np.concatenate([[0.0], t0, t1, [tr.makespan]]))
    ch = channels(platform, routes.hop_link, routes.hop_fwd)
    bw = np.array([link.bandwidth for link in platform.links.values()])
    curves = {}
    index = {lid: i for i, lid in enumerate(link_ids)}
    for lid in wanted:
        li = index[lid]
        per_direction = []
        for c in (2 * li, 2 * li + 1):
            pairs_here = np.unique(routes.hop_pair[ch == c])
            msgs = np.flatnonzero(np.isin(pair, pairs_here))
            step = np.zeros(times.shape[0])
            np.add.at(step, np.searchsorted(times, t0[msgs]), rate[msgs])
            np.add.at(step, np.searchsorted(times, t1[msgs]), -rate[msgs])
            per_direction.append(np.cumsum(step)[:-1] / bw[li])
        curves[lid] = np.maximum(*per_direction).clip(0.0, 1.0)
    return times, curves


def gantt(result: SimResult, path: str | Path, *, platform: Platform | None = None,
          ranks: Sequence[str] | None = None, max_ranks: int = 32, max_links: int = 6,
          title: str | None = None, window: tuple[float, float] | None = None, mode: str = "auto",
          bins: int = BINS, period: tuple[float, float] | None = None) -> Path:
    """Draw the Gantt chart of a simulation result and save it (PNG, SVG or PDF, from the suffix).

    Parameters
    ----------
    result : SimResult
    path : str or Path
        Output file; its suffix picks the format.
    platform : Platform, optional
        The platform simulated on; if given, a second panel shows the
        utilisation over time of the ``max_links`` busiest links
        (:func:`link_utilisation_over_time`).
    ranks : sequence of str, optional
        Ranks to draw, in order; default the first ``max_ranks`` of the program.
    max_ranks, max_links : int
    title : str, optional
        Default (:func:`default_title`): the platform's name, the model, the makespan (and throughput).
    window : (float, float), optional
        Draw only from ``t0`` to ``t1`` seconds, and only the operations
        that overlap that span (one period of a series, say); default the
        whole run, up to its makespan.
    mode : {"auto", "ops", "busy"}
        ``"ops"``: every operation a bar; ``"busy"``: per lane its busy
        fraction in each bin (and links' mean utilisation per bin);
        ``"auto"``: ``"ops"`` unless the bars would be slivers
        (:func:`choose_mode`).
    bins : int
        At most this many bins for the busy bands (:func:`bin_edges`).
    period : (float, float), optional
        ``(boundary, length)`` in seconds: mark the period boundaries
        ``boundary + j * length`` in view with dashed lines (none when more
        than 60 would show), and make the busy bands' bins whole periods.
        :func:`steady_period` measures them in a simulated series.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        An unknown suffix, rank or mode, or a bad count, window or period.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> _ = b.compute("h1", [], None, cost=1e7)
    >>> gantt(cs.simulate(p, b.build()), pathlib.Path(tempfile.mkdtemp()) / "g.svg").suffix
    '.svg'
    """
    path = _figures.check_path(path, "gantt")
    fig = gantt_figure(result, platform=platform, ranks=ranks, max_ranks=max_ranks, max_links=max_links,
                       title=title, window=window, mode=mode, bins=bins, period=period)
    return _figures.save(fig, path)


def gantt_svg(result: SimResult, *, scope: str = "", **options) -> str:
    """The Gantt chart of a simulation result as SVG text, to inline in an HTML page.

    Parameters
    ----------
    result : SimResult
    scope : str
        Prefix given to every id of the drawing (``scope-...``), so that
        several drawings can share one page.
    **options
        As for :func:`gantt` (``platform``, ``ranks``, ``max_ranks``,
        ``max_links``, ``title``, ``window``, ``mode``, ``bins``, ``period``).

    Returns
    -------
    str
        An ``<svg>`` element (no XML declaration).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> svg = gantt_svg(cs.simulate(p, b.build()), platform=p, scope="g1")
    >>> svg.startswith("<svg"), svg.rstrip().endswith("</svg>")
    (True, True)
    """
    return _figures.svg_text(gantt_figure(result, **options), scope=scope)


def gantt_figure(result: SimResult, *, platform: Platform | None = None, ranks: Sequence[str] | None = None,
                 max_ranks: int = 32, max_links: int = 6, title: str | None = None,
                 window: tuple[float, float] | None = None, mode: str = "auto", bins: int = BINS,
                 period: tuple[float, float] | None = None):
    """The Gantt chart of a simulation result as a matplotlib Figure (on its own Agg canvas).

    Parameters are those of :func:`gantt`, without the path.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An unknown rank or mode, a bad count, window or period.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> fig = gantt_figure(cs.simulate(p, b.build()), platform=p)
    >>> len(fig.axes), fig.axes[0].get_title().startswith("star-3: ")
    (2, True)
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    for name, value in (("max_ranks", max_ranks), ("max_links", max_links), ("bins", bins)):
        if isinstance(value, bool) or not isinstance(value, int) or value < (name == "bins"):
            raise ValueError(f"gantt option {name}={value!r} is not an integer >= {int(name == 'bins')}")
    if mode not in MODES:
        raise ValueError(f"gantt option mode={mode!r} is not one of {', '.join(MODES)}")
    tr = result.trace
    shown = list(tr.ranks[:max_ranks] if ranks is None else ranks)
    for r in shown:
        tr.rank_index(r)
    links = []
    if platform is not None and max_links:
        order = np.argsort(-result.link_busy, kind="stable")
        links = [result.link_ids[i] for i in order[:max_links] if result.link_busy[i] > 0]
    t0, t1 = 0.0, max(tr.makespan, 1e-12)
    if window is not None:
        t0, t1 = (float(x) for x in window)
        if not 0 <= t0 < t1:
            raise ValueError(f"gantt window {window!r} is not (t0, t1) with 0 <= t0 < t1")
    shown_ops = (tr.end >= t0) & (tr.start <= t1)
    if mode == "auto":
        mode = choose_mode(result, window=window)
    # a lane per kind of operation the run has (a broadcast computes nothing: two lanes per node)
    kinds = tuple(k for k in (SEND, RECV, COMPUTE) if np.any(tr.kind == k)) or (SEND, RECV)
    per = len(kinds)
    lanes = per * len(shown)
    lane_height = 0.32 if len(shown) <= 8 else 0.2
    height = 1.2 + lane_height * max(lanes, 3) + (0.3 * len(links) + 1.4 if links else 0.0)
    fig = _figures.new_figure(11, height)
    if links:
        ax, lax = fig.subplots(2, 1, sharex=True, height_ratios=[max(lanes, 3), max(len(links) + 2, 4)])
    else:
        ax, lax = fig.subplots(1, 1), None
    edges = bin_edges(t0, t1, bins, period)
    if mode == "busy":
        _draw_busy(ax, tr, shown, edges, lanes, kinds)
    else:
        _draw_ops(ax, tr, shown, shown_ops, lanes, kinds, t1 - t0)
    for k in range(1, len(shown)):
        ax.axhline(lanes - per * k - 0.5, color="0.75", linewidth=0.6)
    names = list(shown)
    if mode == "busy":   # under each name, the share of the span each lane was busy: thin bands still get a number
        for k, name in enumerate(shown):
            r = tr.rank_index(name)
            shares = [busy_fraction(tr.start[m], tr.end[m], np.array([t0, t1]))[0]
                      for m in ((tr.rank == r) & (tr.kind == kind) for kind in kinds)]
            names[k] = f"{name}\n" + " · ".join(f"{x:.0%}" for x in shares)
    ax.set_yticks([lanes - 1 - (per * k + (per - 1) / 2) for k in range(len(shown))], names)
    if mode == "busy":
        ax.tick_params(axis="y", labelsize=7.5)
    ax.set_ylim(-0.6, lanes - 0.4)
    ax.set_xlim(t0, t1 if window is not None else t0 + (t1 - t0) * 1.01)
    ax.grid(axis="x", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    handles = [Patch(color=COLOURS[k], label=lbl) for k, lbl in zip((SEND, RECV, COMPUTE), LANES) if k in kinds]
    marks = _period_marks(period, t0, t1)
    if marks.shape[0]:
        for a in (ax,) if lax is None else (ax, lax):
            for x in marks:
                a.axvline(x, color="black", linewidth=0.9, linestyle=(0, (4, 3)), zorder=4)
        handles.append(Line2D([], [], color="black", linewidth=0.9, linestyle=(0, (4, 3)), label="period boundary"))
    ax.legend(handles=handles, title="busy fraction\nof each bin (under\na node: of the span)" if mode == "busy" else None,
              **_LEGEND)
    hidden = len(tr.ranks) - len(shown)
    ax.set_ylabel("node" + (f" (first {len(shown)} of {len(tr.ranks)})" if hidden > 0 and ranks is None else ""))
    if title is None:
        title = default_title(result, platform)
        if window is not None:
            title += f"; from {t0:.4g} s to {t1:.4g} s"
    ax.set_title(title, fontsize=9, parse_math=False)
    if lax is not None:
        times, curves = link_utilisation_over_time(result, platform, links)
        # thousands of steps would merge into a block: means per bin (coarse ones beside bars: the steps of
        # pipelined segments would alias with bins about as long as a segment)
        binned = mode == "busy" or (times.shape[0] > 2 * LINK_BINS
                                    and float(np.median(np.diff(times))) < MIN_WIDTH * (t1 - t0))
        link_edges = edges if mode == "busy" else np.linspace(t0, t1, min(bins, LINK_BINS) + 1)
        for lid in links:
            if binned:
                lax.stairs(_bin_means(times, curves[lid], link_edges) * 100, link_edges, label=lid, linewidth=1.1,
                           baseline=None)
            else:
                lax.step(times, np.append(curves[lid], 0.0) * 100, where="post", label=lid, linewidth=1.1)
        lax.set_ylim(0, 105)
        lax.set_ylabel("link utilisation (%)" + ("\nmean per bin" if binned else ""))
        lax.legend(title="busiest links", **_LEGEND)
        lax.grid(color="0.9", linewidth=0.6)
        lax.set_xlabel("time (s)")
    else:
        ax.set_xlabel("time (s)")
    return fig


def default_title(result: SimResult, platform: Platform | None = None) -> str:
    """The platform's name, the model, the makespan and (for a series) the throughput.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2, bandwidth=1e6, latency=0.0)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> default_title(cs.simulate(p, b.build(), model=cs.models.OnePort()), p)
    "star-2: OnePort(sync=True, cost='linear', ties='fixed'), makespan 1 s"
    """
    where = f"{platform.name}: " if platform is not None and platform.name else ""
    backend = "" if result.backend == "collsched" else f" on {result.backend}"
    tp = "" if result.throughput is None else f", throughput {result.throughput:.4g}/s"
    return f"{where}{result.model}{backend}, makespan {result.makespan:.6g} s{tp}"


def choose_mode(result: SimResult, *, window: tuple[float, float] | None = None) -> str:
    """``"ops"`` when a Gantt chart of ``result`` can draw its operations one by one, else ``"busy"``.

    Operations are drawn one by one when there are at most :data:`MAX_OPS`
    of them in the window and most are at least :data:`MIN_WIDTH` of its
    span wide (a thousandth: a pixel or more on a page); otherwise they
    would be slivers, and the chart draws each lane's busy fraction instead.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    >>> long = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e5), count=2000)
    >>> r = cs.simulate(p, cs.plan(p, long, algorithm="linear"), model=cs.models.OnePort())
    >>> choose_mode(r), choose_mode(r, window=(0.0, 1.0))
    ('busy', 'ops')
    """
    tr = result.trace
    t0, t1 = (0.0, max(tr.makespan, 1e-12)) if window is None else (float(window[0]), float(window[1]))
    inside = (tr.end >= t0) & (tr.start <= t1)
    n = int(inside.sum())
    if n == 0:
        return "ops"
    widths = np.minimum(tr.end[inside], t1) - np.maximum(tr.start[inside], t0)
    return "ops" if n <= MAX_OPS and float(np.median(widths)) >= MIN_WIDTH * (t1 - t0) else "busy"


def busy_fraction(start: np.ndarray, end: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Per bin between consecutive ``edges``, the fraction of it covered by the intervals ``[start, end]``.

    Overlapping intervals count once (a lane busy with two flows at once is busy, not twice busy).

    Examples
    --------
    >>> busy_fraction(np.array([0.0, 0.5, 2.5]), np.array([1.0, 1.5, 3.0]), np.array([0.0, 1.0, 2.0, 4.0])).tolist()
    [1.0, 0.5, 0.25]
    """
    if not start.shape[0]:
        return np.zeros(edges.shape[0] - 1)
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)                       # merge overlaps into disjoint runs
    new = np.ones(s.shape[0], dtype=bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    a = s[first]
    b = np.maximum.reduceat(e, first)
    before = np.concatenate([[0.0], np.cumsum(b - a)])     # busy time before each run
    i = np.searchsorted(a, edges, side="right") - 1
    covered = np.where(i >= 0, before[np.maximum(i, 0)] + np.clip(edges - a[np.maximum(i, 0)], 0.0,
                                                                   (b - a)[np.maximum(i, 0)]), 0.0)
    width = np.diff(edges)
    return np.clip(np.diff(covered) / np.where(width > 0, width, 1.0), 0.0, 1.0)


def steady_period(result: SimResult, *, ops_per_period: int, count: int) -> tuple[float, float] | None:
    """The period a series actually ran at in a simulation, and one period boundary in the middle of the run.

    The busiest port (send or receive lane of one rank) does the same
    number ``k`` of operations in every period of a periodic schedule
    (``k`` = its operations × ``ops_per_period`` / ``count``); the period
    measured is the median time between an operation of that port and the
    ``k``-th after it. It may be longer than the schedule's period (latencies,
    synchronous sends), and it is what the Gantt chart shows.

    Parameters
    ----------
    result : SimResult
        The simulation of a series of ``count`` operations.
    ops_per_period : int
        Operations of the series completed per period (``PeriodicSchedule.ops_per_period``).
    count : int

    Returns
    -------
    (float, float) or None
        ``(boundary, period)`` in seconds: a boundary in the middle of the run (the start of an operation of
        the busiest port) and the period; None when the busiest port's operations do not split into periods.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    >>> c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e5), count=20)
    >>> r = cs.simulate(p, cs.plan(p, c, algorithm="linear"), model=cs.models.OnePort())
    >>> boundary, period = steady_period(r, ops_per_period=1, count=20)
    >>> round(period, 6), 0 < boundary < r.makespan
    (0.2, True)
    """
    tr = result.trace
    best, port = -1.0, None
    for kind in (SEND, RECV):
        m = tr.kind == kind
        busy = np.zeros(len(tr.ranks))
        np.add.at(busy, tr.rank[m], tr.duration[m])
        r = int(np.argmax(busy)) if busy.shape[0] else 0
        if busy.shape[0] and busy[r] > best:
            best, port = float(busy[r]), (r, kind)
    if port is None or best <= 0 or count < 1 or ops_per_period < 1:
        return None
    idx = np.flatnonzero((tr.rank == port[0]) & (tr.kind == port[1]))
    starts = np.sort(tr.start[idx])
    k = starts.shape[0] * ops_per_period / count
    if k < 1 or abs(k - round(k)) > 1e-9 or round(k) >= starts.shape[0]:
        return None
    k = int(round(k))
    period = float(np.median(starts[k:] - starts[:-k]))
    return (float(starts[starts.shape[0] // 2]), period) if period > 0 else None


def bin_edges(t0: float, t1: float, bins: int = BINS, period: tuple[float, float] | None = None) -> np.ndarray:
    """The edges of the busy bands' bins from ``t0`` to ``t1``: ``bins`` equal ones, or whole periods.

    With ``period = (boundary, length)`` and a span of at least
    :data:`PERIOD_BINS` periods, the bins are runs of whole periods aligned
    on the boundaries (as few periods per bin as keep at most ``bins``
    bins; the first and last bins cut at ``t0`` and ``t1``): a bin that is
    not a whole number of periods would see more or less of the period's
    busy part depending on where it falls, and the bands would ripple
    (aliasing) where the schedule is perfectly regular. A shorter span
    (one period, zoomed in) gets ``bins`` equal bins.

    Examples
    --------
    >>> bin_edges(0.0, 1.0, 4).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    >>> bin_edges(0.0, 100.0, 40, period=(0.5, 2.0))[:4].tolist()
    [0.0, 0.5, 4.5, 8.5]
    >>> len(bin_edges(0.0, 10.0, 40, period=(0.5, 2.0)))   # 5 periods: equal bins
    41
    """
    if period is not None:
        boundary, length = (float(x) for x in period)
        if not length > 0:
            raise ValueError(f"gantt period {period!r} is not (boundary, length) with length > 0")
    if period is None or (t1 - t0) < PERIOD_BINS * length:
        return np.linspace(t0, t1, bins + 1)
    per_bin = max(1, math.ceil((t1 - t0) / length / bins))
    step = per_bin * length
    first = boundary + math.ceil((t0 - boundary) / step - 1e-9) * step
    inner = first + np.arange(max(0, math.floor((t1 - first) / step + 1e-9)) + 1) * step
    inner = inner[(inner > t0) & (inner < t1)]
    return np.concatenate([[t0], inner, [t1]])


def _period_marks(period, t0: float, t1: float) -> np.ndarray:
    """Period boundaries ``boundary + j * length`` within [t0, t1]; none when more than 60 (they would merge)."""
    if period is None:
        return np.zeros(0)
    boundary, length = (float(x) for x in period)
    if not length > 0:
        raise ValueError(f"gantt period {period!r} is not (boundary, length) with length > 0")
    first, last = math.ceil((t0 - boundary) / length - 1e-9), math.floor((t1 - boundary) / length + 1e-9)
    if last - first + 1 > 60:
        return np.zeros(0)
    return boundary + np.arange(first, last + 1) * length


def _bin_means(times: np.ndarray, values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Mean over each bin of the step function ``values`` on ``times`` (zero outside)."""
    area = np.concatenate([[0.0], np.cumsum(values * np.diff(times))])
    at = np.interp(edges, times, area)
    width = np.diff(edges)
    return np.diff(at) / np.where(width > 0, width, 1.0)


def _lane_y(lanes: int, k: int, lane: int, per: int) -> float:
    return lanes - 1 - (per * k + lane)


def _draw_busy(ax, tr, shown, edges, lanes, kinds) -> None:
    """Per lane, its busy fraction in each bin: a band as tall as the lane when always busy.

    One polygon per lane, one collection per kind (gid ``busy-send``, ...), added without autoscaling (the
    caller sets the limits; updating them path by path costs seconds on long runs).
    """
    from matplotlib.collections import PolyCollection

    for lane, kind in enumerate(kinds):
        polygons = []
        for k, name in enumerate(shown):
            idx = np.flatnonzero((tr.rank == tr.rank_index(name)) & (tr.kind == kind))
            if not idx.shape[0]:
                continue
            frac = busy_fraction(tr.start[idx], tr.end[idx], edges)
            # one step per run of equal bins (idle stretches and flat steady states cost two points, not hundreds)
            first = np.flatnonzero(np.concatenate([[True], frac[1:] != frac[:-1]]))
            run_edges = np.append(edges[first], edges[-1])
            base = _lane_y(lanes, k, lane, len(kinds)) - 0.38
            xs = np.repeat(run_edges, 2)[1:-1]   # r0 r1 r1 r2 r2 ... : the top of the steps
            top = base + 0.76 * np.repeat(frac[first], 2)
            polygons.append(np.column_stack([np.concatenate([xs, [edges[-1], edges[0]]]),
                                             np.concatenate([top, [base, base]])]))
        if polygons:
            coll = PolyCollection(polygons, facecolors=COLOURS[kind], edgecolors="none", linewidths=0)
            coll.set_gid(f"busy-{LANES[kind]}")
            ax.add_collection(coll, autolim=False)


def _draw_ops(ax, tr, shown, shown_ops, lanes, kinds, span) -> None:
    """Every operation as a bar on its lane (overlapping ones on sub-rows), labelled when there are few."""
    label_bars = int(shown_ops.sum()) <= 80
    for k, name in enumerate(shown):
        r = tr.rank_index(name)
        for lane, kind in enumerate(kinds):
            y = _lane_y(lanes, k, lane, len(kinds))
            idx = np.flatnonzero((tr.rank == r) & (tr.kind == kind) & shown_ops)
            if not idx.shape[0]:
                continue
            widths = np.maximum(tr.end[idx] - tr.start[idx], span * 2e-4)   # instants stay visible
            level, levels = _levels(tr.start[idx], tr.start[idx] + widths)
            h = 0.76 / levels
            # a white edge parts bars a few pixels wide; on narrower ones (pipelined segments) it would wash them out
            edge = 0.4 if float(np.median(widths)) >= span * 4e-3 else 0.0
            for lv in range(levels):
                sel = level == lv
                ax.broken_barh(list(zip(tr.start[idx][sel], widths[sel])), (y + 0.38 - (lv + 1) * h, h),
                               facecolors=COLOURS[kind], edgecolors="white", linewidth=edge)
            if label_bars and kind != COMPUTE:
                for i, w, lv in zip(idx, widths, level):
                    text = f"{'→' if kind == SEND else '←'}{tr.ranks[int(tr.peer[i])]} m{int(tr.msg[i])}"
                    if w > span * 0.006 * (len(text) + 1):   # about the width of the text at this size
                        ax.text(tr.start[i] + w / 2, y + 0.38 - (lv + 0.5) * h, text, ha="center",
                                va="center", fontsize=6.5 if levels == 1 else 5.5, color="white", clip_on=True)
