"""Parse an MSCCL XML algorithm file into plain records, each with its line number.

The format is the one the MSCCL runtime (an NCCL fork) and RCCL's MSCCL path
load, and msccl-tools, TACCL and TE-CCL write::

    <algo name proto nchannels nchunksperloop ngpus coll inplace outofplace minBytes maxBytes [redop]>
      <gpu id i_chunks o_chunks s_chunks>
        <copy i_off o_off [cnt]/>          (RCCL's extension: input to output before the steps)
        <tb id send recv chan>
          <step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep/>

This module checks what a parser can check alone: well-formed XML (expat),
integer attributes, step types, buffer names, offsets inside the buffers,
peers and dependencies that exist. Every error is one line naming the file,
the line, the GPU, thread block and step, and what is wrong
(:class:`~collsched.errors.FormatError`). What the steps mean is in
:mod:`collsched.interop.msccl.program`; what makes the runtime fall back,
in :mod:`collsched.interop.msccl.lint`.

Fields the runtime reads that collsched ignores: ``proto`` (Simple, LL,
LL128: the runtime's wire protocol, whose efficiency the simulator does not
model), ``redop``, ``hasdep`` (the runtime's signal that another thread
block waits on a step; collsched derives it from ``depid``/``deps``) and
``name``.

Examples
--------
>>> algo = parse_text('''<algo name="x" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1" proto="Simple"
...   nchannels="1" minBytes="0" maxBytes="0">
...  <gpu id="0" i_chunks="0" o_chunks="2" s_chunks="0">
...   <tb id="0" send="1" recv="-1" chan="0">
...    <step s="0" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
...   </tb>
...  </gpu>
...  <gpu id="1" i_chunks="0" o_chunks="2" s_chunks="0">
...   <tb id="0" send="-1" recv="0" chan="0">
...    <step s="0" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
...   </tb>
...  </gpu>
... </algo>''', source="x.xml")
>>> algo.coll, algo.ngpus, algo.n_steps, algo.gpus[0].tbs[0].steps[0]
('allgather', 2, 2, Step(gpu 0 tb 0 step 0 (line 5): s o[0:1] -> o[0:1]))
>>> parse_text('<algo nchunksperloop="2"><gpu id="x"/></algo>', source="bad.xml")
Traceback (most recent call last):
...
collsched.errors.FormatError: bad.xml:1: gpu: id is 'x', not an integer (write a whole number)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

from ...errors import FormatError

__all__ = ["EXAMPLE", "MAX_CHUNKS", "MAX_BUFFER", "Step", "ThreadBlock", "Copy", "Gpu", "Algo", "parse", "parse_text", "STEP_TYPES", "BUFFERS",
           "COLLECTIVES", "RECEIVES", "SENDS"]

EXAMPLE = """<algo name="ring2" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allgather" inplace="1"
      outofplace="0" minBytes="1024" maxBytes="1073741824">
  <gpu id="0" i_chunks="0" o_chunks="2" s_chunks="0">
    <tb id="0" send="1" recv="1" chan="0">
      <step s="0" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
  <gpu id="1" i_chunks="0" o_chunks="2" s_chunks="0">
    <tb id="0" send="0" recv="0" chan="0">
      <step s="0" type="s" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1" cnt="1" depid="-1" deps="-1" hasdep="0"/>
      <step s="1" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/>
    </tb>
  </gpu>
