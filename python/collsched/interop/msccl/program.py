"""An MSCCL algorithm as a collsched :class:`~collsched.schedules.program.Program`, with the collective it claims.

:func:`to_program` runs the file the way the runtime does, on symbolic
chunks (:mod:`~collsched.interop.msccl.layout`):

* each thread block runs its steps in order; a step also waits for the step
  its ``depid``/``deps`` names (same GPU);
* a receiving step (``r``, ``rcs``, ``rrs``, ``rrc``, ``rrcs``) pairs with
  the next sending step (``s``, ``rcs``, ``rrs``, ``rrcs``) of the thread
  block of its ``recv`` peer that sends to this GPU on the same channel, in
  order; both move ``cnt`` contiguous chunks;
* a step with ``cnt="0"`` moves nothing and pairs with nothing: the
  runtime's loop over a step's chunks runs zero times (msccl-executor-nccl
  ``src/device/msccl_kernel.cu:245``, ``for (int c = 0; c < count; ...)``;
  microsoft/msccl ``src/collectives/device/msccl_interpreter.h:146``), so
  it only waits for its dependencies and signals ``hasdep`` like a ``nop``
  (:mod:`~collsched.interop.msccl.lint` warns about it);
* ``rrs``/``rrc``/``rrcs`` reduce what arrives with ``srcbuf[srcoff:]``
  (``rrc``/``rrcs`` store it at ``dstbuf[dstoff:]``, ``rrs``/``rrcs`` send
  it on); ``re`` reduces ``srcbuf`` into ``dstbuf`` locally; ``cpy`` copies
  ``srcbuf`` to ``dstbuf``; ``nop`` only waits; RCCL's ``<copy>`` copies
  input to output before the first step;
* GPU ``g`` is the host ``ranks[g]`` (default: the platform's first hosts);
  a broadcast's or reduce's root is found by
  :func:`~collsched.interop.msccl.layout.find_root`.

In the Program, a send step is a ``send``, a receive a ``recv`` (the
message carries the chunks' values as pieces), a reduction a ``compute``
combining the pieces (cost: the collective's ``task_cost`` pro rata of the
chunks; 0 by default), and ``cpy``, ``nop`` and ``<copy>`` a ``compute`` of
cost 0 with no pieces (it takes no time; it only carries the step's
dependencies). The chunks each GPU's output holds at the end are compared
with what the collective promises; the Program then goes through
:func:`collsched.validate` like any algorithm's.

Examples
--------
>>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
>>> imp = to_program(parse_text(EXAMPLE))
>>> imp.collective.kind, imp.program, imp.chunk_bytes
('allgather', <Program 'ring2': 2 ranks, 4 ops, 2 messages>, 1048576.0)
>>> [str(op) for op in imp.program][:2]
['Op(0: h0 send msg 0 to h1 1.04858e+06B [m[0→*]@0[0:1]] after ())', 'Op(1: h1 send msg 1 to h0 1.04858e+06B [m[1→*]@0[0:1]] after ())']
>>> bad = EXAMPLE.replace('type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0"', 'type="r" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1"')
>>> to_program(parse_text(bad, source="bad.xml"))
Traceback (most recent call last):
...
collsched.errors.ValidationError: bad.xml:12: gpu 1 tb 0 step 1: output chunk 1 holds m[0→*]@0 fragment 0, expected m[1→*]@0 fragment 0; output chunk 0 is never written (the file does not implement allgather)
"""

from __future__ import annotations

from dataclasses import dataclass


from ...collectives import AllGather, AllReduce, AllToAll, Broadcast, Reduce, ReduceScatter
from ...errors import FormatError, ValidationError
from ...schedules.program import COMPUTE, RECV, SEND, Program, piece_row, program_of_columns
from ...schedules.values import PARTIAL, REDUCED, Piece, Value
from .deadlock import order
from .layout import ROOTED, Layout, find_root, token_text
from .races import accesses, first_race
from .xml_read import RECEIVES, SENDS, Algo, Step

__all__ = ["Imported", "to_program", "DEFAULT_SIZE"]

DEFAULT_SIZE = float(2 ** 20)
"""The collective's ``size`` when none is given (1 MiB: an allgather's block, a reducescatter's result block,
an allreduce's vector, an alltoall's message)."""


