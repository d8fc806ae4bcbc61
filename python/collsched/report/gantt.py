"""Gantt charts of a simulation: per node a send, a receive and a compute lane; link utilisation below.

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

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..schedules.program import COMPUTE, RECV, SEND
from . import _figures

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.trace import SimResult

__all__ = ["gantt", "gantt_svg", "gantt_figure", "link_utilisation_over_time", "LANES", "COLOURS"]

LANES = ("send", "recv", "compute")
COLOURS = {SEND: "#3b75af", RECV: "#ef8636", COMPUTE: "#519e3e"}


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
          title: str | None = None, window: tuple[float, float] | None = None) -> Path:
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
        Default: the model, the backend and the makespan.
    window : (float, float), optional
        Draw only from ``t0`` to ``t1`` seconds (see :func:`gantt_figure`).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        An unknown suffix or rank, or a bad count.

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
                       title=title, window=window)
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
        ``max_links``, ``title``, ``window``).

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
                 window: tuple[float, float] | None = None):
    """The Gantt chart of a simulation result as a matplotlib Figure (on its own Agg canvas).

    Parameters are those of :func:`gantt`, without the path, plus ``window``:
    ``(t0, t1)`` in seconds draws only that span, and only the operations
    that overlap it (the first periods of a long series, say); default the
    whole run.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        An unknown rank, or a bad count.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> len(gantt_figure(cs.simulate(p, b.build()), platform=p).axes)
    2
    """
    from matplotlib.patches import Patch

    for name, value in (("max_ranks", max_ranks), ("max_links", max_links)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"gantt option {name}={value!r} is not an integer >= 0")
    tr = result.trace
    shown = list(tr.ranks[:max_ranks] if ranks is None else ranks)
    for r in shown:
        tr.rank_index(r)
    links = []
    if platform is not None and max_links:
        order = np.argsort(-result.link_busy, kind="stable")
        links = [result.link_ids[i] for i in order[:max_links] if result.link_busy[i] > 0]
    lanes = 3 * len(shown)
    lane_height = 0.32 if len(shown) <= 8 else 0.2
    height = 1.2 + lane_height * max(lanes, 3) + (0.3 * len(links) + 1.4 if links else 0.0)
    fig = _figures.new_figure(11, height)
    if links:
        ax, lax = fig.subplots(2, 1, sharex=True, height_ratios=[max(lanes, 3), max(len(links) + 2, 4)])
    else:
        ax, lax = fig.subplots(1, 1), None
    end = max(tr.makespan, 1e-12)
    shown_ops = np.ones(tr.n_ops, dtype=bool)
    if window is not None:
        t0, t1 = (float(x) for x in window)
        if not 0 <= t0 < t1:
            raise ValueError(f"gantt window {window!r} is not (t0, t1) with 0 <= t0 < t1")
        shown_ops = (tr.end >= t0) & (tr.start <= t1)
        end = t1 - t0   # the width that sizes bars and labels
    label_bars = int(shown_ops.sum()) <= 80
    for k, name in enumerate(shown):
        r = tr.rank_index(name)
        for lane, kind in enumerate((SEND, RECV, COMPUTE)):
            y = lanes - 1 - (3 * k + lane)
            idx = np.flatnonzero((tr.rank == r) & (tr.kind == kind) & shown_ops)
            if not idx.shape[0]:
                continue
            widths = np.maximum(tr.end[idx] - tr.start[idx], end * 2e-4)   # instants stay visible
            level, levels = _levels(tr.start[idx], tr.start[idx] + widths)
            h = 0.76 / levels
            for lv in range(levels):
                sel = level == lv
                ax.broken_barh(list(zip(tr.start[idx][sel], widths[sel])), (y + 0.38 - (lv + 1) * h, h),
                               facecolors=COLOURS[kind], edgecolors="white", linewidth=0.4)
            if label_bars and kind != COMPUTE:
                for i, w, lv in zip(idx, widths, level):
                    text = f"{'→' if kind == SEND else '←'}{tr.ranks[int(tr.peer[i])]} m{int(tr.msg[i])}"
                    if w > end * 0.006 * (len(text) + 1):   # about the width of the text at this size
                        ax.text(tr.start[i] + w / 2, y + 0.38 - (lv + 0.5) * h, text, ha="center",
                                va="center", fontsize=6.5 if levels == 1 else 5.5, color="white", clip_on=True)
        if k:
            ax.axhline(lanes - 3 * k - 0.5, color="0.75", linewidth=0.6)
    ax.set_yticks([lanes - 1 - (3 * k + 1) for k in range(len(shown))], shown)
    ax.set_ylim(-0.6, lanes - 0.4)
    ax.set_xlim((0, end * 1.01) if window is None else (t0, t1))
    ax.grid(axis="x", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(handles=[Patch(color=COLOURS[k], label=lbl) for k, lbl in zip((SEND, RECV, COMPUTE), LANES)],
              loc="upper right", fontsize=7, ncols=3, framealpha=0.9)
    hidden = len(tr.ranks) - len(shown)
    ax.set_ylabel("node" + (f" (first {len(shown)} of {len(tr.ranks)})" if hidden > 0 and ranks is None else ""))
    if title is None:
        tp = "" if result.throughput is None else f", throughput {result.throughput:.4g}/s"
        title = f"{result.model} on {result.backend}: makespan {result.makespan:.6g} s{tp}"
        if window is not None:
            title += f"; from {t0:.4g} s to {t1:.4g} s"
    ax.set_title(title, fontsize=9)
    if lax is not None:
        times, curves = link_utilisation_over_time(result, platform, links)
        for lid in links:
            lax.step(times, np.append(curves[lid], 0.0) * 100, where="post", label=lid, linewidth=1.1)
        lax.set_ylim(0, 105)
        lax.set_ylabel("link utilisation (%)")
        lax.legend(loc="upper right", fontsize=7, ncols=min(len(links), 6), framealpha=0.9)
        lax.grid(color="0.9", linewidth=0.6)
        lax.set_xlabel("time (s)")
    else:
        ax.set_xlabel("time (s)")
    return fig
