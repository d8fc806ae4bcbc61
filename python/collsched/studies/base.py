"""What every study is: a registered experiment that returns tables, ours beside the paper's.

A study module defines a function ``run(options) -> Report`` and registers
it with :func:`study`. :func:`collsched.studies.run_study` runs it and writes
each table as CSV; ``collsched study NAME`` prints the tables.

Examples
--------
>>> t = Table("phases", ("d", "ours", "paper"), ((4, 5.9, 5.92),), notes=("50 samples",))
>>> t.column("ours")
[5.9]
>>> Report("demo", (t,)).table("phases") is t
True
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import CollschedError

if TYPE_CHECKING:
    from .cells import Cells

__all__ = ["Table", "Report", "StudyOptions", "Study", "study", "get_study", "study_names"]


@dataclass(frozen=True)
class Table:
    """One table of a study: a title, column names, rows, notes printed under it, and what to plot.

    ``plot = (x, (y1, y2, ...))`` asks the runner to draw the columns ``y…``
    against column ``x`` (one line each) beside the CSV; ``(x, (y,), by)``
    draws one line per value of column ``by`` (rows in long form).

    Examples
    --------
    >>> Table("t", ("a", "b"), ((1,),))
    Traceback (most recent call last):
    ...
    ValueError: table 't': a row has 1 cells for 2 columns
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    notes: tuple[str, ...] = ()
    plot: tuple | None = None

    def __post_init__(self):
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "rows", tuple(tuple(r) for r in self.rows))
        object.__setattr__(self, "notes", tuple(self.notes))
        for r in self.rows:
            if len(r) != len(self.columns):
                raise ValueError(f"table {self.title!r}: a row has {len(r)} cells for {len(self.columns)} columns")
        if self.plot is not None:
            x, ys, *by = self.plot
            object.__setattr__(self, "plot", (x, tuple(ys), *by))
            for name in (x, *ys, *by):
                if name not in self.columns:
                    raise ValueError(f"table {self.title!r}: plot column {name!r} is not one of {self.columns}")

    def column(self, name: str) -> list:
        """The cells of one column, top to bottom.

        Examples
        --------
        >>> Table("t", ("a", "b"), ((1, 2), (3, 4))).column("b")
        [2, 4]
        """
        j = self.columns.index(name)
        return [r[j] for r in self.rows]

    def to_csv(self) -> str:
        """The table as CSV text (header row, then the rows).

        Examples
        --------
        >>> print(Table("t", ("a", "b"), ((1, 2.5),)).to_csv(), end="")
        a,b
        1,2.5
        """
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()


@dataclass(frozen=True)
class Report:
    """What a study returns: its tables (and where they were written, once written).

    Examples
    --------
    >>> Report("r", (Table("a", ("x",), ()),)).files
    ()
    """

    name: str
    tables: tuple[Table, ...]
    files: tuple[str, ...] = ()

    def table(self, title: str) -> Table:
        """The table with this title.

        Raises
        ------
        KeyError
            If there is none.

        Examples
        --------
        >>> Report("r", (Table("a", ("x",), ((1,),)),)).table("a").rows
        ((1,),)
        """
        for t in self.tables:
            if t.title == title:
                return t
        raise KeyError(title)


@dataclass(frozen=True)
class StudyOptions:
    """Options every study takes.

    Examples
    --------
    >>> StudyOptions(samples=0)
    Traceback (most recent call last):
    ...
    ValueError: study option samples=0 must be an integer >= 1

    Attributes
    ----------
    samples : int or None
        Samples per cell; None means the paper's own number (which may take long).
    seed : int
        Seed of every random draw.
    quick : bool
        A small version for tests (fewer cells), still exercising every code path.
    """

    samples: int | None = None
    seed: int = 0
    quick: bool = False
    cells: "Cells | None" = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if self.samples is not None and (isinstance(self.samples, bool) or not isinstance(self.samples, int)
                                         or self.samples < 1):
            raise ValueError(f"study option samples={self.samples!r} must be an integer >= 1")

    def n(self, paper: int, quick: int) -> int:
        """Samples to draw: the option if given, else ``quick`` in quick mode, else the paper's number.

        Examples
        --------
        >>> StudyOptions().n(100, 3), StudyOptions(quick=True).n(100, 3), StudyOptions(samples=7).n(100, 3)
        (100, 3, 7)
        """
        if self.samples is not None:
            return self.samples
        return quick if self.quick else paper

    def map(self, fn: Callable, items: Sequence, *, label: str = "cells") -> list:
        """``[fn(item) for item in items]``, computed by the runner's cell executor.

        A study's independent experiments (its *cells*) go through here, so the
        runner can spread them over processes or a Dask cluster and skip those
        already computed by an interrupted run. ``fn`` must be a module-level
        function and each item picklable; results come back in ``items`` order.

        Examples
        --------
        >>> StudyOptions().map(abs, [-1, 2, -3])
        [1, 2, 3]
        """
        if self.cells is None:
            return [fn(item) for item in items]
        return self.cells.map(fn, items, label=label)


@dataclass(frozen=True)
class Study:
    """A registered study.

    Examples
    --------
    >>> s = Study("x", "an example", "nobody", run=lambda options: Report("x", ()))
    >>> s.run(StudyOptions()).tables
    ()
    """

    name: str
    title: str
    paper: str
    run: Callable[[StudyOptions], Report]


_STUDIES: dict[str, Study] = {}


def study(name: str, *, title: str, paper: str):
    """Decorator registering ``run(options) -> Report`` as the study ``name``.

    Examples
    --------
    >>> @study("doc-study", title="nothing", paper="none")
    ... def run(options):
    ...     return Report("doc-study", ())
    >>> "doc-study" in study_names()
    True
    >>> del _STUDIES["doc-study"]
    """

    def wrap(run: Callable[[StudyOptions], Report]):
        _STUDIES[name] = Study(name, title, paper, run)
        return run

    return wrap


def _load() -> None:
    import importlib
    import pkgutil

    from .. import studies

    for module in pkgutil.iter_modules(studies.__path__):
        if not module.name.startswith("_") and module.name not in ("base", "runner", "cells", "plots"):
            importlib.import_module(f"{studies.__name__}.{module.name}")


def study_names() -> list[str]:
    """The registered studies, sorted.

    Examples
    --------
    >>> isinstance(study_names(), list)
    True
    """
    _load()
    return sorted(_STUDIES)


def get_study(name: str) -> Study:
    """The study registered under ``name``.

    Raises
    ------
    CollschedError
        If there is none (the message lists the known ones).

    Examples
    --------
    >>> get_study("no-such-study")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: unknown study 'no-such-study' (known studies: ...)
    """
    _load()
    try:
        return _STUDIES[name]
    except KeyError:
        known = ", ".join(sorted(_STUDIES)) or "none yet"
        raise CollschedError(f"unknown study {name!r}", fix=f"known studies: {known}") from None
