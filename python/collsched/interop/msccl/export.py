"""A collsched schedule or Program as an MSCCL XML file the runtime loads, and the ``<msccl_algos>`` list.

How a Program becomes MSCCL (:func:`to_xml`):

* GPUs: GPU ``g`` is the collective's ``hosts[g]`` (its participants in
  order; a broadcast's source first), wherever they are in the platform;
* chunks: ``nchunksperloop`` = ``N · d`` for an allgather or alltoall,
  ``d`` for a broadcast or reduce, ``d`` scaled to a multiple of ``N`` for a
  reducescatter or allreduce, where ``d`` is the coarsest unit that cuts
  every piece where the Program does (its denominator over the gcd of the
  pieces' bounds); a piece is that many chunks
  (:mod:`~collsched.interop.msccl.layout`); more than
  :data:`~collsched.interop.msccl.xml_read.MAX_CHUNKS` per loop, or chunks
  that are not whole bytes at ``minBytes``, raise
  :class:`~collsched.interop.msccl.lint.ChunkGridError` (a forest's shares
  are rounded onto a coarser grid by
  :func:`fit_chunks`);
* buffers: an allgather is written in place (each block is already where it
  ends); the others out of place (the input is never written; an
  alltoall's block to itself and a broadcast root's data are copied to the
  output by ``cpy`` steps); a value a GPU holds that is not one of its
  results goes to a fresh scratch chunk, and no chunk is ever reused for
  another value (so no two thread blocks race on a chunk);
* signals: the Program's messages without data are not written (the
  runtime has no such message: a ``cnt="0"`` step moves nothing and waits
  for no peer), nor its computations without data
  (:func:`~collsched.interop.msccl.threadblocks.drop_signals`);
* thread blocks, channels and step dependencies:
  :func:`~collsched.interop.msccl.threadblocks.place`, within the runtime's
  limits (:mod:`~collsched.interop.msccl.lint`), with no deadlock; where
  running the messages at once would exceed the limits, the messages the
  Program sends together between two GPUs are merged first
  (:func:`~collsched.interop.msccl.merge.merge_concurrent`), and only then
  serialised on fewer channels; what still exceeds them raises
  :class:`~collsched.interop.msccl.lint.LimitError`, which for a forest
  schedule names the chunk count that fits (:func:`fit_chunks`);
* operations: a send is an ``s`` step (after ``cpy`` steps if its chunks are
  not contiguous), a receive an ``r`` step (then ``cpy`` steps if its
  chunks go to places that are not contiguous), a reduction ``cpy`` of its
  first input then ``re`` of each other input (the runtime computes
  ``dst = src ⊕ dst``: a reduce's operands are then combined in another
  order than collsched's, which only matters for an operator that is not
  commutative, and MSCCL runs only sum, product, min and max); a dependency
  on another thread block is ``depid``/``deps``, one per step (a ``nop``
  before the step carries each other one, as msccl-tools writes them), and
  the step waited for has ``hasdep="1"``;
* ``minBytes``/``maxBytes``: the window given, by default ``S`` and
  ``S + 1`` where ``S`` is the size the schedule was planned for as the
  runtime counts it (:func:`call_bytes`): microsoft/msccl uses a file for
  ``minBytes <= nBytes < maxBytes`` (``src/graph/tuning.cc:369``), the
  executor for ``minBytes <= nBytes <= maxBytes`` with 0 meaning no limit
  (msccl-executor-nccl ``src/misc/msccl/msccl_lifecycle.cc:335``), so both
  use it at ``S``; ``ngpus``, ``coll`` (``reducescatter``, as msccl-tools
  and the executor name it), ``proto`` set.

The file reads back (:func:`~collsched.interop.msccl.read`) into a Program
that validates; its receives, sends and computations are those of the
Program without signals (plus ``cpy``/``nop`` of cost 0), and the tests
check that it takes the same time under ``Fluid`` for every registered
algorithm on three GPU fabrics.

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.star(2)
>>> c = cs.AllGather(participants=g.hosts, size=2**20)
>>> print(to_xml(g, c, cs.plan(g, c, algorithm="ring"), name="ring2").splitlines()[0])
<algo name="ring2" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1" outofplace="0" minBytes="2097152" maxBytes="2097153">
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ...algorithms.gpu.plan import CHUNK_CHOICES
from ...errors import CollschedError, FormatError
from ...schedules import ForestSchedule
from ...schedules.program import RECV, SEND
from ...schedules.validate import lower_any
from .fit import GRIDS, round_shares
from .layout import ROOTED, Layout
from .lint import MAX_COUNT, MAX_STEPS, ChunkGridError, LimitError, chunk_bytes_finding
from .merge import merge_concurrent
from .split import chunk_grid, split_messages
from .threadblocks import drop_signals, in_blocks, place
from .xml_read import MAX_CHUNKS

__all__ = ["to_xml", "write", "write_registration", "call_bytes", "fit_chunks", "search", "export_as_is"]

_KINDS = {"allgather": "allgather", "reducescatter": "reducescatter", "allreduce": "allreduce", "alltoall": "alltoall",
          "broadcast": "broadcast", "reduce": "reduce"}


def call_bytes(collective) -> float:
    """The bytes the runtime compares with ``minBytes``/``maxBytes`` for ``collective`` (see the module docstring).

    Examples
    --------
    >>> import collsched as cs
    >>> call_bytes(cs.AllGather(participants=["h0", "h1"], size=8)), call_bytes(cs.AllReduce(participants=["h0", "h1"], size=8))
    (16.0, 8.0)
    >>> call_bytes(cs.Broadcast(source="h1", targets=["h0", "h2"], size=8))
    8.0
    """
    n = len(collective.hosts)
    if collective.kind in ("allreduce", "broadcast", "reduce"):
        return float(collective.size)
    return float(n * np.max(collective.size))


class _Gpu:
    """The thread blocks and buffers of one GPU being written."""

    def __init__(self, g: int, lay: Layout):
        self.g = g
        self.tbs: dict[tuple[int, int, int], list[dict]] = {}
        self.slot_of: dict = {v: s for s, v in lay.initial(g).items()}
        self.target = {v: s for s, v in lay.expected(g).items()}
        self.scratch = 0
        self.outbox: dict = {}   # token -> (message it is first sent in, its place there, the message's chunks)
        self.regions: dict[int, list] = {}   # message -> the scratch chunks reserved for it, in order

    def fresh(self, count: int) -> list[tuple[str, int]]:
        out = [("s", self.scratch + x) for x in range(count)]
        self.scratch += count
        return out

    def place(self, tokens) -> list[tuple[str, int]]:
        """Where arriving tokens are kept: their result slot, the slot already holding them, their place in the
        scratch reserved for the first message that sends them on (so that it goes without gathering), or fresh
        scratch."""
        out = []
        for t in tokens:
            slot = self.target.get(t) or self.slot_of.get(t)
            if slot is None and t in self.outbox:
                msg, x, size = self.outbox[t]
                if msg not in self.regions:
                    self.regions[msg] = self.fresh(size)
                slot = self.regions[msg][x]
            out.append(slot if slot is not None else self.fresh(1)[0])
        return out


def _runs(src: list, dst: list):
    """``(srcbuf, srcoff, dstbuf, dstoff, cnt)``: maximal runs (of at most ``MAX_COUNT``) contiguous on both sides."""
    x = 0
    while x < len(src):
        y = x + 1
        while y < len(src) and y - x < MAX_COUNT and src[y] == (src[x][0], src[x][1] + y - x) \
                and dst[y] == (dst[x][0], dst[x][1] + y - x):
            y += 1
        yield src[x][0], src[x][1], dst[x][0], dst[x][1], y - x
        x = y


def _contiguous(slots: list) -> bool:
    return all(s == (slots[0][0], slots[0][1] + k) for k, s in enumerate(slots))


def to_xml(platform, collective, schedule_or_program, *, name: str = "collsched", proto: str = "Simple",
           min_bytes: int | None = None, max_bytes: int | None = None) -> str:
    """The MSCCL XML of a schedule (lowered) or Program of any collective :data:`_KINDS` names.

    Parameters
    ----------
    platform : Platform
    collective : AllGather, ReduceScatter, AllReduce, AllToAll, Broadcast or Reduce
        GPU ``g`` of the file is ``collective.hosts[g]`` (an all-to-all:
        receivers = senders, one size; a reduce: its target is a participant).
    schedule_or_program : Schedule or Program
    name : str
        The ``name`` attribute.
    proto : {"Simple", "LL", "LL128"}
    min_bytes, max_bytes : int, optional
        The size window (default: :func:`call_bytes` ``S`` of ``collective``
        and ``S + 1``, see the module docstring).

    Returns
    -------
    str

    Raises
    ------
    CollschedError
        Another collective kind, a Program that uses a host that is not a
        participant, a bad window.
    ChunkGridError
        More than :data:`~collsched.interop.msccl.xml_read.MAX_CHUNKS`
        chunks per loop, or chunks that are not whole bytes at ``min_bytes``
        (:func:`~collsched.interop.msccl.lint.chunk_bytes_finding`); for a
        forest, :func:`fit_chunks` rounds its
        shares onto a grid that fits.
    LimitError
        A step of more than :data:`~collsched.interop.msccl.lint.MAX_COUNT`
        chunks, more thread blocks, channels or steps than the runtime runs,
        or more chunks than collsched writes; for a forest schedule in more
        than one chunk, the message says in how many chunks (of
        :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES`, fewer) it fits,
        which :func:`fit_chunks` gives.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.dgx2(1)
    >>> c = cs.Scatter(source="h0", targets=g.hosts[:2], size=8)
    >>> to_xml(g, c, cs.plan(g, c, algorithm="linear"))
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: collsched writes allgather, reducescatter, allreduce, alltoall, broadcast and reduce as MSCCL, not scatter (export one of those)
    """
    options = dict(name=name, proto=proto, min_bytes=min_bytes, max_bytes=max_bytes)
    return export_as_is(platform, collective, schedule_or_program, options).text


def export_as_is(platform, collective, schedule_or_program, options: dict, *, lowered=None):
    """``(text, program, packing)`` of :func:`to_xml`: the file, the Program it runs and what the packing changed.

    ``lowered``: the Program of ``schedule_or_program`` when the caller has it (not lowered again).

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(2)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> export_as_is(g, c, cs.plan(g, c, algorithm="direct"), {}).packing
    ()
    """
    if not isinstance(schedule_or_program, ForestSchedule) or schedule_or_program.chunks == 1:
        return _to_xml(platform, collective, schedule_or_program if lowered is None else lowered, **options)
    fitted, out, err = search(platform, collective, schedule_or_program, options, grids=False, lowered=lowered)
    if err is None:
        return out
    n = schedule_or_program.chunks
    if fitted is None:
        raise type(err)(f"{err.what}; the forest does not fit in fewer chunks either", fix=err.fix)
    raise type(err)(f"{err.what}; the forest in {n} chunks does not fit, in {fitted.chunks} it does",
                     fix=f"plan the forest with chunks={fitted.chunks}, or take msccl.ready() or msccl.fit_chunks() "
                         "(collsched msccl export without --strict)")


class _Out(NamedTuple):
    """What :func:`_to_xml` makes: the file, the Program it runs, what the packing changed (phrases), and the Program
    before the thread blocks' order was added (:func:`~collsched.interop.msccl.threadblocks.in_blocks`)."""

    text: str
    program: object
    packing: tuple
    unordered: object


def _exports(platform, collective, schedule, options: dict, serialise: bool = True):
    """``(file, Program it runs)`` of ``schedule`` (:func:`to_xml` as it is), or the LimitError."""
    try:
        return _to_xml(platform, collective, schedule, **options, serialise=serialise)
    except LimitError as err:
        return err


def search(platform, collective, schedule: ForestSchedule, options: dict, *, grids: bool, lowered=None):
    """``(variant, out, error)``: the first variant of ``schedule`` that exports (:func:`fit_chunks`) and ``out``,
    its file, the Program the file runs and what the packing changed (:class:`_Out`), or None and None;
    ``error`` the LimitError of ``schedule`` itself (None when it fits).

    ``grids`` False: fewer chunks only, shares as they are (what
    :func:`to_xml` names in its error). ``lowered``: ``schedule``'s Program
    when the caller has it (not lowered again; the variants are lowered).

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(2)
    >>> c = cs.ReduceScatter(participants=g.hosts, size=2**20)
    >>> s = cs.plan(g, c, algorithm="forest", chunks=4)
    >>> fitted, out, error = search(g, c, s, {}, grids=False)
    >>> fitted is s, error, out.text.startswith("<algo ")
    (True, None, True)
    """
    first = _exports(platform, collective, schedule if lowered is None else lowered, options)
    if isinstance(first, tuple):
        return schedule, first, None
    grid_errors: dict = {}   # a variant's ChunkGridError does not depend on serialising: found once

    def attempt(key, variant, serialise):
        if key in grid_errors:
            return grid_errors[key]
        result = first if key == (schedule.chunks, None) and (serialise or isinstance(first, ChunkGridError)) \
            else _exports(platform, collective, variant, options, serialise)
        if isinstance(result, ChunkGridError):
            grid_errors[key] = result
        return result

    counts = [schedule.chunks] + sorted((k for k in CHUNK_CHOICES if k < schedule.chunks), reverse=True)
    for serialise in ((False, True) if grids else (True,)):
        for n in counts:
            fewer = schedule if n == schedule.chunks else dataclasses.replace(schedule, chunks=n)
            result = attempt((n, None), fewer, serialise)
            if isinstance(result, tuple):
                return fewer, result, first
            if not grids or not isinstance(result, ChunkGridError):
                continue
            for k in GRIDS:
                rounded = round_shares(fewer, k)
                result = attempt((n, k if rounded is not fewer else None), rounded, serialise)
                if isinstance(result, tuple):
                    return rounded, result, first
                if not isinstance(result, ChunkGridError):
                    break
    return None, None, first


def fit_chunks(platform, collective, schedule, **options):
    """A forest schedule whose MSCCL export stays within the runtime's limits: itself, in fewer chunks, or coarser.

    The variants tried (:mod:`~collsched.interop.msccl.fit`): the schedule's own chunk count,
    then those of :data:`~collsched.algorithms.gpu.plan.CHUNK_CHOICES` below
    it, largest first; for each, when its chunk grid is what does not fit,
    its shares rounded (:func:`~collsched.interop.msccl.fit.round_shares`) to the grids of
    :data:`~collsched.interop.msccl.fit.GRIDS`. Fewer chunks and
    rounded shares change the schedule's time (``docs/msccl.md`` gives
    measured figures): simulate the one returned.

    Parameters
    ----------
    platform, collective
        As :func:`to_xml`.
    schedule : ForestSchedule
    **options
        ``name``, ``proto``, ``min_bytes``, ``max_bytes`` of :func:`to_xml`.

    Returns
    -------
    ForestSchedule
        ``schedule`` itself when its export fits.

    Raises
    ------
    CollschedError
        Not a forest schedule; no variant fits (the reason of the
        schedule's own), or :func:`to_xml`'s other errors.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=g.hosts, size=2**20)
    >>> s = cs.plan(g, c, algorithm="forest", chunks=2)
    >>> fit_chunks(g, c, s) is s
    True
    """
    if not isinstance(schedule, ForestSchedule):
        raise CollschedError(f"fit_chunks re-lowers forest schedules, not {type(schedule).__name__}",
                             fix="export the schedule with to_xml")
    fitted, _, err = search(platform, collective, schedule, options, grids=True)
    if fitted is not None:
        return fitted
    raise LimitError(f"{err.what}; the forest does not fit in fewer chunks or with its shares on a grid of 1/"
                     f"{GRIDS[0]} .. 1/1 either", fix=err.fix)


def check_request(collective, proto: str = "Simple") -> None:
    """Raise CollschedError, before any work, when MSCCL cannot express ``collective`` or ``proto`` is not its own.

    Examples
    --------
    >>> import collsched as cs
    >>> check_request(cs.AllGather(participants=["h0", "h1"], size=8), proto="LL")
    >>> check_request(cs.AllGather(participants=["h0", "h1"], size=8), proto="fast")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: proto 'fast' (give Simple, LL or LL128)
    """
    kind = collective.kind
    if kind not in _KINDS:
        raise CollschedError(f"collsched writes {', '.join(list(_KINDS)[:-1])} and {list(_KINDS)[-1]} as MSCCL, "
                             f"not {kind}", fix="export one of those")
    if kind == "alltoall" and (collective.receivers != collective.senders or np.ndim(collective.size) != 0):
        raise CollschedError("MSCCL's alltoall sends one size from every GPU to every GPU",
                             fix="export an all-to-all with receivers = senders and one size")
    if kind == "reduce" and (collective.target not in collective.participants or collective.partial_sizes
                             or collective.task_costs):
        raise CollschedError("MSCCL's reduce has its root among the GPUs and one size",
                             fix="export a reduce whose target is a participant, without partial_sizes or task_costs")
    if proto not in ("Simple", "LL", "LL128"):
        raise CollschedError(f"proto {proto!r}", fix="give Simple, LL or LL128")


def _to_xml(platform, collective, schedule_or_program, *, name: str = "collsched", proto: str = "Simple",
            min_bytes: int | None = None, max_bytes: int | None = None, serialise: bool = True,
            merge: bool = True) -> str:
    """``(file, Program)``: :func:`to_xml` of one schedule or Program, as it is, and the Program the file runs
    (:func:`~collsched.interop.msccl.threadblocks.in_blocks`); ``serialise`` False: LimitError where the messages
    would have to be serialised, ``merge`` False where they would have to be merged (:func:`_packed`)."""
    kind = collective.kind
    check_request(collective, proto)
    hosts = list(collective.hosts)
    n = len(hosts)
    lowered = lower_any(platform, collective, schedule_or_program)
    program = drop_signals(lowered).renumbered()
    signals = lowered.n_messages - program.n_messages
    rank_of = {program.ranks.index(h): k for k, h in enumerate(hosts) if h in program.ranks}
    busy = sorted({int(r) for r in program.op_rank})
    stranger = next((program.ranks[r] for r in busy if program.ranks[r] not in hosts), None)
    if stranger is not None:
        raise CollschedError(f"the program uses host {stranger!r}, which is not a participant",
                             fix="MSCCL runs on the participants only: plan a schedule that uses them alone")
    # the coarsest chunks that still cut every piece where the program cuts it; messages cut to one step each
    unit, scale, nchunks = chunk_grid(program, kind, n)
    if nchunks > MAX_CHUNKS:
        raise ChunkGridError(f"the program cuts values into 1/{program.denominator // unit} pieces: MSCCL would need "
                         f"{nchunks} chunks per loop, collsched writes at most {MAX_CHUNKS}",
                         fix="export a schedule with coarser pieces (msccl.fit_chunks() rounds a forest's)")
    lo, hi = _window(collective, min_bytes, max_bytes)
    grid = chunk_bytes_finding(lo, nchunks)
    if grid is not None:
        raise ChunkGridError(grid, fix="export a schedule with coarser pieces (msccl.fit_chunks() "
                                                         "rounds a forest's), or give another min_bytes")
    program, placed, packing = _packed(program, platform, collective, rank_of, unit, scale, serialise, merge)
    root = hosts.index(collective.source if kind == "broadcast" else collective.target) if kind in ROOTED else None
    lay = Layout(kind, ngpus=n, nchunks=nchunks, inplace=(kind == "allgather"),
                 hosts=[platform.host_index(h) for h in hosts], root=root)
    gpus = [_Gpu(g, lay) for g in range(n)]

    def tokens_of(rows):
        out = []
        for r in rows:
            v = program.value_of(r)
            if v.inst != 0:
                raise CollschedError("the program moves values of several instances", fix="export one instance")
            out.extend((v, k) for k in range(int(r[4]) // unit * scale, int(r[5]) // unit * scale))
        return out

    sent: dict[int, list] = {}   # send op -> its tokens
    for i in placed.order:
        if program.op_kind[i] == SEND:
            sent[i] = tokens_of(program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]])
            box = gpus[placed.gpu[i]].outbox
            for x, t in enumerate(sent[i]):
                box.setdefault(t, (int(program.op_msg[i]), x, len(sent[i])))
    where: dict[int, int] = {}   # op -> index of its last step in its thread block
    carried: dict[int, list] = {}
    order_sent: dict[tuple[int, int, int], list[int]] = {}
    order_recv: dict[tuple[int, int, int], list[int]] = {}
    for i in placed.order:
        g = gpus[placed.gpu[i]]
        key = placed.tb[i]
        k = int(program.op_kind[i])
        rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
        msg = int(program.op_msg[i])
        steps = g.tbs.setdefault(key, [])
        cross = placed.cross[i]
        group: list[dict] = [dict(type="nop", cnt=0) for _ in range(max(0, len(cross) - 1))]
        if k == SEND:
            tokens = sent[i]
            carried[msg] = tokens
            order_sent.setdefault((g.g, key[0], key[2]), []).append(msg)
            slots = [g.slot_of[t] for t in tokens]
            if not _contiguous(slots):
                fresh = g.fresh(len(tokens))
                group += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(slots, fresh)]
                slots = fresh
            group.append(dict(type="s", src=slots[0], dst=slots[0], cnt=len(tokens)))
        elif k == RECV:
            tokens = carried[msg]
            order_recv.setdefault((key[1], g.g, key[2]), []).append(msg)
            places = g.place(tokens)
            land = places if _contiguous(places) else g.fresh(len(tokens))
            group.append(dict(type="r", src=land[0], dst=land[0], cnt=len(tokens)))
            if land is not places:
                group += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(land, places)]
            for t, s in zip(tokens, places):
                g.slot_of[t] = s
        else:
            ins = [tokens_of(rows[x:x + 1]) for x in range(len(rows) - 1)]
            out = tokens_of(rows[-1:])
            places = g.place(out)
            if not _contiguous(places):
                places = g.fresh(len(out))
            first = [g.slot_of[t] for t in ins[0]]
            group += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(first, places)]
            for more in ins[1:]:
                src = [g.slot_of[t] for t in more]
                group += [dict(type="re", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(src, places)]
            for t, s in zip(out, places):
                g.slot_of[t] = s
        for dep, step in zip(cross, group):
            step["dep"] = (placed.tb[dep], where[dep])
        steps.extend(group)
        where[i] = len(steps) - 1
    for g in gpus:   # what a GPU keeps (an alltoall's block to itself, a broadcast's root): input to output, at once
        stay = [(slot, g.slot_of[t]) for t, slot in sorted(g.target.items(), key=lambda x: x[1])
                if t in g.slot_of and g.slot_of[t] != slot]
        if stay:
            key = (-1, -1, 1 + max((k[2] for k in g.tbs if k[:2] == (-1, -1)), default=-1))
            g.tbs[key] = [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c)
                          for sb, so, db, do, c in _runs([b for _, b in stay], [a for a, _ in stay])]
    for conn, sent in order_sent.items():   # pragma: no branch - place() keeps both orders; checked all the same
        if order_recv.get(conn, []) != sent:
            raise CollschedError(f"gpu {conn[1]} receives the messages of gpu {conn[0]} on channel {conn[2]} in another "
                                 "order than they are sent; MSCCL pairs them in order", fix="order the receives as the sends")
    _check_limits(gpus)
    if signals:
        packing = (f"{signals} messages without data dropped (the runtime has none)",) + packing
    return _Out(_render(gpus, lay, kind, name, proto, lo, hi), in_blocks(program, placed), packing, program)


def _window(collective, min_bytes: int | None, max_bytes: int | None) -> tuple[int, int]:
    """``(minBytes, maxBytes)`` of the file (see the module docstring), checked."""
    window = call_bytes(collective)
    lo = int(window) if min_bytes is None else int(min_bytes)
    hi = int(window) + 1 if max_bytes is None else int(max_bytes)
    if not 0 <= lo <= hi or hi == 0:
        raise CollschedError(f"size window minBytes={lo} maxBytes={hi}",
                             fix="give 0 <= min_bytes <= max_bytes, max_bytes > 0")
    return lo, hi


def _packed(program, platform, collective, rank_of: dict, unit: int, scale: int, serialise: bool = True,
            merge: bool = True):
    """``(program, placement, packing)``: the Program the file runs and its thread blocks, the first of these that
    fits: the messages cut to :data:`MAX_COUNT` chunks, packed as they run; the messages sent together merged first
    (:func:`~collsched.interop.msccl.merge.merge_concurrent`), packed as they run, then (``serialise``) serialised;
    ``packing`` says what changed, in phrases (:class:`~collsched.interop.msccl.ready.Ready`); ``merge`` False:
    the LimitError of the messages packed as they run, instead of merging them."""
    cut = split_messages(program, unit=unit, scale=scale)
    merged = program
    try:
        placed = place(cut, platform, collective, rank_of, serial=False)
    except LimitError:
        if not merge:
            raise
        merged = merge_concurrent(program, unit=unit, scale=scale)
        if merged is not program:
            cut = split_messages(merged, unit=unit, scale=scale)
        if not serialise:
            placed = place(cut, platform, collective, rank_of, serial=False)
        else:
            placed = place(cut, platform, collective, rank_of, serial=True if merged is program else None)
    packing = []
    if merged is not program:
        packing.append(f"the messages each pair of GPUs sends together merged ({program.n_messages} messages → "
                       f"{merged.n_messages})")
    if cut.n_messages != merged.n_messages:
        packing.append(f"messages of more than {MAX_COUNT} chunks cut ({merged.n_messages} messages → "
                       f"{cut.n_messages})")
    if placed.serial:
        packing.append("messages serialised on fewer channels")
    return cut, placed, tuple(packing)


def _check_limits(gpus) -> None:
    """Refuse what the runtime refuses: a step of too many chunks, a thread block of too many steps."""
    for g in gpus:
        for key, steps in g.tbs.items():
            big = next((st for st in steps if st["cnt"] > MAX_COUNT), None)
            if big is not None:
                raise LimitError(f"gpu {g.g}: a {big['type']!r} step would move {big['cnt']} chunks, the runtime "
                                 f"moves at most {MAX_COUNT} in one step", fix="export a schedule with smaller messages")
            if len(steps) > MAX_STEPS:
                raise LimitError(f"gpu {g.g}: a thread block would have {len(steps)} steps, the runtime runs "
                                 f"at most {MAX_STEPS}", fix="export a schedule with fewer messages between two GPUs")


def _render(gpus, lay: Layout, kind: str, name: str, proto: str, lo: int, hi: int) -> str:
    sizes = lay.sizes()
    inplace = lay.inplace
    nchannels = 1 + max((key[2] for g in gpus for key in g.tbs if key[:2] != (-1, -1)), default=0)
    lines = [f'<algo name="{name}" proto="{proto}" nchannels="{nchannels}" nchunksperloop="{lay.nchunks}" ngpus="{lay.n}" '
             f'coll="{_KINDS[kind]}" inplace="{int(inplace)}" outofplace="{int(not inplace)}" minBytes="{lo}" '
             f'maxBytes="{hi}">']
    for g in gpus:
        keys = sorted(g.tbs)
        ids = {key: t for t, key in enumerate(keys)}
        waited = {(ids[s["dep"][0]], s["dep"][1]) for key in keys for s in g.tbs[key] if "dep" in s}
        ic = 0 if inplace and kind == "allgather" else sizes["i"]
        lines.append(f'  <gpu id="{g.g}" i_chunks="{ic}" o_chunks="{sizes["o"]}" s_chunks="{g.scratch}">')
        load = [0] * nchannels
        chan = {}
        for key in keys:
            if key[:2] != (-1, -1):
                chan[key] = key[2]
                load[key[2]] += 1
        for key in keys:   # blocks for local work: on the channel with the fewest blocks
            if key[:2] == (-1, -1):
                chan[key] = min(range(nchannels), key=lambda c: (load[c], c))
                load[chan[key]] += 1
        for key in keys:
            t = ids[key]
            lines.append(f'    <tb id="{t}" send="{key[0]}" recv="{key[1]}" chan="{chan[key]}">')
            for s, step in enumerate(g.tbs[key]):
                src, dst = step.get("src", ("o", -1)), step.get("dst", ("o", -1))
                depid, deps = (ids[step["dep"][0]], step["dep"][1]) if "dep" in step else (-1, -1)
                lines.append(f'      <step s="{s}" type="{step["type"]}" srcbuf="{src[0]}" srcoff="{src[1]}" '
                             f'dstbuf="{dst[0]}" dstoff="{dst[1]}" cnt="{step["cnt"]}" depid="{depid}" deps="{deps}" '
                             f'hasdep="{int((t, s) in waited)}"/>')
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed at the end."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent) or ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write(path: str | Path, platform, collective, schedule_or_program, **options) -> Path:
    """Write the MSCCL XML of a schedule or Program to ``path`` (atomically: a reader never sees half a file).

    Parameters
    ----------
    path : str or Path
    platform, collective, schedule_or_program
        As :func:`to_xml`.
    **options
        ``name``, ``proto``, ``min_bytes``, ``max_bytes`` of :func:`to_xml`.

    Returns
    -------
    Path

    Raises
    ------
    CollschedError
        As :func:`to_xml`; the file is then not written.

    Examples
    --------
    >>> import collsched as cs, pathlib, tempfile
    >>> g = cs.topologies.star(2)
    >>> c = cs.AllReduce(participants=g.hosts, size=2**20)
    >>> path = write(pathlib.Path(tempfile.mkdtemp()) / "ar.xml", g, c, cs.plan(g, c, algorithm="ring"))
    >>> path.read_text().count("<tb ")  # per GPU: send to the peer, receive from it (and reduce there)
    4
    """
    options.setdefault("name", Path(path).stem)
    text = to_xml(platform, collective, schedule_or_program, **options)
    _atomic_write(Path(path), text)
    return Path(path)


def write_registration(path: str | Path, algorithm_files) -> Path:
    """The ``<msccl_algos>`` file that lists algorithm files for microsoft/msccl to load (``MSCCL_CONFIG``).

    Which runtime reads it, and how (microsoft/msccl at b23e9cd,
    ``src/graph/topo.cc:1219-1283``, ``mscclGetAllAlgoFromConfigAndSetInfo``,
    called at ``src/init.cc:788`` when ``MSCCL_CONFIG`` names the file):
    every ``<load>`` child of ``<msccl_algos>`` has a ``path`` (opened as
    given: relative to the process's working directory) and optional
    ``minbytes`` (default 0) and ``maxbytes`` (default -1: no limit), and
    the runtime uses the algorithm for calls with ``minbytes <= nBytes <
    maxbytes`` (``src/graph/tuning.cc:353``) instead of the file's own
    window. Its ``proto`` is read without checking that it is there
    (``mscclProtocolStrToId(protocol, ...)`` with ``protocol`` NULL when
    absent, ``src/graph/topo.cc:1259,1276``), so collsched always writes it.
    The MSCCL executor (msccl-executor-nccl, and RCCL's copy of it) has no
    registration file: it loads every file of the folder ``MSCCL_ALGO_DIR``
    (``src/misc/msccl/msccl_lifecycle.cc:79-170``) and reads each file's own
    ``minBytes``/``maxBytes``.

    Parameters
    ----------
    path : str or Path
        Where to write it.
    algorithm_files : iterable of str or Path
        The MSCCL XML files; each must parse. Each ``<load>`` gets the
        file's ``proto``, ``minBytes`` and ``maxBytes``. Paths are written
        relative to the registration file's folder when they are inside it
        (run the program from that folder, or give absolute paths).

    Returns
    -------
    Path

    Raises
    ------
    FormatError
        An algorithm file that does not parse.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from collsched.interop.msccl.xml_read import EXAMPLE
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ring2.xml").write_text(EXAMPLE)
    >>> print(write_registration(folder / "algos.xml", [folder / "ring2.xml"]).read_text().strip())
    <msccl_algos>
      <load path="ring2.xml" minbytes="1024" maxbytes="1073741824" proto="Simple"/>
    </msccl_algos>
    """
    from xml.sax.saxutils import quoteattr

    from .xml_read import parse

    path = Path(path)
    lines = ["<msccl_algos>"]
    for f in algorithm_files:
        f = Path(f)
        algo = parse(f)
        try:
            shown = f.resolve().relative_to(path.parent.resolve())
        except ValueError:
            shown = f
        window = "".join(f' {name}="{value}"' for name, value in (("minbytes", algo.min_bytes),
                                                                  ("maxbytes", algo.max_bytes)) if value is not None)
        lines.append(f"  <load path={quoteattr(str(shown))}{window} proto={quoteattr(algo.proto)}/>")
    lines.append("</msccl_algos>")
    _atomic_write(path, "\n".join(lines) + "\n")
    return path
