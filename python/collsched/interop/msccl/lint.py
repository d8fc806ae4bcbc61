"""What makes the MSCCL runtime ignore a file, refuse it, or hang on it, without saying so.

Two runtimes load MSCCL XML, and collsched checks files against both (the
sources read: microsoft/msccl at b23e9cd, the NCCL 2.12 fork, "msccl 0.7";
Azure/msccl-executor-nccl at c6f6b36, the executor that RCCL also carries):

* **Selection.** A call uses a file only when its collective, ``ngpus``,
  in-place mode and size match; otherwise the runtime runs NCCL's (RCCL's)
  own algorithm, silently. msccl 0.7 takes ``minBytes <= nBytes <
  maxBytes`` (``src/graph/tuning.cc:369``; a missing ``maxBytes`` is 128
  MiB, ``src/graph/topo.cc:805``); the executor ``minBytes <= nBytes`` and
  ``maxBytes == 0 or nBytes <= maxBytes`` (``src/misc/msccl/
  msccl_lifecycle.cc:335``), and refuses a file without ``minBytes``,
  ``maxBytes`` or ``outofplace`` (``mscclXmlGetAttrInt64`` fails on a
  missing attribute, ``src/include/msccl/msccl_parser.h:82``). So
  ``minBytes="0" maxBytes="0"`` (what msccl-tools writes) means every size
  to the executor and none to msccl 0.7, and ``minBytes == maxBytes`` one
  size to the executor and none to msccl 0.7.
* **Names.** msccl 0.7 knows ``coll="reduce_scatter"``, the executor
  ``reducescatter`` (``src/graph/topo.cc:837``;
  ``src/misc/msccl/msccl_parser.cc:347``).
* **Limits** (both parsers refuse the file): 256 steps per thread block
  (``MSCCL_MAX_NUM_STEPS``; RCCL's copy 64), ``cnt`` below 72
  (``MSCCL_MAX_COUNT``), 32 thread blocks with a send peer and 32 with a
  receive peer per channel, 32 channels (``MAXCHANNELS``), 216 thread
  blocks per GPU in msccl 0.7 (1,024 in the executor), thread block ids
  0, 1, 2, ... without a gap.
* **Dependencies.** A ``nop`` is not kept as a step: its ``depid``/``deps``
  joins the next real step's list, and the runtime's step counter skips one
  per extra dependency (``step += numDependences - 1``,
  ``src/collectives/device/msccl_interpreter.h:136``). A ``nop`` without a ``depid`` therefore
  shifts the numbering of every later step of its block (another block
  waiting for one of them waits for the wrong step), ``nop`` steps at the
  end of a block are dropped with their dependencies, and a step after
  ``nop`` steps with dependencies must have a ``depid`` itself or the
  parser refuses the file (``src/misc/msccl/msccl_parser.cc:616``). A
  step's completion is signalled to other blocks only when it says
  ``hasdep="1"``.
* **Empty steps.** A send or receive with ``cnt="0"`` moves nothing and
  waits for no peer (the runtime loops over its chunks,
  ``src/device/msccl_kernel.cu:245``): it is no barrier.

:func:`lint` lists these findings, each an :class:`Finding` with a
severity: ``error`` (a runtime refuses the file, never uses it, or hangs),
``warning`` (one runtime uses it only in some cases, or not at all).

Examples
--------
>>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
>>> lint(parse_text(EXAMPLE))
[]
>>> [str(f) for f in lint(parse_text(EXAMPLE.replace('minBytes="1024"', 'minBytes="0"')
...                                          .replace('maxBytes="1073741824"', 'maxBytes="0"'), source="a.xml"))]
['a.xml:1: warning: minBytes and maxBytes are both 0: the MSCCL executor and RCCL use the algorithm for every size, microsoft/msccl for none (set the sizes it was made for, e.g. minBytes="1" maxBytes="1073741824")']
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import CollschedError
from .xml_read import Algo

__all__ = ["Finding", "lint", "LimitError", "ChunkGridError", "chunk_bytes_finding", "MAX_STEPS", "MAX_STEPS_RCCL", "MAX_TBS_PER_CHANNEL", "MAX_TBS", "MAX_CHANNELS",
           "MAX_COUNT"]

MAX_STEPS = 256
"""Steps per thread block the MSCCL runtime accepts (``MSCCL_MAX_NUM_STEPS``)."""
MAX_STEPS_RCCL = 64
"""Steps per thread block RCCL's MSCCL path accepts."""
MAX_TBS_PER_CHANNEL = 32
"""Thread blocks with a send peer, and thread blocks with a receive peer, per channel
(``MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL``; microsoft/msccl ``src/include/msccl.h:7``,
msccl-executor-nccl ``src/include/msccl/msccl_struct.h:17``, checked at ``src/misc/msccl/msccl_parser.cc:589,602``)."""
MAX_TBS = 216
"""Thread blocks per GPU: ``MSCCL_MAX_NUM_THREAD_BLOCKS`` is ``108*2`` in microsoft/msccl
(``src/include/msccl.h:8``, checked at ``src/graph/topo.cc:903``) and ``32 * MAXCHANNELS`` = 1,024 in
msccl-executor-nccl (``src/include/msccl/msccl_struct.h:18``); collsched holds files to the smaller."""
MAX_CHANNELS = 32
"""Channels: ``MAXCHANNELS`` (msccl-executor-nccl ``src/include/device.h:65``, microsoft/msccl
``src/include/devcomm.h:51``)."""
MAX_COUNT = 71
"""Chunks one step may move: the parsers refuse ``count >= MSCCL_MAX_COUNT`` (72; microsoft/msccl
``src/graph/topo.cc``, msccl-executor-nccl ``src/misc/msccl/msccl_parser.cc:577``)."""