</algo>
"""
"""A two-GPU in-place allgather (each sends its chunk to the other), for examples."""

MAX_CHUNKS = 1 << 16
"""The most chunks per loop collsched reads or writes (65,536: files in use have tens; it bounds the memory a
symbolic run takes)."""

MAX_BUFFER = 16 * MAX_CHUNKS
"""The largest buffer (in chunks) collsched reads: input and output hold at most a loop, scratch a few."""

STEP_TYPES = ("s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop")
"""Step types: send, receive, receive-copy-send, receive-reduce-send, receive-reduce-copy,
receive-reduce-copy-send, local copy, local reduce, no operation (a dependency only)."""
RECEIVES = frozenset({"r", "rcs", "rrs", "rrc", "rrcs"})
"""Step types that receive from the thread block's ``recv`` peer."""
SENDS = frozenset({"s", "rcs", "rrs", "rrcs"})
"""Step types that send to the thread block's ``send`` peer."""
BUFFERS = ("i", "o", "s")
"""Buffer names: input, output, scratch."""
COLLECTIVES = {"allgather": "allgather", "reduce_scatter": "reducescatter", "reducescatter": "reducescatter",
               "allreduce": "allreduce", "alltoall": "alltoall", "broadcast": "broadcast", "reduce": "reduce",
               "custom": "custom"}
"""The ``coll`` names the runtime knows, to collsched's collective kinds."""


@dataclass(frozen=True)
class Step:
    """One ``<step>``: what a thread block does, in order.

    Attributes
    ----------
    gpu, tb, s : int
        Where it is: GPU id, thread block id, step index.
    type : str
        One of :data:`STEP_TYPES`.
    srcbuf, dstbuf : str
        ``"i"``, ``"o"`` or ``"s"``.
    srcoff, dstoff, cnt : int
        Chunk offsets and the number of chunks.
    depid, deps : int
        The step ``deps`` of thread block ``depid`` (same GPU) must finish first; -1 for none.
    line : int
        Line of the file.
    hasdep : int
        1 if the file says another thread block waits for this step (the
        runtime signals only those); collsched derives the waits from
        ``depid``/``deps`` and :mod:`~collsched.interop.msccl.lint` compares.

    Examples
    --------
    >>> st = Step(0, 1, 2, "r", "o", 0, "o", 3, 1, -1, -1, 7)
    >>> st.where, st.at
    ('gpu 0 tb 1 step 2 (line 7)', 'gpu 0 tb 1 step 2')
    """

    gpu: int
    tb: int
    s: int
    type: str
    srcbuf: str
    srcoff: int
    dstbuf: str
    dstoff: int
    cnt: int
    depid: int
    deps: int
    line: int
    hasdep: int = 0

    @property
    def where(self) -> str:
        """``gpu G tb T step S (line L)``, for messages."""
        return f"{self.at} (line {self.line})"

    @property
    def at(self) -> str:
        """``gpu G tb T step S``, for messages that give the line before."""
        return f"gpu {self.gpu} tb {self.tb} step {self.s}"

    def __repr__(self) -> str:
        return (f"Step({self.where}: {self.type} {self.srcbuf}[{self.srcoff}:{self.srcoff + self.cnt}] -> "
                f"{self.dstbuf}[{self.dstoff}:{self.dstoff + self.cnt}])")


@dataclass(frozen=True)
class ThreadBlock:
    """One ``<tb>``: a sequence of steps with one send peer and one receive peer (-1: none) on a channel.

    Examples
    --------
    >>> ThreadBlock(0, 3, 1, 2, 0, (), 4).send
    1
    """

    gpu: int
    id: int
    send: int
    recv: int
    chan: int
    steps: tuple[Step, ...]
    line: int


@dataclass(frozen=True)
class Copy:
    """RCCL's ``<copy i_off o_off [cnt]>``: input chunks copied to the output before any step.

    Examples
    --------
    >>> Copy(0, 1, 3, 1, 9).o_off
    3
    """

    gpu: int
    i_off: int
    o_off: int
    cnt: int
    line: int


