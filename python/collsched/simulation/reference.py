"""A slow, obvious event engine: the executable reading of ``docs/engine.md``.

It takes exactly the arguments of the Rust engine's binding
(``collsched._core.simulate``) and returns the same tuple, so the Python
front can run on either and the differential tests can compare them on
random small programs. Nothing here is clever: every event rescans every
stage, and flow rates are recomputed from scratch at every event by
progressive filling (max-min fairness). Use it for tests and for programs of
a few hundred operations.

Semantics (``docs/engine.md``, made precise where the note is silent):

* an op is ready when its dependencies have completed; a ready send posts its
  message (stage 0 may become eligible), a ready recv marks it recv-posted,
  a ready computation makes its stage eligible;
* a stage is eligible once the previous stage of its activity has ended
  (or, for stage 0, once its op is ready) and, if ``needs_recv``, once the
  receive is posted; its eligible time is the later of the two;
* at each time, all stage ends are processed first (with everything they
  cause at that time), then eligible stages start in order of (eligible
  time, priority) whenever all their resources are free (greedy); stages
  that end at once (zero durations) are processed before time moves on;
* priority: the activity index (``tie="fixed"``) or a splitmix64 hash of
  (seed, activity) (``tie=<int seed>``), then the activity index;
* a flow stage ends when its bytes are delivered at its max-min fair rate;
  flows within a relative 1e-12 of the next event end together;
* a send op completes when stage ``sender_done`` ends; a recv op when its
  message's last stage ends, or when it is posted if that is later; a
  computation when its stage ends. Starts: send = start of stage 0, recv =
  start of stage ``recv_begins`` or its posting if later (a receive never
  starts or ends before it is posted), computation = start of its stage;
* ``events`` counts stage ends; ``resource_busy`` sums hold times per
  resource; ``channel_busy`` is bytes carried / capacity;
* no event left and ops incomplete: ``SimulationFailed("deadlock",
  {"stuck": [...]})`` naming the incomplete ops whose dependencies are all
  complete (the posted ops that never finish), lowest first.

Examples
--------
One message, synchronous one-port, 1.5 s:

>>> import numpy as np
>>> i = lambda *x: np.array(x, dtype=np.int64)
>>> out = simulate(2, i(0, 1), i(0, 1), i(1, 0), i(0, 0), i(0, 0, 0), i(),
...                i(0, 1), np.array([0]), np.array([1.5]), i(0, 2), i(0, 4), i(0, 0), i(),
...                np.array([np.inf]), np.array([1], np.uint8), i(0), i(0), 6, np.zeros(0), tie="fixed")
>>> out[0].tolist(), out[1].tolist(), out[4], out[5]
([0.0, 0.0], [1.5, 1.5], 1, 1.5)
"""

from __future__ import annotations

import math

import numpy as np

from .stages import FLOW, StageTable, stage_problem

__all__ = ["simulate", "SimulationFailed", "max_min_rates", "splitmix64"]

_MASK = (1 << 64) - 1


class SimulationFailed(ValueError):
    """The run failed; ``args == (code, details)`` as the Rust binding's exception of the same name.

    Examples
    --------
    >>> SimulationFailed("deadlock", {"stuck": [3]}).args
    ('deadlock', {'stuck': [3]})
    """


def splitmix64(x: int) -> int:
    """The splitmix64 mix of a 64-bit integer (Steele, Lea, Flood, 2014).

    Examples
    --------
    >>> splitmix64(0)
    16294208416658607535
    """
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def max_min_rates(flows: list[tuple[list[int], float]], capacities) -> list[float]:
    """Max-min fair rates of flows by progressive filling.

    Parameters
    ----------
    flows : list of (channels, cap)
        The channels each flow crosses (distinct) and its own rate cap (``inf`` for none).
    capacities : sequence of float
        Capacity of each channel.

    Returns
    -------
    list of float
        One rate per flow; ``inf`` for a flow that crosses no channel and has no cap.

    Examples
    --------
    Two flows on channel 0 (capacity 10), one of them also on channel 1 (capacity 2):

    >>> max_min_rates([([0], math.inf), ([0, 1], math.inf)], [10.0, 2.0])
    [8.0, 2.0]
    >>> max_min_rates([([0], 3.0), ([], math.inf)], [10.0])
    [3.0, inf]
    """
    rate = [0.0] * len(flows)
    free = list(range(len(flows)))
    room = [float(c) for c in capacities]
    while free:
        users: dict[int, int] = {}
        for f in free:
            for c in flows[f][0]:
                users[c] = users.get(c, 0) + 1
        step = min([room[c] / n for c, n in users.items()] + [flows[f][1] - rate[f] for f in free])
        if math.isinf(step):
            for f in free:
                rate[f] = math.inf
            break
        step = max(step, 0.0)
        for f in free:
            rate[f] += step
        for c, n in users.items():
            room[c] -= step * n
        full = {c for c in users if room[c] <= 1e-12 * capacities[c]}
        free = [f for f in free if not (full.intersection(flows[f][0]) or rate[f] >= flows[f][1] * (1 - 1e-15))]
    return rate


