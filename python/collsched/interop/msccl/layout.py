"""Where each collective keeps its data in MSCCL chunks, and what every chunk must hold at the end.

MSCCL splits each buffer into chunks: ``nchunksperloop`` (``C``) chunks of
the collective's full buffer, ``per = C / N`` per rank's block for ``N``
GPUs. collsched names the data of a chunk with a symbolic value and a
fragment index ``k`` (the piece ``[k, k+1)`` of the program's denominator):

============== ================================ ============================== ============
collective     input chunk ``j`` of GPU ``g``    output chunk ``j`` of GPU ``g`` denominator
============== ================================ ============================== ============
allgather      ``m[g→*]`` fragment ``j``        ``m[j // per→*]`` fragment       ``per``
               (``per`` chunks)                  ``j % per`` (``C`` chunks)
reducescatter  ``Σ{g}`` fragment ``j``          ``Σ{all}`` fragment              ``C``
               (``C`` chunks)                    ``g·per + j`` (``per`` chunks)
allreduce      ``Σ{g}`` fragment ``j``          ``Σ{all}`` fragment ``j``        ``C``
alltoall       ``m[g→j // per]`` fragment        ``m[j // per→g]`` fragment       ``per``
               ``j % per``                       ``j % per``
============== ================================ ============================== ============

In place, the input is a part of the output (allgather: input chunk ``j``
is output chunk ``g·per + j``), or the output a part of the input
(reducescatter: output chunk ``j`` is input chunk ``g·per + j``; allreduce
and alltoall: the same chunks). :meth:`Layout.slot` maps every
``(buffer, offset)`` to the storage it names.

Examples
--------
>>> lay = Layout("allgather", ngpus=4, nchunks=8, inplace=True)
>>> lay.per, lay.denominator, lay.slot(1, "i", 1)
(2, 2, ('o', 3))
>>> lay = Layout("reducescatter", ngpus=2, nchunks=4, inplace=False)
>>> lay.expected(1)[("o", 1)]
(Σ{0,1}@0, 3)
"""

from __future__ import annotations

from ...errors import FormatError
from ...schedules.values import Value, block, reduced

__all__ = ["Layout", "KINDS", "token_text"]

KINDS = ("allgather", "reducescatter", "allreduce", "alltoall")
"""Collectives whose chunks collsched maps to values (broadcast, reduce and custom files are not read)."""


def token_text(token) -> str:
    """A chunk's content for messages: ``Σ{0,1}@0 fragment 3``.

    Examples
    --------
    >>> token_text((block(0, 2, -1), 1)), token_text(None)
    ('m[2→*]@0 fragment 1', 'nothing')
    """
    if token is None:
        return "nothing"
    return f"{token[0]!r} fragment {token[1]}"


