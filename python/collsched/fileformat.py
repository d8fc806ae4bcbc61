"""collsched's native files: versioned JSON documents, and the helpers every reader uses.

Every native file (platform, collective, schedule, program) is one JSON
object whose first three fields, the *envelope*, say what it is::

    {"format": "collsched", "version": 1, "kind": "platform", ...body}

A writer builds its body as a dict (in a fixed key order, with plain SI
numbers) and calls :func:`dump_document`, then :func:`atomic_write`. A reader
calls :func:`read_text` and :func:`load_document`, which checks the envelope
and returns the body, then reads each field with :func:`field`,
:func:`elements` and :func:`check_keys`. These raise
:class:`~collsched.errors.FormatError` with a one-line message naming the
file and the JSON path of the bad value, e.g.
``platform.json: links[3].bandwidth: expected a positive bandwidth, found 0``.
A :class:`Where` carries that location from the document root down to a field.

Quantities accept a plain number (SI units) or a string with a unit
(``"86MBps"``, ``"10us"``), read by :func:`collsched.units.parse`.

Examples
--------
>>> text = dump_document("platform", {"name": "demo", "links": [{"id": "l0", "bandwidth": 1e8}]})
>>> print(text, end="")
{
 "format": "collsched",
 "version": 1,
 "kind": "platform",
 "name": "demo",
 "links": [{"id": "l0", "bandwidth": 100000000.0}]
}
>>> body = load_document(text, where="demo.json", kind="platform")
>>> root = Where("demo.json")
>>> [(w, field(link, "bandwidth", w, dimension="bandwidth")) for w, link in elements(body, "links", root)]
[(Where('demo.json', 'links[0]'), 100000000.0)]
>>> field({"latency": "10us"}, "latency", root, dimension="time")
1e-05
"""

from __future__ import annotations

import difflib
import json
import math
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Mapping

from . import units
from .errors import FormatError, UnitError

__all__ = ["FORMAT", "VERSION", "KINDS", "REQUIRED", "Where", "dump_document", "load_document",
           "read_text", "atomic_write", "field", "elements", "check_keys"]

