"""The GPU fabrics by name (``mi250:2``), and the round trip's table of fabrics, sizes and collectives.

One place for what ``collsched msccl ...`` reads as a platform name, and for
the cases that ``tests/interop/test_msccl_roundtrip.py`` exports and
``benchmarks/bench_msccl_planned.py`` measures: every GPU fabric of
:mod:`collsched.topologies` in one box at 1 MiB (``mi250`` at 4 kB) and in
two at 4 kB, each of the :data:`KINDS` of collectives MSCCL writes (every
all-to-all algorithm on every fabric, in the suite and in the benchmark).

Examples
--------
>>> g = fabric("mi250:2")
>>> len(g.hosts), ROUND_TRIP["mi250:2"]
(32, 4096)
>>> c = collective("allreduce", g, ROUND_TRIP["mi250:2"])
>>> c.kind, c.size, len(c.hosts)
('allreduce', 4096.0, 32)
"""

from __future__ import annotations

from ... import collectives, topologies
from ...errors import CollschedError

__all__ = ["NAMES", "ROUND_TRIP", "KINDS", "fabric", "collective"]

NAMES = ("dgx2", "ndv2", "dgx_a100", "mi250")
"""The GPU fabrics of :mod:`collsched.topologies` a platform may be named by (``NAME`` or ``NAME:BOXES``)."""

ROUND_TRIP = {"dgx2": 2 ** 20, "ndv2": 2 ** 20, "dgx_a100": 2 ** 20, "mi250": 4096,
              "dgx2:2": 4096, "ndv2:2": 4096, "dgx_a100:2": 4096, "mi250:2": 4096}
"""The round trip's fabrics (:func:`fabric`'s names) and the size each is exported at, in bytes."""

KINDS = {"allgather": lambda h, size: collectives.AllGather(participants=h, size=size),
         "reducescatter": lambda h, size: collectives.ReduceScatter(participants=h, size=size),
         "allreduce": lambda h, size: collectives.AllReduce(participants=h, size=size),
         "broadcast": lambda h, size: collectives.Broadcast(source=h[0], targets=h[1:], size=size),
         "reduce": lambda h, size: collectives.Reduce(participants=h, target=h[0], size=size),
         "alltoall": lambda h, size: collectives.AllToAll(senders=h, size=size)}
"""Per collective MSCCL writes, the collective of ``size`` over the hosts ``h`` (a broadcast's or reduce's root
``h[0]``)."""

def fabric(text: str):
    """The GPU fabric named ``text``: one of :data:`NAMES`, with ``:N`` for N boxes (``mi250:2``).

    Parameters
    ----------
    text : str

    Returns
    -------
    Platform

    Raises
    ------
    CollschedError
        Not a fabric's name, or a count that is not a whole number >= 1, in one line.

    Examples
    --------
    >>> len(fabric("dgx2").hosts), len(fabric("ndv2:2").hosts)
    (16, 16)
    >>> fabric("ndv2:two")
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: platform 'ndv2:two': 'two' is not a number (write e.g. mi250:2)
    """
    name, _, count = text.partition(":")
    if name not in NAMES:
        raise CollschedError(f"platform {text!r} is not a GPU fabric", fix=f"name one of {', '.join(NAMES)}")
    try:
        n = int(count) if count else 1
    except ValueError:
        raise CollschedError(f"platform {text!r}: {count!r} is not a number", fix="write e.g. mi250:2") from None
    if n < 1:
        raise CollschedError(f"platform {text!r}: {n} boxes", fix="write a count >= 1, e.g. mi250:2")
    return getattr(topologies, name)(n)


def collective(kind: str, platform, size: float):
    """The collective ``kind`` of :data:`KINDS` over all of ``platform``'s hosts, of ``size`` bytes.

    Examples
    --------
    >>> b = collective("broadcast", fabric("ndv2"), 4096)
    >>> b.source, len(b.targets)
    ('h0', 7)
    """
    return KINDS[kind](list(platform.hosts), size)
