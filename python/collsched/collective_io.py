"""Collectives as native JSON documents (see :mod:`collsched.fileformat`).

The body of a collective document is one object, ``collective``, whose
``type`` is the collective's kind::

    {"format": "collsched", "version": 1, "kind": "collective",
     "collective": {"type": "scatter", "source": "h0", "targets": ["h1", "h2"], "size": 1000000.0}}

Fields by type (sizes in bytes, costs in flop):

* ``scatter`` and ``broadcast``: ``source``, ``targets``, ``size``;
* ``gather``: ``sources``, ``target``, ``size``;
* ``reduce``: ``participants`` (operand order), ``target``, ``size``,
  ``task_cost`` (default 0), ``partial_sizes`` (default ``[]``) as
  ``[{"k": 0, "m": 2, "size": 8.0}, ...]`` and ``task_costs`` (default ``[]``)
  as ``[{"k": 0, "l": 1, "m": 2, "cost": 100.0}, ...]``;
* ``alltoall``: ``senders``, ``receivers`` (default: the senders), ``size``:
  one number, or a matrix (a list of rows, one per sender, one entry per receiver; 0: no message);
* ``alltomany``: ``messages`` as ``[{"src": "h0", "dst": "h1", "size": 10.0}, ...]``;
* ``allgather``: ``participants`` (block order), ``size`` (bytes of each participant's block);
* ``reducescatter``: ``participants`` (operand and block order), ``size``
  (bytes of each participant's result block), ``task_cost`` (flop to combine
  two whole vectors, default 0), ``commutative`` (default true);
* ``allreduce``: ``participants`` (operand order), ``size`` (bytes of the
  whole vector), ``task_cost`` and ``commutative`` as for ``reducescatter``;
* ``series``: ``count`` and ``of``, the collective of one instance.

Sizes accept unit strings (``"1MB"``, ``"64KiB"``) and costs flop strings
(``"1Gf"``); the writer writes plain SI numbers with ``repr``, so a collective
read back is equal to the one written. Every error is one line naming the
file and the JSON path of the bad value (``coll.json: collective.size: ...``),
including what the collective's own checks reject (an empty participant
list, a host listed twice).

To make a document without writing JSON by hand, build the collective and
save it (``save_collective(Reduce(...), "reduce.json")``), or name its kind
and its hosts with :func:`new_collective` (what ``collsched collective new``
does).

This module also holds two helpers the schedule reader shares:
:func:`located` and :func:`count_field`.

Examples
--------
>>> c = Series(Reduce(participants=["h0", "h1"], target="h0", size=8, task_cost=100), count=4)
>>> collective_from_json(collective_to_json(c)) == c
True
>>> collective_from_json('{"format": "collsched", "version": 1, "kind": "collective", '
...                      '"collective": {"type": "scatter", "source": "h0", "targets": ["h1"], "size": "1KiB"}}')
Scatter(source='h0', targets=('h1',), size=1024.0)
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Mapping, NamedTuple

import numpy as np

from .collectives import COLLECTIVE_KINDS, AllGather, AllReduce, AllToAll, AllToMany, Broadcast, Collective, Gather, \
    Reduce, ReduceScatter, Scatter, Series  # noqa: F401 (doctests)
from .errors import CollschedError, FormatError
from .fileformat import REQUIRED, Where, atomic_write, check_keys, dump_document, elements, field, load_document, \
    read_text

__all__ = ["collective_to_json", "collective_from_json", "collective_to_dict", "collective_from_dict",
           "load_collective", "save_collective", "new_collective", "NEW_KINDS", "located", "count_field"]


# --- helpers shared with the schedule reader ------------------------------------------

@contextmanager
def located(where: Where, blame: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn a :class:`~collsched.errors.CollschedError` raised by a constructor into a located FormatError.

    Parameters
    ----------
    where : Where
        The location of the object being built.
    blame : mapping
        ``message prefix -> field``: an error whose message starts with the
        prefix is reported at ``where.at(field)`` (the longest prefix wins);
        any other at ``where`` itself.

    Returns
    -------
    context manager
        Use it in a ``with`` statement around the constructor call.

    Raises
    ------
    FormatError
        In place of the constructor's error, with the same words.

    Examples
    --------
    >>> with located(Where("c.json").at("collective"), {"scatter targets": "targets"}):
    ...     Scatter(source="h0", targets=[], size=1)
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: c.json: collective.targets: scatter targets is empty (name at least one host)
    """
    try:
        yield
    except FormatError:
        raise
    except CollschedError as exc:
        blame = blame or {}
        prefix = max((p for p in blame if exc.what.startswith(p)), key=len, default=None)
        here = where if prefix is None else where.at(blame[prefix])
        raise here.error(exc.what, exc.fix) from None


