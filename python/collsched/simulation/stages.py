"""The stage table: what the Python front hands to the event engine (see ``docs/engine.md``).

One activity per message (activity ``m`` is message ``m``), then one per
computation (activities ``M, M+1, ...`` in op order). An activity is a
sequence of stages; a stage is a *hold* (of exclusive resources, for a
duration), a *delay* (a duration, holding nothing) or a *flow* (bytes over
fluid channels at the max-min fair rate, holding its exclusive resources
while it lasts). Resources of rank ``r``: ``3r`` send port, ``3r+1``
receive port, ``3r+2`` CPU; models number further resources after
``3 * n_ranks``.

Examples
--------
>>> import numpy as np
>>> one = Part.uniform(2, [Slot(HOLD, np.array([1.0, 2.0]), res=np.array([[0, 4], [3, 1]]), needs_recv=True)])
>>> one.act_ptr.tolist(), one.res_ptr.tolist(), one.res.tolist()
([0, 1, 2], [0, 2, 4], [0, 4, 3, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["HOLD", "DELAY", "FLOW", "STAGE_KINDS", "StageTable", "Part", "Slot", "csr_rows"]

HOLD, DELAY, FLOW = 0, 1, 2
STAGE_KINDS = ("hold", "delay", "flow")

_I = np.int64


def _ints(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=_I).reshape(-1)


def _floats(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).reshape(-1)


def csr_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A CSR ``(ptr, idx)`` from a 2-D array with one row per item (all rows the same width).

    Examples
    --------
    >>> ptr, idx = csr_rows(np.array([[3, 4], [5, 6]]))
    >>> ptr.tolist(), idx.tolist()
    ([0, 2, 4], [3, 4, 5, 6])
    """
    rows = np.asarray(rows, dtype=_I)
    if rows.ndim == 1:
        rows = rows.reshape(-1, 1)
    n, k = rows.shape
    return np.arange(0, n * k + 1, k, dtype=_I) if n else np.zeros(1, _I), rows.reshape(-1).copy()


@dataclass
class Slot:
    """Stage ``j`` of every activity of a uniform part: one kind, per-activity amounts and sets.

    Parameters
    ----------
    kind : int
        HOLD, DELAY or FLOW.
    amount : numpy float array, one per activity
        Seconds (hold, delay) or bytes (flow).
    res : 2-D int array (one row per activity) or CSR ``(ptr, idx)``, optional
        Exclusive resources.
    chan : 2-D int array or CSR ``(ptr, idx)``, optional
        Fluid channels (flows only).
    cap : numpy float array, optional
        Per-flow rate cap (bytes/s); ``inf`` when absent.
    needs_recv : bool
        The stage may only start once its message's receive is posted.

    Examples
    --------
    >>> Slot(DELAY, np.zeros(3)).needs_recv
    False
    """

    kind: int
    amount: np.ndarray
    res: object = None
    chan: object = None
    cap: np.ndarray | None = None
    needs_recv: bool = False


def _as_csr(x, n: int) -> tuple[np.ndarray, np.ndarray]:
    if x is None:
        return np.zeros(n + 1, _I), np.zeros(0, _I)
    if isinstance(x, tuple):
        return _ints(x[0]), _ints(x[1])
    return csr_rows(x)