@dataclass(frozen=True)
class Imported:
    """An MSCCL file read into collsched.

    Attributes
    ----------
    algo : Algo
        The parsed file.
    program : Program
        One loop of the algorithm; its ranks are the hosts of the GPUs, in GPU order.
    collective : Collective
        What the file claims to implement, on those hosts, with the ``size`` asked for.
    chunk_bytes : float
        Bytes of one chunk.
    inplace : bool
        The mode the program was read in.

    Examples
    --------
    >>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
    >>> imp = to_program(parse_text(EXAMPLE), size=8e6)
    >>> imp.collective, imp.chunk_bytes, imp.inplace
    (AllGather(participants=('h0', 'h1'), size=8000000.0), 8000000.0, True)
    """

    algo: Algo
    program: Program
    collective: object
    chunk_bytes: float
    inplace: bool


def _collective(kind: str, hosts, size: float, task_cost: float, root: int | None):
    if kind == "broadcast":
        return Broadcast(source=hosts[root], targets=[h for h in hosts if h != hosts[root]], size=size)
    if kind == "reduce":
        return Reduce(participants=hosts, target=hosts[root], size=size, task_cost=task_cost)
    if kind == "allgather":
        return AllGather(participants=hosts, size=size)
    if kind == "reducescatter":
        return ReduceScatter(participants=hosts, size=size, task_cost=task_cost)
    if kind == "allreduce":
        return AllReduce(participants=hosts, size=size, task_cost=task_cost)
    return AllToAll(senders=hosts, size=size)


def _chunk_bytes(lay: Layout, size: float) -> float:
    """Bytes of a chunk when the collective's ``size`` is ``size`` (see :data:`DEFAULT_SIZE`)."""
    if lay.kind in ("allgather", "alltoall"):
        return size / lay.per
    if lay.kind == "reducescatter":
        return size * lay.n / lay.nchunks
    return size / lay.nchunks   # allreduce, broadcast, reduce: size is the whole vector


class _Columns:
    """The columns of a Program, appended op by op (ops come in an order where every dependency is earlier)."""

    def __init__(self):
        self.rank, self.kind, self.peer, self.msg, self.size = [], [], [], [], []
        self.deps: list[tuple[int, ...]] = []
        self.pieces: list[list[tuple[int, ...]]] = []
        self.sets: dict[int, int] = {}
        self.messages = 0

    def add(self, rank, kind, peer, msg, size, pieces, deps) -> int:
        self.rank.append(rank)
        self.kind.append(kind)
        self.peer.append(peer)
        self.msg.append(msg)
        self.size.append(float(size))
        self.deps.append(tuple(sorted(set(deps))))
        self.pieces.append([piece_row(p, self.sets) for p in pieces])
        return len(self.rank) - 1

    def build(self, ranks, denominator: int, name: str) -> Program:
        return program_of_columns(ranks, denominator, name, self.rank, self.kind, self.peer, self.msg, self.size,
                                  self.deps, self.pieces, self.sets)


def _pieces(tokens) -> list[Piece]:
    """Chunk contents as pieces, adjacent fragments of one value merged."""
    out: list[Piece] = []
    for value, k in tokens:
        if out and out[-1].value == value and out[-1].end == k:
            out[-1] = Piece(value, out[-1].start, k + 1)
        else:
            out.append(Piece(value, k, k + 1))
    return out


def _combine(a, b, st: Step):
    """The reduction of two chunk contents (disjoint operand sets, or adjacent operand ranges, of one fragment)."""
    va, ka = a
    vb, kb = b
    if va.kind == PARTIAL and vb.kind == PARTIAL and ka == kb:
        lo, hi = (va, vb) if va.a < vb.a else (vb, va)
        if lo.b + 1 != hi.a:
            raise ValidationError(f"{st.at}: reduces {token_text(a)} with {token_text(b)}, operand ranges that are "
                                  "not adjacent", fix="collsched reads a reduce as ordered partial results "
                                  "v[k..m]: combine adjacent ranges")
        return Value(PARTIAL, 0, lo.a, hi.b), ka
    if va.kind != REDUCED or vb.kind != REDUCED:
        raise ValidationError(f"{st.at}: reduces {token_text(a)} with {token_text(b)}, which are not operands "
                              "of a reduction", fix="reduce only in reducescatter and allreduce files")
    if ka != kb:
        raise ValidationError(f"{st.at}: reduces fragment {ka} with fragment {kb} ({token_text(a)}, "
                              f"{token_text(b)})", fix="reduce chunks at the same offset of the vector")
    if va.a & vb.a:
        raise ValidationError(f"{st.at}: reduces {token_text(a)} with {token_text(b)}: an operand would be "
                              "counted twice", fix="reduce disjoint partial sums")
    return Value(REDUCED, 0, va.a | vb.a, 0), ka