FORMAT = "collsched"
"""The value of the ``format`` field of every native document."""
VERSION = 1
"""The version of the native documents this collsched writes."""
KINDS = ("platform", "collective", "schedule", "program")
"""The kinds of native documents."""
_ENVELOPE = ("format", "version", "kind")
_WIDTH = 120  # a JSON value shorter than this is written on one line


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""Default of :func:`field` for a field that must be present."""


@dataclass(frozen=True)
class Where:
    """A location in an input: the source (a file name, or ``file:line``) and a path inside it.

    Parameters
    ----------
    source : str
        The file name, ``file:line`` or a description such as ``"<string>"``.
    path : str
        The path of the value inside the document: ``links[3].bandwidth`` in
        JSON, ``link[@id='l1']/@bandwidth`` in XML; empty for the whole document.
    sep : str
        What joins a field name to the path (``"."`` for JSON, ``"/@"`` for XML attributes).

    Examples
    --------
    >>> w = Where("platform.json").at("links").at(3).at("bandwidth")
    >>> str(w)
    'platform.json: links[3].bandwidth'
    >>> str(Where("plat.xml:12", "link[@id='l1']", sep="/@").at("latency"))
    "plat.xml:12: link[@id='l1']/@latency"
    >>> str(w.error("expected a positive bandwidth, found 0"))
    'platform.json: links[3].bandwidth: expected a positive bandwidth, found 0'
    """

    source: str
    path: str = ""
    sep: str = "."

    def at(self, key: str | int) -> Where:
        """The location of field ``key`` (a name) or item ``key`` (an index) of this value.

        Parameters
        ----------
        key : str or int
            A field name, joined with :attr:`sep`, or a list index, written ``[key]``.

        Returns
        -------
        Where
            A new location in the same source; this one is unchanged.

        Examples
        --------
        >>> Where("coll.json").at("collective").at("targets").at(0)
        Where('coll.json', 'collective.targets[0]')
        >>> Where("plat.xml:7", "host[@id='h0']", sep="/@").at("speed")
        Where('plat.xml:7', "host[@id='h0']/@speed")
        """
        if isinstance(key, int):
            return Where(self.source, f"{self.path}[{key}]", self.sep)
        return Where(self.source, f"{self.path}{self.sep}{key}" if self.path else key, self.sep)

    def error(self, what: str, fix: str | None = None) -> FormatError:
        """A :class:`~collsched.errors.FormatError` located here (to raise).

        Parameters
        ----------
        what : str
            What is wrong with the value here.
        fix : str, optional
            How to fix it, in a few words.

        Returns
        -------
        FormatError
            Not raised: the caller writes ``raise where.error(...)``.

        Examples
        --------
        >>> err = Where("coll.json").at("collective").at("size").error("expected a number, found null",
        ...                                                            fix='give bytes, e.g. 1e6 or "1MB"')
        >>> str(err)
        'coll.json: collective.size: expected a number, found null (give bytes, e.g. 1e6 or "1MB")'
        >>> err.where
        'coll.json: collective.size'
        """
        return FormatError(what, where=str(self), fix=fix)

    def __str__(self) -> str:
        return f"{self.source}: {self.path}" if self.path else self.source

    def __repr__(self) -> str:
        return f"Where({self.source!r}, {self.path!r})"


# --- documents -----------------------------------------------------------------------

def dump_document(kind: str, body: Mapping[str, Any]) -> str:
    """Serialise ``body`` as a native document of ``kind``, ready to write.

    The envelope comes first, then the fields of ``body`` in the order given,
    so a writer that builds its body in a fixed order writes the same text
    for the same data. Lists and objects that fit in 120 characters, and
    objects that hold no object (records such as a node, a link or a route), are
    written on one line; others are indented by one space per level, lists of plain
    values packed several to a line. Floats are written with
    ``repr``, so reading them back gives the same floats exactly.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    body : mapping
        JSON-serialisable fields; must not use the envelope's field names.

    Returns
    -------
    str
        The document, ending with a newline.

    Raises
    ------
    ValueError
        If ``kind`` is unknown or ``body`` uses an envelope field name.
    FormatError
        If ``body`` holds a value JSON cannot represent (NaN, infinity, an object).

    Examples
    --------
    >>> print(dump_document("collective", {"type": "scatter", "sizes": [1e6] * 14, "tags": ["a", "b"]}), end="")
    {
     "format": "collsched",
     "version": 1,
     "kind": "collective",
     "type": "scatter",
     "sizes": [
      1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0, 1000000.0,
      1000000.0, 1000000.0, 1000000.0, 1000000.0
     ],
     "tags": ["a", "b"]
    }
    """
    if kind not in KINDS:
        raise ValueError(f"unknown document kind {kind!r}; expected one of {', '.join(KINDS)}")
    clash = [key for key in body if key in _ENVELOPE]
    if clash:
        raise ValueError(f"the body of a document cannot have a field {clash[0]!r}")
    document = {"format": FORMAT, "version": VERSION, "kind": kind, **body}
    try:
        return _encode(document, 0) + "\n"
    except (ValueError, TypeError) as exc:
        raise FormatError(f"cannot write the {kind} as JSON: {exc}") from None


def _encode(value: Any, level: int) -> str:
    flat = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if not isinstance(value, (dict, list)) or not value or len(flat) + level <= _WIDTH or (level and _is_record(value) and len(flat) + level <= 2 * _WIDTH):
        return flat
    pad = " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {_encode(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * level + "}"
    if all(not isinstance(v, (dict, list)) for v in value):
        lines = [pad]  # a list of numbers or strings: packed, several per line
        for v in value:
            text = json.dumps(v, ensure_ascii=False, allow_nan=False) + ","
            if len(lines[-1]) > len(pad) and len(lines[-1]) + len(text) > _WIDTH:
                lines.append(pad)
            lines[-1] += text if len(lines[-1]) == len(pad) else " " + text
        return "[\n" + "\n".join(lines)[:-1] + "\n" + " " * level + "]"
    items = [pad + _encode(v, level + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * level + "]"


def _is_record(value: Any) -> bool:
    """An object holding no object (a node, a link, a route): always one line, for readable diffs."""
    return isinstance(value, dict) and not any(_holds_object(v) for v in value.values())


def _holds_object(value: Any) -> bool:
    return isinstance(value, dict) or (isinstance(value, list) and any(_holds_object(v) for v in value))


def load_document(text: str, *, where: str, kind: str, versions: Collection[int] = (VERSION,)) -> dict[str, Any]:
    """Parse a native document, check its envelope and return its body.

    Parameters
    ----------
    text : str
        The document.
    where : str
        Where it comes from (a file name), for error messages.
    kind : str
        The kind expected, one of :data:`KINDS`.
    versions : collection of int
        The versions the caller can read.

    Returns
    -------
    dict
        The fields of the document other than ``format``, ``version`` and ``kind``.

    Raises
    ------
    FormatError
        Malformed or truncated JSON (``where:line:col: invalid JSON: ...``),
        a document that is not a collsched document, of another kind, or of a
        version the caller cannot read.

    Examples
    --------
    >>> load_document('{"format": "collsched", "version": 1, "kind": "platform", "name": "x"}',
    ...               where="x.json", kind="platform")
    {'name': 'x'}
    >>> load_document('{"format": "collsched", "version": 1, "kind": "platform", "name": ',
    ...               where="x.json", kind="platform")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: x.json:1:67: invalid JSON: Expecting value (the file ends too early: it may be truncated)
    >>> load_document('{"format": "collsched", "version": 1, "kind": "schedule"}', where="x.json", kind="platform")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: x.json: kind: this is a 'schedule' document, expected a 'platform' document (load it with the reader for schedules)
    """
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        raise FormatError(f"invalid JSON: {exc.msg}", where=f"{where}:{exc.lineno}:{exc.colno}",
                          fix="the file ends too early: it may be truncated" if truncated else None) from None
    except RecursionError:
        raise FormatError("invalid JSON: nested too deeply", where=where) from None
    root = Where(where)
    if not isinstance(document, dict):
        raise root.error(f"expected a JSON object with \"format\": \"{FORMAT}\", found {_show(document)}")
    found = document.get("format")
    if found != FORMAT:
        what = "no 'format' field" if "format" not in document else f"format is {_show(found)}"
        raise root.error(f"not a collsched document: {what}, expected \"format\": \"{FORMAT}\"",
                         fix="collsched reads its own JSON documents, or SimGrid XML platforms")
    version = document.get("version")
    if version not in versions or isinstance(version, bool):
        if isinstance(version, int) and not isinstance(version, bool) and version > max(versions):
            fix = "upgrade collsched to read it"
        else:
            fix = "write the version as an integer" if isinstance(version, (str, float)) else None
        expected = " or ".join(map(str, sorted(versions)))
        raise root.at("version").error(f"unsupported {kind} document version {_show(version)}, expected {expected}",
                                       fix=fix)
    if document.get("kind") != kind:
        found_kind = document.get("kind")
        if found_kind in KINDS:
            raise root.at("kind").error(f"this is a {found_kind!r} document, expected a {kind!r} document",
                                        fix=f"load it with the reader for {found_kind}s")
        raise root.at("kind").error(f"unknown document kind {_show(found_kind)}, expected {kind!r}")
    return {key: value for key, value in document.items() if key not in _ENVELOPE}


# --- files ---------------------------------------------------------------------------

def read_text(path: str | os.PathLike) -> str:
    """The text of a UTF-8 file, or a :class:`~collsched.errors.FormatError` naming the path.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    str
        Its text.

    Raises
    ------
    FormatError
        If the file does not exist, is a directory, cannot be read or is not UTF-8 text.

    Examples
    --------
    >>> read_text("/no/such/file.json")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: /no/such/file.json: no such file (check the path)
    """
    where = os.fspath(path)
    try:
        with open(path, encoding="utf-8-sig") as stream:
            return stream.read()
    except FileNotFoundError:
        raise FormatError("no such file", where=where, fix="check the path") from None
    except IsADirectoryError:
        raise FormatError("is a directory, not a file", where=where, fix="give the path of a file") from None
    except PermissionError:
        raise FormatError("cannot read the file: permission denied", where=where) from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"not UTF-8 text (byte {exc.start} cannot be decoded)", where=where) from None
    except OSError as exc:
        raise FormatError(f"cannot read the file: {exc.strerror or exc}", where=where) from None


def atomic_write(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (UTF-8) or bytes to ``path`` so that the file is either the old one or the new one, whole.

    The text goes to a temporary file in the same directory, which is flushed
    to disk and then renamed over ``path`` (:func:`os.replace`). A new file
    gets the usual permissions (0666 less the umask); an existing file keeps its own.

    Parameters
    ----------
    path : str or path-like
        The file to create or replace.
    text : str or bytes
        Its new content (text is written as UTF-8).

    Raises
    ------
    FormatError
        If the directory does not exist or the file cannot be written; ``path`` is then untouched.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "p.json")
    >>> atomic_write(path, "{}\\n")
    >>> read_text(path)
    '{}\\n'
    """
    target = Path(path)
    where = os.fspath(path)
    directory = target.parent
    if not directory.is_dir():
        raise FormatError(f"cannot write: directory {os.fspath(directory)!r} does not exist", where=where)
    tmp = None
    try:
        while tmp is None:
            candidate = directory / f".{target.name}.{secrets.token_hex(4)}.tmp"
            try:
                fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            tmp = candidate
        with os.fdopen(fd, "wb") as stream:
            stream.write(text.encode("utf-8") if isinstance(text, str) else text)
            stream.flush()
            os.fsync(stream.fileno())
        if target.exists():
            os.chmod(tmp, target.stat().st_mode & 0o7777)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise FormatError(f"cannot write the file: {exc.strerror or exc}", where=where) from None
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise


# --- fields --------------------------------------------------------------------------

_TYPE_WORDS = {str: "a string", bool: "true or false", int: "an integer", float: "a number",
               list: "a list", dict: "an object", type(None): "null"}


def field(obj: Mapping[str, Any], name: str, where: Where | str, *, type: type | tuple[type, ...] | None = None,
          dimension: str | None = None, choices: Collection[Any] | None = None, default: Any = REQUIRED,
          positive: bool = False, minimum: float | None = None) -> Any:
    """Read field ``name`` of the JSON object (or XML element attributes) ``obj``.

    Parameters
    ----------
    obj : mapping
        The object holding the field.
    name : str
        The field name.
    where : Where or str
        The location of ``obj``; errors are reported at ``where.at(name)``.
    type : type or tuple of types, optional
        The JSON types accepted: ``str``, ``bool``, ``int``, ``float`` (any
        number but a boolean), ``list``, ``dict``, ``type(None)``.
    dimension : str, optional
        Read a quantity of this dimension (see :func:`collsched.units.parse`):
        a number in SI units or a string with a unit; returns a finite float.
    choices : collection, optional
        The values accepted.
    default : optional
        Returned when the field is absent; without it the field is required.
    positive : bool
        With ``dimension``, require a value > 0.
    minimum : float, optional
        With ``dimension``, require a value >= ``minimum``.

    Returns
    -------
    object
        The value (a float for a quantity).

    Raises
    ------
    FormatError
        One line naming the source and the path of the field: missing, wrong
        type, not one of the choices, a unit that does not parse, a quantity
        that is not finite or out of range.

    Examples
    --------
    >>> link = {"id": "l3", "bandwidth": "12 parsecs", "latency": -1, "sharing": "fast"}
    >>> w = Where("platform.json").at("links").at(3)
    >>> field(link, "id", w, type=str)
    'l3'
    >>> field(link, "directed", w, type=bool, default=False)
    False
    >>> field(link, "bandwidth", w, dimension="bandwidth")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: platform.json: links[3].bandwidth: cannot read '12 parsecs' as a bandwidth (write e.g. '86MBps', '10Gbps' or a number of bytes/s)
    >>> field(link, "latency", w, dimension="time", minimum=0)
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: platform.json: links[3].latency: expected a time >= 0, found -1
    >>> field(link, "sharing", w, choices=("full_duplex", "shared"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: platform.json: links[3].sharing: 'fast' is not one of 'full_duplex', 'shared'
    >>> field(link, "ends", w, type=list)
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: platform.json: links[3]: missing field 'ends'
    """
    where = Where(where) if isinstance(where, str) else where
    if name not in obj:
        if default is REQUIRED:
            raise where.error(f"missing field {name!r}")
        return default
    value = obj[name]
    if type is not None and not _is_type(value, type):
        kinds = type if isinstance(type, tuple) else (type,)
        expected = " or ".join(_TYPE_WORDS.get(k, k.__name__) for k in kinds)
        raise where.at(name).error(f"expected {expected}, found {_show(value)}")
    if dimension is not None:
        value = _quantity(value, dimension, where, name, positive, minimum)
    if choices is not None and value not in choices:
        raise where.at(name).error(f"{_show(value)} is not one of {', '.join(_show(c) for c in choices)}")
    return value