class LimitError(CollschedError):
    """An export that would exceed one of the runtime's limits above (collsched refuses to write it).

    Examples
    --------
    >>> isinstance(LimitError("gpu 0 would need 217 thread blocks"), CollschedError)
    True
    """


class ChunkGridError(LimitError):
    """An export whose chunks the runtime cannot cut: more chunks per loop than collsched writes, or a chunk at the
    window's ``minBytes`` that is not a whole number of bytes (:func:`chunk_bytes_finding`).

    Examples
    --------
    >>> isinstance(ChunkGridError("960 chunks per loop"), LimitError)
    True
    """


def chunk_bytes_finding(min_bytes: int | None, nchunks: int) -> str | None:
    """What is wrong with chunks of ``min_bytes / nchunks`` bytes, or None when they are whole.

    The runtime cuts a call of ``count`` elements into chunks of
    ``count · sizeMultiplier / nchunksperloop`` elements, rounded down
    (microsoft/msccl's interpreter, ``sizePerMscclChunk``;
    msccl-executor-nccl ``src/misc/msccl/msccl_setup.cc``,
    ``work.sizePerMscclChunk``), so the elements beyond ``nchunksperloop``
    whole chunks are never moved. A call of ``minBytes`` of a type of ``e``
    bytes is whole only if ``minBytes`` is a multiple of ``e ·
    nchunksperloop``; when it is not even a multiple of ``nchunksperloop``,
    no element type works. ``min_bytes`` 0 or None (no window) is not checked.

    Examples
    --------
    >>> chunk_bytes_finding(131072, 960)
    'at minBytes 131072, 960 chunks per loop are chunks of 136.5 bytes, not a whole number of elements of any type: the runtime rounds a chunk down to whole elements and never moves the rest'
    >>> chunk_bytes_finding(131072, 1024) is None
    True
    """
    if not min_bytes or min_bytes % nchunks == 0:
        return None
    return (f"at minBytes {min_bytes}, {nchunks} chunks per loop are chunks of {min_bytes / nchunks:.4g} bytes, not a "
            f"whole number of elements of any type: the runtime rounds a chunk down to whole elements and never "
            f"moves the rest")


