"""Schedules as native JSON documents (programs: :mod:`.program_io`; GOAL: :mod:`.goal`).

**Schedule documents** (see :mod:`collsched.fileformat` for the envelope)::

    {"format": "collsched", "version": 1, "kind": "schedule",
     "schedule": {"shape": "tree", "algorithm": "binomial", "params": {}, "status": "feasible", "message": "",
                  "bound": null, "root": "h0", "children": {"h0": ["h1", "h2"], "h2": ["h3"]}, "segments": 1,
                  "clusters": null, "intra": {}}}

Fields of every shape: ``shape`` (``steps`` | ``orders`` | ``tree`` |
``periodic`` | ``forest``), ``algorithm``, ``params`` (an object of JSON values),
``status`` (``optimal``, ``feasible``, ...), ``message``, ``collective`` (null, or
the collective object the schedule answers, as in a collective document) and ``bound``: null or
``{"value": 2.5, "metric": "makespan" | "throughput", "name": "..."}``, whose
value is a number or, for an exact bound, a fraction string. Then per shape:

* ``steps``: ``denominator``, ``durations`` (null, or seconds per step) and
  ``steps``, a list of steps, each a list of transfers
  ``[src, dst, inst, part, values]`` with trailing defaults left out:
  ``["h0", "h1"]`` is the direct message of instance 0, ``part`` is
  ``[start, end]`` or null, ``values`` a list of values;
* ``orders``: ``orders``, ``{sender: [dst or [dst, inst], ...]}``;
* ``tree``: ``root``, ``children`` (``{node: [child, ...]}`` in service
  order), ``segments``, ``clusters`` (null or lists of hosts) and ``intra``
  (``{coordinator: algorithm}``);
* ``periodic``: ``throughput`` and ``period`` (fractions), ``ops_per_period``,
  ``denominator``, ``activities`` (``{name: fraction}``), ``slots``, ``init``
  and ``cleanup`` (lists of slots) and ``trees`` (``[{"weight": fraction,
  "tree": <a tree schedule object>}]``), ``ports`` (``"one"``, the
  default, or ``"multi"``);
* ``forest``: ``kind`` (``allgather`` | ``reducescatter`` | ``allreduce``),
  ``participants``, ``throughput`` and ``rate_bound`` (fractions, bytes/s
  of each root's stream), ``chunks``, ``window``, ``messages`` (``"round"``
  or ``"unit"``, the default when absent) and ``trees``, a list of
  ``{"root": host, "weight": fraction, "arcs": [[u, v], ...]}`` and, for
  an all-reduce whose reduce-scatter phase has its own in-tree, ``"up":
  [[child, parent], ...]``. A slot is ``{"duration": fraction,
  "transfers": [{"src", "dst", "size", "pieces"}], "tasks": [{"node",
  "cost", "inputs", "output"}]}``.

A value is ``[kind, inst, a, b]`` (kind 0: the block ``m[a→b]@inst``, ``b =
-1`` for every host; kind 1: the partial result ``v[a..b]@inst``), a piece
``[kind, inst, a, b, start, end]``. Fractions are exact strings ``"p/q"``
(``"3"`` and integers are read too, floats never).

Readers raise :class:`~collsched.errors.FormatError` as one line naming the
file and the JSON path; writers write floats with ``repr`` and fractions
exactly, so what is read back equals what was written.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.Reduce(participants=p.hosts, target="h0", size=8, task_cost=100)
>>> s = cs.plan(p, c, algorithm="binomial")
>>> schedule_from_json(schedule_to_json(s)) == s
True
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from typing import Any, Mapping


from ..collective_io import collective_from_dict, collective_to_dict, count_field, located
from ..fileformat import Where, atomic_write, check_keys, dump_document, elements, field, load_document, read_text
from .program import Program
from .base import METRICS, Bound, Schedule, Status
from .forest import ForestSchedule, ForestTree
from .orders import OrderSchedule
from .periodic import PeriodicSchedule, PeriodicTask, PeriodicTransfer, Slot
from .steps import StepSchedule, Transfer
from .trees import TreeSchedule
from ._json import _NONE, _cells, _check_params, _frac, _fraction, _piece, _pieces, _read_frac, _read_piece, _strings
from .goal import program_to_goal, save_goal
from .program_io import (load_program, program_from_dict, program_from_json, program_to_dict, program_to_json, 
                         save_program)

__all__ = ["schedule_to_json", "schedule_from_json", "load_schedule", "save_schedule", "schedule_to_dict",
           "schedule_from_dict", "load_program_or_schedule",
           # re-exported, so that one module serves every schedule file
           "program_to_json", "program_from_json", "load_program", "save_program", "program_to_dict",
           "program_from_dict", "program_to_goal", "save_goal"]


# --- the four shapes: each a writer and a reader of its own fields ---------------------

def _write_steps(s: StepSchedule) -> dict:
    def row(t: Transfer) -> list:  # [src, dst, inst, part, values] less trailing defaults
        cells = [t.src, t.dst, int(t.inst), None if t.part is None else list(t.part),
                 None if t.values is None else [_piece(v) for v in t.values]]
        while len(cells) > 2 and cells[-1] == (0 if len(cells) == 3 else None):
            cells.pop()
        return cells

    return {"denominator": s.denominator, "durations": None if s.durations is None else list(s.durations),
            "steps": [[row(t) for t in step] for step in s.steps]}


def _read_transfer(row: Any, where: Where) -> Transfer:
    cells = _cells(row, where, range(2, 6), "a transfer [src, dst, inst, part, values]")
    part = field(cells, 3, where, type=(list, _NONE), default=None)
    if part is not None:
        part = tuple(field(_cells(part, where.at(3), range(2, 3), "[start, end]"), j, where.at(3), type=int)
                     for j in (0, 1))
    values = field(cells, 4, where, type=(list, _NONE), default=None)
    values = None if values is None else _pieces(cells, 4, where, (4,))
    with located(where):
        return Transfer(field(cells, 0, where, type=str), field(cells, 1, where, type=str),
                        field(cells, 2, where, type=int, default=0), part, values)


def _read_steps(obj, where) -> dict:
    durations = field(obj, "durations", where, type=(list, _NONE), default=None)
    if durations is not None:
        durations = [field(dict(enumerate(durations)), j, where.at("durations"), dimension="time", minimum=0)
                     for j in range(len(durations))]
    return {"denominator": count_field(obj, "denominator", where, default=1), "durations": durations,
            "steps": [[_read_transfer(t, w.at(j)) for j, t in enumerate(step)]
                      for w, step in elements(obj, "steps", where, type=list)]}


def _write_orders(s: OrderSchedule) -> dict:
    return {"orders": {k: [d if isinstance(d, str) else [d[0], int(d[1])] for d in v] for k, v in s.orders.items()}}


def _read_orders(obj, where) -> dict:
    orders, here = {}, where.at("orders")
    given = field(obj, "orders", where, type=dict)

    def item(d, w):  # "dst" or ["dst", inst]
        return d if isinstance(d, str) else \
            tuple(field(_cells(d, w, range(2, 3), "[dst, inst]"), j, w, type=t) for j, t in ((0, str), (1, int)))

    for sender in given:
        orders[sender] = [item(d, w) for w, d in elements(given, sender, here, type=(str, list))]
        with located(here.at(sender)):
            OrderSchedule(orders={sender: orders[sender]})  # the shape's own checks, located at this sender
    return {"orders": orders}


def _write_tree(s: TreeSchedule) -> dict:
    return {"root": s.root, "children": {k: list(v) for k, v in s.children.items()}, "segments": s.segments,
            "clusters": None if s.clusters is None else [list(c) for c in s.clusters], "intra": dict(s.intra)}


def _read_tree(obj, where) -> dict:
    children, intra = (field(obj, name, where, type=dict, default={}) for name in ("children", "intra"))
    clusters = field(obj, "clusters", where, type=(list, _NONE), default=None)
    return {"root": field(obj, "root", where, type=str),
            "children": {k: _strings(children, k, where.at("children")) for k in children},
            "segments": count_field(obj, "segments", where, default=1),
            "clusters": None if clusters is None else
            [_strings(dict(enumerate(clusters)), j, where.at("clusters")) for j in range(len(clusters))],
            "intra": {k: field(intra, k, where.at("intra"), type=str) for k in intra}}


def _write_slot(s: Slot) -> dict:
    return {"duration": _frac(s.duration),
            "transfers": [{"src": t.src, "dst": t.dst, "size": float(t.size), "pieces": [_piece(x) for x in t.pieces]}
                          for t in s.transfers],
            "tasks": [{"node": t.node, "cost": float(t.cost), "inputs": [_piece(x) for x in t.inputs],
                       "output": _piece(t.output)} for t in s.tasks]}


def _read_slot(obj, where) -> Slot:
    check_keys(obj, where, ("duration", "transfers", "tasks"))
    transfers, tasks = [], []
    for w, t in elements(obj, "transfers", where, default=[]):
        check_keys(t, w, ("src", "dst", "size", "pieces"))
        transfers.append(PeriodicTransfer(field(t, "src", w, type=str), field(t, "dst", w, type=str),
                                          _pieces(t, "pieces", w), field(t, "size", w, dimension="size", minimum=0)))
    for w, t in elements(obj, "tasks", where, default=[]):
        check_keys(t, w, ("node", "cost", "inputs", "output"))
        tasks.append(PeriodicTask(field(t, "node", w, type=str), _pieces(t, "inputs", w),
                                  _read_piece(field(t, "output", w, type=list), w.at("output")),
                                  field(t, "cost", w, dimension="flops", minimum=0)))
    return Slot(_fraction(obj, "duration", where), tuple(transfers), tuple(tasks))


def _write_periodic(s: PeriodicSchedule) -> dict:
    return {"throughput": _frac(s.throughput), "period": _frac(s.period), "ops_per_period": s.ops_per_period,
            "denominator": s.denominator, "activities": {k: _frac(v) for k, v in s.activities.items()},
            **{name: [_write_slot(x) for x in getattr(s, name)] for name in ("slots", "init", "cleanup")},
            "trees": [{"weight": _frac(w), "tree": schedule_to_dict(t)} for w, t in s.trees], "ports": s.ports}


def _read_periodic(obj, where) -> dict:
    activities = field(obj, "activities", where, type=dict, default={})
    trees = []
    for w, t in elements(obj, "trees", where, default=[]):
        check_keys(t, w, ("weight", "tree"))
        tree = schedule_from_dict(field(t, "tree", w, type=dict), w.at("tree"), shapes=("tree",))
        trees.append((_fraction(t, "weight", w), tree))
    return {**{name: _fraction(obj, name, where) for name in ("throughput", "period")},
            **{name: count_field(obj, name, where, default=1) for name in ("ops_per_period", "denominator")},
            "activities": {k: _fraction(activities, k, where.at("activities")) for k in activities},
            **{name: tuple(_read_slot(x, w) for w, x in elements(obj, name, where, default=[]))
               for name in ("slots", "init", "cleanup")},
            "trees": tuple(trees), "ports": field(obj, "ports", where, type=str, default="one")}


def _write_forest(s: ForestSchedule) -> dict:
    return {"kind": s.kind, "participants": list(s.participants), "throughput": _frac(s.throughput),
            "rate_bound": _frac(s.rate_bound), "chunks": s.chunks, "window": s.window, "messages": s.messages,
            "trees": [{"root": t.root, "weight": _frac(t.weight), "arcs": [list(a) for a in t.arcs],
                       **({} if t.up is None else {"up": [list(a) for a in t.up]})} for t in s.trees]}


def _read_forest(obj, where) -> dict:
    trees = []
    for w, t in elements(obj, "trees", where, default=[]):
        check_keys(t, w, ("root", "weight", "arcs", "up"))
        arcs, up = (tuple(tuple(field(_cells(a, v, range(2, 3), "an arc [u, v]"), j, v, type=str) for j in (0, 1))
                          for v, a in elements(t, name, w, type=list, default=[])) for name in ("arcs", "up"))
        trees.append(ForestTree(field(t, "root", w, type=str), _fraction(t, "weight", w), arcs,
                                up if "up" in t else None))
    return {"kind": field(obj, "kind", where, type=str, default="allgather"),
            "participants": _strings(obj, "participants", where) if "participants" in obj else (),
            **{name: _fraction(obj, name, where, default="0") for name in ("throughput", "rate_bound")},
            **{name: count_field(obj, name, where, default=d) for name, d in (("chunks", 1), ("window", 2))},
            "messages": field(obj, "messages", where, type=str, default="unit"), "trees": tuple(trees)}


_SHAPES = {  # shape -> (class, writer, reader, constructor message prefix -> field it blames)
    "steps": (StepSchedule, _write_steps, _read_steps, {"step durations": "durations"}),
    "orders": (OrderSchedule, _write_orders, _read_orders, {}),
    "tree": (TreeSchedule, _write_tree, _read_tree, {"tree node": "children"}),
    "periodic": (PeriodicSchedule, _write_periodic, _read_periodic, {"the slots of one period": "slots",
                                                                    "periodic schedule has ports": "ports"}),
    "forest": (ForestSchedule, _write_forest, _read_forest, {"forest tree": "trees", "forest participant": "trees"}),
}
_COMMON = ("shape", "algorithm", "params", "status", "message", "bound", "collective")
_SHAPE_FIELDS = {shape: tuple(write(cls())) for shape, (cls, write, _, _) in _SHAPES.items()}  # names, from defaults


# --- schedules -----------------------------------------------------------------------

def schedule_to_dict(s: Schedule) -> dict[str, Any]:
    """The ``schedule`` object of a document (see the module docstring).

    Parameters
    ----------
    s : Schedule
        Any of the four shapes.

    Returns
    -------
    dict
        JSON-ready fields: ``shape``, the common fields, then the shape's own.

    Raises
    ------
    FormatError
        If a param has no exact JSON form (a tuple, a numpy integer, ...).

    Examples
    --------
    >>> schedule_to_dict(OrderSchedule(orders={"a": ("b", ("c", 1))}, params={"seed": 3}))["orders"]
    {'a': ['b', ['c', 1]]}
    """
    _check_params(dict(s.params), "params")
    b = s.bound
    bound = None if b is None else {"value": _frac(b.value) if isinstance(b.value, Fraction) else b.value,
                                    "metric": b.metric, "name": b.name}
    collective = None if s.collective is None else collective_to_dict(s.collective)
    return {"shape": s.shape, "algorithm": s.algorithm, "params": dict(s.params), "status": s.status.value,
            "message": s.message, "bound": bound, "collective": collective, **_SHAPES[s.shape][1](s)}


def schedule_from_dict(obj: Mapping[str, Any], where: Where | str = "<string>", *,
                       shapes: tuple[str, ...] = tuple(_SHAPES)) -> Schedule:
    """The schedule described by ``obj``, a ``schedule`` object located at ``where``.

    Parameters
    ----------
    obj : mapping
        A ``schedule`` object (parsed JSON).
    where : Where or str
        Its location, for error messages.
    shapes : tuple of str
        The shapes accepted (default: all four).

    Returns
    -------
    Schedule
        Of the class its ``shape`` names.

    Raises
    ------
    FormatError
        A missing, mistyped or unknown field, or a value the shape rejects.

    Examples
    --------
    >>> schedule_from_dict({"shape": "tree", "root": "a", "children": {"a": ["b"], "c": ["b"]}}, Where("s.json"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: s.json: children: tree node 'b' has two parents ('a' and 'c')
    """
    where = Where(where) if isinstance(where, str) else where
    shape = field(obj, "shape", where, type=str, choices=shapes)
    cls, _, reader, blame = _SHAPES[shape]
    check_keys(obj, where, _COMMON + _SHAPE_FIELDS[shape])
    bound = field(obj, "bound", where, type=(dict, _NONE), default=None)
    if bound is not None:
        w = where.at("bound")
        check_keys(bound, w, ("value", "metric", "name"))
        value = field(bound, "value", w, type=(float, str))
        bound = Bound(_read_frac(value, w.at("value")) if isinstance(value, str) else value,
                      field(bound, "metric", w, type=str, choices=METRICS),
                      field(bound, "name", w, type=str, default=""))
    common = {"algorithm": field(obj, "algorithm", where, type=str, default=""),
              "params": field(obj, "params", where, type=dict, default={}), "bound": bound,
              "status": Status(field(obj, "status", where, type=str, choices=[x.value for x in Status],
                                     default="feasible")),
              "message": field(obj, "message", where, type=str, default=""),
              "collective": _collective(obj, where)}
    kwargs = reader(obj, where)
    with located(where, blame):
        return cls(**common, **kwargs)


def _collective(obj: Mapping[str, Any], where: Where):
    """The optional ``collective`` a schedule answers (null when unknown)."""
    body = field(obj, "collective", where, type=(dict, _NONE), default=None)
    return None if body is None else collective_from_dict(body, where.at("collective"))


def schedule_to_json(s: Schedule) -> str:
    """The schedule as a native JSON document (see the module docstring).

    Parameters
    ----------
    s : Schedule

    Returns
    -------
    str
        The document, ending with a newline.

    Examples
    --------
    >>> print(schedule_to_json(TreeSchedule(root="h0", children={"h0": ("h1",)}, algorithm="linear")), end="")
    {
     "format": "collsched",
     "version": 1,
     "kind": "schedule",
     "schedule": {
      "shape": "tree",
      "algorithm": "linear",
      "params": {},
      "status": "feasible",
      "message": "",
      "bound": null,
      "collective": null,
      "root": "h0",
      "children": {"h0": ["h1"]},
      "segments": 1,
      "clusters": null,
      "intra": {}
     }
    }
    """
    return dump_document("schedule", {"schedule": schedule_to_dict(s)})


def schedule_from_json(text: str, *, where: str = "<string>") -> Schedule:
    """Read a schedule document; errors are one line naming ``where`` and the JSON path.

    Parameters
    ----------
    text : str
        The document.
    where : str
        Where it comes from (a file name), for error messages.

    Returns
    -------
    Schedule

    Raises
    ------
    FormatError
        Malformed JSON, another kind of document, or a bad field.

    Examples
    --------
    >>> schedule_from_json('{"format": "collsched", "version": 1, "kind": "schedule", "schedule": '
    ...                    '{"shape": "periodic", "throughput": "1/0", "period": "1/2"}}', where="s.json")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: s.json: schedule.throughput: cannot read '1/0' as an exact fraction (write 'p/q' with integers, e.g. '3/4')
    """
    body = load_document(text, where=where, kind="schedule")
    check_keys(body, Where(where), ("schedule",))
    return schedule_from_dict(field(body, "schedule", Where(where), type=dict), Where(where).at("schedule"))


def load_schedule(path: str | os.PathLike) -> Schedule:
    """Read a schedule document from a file (see :func:`schedule_from_json`).

    Parameters
    ----------
    path : str or path-like
        A native schedule document.

    Returns
    -------
    Schedule

    Raises
    ------
    FormatError
        If the file cannot be read or is not a valid schedule document.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.json")
    >>> save_schedule(OrderSchedule(orders={"a": ("b",)}), path)
    >>> load_schedule(path).n_transfers
    1
    """
    return schedule_from_json(read_text(path), where=os.fspath(path))


def save_schedule(s: Schedule, path: str | os.PathLike) -> None:
    """Write a schedule document to ``path`` atomically.

    Parameters
    ----------
    s : Schedule
    path : str or path-like
        The file to create or replace.

    Raises
    ------
    FormatError
        If the file cannot be written (it is then untouched), or a param has no exact JSON form.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.json")
    >>> save_schedule(StepSchedule.from_pairs([[("a", "b")]]), path)
    >>> load_schedule(path).steps
    ((Transfer(src='a', dst='b', inst=0, part=None, values=None),),)
    """
    atomic_write(path, schedule_to_json(s))


def load_program_or_schedule(path: str | os.PathLike) -> Schedule | Program:
    """Read a schedule or a program file, whichever it holds.

    Parameters
    ----------
    path : str or path-like
        A native schedule or program document.

    Returns
    -------
    Schedule or Program
        Whichever the document's ``kind`` says.

    Raises
    ------
    FormatError
        If the file holds neither (or is malformed).

    Examples
    --------
    >>> import os, tempfile
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1)
    >>> s = cs.plan(p, c, algorithm="linear")
    >>> folder = tempfile.mkdtemp()
    >>> save_schedule(s, os.path.join(folder, "s.json")); save_program(s.lower(p, c), os.path.join(folder, "p.json"))
    >>> type(load_program_or_schedule(os.path.join(folder, "s.json"))).__name__
    'TreeSchedule'
    >>> type(load_program_or_schedule(os.path.join(folder, "p.json"))).__name__
    'Program'
    """
    text = read_text(path)
    try:
        kind = json.loads(text).get("kind")
    except (json.JSONDecodeError, AttributeError):
        kind = None  # let the schedule reader say what is wrong
    if kind == "program":
        return program_from_json(text, where=os.fspath(path))
    return schedule_from_json(text, where=os.fspath(path))
