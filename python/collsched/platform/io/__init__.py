"""Platform files: collsched's native JSON (``.json``) and SimGrid platform XML (``.xml``).

:func:`load_platform` and :func:`save_platform` pick the format from the
file's extension; the string functions read and write each format directly.

Examples
--------
>>> import os, tempfile
>>> from collsched.platform import Platform, Node, Link
>>> p = Platform([Node("a"), Node("b")], [Link("ab", 1e8, 1e-5, ends=("a", "b"))], name="pair")
>>> folder = tempfile.mkdtemp()
>>> for name in ("pair.json", "pair.xml"):
...     save_platform(p, os.path.join(folder, name))
...     assert load_platform(os.path.join(folder, name)) == p
"""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import FormatError
from ...fileformat import atomic_write, read_text
from ..model import Platform
from .native import platform_from_json, platform_to_json
from .simgrid import platform_from_simgrid, platform_to_simgrid

__all__ = ["load_platform", "save_platform", "platform_to_json", "platform_from_json",
           "platform_to_simgrid", "platform_from_simgrid", "EXTENSIONS"]

_READERS = {".json": platform_from_json, ".xml": platform_from_simgrid}
_WRITERS = {".json": platform_to_json, ".xml": platform_to_simgrid}
EXTENSIONS = tuple(_READERS)
"""The file extensions of platform files: ``.json`` (native) and ``.xml`` (SimGrid)."""


def _extension(path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in _READERS:
        shown = f"extension {suffix!r}" if suffix else "no extension"
        raise FormatError(f"unknown platform file type ({shown})", where=os.fspath(path),
                          fix=f"use {' or '.join(EXTENSIONS)} (native JSON or SimGrid XML)")
    return suffix


def load_platform(path: str | os.PathLike) -> Platform:
    """Read a platform file: native JSON (``.json``) or SimGrid XML (``.xml``).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Platform

    Raises
    ------
    FormatError
        Unknown extension, missing or unreadable file, malformed content.
    PlatformError
        The file is well-formed but does not describe a valid platform.

    Examples
    --------
    >>> load_platform("machine.yaml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: machine.yaml: unknown platform file type (extension '.yaml') (use .json or .xml (native JSON or SimGrid XML))
    """
    reader = _READERS[_extension(path)]
    return reader(read_text(path), where=os.fspath(path))


def save_platform(p: Platform, path: str | os.PathLike) -> None:
    """Write a platform file, in the format its extension says, atomically.

    Parameters
    ----------
    p : Platform
    path : str or path-like
        Ends with ``.json`` (native) or ``.xml`` (SimGrid, with collsched's
        extra data in ``collsched:`` props so that it reads back equal).

    Raises
    ------
    FormatError
        Unknown extension, or the file cannot be written (it is then left untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> from collsched.platform import Platform, Node
    >>> path = os.path.join(tempfile.mkdtemp(), "one.json")
    >>> save_platform(Platform([Node("a")], [], name="one"), path)
    >>> load_platform(path).name
    'one'
    """
    writer = _WRITERS[_extension(path)]
    atomic_write(path, writer(p))