def count_field(obj: Mapping[str, Any], name: str, where: Where, *, default: Any = REQUIRED, minimum: int = 1) -> int:
    """Read an integer field that must be ``>= minimum`` (a count, a denominator).

    Parameters
    ----------
    obj : mapping
        The JSON object that holds the field.
    name : str
        The field's name.
    where : Where
        The location of ``obj``.
    default : optional
        Returned when the field is absent; by default the field is required.
    minimum : int
        The smallest value accepted.

    Returns
    -------
    int
        The value (or ``default``).

    Raises
    ------
    FormatError
        If the field is missing (and required), not an integer, or below ``minimum``.

    Examples
    --------
    >>> count_field({"count": 0}, "count", Where("c.json"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: c.json: count: expected an integer >= 1, found 0
    """
    value = field(obj, name, where, type=int, default=default)
    if value is not default and value < minimum:
        raise where.at(name).error(f"expected an integer >= {minimum}, found {value}")
    return value


# --- how each field is read and written -------------------------------------------------

class _Codec(NamedTuple):
    read: Callable[[Mapping[str, Any], str, Where], Any]
    write: Callable[[Any], Any]


def _keyed(keys: tuple[str, ...], key_type: type, quantity: str, dimension: str, *, default: Any = REQUIRED,
           check: Callable[[tuple, float], object] | None = None) -> _Codec:
    """A mapping ``key tuple -> quantity`` written as a list of objects (``{"k": 0, "m": 2, "size": 8.0}``)."""

    def read(obj, name, where):
        out: dict[tuple, float] = {}
        for w, item in elements(obj, name, where, default=[] if default is not REQUIRED else REQUIRED):
            check_keys(item, w, keys + (quantity,))
            key = tuple(field(item, k, w, type=key_type) for k in keys)
            if key in out:
                raise w.error(f"{', '.join(f'{k}={v!r}' for k, v in zip(keys, key))} is given twice")
            out[key] = field(item, quantity, w, dimension=dimension, positive=True)
            if check is not None:
                with located(w):
                    check(key, out[key])
        return out

    def write(mapping):
        return [{**dict(zip(keys, key)), quantity: value} for key, value in mapping.items()]

    return _Codec(read, write)


def _read_sizes(obj, name, where):
    value = field(obj, name, where, type=(float, str, list))
    if not isinstance(value, list):
        return field(obj, name, where, dimension="size", positive=True)
    return [[field(dict(enumerate(row)), j, w, dimension="size", minimum=0) for j in range(len(row))]
            for w, row in elements(obj, name, where, type=list)]


_HOST = _Codec(lambda obj, name, where: field(obj, name, where, type=str), lambda h: h)
_HOSTS = _Codec(lambda obj, name, where: tuple(h for _, h in elements(obj, name, where, type=str)), list)
_SIZE = _Codec(lambda obj, name, where: field(obj, name, where, dimension="size", positive=True), float)
_COST = _Codec(lambda obj, name, where: field(obj, name, where, dimension="flops", minimum=0, default=0.0), float)
_SIZES = _Codec(_read_sizes, lambda s: float(s) if np.ndim(s) == 0 else np.asarray(s, dtype=float).tolist())
_RECEIVERS = _Codec(lambda obj, name, where: None if field(obj, name, where, type=(list, type(None)), default=None)
                    is None else _HOSTS.read(obj, name, where), list)
