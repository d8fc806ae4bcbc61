"""Running a study: its cells on a pool or a Dask cluster, resumed if interrupted; tables to CSV and plots.

Examples
--------
>>> import tempfile
>>> from collsched.studies.base import Report, Table, study
>>> @study("doc-example", title="an example", paper="none")
... def _run(options):
...     squares = options.map(abs, [0, -1, -2])
...     return Report("doc-example", (Table("squares", ("n", "|n|"), list(enumerate(squares)), plot=("n", ("|n|",))),))
>>> report = run_study("doc-example", out=tempfile.mkdtemp(), workers=1)
>>> from pathlib import Path
>>> [Path(f).suffix for f in report.files], Path(report.files[0]).read_text().splitlines()[-1]
(['.csv', '.png'], '2,2')
>>> from collsched.studies import base; del base._STUDIES["doc-example"]
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
import re
from pathlib import Path
from typing import Callable

from ..fileformat import atomic_write
from .base import Report, StudyOptions, get_study
from .cells import Cells
from .plots import plot_table

__all__ = ["run_study", "code_version"]


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """A digest of collsched's Python sources and its Rust core: cells cached by other code are not reused.

    Examples
    --------
    >>> len(code_version())
    16
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    for core in sorted(root.glob("_core*")):
        digest.update(core.name.encode() + str(core.stat().st_size).encode() + str(core.stat().st_mtime_ns).encode())
    return digest.hexdigest()[:16]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")


def run_study(name: str, *, samples: int | None = None, seed: int = 0, quick: bool = False,
              out: str | os.PathLike = "studies-out", workers: int | None = None, dask=None, resume: bool = True,
              progress: Callable[[str, int, int], None] | None = None) -> Report:
    """Run the study ``name`` and write each table to ``out/NAME/TITLE.csv`` (and ``.png`` when it asks for a plot).

    Parameters
    ----------
    name : str
        A registered study (see :func:`collsched.studies.base.study_names`).
    samples, seed, quick
        See :class:`~collsched.studies.base.StudyOptions`.
    out : path
        Folder of the results.
    workers : int, optional
        Local worker processes for the cells (default: the cores; 1: this process).
    dask : str or distributed.Client, optional
        Run the cells on this Dask cluster instead.
    resume : bool
        Reuse the cells a previous run with the same options and the same
        code (:func:`code_version`) finished, kept under ``out/NAME/.cells/``;
        False computes every cell again.
    progress : callable, optional
        ``progress(label, done, total)`` after each cell.

    Returns
    -------
    Report
        The study's tables, and the files written.

    Examples
    --------
    >>> run_study("no-such-study")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: unknown study 'no-such-study' (known studies: ...)
    """
    s = get_study(name)
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha256(repr((samples, seed, quick, code_version())).encode()).hexdigest()[:12]
    cache = folder / ".cells" / tag
    if not resume and cache.exists():
        for f in cache.glob("*.pkl"):
            f.unlink()
    with Cells(workers=workers, dask=dask, cache=cache, progress=progress) as cells:
        report = s.run(StudyOptions(samples=samples, seed=seed, quick=quick, cells=cells))
    files = []
    for table in report.tables:
        path = folder / (_slug(table.title) + ".csv")
        atomic_write(path, table.to_csv())
        files.append(str(path))
        if table.plot is not None:
            files.append(str(plot_table(table, path.with_suffix(".png"))))
    return dataclasses.replace(report, files=tuple(files))
