"""What every executor returns: a :class:`Trace` of a program's run and a :class:`SimResult`.

The built-in simulator, the SimGrid backend and (later) the MPI runtime all
return these types, so a report can put their answers side by side; they live
beside :class:`~collsched.schedules.program.Program` so that no executor
imports another.

A :class:`Trace` is column-wise like a program: per operation its rank, kind,
message, peer, size, start and end (seconds, numpy arrays). A
:class:`SimResult` adds the metrics: makespan, throughput of a series, busy
seconds per node port and CPU, busy seconds and utilisation per link.

Examples
--------
>>> import numpy as np
>>> from collsched.schedules.program import ProgramBuilder
>>> b = ProgramBuilder(["a", "b"])
>>> _ = b.send("a", "b", [], size=100)
>>> prog = b.build()
>>> t = Trace.of_program(prog, start=np.array([0.0, 0.0]), end=np.array([1.5, 2.0]))
>>> t.makespan, t.by_rank("b").tolist()
(2.0, [1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .program import COMPUTE, OP_KINDS, RECV, SEND

if TYPE_CHECKING:  # pragma: no cover
    from .program import Program

__all__ = ["Trace", "SimResult", "BACKENDS"]

BACKENDS = ("collsched", "simgrid", "mpi")


def _frozen(a, dtype) -> np.ndarray:
    """``a`` as a read-only 1-D array of ``dtype``: kept as it is if it already is one and views no other array
    (a program's columns, an executor's fresh results made read-only), else copied."""
    if (isinstance(a, np.ndarray) and a.dtype == dtype and a.ndim == 1 and not a.flags.writeable
            and not isinstance(a.base, np.ndarray)):
        return a
    a = np.array(a, dtype=dtype, copy=True).reshape(-1)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Trace:
    """When every operation of a program ran (one entry per op, in program op order).

    Parameters
    ----------
    ranks : tuple of str
        Node ids of the ranks (the program's).
    rank, kind, msg, peer : numpy int64 arrays
        Rank index, kind (0 send, 1 recv, 2 compute), message id (-1 for a
        computation), peer rank index (-1 for a computation), as in the program.
    size : numpy float64 array
        Bytes (messages) or flop (computations).
    start, end : numpy float64 arrays
        Seconds. A send starts when its message starts moving and ends when
        the sender is free again; a receive ends when its data is delivered,
        never before it is posted (each model's docstring says when its
        receives start); a computation runs from start to end on its rank's CPU.

    Notes
    -----
    The arrays are copied and made read-only at construction, except those
    already read-only, of their dtype and not a view of another array (a
    program's columns), which are shared.

    Examples
    --------
    >>> import numpy as np
    >>> t = Trace(("a",), rank=[0, 0], kind=[2, 2], msg=[-1, -1], peer=[-1, -1], size=[1e9, 2e9],
    ...           start=[0.0, 1.0], end=[1.0, 3.0])
    >>> t.n_ops, t.makespan, t.duration.tolist()
    (2, 3.0, [1.0, 2.0])
    """

    ranks: tuple[str, ...]
    rank: np.ndarray
    kind: np.ndarray
    msg: np.ndarray
    peer: np.ndarray
    size: np.ndarray
    start: np.ndarray
    end: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "ranks", tuple(self.ranks))
        for name in ("rank", "kind", "msg", "peer"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.int64))
        for name in ("size", "start", "end"):
            object.__setattr__(self, name, _frozen(getattr(self, name), np.float64))
        n = self.rank.shape[0]
        for name in ("kind", "msg", "peer", "size", "start", "end"):
            if getattr(self, name).shape[0] != n:
                raise ValueError(f"trace column {name!r} has {getattr(self, name).shape[0]} entries, expected {n}")

    @classmethod
    def of_program(cls, program: Program, start: np.ndarray, end: np.ndarray) -> Trace:
        """The trace of ``program`` given the start and end time of each of its operations.

        Parameters
        ----------
        program : Program
        start, end : array_like of float
            One entry per operation of the program, in op order.

        Returns
        -------
        Trace

        Examples
        --------
        >>> from collsched.schedules.program import ProgramBuilder
        >>> b = ProgramBuilder(["a"])
        >>> _ = b.compute("a", [], None, cost=5)
        >>> Trace.of_program(b.build(), [0.0], [5e-9]).end.tolist()
        [5e-09]
        """
        return cls(program.ranks, program.op_rank, program.op_kind, program.op_msg, program.op_peer,
                   program.op_size, start, end)

    @property
    def n_ops(self) -> int:
        """Number of operations."""
        return int(self.rank.shape[0])

    @property
    def makespan(self) -> float:
        """Latest end time (0 for an empty trace)."""
        return float(self.end.max()) if self.n_ops else 0.0

    @property
    def duration(self) -> np.ndarray:
        """``end - start`` per operation."""
        return self.end - self.start

    def rank_index(self, rank: str | int) -> int:
        """Index of ``rank`` (a rank name or an index).

        Examples
        --------
        >>> Trace(("a", "b"), [], [], [], [], [], [], []).rank_index("b")
        1
        """
        if isinstance(rank, (int, np.integer)) and not isinstance(rank, bool):
            if not 0 <= rank < len(self.ranks):
                raise ValueError(f"rank index {rank} out of range 0..{len(self.ranks) - 1}")
            return int(rank)
        try:
            return self.ranks.index(rank)
        except ValueError:
            raise ValueError(f"{rank!r} is not a rank of this trace (ranks: {', '.join(self.ranks[:6])}"
                             f"{', ...' if len(self.ranks) > 6 else ''})") from None

    def by_rank(self, rank: str | int, kind: str | None = None) -> np.ndarray:
        """Indices of the operations of ``rank`` (optionally of one ``kind``), by start time.

        Parameters
        ----------
        rank : str or int
        kind : {"send", "recv", "compute"}, optional

        Returns
        -------
        numpy int64 array
            Op indices, ordered by start time (then op index).

        Examples
        --------
        >>> t = Trace(("a",), [0, 0], [2, 0], [-1, 0], [-1, 0], [1, 8], [2.0, 0.0], [3.0, 1.0])
        >>> t.by_rank("a").tolist(), t.by_rank(0, "send").tolist()
        ([1, 0], [1])
        """
        mask = self.rank == self.rank_index(rank)
        if kind is not None:
            if kind not in OP_KINDS:
                raise ValueError(f"kind {kind!r} is not one of {', '.join(OP_KINDS)}")
            mask &= self.kind == OP_KINDS.index(kind)
        idx = np.flatnonzero(mask)
        return idx[np.lexsort((idx, self.start[idx]))]

    def busy(self, kind: str) -> np.ndarray:
        """Per rank, the summed duration of its operations of ``kind`` (seconds).

        For one-port models this is the busy time of the rank's send port,
        receive port or CPU; overlapping operations (as under ``Fluid``) are
        summed, not merged.

        Examples
        --------
        >>> t = Trace(("a", "b"), [0, 1], [0, 1], [0, 0], [1, 0], [8, 8], [0.0, 0.5], [1.0, 1.0])
        >>> t.busy("send").tolist(), t.busy("recv").tolist()
        ([1.0, 0.0], [0.0, 0.5])
        """
        if kind not in OP_KINDS:
            raise ValueError(f"kind {kind!r} is not one of {', '.join(OP_KINDS)}")
        out = np.zeros(len(self.ranks))
        mask = self.kind == OP_KINDS.index(kind)
        np.add.at(out, self.rank[mask], self.duration[mask])
        return out

    def __repr__(self) -> str:
        counts = [int(np.count_nonzero(self.kind == k)) for k in (SEND, RECV, COMPUTE)]
        return (f"<Trace: {len(self.ranks)} ranks, {counts[0]} sends, {counts[1]} recvs, {counts[2]} computes, "
                f"makespan {self.makespan:.6g} s>")


@dataclass(frozen=True, eq=False)
class SimResult:
    """The result of executing a program: trace and metrics, the same for every backend.

    Parameters
    ----------
    model : str
        The network model, as its ``repr`` (e.g. ``"Fluid(one_port=False, ties='fixed')"``).
    makespan : float
        Seconds from time 0 to the end of the last operation.
    throughput : float or None
        Instances per second of a series (``count / makespan``); None for one instance.
    trace : Trace
    send_busy, recv_busy, cpu_busy : numpy float64 arrays
        Per rank of the program (``trace.ranks`` order), seconds its send
        port, receive port and CPU were held.
    link_ids : tuple of str
        The platform's link ids, in platform order.
    link_busy : numpy float64 array
        Per link (``link_ids`` order), bytes carried divided by bandwidth:
        the busier direction of a full-duplex link, both directions together
        of a shared link. For a fatpipe link (every flow gets the full
        bandwidth) it is a load and may exceed the makespan.
    link_utilisation : numpy float64 array
        ``link_busy / makespan`` (0 when the makespan is 0).
    events : int
        Number of events the executor processed (stage ends for the
        built-in simulator; 0 if the backend does not say).
    backend : {"collsched", "simgrid", "mpi"}
        What executed the program.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2, bandwidth=1e6, latency=1e-3)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> r = cs.simulate(p, b.build(), model=cs.models.OnePort())
    >>> r.makespan, r.throughput, r.backend
    (1.002, None, 'collsched')
    >>> r.link_ids, r.link_busy.tolist(), r.send_busy.tolist()
    (('l0', 'l1'), [1.0, 1.0], [1.002, 0.0])
    """

    model: str
    makespan: float
    throughput: float | None
    trace: Trace
    send_busy: np.ndarray
    recv_busy: np.ndarray
    cpu_busy: np.ndarray
    link_ids: tuple[str, ...]
    link_busy: np.ndarray
    link_utilisation: np.ndarray
    events: int
    backend: str

    def __post_init__(self):
        if self.backend not in BACKENDS:
            raise ValueError(f"backend {self.backend!r} is not one of {', '.join(BACKENDS)}")
        n = len(self.trace.ranks)
        for name in ("send_busy", "recv_busy", "cpu_busy"):
            a = _frozen(getattr(self, name), np.float64)
            if a.shape[0] != n:
                raise ValueError(f"{name} has {a.shape[0]} entries for {n} ranks")
            object.__setattr__(self, name, a)
        object.__setattr__(self, "link_ids", tuple(self.link_ids))
        for name in ("link_busy", "link_utilisation"):
            a = _frozen(getattr(self, name), np.float64)
            if a.shape[0] != len(self.link_ids):
                raise ValueError(f"{name} has {a.shape[0]} entries for {len(self.link_ids)} links")
            object.__setattr__(self, name, a)
        object.__setattr__(self, "makespan", float(self.makespan))
        object.__setattr__(self, "events", int(self.events))
        if self.throughput is not None:
            object.__setattr__(self, "throughput", float(self.throughput))

    @property
    def ranks(self) -> tuple[str, ...]:
        """The program's ranks (node ids), the order of the per-node arrays."""
        return self.trace.ranks

    def link(self, link_id: str) -> tuple[float, float]:
        """``(busy seconds, utilisation)`` of one link.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2, bandwidth=1e6, latency=0.0)
        >>> b = cs.ProgramBuilder(p.hosts)
        >>> _ = b.send("h0", "h1", [], size=5e5)
        >>> cs.simulate(p, b.build()).link("l1")
        (0.5, 1.0)
        """
        try:
            i = self.link_ids.index(link_id)
        except ValueError:
            raise ValueError(f"unknown link {link_id!r}") from None
        return float(self.link_busy[i]), float(self.link_utilisation[i])

    def __repr__(self) -> str:
        tp = "" if self.throughput is None else f", throughput {self.throughput:.6g}/s"
        return (f"<SimResult {self.model} on {self.backend}: makespan {self.makespan:.6g} s{tp}, "
                f"{self.trace.n_ops} ops, {self.events} events>")