class _Run:
    """One run: the state of every op, activity and resource."""

    def __init__(self, prog: tuple, table: StageTable, tie):
        (self.n_ranks, self.op_rank, self.op_kind, self.op_peer, self.op_msg, dep_ptr, dep_idx) = prog
        self.t = table
        n = self.op_rank.shape[0]
        self.n_ops = n
        self.deps = [dep_idx[dep_ptr[i]:dep_ptr[i + 1]].tolist() for i in range(n)]
        self.dependents: list[list[int]] = [[] for _ in range(n)]
        for i, ds in enumerate(self.deps):
            for d in ds:
                self.dependents[d].append(i)
        self.waiting = [len(ds) for ds in self.deps]
        m = table.sender_done.shape[0]
        self.M = m
        self.send_of = [-1] * m
        self.recv_of = [-1] * m
        self.act_of_op = [0] * n
        computes = 0
        for i in range(n):
            if self.op_kind[i] == 2:
                self.act_of_op[i] = m + computes
                computes += 1
            else:
                msg = int(self.op_msg[i])
                self.act_of_op[i] = msg
                (self.send_of if self.op_kind[i] == 0 else self.recv_of)[msg] = i
        self.op_of_act = [self.send_of[a] for a in range(m)] + [i for i in range(n) if self.op_kind[i] == 2]
        n_act = table.n_activities
        if isinstance(tie, str):
            self.prio = list(range(n_act))
        else:
            seed = int(tie) & _MASK
            self.prio = [splitmix64((seed * 0x9E3779B97F4A7C15 + a) & _MASK) for a in range(n_act)]
        self.first = table.act_ptr[:-1].tolist()
        self.last = (table.act_ptr[1:] - 1).tolist()
        self.kind = table.kind.tolist()
        self.amount = table.amount.tolist()
        self.res = [table.res[table.res_ptr[s]:table.res_ptr[s + 1]].tolist() for s in range(table.n_stages)]
        self.chan = [table.chan[table.chan_ptr[s]:table.chan_ptr[s + 1]].tolist() for s in range(table.n_stages)]
        self.cap = table.cap.tolist()
        self.needs_recv = table.needs_recv.tolist()
        self.capacities = table.capacities.tolist()
        # state
        self.op_start = [math.nan] * n
        self.op_end = [math.nan] * n
        self.recv_posted = [False] * m
        self.recv_post_time = [0.0] * m
        self.delivered = [False] * m
        self.pending: dict[int, tuple[int, float]] = {}   # activity -> (stage waiting for its conditions, since)
        self.eligible: dict[int, tuple[int, float]] = {}  # activity -> (stage, eligible time)
        self.running: dict[int, tuple[int, float, float]] = {}  # activity -> (stage, start, end or nan for flows)
        self.flow_left: dict[int, float] = {}
        self.rate: dict[int, float] = {}
        self.busy = [False] * table.n_resources
        self.resource_busy = np.zeros(table.n_resources)
        self.channel_busy = np.zeros(len(self.capacities))
        self.events = 0
        self.done_ops = 0

    # --- ops ----------------------------------------------------------------------------------
    def complete_op(self, op: int, now: float) -> None:
        self.op_end[op] = now
        self.done_ops += 1
        for d in self.dependents[op]:
            self.waiting[d] -= 1
            if self.waiting[d] == 0:
                self.post(d, now)

    def post(self, op: int, now: float) -> None:
        a = self.act_of_op[op]
        kind = self.op_kind[op]
        if kind == 1:
            self.recv_posted[a] = True
            self.recv_post_time[a] = now
            if self.delivered[a]:
                self.complete_op(op, now)
            elif a in self.pending:
                self.make_eligible(a, self.pending.pop(a)[0], now)
        else:
            self.make_eligible(a, self.first[a], now)

    def make_eligible(self, a: int, s: int, now: float) -> None:
        if self.needs_recv[s] and not (a < self.M and self.recv_posted[a]):
            self.pending[a] = (s, now)
        else:
            self.eligible[a] = (s, now)

    # --- stages -------------------------------------------------------------------------------
    def start(self, a: int, s: int, now: float) -> None:
        for r in self.res[s]:
            self.busy[r] = True
        local = s - self.first[a]
        if a < self.M:
            if local == 0:
                self.op_start[self.send_of[a]] = now
            if local == self.t.recv_begins[a]:
                self.op_start[self.recv_of[a]] = now
        else:
            self.op_start[self.op_of_act[a]] = now
        if self.kind[s] == FLOW:
            self.running[a] = (s, now, math.nan)
            self.flow_left[a] = self.amount[s]
        else:
            self.running[a] = (s, now, now + self.amount[s])

    def finish(self, a: int, now: float) -> None:
        s, began, _ = self.running.pop(a)
        self.events += 1
        for r in self.res[s]:
            self.busy[r] = False
            self.resource_busy[r] += now - began
        if self.kind[s] == FLOW:
            del self.flow_left[a]
            for c in self.chan[s]:
                self.channel_busy[c] += self.amount[s] / self.capacities[c]
        if a >= self.M:
            self.complete_op(self.op_of_act[a], now)
            return
        local = s - self.first[a]
        if local == self.t.sender_done[a]:
            self.complete_op(self.send_of[a], now)
        if s == self.last[a]:
            self.delivered[a] = True
            if self.recv_posted[a]:
                self.complete_op(self.recv_of[a], now)
        else:
            self.make_eligible(a, s + 1, now)

    def start_eligible(self, now: float) -> None:
        order = sorted(self.eligible, key=lambda a: (self.eligible[a][1], self.prio[a], a))
        for a in order:
            s, _ = self.eligible[a]
            if all(not self.busy[r] for r in self.res[s]):
                del self.eligible[a]
                self.start(a, s, now)

    def update_rates(self) -> None:
        acts = sorted(self.flow_left)
        rates = max_min_rates([(self.chan[self.running[a][0]], self.cap[self.running[a][0]]) for a in acts],
                              self.capacities)
        self.rate = dict(zip(acts, rates))

    def end_time(self, a: int, now: float) -> float:
        s, _, end = self.running[a]
        if self.kind[s] != FLOW:
            return end
        left, rate = self.flow_left[a], self.rate[a]
        return now if left <= 0 or math.isinf(rate) else now + left / rate

    # --- the loop -----------------------------------------------------------------------------
    def run(self):
        now = 0.0
        for op in range(self.n_ops):
            if self.waiting[op] == 0:
                self.post(op, now)
        while True:
            # settle the current time: start what can start; whatever ends now ends before anything else starts
            while True:
                self.start_eligible(now)
                self.update_rates()
                ending = sorted(a for a in self.running if self.end_time(a, now) <= now)
                if not ending:
                    break
                for a in ending:
                    self.finish(a, now)
            if not self.running:
                break
            ends = {a: self.end_time(a, now) for a in self.running}
            t = min(ends.values())
            for a in self.flow_left:
                self.flow_left[a] -= self.rate[a] * (t - now)
            finishing = sorted(a for a, e in ends.items() if e <= t or (self.kind[self.running[a][0]] == FLOW
                                                                         and e <= t + 1e-12 * max(t, 1e-300)))
            now = t
            for a in finishing:
                self.finish(a, now)
        if self.done_ops < self.n_ops:
            incomplete = [i for i in range(self.n_ops) if math.isnan(self.op_end[i])]
            stuck = [i for i in incomplete if all(not math.isnan(self.op_end[d]) for d in self.deps[i])]
            raise SimulationFailed("deadlock", {"stuck": stuck or incomplete})
        starts = np.array(self.op_start, dtype=np.float64)
        for a in range(self.M):
            starts[self.recv_of[a]] = max(starts[self.recv_of[a]], self.recv_post_time[a])
        ends = np.array(self.op_end, dtype=np.float64)
        return (starts, ends, self.resource_busy, self.channel_busy,
                self.events, float(ends.max()) if self.n_ops else 0.0)


