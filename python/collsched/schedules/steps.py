"""Step schedules: a sequence of steps, each a set of concurrent transfers.

Partial permutations, liquid schedules, round-robin and matching rounds are
step schedules. A :class:`Transfer` is a direct message of the collective
(``src`` to ``dst``, instance ``inst``) or, for relays, names the values it
carries; ``part`` sends only a fragment of it (messages split across steps).

Lowering (:meth:`StepSchedule.lower`, option ``sync``):

* ``"barrier"`` — a global barrier (dissemination, ⌈log2 n⌉ rounds of empty
  messages) between steps, as with ``MPI_Barrier``;
* ``"ready"`` — loose synchrony, seed 002's S1: per transfer the receiver
  posts its receive and sends an empty *ready* message, the sender waits for
  it, then sends; a rank starts step k+1 once its own step k is done;
* ``"post_all"`` — seed 002's S2: every receive is posted at once, each rank
  sends its messages in step order without waiting for anyone.

Examples
--------
>>> from collsched import topologies
>>> from collsched.collectives import AllToAll
>>> from collsched.schedules.validate import validate
>>> p = topologies.star(3)
>>> c = AllToAll(senders=p.hosts, size=1e3)
>>> s = StepSchedule.from_pairs([[("h0", "h1"), ("h1", "h2"), ("h2", "h0")],
...                              [("h0", "h2"), ("h2", "h1"), ("h1", "h0")]], algorithm="caterpillar")
>>> len(s), s.n_transfers
(2, 6)
>>> for sync in SYNC_MODES:
...     validate(p, c, s.lower(p, c, sync=sync))
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Iterable, Sequence

import numpy as np

from ..errors import ScheduleError
from .base import Schedule
from .combining import REDUCTION_KINDS, Holdings
from .columns import direct_step_program, step_program
from .program import Program, ProgramBuilder, _collector_paused
from .repeat import repeated
from .values import Piece, Value

__all__ = ["Transfer", "DirectSteps", "StepSchedule", "SYNC_MODES", "transfer_pieces", "add_barrier", "tiled",
           "step_shape", "direct_transfers", "lower_with_builder"]

SYNC_MODES = ("barrier", "ready", "post_all")


@dataclass(frozen=True)
class Transfer:
    """One message of a step.

    Parameters
    ----------
    src, dst : str
        Hosts.
    inst : int
        Instance of the collective (for series).
    part : (int, int), optional
        Send only ``[start, end)`` of the message, in units of the schedule's denominator.
    values : tuple of Value, optional
        What the message carries, when it is not the collective's direct
        message ``src -> dst`` (relays, bundles).

    Raises
    ------
    ScheduleError
        If ``src == dst`` or ``part`` is not ``0 <= start < end``.

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> Transfer("h0", "h2", part=(0, 1))
    Transfer(src='h0', dst='h2', inst=0, part=(0, 1), values=None)
    >>> Transfer("h1", "h2", values=[(0, 0, 0, 2)]).values
    (m[0→2]@0,)
    >>> Transfer("h1", "h1")
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: transfer from 'h1' to itself
    """

    src: str
    dst: str
    inst: int = 0
    part: tuple[int, int] | None = None
    values: tuple[Value, ...] | None = None

    def __post_init__(self):
        if self.src == self.dst:
            raise ScheduleError(f"transfer from {self.src!r} to itself")
        if self.part is not None:
            start, end = self.part
            if not 0 <= start < end:
                raise ScheduleError(f"transfer {self.src}->{self.dst} has part {self.part}", fix="give 0 <= start < end")
            object.__setattr__(self, "part", (int(start), int(end)))
        if self.values is not None:
            object.__setattr__(self, "values", tuple(Value(*v) for v in self.values))


class DirectSteps(Sequence):
    """Steps of whole direct messages held as columns: a step is a tuple of :class:`Transfer` made when read.

    A schedule of a million transfers (the caterpillar at 1,024 hosts) as
    Transfer objects takes seconds to build and hundreds of megabytes; as
    columns it takes a few arrays, and :meth:`StepSchedule.lower` lowers it
    column-wise without making a Transfer. Read as a sequence it is the
    tuple of steps it stands for, and compares equal to it.

    Parameters
    ----------
    hosts : sequence of str
        The names the indices refer to.
    step_ptr : array of int
        Step ``k`` is transfers ``step_ptr[k] .. step_ptr[k + 1] - 1``.
    src, dst, inst : arrays of int
        Per transfer: sender and receiver (indices into ``hosts``) and instance.

    Raises
    ------
    ScheduleError
        If the arrays disagree, an index is out of range, or a transfer goes from a host to itself.

    Examples
    --------
    >>> d = DirectSteps(["a", "b", "c"], [0, 2, 3], [0, 1, 2], [1, 2, 0], [0, 0, 0])
    >>> len(d), d.n_transfers, d[1]
    (2, 3, (Transfer(src='c', dst='a', inst=0, part=None, values=None),))
    >>> d == ((Transfer("a", "b"), Transfer("b", "c")), (Transfer("c", "a"),))
    True
    """

    __slots__ = ("hosts", "step_ptr", "src", "dst", "inst")

    def __init__(self, hosts, step_ptr, src, dst, inst):
        self.hosts = tuple(hosts)
        self.step_ptr, self.src, self.dst, self.inst = (np.array(a, dtype=np.int64) for a in (step_ptr, src, dst, inst))
        for a in (self.step_ptr, self.src, self.dst, self.inst):
            a.flags.writeable = False
        m = len(self.src)
        if (len(self.dst) != m or len(self.inst) != m or len(self.step_ptr) < 1 or self.step_ptr[0] != 0
                or self.step_ptr[-1] != m or (np.diff(self.step_ptr) < 0).any()):
            raise ScheduleError("direct steps: arrays of different lengths or step_ptr not a pointer over them")
        n = len(self.hosts)
        if m and (min(self.src.min(), self.dst.min(), self.inst.min()) < 0 or max(self.src.max(), self.dst.max()) >= n):
            raise ScheduleError("direct steps: a host index out of range or a negative instance")
        if (self.src == self.dst).any():
            k = int(np.argmax(self.src == self.dst))
            raise ScheduleError(f"transfer from {self.hosts[self.src[k]]!r} to itself")

    @property
    def n_transfers(self) -> int:
        return len(self.src)

    def __len__(self) -> int:
        return len(self.step_ptr) - 1

    def _step(self, k: int) -> tuple[Transfer, ...]:
        lo, hi = int(self.step_ptr[k]), int(self.step_ptr[k + 1])
        h = self.hosts
        return tuple(Transfer(h[a], h[b], i) for a, b, i in
                     zip(self.src[lo:hi].tolist(), self.dst[lo:hi].tolist(), self.inst[lo:hi].tolist()))

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self._step(j) for j in range(*k.indices(len(self))))
        j = k + len(self) if k < 0 else k
        if not 0 <= j < len(self):
            raise IndexError(f"step {k} out of range ({len(self)} steps)")
        return self._step(j)

    def __iter__(self):
        return (self._step(k) for k in range(len(self)))

    def __eq__(self, other) -> bool:
        if isinstance(other, DirectSteps):
            names = np.array(self.hosts, dtype=object), np.array(other.hosts, dtype=object)
            return (np.array_equal(self.step_ptr, other.step_ptr) and np.array_equal(self.inst, other.inst)
                    and bool((names[0][self.src] == names[1][other.src]).all())
                    and bool((names[0][self.dst] == names[1][other.dst]).all()))
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(other) == len(self) and tuple(self) == tuple(tuple(step) for step in other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DirectSteps({len(self)} steps, {self.n_transfers} transfers)"


def step_shape(steps, count: int) -> tuple[int, int]:
    """The number of non-empty groups and of transfers of ``tiled(steps, count)``, without tiling them.

    Examples
    --------
    >>> d = DirectSteps(["a", "b"], [0, 1, 2], [0, 1], [1, 0], [0, 0])
    >>> step_shape(d, 1), step_shape(d, 2), step_shape(tuple(d), 2)
    ((2, 2), (4, 4), (4, 4))
    """
    if isinstance(steps, DirectSteps) and count == _named(steps):
        return int((np.diff(steps.step_ptr) > 0).sum()), steps.n_transfers
    groups = tiled(steps, count)
    return len(groups), sum(len(g) for g in groups)


def _named(steps) -> int:
    """``q``, one more than the largest instance the steps name (1 when none)."""
    if isinstance(steps, DirectSteps):
        return 1 + (int(steps.inst.max()) if steps.n_transfers else 0)
    return 1 + max(map(attrgetter("inst"), chain.from_iterable(steps)), default=0)


def _direct_columns(steps, platform, collective):
    """(step, src, dst, inst, number of steps) of DirectSteps lowered for ``collective``, or None.

    Host indices are the platform's; empty steps are dropped, as :func:`tiled` drops them. None unless
    ``steps`` are columns naming exactly the instances of ``collective`` and every host is the platform's.
    """
    if not isinstance(steps, DirectSteps) or collective.count != _named(steps):
        return None
    where = {h: i for i, h in enumerate(platform.hosts)}
    if not all(h in where for h in steps.hosts):
        return None
    index = np.array([where[h] for h in steps.hosts], dtype=np.int64)
    lengths = np.diff(steps.step_ptr)
    keep = lengths > 0
    step = np.repeat(np.cumsum(keep) - 1, lengths)
    return step, index[steps.src], index[steps.dst], steps.inst, int(keep.sum())


def direct_transfers(schedule, platform, collective):
    """A step schedule's transfers as columns, when each is a whole direct message of an all-to-all or all-to-many.

    Parameters
    ----------
    schedule : StepSchedule
    platform : Platform
    collective : Collective
        What it is lowered for (its count tiles the steps, :func:`tiled`).

    Returns
    -------
    (step, src, dst, size, n_steps) or None
        Per transfer of the lowered program, in order: its step (empty steps
        dropped), sender and receiver (platform host indices) and bytes; None
        for any other schedule.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> step, src, dst, size, n = direct_transfers(cs.plan(p, c, algorithm="caterpillar"), p, c)
    >>> step.tolist(), src.tolist(), dst.tolist(), size.tolist(), n
    ([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], [1000.0, 1000.0, 1000.0, 1000.0, 1000.0, 1000.0], 2)
    """
    from .columns import _direct, _sized

    if collective.base.kind not in ("alltoall", "alltomany"):
        return None
    cols = _direct_columns(schedule.steps, platform, collective)
    if cols is not None:
        step, src, dst, inst, n = cols
        arrays = _sized(step, src, dst, inst, platform, collective.base, schedule.denominator)
    else:
        groups = tiled(schedule.steps, collective.count)
        arrays, n = _direct(groups, platform, collective, schedule.denominator, parts=False), len(groups)
    if arrays is None:
        return None
    step, src, dst, _, size, _, _ = arrays
    return step, src, dst, size, n


def tiled(groups: Sequence[Sequence[Transfer]], count: int, named: int | None = None) -> list[list[Transfer]]:
    """The groups of transfers (steps, or one sender's order) for a series of ``count`` instances.

    A schedule names the instances it was planned for, ``0 .. q - 1``
    (``q`` = one more than the largest instance named). Lowered for a
    series of ``count`` instances, it is repeated with every instance (of
    the transfers and of the values they name) shifted by ``q``, ``2q``, ...,
    and transfers of instances ``>= count`` are dropped: instances are
    independent, so each copy does for its instances what the schedule
    does for the first ``q``. With ``count == q``, the groups unchanged.

    Parameters
    ----------
    groups : sequence of sequences of Transfer
        Steps, or a sender's transfers in order (one group).
    count : int
        Instances of the collective it is lowered for.
    named : int, optional
        ``q``, when the groups are part of a schedule (one sender's order);
        by default found in ``groups``.

    Returns
    -------
    list of lists of Transfer
        The copies one after another; empty groups are dropped.

    Examples
    --------
    >>> from collsched.schedules.values import block
    >>> steps = [[Transfer("h0", "h1", values=[block(0, 0, -1)])], [Transfer("h1", "h2", values=[block(0, 0, -1)])]]
    >>> [[(t.src, t.dst, t.inst, t.values) for t in g] for g in tiled(steps, 2)]  # doctest: +NORMALIZE_WHITESPACE
    [[('h0', 'h1', 0, (m[0→*]@0,))], [('h1', 'h2', 0, (m[0→*]@0,))],
     [('h0', 'h1', 1, (m[0→*]@1,))], [('h1', 'h2', 1, (m[0→*]@1,))]]
    >>> tiled([[Transfer("h0", "h1", inst=0), Transfer("h0", "h1", inst=1)]], 1)
    [[Transfer(src='h0', dst='h1', inst=0, part=None, values=None)]]
    """
    q = _named(groups) if named is None else named
    if count == q:
        return [list(g) for g in groups if g]
    out = []
    for off in range(0, count, q):
        for g in groups:
            copy = [t if off == 0 else
                    Transfer(t.src, t.dst, t.inst + off, t.part,
                             None if t.values is None else tuple(v._replace(inst=v.inst + off) for v in t.values))
                    for t in g if t.inst + off < count]
            if copy:
                out.append(copy)
    return out


def transfer_pieces(t: Transfer, platform, collective, denominator: int) -> tuple[list[Piece], float]:
    """The pieces a transfer carries and their weight in bytes.

    Parameters
    ----------
    t : Transfer
        The transfer.
    platform : Platform
        Gives the host indices of the values.
    collective : Collective
        Says what a direct message carries (:meth:`~collsched.collectives.Collective.direct_value`)
        and what a value weighs.
    denominator : int
        The schedule's unit of parts.

    Returns
    -------
    pieces : list of Piece
        The transfer's values (or its direct message), cut to its part.
    size : float
        Their bytes: whole-value bytes times ``(end - start) / denominator``.

    Raises
    ------
    ScheduleError
        If the part ends beyond ``denominator``.
    CollectiveError
        If the collective has no direct message ``src -> dst``.

    Examples
    --------
    >>> from collsched import topologies
    >>> from collsched.collectives import Scatter
    >>> p = topologies.star(3)
    >>> c = Scatter(source="h0", targets=p.hosts, size=1e3)
    >>> transfer_pieces(Transfer("h0", "h2", part=(0, 1)), p, c, 4)
    ([m[0→2]@0[0:1]], 250.0)
    >>> transfer_pieces(Transfer("h0", "h2", part=(3, 5)), p, c, 4)
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: transfer h0->h2 part (3, 5) exceeds the denominator 4
    """
    values = t.values if t.values is not None else (collective.direct_value(platform, t.inst, t.src, t.dst),)
    start, end = t.part if t.part is not None else (0, denominator)
    if end > denominator:
        raise ScheduleError(f"transfer {t.src}->{t.dst} part {t.part} exceeds the denominator {denominator}")
    sizer = collective.sizer(platform)
    size = sum(sizer(v) for v in values) * (end - start) / denominator
    return [Piece(v, start, end) for v in values], size


def add_barrier(b: ProgramBuilder, ranks: Sequence[str], after: dict[str, list[int]]) -> dict[str, list[int]]:
    """Append a dissemination barrier among ``ranks``; return each rank's last op.

    ``after[r]`` are the ops of rank ``r`` the barrier waits for. In round
    ``j`` rank ``i`` signals rank ``i + 2^j`` and waits for rank ``i - 2^j``
    (Hensgen, Finkel and Manber 1988), so every rank leaves after every rank
    has entered.

    Parameters
    ----------
    b : ProgramBuilder
        The program to append to.
    ranks : sequence of str
        The ranks that take part.
    after : dict of str to list of int
        ``after[r]``: the ops of rank ``r`` the barrier waits for (a missing
        rank waits for nothing).

    Returns
    -------
    dict of str to list of int
        For each rank, its ops of the last round (what the next step waits for).

    Notes
    -----
    ``ceil(log2 n)`` rounds of ``n`` empty messages each.

    Examples
    --------
    >>> b = ProgramBuilder(["a", "b", "c"])
    >>> add_barrier(b, ["a", "b", "c"], {})
    {'a': [6, 9], 'b': [8, 11], 'c': [7, 10]}
    >>> prog = b.build()
    >>> prog.n_messages, prog.n_data_messages
    (6, 0)
    """
    n = len(ranks)
    last = {r: list(after.get(r, [])) for r in ranks}
    dist = 1
    while dist < n:
        nxt: dict[str, list[int]] = {r: [] for r in ranks}
        for i, r in enumerate(ranks):
            peer = ranks[(i + dist) % n]
            send, recv = b.send(r, peer, (), 0.0, after=last[r], recv_after=last[peer])
            nxt[r].append(send)
            nxt[peer].append(recv)
        last = nxt
        dist *= 2
    return last


@dataclass(frozen=True)
class StepSchedule(Schedule):
    """Steps of concurrent transfers.

    Attributes
    ----------
    steps : tuple of tuples of Transfer
    denominator : int
        Unit of transfer parts (1: whole messages).
    durations : tuple of float, optional
        Planned length of each step in seconds, where the algorithm knows it.

    Raises
    ------
    ScheduleError
        If a step holds something other than a :class:`Transfer`, the
        durations are not one finite number >= 0 per step, or the
        denominator is < 1.

    Examples
    --------
    A scatter whose messages are split in halves over two steps:

    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Scatter(source="h0", targets=p.hosts, size=1e3)
    >>> s = StepSchedule(steps=[[Transfer("h0", "h1", part=(0, 1)), Transfer("h0", "h2", part=(0, 1))],
    ...                         [Transfer("h0", "h1", part=(1, 2)), Transfer("h0", "h2", part=(1, 2))]],
    ...                  denominator=2, durations=[4e-6, 4e-6])
    >>> len(s), s.n_transfers, s.shape
    (2, 4, 'steps')
    >>> cs.validate(p, c, s)
    """

    steps: tuple[tuple[Transfer, ...], ...] = ()
    denominator: int = 1
    durations: tuple[float, ...] | None = None
    shape = "steps"

    def __post_init__(self):
        super().__post_init__()
        steps = self.steps
        if not isinstance(steps, DirectSteps):  # columns hold Transfers by construction
            steps = tuple(tuple(step) for step in steps)
            for k, step in enumerate(steps):
                for t in step:
                    if not isinstance(t, Transfer):
                        raise ScheduleError(f"step {k} holds {t!r}, not a Transfer")
        object.__setattr__(self, "steps", steps)
        if self.durations is not None:
            durations = tuple(float(d) for d in self.durations)
            if len(durations) != len(steps) or any(not math.isfinite(d) or d < 0 for d in durations):
                raise ScheduleError("step durations must be one finite number >= 0 per step")
            object.__setattr__(self, "durations", durations)
        if self.denominator < 1:
            raise ScheduleError(f"step schedule denominator is {self.denominator}", fix="give an integer >= 1")

    @classmethod
    def from_pairs(cls, steps: Iterable[Iterable[tuple[str, str]]], **kwargs) -> StepSchedule:
        """A schedule of whole direct messages from ``(src, dst)`` pairs per step.

        Parameters
        ----------
        steps : iterable of iterables of (str, str)
            Per step, the ``(src, dst)`` pairs of its transfers (instance 0).
        **kwargs
            Other fields of :class:`StepSchedule` (``algorithm``, ...).

        Returns
        -------
        StepSchedule

        Examples
        --------
        >>> s = StepSchedule.from_pairs([[("h0", "h1")], [("h1", "h0")]], algorithm="pingpong")
        >>> s.steps[1], s.algorithm
        ((Transfer(src='h1', dst='h0', inst=0, part=None, values=None),), 'pingpong')
        """
        return cls(steps=tuple(tuple(Transfer(s, d) for s, d in step) for step in steps), **kwargs)

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def n_transfers(self) -> int:
        if isinstance(self.steps, DirectSteps):
            return self.steps.n_transfers
        return sum(len(step) for step in self.steps)

    def lower(self, platform, collective=None, *, sync: str | None = None) -> Program:
        """The program of this schedule; ``sync`` is one of :data:`SYNC_MODES`.

        Parameters
        ----------
        platform : Platform
            Its hosts are the ranks.
        collective : Collective
            Gives the value and size of each direct message.
        sync : {"barrier", "ready", "post_all"}, optional
            How steps are kept apart (see the module docstring); by default
            ``params["sync"]`` (the planner records there the mode it chose),
            else ``"barrier"``.

        Returns
        -------
        Program
            Every mode has the same data messages; ``barrier`` and ``ready``
            add empty signal messages. For a series of more (or fewer)
            instances than the steps name, the steps are repeated with
            shifted instances (:func:`tiled`). For a ReduceScatter or an
            AllReduce, a sender first forms what it sends by combining what
            it holds, and every rank ends by forming what the collective
            promises it (:mod:`collsched.schedules.combining`). Direct
            messages are lowered column-wise; a series whose instances run
            one after another lowers three instances through the builder and
            copies the third for the others (:func:`~collsched.schedules.repeat.repeated`);
            either way the program :func:`lower_with_builder` builds.

        Raises
        ------
        ValueError
            If ``sync`` is unknown.
        ScheduleError, CollectiveError
            If a transfer's part or message does not fit the collective.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(3)
        >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
        >>> s = cs.plan(p, c, algorithm="caterpillar")
        >>> [(sync, s.lower(p, c, sync=sync).n_messages) for sync in SYNC_MODES]
        [('barrier', 12), ('ready', 12), ('post_all', 6)]
        >>> s.lower(p, c, sync="none")
        Traceback (most recent call last):
        ...
        ValueError: unknown sync 'none'; expected one of barrier, ready, post_all
        """
        collective = self.answering(collective)
        if sync is None:
            sync = self.params.get("sync", "barrier")
        if sync not in SYNC_MODES:
            raise ValueError(f"unknown sync {sync!r}; expected one of {', '.join(SYNC_MODES)}")
        with _collector_paused():  # what this allocates is collected after, if ever in a cycle; see _collector_paused
            return self._lower(platform, collective, sync)

    def _lower(self, platform, collective, sync: str) -> Program:
        cols = _direct_columns(self.steps, platform, collective)
        if cols is not None:  # columns, lowered as columns
            fast = direct_step_program(*cols, platform, collective, sync, denominator=self.denominator,
                                       name=self.algorithm)
            if fast is not None:
                return fast
        groups = tiled(self.steps, collective.count)
        fast = step_program(groups, platform, collective, sync, denominator=self.denominator, name=self.algorithm)
        if fast is not None:  # whole direct messages: the same program, built column-wise
            return fast
        fast = _repeated_instances(self, groups, platform, collective, sync)  # instance after instance: copied
        if fast is not None:
            return fast
        return _with_builder(self, groups, platform, collective, sync)[0]


#: Instances a series is lowered through the builder before the rest are copied (:func:`~.repeat.repeated`).
_SMALL_SERIES = 3


def _instance_steps(groups, count: int) -> int | None:
    """``S`` if the groups are ``S`` steps per instance, instance after instance, each instance's steps those of
    instance 2 with every instance (of the transfers and of the values they name) shifted; else None."""
    S, rest = divmod(len(groups), count)
    if rest or S == 0:
        return None

    def shape(t0: int) -> list:
        return [(t.src, t.dst, t.inst - t0, t.part, None if t.values is None else
                 tuple((v.kind, v.inst - t0, v.a, v.b) for v in t.values))
                for g in groups[t0 * S:(t0 + 1) * S] for t in g]

    template = shape(_SMALL_SERIES - 1)
    if any(x[2] != 0 or (x[4] is not None and any(v[1] != 0 for v in x[4])) for x in template):
        return None  # instance 2's steps name other instances: not a series one instance after another
    return S if all(shape(t0) == template for t0 in range(_SMALL_SERIES, count)) else None


def _repeated_instances(schedule: StepSchedule, groups, platform, collective, sync: str) -> Program | None:
    """The builder's program of a series whose instances run one after another: three through the builder, the
    others copied column-wise; None for another schedule (or too short a series)."""
    count = collective.count
    if count <= _SMALL_SERIES:
        return None
    S = _instance_steps(groups, count)
    if S is None:
        return None
    small = dataclasses.replace(collective, count=_SMALL_SERIES)  # a Series (count > 1)
    prog, starts, formed = _with_builder(schedule, groups[:_SMALL_SERIES * S], platform, small, sync)
    copies = count - _SMALL_SERIES
    head = starts[(_SMALL_SERIES - 1) * S]
    end = formed[0] if formed else prog.n_ops  # a reduction's results are formed after the last instance
    longer = repeated(prog, head, end - head, copies, items=1, anchored_tail=True)
    if longer is None or not formed or formed[0] == prog.n_ops:
        return longer
    # step 2: the results of the copied instances, each waiting for its own instance's operations
    moved = copies * (end - head)
    last = formed[-1] + moved
    return repeated(longer, last, prog.n_ops - formed[-1], copies, items=1, linked=(0, end + moved, end - head))


def lower_with_builder(schedule: StepSchedule, platform, collective=None, *, sync: str | None = None) -> Program:
    """:meth:`StepSchedule.lower` through :class:`ProgramBuilder` for every transfer (the reference).

    Parameters
    ----------
    schedule : StepSchedule
    platform : Platform
    collective : Collective, optional
        By default the schedule's own.
    sync : {"barrier", "ready", "post_all"}, optional
        By default as :meth:`StepSchedule.lower` chooses.

    Returns
    -------
    Program
        Equal to ``schedule.lower(platform, collective, sync=sync)``, which
        builds direct messages column-wise and copies the instances of a
        series after the third (the tests compare them).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.Series(cs.AllGather(participants=p.hosts, size=1e3), count=5)
    >>> s = cs.plan(p, c, algorithm="ring")
    >>> lower_with_builder(s, p, c, sync="ready") == s.lower(p, c, sync="ready")
    True
    """
    collective = schedule.answering(collective)
    sync = schedule.params.get("sync", "barrier") if sync is None else sync
    if sync not in SYNC_MODES:
        raise ValueError(f"unknown sync {sync!r}; expected one of {', '.join(SYNC_MODES)}")
    return _with_builder(schedule, tiled(schedule.steps, collective.count), platform, collective, sync)[0]


def _with_builder(schedule: StepSchedule, groups, platform, collective, sync: str) \
        -> tuple[Program, list[int], list[int]]:
    """The program of ``groups`` through :class:`ProgramBuilder` (the reference), where each group starts (its
    barrier included), and (reductions) where each instance's results start being formed."""
    ranks = platform.hosts
    b = ProgramBuilder(ranks, denominator=schedule.denominator, name=schedule.algorithm)
    held = Holdings(b, platform, collective) if collective.base.kind in REDUCTION_KINDS else None
    done: dict[str, list[int]] = {r: [] for r in ranks}  # each rank's ops of the previous step
    last_send: dict[str, list[int]] = {r: [] for r in ranks}
    starts = []
    for k, step in enumerate(groups):
        starts.append(b.n_ops)
        if sync == "barrier" and k > 0:
            done = add_barrier(b, ranks, done)
        now: dict[str, list[int]] = {r: [] for r in ranks}
        for t in step:
            pieces, size = transfer_pieces(t, platform, collective, schedule.denominator)
            formed = [] if held is None else held.form_all(t.src, pieces)  # reductions: combine first
            if sync == "post_all":
                send, recv = b.send(t.src, t.dst, pieces, size, after=last_send[t.src] + formed, recv_after=())
                last_send[t.src] = [send]
            elif sync == "ready":
                ready_send, ready_recv = b.send(t.dst, t.src, (), 0.0, after=done[t.dst], recv_after=done[t.src])
                now[t.dst].append(ready_send)
                send, recv = b.send(t.src, t.dst, pieces, size, after=[ready_recv] + formed,
                                    recv_after=done[t.dst])
            else:
                send, recv = b.send(t.src, t.dst, pieces, size, after=done[t.src] + formed,
                                    recv_after=done[t.dst])
            if held is not None:
                held.add(t.dst, pieces, recv)
            now[t.src].append(send)
            now[t.dst].append(recv)
        if sync != "post_all":
            done = {r: now[r] or done[r] for r in ranks}
    formed = held.finish() if held is not None else []
    return b.build(), starts, formed