_COMMUTATIVE = _Codec(lambda obj, name, where: field(obj, name, where, type=bool, default=True), bool)
_COUNT = _Codec(lambda obj, name, where: count_field(obj, name, where), int)
_OF = _Codec(lambda obj, name, where: collective_from_dict(field(obj, name, where, type=dict), where.at(name)),
             lambda c: collective_to_dict(c))

_SPECS: dict[str, dict[str, _Codec]] = {
    "scatter": {"source": _HOST, "targets": _HOSTS, "size": _SIZE},
    "gather": {"sources": _HOSTS, "target": _HOST, "size": _SIZE},
    "broadcast": {"source": _HOST, "targets": _HOSTS, "size": _SIZE},
    "reduce": {"participants": _HOSTS, "target": _HOST, "size": _SIZE, "task_cost": _COST,
               "partial_sizes": _keyed(("k", "m"), int, "size", "size", default=()),
               "task_costs": _keyed(("k", "l", "m"), int, "cost", "flops", default=())},
    "alltoall": {"senders": _HOSTS, "receivers": _RECEIVERS, "size": _SIZES},
    "alltomany": {"messages": _keyed(("src", "dst"), str, "size", "size",
                                     check=lambda key, size: AllToMany({key: size}))},
    "allgather": {"participants": _HOSTS, "size": _SIZE},
    "reducescatter": {"participants": _HOSTS, "size": _SIZE, "task_cost": _COST, "commutative": _COMMUTATIVE},
    "allreduce": {"participants": _HOSTS, "size": _SIZE, "task_cost": _COST, "commutative": _COMMUTATIVE},
    "series": {"count": _COUNT, "of": _OF},
}
_ATTRIBUTES = {"messages": "sizes", "of": "collective"}  # JSON field -> constructor argument, where they differ
_BLAME = {"a series of series": "of"}  # constructor errors whose words do not start with "<kind> <field>"


# --- writing and reading ---------------------------------------------------------------

def collective_to_dict(c: Collective) -> dict[str, Any]:
    """The ``collective`` object of a document (see the module docstring).

    Parameters
    ----------
    c : Collective

    Returns
    -------
    dict
        JSON-ready fields, ``type`` first; sizes and costs as plain floats.

    Examples
    --------
    >>> collective_to_dict(Scatter(source="h0", targets=["h1"], size=8))
    {'type': 'scatter', 'source': 'h0', 'targets': ['h1'], 'size': 8.0}
    """
    spec = _SPECS[c.kind]
    return {"type": c.kind, **{name: codec.write(getattr(c, _ATTRIBUTES.get(name, name)))
                               for name, codec in spec.items()}}


def collective_from_dict(obj: Mapping[str, Any], where: Where | str = "<string>") -> Collective:
    """The collective described by ``obj``, a ``collective`` object located at ``where``.

    Parameters
    ----------
    obj : mapping
        A ``collective`` object (parsed JSON).
    where : Where or str
        Its location, for error messages.

    Returns
    -------
    Collective

    Raises
    ------
    FormatError
        A missing, mistyped or unknown field, or a value the collective rejects.

    Examples
    --------
    >>> collective_from_dict({"type": "reduce", "participants": [], "target": "h0", "size": 8},
    ...                      Where("coll.json").at("collective"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: coll.json: collective.participants: reduce participants is empty (name at least one host)
    """
    where = Where(where) if isinstance(where, str) else where
    kind = field(obj, "type", where, type=str, choices=tuple(COLLECTIVE_KINDS))
    spec = _SPECS[kind]
    check_keys(obj, where, ("type", *spec))
    kwargs = {_ATTRIBUTES.get(name, name): codec.read(obj, name, where) for name, codec in spec.items()}
    with located(where, {**{f"{kind} {name}": name for name in spec}, **_BLAME}):
        return COLLECTIVE_KINDS[kind](**kwargs)


