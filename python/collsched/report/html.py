"""One self-contained HTML page of comparisons: tables, bars, the platform with its flows, Gantt charts.

:func:`write_report` takes labelled :class:`~collsched.compare.Comparison`
objects (one *section* each) and writes a single HTML file that needs
nothing else: inline CSS, every figure an inline SVG (ids scoped per
figure), no script, no external link. Per section:

* a header: the collective, the platform, the model, the bound of the
  comparison and the best algorithm;
* the comparison table, as :meth:`Comparison.table` makes it for every
  renderer: achieved makespan or rate (and, for a series, the
  steady-state rate and the start-up), gaps to the comparison's bound,
  the status under the comparison's model, each schedule's own bound
  labelled with the model it holds under, planning and simulation time
  (failed candidates say which stage failed and why), then the table's
  notes;
* bars of achieved vs bound per algorithm (:mod:`collsched.report.bars`);
* the platform drawn with the flows of the best schedule
  (:mod:`collsched.report.platform_flows`, seed 000's Figure 10);
* the Gantt chart of the best schedule (:mod:`collsched.report.gantt`),
  always up to the makespan: operation by operation, or as busy bands
  when the operations would be slivers (more than :data:`GANTT_OPS`);
  for a periodic series also one period of the steady state, its
  boundaries marked.

Every text that comes from the data (labels, names, error messages) is
escaped. The file is written atomically
(:func:`collsched.fileformat.atomic_write`).

Examples
--------
>>> import tempfile, pathlib
>>> import collsched as cs
>>> from collsched.compare import compare
>>> p = cs.topologies.star(3, bandwidth=1e6, latency=1e-4)
>>> cmp = compare(p, cs.Gather(sources=p.hosts, target="h0", size=1e6), model=cs.models.OnePort())
>>> out = write_report(pathlib.Path(tempfile.mkdtemp()) / "report.html", {"gather": cmp})
>>> text = out.read_text()
>>> text.startswith("<!DOCTYPE html>"), text.count("<svg"), "binomial" in text
(True, 3, True)
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import numpy as np

from ..fileformat import atomic_write
from ..units import format_quantity
from ._figures import svg_text
from .bars import bars_svg
from .gantt import BINS, MAX_OPS, PERIOD_BINS, bin_edges, choose_mode, gantt_svg, steady_period
from .platform_flows import activity_labels, busiest_link, drawn_labels, platform_flows_figure

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Comparison

__all__ = ["write_report", "render_report", "describe_collective", "describe_platform", "CSS", "GANTT_OPS"]

#: A Gantt chart draws the operations one by one up to about this many (and while they are wider than a pixel);
#: a longer run is drawn whole as busy bands, and a periodic series also one period of it.
GANTT_OPS = MAX_OPS

CSS = """
:root { --ink: #1d2430; --muted: #5b6575; --line: #dde2ea; --accent: #1f5f99; --bad: #a23b2c; --good: #1e7b45; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); background: #f6f7f9; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 1.7em; margin: 0 0 4px; }
h2 { font-size: 1.3em; margin: 0 0 6px; }
h3 { font-size: 1em; margin: 18px 0 6px; color: var(--muted); font-weight: 600; }
.lead { color: var(--muted); margin: 0 0 18px; }
nav ol { margin: 0 0 22px; padding-left: 22px; columns: 2; }
nav a, nav a:visited { color: var(--accent); text-decoration: none; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 20px 22px; margin: 0 0 26px;
          box-shadow: 0 1px 2px rgba(0,0,0,.04); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0 14px; font-size: .93em; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.best { color: var(--good); font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: .88em; }
th, td { padding: 5px 9px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
.table-wrap { overflow-x: auto; }
th.num { text-align: right; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.winner td { background: #eaf5ee; }
tr.failed td { color: var(--muted); }
td.status-failed { color: var(--bad); }
td.status-failed small { display: block; color: var(--muted); max-width: 38em; overflow-wrap: anywhere; }
.figures { display: grid; grid-template-columns: 1fr; gap: 16px; margin-top: 14px; }
figure { margin: 0; }
figure svg { max-width: 100%; width: auto; height: auto; display: block; margin: 0 auto; }
figcaption { font-size: .85em; color: var(--muted); margin-top: 4px; }
details > summary { cursor: pointer; color: var(--muted); font-weight: 600; font-size: .92em; margin-bottom: 6px; }
.note { font-size: .88em; color: var(--muted); }
footer { font-size: .8em; color: var(--muted); text-align: center; margin-top: 30px; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _num(x: float | None, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    return f"{float(x):.{digits}g}"


def describe_collective(collective) -> str:
    """One line saying what a collective moves: kind, instances, hosts, root, bytes.

    Parameters
    ----------
    collective : Collective

    Returns
    -------
    str

    Examples
    --------
    >>> import collsched as cs
    >>> describe_collective(cs.Scatter(source="h0", targets=["h1", "h2"], size=1e6))
    'scatter from h0 over 3 hosts, 2MB in all'
    >>> describe_collective(cs.Series(cs.Reduce(participants=["h0", "h1"], target="h1", size=8), count=4))
    'series of 4 reduce to h1 over 2 hosts, 32B in all'
    """
    base = collective.base
    what = base.kind if collective.count == 1 else f"series of {collective.count} {base.kind}"
    if hasattr(base, "source"):
        what += f" from {base.source}"
    elif hasattr(base, "target"):
        what += f" to {base.target}"
    return f"{what} over {len(base.hosts)} hosts, {format_quantity(collective.total_bytes, 'size')} in all"


def describe_platform(platform) -> str:
    """One line about a platform: name, hosts, routers, links, bandwidth and latency ranges.

    Parameters
    ----------
    platform : Platform

    Returns
    -------
    str

    Examples
    --------
    >>> import collsched as cs
    >>> describe_platform(cs.topologies.star(3, bandwidth=1e6, latency=1e-4))
    "'star-3': 3 hosts, 1 router, 3 links (1MBps, 100us)"
    """
    links = list(platform.links.values())
    nr = len(platform.routers)
    text = (f"{platform.name!r}: {len(platform.hosts)} hosts, {nr} router{'s' * (nr != 1)}, "
            f"{len(links)} link{'s' * (len(links) != 1)}")
    if links:
        ranges = []
        for attr, dim in (("bandwidth", "bandwidth"), ("latency", "time")):
            lo, hi = min(getattr(x, attr) for x in links), max(getattr(x, attr) for x in links)
            ranges.append(format_quantity(lo, dim, 3) if lo == hi else
                          f"{format_quantity(lo, dim, 3)}–{format_quantity(hi, dim, 3)}")
        text += f" ({', '.join(ranges)})"
    return text


def _sections(sections) -> list[tuple[str, Comparison]]:
    items = []
    for item in (sections.items() if isinstance(sections, Mapping) else sections):
        if hasattr(item, "label") and hasattr(item, "comparison"):   # e.g. collsched.demo.DemoSection
            item = (item.label, item.comparison)
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
                and hasattr(item[1], "candidates")):
            raise ValueError(f"a report section must be a (label, Comparison) pair, not {item!r:.80}")
        items.append(item)
    return items


def _table(cmp: Comparison) -> str:
    """The comparison's table (:meth:`Comparison.table`, as the terminal prints it) and its notes."""
    table = cmp.table()
    status = table.header.index("status")
    rows = []
    for i, (c, row) in enumerate(zip(cmp.candidates, table.rows)):
        cells = []
        for j, (text, numeric) in enumerate(zip(row, table.numeric)):
            if j == status and not c.valid:
                why = (c.error or "").partition(":")[2]
                cells.append(f'<td class="status-failed">{_e(text)}<small>{_e(why.strip()[:300])}</small></td>')
            else:
                cells.append(f'<td class="num">{_e(text)}</td>' if numeric else f"<td>{_e(text)}</td>")
        cls = "failed" if not c.valid else ("winner" if i == 0 else "")
        rows.append(f'<tr class="{cls}">{"".join(cells)}</tr>' if cls else f"<tr>{''.join(cells)}</tr>")
    header = "".join(f'<th class="num">{_e(h)}</th>' if numeric else f"<th>{_e(h)}</th>"
                     for h, numeric in zip(table.header, table.numeric))
    notes = "".join(f"<li>{_e(note)}</li>" for note in table.notes)
    return (f'<div class="table-wrap"><table>\n<thead><tr>{header}</tr></thead>\n<tbody>\n' + "\n".join(rows)
            + "\n</tbody>\n</table></div>\n" f'<ul class="note">{notes}</ul>')


def _section(index: int, label: str, cmp: Comparison, *, max_ranks: int) -> str:
    unit = "s" if cmp.metric == "makespan" else "operations/s"
    sid = f"s{index}"
    facts = [("collective", describe_collective(cmp.collective)), ("platform", describe_platform(cmp.platform)),
             ("model", repr(cmp.model)),
             ("bound", "none known" if cmp.bound is None else
              f"{_num(float(cmp.bound.value))} {unit} ({cmp.bound.name})")]
    valid = [c for c in cmp.candidates if c.valid]
    best = valid[0] if valid and cmp.candidates[0].valid else None
    parts = [f'<section id="{sid}">', f"<h2>{_e(label)}</h2>"]
    if best is not None:
        gap = "" if best.gap is None else f", gap {best.gap:+.1%}"
        what = f"rate of {cmp.collective.count}" if cmp.metric == "throughput" else cmp.metric
        facts.append(("best", f"{best.algorithm}: {what} {_num(best.achieved)} {unit}{gap}, {best.status_text} "
                              "under this model"))
    else:
        facts.append(("best", "no valid schedule"))
    best_class = ' class="best"' if best is not None else ""
    parts.append('<dl class="facts">' + "".join(
        f"<dt>{_e(k)}</dt><dd{best_class if k == 'best' else ''}>{_e(v)}</dd>" for k, v in facts) + "</dl>")
    parts.append(f"<h3>{len(cmp.candidates)} algorithm{'s' * (len(cmp.candidates) != 1)}, best first</h3>")
    parts.append(_table(cmp))
    parts.append('<div class="figures">')
    parts.append(_figure(bars_svg(cmp, scope=f"{sid}-bars"),
                         f"Achieved {cmp.metric} per algorithm; the dashed line is the bound."))
    if best is not None:
        parts += _flows_figures(cmp, best, sid)
        parts.append("<details open>\n<summary>Gantt chart of " + _e(best.algorithm) + "'s schedule</summary>\n"
                     + "\n".join(_gantt_figures(cmp, best, sid, max_ranks)) + "\n</details>")
    parts.append("</div>")
    parts.append("</section>")
    return "\n".join(parts)


def _flows_figures(cmp: Comparison, best, sid: str) -> list[str]:
    """The platform with the best schedule's flows; tables of what the drawing could not label (flows, tasks)."""
    busiest = busiest_link(best.result)
    where = "" if busiest is None else f" The busiest link, {busiest}, is outlined in black."
    fig = platform_flows_figure(cmp.platform, best.result, schedule=best.schedule)
    kind, with_tasks = drawn_labels(fig)
    edges, tasks = activity_labels(best.schedule)
    labels = {"activities": " Links are labelled with what the steady state sends across them per second "
                            "(u→v v[k..m]: r/s, v[k..m] the partial result of operands k to m).",
              "utilisation": " Carrying links are labelled with their utilisation (a label that would overlap "
                             "another is left out; the colour still says it).",
              None: ""}[kind]
    tables = []
    if edges and kind != "activities":
        n = sum(len(v) for v in edges.values())
        labels += (f" The {n} flows of the steady state, too many to label, are listed in the table below "
                   f"(v[k..m]: the partial result of operands k to m).")
        order = {node: i for i, node in enumerate(cmp.platform.nodes)}
        rows = "".join(f"<tr><td>{_e(u)}→{_e(v)}</td><td>{_e(', '.join(edges[(u, v)]))}</td></tr>"
                       for u, v in sorted(edges, key=lambda e: (order.get(e[0], -1), order.get(e[1], -1))))
        tables.append(_details(f"What the steady state sends across each edge ({n}, per second)",
                               "edge", "messages v[k..m]: rate", rows, open_=n <= 20))
    if tasks:
        n = sum(len(v) for v in tasks.values())
        drawn = set(tasks) <= with_tasks
        labels += (f" The {n} reduction tasks the steady state runs per second are "
                   f"{'listed under each host' if drawn else 'listed in the table below'}: T(k,l,m) is seed 000's "
                   f"task that combines v[k..l] and v[l+1..m] into v[k..m].")
        if not drawn:
            rows = "".join(f"<tr><td>{_e(h)}</td><td>{_e(', '.join(tasks[h]))}</td></tr>"
                           for h in cmp.platform.hosts if h in tasks)
            tables.append(_details(f"Reduction tasks per host ({n}, per second)", "host", "tasks T(k,l,m): rate",
                                   rows))
    caption = (f"The platform with the flows of {best.algorithm}'s schedule: hosts are circles, routers squares; "
               f"link width follows bandwidth, colour the link's utilisation (busy time over makespan).{where}"
               f"{labels}")
    return [_figure(svg_text(fig, scope=f"{sid}-flows"), caption)] + tables


def _details(summary: str, key: str, value: str, rows: str, *, open_: bool = True) -> str:
    """A ``<details>`` (open unless told) holding a two-column table (the rows already escaped)."""
    return (f"<details{' open' * open_}>\n<summary>{_e(summary)}</summary>\n<table>\n<thead><tr><th>{_e(key)}</th>"
            f"<th>{_e(value)}</th></tr></thead>\n<tbody>\n{rows}\n</tbody>\n</table>\n</details>")


def _gantt_figures(cmp: Comparison, best, sid: str, max_ranks: int) -> list[str]:
    """The whole run up to its makespan (bars, or busy bands when long), and one period of a periodic series."""
    result, trace = best.result, best.result.trace
    mode = choose_mode(result)
    schedule, count = best.schedule, cmp.collective.count
    q = getattr(schedule, "ops_per_period", None)
    steady = None if q is None or count <= 1 or mode == "ops" else steady_period(result, ops_per_period=q,
                                                                                   count=count)
    links = " below, the utilisation of the busiest links over time"
    if mode == "ops":
        what = (f"The whole run, from 0 to its makespan {trace.makespan:.4g} s: every operation is a bar on its "
                f"node's send, receive or compute lane (operations at once on sub-rows);{links}.")
    else:
        edges = bin_edges(0.0, trace.makespan, BINS, steady)
        width = float(np.median(np.diff(edges)))
        periods = 0 if steady is None or trace.makespan < PERIOD_BINS * steady[1] else round(width / steady[1])
        bins = (f"bins of {width:.3g} s" if not periods else
                f"bins of {'one period' if periods == 1 else f'{periods} periods'} ({width:.3g} s)")
        what = (f"The whole run, from 0 to its makespan {trace.makespan:.4g} s, has {trace.n_ops:,} operations, too "
                f"many to draw one by one: it is cut into {bins} and each node's send, receive and compute lane is "
                f"filled to the fraction of the bin it was busy (a full band: busy all the time; under each node's name, "
                f"the share of the run each lane was busy);{links}, averaged per bin.")
    figures = [_figure(gantt_svg(result, platform=cmp.platform, max_ranks=max_ranks, mode=mode, period=steady,
                                 scope=f"{sid}-gantt"), what)]
    if steady is not None:
        boundary, length = steady
        window = (max(boundary - 0.05 * length, 0.0), min(boundary + 1.05 * length, trace.makespan))
        ops = "one operation" if q == 1 else f"{q} operations"
        caption = (f"One period of the steady state, zoomed in from the middle of the run: {length:.4g} s as "
                   f"simulated (the schedule's period, {ops} of the series, is {float(schedule.period):.4g} s), "
                   f"from {boundary:.4g} s; dashed lines mark the period boundaries.")
        figures.append(_figure(gantt_svg(result, platform=cmp.platform, max_ranks=max_ranks, window=window,
                                         period=steady, scope=f"{sid}-period"), caption))
    return figures


def _figure(svg: str, caption: str) -> str:
    return f"<figure>\n{svg}\n<figcaption>{_e(caption)}</figcaption>\n</figure>"


def render_report(sections, *, title: str = "collsched report", intro: str | None = None, max_ranks: int = 32) -> str:
    """The HTML text of a report (see :func:`write_report`).

    Parameters
    ----------
    sections : mapping of str to Comparison, or iterable of (str, Comparison)
    title : str
    intro : str, optional
        A paragraph under the title (plain text, escaped).
    max_ranks : int
        Nodes shown in each Gantt chart.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        A section that is not a (label, Comparison) pair.

    Examples
    --------
    >>> render_report({}, title="nothing <yet>").count("&lt;yet&gt;")
    2
    """
    from .. import __version__

    items = _sections(sections)
    body = [f"<h1>{_e(title)}</h1>"]
    if intro:
        body.append(f'<p class="lead">{_e(intro)}</p>')
    if len(items) > 1:
        body.append("<nav><ol>" + "".join(f'<li><a href="#s{i}">{_e(label)}</a></li>'
                                          for i, (label, _) in enumerate(items, 1)) + "</ol></nav>")
    if not items:
        body.append('<p class="note">No comparison in this report.</p>')
    body += [_section(i, label, cmp, max_ranks=max_ranks) for i, (label, cmp) in enumerate(items, 1)]
    body.append(f"<footer>collsched {_e(__version__)}: every schedule checked by the symbolic validator, "
                f"then simulated; gaps are to the bound under the same model.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
            + "\n".join(body) + "\n</main>\n</body>\n</html>\n")


def write_report(path: str | Path, sections, *, title: str = "collsched report", intro: str | None = None,
                 max_ranks: int = 32) -> Path:
    """Write one self-contained HTML report of labelled comparisons (atomically).

    Parameters
    ----------
    path : str or Path
        The HTML file; its directory must exist.
    sections : mapping of str to Comparison, or iterable of (str, Comparison)
        One section per comparison, in order, under its label; an item may
        also be any object with ``label`` and ``comparison`` attributes
        (such as :class:`collsched.demo.DemoSection`).
    title : str
    intro : str, optional
        A paragraph under the title.
    max_ranks : int
        Nodes shown in each Gantt chart.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        A section that is not a (label, Comparison) pair.
    FormatError
        The file cannot be written (e.g. its directory does not exist).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
    >>> out = write_report(pathlib.Path(tempfile.mkdtemp()) / "r.html", [("broadcast", compare(p, c))], title="demo")
    >>> "<h2>broadcast</h2>" in out.read_text()
    True
    """
    path = Path(path)
    atomic_write(path, render_report(sections, title=title, intro=intro, max_ranks=max_ranks))
    return path
