"""``collsched platform {show,generate,convert}``: look at, make and convert platform files.

``platform show`` costs O(hosts + links) without options: it never builds
the matrix or route views unless ``--routes`` or ``--matrix`` asks for
them (a 65,536-host star is summarised in the time it takes to read it).
"""

from __future__ import annotations

import inspect
import itertools
from pathlib import Path
from typing import List

import typer
from rich.table import Table

from .cli_common import check_output, console, parse_options, working
from .errors import CollschedError

__all__ = ["platform_app", "summary_table", "matrix_lines"]

platform_app = typer.Typer(no_args_is_help=True, help="Show, generate and convert platform files.")

_PLATFORM_SUFFIXES = (".json", ".xml")

MATRIX_LIMIT = 2000
"""The most hosts ``--matrix`` prints (n x n values); beyond, Python's ``Platform.latency_matrix()``."""


@platform_app.command("show")
def platform_show(path: Path = typer.Argument(..., help="Platform file (.json or SimGrid .xml)."),
                  routes: int = typer.Option(0, help="Also print this many host-to-host routes."),
                  matrix: bool = typer.Option(False, "--matrix", help="Also print the latency and bandwidth matrices "
                                              "(n x n: full values when redirected, wrapped tables on a terminal).")):
    """Summarise a platform: hosts, routers, links, routing."""
    from .platform.io import load_platform
    from .units import format_quantity as q

    if routes < 0:
        raise CollschedError(f"--routes {routes} is negative", fix="give a count >= 0")
    with working(f"reading {path}"):
        p = load_platform(path)
    if matrix and len(p.hosts) > MATRIX_LIMIT:
        n = len(p.hosts)
        raise CollschedError(f"--matrix of {n} hosts would print {2 * n * n:,} values",
                             fix=f"it prints up to {MATRIX_LIMIT} hosts; use --routes N, or "
                                 "Platform.latency_matrix() and bandwidth_matrix() in Python")
    console.print(summary_table(p))
    pairs = ((a, b) for a in p.hosts for b in p.hosts if a != b)
    for a, b in itertools.islice(pairs, routes):  # lazily: only the pairs shown are visited
        console.print(f"{a} -> {b}: {' '.join(p.route(a, b))}  "
                      f"({q(p.latency(a, b), 'time')}, {q(p.bandwidth(a, b), 'bandwidth')})", soft_wrap=True)
    if matrix:
        for title, m, dim in (("latency", p.latency_matrix(), "time"), ("bandwidth", p.bandwidth_matrix(), "bandwidth")):
            if console.is_terminal:
                for table in matrix_tables(title, p.hosts, m, dim, width=console.width):
                    console.print(table)
            else:
                for line in matrix_lines(title, p.hosts, m, dim):
                    console.file.write(line + "\n")  # tabs kept: rich would expand them


def summary_table(p) -> Table:
    """The summary ``platform show`` prints, in O(hosts + links).

    Examples
    --------
    >>> from collsched import topologies
    >>> from rich.console import Console
    >>> Console(width=80).print(summary_table(topologies.star(3)))
                 platform 'star-3'
    ┌────────────┬─────────────────────────────┐
    │ hosts      │ 3: h0, h1, h2               │
    │ routers    │ 1: sw                       │
    │ links      │ 3                           │
    │ bandwidth  │ 125MBps .. 125MBps          │
    │ latency    │ 10us .. 10us                │
    │ host speed │ 1Gf .. 1Gf                  │
    │ routing    │ ShortestPath(metric='hops') │
    └────────────┴─────────────────────────────┘
    """
    from .units import format_quantity as q

    links = list(p.links.values())
    table = Table(title=f"platform {p.name!r}", show_header=False)
    table.add_row("hosts", f"{len(p.hosts)}: {_preview(p.hosts)}")
    table.add_row("routers", f"{len(p.routers)}: {_preview(p.routers)}")
    table.add_row("links", str(len(links)))
    if links:
        bws = [link.bandwidth for link in links]
        lats = [link.latency for link in links]
        table.add_row("bandwidth", f"{q(min(bws), 'bandwidth')} .. {q(max(bws), 'bandwidth')}")
        table.add_row("latency", f"{q(min(lats), 'time')} .. {q(max(lats), 'time')}")
    speeds = [p.nodes[h].speed for h in p.hosts]
    table.add_row("host speed", f"{q(min(speeds), 'speed')} .. {q(max(speeds), 'speed')}")
    table.add_row("routing", repr(p.routing))
    if p.clusters:
        table.add_row("clusters", _preview([str(len(c)) for c in p.clusters]))
    return table