@dataclass(frozen=True)
class Gpu:
    """One ``<gpu>``: its buffer sizes in chunks, its copies and thread blocks.

    Examples
    --------
    >>> Gpu(0, 0, 8, 0, (), (), 2).chunks("o")
    8
    """

    id: int
    i_chunks: int
    o_chunks: int
    s_chunks: int
    copies: tuple[Copy, ...]
    tbs: tuple[ThreadBlock, ...]
    line: int

    def chunks(self, buf: str) -> int:
        """The size of buffer ``buf`` (``"i"``, ``"o"``, ``"s"``) in chunks.

        Examples
        --------
        >>> Gpu(0, 2, 8, 1, (), (), 2).chunks("s")
        1
        """
        return {"i": self.i_chunks, "o": self.o_chunks, "s": self.s_chunks}[buf]


@dataclass(frozen=True)
class Algo:
    """An ``<algo>``: the whole file.

    Attributes
    ----------
    name, proto, coll : str
        As written; ``coll`` normalised to a collsched kind (``reduce_scatter`` → ``reducescatter``).
    nchannels, nchunksperloop : int
    ngpus : int or None
        None when the attribute is missing (:mod:`~collsched.interop.msccl.lint` reports it).
    inplace, outofplace : bool
    min_bytes, max_bytes : int or None
        ``minBytes``/``maxBytes``; None when missing.
    gpus : tuple of Gpu
    source : str
        The file name, for messages.
    line : int
        Line of ``<algo>``.
    attrs : dict
        Every attribute of ``<algo>`` as written.

    Examples
    --------
    >>> a = Algo("x", "Simple", "allgather", 1, 2, 2, True, False, 0, 0, (), "x.xml", 1, {})
    >>> a.n_steps, a.where(3)
    (0, 'x.xml:3')
    """

    name: str
    proto: str
    coll: str
    nchannels: int
    nchunksperloop: int
    ngpus: int | None
    inplace: bool
    outofplace: bool
    min_bytes: int | None
    max_bytes: int | None
    gpus: tuple[Gpu, ...]
    source: str
    line: int
    attrs: dict = field(compare=False, repr=False)

    @property
    def n_steps(self) -> int:
        """Steps over all GPUs and thread blocks."""
        return sum(len(tb.steps) for g in self.gpus for tb in g.tbs)

    def where(self, line: int) -> str:
        """``file:line``.

        Examples
        --------
        >>> parse_text(EXAMPLE, source="a.xml").where(4)
        'a.xml:4'
        """
        return f"{self.source}:{line}"