def collective_to_json(c: Collective) -> str:
    """The collective as a native JSON document.

    Parameters
    ----------
    c : Collective

    Returns
    -------
    str
        The document (see the module docstring), ending with a newline.

    Examples
    --------
    >>> print(collective_to_json(Scatter(source="h0", targets=["h1", "h2"], size=1e6)), end="")
    {
     "format": "collsched",
     "version": 1,
     "kind": "collective",
     "collective": {"type": "scatter", "source": "h0", "targets": ["h1", "h2"], "size": 1000000.0}
    }
    """
    return dump_document("collective", {"collective": collective_to_dict(c)})


def collective_from_json(text: str, *, where: str = "<string>") -> Collective:
    """Read a collective document.

    Parameters
    ----------
    text : str
        The document.
    where : str
        Where it comes from (a file name), for error messages.

    Returns
    -------
    Collective

    Raises
    ------
    FormatError
        Malformed or truncated JSON, another kind of document, or a bad field,
        as one line naming ``where`` and the JSON path.

    Examples
    --------
    >>> collective_from_json('{"format": "collsched", "version": 1, "kind": "collective", '
    ...                      '"collective": {"type": "gather", "sources": ["h1"], "target": "h0", "size": -1}}',
    ...                      where="coll.json")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: coll.json: collective.size: expected a positive size, found -1
    """
    body = load_document(text, where=where, kind="collective")
    root = Where(where)
    check_keys(body, root, ("collective",))
    return collective_from_dict(field(body, "collective", root, type=dict), root.at("collective"))


def load_collective(path: str | os.PathLike) -> Collective:
    """Read a collective document from a file.

    Parameters
    ----------
    path : str or path-like
        A native collective document (``.json``).

    Returns
    -------
    Collective

    Raises
    ------
    FormatError
        The file cannot be read, or :func:`collective_from_json` rejects it.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> save_collective(Scatter(source="h0", targets=["h1"], size=8), path)
    >>> load_collective(path)
    Scatter(source='h0', targets=('h1',), size=8.0)
    """
    return collective_from_json(read_text(path), where=os.fspath(path))


def save_collective(c: Collective, path: str | os.PathLike) -> None:
    """Write a collective document to ``path`` atomically (see :func:`collsched.fileformat.atomic_write`).

    Parameters
    ----------
    c : Collective
    path : str or path-like
        The file to create or replace.

    Raises
    ------
    FormatError
        If the file cannot be written (it is then untouched).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "c.json")
    >>> save_collective(Series(Scatter(source="h0", targets=["h1"], size=8), count=2), path)
    >>> load_collective(path).count
    2
    """
    atomic_write(path, collective_to_json(c))



# --- making one from a few fields ----------------------------------------------------------

NEW_KINDS = {"scatter": ("source",), "broadcast": ("source",), "gather": ("target",),
             "reduce": ("target", "task_cost"), "alltoall": ("receivers",), "allgather": (),
             "reducescatter": ("task_cost", "commutative"), "allreduce": ("task_cost", "commutative")}
"""The kinds :func:`new_collective` makes, and the options each takes beyond hosts, size and count."""