class _Run:
    """The symbolic execution of one MSCCL file (see the module docstring)."""

    def __init__(self, algo: Algo, lay: Layout, chunk: float, task_cost: float):
        self.algo, self.lay, self.chunk, self.task_cost = algo, lay, chunk, task_cost
        self.steps: list[Step] = []
        self.tb_peer: list[tuple[int, int]] = []
        index = {}
        for g in algo.gpus:
            for tb in g.tbs:
                for st in tb.steps:
                    index[(g.id, tb.id, st.s)] = len(self.steps)
                    self.steps.append(st)
                    self.tb_peer.append((tb.send, tb.recv))
        self.index = index
        self.state = [dict(lay.initial(g.id)) for g in algo.gpus]
        self.writer: list[dict] = [dict() for _ in algo.gpus]
        self.cols = _Columns()
        self.last_op = [-1] * len(self.steps)
        self.sent: dict[int, tuple[int, list]] = {}

    def where(self, line: int) -> str:
        return self.algo.where(line)

    def waits(self) -> tuple[list[list[int]], dict[int, int]]:
        """What each step waits for, and the send each receiving step pairs with."""
        algo = self.algo
        waits: list[list[int]] = [[] for _ in self.steps]
        queues: dict[tuple[int, int, int], list[int]] = {}
        owners: dict[tuple[str, int, int, int], int] = {}
        for g in algo.gpus:
            for tb in g.tbs:
                for role, peer in (("send", tb.send), ("recv", tb.recv)):
                    if peer < 0:
                        continue
                    key = (role, g.id, peer, tb.chan)
                    if key in owners and any((st.type in SENDS if role == "send" else st.type in RECEIVES)
                                             for st in tb.steps):
                        raise FormatError(f"gpu {g.id}: tb {owners[key]} and tb {tb.id} both {role} "
                                          f"{'to' if role == 'send' else 'from'} gpu {peer} on channel {tb.chan}",
                                          where=self.where(tb.line),
                                          fix="give each peer one thread block per direction and channel")
                    owners.setdefault(key, tb.id)
                for st in tb.steps:
                    i = self.index[(g.id, tb.id, st.s)]
                    if st.s > 0:
                        waits[i].append(i - 1)
                    if st.depid >= 0:
                        waits[i].append(self.index[(g.id, st.depid, st.deps)])
                    if st.type in SENDS and st.cnt > 0:
                        queues.setdefault((g.id, tb.send, tb.chan), []).append(i)
        pairs: dict[int, int] = {}
        taken: dict[tuple[int, int, int], int] = {}
        for g in algo.gpus:
            for tb in g.tbs:
                for st in tb.steps:
                    if st.type not in RECEIVES or st.cnt == 0:
                        continue
                    key = (tb.recv, g.id, tb.chan)
                    sends = queues.get(key, [])
                    k = taken.get(key, 0)
                    if k >= len(sends):
                        raise ValidationError(f"{st.at}: receives from gpu {tb.recv} on channel {tb.chan}, but "
                                              f"gpu {tb.recv} sends only {len(sends)} times to gpu {g.id} there",
                                              where=self.where(st.line),
                                              fix="pair every receive with a send of the peer, in order")
                    taken[key] = k + 1
                    s = sends[k]
                    if self.steps[s].cnt != st.cnt:
                        raise ValidationError(f"{st.at}: receives {st.cnt} chunks but its send "
                                              f"({self.steps[s].where}) sends {self.steps[s].cnt}",
                                              where=self.where(st.line), fix="give paired steps the same cnt")
                    i = self.index[(g.id, tb.id, st.s)]
                    pairs[i] = s
                    waits[i].append(s)
        for key, sends in queues.items():
            if taken.get(key, 0) < len(sends):
                st = self.steps[sends[taken.get(key, 0)]]
                raise ValidationError(f"{st.at}: sends to gpu {key[1]} on channel {key[2]}, but no receive of "
                                      f"gpu {key[1]} pairs with it", where=self.where(st.line),
                                      fix="add the receiving step, or remove the send")
        return waits, pairs

    def read(self, g: int, buf: str, off: int, cnt: int, st: Step) -> list:
        out = []
        for x in range(off, off + cnt):
            slot = self.lay.slot(g, buf, x)
            token = self.state[g].get(slot)
            if token is None:
                raise ValidationError(f"{st.at}: reads {buf}[{x}], which holds nothing yet (no step before it "
                                      "writes there)", where=self.where(st.line),
                                      fix="make the step depend on the step that brings the chunk")
            out.append(token)
        return out

    def write(self, g: int, buf: str, off: int, tokens, st: Step) -> None:
        for x, token in enumerate(tokens):
            slot = self.lay.slot(g, buf, off + x)
            self.state[g][slot] = token
            self.writer[g][slot] = st

    def reduce(self, g: int, st: Step, local, incoming, deps) -> tuple[list, int]:
        """Compute ops combining ``incoming`` with ``local`` chunk by chunk (adjacent chunks in one op)."""
        try:
            results = [_combine(a, b, st) for a, b in zip(local, incoming)]
        except ValidationError as exc:
            raise ValidationError(exc.what, where=self.where(st.line), fix=exc.fix) from None
        last = -1
        x = 0
        while x < len(results):
            y = x + 1
            while y < len(results) and results[y][0] == results[x][0] and local[y][0] == local[x][0] \
                    and incoming[y][0] == incoming[x][0] and results[y][1] == results[y - 1][1] + 1:
                y += 1
            first, second = local[x:y], incoming[x:y]
            if first[0][0].kind == PARTIAL and first[0][0].a > second[0][0].a:
                first, second = second, first   # ordered operands: the lower range on the left
            ins = _pieces(first) + _pieces(second)
            out = _pieces(results[x:y])[0]
            cost = self.task_cost * (y - x) / self.lay.nchunks
            last = self.cols.add(g, COMPUTE, -1, -1, cost, ins + [out], deps)
            deps = [last]
            x = y
        return results, last

    def run(self, i: int, pairs: dict[int, int], waits: list[list[int]]) -> None:
        st, cols = self.steps[i], self.cols
        g = st.gpu
        send_peer, recv_peer = self.tb_peer[i]
        deps = [self.last_op[w] for w in waits[i] if w not in (pairs.get(i),)]
        kind = "nop" if st.cnt == 0 else st.type
        if kind in ("nop", "cpy"):
            self.last_op[i] = cols.add(g, COMPUTE, -1, -1, 0.0, (), deps)
            if kind == "cpy":
                self.write(g, st.dstbuf, st.dstoff, self.read(g, st.srcbuf, st.srcoff, st.cnt, st), st)
            return
        if kind == "re":
            local = self.read(g, st.dstbuf, st.dstoff, st.cnt, st)
            results, last = self.reduce(g, st, local, self.read(g, st.srcbuf, st.srcoff, st.cnt, st), deps)
            self.write(g, st.dstbuf, st.dstoff, results, st)
            self.last_op[i] = last
            return
        tokens = None
        if kind in RECEIVES:
            msg, tokens = self.sent.pop(pairs[i])
            deps = [cols.add(g, RECV, recv_peer, msg, st.cnt * self.chunk, (), deps)]
            self.last_op[i] = deps[0]
            if kind in ("rrs", "rrc", "rrcs"):
                tokens, last = self.reduce(g, st, self.read(g, st.srcbuf, st.srcoff, st.cnt, st), tokens, deps)
                deps = [last]
                self.last_op[i] = last
            if kind in ("r", "rcs", "rrc", "rrcs"):
                self.write(g, st.dstbuf, st.dstoff, tokens, st)
        if kind in SENDS:
            if tokens is None:
                tokens = self.read(g, st.srcbuf, st.srcoff, st.cnt, st)
            msg = cols.messages
            cols.messages += 1
            self.last_op[i] = cols.add(g, SEND, send_peer, msg, st.cnt * self.chunk, _pieces(tokens), deps)
            self.sent[i] = (msg, tokens)

    def finish(self) -> None:
        """Compare each GPU's output with what the collective promises; raise naming the first GPU that differs."""
        for g in self.algo.gpus:
            have = self.state[g.id]
            wrong, empty = [], []
            for slot, want in self.lay.expected(g.id).items():
                got = have.get(slot)
                if got == want:
                    continue
                (empty if got is None else wrong).append((slot, got, want))
            if not wrong and not empty:
                continue
            parts = []
            line = g.line
            at = f"gpu {g.id}"
            if wrong:
                slot, got, want = wrong[0]
                st = self.writer[g.id].get(slot)
                if st is not None:
                    at, line = st.at, st.line
                parts.append(f"{self.lay.output_name(slot, g.id)} holds {token_text(got)}, expected {token_text(want)}")
            if empty:
                names = [self.lay.output_name(s, g.id) for s, _, _ in empty]
                shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
                parts.append(f"{shown} {'is' if len(names) == 1 else 'are'} never written")
            raise ValidationError(f"{at}: " + "; ".join(parts), where=self.where(line),
                                  fix=f"the file does not implement {self.lay.kind}")


