"""The plot a study table asks for (``Table.plot``): its columns against one, as lines, saved atomically.

Examples
--------
>>> import tempfile, pathlib
>>> from collsched.studies.base import Table
>>> t = Table("ratio", ("density", "ours", "paper"), ((0.25, 2.1, 2.0), (0.5, 2.4, 2.5)),
...           plot=("density", ("ours", "paper")))
>>> out = plot_table(t, pathlib.Path(tempfile.mkdtemp()) / "ratio.png")
>>> out.stat().st_size > 1000
True
>>> long = Table("gaps", ("N", "algorithm", "gap"), ((30, "a", 0.1), (40, "a", 0.2), (30, "b", 0.3)),
...              plot=("N", ("gap",), "algorithm"))
>>> plot_table(long, out.with_name("gaps.svg")).read_text().count("<svg") >= 1
True
"""

from __future__ import annotations

from pathlib import Path

from .base import Table

__all__ = ["plot_table"]


def _number(x) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if v == v else None  # NaN: a missing point


def plot_table(table: Table, path: str | Path) -> Path:
    """Draw ``table.plot`` (y columns against the x column; cells that are not numbers left out) to ``path``.

    Parameters
    ----------
    table : Table
        A table whose ``plot`` is set.
    path : path
        ``.png`` or ``.svg``.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    ValueError
        If the table asks for no plot.

    Examples
    --------
    >>> plot_table(Table("t", ("a",), ()), "t.png")
    Traceback (most recent call last):
    ...
    ValueError: table 't' asks for no plot
    """
    from ..report._figures import check_path, new_figure, save

    if table.plot is None:
        raise ValueError(f"table {table.title!r} asks for no plot")
    x_name, y_names, *by = table.plot
    lines = []  # (label, xs, ys)
    groups = [None] if not by else list(dict.fromkeys(table.column(by[0])))
    for group in groups:
        rows = [r for r in table.rows if group is None or r[table.columns.index(by[0])] == group]
        for name in y_names:
            label = str(name) if group is None else (str(group) if len(y_names) == 1 else f"{group} {name}")
            lines.append((label, [r[table.columns.index(x_name)] for r in rows],
                          [r[table.columns.index(name)] for r in rows]))
    xs = list(dict.fromkeys(x for _, line_xs, _ in lines for x in line_xs))
    numeric_x = all(_number(x) is not None for x in xs)
    path = check_path(path, f"plot of table {table.title!r}")
    fig = new_figure(6.4, 4.0)
    ax = fig.add_subplot()
    for label, line_xs, line_ys in lines:
        points = [(float(x) if numeric_x else xs.index(x), _number(y)) for x, y in zip(line_xs, line_ys)]
        points = [(x, y) for x, y in points if y is not None]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    if not numeric_x:
        ax.set_xticks(range(len(xs)), [str(x) for x in xs], rotation=30, ha="right")
    elif len(xs) > 2 and min(float(x) for x in xs) > 0 and max(float(x) for x in xs) / min(float(x) for x in xs) > 1e3:
        ax.set_xscale("log")
    ax.set_xlabel(str(x_name))
    if len(y_names) == 1:
        ax.set_ylabel(str(y_names[0]))
    ax.set_title(table.title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, path)