@dataclass(frozen=True)
class Finding:
    """One lint finding.

    Attributes
    ----------
    severity : {"error", "warning"}
    message : str
        What is wrong and how to fix it.
    where : str
        ``file:line``.

    Examples
    --------
    >>> str(Finding("error", "ngpus is missing (set it)", "a.xml:1"))
    'a.xml:1: error: ngpus is missing (set it)'
    """

    severity: str
    message: str
    where: str

    def __str__(self) -> str:
        return f"{self.where}: {self.severity}: {self.message}"


def lint(algo: Algo) -> list[Finding]:
    """The findings of one parsed file, errors first, each group in file order.

    Parameters
    ----------
    algo : Algo

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
    >>> [str(f) for f in lint(parse_text(EXAMPLE.replace(' ngpus="2"', ''), source="a.xml"))]
    ['a.xml:1: error: ngpus is missing: the runtime matches a file to a communicator by ngpus and never uses this one (write ngpus="2")']
    """
    out: list[Finding] = []

    def add(severity: str, line: int, message: str) -> None:
        out.append(Finding(severity, message, algo.where(line)))

    n = len(algo.gpus)
    if algo.ngpus is None:
        add("error", algo.line, "ngpus is missing: the runtime matches a file to a communicator by ngpus and "
                                f"never uses this one (write ngpus=\"{n}\")")
    lo, hi = algo.min_bytes, algo.max_bytes
    if lo is None or hi is None or "outofplace" not in algo.attrs:
        missing = [k for k in ("minBytes", "maxBytes", "outofplace") if k not in algo.attrs]
        add("warning", algo.line, f"{' and '.join(missing)} missing: the MSCCL executor and RCCL refuse the file "
                                  "(write all three)")
    if lo is not None and hi is not None:
        if lo == 0 and hi == 0:
            add("warning", algo.line, "minBytes and maxBytes are both 0: the MSCCL executor and RCCL use the algorithm "
                                      "for every size, microsoft/msccl for none (set the sizes it was made for, e.g. "
                                      "minBytes=\"1\" maxBytes=\"1073741824\")")
        elif lo > hi:
            add("error", algo.line, f"minBytes {lo} > maxBytes {hi}: microsoft/msccl refuses the file and the executor "
                                    "uses it for no size (swap them)")
        elif lo == hi:
            add("warning", algo.line, f"minBytes = maxBytes = {lo}: microsoft/msccl uses the algorithm for no size "
                                      f"(it needs nBytes < maxBytes; write maxBytes=\"{hi + 1}\")")
    grid = chunk_bytes_finding(lo, algo.nchunksperloop) if algo.nchunksperloop else None
    if grid is not None:
        add("error", algo.line, f"{grid} (use a chunk count that divides minBytes, or a minBytes that is a multiple "
                                f"of {algo.nchunksperloop})")
    if algo.attrs.get("coll") == "reduce_scatter":
        add("warning", algo.line, "coll is reduce_scatter: the MSCCL executor and RCCL know it as reducescatter "
                                  "(only microsoft/msccl reads reduce_scatter)")
    if not algo.inplace and not algo.outofplace:
        add("error", algo.line, "inplace and outofplace are both 0: the runtime uses the algorithm for no call "
                                "(set inplace=\"1\" or outofplace=\"1\")")
    if algo.proto not in ("Simple", "LL", "LL128"):
        add("error", algo.line, f"proto {algo.proto!r} is not Simple, LL or LL128")
    for g in algo.gpus:
        _lint_gpu(algo, g, add)
    return [f for f in out if f.severity == "error"] + [f for f in out if f.severity == "warning"]


