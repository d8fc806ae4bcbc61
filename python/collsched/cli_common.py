"""What every ``collsched`` command shares: its consoles, output-path checks, progress and interruption.

* Results go to standard output (:data:`console`); progress bars go to
  standard error (:data:`err_console`), and only when it is a terminal, so
  that redirected output holds results alone.
* :func:`check_output` is the one rule for the files a command writes: the
  folder exists and is writable and the suffix names a format the command
  writes; it runs before any work, and a failure is one line, exit code 2.
* :class:`Steps` shows ``done/total`` of a long command and turns Ctrl-C
  into :class:`Interrupted`: one line saying how far it got and how to go
  on, exit code 130.

Examples
--------
>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> check_output(folder / "s.json", (".json",), option="-o")
>>> check_output(folder / "nodir" / "s.json", (".json",), option="-o")
Traceback (most recent call last):
...
collsched.errors.CollschedError: -o .../nodir/s.json: folder .../nodir does not exist (create it first, or write elsewhere)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

from rich.console import Console

from .errors import CollschedError

__all__ = ["console", "err_console", "Interrupted", "Steps", "working", "check_output", "parse_options"]

console = Console(width=None if sys.stdout.isatty() else 120)
"""Results (tables, "wrote ..." lines): standard output, 120 columns when it is not a terminal."""

err_console = Console(stderr=True)
"""Progress bars: standard error, shown only when it is a terminal."""


class Interrupted(Exception):
    """Ctrl-C (SIGINT) stopped a command; the message says how far it got and how to go on (exit code 130).

    Examples
    --------
    >>> str(Interrupted("3 of 8 algorithms done", "run it again"))
    'interrupted; 3 of 8 algorithms done, run it again'
    """

    def __init__(self, done: str, then: str):
        super().__init__(f"interrupted; {done}, {then}")


def check_output(path: Path | None, suffixes: Sequence[str], *, option: str, folder: bool = False) -> None:
    """Refuse, before any work, an output path the command could not write.

    Parameters
    ----------
    path : Path or None
        What the user gave (None: the option was not given; nothing to check).
    suffixes : sequence of str
        The suffixes (lower case, with the dot) of the formats the command writes.
    option : str
        The option or argument, as the user typed it, for the message.
    folder : bool
        ``path`` is a folder the command creates (``study --out``): only its parent is checked.

    Raises
    ------
    CollschedError
        The parent folder is missing or not writable, the path is an existing
        folder, or the suffix names no format the command writes.

    Examples
    --------
    >>> check_output(Path("report.pdf"), (".html",), option="-o")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: -o report.pdf: cannot tell the format of a '.pdf' file (name it .html)
    """
    if path is None:
        return
    shown = f"{option} {path}"
    if not folder:
        suffix = path.suffix.lower()
        if suffix not in suffixes:
            what = f"a '{suffix}' file" if suffix else "a name without a suffix"
            raise CollschedError(f"{shown}: cannot tell the format of {what}",
                                 fix=f"name it {' or '.join(suffixes)}")
        if path.is_dir():
            raise CollschedError(f"{shown}: is a folder", fix=f"name a file in it, e.g. {path / ('out' + suffixes[0])}")
    elif path.exists() and not path.is_dir():
        raise CollschedError(f"{shown}: is a file, not a folder", fix="name a folder (it is created if missing)")
    parent = path.parent
    if not parent.exists():
        raise CollschedError(f"{shown}: folder {parent} does not exist", fix="create it first, or write elsewhere")
    if not parent.is_dir():
        raise CollschedError(f"{shown}: {parent} is not a folder", fix="write elsewhere")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CollschedError(f"{shown}: folder {parent} is not writable", fix="write elsewhere")


def parse_options(items: list[str], accepted: list[str], owner: str) -> dict:
    """``NAME=VALUE`` options (VALUE read as JSON if it can be), each name one that ``owner`` accepts.

    Examples
    --------
    >>> parse_options(["n=4", "name=x"], ["n", "name"], "generator 'star'")
    {'n': 4, 'name': 'x'}
    >>> parse_options(["k=4"], ["n"], "generator 'star'")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: generator 'star' has no option 'k' (options: n)
    """
    options = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep:
            raise CollschedError(f"--param {item!r} is not NAME=VALUE")
        if name not in accepted:
            raise CollschedError(f"{owner} has no option {name!r}", fix=f"options: {', '.join(accepted) or 'none'}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def working(message: str, *, show: bool | None = None):
    """A spinner saying ``message`` on stderr while a step of unknown length runs (when stderr is a terminal).

    Examples
    --------
    >>> with working("reading p.json", show=False):
    ...     pass
    """
    import contextlib

    show = err_console.is_terminal if show is None else show
    return err_console.status(message) if show else contextlib.nullcontext()


class Steps:
    """``done`` of ``total`` steps of a long command: a progress bar on a terminal, one line if interrupted.

    Use it as a context manager around the work and call :meth:`update`
    as steps finish; a ``KeyboardInterrupt`` inside becomes
    :class:`Interrupted` with ``"N of M <unit> done"`` and ``then``.

    Parameters
    ----------
    unit : str
        What a step is, plural ("algorithms", "cells").
    then : str or callable
        How to go on after an interruption (e.g. "resume with: collsched
        study grid-broadcast"); a callable gets ``(done, total)``.
    show : bool, optional
        Draw the bar; default: when standard error is a terminal.

    Examples
    --------
    >>> with Steps("algorithms", "run it again", show=False) as steps:
    ...     steps.update(1, 3, "binomial")
    ...     raise KeyboardInterrupt
    Traceback (most recent call last):
    ...
    collsched.cli_common.Interrupted: interrupted; 1 of 3 algorithms done, run it again
    """

    def __init__(self, unit: str, then: str | Callable[[int, int], str], *, show: bool | None = None):
        self.unit = unit
        self.then = then
        self.show = err_console.is_terminal if show is None else show
        self.done = 0
        self.total = 0
        self._bar = None
        self._task = None

    def __enter__(self) -> Steps:
        if self.show:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=err_console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.unit, total=None)
        return self

    def update(self, done: int, total: int, description: str | None = None) -> None:
        """``done`` of ``total`` steps are finished; ``description`` says what runs now.

        Examples
        --------
        >>> with Steps("cells", "resume", show=False) as steps:
        ...     steps.update(2, 5, "cells")
        >>> steps.done, steps.total
        (2, 5)
        """
        self.done, self.total = done, total
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total,
                             **({} if description is None else {"description": description}))

    def __exit__(self, kind, exc, tb) -> None:
        if self._bar is not None:
            self._bar.stop()
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            then = self.then(self.done, self.total) if callable(self.then) else self.then
            raise Interrupted(f"{self.done} of {self.total} {self.unit} done", then) from None