class _Reader:
    """Expat handlers building the records; raises on the first error."""

    def __init__(self, source: str):
        self.source = source
        self.parser = expat.ParserCreate()
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.algo_attrs: dict | None = None
        self.algo_line = 0
        self.gpus: list[Gpu] = []
        self.gpu: dict | None = None
        self.tb: dict | None = None
        self.depth = 0

    def fail(self, what: str, fix: str | None = None, line: int | None = None):
        line = self.parser.CurrentLineNumber if line is None else line
        raise FormatError(what, where=f"{self.source}:{line}", fix=fix)

    def ints(self, element: str, attrs: dict, names, optional=()) -> list:
        out = []
        for name in names:
            raw = attrs.get(name)
            if raw is None:
                if name in optional:
                    out.append(None)
                    continue
                self.fail(f"{element}: attribute {name} is missing", f"write {name}=\"...\"")
            try:
                out.append(int(raw))
            except ValueError:
                self.fail(f"{element}: {name} is {raw!r}, not an integer", "write a whole number")
        return out

    def start(self, tag: str, attrs: dict):
        self.depth += 1
        if tag == "algo":
            if self.algo_attrs is not None:
                self.fail("a second <algo>", "one algorithm per file")
            self.algo_attrs, self.algo_line = attrs, self.parser.CurrentLineNumber
        elif self.algo_attrs is None:
            self.fail(f"<{tag}> outside <algo>", "the root element must be <algo>")
        elif tag == "gpu":
            if self.gpu is not None:
                self.fail("<gpu> inside a <gpu>", "close the previous </gpu>")
            gid, ic, oc, sc = self.ints("gpu", attrs, ("id", "i_chunks", "o_chunks", "s_chunks"))
            if min(ic, oc, sc) < 0 or max(ic, oc, sc) > MAX_BUFFER:
                self.fail(f"gpu {gid}: a buffer of {min(ic, oc, sc) if min(ic, oc, sc) < 0 else max(ic, oc, sc)} chunks",
                          f"chunk counts are 0..{MAX_BUFFER}")
            self.gpu = dict(id=gid, i=ic, o=oc, s=sc, copies=[], tbs=[], line=self.parser.CurrentLineNumber)
        elif tag == "copy":
            if self.gpu is None or self.tb is not None:
                self.fail("<copy> outside a <gpu> (or inside a <tb>)", "put <copy> directly in <gpu>")
            i_off, o_off, cnt = self.ints("copy", attrs, ("i_off", "o_off", "cnt"), optional=("cnt",))
            self.gpu["copies"].append(Copy(self.gpu["id"], i_off, o_off, 1 if cnt is None else cnt,
                                           self.parser.CurrentLineNumber))
        elif tag == "tb":
            if self.gpu is None or self.tb is not None:
                self.fail("<tb> outside a <gpu>", "put <tb> in <gpu>")
            tid, send, recv, chan = self.ints(f"gpu {self.gpu['id']} tb", attrs, ("id", "send", "recv", "chan"))
            self.tb = dict(id=tid, send=send, recv=recv, chan=chan, steps=[], line=self.parser.CurrentLineNumber)
        elif tag == "step":
            if self.tb is None:
                self.fail("<step> outside a <tb>", "put <step> in <tb>")
            g, t = self.gpu["id"], self.tb["id"]
            at = f"gpu {g} tb {t} step"
            s, srcoff, dstoff, cnt, depid, deps, hasdep = self.ints(
                at, attrs, ("s", "srcoff", "dstoff", "cnt", "depid", "deps", "hasdep"), optional=("hasdep",))
            at = f"gpu {g} tb {t} step {s}"
            kind = attrs.get("type")
            if kind not in STEP_TYPES:
                self.fail(f"{at}: unknown step type {kind!r}", f"use one of {', '.join(STEP_TYPES)}")
            for name in ("srcbuf", "dstbuf"):
                if attrs.get(name) not in BUFFERS:
                    self.fail(f"{at}: {name} is {attrs.get(name)!r}", "buffers are i (input), o (output), s (scratch)")
            if s != len(self.tb["steps"]):
                self.fail(f"{at}: step numbered {s}, expected {len(self.tb['steps'])}", "number steps 0, 1, 2, ... in order")
            if cnt < 0 or (cnt == 0 and kind not in ("nop", "s", "r")):
                self.fail(f"{at}: cnt is {cnt}", "a step moves at least one chunk")
            self.tb["steps"].append(Step(g, t, s, kind, attrs["srcbuf"], srcoff, attrs["dstbuf"], dstoff, cnt,
                                         depid, deps, self.parser.CurrentLineNumber, hasdep or 0))
        else:
            self.fail(f"unknown element <{tag}>", "MSCCL files have algo, gpu, copy, tb and step elements")

    def end(self, tag: str):
        self.depth -= 1
        if tag == "tb" and self.tb is not None:
            t = self.tb
            self.gpu["tbs"].append(ThreadBlock(self.gpu["id"], t["id"], t["send"], t["recv"], t["chan"],
                                               tuple(t["steps"]), t["line"]))
            self.tb = None
        elif tag == "gpu" and self.gpu is not None:
            g = self.gpu
            self.gpus.append(Gpu(g["id"], g["i"], g["o"], g["s"], tuple(g["copies"]), tuple(g["tbs"]), g["line"]))
            self.gpu = None