def _cell(host: str, other: str, x: float, dim: str) -> str:
    from .units import format_quantity

    return "-" if host == other else format_quantity(x, dim, digits=6)


def matrix_lines(title: str, hosts, m, dim: str) -> list[str]:
    """A matrix as tab-separated lines, every value whole with its unit (for files and pipes).

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.star(2, latency=1e-5)
    >>> print("\\n".join(matrix_lines("latency", p.hosts, p.latency_matrix(), "time")))
    latency	h0	h1
    h0	-	20us
    h1	20us	-
    """
    lines = ["\t".join([title, *hosts])]
    for h, row in zip(hosts, m):
        lines.append("\t".join([h, *(_cell(h, a, x, dim) for a, x in zip(hosts, row))]))
    return lines


def matrix_tables(title: str, hosts, m, dim: str, *, width: int) -> list[Table]:
    """A matrix as tables of as many columns as fit in ``width``, each value whole (for terminals).

    Examples
    --------
    >>> from collsched import topologies
    >>> p = topologies.star(12, latency=1e-5)
    >>> [t.title for t in matrix_tables("latency", p.hosts, p.latency_matrix(), "time", width=60)]
    ['latency (columns h0 .. h6)', 'latency (columns h7 .. h11)']
    """
    cells = [[_cell(h, a, x, dim) for a, x in zip(hosts, row)] for h, row in zip(hosts, m)]
    label = max(map(len, hosts), default=1)
    column = max([len(h) for h in hosts] + [len(c) for row in cells for c in row] + [1])
    per_table = max(1, (width - label - 4) // (column + 3))
    tables = []
    for start in range(0, len(hosts), per_table):
        stop = min(start + per_table, len(hosts))
        name = title if per_table >= len(hosts) else f"{title} (columns {hosts[start]} .. {hosts[stop - 1]})"
        t = Table(title=name)
        t.add_column("", no_wrap=True)
        for h in hosts[start:stop]:
            t.add_column(h, justify="right", no_wrap=True, min_width=column)
        for h, row in zip(hosts, cells):
            t.add_row(h, *row[start:stop])
        tables.append(t)
    return tables


@platform_app.command("generate")
def platform_generate(kind: str = typer.Argument(..., help="Generator name, e.g. star, hypercube, tiers."),
                      output: Path = typer.Option(..., "-o", "--output", help="Where to write (.json or .xml)."),
                      param: List[str] = typer.Option([], "-p", "--param",
                                                      help="Generator option NAME=VALUE (VALUE read as JSON if it can be).")):
    """Generate a platform with one of collsched.topologies' generators."""
    from . import topologies
    from .platform.io import save_platform

    check_output(output, _PLATFORM_SUFFIXES, option="-o")
    if kind not in topologies.__all__:
        raise CollschedError(f"unknown generator {kind!r}", fix=f"use one of {', '.join(topologies.__all__)}")
    generator = getattr(topologies, kind)
    options = parse_options(param, list(inspect.signature(generator).parameters), f"generator {kind!r}")
    try:
        platform = generator(**options)
    except TypeError as exc:
        raise CollschedError(f"generator {kind!r}: {exc}") from None
    save_platform(platform, output)
    console.print(f"wrote {output}: {len(platform.hosts)} hosts, {len(platform.routers)} routers, "
                  f"{len(platform.links)} links")


@platform_app.command("convert")
def platform_convert(source: Path = typer.Argument(..., help="Input platform (.json or .xml)."),
                     target: Path = typer.Argument(..., help="Output platform (.json or .xml).")):
    """Convert a platform between native JSON and SimGrid XML."""
    from .platform.io import load_platform, save_platform

    check_output(target, _PLATFORM_SUFFIXES, option="target")
    with working(f"reading {source}"):
        platform = load_platform(source)
    save_platform(platform, target)
    console.print(f"wrote {target}")


def _preview(items, k: int = 6) -> str:
    items = list(itertools.islice(items, k + 1))
    return ", ".join(items[:k]) + (", ..." if len(items) > k else "")