def _is_type(value: Any, kinds: type | tuple[type, ...]) -> bool:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if isinstance(value, bool):
        return bool in kinds
    if float in kinds and isinstance(value, int):
        return True
    return isinstance(value, kinds)


def _quantity(value: Any, dimension: str, where: Where, name: str, positive: bool, minimum: float | None) -> float:
    try:
        number = units.parse(value, dimension)
    except UnitError as exc:
        raise where.at(name).error(exc.what, fix=exc.fix) from None
    if not math.isfinite(number):
        raise where.at(name).error(f"expected a finite {dimension}, found {_show(value)}")
    if positive and number <= 0:
        raise where.at(name).error(f"expected a positive {dimension}, found {_show(value)}")
    if minimum is not None and number < minimum:
        raise where.at(name).error(f"expected a {dimension} >= {minimum:g}, found {_show(value)}")
    return number


def elements(obj: Mapping[str, Any], name: str, where: Where | str, *, type: type | tuple[type, ...] = dict,
             default: Any = REQUIRED) -> list[tuple[Where, Any]]:
    """The items of list field ``name``, each with its location, each checked to be of ``type``.

    Parameters
    ----------
    obj : mapping
        The object holding the list.
    name : str
        The field name.
    where : Where or str
        The location of ``obj``; item ``i`` is at ``where.at(name).at(i)``.
    type : type or tuple of types
        The JSON type of every item (as for :func:`field`); objects by default.
    default : optional
        The items when the field is absent; without it the field is required.

    Returns
    -------
    list of (Where, object)
        Each item with its location, to read its fields and report errors.

    Raises
    ------
    FormatError
        The field is missing or not a list, or an item is of another type.

    Examples
    --------
    >>> elements({"nodes": [{"id": "a"}, 3]}, "nodes", "p.json")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: p.json: nodes[1]: expected an object, found 3
    >>> elements({}, "nodes", "p.json", default=[])
    []
    """
    where = Where(where) if isinstance(where, str) else where
    items = field(obj, name, where, type=list, default=REQUIRED if default is REQUIRED else None)
    if items is None:
        return list(default)
    out = []
    base = where.at(name)
    for i, item in enumerate(items):
        here = base.at(i)
        if not _is_type(item, type):
            kinds = type if isinstance(type, tuple) else (type,)
            raise here.error(f"expected {' or '.join(_TYPE_WORDS.get(k, k.__name__) for k in kinds)}, "
                             f"found {_show(item)}")
        out.append((here, item))
    return out


def check_keys(obj: Mapping[str, Any], where: Where | str, allowed: Collection[str]) -> None:
    """Raise :class:`~collsched.errors.FormatError` on a field of ``obj`` not in ``allowed`` (a typo, usually).

    Parameters
    ----------
    obj : mapping
        A JSON object.
    where : Where or str
        Its location.
    allowed : collection of str
        The field names a reader knows.

    Raises
    ------
    FormatError
        At the unknown field, suggesting the closest allowed name.

    Examples
    --------
    >>> check_keys({"id": "l0", "bandwith": 1e9}, Where("p.json").at("links").at(0), ("id", "bandwidth", "latency"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: p.json: links[0].bandwith: unknown field (did you mean 'bandwidth'?)
    """
    where = Where(where) if isinstance(where, str) else where
    for key in obj:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            fix = f"did you mean {close[0]!r}?" if close else f"expected {', '.join(map(repr, allowed))}"
            raise where.at(str(key)).error("unknown field", fix=fix)


def _show(value: Any) -> str:
    """A short rendering of a value read from a file, for messages."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