def new_collective(kind: str, hosts, *, size, source: str | None = None, target: str | None = None,
                   task_cost=None, receivers=None, count: int | None = None,
                   commutative: bool | None = None) -> Collective:
    """A collective of one of the common kinds, from its hosts and a message size.

    Parameters
    ----------
    kind : str
        One of :data:`NEW_KINDS`: ``scatter``, ``broadcast``, ``gather``, ``reduce``, ``alltoall``, ``allgather``,
        ``reducescatter``, ``allreduce``.
        (An ``alltomany`` needs its messages one by one: build an
        :class:`~collsched.collectives.AllToMany` and :func:`save_collective` it.)
    hosts : sequence of str
        The participants: the targets of a scatter or broadcast, the sources
        of a gather, the operands of a reduce in operand order, the senders
        of an all-to-all, the participants of an all-gather, a reduce-scatter
        or an all-reduce in order.
    size : float or str
        Bytes per message (per partial result of a reduce, per block of an
        all-gather or of a reduce-scatter's result, the whole vector of an
        all-reduce); unit strings such as ``"1MB"`` too.
    source : str, optional
        Scatter, broadcast: the root (default: the first host).
    target : str, optional
        Gather, reduce: the root (default: the first host).
    task_cost : float or str, optional
        Reduce: flop per combination; reduce-scatter, all-reduce: flop to
        combine two whole vectors (default 0; ``"10Mf"`` too).
    receivers : sequence of str, optional
        All-to-all: the receivers, a subset of the hosts for all-to-some (default: every host).
    count : int, optional
        A :class:`~collsched.collectives.Series` of this many operations.
    commutative : bool, optional
        Reduce-scatter, all-reduce: False for seed 000's ordered operator (default True).

    Returns
    -------
    Collective

    Raises
    ------
    CollschedError
        An unknown kind, an option the kind does not take, or a value the collective rejects.

    Examples
    --------
    >>> c = new_collective("reduce", ["h0", "h1", "h2"], size="1MB", task_cost="10Mf", count=100)
    >>> c.count, c.collective.target, c.collective.size, c.collective.task_cost
    (100, 'h0', 1000000.0, 10000000.0)
    >>> new_collective("scatter", ["h0", "h1", "h2"], size="64KiB", source="h1")
    Scatter(source='h1', targets=('h0', 'h1', 'h2'), size=65536.0)
    >>> new_collective("allgather", ["h1", "h0"], size="1MB")
    AllGather(participants=('h1', 'h0'), size=1000000.0)
    >>> new_collective("allreduce", ["h1", "h0"], size="1MB", task_cost="1Mf", commutative=False)
    AllReduce(participants=('h1', 'h0'), size=1000000.0, task_cost=1000000.0, commutative=False)
    >>> new_collective("scatter", ["h0", "h1"], size=8, target="h1")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: a scatter takes no target (its options: source)
    """
    from .units import parse

    if kind not in NEW_KINDS:
        raise CollschedError(f"cannot make a collective of kind {kind!r}", fix=f"use one of {', '.join(NEW_KINDS)}")
    given = {"source": source, "target": target, "task_cost": task_cost, "receivers": receivers,
             "commutative": commutative}
    for name, value in given.items():
        if value is not None and name not in NEW_KINDS[kind]:
            raise CollschedError(f"a {kind} takes no {name}", fix=f"its options: {', '.join(NEW_KINDS[kind])}")
    hosts = list(hosts)
    if not hosts:
        raise CollschedError(f"{kind} hosts is empty", fix="name at least one host")
    size = parse(size, "size", where="size")
    if kind in ("scatter", "broadcast"):
        c = COLLECTIVE_KINDS[kind](source=hosts[0] if source is None else source, targets=hosts, size=size)
    elif kind == "gather":
        c = Gather(sources=hosts, target=hosts[0] if target is None else target, size=size)
    elif kind == "reduce":
        c = Reduce(participants=hosts, target=hosts[0] if target is None else target, size=size,
                   task_cost=0.0 if task_cost is None else parse(task_cost, "flops", where="task_cost"))
    elif kind == "allgather":
        c = AllGather(participants=hosts, size=size)
    elif kind in ("reducescatter", "allreduce"):
        c = COLLECTIVE_KINDS[kind](participants=hosts, size=size, commutative=True if commutative is None else commutative,
                                   task_cost=0.0 if task_cost is None else parse(task_cost, "flops", where="task_cost"))
    else:
        c = AllToAll(senders=hosts, receivers=None if receivers is None else list(receivers), size=size)
    return c if count is None else Series(c, count=count)
