"""Exception classes of collsched.

Every error a user can cause by bad input derives from :class:`CollschedError`
(itself a :class:`ValueError`), carries a one-line message that says what is
wrong, where, and how to fix it, and is shown by the CLI as that one line with
exit code 2.

Examples
--------
>>> from collsched.errors import PlatformError
>>> err = PlatformError("link 'l1' has bandwidth 0", where="platform.json", fix="give a positive bandwidth")
>>> str(err)
"platform.json: link 'l1' has bandwidth 0 (give a positive bandwidth)"
"""

from __future__ import annotations

__all__ = [
    "CollschedError",
    "PlatformError",
    "CollectiveError",
    "ScheduleError",
    "ValidationError",
    "FormatError",
    "UnitError",
]


class CollschedError(ValueError):
    """Base class of every user-facing collsched error.

    Parameters
    ----------
    what : str
        What is wrong, naming the offending item.
    where : str, optional
        Where it is (a file, ``file:line``, or a platform/collective name).
    fix : str, optional
        How to fix it, in a few words.

    Attributes
    ----------
    what, where, fix : str or None
        The parts of the message, kept for programs that report errors their own way.

    Notes
    -----
    Catch :class:`CollschedError` to handle every input error of collsched at
    once; it is a :class:`ValueError`, so code that already catches
    ``ValueError`` keeps working.

    Examples
    --------
    >>> err = CollschedError("unknown host 'h9'", where="coll.json")
    >>> str(err), err.fix
    ("coll.json: unknown host 'h9'", None)
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, what: str, *, where: str | None = None, fix: str | None = None):
        self.what = what
        self.where = where
        self.fix = fix
        text = what if where is None else f"{where}: {what}"
        if fix:
            text += f" ({fix})"
        super().__init__(text)


class PlatformError(CollschedError):
    """A platform is malformed: unknown node, duplicate id, bad capacity, no route.

    Examples
    --------
    >>> from collsched.platform import Link, Node, Platform
    >>> Platform([Node("a"), Node("b")], [Link("l", 0, ends=("a", "b"))])
    Traceback (most recent call last):
    ...
    collsched.errors.PlatformError: link 'l' has bandwidth 0 (give a finite positive bandwidth in bytes/s, e.g. '1GBps')
    """


class CollectiveError(CollschedError):
    """A collective is malformed or does not fit the platform it is used on.

    Examples
    --------
    >>> from collsched import Scatter, topologies
    >>> Scatter(source="h0", targets=["h1"], size=0)
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: scatter size is 0 (sizes and costs must be finite and > 0)
    >>> Scatter(source="h0", targets=["h5"], size=1).validate(topologies.star(2))
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: scatter participant 'h5' is not in platform 'star-2' (hosts are h0, h1)
    """


class ScheduleError(CollschedError):
    """A schedule or a program is malformed (independently of its collective).

    Examples
    --------
    >>> from collsched.schedules import TreeSchedule
    >>> TreeSchedule(root="h0", children={"h0": ("h1",), "h2": ("h1",)})
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: tree node 'h1' has two parents ('h0' and 'h2')
    """


class ValidationError(CollschedError):
    """A program does not implement its collective (raised by :func:`collsched.validate`).

    Examples
    --------
    A broadcast tree that forgets ``h2``:

    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [c.direct_value(p, 0, "h0", "h1")], size=1e3)
    >>> cs.validate(p, c, b.build())
    Traceback (most recent call last):
    ...
    collsched.errors.ValidationError: program '': rank h2 ends without m[h0→*]@0 (it never receives it)
    """


class FormatError(CollschedError):
    """A file cannot be read: malformed or truncated JSON or XML, wrong version, bad field.

    Examples
    --------
    >>> from collsched.collective_io import collective_from_json
    >>> collective_from_json("[]")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: <string>: expected a JSON object with "format": "collsched", found []
    """


class UnitError(CollschedError):
    """A number with a unit does not parse, or has the wrong dimension.

    Examples
    --------
    >>> from collsched import units
    >>> units.parse("10s", "bandwidth")
    Traceback (most recent call last):
    ...
    collsched.errors.UnitError: cannot read '10s' as a bandwidth (write e.g. '86MBps', '10Gbps' or a number of bytes/s)
    """