def _interleave(csrs: list[tuple[np.ndarray, np.ndarray]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Stage-major CSR (stage ``m*k + j``) from one per-slot CSR per ``j``."""
    k = len(csrs)
    counts = np.stack([np.diff(ptr) for ptr, _ in csrs], axis=1).reshape(-1) if n else np.zeros(0, _I)
    ptr = np.zeros(n * k + 1, _I)
    np.cumsum(counts, out=ptr[1:])
    filled = [j for j, (p, _) in enumerate(csrs) if p[-1] > p[0]]
    if len(filled) <= 1:  # one slot has entries (a model's usual case): they are already in stage order
        p, idx = csrs[filled[0]] if filled else (None, np.zeros(0, _I))
        return ptr, idx if p is None else idx[p[0]:p[-1]]
    out = np.empty(int(ptr[-1]), _I)
    for j, (p, idx) in enumerate(csrs):
        c = np.diff(p)
        owner = np.repeat(np.arange(n, dtype=_I), c)
        offset = np.arange(idx.shape[0], dtype=_I) - np.repeat(p[:-1], c)
        out[ptr[owner * k + j] + offset] = idx
    return ptr, out


@dataclass
class Part:
    """Stages of a run of consecutive activities (before they are joined into a :class:`StageTable`).

    Examples
    --------
    >>> p = Part.uniform(1, [Slot(DELAY, np.array([0.5])), Slot(HOLD, np.array([1.0]), res=np.array([[1]]))])
    >>> p.kind.tolist(), p.n_activities
    ([1, 0], 1)
    """

    act_ptr: np.ndarray
    kind: np.ndarray
    amount: np.ndarray
    res_ptr: np.ndarray
    res: np.ndarray
    chan_ptr: np.ndarray
    chan: np.ndarray
    cap: np.ndarray
    needs_recv: np.ndarray

    @property
    def n_activities(self) -> int:
        return int(self.act_ptr.shape[0] - 1)

    @classmethod
    def uniform(cls, n: int, slots: list[Slot]) -> Part:
        """``n`` activities of ``len(slots)`` stages each, stage ``j`` of activity ``a`` from ``slots[j]``.

        Examples
        --------
        >>> p = Part.uniform(2, [Slot(HOLD, np.array([1.0, 2.0]), res=np.array([[0], [3]]))])
        >>> p.amount.tolist(), p.res.tolist()
        ([1.0, 2.0], [0, 3])
        """
        k = len(slots)
        res_ptr, res = _interleave([_as_csr(s.res, n) for s in slots], n)
        chan_ptr, chan = _interleave([_as_csr(s.chan, n) for s in slots], n)
        amount = np.stack([_floats(s.amount) for s in slots], axis=1).reshape(-1) if n else np.zeros(0)
        cap = np.stack([np.full(n, np.inf) if s.cap is None else _floats(s.cap) for s in slots], axis=1).reshape(-1) \
            if n else np.zeros(0)
        return cls(act_ptr=np.arange(0, n * k + 1, k, dtype=_I), kind=np.tile(np.array([s.kind for s in slots], _I), n),
                   amount=amount, res_ptr=res_ptr, res=res, chan_ptr=chan_ptr, chan=chan, cap=cap,
                   needs_recv=np.tile(np.array([s.needs_recv for s in slots], np.uint8), n))

    @classmethod
    def join(cls, parts: list[Part]) -> Part:
        """The activities of ``parts``, one after the other.

        Examples
        --------
        >>> a = Part.uniform(1, [Slot(DELAY, np.array([1.0]))])
        >>> Part.join([a, a]).act_ptr.tolist()
        [0, 1, 2]
        """
        parts = [p for p in parts if p.n_activities] or parts[:1]
        if len(parts) == 1:  # nothing to join (a program without computations, say)
            return parts[0]

        def chain(ptrs):
            out, base = [np.zeros(1, _I)], 0
            for p in ptrs:
                out.append(p[1:] + base)
                base += int(p[-1])
            return np.concatenate(out)
        cat = np.concatenate
        return cls(act_ptr=chain([p.act_ptr for p in parts]), kind=cat([p.kind for p in parts]),
                   amount=cat([p.amount for p in parts]), res_ptr=chain([p.res_ptr for p in parts]),
                   res=cat([p.res for p in parts]), chan_ptr=chain([p.chan_ptr for p in parts]),
                   chan=cat([p.chan for p in parts]), cap=cat([p.cap for p in parts]),
                   needs_recv=cat([p.needs_recv for p in parts]))


@dataclass(frozen=True, eq=False)
class StageTable:
    """The engine's input besides the program (``docs/engine.md``), as contiguous numpy arrays.

    Attributes
    ----------
    act_ptr : int64 (n_activities + 1)
        Stages of activity ``a``: ``act_ptr[a] .. act_ptr[a+1]``.
    kind, amount, cap, needs_recv : per stage
        HOLD/DELAY/FLOW; seconds or bytes; per-flow rate cap (``inf``: none);
        1 if the stage waits for its message's receive to be posted.
    res_ptr, res, chan_ptr, chan : CSR per stage
        Exclusive resources held; fluid channels crossed.
    sender_done, recv_begins : int64 per message
        The stage whose end completes the send op; whose start is the recv op's start.
    n_resources : int
        Number of exclusive resources (``3 * n_ranks`` and the model's own).
    capacities : float64 per channel
        Bytes/s.

    Examples
    --------
    >>> part = Part.uniform(1, [Slot(HOLD, np.array([2.0]), res=np.array([[0, 4]]), needs_recv=True)])
    >>> t = StageTable.of(part, sender_done=[0], recv_begins=[0], n_resources=6, capacities=[])
    >>> t.n_stages, t.n_activities
    (1, 1)
    >>> t.check(n_messages=1)
    """

    act_ptr: np.ndarray
    kind: np.ndarray
    amount: np.ndarray
    res_ptr: np.ndarray
    res: np.ndarray
    chan_ptr: np.ndarray
    chan: np.ndarray
    cap: np.ndarray
    needs_recv: np.ndarray
    sender_done: np.ndarray
    recv_begins: np.ndarray
    n_resources: int
    capacities: np.ndarray

    @classmethod
    def of(cls, part: Part, *, sender_done, recv_begins, n_resources: int, capacities) -> StageTable:
        """Seal a :class:`Part` (all activities) with the per-message and global fields.

        Examples
        --------
        >>> part = Part.uniform(1, [Slot(DELAY, np.array([0.0]))])
        >>> StageTable.of(part, sender_done=[0], recv_begins=[0], n_resources=3, capacities=[1e9]).capacities
        array([1.e+09])
        """
        return cls(act_ptr=_ints(part.act_ptr), kind=_ints(part.kind), amount=_floats(part.amount),
                   res_ptr=_ints(part.res_ptr), res=_ints(part.res), chan_ptr=_ints(part.chan_ptr),
                   chan=_ints(part.chan), cap=_floats(part.cap),
                   needs_recv=np.ascontiguousarray(part.needs_recv, dtype=np.uint8).reshape(-1),
                   sender_done=_ints(sender_done), recv_begins=_ints(recv_begins), n_resources=int(n_resources),
                   capacities=_floats(capacities))

    @property
    def n_stages(self) -> int:
        return int(self.kind.shape[0])

    @property
    def n_activities(self) -> int:
        return int(self.act_ptr.shape[0] - 1)

    def arrays(self) -> tuple:
        """The arrays in the engine's argument order (``act_ptr .. recv_begins``).

        Examples
        --------
        >>> part = Part.uniform(0, [Slot(DELAY, np.zeros(0))])
        >>> len(StageTable.of(part, sender_done=[], recv_begins=[], n_resources=0, capacities=[]).arrays())
        11
        """
        return (self.act_ptr, self.kind, self.amount, self.res_ptr, self.res, self.chan_ptr, self.chan, self.cap,
                self.needs_recv, self.sender_done, self.recv_begins)

    def check(self, n_messages: int) -> None:
        """Raise ``ValueError`` if the table is not well formed (the engine's own checks, in Python).

        Examples
        --------
        >>> part = Part.uniform(1, [Slot(DELAY, np.array([-1.0]))])
        >>> StageTable.of(part, sender_done=[0], recv_begins=[0], n_resources=0, capacities=[]).check(1)
        Traceback (most recent call last):
        ...
        ValueError: stage 0 has amount -1, not a finite number >= 0
        """
        reason = stage_problem(self, n_messages)
        if reason:
            raise ValueError(reason)


def stage_problem(t: StageTable, n_messages: int) -> str | None:
    """What is wrong with a stage table, or None (shared by :meth:`StageTable.check` and the reference engine)."""
    s = t.n_stages
    a = t.n_activities
    if a < n_messages or t.act_ptr[0] != 0 or t.act_ptr[-1] != s or np.any(np.diff(t.act_ptr) < 1):
        return "act_ptr must rise from 0 to the number of stages, at least one stage per activity, one per message first"
    for name in ("amount", "cap", "needs_recv"):
        if getattr(t, name).shape[0] != s:
            return f"{name} has {getattr(t, name).shape[0]} entries for {s} stages"
    for ptr, idx, name, bound in ((t.res_ptr, t.res, "res", t.n_resources),
                                  (t.chan_ptr, t.chan, "chan", t.capacities.shape[0])):
        if ptr.shape[0] != s + 1 or ptr[0] != 0 or ptr[-1] != idx.shape[0] or np.any(np.diff(ptr) < 0):
            return f"{name}_ptr is not a CSR pointer over {s} stages"
        if idx.shape[0] and (idx.min() < 0 or idx.max() >= bound):
            return f"{name} names an index outside 0..{bound - 1}"
    if np.any((t.kind < 0) | (t.kind > 2)):
        return f"stage {int(np.flatnonzero((t.kind < 0) | (t.kind > 2))[0])} has an unknown kind"
    bad = np.flatnonzero(~np.isfinite(t.amount) | (t.amount < 0))
    if bad.shape[0]:
        return f"stage {int(bad[0])} has amount {t.amount[bad[0]]:g}, not a finite number >= 0"
    if np.any(np.isnan(t.cap) | (t.cap <= 0)):
        return "a flow cap is not > 0"
    if np.any(~np.isfinite(t.capacities) | (t.capacities <= 0)):
        return "a channel capacity is not finite and > 0"
    if np.any((np.diff(t.chan_ptr) > 0) & (t.kind != FLOW)):
        return "a stage that is not a flow crosses channels"
    if np.any((np.diff(t.res_ptr) > 0) & (t.kind == DELAY)):
        return "a delay stage holds resources"
    for ptr, idx, name in ((t.res_ptr, t.res, "resource"), (t.chan_ptr, t.chan, "channel")):
        if idx.shape[0] > 1:
            owner = np.repeat(np.arange(s, dtype=_I), np.diff(ptr))
            key = np.sort(owner * (int(idx.max()) + 1) + idx)
            dup = np.flatnonzero(key[1:] == key[:-1])
            if dup.shape[0]:
                return f"stage {int(key[dup[0]] // (int(idx.max()) + 1))} lists a {name} twice"
    if t.sender_done.shape[0] != n_messages or t.recv_begins.shape[0] != n_messages:
        return f"sender_done and recv_begins need one entry per message ({n_messages})"
    if n_messages:
        n_st = np.diff(t.act_ptr)[:n_messages]
        for name in ("sender_done", "recv_begins"):
            v = getattr(t, name)
            if np.any((v < 0) | (v >= n_st)):
                return f"{name} names a stage its message does not have"
    return None
