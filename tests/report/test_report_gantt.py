"""What the report adds to the Gantt charts: SVG text, a time window, busy bands up to the makespan for long runs,
period boundaries, legends beside the plots, the platform in the title."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import collsched as cs
from matplotlib.patches import StepPatch

from collsched.report.gantt import (bin_edges, busy_fraction, choose_mode, default_title, gantt, gantt_figure,
                                    gantt_svg, steady_period)


@pytest.fixture(scope="module")
def series():
    p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e5), count=20)
    return p, cs.simulate(p, cs.plan(p, c, algorithm="linear"), model=cs.models.OnePort())


def _bars(fig):
    return sum(len(coll.get_paths()) for coll in fig.axes[0].collections)


def test_window_draws_only_what_overlaps_it(series):
    p, r = series
    whole = gantt_figure(r, platform=p)
    t1 = float(np.sort(r.trace.start)[10])
    part = gantt_figure(r, platform=p, window=(0.0, t1))
    assert part.axes[0].get_xlim() == pytest.approx((0.0, t1))
    assert 0 < _bars(part) < _bars(whole)
    assert "from 0 s to" in part.axes[0].get_title()
    with pytest.raises(ValueError, match="gantt window"):
        gantt_figure(r, window=(2.0, 1.0))


def test_svg_text_and_file(tmp_path, series):
    p, r = series
    root = ET.fromstring(gantt_svg(r, platform=p, scope="g"))
    assert all(el.get("id").startswith("g-") for el in root.iter() if el.get("id"))
    out = gantt(r, tmp_path / "g.svg", platform=p, window=(0.0, r.makespan / 2))
    ET.parse(out)


@pytest.fixture(scope="module")
def long_series():
    """2,000 scatters: 8,000 operations, each a sliver of the run."""
    p = cs.topologies.star(3, bandwidth=1e6, latency=0.0)
    c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e5), count=2000)
    return p, cs.simulate(p, cs.plan(p, c, algorithm="linear"), model=cs.models.OnePort())


def test_long_run_is_drawn_whole_as_busy_bands(long_series):
    p, r = long_series
    assert choose_mode(r) == "busy"
    fig = gantt_figure(r, platform=p)
    ax, lax = fig.axes[:2]
    assert ax.get_xlim()[1] >= r.makespan and lax.get_xlim()[1] >= r.makespan
    bands = {c.get_gid(): c for c in ax.collections if (c.get_gid() or "").startswith("busy-")}
    assert set(bands) == {"busy-send", "busy-recv"}   # a scatter computes nothing
    for c in bands.values():
        for path in c.get_paths():
            assert path.vertices[:, 0].min() == 0.0 and path.vertices[:, 0].max() == pytest.approx(r.makespan)
    # h0 sends all the time (the series' bottleneck): its band fills its lane up to the end
    x, y = bands["busy-send"].get_paths()[0].vertices[:-1].T   # the closed polygon, without its closing vertex
    area = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
    assert area / (0.76 * r.makespan) > 0.95
    assert ax.get_legend().get_title().get_text().startswith("busy fraction")
    h0 = ax.get_yticklabels()[0].get_text()
    assert h0.startswith("h0\n") and h0.split("\n")[1].split(" · ")[0] in ("99%", "100%")   # h0 sends all along
    steps = [a for a in lax.patches if isinstance(a, StepPatch)]
    assert len(steps) == len([t for t in lax.get_legend().get_texts()])


def test_short_run_draws_every_operation_up_to_the_makespan(series):
    p, r = series
    fig = gantt_figure(r, platform=p)
    assert choose_mode(r) == "ops"
    assert fig.axes[0].get_xlim()[1] >= r.makespan
    assert _bars(fig) == r.trace.n_ops


def test_busy_fraction_is_the_union_of_the_intervals():
    rng = np.random.default_rng(7)
    start = rng.uniform(0, 10, 200)
    end = start + rng.uniform(0, 0.5, 200)
    edges = np.linspace(0, 11, 23)
    frac = busy_fraction(start, end, edges)
    grid = np.linspace(0, 11, 110001)[:-1] + 11 / 220000   # midpoints of a fine grid
    covered = np.zeros(grid.shape, dtype=bool)
    for a, b in zip(start, end):
        covered |= (grid >= a) & (grid < b)
    per_bin = covered.reshape(22, -1).mean(axis=1)
    assert np.allclose(frac, per_bin, atol=1e-3)


def test_period_bins_and_boundaries(long_series):
    p, r = long_series
    boundary, period = steady_period(r, ops_per_period=1, count=2000)
    assert period == pytest.approx(0.2)   # h0 sends 2 x 1e5 B at 1 MB/s per scatter
    edges = bin_edges(0.0, r.makespan, 600, (boundary, period))
    inner = np.diff(edges)[1:-1]
    assert np.allclose(inner, inner[0]) and inner[0] / period == pytest.approx(round(inner[0] / period))
    fig = gantt_figure(r, platform=p, window=(boundary - 0.1, boundary + 0.5), period=(boundary, period))
    dashed = [line for line in fig.axes[0].lines if line.get_linestyle() == "--"]
    assert [line.get_xdata()[0] for line in dashed] == pytest.approx([boundary, boundary + 0.2, boundary + 0.4])
    assert "period boundary" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    with pytest.raises(ValueError, match="gantt period"):
        gantt_figure(r, period=(0.0, 0.0))
    with pytest.raises(ValueError, match="mode"):
        gantt_figure(r, mode="slivers")
    assert steady_period(r, ops_per_period=1, count=3000) is None   # h0's 4,000 sends do not split into 3,000 periods


def _inside(inner, outer, tol=0.5):
    return (inner.x0 >= outer.x0 - tol and inner.y0 >= outer.y0 - tol and inner.x1 <= outer.x1 + tol
            and inner.y1 <= outer.y1 + tol)


@pytest.mark.parametrize("which", ["series", "long_series"])
def test_legends_inside_the_figure_and_off_the_data(which, request):
    p, r = request.getfixturevalue(which)
    fig = gantt_figure(r, platform=p, max_links=6)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        legend = ax.get_legend().get_window_extent(renderer)
        assert _inside(legend, fig.bbox)
        assert not legend.overlaps(ax.get_window_extent(renderer))   # beside the plot, never over bars or lines


def test_title_names_the_platform(series):
    p, r = series
    title = gantt_figure(r, platform=p).axes[0].get_title()
    assert title.startswith(f"{p.name}: OnePort(") and "collsched" not in title
    assert default_title(r, None).startswith("OnePort(")


def test_no_compute_lane_when_nothing_is_computed(series):
    p, r = series
    ax = gantt_figure(r, platform=p).axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["send", "recv"]
    assert ax.get_ylim()[1] == pytest.approx(2 * len(r.ranks) - 0.4)
