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
broadcast      the root's: ``m[root→*]``         ``m[root→*]`` fragment ``j``     ``C``
               fragment ``j``; others: nothing   (every GPU, the root too)
reduce         ``v[g..g]`` fragment ``j``        the root's: ``v[0..N-1]``        ``C``
               (``C`` chunks)                    fragment ``j``; others: none
============== ================================ ============================== ============

Broadcast and reduce are rooted: the file does not name its root (the
runtime takes it from the call; msccl-tools bakes it into the algorithm),
so the reader finds it (:func:`find_root`). A reduce's chunks are
collsched's ordered partial results ``v[k..m]`` (operand ``g`` is GPU
``g``'s vector), so a reduce file is read as :class:`~collsched.Reduce`;
the runtime's operators (sum, product, min, max) are commutative, and a
file that combines operand ranges that are not adjacent is refused with
the step that does it.

In place, the input is a part of the output (allgather: input chunk ``j``
is output chunk ``g·per + j``), or the output a part of the input
(reducescatter: output chunk ``j`` is input chunk ``g·per + j``; allreduce,
alltoall, broadcast and reduce: the same chunks). :meth:`Layout.slot` maps every
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
from ...schedules.values import Value, block, partial, reduced

__all__ = ["Layout", "KINDS", "ROOTED", "token_text", "find_root"]

KINDS = ("allgather", "reducescatter", "allreduce", "alltoall", "broadcast", "reduce")
"""Collectives whose chunks collsched maps to values (custom files are not read)."""
ROOTED = ("broadcast", "reduce")
"""Collectives with a root GPU."""


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
    root : int, optional
        The root GPU of a broadcast or reduce (required for them).

    Raises
    ------
    FormatError
        ``kind`` is not one of :data:`KINDS`, ``nchunks`` is not a multiple
        of ``ngpus`` (rooted collectives excepted), a rooted collective without a root.

    Examples
    --------
    >>> Layout("alltoall", ngpus=2, nchunks=2, inplace=False).initial(0)
    {('i', 0): (m[0→0]@0, 0), ('i', 1): (m[0→1]@0, 0)}
    >>> Layout("custom", ngpus=2, nchunks=2, inplace=False)
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: collsched reads allgather, reducescatter, allreduce, alltoall, broadcast and reduce MSCCL files, not custom (convert the file to one of those collectives)
    >>> Layout("reduce", ngpus=3, nchunks=2, inplace=True, root=1).expected(1)
    {('i', 0): (v[0..2]@0, 0), ('i', 1): (v[0..2]@0, 1)}
    """

    def __init__(self, kind: str, *, ngpus: int, nchunks: int, inplace: bool, hosts=None, root: int | None = None):
        if kind not in KINDS:
            raise FormatError(f"collsched reads {', '.join(KINDS[:-1])} and {KINDS[-1]} MSCCL files, not {kind}",
                              fix="convert the file to one of those collectives")
        if kind in ROOTED and (root is None or not 0 <= root < ngpus):
            raise FormatError(f"a {kind} needs its root GPU, got {root}", fix=f"give a root 0..{ngpus - 1}")
        if nchunks % ngpus and kind not in ROOTED:
            raise FormatError(f"nchunksperloop {nchunks} is not a multiple of ngpus {ngpus}",
                              fix="a rank's block is nchunksperloop / ngpus chunks")
        self.kind, self.n, self.nchunks, self.inplace, self.root = kind, ngpus, nchunks, bool(inplace), root
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
        return {"allgather": {"i": p, "o": c}, "reducescatter": {"i": c, "o": p}}.get(self.kind, {"i": c, "o": c})

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
        if self.kind in ("allreduce", "alltoall", "broadcast", "reduce") and buf == "o":
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
        elif self.kind == "broadcast":
            if g == self.root:
                out = {self.slot(g, "i", j): (self._block(g, -1), j) for j in range(self.nchunks)}
        elif self.kind == "reduce":
            out = {self.slot(g, "i", j): (partial(0, g, g), j) for j in range(self.nchunks)}
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
        elif self.kind == "broadcast":
            out = {self.slot(g, "o", j): (self._block(self.root, -1), j) for j in range(self.nchunks)}
        elif self.kind == "reduce":
            if g == self.root:
                out = {self.slot(g, "o", j): (partial(0, 0, self.n - 1), j) for j in range(self.nchunks)}
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


def find_root(algo) -> int:
    """The root GPU of a broadcast (the one GPU that receives nothing) or a reduce (the one that sends nothing).

    Steps with ``cnt="0"`` move nothing and do not count.

    Parameters
    ----------
    algo : Algo
        A parsed broadcast or reduce file.

    Returns
    -------
    int

    Raises
    ------
    FormatError
        No GPU, or several, qualify.

    Examples
    --------
    >>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
    >>> find_root(parse_text(EXAMPLE.replace('coll="allgather"', 'coll="broadcast"'), source="b.xml"))
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: b.xml:1: broadcast: every gpu receives, so none is the root (the root of a broadcast receives nothing)
    """
    from .xml_read import RECEIVES, SENDS

    kinds = RECEIVES if algo.coll == "broadcast" else SENDS
    verb = "receives" if algo.coll == "broadcast" else "sends"
    free = [g.id for g in algo.gpus if not any(st.type in kinds and st.cnt > 0 for tb in g.tbs for st in tb.steps)]
    if len(free) == 1:
        return free[0]
    if not free:
        raise FormatError(f"{algo.coll}: every gpu {verb}, so none is the root", where=algo.where(algo.line),
                          fix=f"the root of a {algo.coll} {verb} nothing")
    raise FormatError(f"{algo.coll}: gpus {', '.join(map(str, free[:4]))} all {verb.rstrip('s')} nothing, so the root "
                      "is ambiguous", where=algo.where(algo.line), fix=f"every gpu but the root {verb}")
