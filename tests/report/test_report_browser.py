"""The HTML report in a real browser (headless Chromium): it lays out within the window and its screenshot shows
something. Skipped, saying which package to install, where Chromium is absent."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from collsched.report.html import write_report

_SPEC = importlib.util.spec_from_file_location("collsched_docs_screenshots",
                                               Path(__file__).parents[2] / "docs" / "screenshots.py")
screenshots = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(screenshots)

pytestmark = pytest.mark.browser  # skipped, naming the package chromium, where no headless browser is installed


@pytest.fixture(scope="module")
def report(tmp_path_factory, scatter_cmp, series_cmp):
    path = tmp_path_factory.mktemp("browser") / "report.html"
    return write_report(path, {"scatter": scatter_cmp, "gather x3": series_cmp}, title="in a browser")


def test_the_page_fits_the_window(report):
    info = screenshots.measure(report, width=1024)
    assert info["window"] == 1024
    assert info["width"] <= info["window"]   # nothing wider than the window: no horizontal scrolling
    figures = [f for f in info["figures"] if f["kind"] == "figure"]
    assert len(figures) == 6
    for f in figures:
        assert 0 < f["svg_width"] <= f["width"] + 0.5 and f["svg_right"] <= info["window"]
        assert f["height"] > 100 and f["caption"]


def test_the_screenshot_is_not_blank(report, tmp_path):
    from PIL import Image

    png = screenshots.screenshot(report, tmp_path / "page.png", width=1024, height=1400)
    with Image.open(png) as img:
        assert img.size == (1024, 1400)
        pixels = np.asarray(img.convert("RGB"))
    ink = np.any(pixels < 200, axis=2).mean()   # dark enough to be text or drawing
    colours = len(np.unique(pixels.reshape(-1, 3)[::97], axis=0))
    assert ink > 0.01 and colours > 20