class Layout:
    """The chunk ↔ value mapping of one collective (see the module docstring).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    ngpus, nchunks : int
        ``N`` and ``nchunksperloop``.
    inplace : bool
        Input and output share storage.
    hosts : sequence of int, optional
        Host index of GPU ``g`` (the value names), default ``g``.

    Raises
    ------
    FormatError
        ``kind`` is not one of :data:`KINDS`, or ``nchunks`` is not a multiple of ``ngpus``.

    Examples
    --------
    >>> Layout("alltoall", ngpus=2, nchunks=2, inplace=False).initial(0)
    {('i', 0): (m[0→0]@0, 0), ('i', 1): (m[0→1]@0, 0)}
    >>> Layout("broadcast", ngpus=2, nchunks=2, inplace=False)
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: collsched reads allgather, reducescatter, allreduce and alltoall MSCCL files, not broadcast (export broadcast from collsched instead, or convert the file)
    """

    def __init__(self, kind: str, *, ngpus: int, nchunks: int, inplace: bool, hosts=None):
        if kind not in KINDS:
            raise FormatError(f"collsched reads allgather, reducescatter, allreduce and alltoall MSCCL files, not {kind}",
                              fix="export broadcast from collsched instead, or convert the file")
        if nchunks % ngpus:
            raise FormatError(f"nchunksperloop {nchunks} is not a multiple of ngpus {ngpus}",
                              fix="a rank's block is nchunksperloop / ngpus chunks")
        self.kind, self.n, self.nchunks, self.inplace = kind, ngpus, nchunks, bool(inplace)
        self.per = nchunks // ngpus
        self.hosts = list(range(ngpus)) if hosts is None else list(hosts)
        self.denominator = self.per if kind in ("allgather", "alltoall") else nchunks
        self._all = reduced(0, range(ngpus))

    def sizes(self) -> dict[str, int]:
        """Chunks the input and output buffers need (``{"i": ..., "o": ...}``), as the runtime sizes them.

        Examples
        --------
        >>> Layout("allgather", ngpus=4, nchunks=8, inplace=False).sizes()
        {'i': 2, 'o': 8}
        """
        c, p = self.nchunks, self.per
        return {"allgather": {"i": p, "o": c}, "reducescatter": {"i": c, "o": p},
                "allreduce": {"i": c, "o": c}, "alltoall": {"i": c, "o": c}}[self.kind]

    def slot(self, g: int, buf: str, off: int) -> tuple[str, int]:
        """The storage ``(buffer, offset)`` that ``buf[off]`` of GPU ``g`` names (in place, one buffer holds both).

        Examples
        --------
        >>> Layout("allreduce", ngpus=2, nchunks=2, inplace=True).slot(0, "o", 1)
        ('i', 1)
        """
        if not self.inplace:
            return buf, off
        if self.kind == "allgather" and buf == "i":
            return "o", g * self.per + off
        if self.kind == "reducescatter" and buf == "o":
            return "i", g * self.per + off
        if self.kind in ("allreduce", "alltoall") and buf == "o":
            return "i", off
        return buf, off

    def _block(self, src: int, dst: int) -> Value:
        return block(0, self.hosts[src], -1 if dst < 0 else self.hosts[dst])

    def initial(self, g: int) -> dict[tuple[str, int], tuple[Value, int]]:
        """What GPU ``g``'s storage holds before the first step.

        Examples
        --------
        >>> Layout("allgather", ngpus=2, nchunks=2, inplace=True).initial(1)
        {('o', 1): (m[1→*]@0, 0)}
        """
        p, out = self.per, {}
        if self.kind == "allgather":
            for k in range(p):
                out[self.slot(g, "i", k)] = (self._block(g, -1), k)
        elif self.kind == "alltoall":
            for j in range(self.nchunks):
                out[self.slot(g, "i", j)] = (self._block(g, j // p), j % p)
        else:
            mine = reduced(0, [g])
            for j in range(self.nchunks):
                out[self.slot(g, "i", j)] = (mine, j)
        return out

    def expected(self, g: int) -> dict[tuple[str, int], tuple[Value, int]]:
        """What GPU ``g``'s output chunks must hold at the end, by storage slot.

        Examples
        --------
        >>> Layout("allgather", ngpus=2, nchunks=4, inplace=False).expected(0)[("o", 3)]
        (m[1→*]@0, 1)
        """
        p, out = self.per, {}
        if self.kind == "allgather":
            for j in range(self.nchunks):
                out[self.slot(g, "o", j)] = (self._block(j // p, -1), j % p)
        elif self.kind == "alltoall":
            for j in range(self.nchunks):
                out[self.slot(g, "o", j)] = (self._block(j // p, g), j % p)
        elif self.kind == "reducescatter":
            for k in range(p):
                out[self.slot(g, "o", k)] = (self._all, g * p + k)
        else:
            for j in range(self.nchunks):
                out[self.slot(g, "o", j)] = (self._all, j)
        return out

    def output_name(self, slot: tuple[str, int], g: int) -> str:
        """How a user names a storage slot: ``output chunk 3`` (its output offset where it has one).

        Examples
        --------
        >>> Layout("reducescatter", ngpus=2, nchunks=4, inplace=True).output_name(("i", 3), 1)
        'output chunk 1'
        """
        for j in range(self.sizes()["o"]):
            if self.slot(g, "o", j) == slot:
                return f"output chunk {j}"
        return {"i": "input", "o": "output", "s": "scratch"}[slot[0]] + f" chunk {slot[1]}"
