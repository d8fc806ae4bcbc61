"""Running a study and writing its tables (CSV, atomically).

Examples
--------
>>> import tempfile
>>> from collsched.studies.base import Report, Table, study
>>> @study("doc-example", title="an example", paper="none")
... def _run(options):
...     return Report("doc-example", (Table("squares", ("n", "n²"), [(n, n * n) for n in range(3)]),))
>>> report = run_study("doc-example", out=tempfile.mkdtemp())
>>> from pathlib import Path
>>> [Path(f).read_text().splitlines()[-1] for f in report.files]
['2,4']
>>> from collsched.studies import base; del base._STUDIES["doc-example"]
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path

from ..fileformat import atomic_write
from .base import Report, StudyOptions, get_study

__all__ = ["run_study"]


def run_study(name: str, *, samples: int | None = None, seed: int = 0, quick: bool = False,
              out: str | os.PathLike = "studies-out") -> Report:
    """Run the study ``name`` and write each of its tables to ``out/NAME/TITLE.csv``.

    Parameters
    ----------
    name : str
        A registered study (see :func:`collsched.studies.base.study_names`).
    samples, seed, quick
        See :class:`~collsched.studies.base.StudyOptions`.
    out : path
        Folder of the results.

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
    report = s.run(StudyOptions(samples=samples, seed=seed, quick=quick))
    folder = Path(out) / name
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for table in report.tables:
        path = folder / (re.sub(r"[^A-Za-z0-9._-]+", "-", table.title).strip("-") + ".csv")
        atomic_write(path, table.to_csv())
        files.append(str(path))
    return dataclasses.replace(report, files=tuple(files))