def _structure(n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx, n_messages):
    n = op_rank.shape[0]
    if not (op_kind.shape[0] == op_peer.shape[0] == op_msg.shape[0] == n):
        return "shape", {"reason": "per-operation arrays differ in length"}
    if dep_ptr.shape[0] != n + 1 or dep_ptr[-1] != dep_idx.shape[0]:
        return "shape", {"reason": "CSR pointers must have one entry per operation plus one"}
    sends, recvs = [0] * n_messages, [0] * n_messages
    for i in range(n):
        r, k, peer, msg = int(op_rank[i]), int(op_kind[i]), int(op_peer[i]), int(op_msg[i])
        comm = k in (0, 1)
        if not 0 <= r < n_ranks or k not in (0, 1, 2) or (comm and not 0 <= peer < n_ranks):
            return "bad_op", {"op": i}
        for d in dep_idx[dep_ptr[i]:dep_ptr[i + 1]].tolist():
            if not 0 <= d < i or op_rank[d] != r:
                return "bad_dependency", {"op": i, "dep": d}
        if comm:
            if not 0 <= msg < n_messages:
                return "unmatched_message", {"msg": msg, "op": i}
            (sends if k == 0 else recvs)[msg] += 1
    for msg in range(n_messages):
        if sends[msg] != 1 or recvs[msg] != 1:
            op = next(i for i in range(n) if op_kind[i] in (0, 1) and op_msg[i] == msg) if sends[msg] + recvs[msg] else 0
            return "unmatched_message", {"msg": msg, "op": op}
    return None