def _lint_gpu(algo: Algo, g, add) -> None:
    """The limits and dependency rules of one GPU's thread blocks (see the module docstring)."""
    if len(g.tbs) > MAX_TBS:
        add("error", g.line, f"gpu {g.id}: {len(g.tbs)} thread blocks, microsoft/msccl runs at most {MAX_TBS} per "
                             "GPU (pack operations with the same peers into fewer blocks)")
    ids = sorted(tb.id for tb in g.tbs)
    if ids != list(range(len(ids))):
        gap = next(k for k, t in enumerate(ids) if t != k)
        add("error", g.line, f"gpu {g.id}: thread block ids skip {gap}: the runtime refuses the file (number them "
                             "0, 1, 2, ...)")
    senders: dict[int, int] = {}
    receivers: dict[int, int] = {}
    waited = {(st.depid, st.deps) for tb in g.tbs for st in tb.steps if st.depid >= 0}
    for tb in g.tbs:
        if tb.send >= 0:
            senders[tb.chan] = senders.get(tb.chan, 0) + 1
        if tb.recv >= 0:
            receivers[tb.chan] = receivers.get(tb.chan, 0) + 1
        if tb.chan >= algo.nchannels:
            add("error", tb.line, f"gpu {g.id} tb {tb.id}: channel {tb.chan}, but nchannels is {algo.nchannels} "
                                  f"(set nchannels=\"{tb.chan + 1}\" or use a lower channel)")
        if tb.chan >= MAX_CHANNELS:
            add("error", tb.line, f"gpu {g.id} tb {tb.id}: channel {tb.chan}, the runtime has channels "
                                  f"0..{MAX_CHANNELS - 1} (use a lower channel)")
        if len(tb.steps) > MAX_STEPS:
            add("error", tb.line, f"gpu {g.id} tb {tb.id}: {len(tb.steps)} steps, the runtime accepts "
                                  f"{MAX_STEPS} (split it over more thread blocks or channels)")
        elif len(tb.steps) > MAX_STEPS_RCCL:
            add("warning", tb.line, f"gpu {g.id} tb {tb.id}: {len(tb.steps)} steps, RCCL accepts "
                                    f"{MAX_STEPS_RCCL} (split it to run on AMD GPUs)")
        pending = False   # a nop with a dependency waits for the next real step
        for st in tb.steps:
            if st.cnt > MAX_COUNT:
                add("error", st.line, f"{st.at}: cnt {st.cnt} > {MAX_COUNT}, the most a step may move "
                                      "(split the step)")
            if (tb.id, st.s) in waited and not st.hasdep:
                add("error", st.line, f"{st.at}: another thread block waits for it but hasdep is 0: the "
                                      "runtime never signals it and that block hangs (set hasdep=\"1\")")
            if st.type == "nop":
                if st.depid < 0:
                    add("error", st.line, f"{st.at}: a nop without depid: the runtime drops it and numbers the later "
                                          "steps of the block one lower, so a block waiting for them waits for the "
                                          "wrong step (remove it)")
                pending = pending or st.depid >= 0
                continue
            if pending and st.depid < 0:
                add("error", st.line, f"{st.at}: follows nop steps with dependencies but has no depid: the runtime "
                                      "refuses the file (give it the last dependency, as msccl-tools does)")
            pending = False
            if st.cnt == 0 and st.type in ("s", "r"):
                peer = tb.send if st.type == "s" else tb.recv
                add("warning", st.line, f"{st.at}: a {st.type!r} step with cnt 0 moves nothing and does not wait for "
                                        f"gpu {peer}: the runtime skips it (it is no barrier)")
        if pending:
            last = tb.steps[-1]
            add("error", last.line, f"{last.at}: nop steps with dependencies end the block: the runtime drops them "
                                    "and their waits (remove them or put a step after them)")
    for name, counts in (("a send", senders), ("a receive", receivers)):
        for chan, count in sorted(counts.items()):
            if count > MAX_TBS_PER_CHANNEL:
                add("error", g.line, f"gpu {g.id}: {count} thread blocks with {name} peer on channel {chan}, the "
                                     f"runtime accepts {MAX_TBS_PER_CHANNEL} (spread them over more channels)")