def to_program(algo: Algo, platform=None, *, size: float = DEFAULT_SIZE, task_cost: float = 0.0,
               inplace: bool | None = None, ranks=None) -> Imported:
    """Run an MSCCL file symbolically: the Program it executes and the collective it claims.

    Parameters
    ----------
    algo : Algo
        From :func:`~collsched.interop.msccl.xml_read.parse`.
    platform : Platform, optional
        Where the GPUs are (default: hosts ``h0 .. h{N-1}``).
    size : float
        The collective's ``size`` (see :data:`DEFAULT_SIZE`); a chunk is its share.
    task_cost : float
        Reductions: flop to combine two whole vectors (pro rata per chunk).
    inplace : bool, optional
        The mode to run (default: in place if the file says ``inplace="1"``).
    ranks : sequence of str, optional
        The host of GPU ``0, 1, ...`` (default: the platform's first ``ngpus`` hosts).

    Returns
    -------
    Imported

    Raises
    ------
    FormatError
        A collective collsched does not read (custom), a chunk count that
        is not a multiple of ``ngpus``, two thread blocks of a GPU on the
        same peer, direction and channel, a platform with fewer hosts than
        ``ngpus``, ``ranks`` that are not ``ngpus`` distinct hosts of the
        platform, a broadcast or reduce whose root is not clear.
    ValidationError
        A deadlock (naming the cycle of waits), a receive with no send or a
        send with no receive, a chunk read before anything is written there,
        a reduction of overlapping sums or of different fragments, an output
        chunk that does not end with the value the collective promises
        (naming the step that wrote it last, or the chunks never written).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.interop.msccl.xml_read import EXAMPLE, parse_text
    >>> g = cs.topologies.dgx2(1)
    >>> imp = to_program(parse_text(EXAMPLE), g)
    >>> imp.program.ranks, imp.program.denominator
    (('h0', 'h1'), 1)
    >>> cs.validate(g, imp.collective, imp.program)
    >>> to_program(parse_text(EXAMPLE), g, ranks=["h5", "h3"]).collective.participants
    ('h5', 'h3')
    """
    n = len(algo.gpus)
    hosts, index = _ranks(algo, platform, ranks)
    mode = algo.inplace if inplace is None else inplace
    try:
        root = find_root(algo) if algo.coll in ROOTED else None
        lay = Layout(algo.coll, ngpus=n, nchunks=algo.nchunksperloop, inplace=mode, hosts=index, root=root)
    except FormatError as exc:
        raise FormatError(exc.what, where=algo.where(algo.line), fix=exc.fix) from None
    _check_sizes(algo, lay)
    chunk = _chunk_bytes(lay, float(size))
    run = _Run(algo, lay, chunk, task_cost)
    waits, pairs = run.waits()
    steps = run.steps

    def describe(i: int) -> str:
        return steps[i].where

    try:
        sequence = order(waits, describe)
    except ValidationError as exc:  # the message names each step with its line
        raise ValidationError(exc.what, where=algo.source, fix=exc.fix) from None
    for g in algo.gpus:
        for c in g.copies:
            st = Step(g.id, -1, -1, "cpy", "i", c.i_off, "o", c.o_off, c.cnt, -1, -1, c.line)
            run.write(g.id, "o", c.o_off, run.read(g.id, "i", c.i_off, c.cnt, st), st)
    for i in sequence:
        run.run(i, pairs, waits)
    run.finish()
    _check_races(run, waits, sequence)
    program = run.cols.build(hosts, lay.denominator, algo.name or "msccl")
    return Imported(algo, program, _collective(lay.kind, hosts, float(size), task_cost, root), chunk, mode)


