"""Bars of achieved vs bound: one bar per candidate, best first, the bound as a line, failures named."""

import xml.etree.ElementTree as ET

import pytest

from collsched.report.bars import BEST_COLOUR, bars, bars_figure, bars_svg


def _labels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def test_one_bar_per_valid_candidate_in_order(scatter_cmp):
    ax = bars_figure(scatter_cmp).axes[0]
    assert _labels(ax) == [f"{c.algorithm} ({c.family})" for c in scatter_cmp.candidates]
    widths = [p.get_width() for p in ax.patches]
    assert widths == pytest.approx([c.achieved for c in scatter_cmp.candidates])
    assert ax.patches[0].get_facecolor()[:3] != ax.patches[1].get_facecolor()[:3]
    assert "makespan" in ax.get_xlabel() and "lower is better" in ax.get_xlabel()


def test_bound_line(scatter_cmp, series_cmp):
    for cmp in (scatter_cmp, series_cmp):
        ax = bars_figure(cmp).axes[0]
        xs = [line.get_xdata()[0] for line in ax.lines]
        assert xs == pytest.approx([float(cmp.bound.value)])
    assert "higher is better" in bars_figure(series_cmp).axes[0].get_xlabel()


def test_failed_candidates_are_shown(with_failure):
    ax = bars_figure(with_failure).axes[0]
    assert _labels(ax)[-1] == "bad<alg> (tests)"
    assert len(ax.patches) == len(with_failure.candidates) - 1
    assert "failed (planning)" in [t.get_text() for t in ax.texts]


def test_outputs(tmp_path, scatter_cmp):
    ET.parse(bars(scatter_cmp, tmp_path / "b.svg"))
    assert bars(scatter_cmp, tmp_path / "b.png").stat().st_size > 1000
    ET.fromstring(bars_svg(scatter_cmp, scope="b"))
    with pytest.raises(ValueError, match="bars path"):
        bars(scatter_cmp, tmp_path / "b.txt")
    assert BEST_COLOUR.startswith("#")


def test_no_bound_and_names_with_dollars(scatter_cmp, with_failure):
    import dataclasses

    cmp = dataclasses.replace(with_failure, bound=None,
                              candidates=tuple(dataclasses.replace(c, algorithm=f"${c.algorithm}$")
                                               for c in with_failure.candidates))
    fig = bars_figure(cmp)
    assert not fig.axes[0].lines
    ET.fromstring(bars_svg(cmp))   # drawn: names are not read as TeX
