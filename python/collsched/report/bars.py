"""Bars of what each algorithm achieves against the bound, for one :class:`~collsched.compare.Comparison`.

One horizontal bar per candidate, in the comparison's order (best first):
its makespan (seconds, lower is better) or its throughput (operations per
second, higher is better), labelled with its value and its gap to the
bound; the best candidate is drawn darker. The bound is a dashed vertical
line. For a series, the bar is the rate of its ``count`` operations
(start-up and clean-up included) and a black tick marks each candidate's
steady-state rate, labelled with its own gap. A candidate that failed
(planning, validation or simulation) has no bar but a grey "failed" label
with the stage that failed. The value axis
turns logarithmic when the values span more than a factor of 50.

Drawn with matplotlib's object API on the Agg canvas, like
:mod:`collsched.report.gantt`.

Examples
--------
>>> import collsched as cs
>>> from collsched.compare import compare
>>> p = cs.topologies.star(4, bandwidth=1e6, latency=1e-4)
>>> cmp = compare(p, cs.Scatter(source="h0", targets=p.hosts, size=1e6), model=cs.models.OnePort())
>>> [t.get_text() for t in bars_figure(cmp).axes[0].get_yticklabels()]
['binomial (baselines)', 'linear (baselines)']
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import _figures

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Comparison

__all__ = ["bars", "bars_svg", "bars_figure", "BEST_COLOUR", "BAR_COLOUR", "BOUND_COLOUR"]

BEST_COLOUR = "#1f5f99"
BAR_COLOUR = "#8fb3d9"
BOUND_COLOUR = "#c0392b"
FAILED_COLOUR = "#9a9a9a"
STEADY_COLOUR = "#111111"
_UNIT = {"makespan": "s", "throughput": "operations/s"}


def _short(error: str | None) -> str:
    """``"failed (stage)"`` from a candidate's error ``"stage: message"``."""
    stage = (error or "").split(":", 1)[0].strip()
    return f"failed ({stage})" if stage else "failed"


def bars_figure(comparison: Comparison, *, title: str | None = None, width: float = 8.0):
    """Bars of achieved vs bound per algorithm, as a matplotlib Figure.

    Parameters
    ----------
    comparison : Comparison
    title : str, optional
        Default: the metric and which way is better.
    width : float
        Figure width in inches (the height grows with the number of candidates).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> cmp = compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), algorithms=["linear"])
    >>> bars_figure(cmp, title="broadcast").axes[0].get_title()
    'broadcast'
    >>> c = cs.Series(cs.Scatter(source="h0", targets=p.hosts, size=1e6), count=4)
    >>> fig = bars_figure(compare(p, c, model=cs.models.OnePort(cost="edges"), algorithms=["steady_state"]))
    >>> [t.get_text() for t in fig.legends[0].get_texts()][0]
    'steady-state rate'
    """
    metric = comparison.metric
    cands = list(comparison.candidates)
    n = max(len(cands), 1)
    fig = _figures.new_figure(width, 1.4 + 0.32 * n)
    ax = fig.subplots()
    values = np.array([c.achieved if c.valid and c.achieved is not None else np.nan for c in cands], dtype=float)
    bound = None if comparison.bound is None else float(comparison.bound.value)
    steady = np.array([float(c.steady.rate) if getattr(c, "steady", None) is not None and c.steady.rate > 0
                       else np.nan for c in cands], dtype=float)
    shown = values[np.isfinite(values) & (values > 0)]
    reference = np.concatenate([shown, steady[np.isfinite(steady)], [bound] if bound else []])
    log = reference.size > 1 and reference.max() / reference.min() > 50
    y = np.arange(len(cands))[::-1]
    for yi, c, v, rate in zip(y, cands, values, steady):
        if np.isfinite(v):
            colour = BEST_COLOUR if c is cands[0] else BAR_COLOUR
            ax.barh(yi, v, height=0.62, color=colour)
            gap = "" if c.gap is None else f"  gap {c.gap:+.1%}"
            if np.isfinite(rate):
                ax.scatter([rate], [yi], marker="|", s=180, linewidths=1.8, color=STEADY_COLOUR, zorder=3,
                           label="_nolegend_" if ax.collections else "steady-state rate")
                sgap = "" if c.steady_gap is None else f" {c.steady_gap:+.1%}"
                gap += f"; steady {rate:.4g}{sgap}"
                v = max(v, rate)
            ax.annotate(f"{c.achieved:.4g}{gap}", (v, yi), xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=7, color="#222222")
        else:
            ax.annotate(_short(c.error), (0, yi), xycoords=("axes fraction", "data"), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=7, color=FAILED_COLOUR, style="italic",
                        parse_math=False)
    if bound:
        ax.axvline(bound, color=BOUND_COLOUR, linestyle="--", linewidth=1.2,
                   label=f"bound {bound:.4g} {_UNIT[metric]}: {comparison.bound.name}".replace("$", r"\$"))
    if bound or np.isfinite(steady).any():
        fig.legend(loc="outside lower center", fontsize=7, frameon=False)
    if log:
        ax.set_xscale("log")
    top = reference.max() if reference.size else 1.0
    if log:
        ax.set_xlim(reference.min() / 2, top * 4)
    else:
        ax.set_xlim(0, top * (1.7 if np.isfinite(steady).any() else 1.35))
    ax.set_yticks(y, [f"{c.algorithm} ({c.family})" for c in cands], parse_math=False)   # names are not TeX
    ax.set_ylim(-0.6, len(cands) - 0.4)
    ax.tick_params(axis="y", labelsize=8)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)
    better = "lower" if metric == "makespan" else "higher"
    ax.set_xlabel(f"{metric} ({_UNIT[metric]}; {better} is better)", fontsize=8)
    ax.set_title(title if title is not None else f"achieved {metric} per algorithm vs the bound", fontsize=9,
                 parse_math=False)
    return fig


def bars(comparison: Comparison, path: str | Path, **options) -> Path:
    """Draw the bars of a comparison and save them (PNG, SVG or PDF, from the suffix).

    Parameters
    ----------
    comparison : Comparison
    path : str or Path
    **options
        As for :func:`bars_figure` (``title``, ``width``).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        An unknown suffix.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> cmp = compare(p, cs.Gather(sources=p.hosts, target="h0", size=1e6))
    >>> bars(cmp, pathlib.Path(tempfile.mkdtemp()) / "bars.svg").suffix
    '.svg'
    """
    path = _figures.check_path(path, "bars")
    return _figures.save(bars_figure(comparison, **options), path)


def bars_svg(comparison: Comparison, *, scope: str = "", **options) -> str:
    """The bars of a comparison as SVG text, to inline in an HTML page.

    Parameters
    ----------
    comparison : Comparison
    scope : str
        Prefix of every id of the drawing.
    **options
        As for :func:`bars_figure`.

    Returns
    -------
    str
        An ``<svg>`` element.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> svg = bars_svg(compare(p, cs.Gather(sources=p.hosts, target="h0", size=1e6)))
    >>> svg.startswith("<svg"), "linear" in svg
    (True, True)
    """
    return _figures.svg_text(bars_figure(comparison, **options), scope=scope)
