"""A collsched schedule or Program as an MSCCL XML file the runtime loads, and the ``<msccl_algos>`` list.

How a Program becomes MSCCL (:func:`to_xml`):

* GPUs are the collective's participants, which must be the platform's
  first ``N`` hosts in order (the file names GPUs by rank);
* chunks: ``nchunksperloop`` = ``N · d`` for an allgather or alltoall,
  ``d`` (scaled to a multiple of ``N``) for a reducescatter or allreduce,
  where ``d`` is the coarsest unit that cuts every piece where the Program
  does (its denominator over the gcd of the pieces' bounds); a piece is
  that many chunks (:mod:`~collsched.interop.msccl.layout`);
* buffers: an allgather is written in place (each block is already where it
  ends); the others out of place (the input is never written; an
  alltoall's block to itself is copied by ``cpy`` steps); a value a GPU holds that is not one of its results goes to a
  fresh scratch chunk, and no chunk is ever reused for another value;
* thread blocks: one per peer a GPU sends to (``send=p recv=-1``) and
  per peer it receives from, per channel, and blocks for local work; a
  step of a thread block runs after the previous one, and the runtime pairs
  two GPUs' messages on a channel in order, so a message goes on the lowest
  channel where the previous message between the same two GPUs is already
  among what its send and its receive wait for (:func:`_channels`), and a
  computation on a block for local work whose last step it already waits
  for (a new block if none): no step waits for what the Program does not;
* operations: a send is an ``s`` step, a receive an ``r`` step (then
  ``cpy`` steps if its chunks go to places that are not contiguous), a
  reduction ``cpy`` of its first input then ``re`` of each other input, a
  signal (a message with no data) ``s``/``r`` with ``cnt="0"``, a
  computation with no data a ``nop``; a dependency on another thread block
  is ``depid``/``deps``, one per step (``nop`` steps carry the others), and
  the step waited for has ``hasdep="1"``;
* ``minBytes``/``maxBytes``: the window given, by default exactly the size
  the schedule was planned for, as the runtime counts it (the bytes of the
  call's larger buffer: ``N · size`` for an allgather or a reducescatter,
  ``size`` for an allreduce); ``ngpus``, ``coll``, ``proto`` set.

The file reads back (:func:`~collsched.interop.msccl.read`) into a Program
that validates; its receives, sends and computations are those of the
original (plus ``cpy``/``nop`` of cost 0), so under ``Fluid`` it takes the
same time when the original's operations on one peer already ran in order.

Examples
--------
>>> import collsched as cs
>>> g = cs.topologies.star(2)
>>> c = cs.AllGather(participants=g.hosts, size=2**20)
>>> print(to_xml(g, c, cs.plan(g, c, algorithm="ring"), name="ring2").splitlines()[0])
<algo name="ring2" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1" outofplace="0" minBytes="2097152" maxBytes="2097152">
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from ...errors import CollschedError, FormatError
from ...schedules.program import COMPUTE, RECV, SEND
from ...schedules.validate import lower_any
from .layout import Layout
from .lint import MAX_COUNT
from .xml_read import MAX_CHUNKS

__all__ = ["to_xml", "write", "write_registration", "call_bytes"]

_KINDS = {"allgather": "allgather", "reducescatter": "reduce_scatter", "allreduce": "allreduce", "alltoall": "alltoall"}


def call_bytes(collective) -> float:
    """The bytes the runtime compares with ``minBytes``/``maxBytes`` for ``collective`` (see the module docstring).

    Examples
    --------
    >>> import collsched as cs
    >>> call_bytes(cs.AllGather(participants=["h0", "h1"], size=8)), call_bytes(cs.AllReduce(participants=["h0", "h1"], size=8))
    (16.0, 8.0)
    """
    n = len(collective.hosts)
    return float(collective.size if collective.kind == "allreduce" else n * np.max(collective.size))


class _Gpu:
    """The thread blocks and buffers of one GPU being written."""

    def __init__(self, g: int, lay: Layout):
        self.g = g
        self.tbs: dict[tuple[int, int], list[dict]] = {}
        self.slot_of: dict = {v: s for s, v in lay.initial(g).items()}
        self.target = {v: s for s, v in lay.expected(g).items()}
        self.scratch = 0
        self.last: dict[tuple[int, int, int], int] = {}   # thread block -> the op its last step belongs to

    def tb(self, send: int, recv: int, k: int = 0) -> tuple[int, int, int]:
        self.tbs.setdefault((send, recv, k), [])
        return send, recv, k

    def local_tb(self, ancestors: int) -> tuple[int, int, int]:
        """A thread block for a computation: one whose last operation it already waits for (no false wait)."""
        for key in sorted(self.tbs):
            if key[:2] == (-1, -1):
                last = self.last.get(key)
                if last is None or (ancestors >> last) & 1:
                    return key
        return self.tb(-1, -1, sum(1 for key in self.tbs if key[:2] == (-1, -1)))


    def fresh(self, count: int) -> list[tuple[str, int]]:
        out = [("s", self.scratch + x) for x in range(count)]
        self.scratch += count
        return out

    def place(self, tokens) -> list[tuple[str, int]]:
        """Where arriving tokens are kept: their result slot, the slot already holding them, or fresh scratch."""
        out = []
        for t in tokens:
            slot = self.target.get(t) or self.slot_of.get(t)
            out.append(slot if slot is not None else self.fresh(1)[0])
        return out


def _ancestors(program) -> list[int]:
    """For each operation, the bitset of the operations it waits for, directly or not (dependencies come first)."""
    out: list[int] = []
    for i in range(program.n_ops):
        mask = 0
        for dep in program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]:
            dep = int(dep)
            if dep >= i:
                raise CollschedError(f"op {i} of the program waits for op {dep}, which comes after it",
                                     fix="build programs with ProgramBuilder")
            mask |= out[dep] | (1 << dep)
        out.append(mask)
    return out


def _channels(program, ancestors: list[int]) -> dict[int, int]:
    """A channel per message: the lowest on which both ends' previous messages of the pair are already waited for.

    MSCCL runs a thread block's steps in order and pairs the messages of two
    GPUs on a channel in order; a message goes on a channel where the
    previous send (and receive) of the same pair are among the operations
    its send (and receive) wait for anyway, so no step waits for what the
    Program does not, and both ends see the messages in the same order.
    """
    send, recv = program.message_ops()
    last: dict[tuple[int, int], list[tuple[int, int]]] = {}
    out: dict[int, int] = {}
    for m in sorted(range(len(send)), key=lambda m: send[m]):
        s, r = int(send[m]), int(recv[m])
        if s < 0 or r < 0:
            continue
        chans = last.setdefault((int(program.op_rank[s]), int(program.op_rank[r])), [])
        for c, (ls, lr) in enumerate(chans):
            if (ancestors[s] >> ls) & 1 and (ancestors[r] >> lr) & 1:
                break
        else:
            c = len(chans)
            chans.append((s, r))
        chans[c] = (s, r)
        out[m] = c
    return out


def _runs(src: list, dst: list):
    """``(srcbuf, srcoff, dstbuf, dstoff, cnt)`` for maximal runs where both sides are contiguous."""
    x = 0
    while x < len(src):
        y = x + 1
        while y < len(src) and src[y] == (src[x][0], src[x][1] + y - x) and dst[y] == (dst[x][0], dst[x][1] + y - x):
            y += 1
        yield src[x][0], src[x][1], dst[x][0], dst[x][1], y - x
        x = y


def _contiguous(slots: list) -> bool:
    return all(s == (slots[0][0], slots[0][1] + k) for k, s in enumerate(slots))


def to_xml(platform, collective, schedule_or_program, *, name: str = "collsched", proto: str = "Simple",
           min_bytes: int | None = None, max_bytes: int | None = None) -> str:
    """The MSCCL XML of a schedule (lowered) or Program of an allgather, reducescatter, allreduce or alltoall.

    Parameters
    ----------
    platform : Platform
    collective : AllGather, ReduceScatter, AllReduce or AllToAll
        Its participants are the platform's first ``N`` hosts, in order (an
        all-to-all: receivers = senders, one size).
    schedule_or_program : Schedule or Program
    name : str
        The ``name`` attribute.
    proto : {"Simple", "LL", "LL128"}
    min_bytes, max_bytes : int, optional
        The size window (default: :func:`call_bytes` of ``collective``, both).

    Returns
    -------
    str

    Raises
    ------
    CollschedError
        Another collective kind, participants that are not the platform's
        first hosts in order, a Program that uses another host, pieces so
        fine that a loop would need more than
        :data:`~collsched.interop.msccl.xml_read.MAX_CHUNKS` chunks, a step
        of more than :data:`~collsched.interop.msccl.lint.MAX_COUNT` chunks, a
        bad window.

    Examples
    --------
    >>> import collsched as cs
    >>> g = cs.topologies.dgx2(1)
    >>> c = cs.Broadcast(source="h0", targets=g.hosts[:2], size=8)
    >>> to_xml(g, c, cs.plan(g, c, algorithm="binomial"))
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: collsched writes allgather, reducescatter, allreduce and alltoall as MSCCL, not broadcast (export one of those)
    """
    kind = collective.kind
    if kind not in _KINDS:
        raise CollschedError(f"collsched writes allgather, reducescatter, allreduce and alltoall as MSCCL, not {kind}",
                             fix="export one of those")
    if kind == "alltoall" and (collective.receivers != collective.senders or np.ndim(collective.size) != 0):
        raise CollschedError("MSCCL's alltoall sends one size from every GPU to every GPU",
                             fix="export an all-to-all with receivers = senders and one size")
    if proto not in ("Simple", "LL", "LL128"):
        raise CollschedError(f"proto {proto!r}", fix="give Simple, LL or LL128")
    hosts = list(collective.hosts)
    n = len(hosts)
    if hosts != list(platform.hosts[:n]):
        raise CollschedError(f"the participants {hosts[:4]}... are not the platform's first {n} hosts in order",
                             fix="MSCCL names GPUs by rank: plan for participants = the platform's first hosts")
    program = lower_any(platform, collective, schedule_or_program).renumbered()
    rank_of = {program.ranks.index(h): k for k, h in enumerate(hosts) if h in program.ranks}
    # the coarsest chunks that still cut every piece where the program cuts it
    unit = math.gcd(program.denominator, *(int(x) for x in np.unique(program.pieces[:, 4:6])))
    d = program.denominator // unit
    if kind in ("allgather", "alltoall"):
        scale, nchunks = 1, n * d
    else:
        scale = n // math.gcd(d, n)
        nchunks = d * scale
    if nchunks > MAX_CHUNKS:
        raise CollschedError(f"the program cuts values into 1/{d} pieces: MSCCL would need {nchunks} chunks per loop, "
                             f"collsched writes at most {MAX_CHUNKS}", fix="export a schedule with coarser pieces")
    lay = Layout(kind, ngpus=n, nchunks=nchunks, inplace=(kind == "allgather"),
                 hosts=[platform.host_index(h) for h in hosts])
    gpus = [_Gpu(g, lay) for g in range(n)]
    sets = program.operand_sets

    def tokens_of(rows):
        out = []
        for r in rows:
            v = program.value_of(r)
            if v.inst != 0:
                raise CollschedError("the program moves values of several instances", fix="export one instance")
            out.extend((v, k) for k in range(int(r[4]) // unit * scale, int(r[5]) // unit * scale))
        return out

    where: dict[int, tuple[tuple[int, int, int], int]] = {}   # op -> (tb key, index of its last step)
    ancestors = _ancestors(program)
    channel = _channels(program, ancestors)
    carried: dict[int, list] = {}
    order_sent: dict[tuple[int, int], list[int]] = {}
    order_recv: dict[tuple[int, int], list[int]] = {}
    for i in range(program.n_ops):
        r = int(program.op_rank[i])
        if r not in rank_of:
            raise CollschedError(f"the program uses host {program.ranks[r]!r}, which is not a participant",
                                 fix="MSCCL runs on the participants only: plan for all of the platform's GPUs")
        g = gpus[rank_of[r]]
        k = int(program.op_kind[i])
        rows = program.pieces[program.piece_ptr[i]:program.piece_ptr[i + 1]]
        deps = [int(x) for x in program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]]]
        peer = rank_of.get(int(program.op_peer[i]), -1)
        msg = int(program.op_msg[i])
        if k == SEND:
            key = g.tb(peer, -1, channel[msg])
            order_sent.setdefault((g.g, peer, channel[msg]), []).append(msg)
        elif k == RECV:
            key = g.tb(-1, peer, channel[msg])
            order_recv.setdefault((peer, g.g, channel[msg]), []).append(msg)
        else:
            key = g.local_tb(ancestors[i])
        steps = g.tbs[key]
        # dependencies on other thread blocks: the latest step of each
        cross: dict[tuple[int, int], int] = {}
        for dep in deps:
            dkey, dstep = where[dep]
            if dkey != key:
                cross[dkey] = max(cross.get(dkey, -1), dstep)
        group: list[dict] = [dict(type="nop", cnt=0) for _ in range(max(0, len(cross) - 1))]
        if k == SEND:
            tokens = tokens_of(rows)
            carried[int(program.op_msg[i])] = tokens
            slots = [g.slot_of[t] for t in tokens]
            if tokens and not _contiguous(slots):
                fresh = g.fresh(len(tokens))
                group += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(slots, fresh)]
                slots = fresh
            group.append(dict(type="s", src=slots[0] if slots else ("o", -1), dst=slots[0] if slots else ("o", -1),
                              cnt=len(tokens)))
        elif k == RECV:
            tokens = carried[int(program.op_msg[i])]
            places = g.place(tokens)
            land = places if not tokens or _contiguous(places) else g.fresh(len(tokens))
            group.append(dict(type="r", src=land[0] if land else ("o", -1), dst=land[0] if land else ("o", -1),
                              cnt=len(tokens)))
            if land is not places:
                group += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c) for sb, so, db, do, c in _runs(land, places)]
            for t, s in zip(tokens, places):
                g.slot_of[t] = s
        elif len(rows) == 0:
            group.append(dict(type="nop", cnt=0))
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
        for (dkey, dstep), step in zip(sorted(cross.items()), group):
            step["dep"] = (dkey, dstep)
        start = len(steps)
        steps.extend(group)
        where[i] = (key, start + len(group) - 1)
        g.last[key] = i
    for g in gpus:   # what a GPU keeps (an alltoall's block to itself): copied from input to output, at once
        stay = [(slot, g.slot_of[t]) for t, slot in sorted(g.target.items(), key=lambda x: x[1])
                if t in g.slot_of and g.slot_of[t] != slot]
        if stay:
            key = g.tb(-1, -1, sum(1 for k in g.tbs if k[:2] == (-1, -1)))
            g.tbs[key] += [dict(type="cpy", src=(sb, so), dst=(db, do), cnt=c)
                           for sb, so, db, do, c in _runs([b for _, b in stay], [a for a, _ in stay])]
    for conn, sent in order_sent.items():
        if order_recv.get(conn, []) != sent:
            raise CollschedError(f"gpu {conn[1]} receives the messages of gpu {conn[0]} on channel {conn[2]} in another "
                                 "order than they are sent; MSCCL pairs them in order", fix="order the receives as the sends")
    for g in gpus:
        for key, steps in g.tbs.items():
            big = next((st for st in steps if st["cnt"] > MAX_COUNT), None)
            if big is not None:
                raise CollschedError(f"gpu {g.g}: a {big['type']!r} step would move {big['cnt']} chunks, the runtime "
                                     f"moves at most {MAX_COUNT} in one step", fix="export a schedule with smaller messages")
    window = call_bytes(collective)
    lo = int(window) if min_bytes is None else int(min_bytes)
    hi = int(math.ceil(window)) if max_bytes is None else int(max_bytes)
    if not 0 <= lo <= hi or hi == 0:
        raise CollschedError(f"size window minBytes={lo} maxBytes={hi}", fix="give 0 <= min_bytes <= max_bytes, max_bytes > 0")
    return _render(gpus, lay, kind, name, proto, lo, hi)


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
    >>> path.read_text().count("<tb ")  # per GPU: send to the peer, receive from it, one local block
    6
    """
    options.setdefault("name", Path(path).stem)
    text = to_xml(platform, collective, schedule_or_program, **options)
    _atomic_write(Path(path), text)
    return Path(path)


def write_registration(path: str | Path, algorithm_files) -> Path:
    """The ``<msccl_algos>`` file that lists algorithm files for the runtime to load (``MSCCL_XML_FILES``).

    Parameters
    ----------
    path : str or Path
        Where to write it.
    algorithm_files : iterable of str or Path
        The MSCCL XML files; each must parse. Paths are written relative to
        the registration file's folder when they are inside it.

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
      <load path="ring2.xml"/>
    </msccl_algos>
    """
    from xml.sax.saxutils import quoteattr

    from .xml_read import parse

    path = Path(path)
    lines = ["<msccl_algos>"]
    for f in algorithm_files:
        f = Path(f)
        parse(f)
        try:
            shown = f.resolve().relative_to(path.parent.resolve())
        except ValueError:
            shown = f
        lines.append(f"  <load path={quoteattr(str(shown))}/>")
    lines.append("</msccl_algos>")
    _atomic_write(path, "\n".join(lines) + "\n")
    return path
