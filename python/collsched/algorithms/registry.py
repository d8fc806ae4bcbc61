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
>>> get("no-such")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
collsched.errors.CollschedError: unknown algorithm 'no-such' (known: ...binomial, caterpillar, ...)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import CollschedError
from .calibration import COSTS, Cost

__all__ = ["Algorithm", "Cost", "register", "get", "names", "applicable"]


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
    single : bool
        Whether it schedules a single instance (False for steady-state algorithms, which need a series).
    function : callable
        ``function(platform, collective, *, seed, **options) -> Schedule``.
    summary : str
        One line for tables.
    single : bool
        Whether it schedules a single instance.
    cost : Cost or None
        Its cost model (given at registration, else the calibrated one of
        :data:`collsched.algorithms.calibration.COSTS`); None when unknown.

    Examples
    --------
    >>> algo = get("linear")
    >>> algo.family, algo.series
    ('baselines', True)
    >>> algo.summary
    'flat tree: the root serves every other host in turn'
    """

    name: str
    family: str
    kinds: tuple[str, ...]
    series: bool
    function: Callable
    summary: str
    single: bool = True
    cost: Cost | None = None

    def estimate(self, collective) -> float | None:
        """Estimated seconds of a comparison's candidate for ``collective`` (:attr:`cost`), None if unknown.

        Parameters
        ----------
        collective : Collective

        Returns
        -------
        float or None

        Examples
        --------
        >>> from collsched.collectives import AllToAll
        >>> get("caterpillar").estimate(AllToAll(senders=[f"h{i}" for i in range(256)])) > 0
        True
        """
        return None if self.cost is None else self.cost.seconds(collective)

    def applies_to(self, collective) -> bool:
        """True if the algorithm can schedule ``collective``.

        Parameters
        ----------
        collective : Collective
            A collective, or a :class:`~collsched.collectives.Series` of one
            (which needs ``series=True`` as well as the base kind).

        Returns
        -------
        bool
            Whether ``collective.base.kind`` is one of :attr:`kinds` (and, for
            a series, the algorithm handles series).

        Examples
        --------
        >>> from collsched.collectives import AllToAll, Broadcast, Series
        >>> b = Broadcast(source="h0", targets=["h1", "h2"], size=1e3)
        >>> get("binomial").applies_to(b), get("caterpillar").applies_to(b)
        (True, False)
        >>> get("binomial").applies_to(Series(b, count=4))
        True
        >>> get("caterpillar").applies_to(AllToAll(senders=["h0", "h1"]))
        True
        """
        if collective.kind == "series" and not self.series:
            return False
        if collective.kind != "series" and not self.single:
            return False
        return collective.base.kind in self.kinds


_REGISTRY: dict[str, Algorithm] = {}


def register(name: str, *, family: str, kinds: tuple[str, ...], series: bool = True, single: bool = True,
             summary: str = "", cost: Cost | None = None):
    """Decorator that registers ``function`` under ``name``.

    Parameters
    ----------
    name : str
        Short lower-case name, unique across families; :func:`collsched.plan`
        takes it as ``algorithm=name``.
    family : str
        The problem family (the package under :mod:`collsched.algorithms`).
    kinds : tuple of str
        Collective kinds it applies to (``Collective.kind``: ``"reduce"``,
        ``"broadcast"``, ``"scatter"``, ``"gather"``, ``"alltoall"``, ``"alltomany"``, ``"allgather"``).
    series : bool
        Whether it also schedules a :class:`~collsched.collectives.Series` of those kinds.
    summary : str
        One line for tables; by default the first line of the function's docstring.
    cost : Cost, optional
        How long a comparison spends on it as the collective grows; by default
        the calibrated entry of :data:`collsched.algorithms.calibration.COSTS`,
        if any (without one the algorithm is never skipped for the budget).

    Returns
    -------
    callable
        The decorator; it returns ``function`` unchanged, so the function
        stays importable and callable under its own name.

    Raises
    ------
    ValueError
        (When the decorator is applied) if another function is already registered under ``name``.

    Notes
    -----
    ``function(platform, collective, *, seed, **options)`` must return a
    :class:`~collsched.schedules.Schedule`; its keyword-only parameters are
    the options :func:`collsched.plan` accepts. Registering the same
    function again replaces its entry.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.baselines import linear
    >>> @register("flat-example", family="examples", kinds=("broadcast",), series=False)
    ... def flat_example(platform, collective, *, seed=0):
    ...     "A flat tree, registered for this example."
    ...     return linear(platform, collective)
    >>> get("flat-example").summary
    'A flat tree, registered for this example.'
    >>> p = cs.topologies.star(3)
    >>> cs.plan(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e3), algorithm="flat-example").children
    mappingproxy({'h0': ('h1', 'h2')})
    >>> register("flat-example", family="examples", kinds=("broadcast",))(linear)
    Traceback (most recent call last):
    ...
    ValueError: algorithm 'flat-example' is registered twice
    >>> del _REGISTRY["flat-example"]  # leave the registry as the other examples expect it
    """

    def wrap(function: Callable) -> Callable:
        if name in _REGISTRY and _REGISTRY[name].function is not function:
            raise ValueError(f"algorithm {name!r} is registered twice")
        _REGISTRY[name] = Algorithm(name, family, tuple(kinds), series, function,
                                    summary or ((function.__doc__ or "").strip().splitlines() or [""])[0], single,
                                    cost if cost is not None else COSTS.get(name))
        return function

    return wrap


def _load_families() -> None:
    """Import every family package under :mod:`collsched.algorithms` (each registers on import)."""
    import importlib
    import pkgutil

    from .. import algorithms

    for module in pkgutil.iter_modules(algorithms.__path__):
        if module.ispkg:
            importlib.import_module(f"{algorithms.__name__}.{module.name}")
    for name in _REGISTERING_MODULES:
        importlib.import_module(f"{algorithms.__name__}.{name}")


#: Modules that register algorithms without their package importing them (the package's ``__init__`` stays light).
_REGISTERING_MODULES = ("gpu.plan",)


def get(name: str) -> Algorithm:
    """The algorithm registered under ``name``.

    Parameters
    ----------
    name : str
        A registered name (see :func:`names`).

    Returns
    -------
    Algorithm
        Its registry entry; ``get(name).function`` is the planning function.

    Raises
    ------
    CollschedError
        If no algorithm has that name; the message lists the known names.

    Examples
    --------
    >>> get("caterpillar").kinds
    ('alltoall', 'alltomany')
    >>> get("Binomial")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: unknown algorithm 'Binomial' (known: ...binomial, caterpillar, ...)
    """
    _load_families()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise CollschedError(f"unknown algorithm {name!r} (known: {', '.join(names())})") from None


def names() -> list[str]:
    """Registered names, sorted.

    Returns
    -------
    list of str
        Every name :func:`get` and :func:`collsched.plan` accept.

    Examples
    --------
    >>> {"binomial", "caterpillar", "linear"} <= set(names())  # families add their own names
    True
    """
    _load_families()
    return sorted(_REGISTRY)


def applicable(collective) -> list[Algorithm]:
    """The algorithms that can schedule ``collective``, by name.

    Parameters
    ----------
    collective : Collective
        Any collective, or a series of one.

    Returns
    -------
    list of Algorithm
        Those whose :meth:`Algorithm.applies_to` accepts it, sorted by name.

    Examples
    --------
    >>> from collsched.collectives import AllToAll, Reduce
    >>> {"binomial", "linear"} <= {a.name for a in applicable(Reduce(participants=["h0", "h1"], target="h0", size=8))}
    True
    >>> "caterpillar" in [a.name for a in applicable(AllToAll(senders=["h0", "h1"]))]
    True
    """
    return [get(n) for n in names() if get(n).applies_to(collective)]
