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
    """A platform is malformed: unknown node, duplicate id, bad capacity, no route."""


class CollectiveError(CollschedError):
    """A collective is malformed or does not fit the platform it is used on."""


class ScheduleError(CollschedError):
    """A schedule or a program is malformed (independently of its collective)."""


class ValidationError(CollschedError):
    """A program does not implement its collective (raised by :func:`collsched.validate`)."""


class FormatError(CollschedError):
    """A file cannot be read: malformed or truncated JSON or XML, wrong version, bad field."""


class UnitError(CollschedError):
    """A number with a unit does not parse, or has the wrong dimension."""