def _algo(r: _Reader) -> Algo:
    a = r.algo_attrs
    if a is None:
        r.fail("no <algo> element", "an MSCCL file is one <algo>...</algo>", line=1)
    line = r.algo_line

    def num(name: str, default=None):
        raw = a.get(name)
        if raw is None:
            if default is None:
                r.fail(f"algo: attribute {name} is missing", f"write {name}=\"...\"", line=line)
            return default
        try:
            return int(raw)
        except ValueError:
            r.fail(f"algo: {name} is {raw!r}, not an integer", "write a whole number", line=line)

    coll = COLLECTIVES.get(str(a.get("coll", "")).lower())
    if coll is None:
        r.fail(f"algo: coll is {a.get('coll')!r}", f"use one of {', '.join(sorted(set(COLLECTIVES)))}", line=line)
    nchunks = num("nchunksperloop")
    if not 1 <= nchunks <= MAX_CHUNKS:
        r.fail(f"algo: nchunksperloop is {nchunks}", f"give the number of chunks per loop, 1..{MAX_CHUNKS}", line=line)
    ngpus = num("ngpus", default=-1)
    algo = Algo(name=a.get("name", ""), proto=a.get("proto", "Simple"), coll=coll,
                nchannels=num("nchannels", default=1), nchunksperloop=nchunks, ngpus=None if ngpus == -1 else ngpus,
                inplace=bool(num("inplace", default=0)), outofplace=bool(num("outofplace", default=0)),
                min_bytes=num("minBytes", default=-1), max_bytes=num("maxBytes", default=-1),
                gpus=tuple(r.gpus), source=r.source, line=line, attrs=dict(a))
    if algo.min_bytes == -1:
        algo = _replace(algo, min_bytes=None)
    if algo.max_bytes == -1:
        algo = _replace(algo, max_bytes=None)
    _check_references(algo)
    return algo


def _replace(algo: Algo, **changes) -> Algo:
    import dataclasses

    return dataclasses.replace(algo, **changes)


def _check_references(algo: Algo) -> None:
    """GPU ids 0..n-1, peers that exist, offsets inside the buffers, dependencies that name a step."""
    n = len(algo.gpus)
    if algo.ngpus is not None and algo.ngpus != n:
        gpu_line = algo.gpus[-1].line if algo.gpus else algo.line
        raise FormatError(f"algo: ngpus is {algo.ngpus} but the file describes {n} gpus",
                          where=algo.where(algo.line if algo.ngpus > n else gpu_line),
                          fix="describe one <gpu> per rank and set ngpus to their number")
    if n == 0:
        raise FormatError("algo has no <gpu>", where=algo.where(algo.line), fix="describe one <gpu> per rank")
    for k, g in enumerate(algo.gpus):
        if g.id != k:
            raise FormatError(f"gpu numbered {g.id}, expected {k}", where=algo.where(g.line),
                              fix="number gpus 0, 1, 2, ... in order")
        tbs = {}
        for tb in g.tbs:
            if tb.id in tbs:
                raise FormatError(f"gpu {g.id}: tb {tb.id} defined twice", where=algo.where(tb.line),
                                  fix="give each thread block of a gpu its own id")
            tbs[tb.id] = tb
            for name, peer in (("send", tb.send), ("recv", tb.recv)):
                if peer != -1 and not (0 <= peer < n) or peer == g.id:
                    raise FormatError(f"gpu {g.id} tb {tb.id}: {name} peer is {peer}", where=algo.where(tb.line),
                                      fix=f"peers are other gpus 0..{n - 1}, or -1 for none")
            if tb.chan < 0:
                raise FormatError(f"gpu {g.id} tb {tb.id}: channel is {tb.chan}", where=algo.where(tb.line),
                                  fix="channels are 0, 1, ...")
        for c in g.copies:
            for buf, off in (("i", c.i_off), ("o", c.o_off)):
                if c.cnt < 1 or not (0 <= off and off + c.cnt <= g.chunks(buf)):
                    raise FormatError(f"gpu {g.id} copy: {buf}[{off}:{off + c.cnt}] is outside the buffer of "
                                      f"{g.chunks(buf)} chunks", where=algo.where(c.line),
                                      fix="offsets and counts inside the buffer sizes of <gpu>")
        for tb in g.tbs:
            for st in tb.steps:
                _check_step(algo, g, tb, st, tbs)


