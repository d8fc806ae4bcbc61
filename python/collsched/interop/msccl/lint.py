"""What makes the MSCCL runtime ignore a file, or hang on it, without saying so.

The runtime loads a file and then, call by call, uses it only when the call
matches: the collective, the number of ranks (``ngpus``), in place or not,
and a message size inside ``[minBytes, maxBytes]``; otherwise it falls
back to NCCL's (or RCCL's) own algorithm, silently. It also has fixed
limits (``MSCCL_MAX_NUM_STEPS`` = 256 steps per thread block in the MSCCL
runtime, 64 in RCCL's copy; at most 32 thread blocks per channel;
``MSCCL_MAX_COUNT`` = 72 chunks per step) and signals a step's completion
to other thread blocks only when the step says ``hasdep="1"``.

:func:`lint` lists these findings, each an :class:`Finding` with a
severity: ``error`` (the runtime refuses the file, never uses it, or
hangs), ``warning`` (it uses it only in some cases, or only on the MSCCL
runtime and not RCCL's).

Examples
--------
>>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
>>> lint(parse_text(EXAMPLE))
[]
>>> [str(f) for f in lint(parse_text(EXAMPLE.replace('minBytes="1024"', 'minBytes="0"')
...                                          .replace('maxBytes="1073741824"', 'maxBytes="0"'), source="a.xml"))]
['a.xml:1: warning: minBytes and maxBytes are both 0: the runtime uses the algorithm for no message size (set them to the sizes it was made for, e.g. minBytes="1" maxBytes="1073741824")']
"""

from __future__ import annotations

from dataclasses import dataclass

from .xml_read import Algo

__all__ = ["Finding", "lint", "MAX_STEPS", "MAX_STEPS_RCCL", "MAX_TBS_PER_CHANNEL", "MAX_TBS", "MAX_CHANNELS",
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
    if lo is None or hi is None:
        add("warning", algo.line, "minBytes or maxBytes is missing: the runtime reads 0 and uses the algorithm for "
                                  "no message size (set both)")
    elif lo == 0 and hi == 0:
        add("warning", algo.line, "minBytes and maxBytes are both 0: the runtime uses the algorithm for no message "
                                  "size (set them to the sizes it was made for, e.g. minBytes=\"1\" "
                                  "maxBytes=\"1073741824\")")
    elif lo > hi:
        add("warning", algo.line, f"minBytes {lo} > maxBytes {hi}: the runtime uses the algorithm for no message "
                                  "size (swap them)")
    if not algo.inplace and not algo.outofplace:
        add("error", algo.line, "inplace and outofplace are both 0: the runtime uses the algorithm for no call "
                                "(set inplace=\"1\" or outofplace=\"1\")")
    if algo.proto not in ("Simple", "LL", "LL128"):
        add("error", algo.line, f"proto {algo.proto!r} is not Simple, LL or LL128")
    for g in algo.gpus:
        per_channel: dict[int, int] = {}
        waited = {(st.depid, st.deps) for tb in g.tbs for st in tb.steps if st.depid >= 0}
        for tb in g.tbs:
            per_channel[tb.chan] = per_channel.get(tb.chan, 0) + 1
            if tb.chan >= algo.nchannels:
                add("error", tb.line, f"gpu {g.id} tb {tb.id}: channel {tb.chan}, but nchannels is {algo.nchannels} "
                                      f"(set nchannels=\"{tb.chan + 1}\" or use a lower channel)")
            if len(tb.steps) > MAX_STEPS:
                add("error", tb.line, f"gpu {g.id} tb {tb.id}: {len(tb.steps)} steps, the runtime accepts "
                                      f"{MAX_STEPS} (split it over more thread blocks or channels)")
            elif len(tb.steps) > MAX_STEPS_RCCL:
                add("warning", tb.line, f"gpu {g.id} tb {tb.id}: {len(tb.steps)} steps, RCCL accepts "
                                        f"{MAX_STEPS_RCCL} (split it to run on AMD GPUs)")
            for st in tb.steps:
                if st.cnt > MAX_COUNT:
                    add("error", st.line, f"{st.at}: cnt {st.cnt} > {MAX_COUNT}, the most a step may move "
                                          "(split the step)")
                if (tb.id, st.s) in waited and not st.hasdep:
                    add("error", st.line, f"{st.at}: another thread block waits for it but hasdep is 0: the "
                                          "runtime never signals it and that block hangs (set hasdep=\"1\")")
        for chan, count in sorted(per_channel.items()):
            if count > MAX_TBS_PER_CHANNEL:
                add("error", g.line, f"gpu {g.id}: {count} thread blocks on channel {chan}, the runtime accepts "
                                     f"{MAX_TBS_PER_CHANNEL} (spread them over more channels)")
    return [f for f in out if f.severity == "error"] + [f for f in out if f.severity == "warning"]