def _ranks(algo: Algo, platform, ranks) -> tuple[list, list]:
    """The host of each GPU and its index in the platform (see :func:`to_program`)."""
    n = len(algo.gpus)
    if platform is None:
        hosts = [f"h{g}" for g in range(n)] if ranks is None else [str(h) for h in ranks]
        if len(set(hosts)) != n:
            raise FormatError(f"ranks names {len(set(hosts))} distinct hosts for {n} gpus", where=algo.where(algo.line),
                              fix="give one host per gpu")
        return hosts, list(range(n))
    if ranks is None:
        if len(platform.hosts) < n:
            raise FormatError(f"the file has {n} gpus, the platform {len(platform.hosts)} hosts",
                              where=algo.where(algo.line), fix="simulate it on a platform with as many GPUs")
        hosts = list(platform.hosts[:n])
    else:
        hosts = [str(h) for h in ranks]
        unknown = [h for h in hosts if h not in set(platform.hosts)]
        if len(hosts) != n or len(set(hosts)) != n or unknown:
            what = f"host {unknown[0]!r} is not a host of the platform" if unknown else \
                f"{len(set(hosts))} distinct hosts for {n} gpus"
            raise FormatError(f"ranks: {what}", where=algo.where(algo.line),
                              fix="give the platform's host of every gpu, in gpu order")
    return hosts, [platform.host_index(h) for h in hosts]


