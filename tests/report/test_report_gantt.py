"""What the report adds to the Gantt charts: SVG text, and a time window for long runs."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import collsched as cs
from collsched.report.gantt import gantt, gantt_figure, gantt_svg


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
