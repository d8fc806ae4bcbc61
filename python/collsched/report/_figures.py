"""Plumbing shared by the report's figures: a figure on the Agg canvas, saved by suffix or rendered to text.

Every figure of :mod:`collsched.report` is built with matplotlib's object
API on its own Agg canvas (no pyplot, no window, no global backend change).
This module makes such a figure, checks an output path, saves it, and
renders it as SVG text to inline in an HTML page (ids scoped so that
several figures can share one page) or as a ``data:`` URI.

Examples
--------
>>> fig = new_figure(2, 1)
>>> _ = fig.subplots().plot([0, 1], [0, 1])
>>> svg = svg_text(fig, scope="f1")
>>> svg.startswith("<svg"), 'id="f1-' in svg, "<?xml" in svg
(True, True, False)
>>> png_data_uri(fig)[:22]
'data:image/png;base64,'
"""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

FORMATS = (".png", ".svg", ".pdf")
DPI = 130
# real text in SVG (small, selectable; the browser picks the font) and no date, so output is reproducible
_SVG_RC = {"svg.fonttype": "none", "svg.hashsalt": "collsched"}
_ID = re.compile(r'\bid="([^"]+)"')


def new_figure(width: float, height: float):
    """A matplotlib Figure (constrained layout) attached to its own Agg canvas."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def check_path(path: str | Path, what: str) -> Path:
    """``path`` as a Path, if its suffix is a format we save; else ValueError naming ``what``."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ValueError(f"{what} path {str(path)!r} must end with one of {', '.join(FORMATS)}")
    return path


def save(fig: Figure, path: Path) -> Path:
    """Save ``fig`` to ``path`` (format from the suffix) atomically, creating the directory."""
    from ..fileformat import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format=path.suffix.lower().lstrip("."), dpi=DPI)
    atomic_write(path, buffer.getvalue())
    return path


def svg_text(fig: Figure, *, scope: str = "") -> str:
    """The figure as an ``<svg>`` element to inline in HTML (no XML declaration or doctype).

    With ``scope``, every id of the drawing becomes ``scope-id`` (and every
    reference to it follows), so that figures sharing one page cannot clash.
    """
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context(_SVG_RC):
        fig.savefig(buf, format="svg", metadata=dict.fromkeys(("Creator", "Date", "Format", "Type")))
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    if scope:
        ids = set(_ID.findall(text))
        text = _ID.sub(lambda m: f'id="{scope}-{m.group(1)}"', text)
        text = re.sub(r"#([A-Za-z_][\w.:-]*)", lambda m: f"#{scope}-{m.group(1)}" if m.group(1) in ids else m.group(0),
                      text)
    return text.strip()


def png_data_uri(fig: Figure) -> str:
    """The figure as a base64 PNG ``data:`` URI (for an ``<img>``)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