def _check_races(run: _Run, waits, sequence) -> None:
    """Raise naming the first two steps of a GPU that touch one chunk unordered (:mod:`.races`)."""
    steps, lay = run.steps, run.lay
    access = [accesses(st, lambda buf, off, g=st.gpu: lay.slot(g, buf, off)) for st in steps]
    race = first_race(access, [st.tb for st in steps], waits, [st.gpu for st in steps], sequence)
    if race is None:
        return
    a, b, slot = race
    sa, sb = steps[a], steps[b]
    verb = {True: "writes", False: "reads"}
    wa = any(s == slot and m == "w" for s, m in access[a])
    wb = any(s == slot and m == "w" for s, m in access[b])
    name = f"{slot[0]}[{slot[1]}]"
    raise ValidationError(f"gpu {sa.gpu}: race on {name}: tb {sa.tb} step {sa.s} {verb[wa]} it and tb {sb.tb} step "
                          f"{sb.s} {verb[wb]} it, and no dependency orders them (thread blocks run concurrently)",
                          where=run.where(sb.line), fix="make one wait for the other with depid/deps")


def _check_sizes(algo: Algo, lay: Layout) -> None:
    """Input and output buffers as large as the collective needs (in place: the one that holds both)."""
    need = lay.sizes()
    for g in algo.gpus:
        for buf in ("i", "o"):
            if lay.slot(g.id, buf, 0)[0] != buf:
                continue  # in place: this buffer is a part of the other
            if g.chunks(buf) != need[buf]:
                name = {"i": "i_chunks", "o": "o_chunks"}[buf]
                raise FormatError(f"gpu {g.id}: {name} is {g.chunks(buf)}, but {lay.kind} over {lay.n} gpus with "
                                  f"nchunksperloop {lay.nchunks} needs {need[buf]}", where=algo.where(g.line),
                                  fix=f"set {name}=\"{need[buf]}\"")