def simulate(n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx, act_ptr, kind, amount, res_ptr, res,
             chan_ptr, chan, cap, needs_recv, sender_done, recv_begins, n_resources, capacities, *, tie="fixed"):
    """Run a program's stage table; the same arguments and result as ``collsched._core.simulate``.

    Parameters
    ----------
    n_ranks, op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx
        The program, column-wise (message ids dense ``0 .. M-1``).
    act_ptr, kind, amount, res_ptr, res, chan_ptr, chan, cap, needs_recv, sender_done, recv_begins
        The stage table (``docs/engine.md``).
    n_resources : int
    capacities : float array, one per channel
    tie : "fixed" or int
        Tie-breaking: activity order, or a seeded priority per activity.

    Returns
    -------
    tuple
        ``(op_start, op_end, resource_busy, channel_busy, events, makespan)``.

    Raises
    ------
    SimulationFailed
        ``("deadlock", {"stuck": [op, ...]})``, ``("bad_stages", {"reason": ...})``
        or a structure code of the validator (``"bad_op"``, ``"bad_dependency"``,
        ``"unmatched_message"``, ``"shape"``).

    Examples
    --------
    Two computations on one CPU run one after the other:

    >>> import numpy as np
    >>> i = lambda *x: np.array(x, dtype=np.int64)
    >>> out = simulate(1, i(0, 0), i(2, 2), i(-1, -1), i(-1, -1), i(0, 0, 0), i(), i(0, 1, 2), i(0, 0),
    ...                np.array([1.0, 2.0]), i(0, 1, 2), i(2, 2), i(0, 0, 0), i(), np.array([np.inf] * 2),
    ...                np.zeros(2, np.uint8), i(), i(), 3, np.zeros(0))
    >>> out[1].tolist(), out[2].tolist()
    ([1.0, 3.0], [0.0, 0.0, 3.0])
    """
    ints = [np.asarray(x, dtype=np.int64).reshape(-1) for x in (op_rank, op_kind, op_peer, op_msg, dep_ptr, dep_idx)]
    table = StageTable(
        act_ptr=np.asarray(act_ptr, np.int64), kind=np.asarray(kind, np.int64), amount=np.asarray(amount, float),
        res_ptr=np.asarray(res_ptr, np.int64), res=np.asarray(res, np.int64), chan_ptr=np.asarray(chan_ptr, np.int64),
        chan=np.asarray(chan, np.int64), cap=np.asarray(cap, float), needs_recv=np.asarray(needs_recv, np.uint8),
        sender_done=np.asarray(sender_done, np.int64), recv_begins=np.asarray(recv_begins, np.int64),
        n_resources=int(n_resources), capacities=np.asarray(capacities, float))
    m = table.sender_done.shape[0]
    problem = _structure(int(n_ranks), *ints, m)
    if problem:
        raise SimulationFailed(*problem)
    n_compute = int(np.count_nonzero(ints[1] == 2))
    reason = stage_problem(table, m)
    if reason is None and table.n_activities != m + n_compute:
        reason = f"{table.n_activities} activities for {m} messages and {n_compute} computations"
    if reason:
        raise SimulationFailed("bad_stages", {"reason": reason})
    if not (tie == "fixed" or (isinstance(tie, (int, np.integer)) and not isinstance(tie, bool) and tie >= 0)):
        raise SimulationFailed("bad_stages", {"reason": f"tie must be 'fixed' or a seed >= 0, not {tie!r}"})
    return _Run((int(n_ranks), *ints), table, tie).run()