def _check_step(algo: Algo, g: Gpu, tb: ThreadBlock, st: Step, tbs: dict) -> None:
    at = f"gpu {g.id} tb {tb.id} step {st.s}"
    where = algo.where(st.line)
    if st.type != "nop" and st.cnt > 0:
        used = []
        if st.type in SENDS and st.type not in RECEIVES or st.type in ("rrs", "rrc", "rrcs", "cpy", "re"):
            used.append(("src", st.srcbuf, st.srcoff))
        if st.type in RECEIVES and st.type != "rrs" or st.type in ("cpy", "re"):
            used.append(("dst", st.dstbuf, st.dstoff))
        for name, buf, off in used:
            size = g.chunks(buf)
            if off < 0 or off + st.cnt > size:
                raise FormatError(f"{at}: {name} {buf}[{off}:{off + st.cnt}] is outside the buffer of {size} chunks",
                                  where=where, fix=f"give {name}off and cnt inside gpu {g.id}'s {buf}_chunks")
    if st.type in RECEIVES and tb.recv == -1:
        raise FormatError(f"{at}: a {st.type!r} step in a thread block with no recv peer", where=where,
                          fix="set recv on the <tb>, or use a step that does not receive")
    if st.type in SENDS and tb.send == -1:
        raise FormatError(f"{at}: a {st.type!r} step in a thread block with no send peer", where=where,
                          fix="set send on the <tb>, or use a step that does not send")
    if st.depid != -1:
        dep = tbs.get(st.depid)
        if dep is None:
            raise FormatError(f"{at}: depid {st.depid} names no thread block of gpu {g.id}", where=where,
                              fix=f"name one of its tbs {sorted(tbs)}, or -1")
        if not 0 <= st.deps < len(dep.steps):
            raise FormatError(f"{at}: deps {st.deps} names no step of tb {st.depid} ({len(dep.steps)} steps)",
                              where=where, fix="name an existing step")
        if dep is tb and st.deps >= st.s:
            raise FormatError(f"{at}: depends on step {st.deps} of its own thread block, which runs later",
                              where=where, fix="depend on an earlier step, or on another thread block")


def parse_text(text: str | bytes, *, source: str = "<text>") -> Algo:
    """Parse MSCCL XML text.

    Parameters
    ----------
    text : str or bytes
        The XML.
    source : str
        The name messages give to the text (a file name).

    Returns
    -------
    Algo

    Raises
    ------
    FormatError
        Malformed XML (truncated, mismatched tags), an unknown element or
        step type, a missing or non-integer attribute, a buffer other than
        i/o/s, an offset outside its buffer, a peer that is not another GPU,
        a ``depid``/``deps`` naming no step: one line with the line number.

    Examples
    --------
    >>> parse_text('<algo coll="allgather" nchunksperloop="2" ngpus="2">', source="cut.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: cut.xml:1: malformed XML: no element found (the file is truncated or not XML)
    """
    r = _Reader(source)
    try:
        r.parser.Parse(text, True)
    except expat.ExpatError as exc:
        raise FormatError(f"malformed XML: {expat.ErrorString(exc.code)}", where=f"{source}:{exc.lineno}",
                          fix="the file is truncated or not XML") from None
    except RecursionError:  # pragma: no cover - expat does not recurse in Python
        raise FormatError("XML nested too deep", where=source) from None
    return _algo(r)


def parse(path: str | Path) -> Algo:
    """Parse an MSCCL XML file.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Algo

    Raises
    ------
    FormatError
        As :func:`parse_text`, or the file cannot be read.

    Examples
    --------
    >>> parse("/no/such.xml")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: /no/such.xml: cannot read: No such file or directory (check the path)
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror}", where=str(path), fix="check the path") from None
    return parse_text(data, source=str(path))
