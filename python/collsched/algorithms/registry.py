"""The registry of scheduling algorithms, by short lower-case name.

Each algorithm family registers its algorithms here with the collective
kinds they apply to; :func:`collsched.plan` looks them up by name.

Examples
--------
>>> import collsched as cs
>>> "binomial" in names()
True
>>> get("binomial").kinds
('reduce', 'broadcast', 'scatter', 'gather')
>>> get("no-such")
Traceback (most recent call last):
...
collsched.errors.CollschedError: unknown algorithm 'no-such' (known: binomial, caterpillar, linear)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import CollschedError

__all__ = ["Algorithm", "register", "get", "names", "applicable"]


@dataclass(frozen=True)
class Algorithm:
    """A registered algorithm.

    Attributes
    ----------
    name : str
        Short lower-case name (never renamed).
    family : str
        The problem family (``baselines``, ``steady_state``, ``liquid``, ...).
    kinds : tuple of str
        Collective kinds it applies to (``Collective.kind`` of the base collective).
    series : bool
        Whether it also schedules a :class:`~collsched.collectives.Series` (instance after instance, or pipelined).
    function : callable
        ``function(platform, collective, *, seed, **options) -> Schedule``.
    summary : str
        One line for tables.
    """

    name: str
    family: str
    kinds: tuple[str, ...]
    series: bool
    function: Callable
    summary: str

    def applies_to(self, collective) -> bool:
        """True if the algorithm can schedule ``collective``."""
        if collective.kind == "series" and not self.series:
            return False
        return collective.base.kind in self.kinds


_REGISTRY: dict[str, Algorithm] = {}


def register(name: str, *, family: str, kinds: tuple[str, ...], series: bool = True, summary: str = ""):
    """Decorator that registers ``function`` under ``name``."""

    def wrap(function: Callable) -> Callable:
        if name in _REGISTRY and _REGISTRY[name].function is not function:
            raise ValueError(f"algorithm {name!r} is registered twice")
        _REGISTRY[name] = Algorithm(name, family, tuple(kinds), series, function,
                                    summary or (function.__doc__ or "").strip().splitlines()[0])
        return function

    return wrap


def _load_families() -> None:
    from . import baselines  # noqa: F401  (registers on import)


def get(name: str) -> Algorithm:
    """The algorithm registered under ``name``."""
    _load_families()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise CollschedError(f"unknown algorithm {name!r} (known: {', '.join(names())})") from None


def names() -> list[str]:
    """Registered names, sorted."""
    _load_families()
    return sorted(_REGISTRY)


def applicable(collective) -> list[Algorithm]:
    """The algorithms that can schedule ``collective``, by name."""
    return [get(n) for n in names() if get(n).applies_to(collective)]
