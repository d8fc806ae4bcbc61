"""Network models of the simulator: how a message becomes stages on resources.

Every model is a small frozen object whose options are checked when it is
made (a bad or unknown option raises ``ValueError`` naming it). Its
:meth:`~Model.stages` compiles a (program, platform) into the stage table of
``docs/engine.md``, which the event engine runs. In all models a computation
of ``c`` flop on rank ``r`` holds the CPU of ``r`` for ``c / speed(r)``
seconds, one computation at a time per rank, overlapping communication; a
message from a rank to itself costs nothing (seed 004: "the communication
time for local transmission is zero").

Notation: a message of ``m`` bytes from ``s`` to ``r``; ``L`` the latency
sum of its route; ``B`` the route's bottleneck bandwidth; ``send(x)``,
``recv(x)``, ``cpu(x)`` the send port, receive port and CPU of node ``x``.

========  ==============================================  ===========================
model     one message alone takes                          contention
========  ==============================================  ===========================
OnePort   ``L + m/B`` (linear); hops (edges); overheads    one send, one receive per node
Circuit   ``L + m/B``                                      every link of the route, FCFS
Fluid     ``L + m/B``                                      max-min fair bandwidth shares
PLogP     ``g(m) + L + o_r(m)``                            gap at the sender, o_r at the receiver
========  ==============================================  ===========================

Examples
--------
>>> OnePort(sync=False, cost="overheads")
OnePort(sync=False, cost='overheads', ties='fixed')
>>> OnePort(cost="hops")
Traceback (most recent call last):
...
ValueError: OnePort option cost='hops' is not one of 'linear', 'edges', 'overheads'
>>> Fluid(one_port=True, bandwidth=3)
Traceback (most recent call last):
...
ValueError: Fluid has no option 'bandwidth' (its options: one_port, ties)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

import numpy as np

from .compile import Context, gather_rows
from .routes import channel_sets, fatpipe_caps
from .plogp import PLogPParams, Piecewise
from .stages import DELAY, FLOW, HOLD, Part, Slot, StageTable

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.program import Program

__all__ = ["Model", "OnePort", "Circuit", "Fluid", "PLogP", "PLogPParams", "Piecewise", "TIES", "COSTS", "model_from_text"]

TIES = ("fixed", "random")
COSTS = ("linear", "edges", "overheads")
_I = np.int64


def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_))


class Model(ABC):
    """Base of the network models: options checked at construction, :meth:`stages` to compile.

    ``ties`` (every model): ``"fixed"`` breaks ties between stages that
    become startable at the same time by activity order (message id, then
    computations in op order); ``"random"`` by a priority drawn per activity
    from the simulation's seed (seed 004 breaks ties at random). The same
    seed gives the same trace on the same engine; the Rust core draws its
    priorities with ChaCha8 and the Python reference engine with splitmix64,
    so their random-tie traces differ.

    Examples
    --------
    >>> isinstance(Fluid(), Model), Fluid().ties
    (True, 'fixed')
    """

    _options: tuple[str, ...] = ()
    ties: str

    def _set(self, values: dict, unknown: dict) -> None:
        name = type(self).__name__
        if unknown:
            raise ValueError(f"{name} has no option {next(iter(unknown))!r} (its options: {', '.join(self._options)})")
        for key, value in values.items():
            object.__setattr__(self, key, value)
        self._choice("ties", TIES)
        self._check()

    def _choice(self, option: str, allowed: tuple[str, ...]) -> None:
        value = getattr(self, option)
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{type(self).__name__} option {option}={value!r} is not one of "
                             f"{', '.join(repr(a) for a in allowed)}")

    def _flag(self, option: str) -> None:
        value = getattr(self, option)
        if not _is_bool(value):
            raise ValueError(f"{type(self).__name__} option {option}={value!r} is not True or False")
        object.__setattr__(self, option, bool(value))

    def _check(self) -> None:
        """Check the model's own options (subclasses)."""

    def stages(self, program: Program, platform: Platform) -> StageTable:
        """Compile ``program`` on ``platform`` into the engine's stage table.

        Parameters
        ----------
        program : Program
            Well formed, message ids dense ``0 .. M-1`` (:func:`collsched.simulation.simulate` renumbers them).
        platform : Platform
            Every rank of the program is one of its nodes.

        Returns
        -------
        StageTable

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2, bandwidth=1e6, latency=5e-4)
        >>> b = cs.ProgramBuilder(p.hosts)
        >>> _ = b.send("h0", "h1", [], size=1e6)
        >>> t = OnePort().stages(b.build(), p)
        >>> t.kind.tolist(), t.amount.tolist(), t.res.tolist(), t.needs_recv.tolist()
        ([0], [1.001], [0, 4], [1])
        """
        return self._compile(Context(program, platform))

    def _compile(self, ctx: Context) -> StageTable:
        part, sender_done, recv_begins, n_resources, capacities = self._messages(ctx)
        return StageTable.of(Part.join([part, ctx.compute_part()]), sender_done=sender_done,
                             recv_begins=recv_begins, n_resources=n_resources, capacities=capacities)

    @abstractmethod
    def _messages(self, ctx: Context):
        """The message stages of the model: ``(part, sender_done, recv_begins, n_resources, capacities)``."""


# --- OnePort ----------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class OnePort(Model):
    r"""One-port, full duplex: each node sends one message and receives one message at a time.

    **Equations.** A message of ``m`` bytes from ``s`` to ``r``:

    * ``sync=True`` (the default): the transfer holds ``send(s)`` and
      ``recv(r)`` together for ``T = o_s + L + o_r`` seconds, starting once
      the receive is posted (rendezvous); the send completes with it. With
      ``cost="linear"``: ``o_s = 0``, ``o_r = m/B``, so ``T = L + m/B``.
      With ``cost="overheads"``: ``o_s = send_overhead(s)``,
      ``o_r = recv_overhead(r) + m/B``.
    * ``sync=False``: ``send(s)`` is held ``o_s``, after which the send
      completes and the sender is free; the message travels ``L`` holding
      nothing; then ``recv(r)`` is held ``o_r`` once the receive is posted.
      Each receive port serves the messages that have arrived earliest
      first. The receive starts when ``recv(r)`` is taken.
    * ``cost="edges"``: store-and-forward over the graph view
      (:meth:`Platform.graph <collsched.platform.Platform.graph>`): the
      message follows its route's node sequence ``v0 = s, v1, ..., vk = r``
      and each hop holds ``{send(v_i), recv(v_i+1)}`` for
      ``L_e + m * c_e`` (edge latency and seconds per byte; parallel links
      merged). Routers' ports count (a router may also be a program rank,
      whose ports its own messages use). Synchronous: the first hop waits
      for the receive to be posted and the send completes with the last hop;
      asynchronous: the send completes with the first hop, the hops go on
      without waiting for the receive (the network forwards), and the
      receive starts with the last hop and completes at the later of its
      end and the receive's posting.

    **Overheads and message size** (``cost="overheads"``). Seed 004 (Chen
    and Liu) gives per-node constants: a sending overhead (S.O.) and a
    receiving overhead (R.O.) per workstation, and one network latency; its
    messages all have the same size, so it says nothing of how a cost grows
    with ``m``. collsched takes S.O. and R.O. from the nodes'
    ``send_overhead`` and ``recv_overhead`` (seconds per message, part of the
    platform data), the latency from the route (``L``), and adds the one
    per-byte term the platform carries, the route's ``m/B``, to the
    receiving side (the receiver drains the message from the network). So
    for ``m = 0`` it is exactly seed 004's model, and with zero overheads it
    is ``cost="linear"``.

    **What it ignores.** Link contention inside the network (only the end
    ports are exclusive; use ``Circuit`` or ``Fluid`` for links); in
    asynchronous ``linear`` mode the sender's bandwidth (``o_s = 0``: a
    sender may inject any number of messages at once, and only receivers
    serialise; use ``sync=True`` or ``cost="overheads"`` to charge senders).

    **Defaults.** ``sync=True, cost="linear", ties="fixed"``.

    **When to use it.** The model of the one-port scheduling literature
    (seed 004, seed 000's steady-state LPs, seed 003's 1-port full-duplex
    clusters): open-shop style all-to-alls, trees and orderings whose cost
    is dominated by the end nodes. ``cost="edges"`` checks schedules planned
    on the graph view (store-and-forward LPs).

    Parameters
    ----------
    sync : bool
    cost : {"linear", "edges", "overheads"}
    ties : {"fixed", "random"}

    References
    ----------
    L.-R. Chen, P. Liu, "Empirical studies of collective communication in
    heterogeneous cluster systems", 2002 (seed 004), section 4.1.
    P. B. Bhat, C. S. Raghavendra, V. K. Prasanna, "Adaptive communication
    algorithms for distributed heterogeneous systems", HPDC 1998.

    Examples
    --------
    Worked example (checked by ``test_oneport_worked_example``). On a
    star with 1 MB/s links of 0.5 ms latency, ``h0`` and ``h1`` each send
    1 MB to ``h2``: each transfer takes ``L + m/B = 1 ms + 1 s``; ``h2``
    receives one at a time, so synchronously the second starts when the first
    ends, at 1.001 s, and the makespan is 2.002 s; asynchronously both
    arrive at 1 ms and ``h2`` drains them one after the other, ending at
    2.001 s.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=5e-4)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> prog = b.build()
    >>> round(cs.simulate(p, prog, model=OnePort()).makespan, 9)
    2.002
    >>> round(cs.simulate(p, prog, model=OnePort(sync=False)).makespan, 9)
    2.001
    """

    sync: bool
    cost: str
    ties: str
    _options = ("sync", "cost", "ties")

    def __init__(self, *, sync: bool = True, cost: str = "linear", ties: str = "fixed", **unknown):
        self._set(dict(sync=sync, cost=cost, ties=ties), unknown)

    def _check(self) -> None:
        self._flag("sync")
        self._choice("cost", COSTS)

    def _messages(self, ctx: Context):
        if self.cost == "edges":
            return _store_and_forward(ctx, self.sync)
        m = ctx.n_messages
        local = ctx.src == ctx.dst
        wire = ctx.wire_time
        if self.cost == "overheads":
            o_s = np.where(local, 0.0, ctx.send_overhead[ctx.src])
            o_r = np.where(local, 0.0, ctx.recv_overhead[ctx.dst]) + wire
        else:
            o_s, o_r = np.zeros(m), wire
        send, recv = ctx.ports()
        n_res = 3 * ctx.n_ranks
        if self.sync:
            part = Part.uniform(m, [Slot(HOLD, o_s + ctx.msg_latency + o_r, res=np.stack([send, recv], axis=1),
                                         needs_recv=True)])
            return part, np.zeros(m, _I), np.zeros(m, _I), n_res, np.zeros(0)
        part = Part.uniform(m, [Slot(HOLD, o_s, res=send.reshape(-1, 1)),
                                Slot(DELAY, ctx.msg_latency),
                                Slot(HOLD, o_r, res=recv.reshape(-1, 1), needs_recv=True)])
        return part, np.zeros(m, _I), np.full(m, 2, _I), n_res, np.zeros(0)


def _store_and_forward(ctx: Context, sync: bool):
    """OnePort(cost="edges"): one hold{send(u), recv(v)} of L_e + m c_e per hop of the route's node sequence."""
    platform, routes, R = ctx.platform, ctx.routes, ctx.n_ranks
    node_ids = list(platform.nodes)
    rank_of = {name: i for i, name in enumerate(ctx.program.ranks)}
    others = [n for n in node_ids if n not in rank_of]
    send_res = np.array([3 * rank_of[n] if n in rank_of else 3 * R + 2 * others.index(n) for n in node_ids], _I)
    recv_res = send_res + 1
    n_resources = 3 * R + 2 * len(others)
    P = routes.n_pairs
    ps, pd = 3 * routes.src, 3 * routes.dst + 1      # ports of the pair's own ranks
    if all(link.ends is not None for link in platform.links.values()):
        g = platform.graph()
        links = list(platform.links.values())
        node_index = {n: i for i, n in enumerate(node_ids)}
        # per link direction d = 2l + (0 forward, 1 backward): tail, head, edge latency and cost
        tail = np.zeros(2 * len(links), _I)
        head = np.zeros(2 * len(links), _I)
        e_lat = np.zeros(2 * len(links))
        e_cost = np.zeros(2 * len(links))
        for l, link in enumerate(links):
            a, b = link.ends
            for d, (u, v) in enumerate(((a, b), (b, a))):
                if g.has_edge(u, v):
                    e = g.edges[u, v]
                    tail[2 * l + d], head[2 * l + d] = node_index[u], node_index[v]
                    e_lat[2 * l + d], e_cost[2 * l + d] = e["latency"], e["cost"]
        direction = 2 * routes.hop_link + (~routes.hop_fwd)
        hop_send, hop_recv = send_res[tail[direction]], recv_res[head[direction]]
        hop_lat, hop_cost = e_lat[direction], e_cost[direction]
        counts = np.diff(routes.hop_ptr)
    else:  # a route-table platform: the graph view joins host pairs directly
        hop_send, hop_recv = ps, pd
        hop_lat, hop_cost = routes.latency, 1.0 / routes.bandwidth
        counts = np.ones(P, _I)
        counts[routes.src == routes.dst] = 0
        keep = counts > 0
        hop_send, hop_recv, hop_lat, hop_cost = hop_send[keep], hop_recv[keep], hop_lat[keep], hop_cost[keep]
    # a pair with no hop (a rank to itself) gets one free hold on its own ports
    empty = counts == 0
    rows_per_pair = np.maximum(counts, 1)
    row_ptr = np.zeros(P + 1, _I)
    np.cumsum(rows_per_pair, out=row_ptr[1:])
    n_rows = int(row_ptr[-1])
    pos = np.repeat(row_ptr[:-1], counts) + (np.arange(int(counts.sum()), dtype=_I)
                                            - np.repeat(np.cumsum(counts) - counts, counts))
    r_send = np.empty(n_rows, _I)
    r_recv = np.empty(n_rows, _I)
    r_lat = np.zeros(n_rows)
    r_cost = np.zeros(n_rows)
    r_send[pos], r_recv[pos], r_lat[pos], r_cost[pos] = hop_send, hop_recv, hop_lat, hop_cost
    r_send[row_ptr[:-1][empty]], r_recv[row_ptr[:-1][empty]] = ps[empty], pd[empty]
    # messages: the rows of their pair, one hold stage per row
    stage_ptr, stage_row = gather_rows(row_ptr, np.arange(n_rows, dtype=_I), ctx.pair)
    n_stages = int(stage_ptr[-1])
    msg_of_stage = np.repeat(np.arange(ctx.n_messages, dtype=_I), np.diff(stage_ptr))
    first = np.zeros(n_stages, bool)
    first[stage_ptr[:-1]] = True
    res = np.stack([r_send[stage_row], r_recv[stage_row]], axis=1).reshape(-1)
    part = Part(act_ptr=stage_ptr, kind=np.full(n_stages, HOLD, _I),
                amount=r_lat[stage_row] + ctx.size[msg_of_stage] * r_cost[stage_row],
                res_ptr=np.arange(0, 2 * n_stages + 1, 2, dtype=_I), res=res,
                chan_ptr=np.zeros(n_stages + 1, _I), chan=np.zeros(0, _I), cap=np.full(n_stages, np.inf),
                needs_recv=(first & sync).astype(np.uint8))
    n_hops = np.diff(stage_ptr)
    if sync:
        return part, n_hops - 1, np.zeros(ctx.n_messages, _I), n_resources, np.zeros(0)
    # asynchronous: the hops run eagerly, then a free stage that waits for the receive
    wait = Part.uniform(ctx.n_messages, [Slot(DELAY, np.zeros(ctx.n_messages), needs_recv=True)])
    return _append_stage(part, wait), np.zeros(ctx.n_messages, _I), n_hops - 1, n_resources, np.zeros(0)


def _append_stage(part: Part, tail: Part) -> Part:
    """Each activity of ``part`` followed by the single stage of the same activity of ``tail``."""
    n = part.n_activities
    counts = np.diff(part.act_ptr) + 1
    act_ptr = np.zeros(n + 1, _I)
    np.cumsum(counts, out=act_ptr[1:])
    last = act_ptr[1:] - 1
    body = np.ones(int(act_ptr[-1]), bool)
    body[last] = False

    def merge(a, b):
        out = np.empty(body.shape[0], dtype=np.result_type(a, b))
        out[body], out[last] = a, b
        return out

    def merge_csr(pa, ia, pb, ib):
        counts = np.empty(body.shape[0], _I)
        counts[body], counts[last] = np.diff(pa), np.diff(pb)
        ptr = np.zeros(body.shape[0] + 1, _I)
        np.cumsum(counts, out=ptr[1:])
        out = np.empty(int(ptr[-1]), _I)
        owner = np.repeat(np.arange(body.shape[0]), counts)
        out[body[owner]], out[~body[owner]] = ia, ib
        return ptr, out

    res_ptr, res = merge_csr(part.res_ptr, part.res, tail.res_ptr, tail.res)
    chan_ptr, chan = merge_csr(part.chan_ptr, part.chan, tail.chan_ptr, tail.chan)
    return Part(act_ptr=act_ptr, kind=merge(part.kind, tail.kind), amount=merge(part.amount, tail.amount),
                res_ptr=res_ptr, res=res, chan_ptr=chan_ptr, chan=chan, cap=merge(part.cap, tail.cap),
                needs_recv=merge(part.needs_recv, tail.needs_recv))


# --- Circuit ----------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class Circuit(Model):
    """Circuit switching: a transfer holds every link of its route exclusively, first come first served.

    **Equation.** A message of ``m`` bytes holds every link (direction) of
    its route for ``L + m/B`` seconds; it starts as soon as all of them are
    free (stages that became startable earlier go first; a transfer whose
    links are all free starts even if an earlier one still waits for a busy
    link). Full-duplex links are two independent directions, shared links
    one resource for both, fatpipe links are never exclusive. With
    ``one_port=True`` it also holds ``send(s)`` and ``recv(r)``. Sends are
    buffered: the send completes when the transfer ends, whether or not the
    receive was posted; the receive completes at the later of the two.

    **What it ignores.** Bandwidth sharing (a link carries one message at a
    time, at full speed); the time to set up a circuit (put it in the link
    latencies); routing around busy links (routes are static).

    **Defaults.** ``one_port=False, ties="fixed"``.

    **When to use it.** Circuit-switched or wormhole machines where a
    message owns its path (the hypercubes of seed 002), and to measure how
    much a schedule's transfers collide on links (liquid schedules, seed 001).

    Parameters
    ----------
    one_port : bool
    ties : {"fixed", "random"}

    References
    ----------
    S. Ranka, J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", 1993 (seed 002).

    Examples
    --------
    Worked example (checked by ``test_circuit_worked_example``). On a
    star with 1 MB/s links of 0.5 ms latency, ``h0`` and ``h1`` each send
    1 MB to ``h2``: both routes end with ``h2``'s link, so the second
    transfer waits for the first: 1.001 s each, makespan 2.002 s. ``h0 -> h1``
    and ``h2 -> h3`` share no link and run together (1.001 s).

    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth=1e6, latency=5e-4)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> round(cs.simulate(p, b.build(), model=Circuit()).makespan, 9)
    2.002
    """

    one_port: bool
    ties: str
    _options = ("one_port", "ties")

    def __init__(self, *, one_port: bool = False, ties: str = "fixed", **unknown):
        self._set(dict(one_port=one_port, ties=ties), unknown)

    def _check(self) -> None:
        self._flag("one_port")

    def _messages(self, ctx: Context):
        routes, R, m = ctx.routes, ctx.n_ranks, ctx.n_messages
        n_links = len(routes.link_ids)
        ptr, idx = _route_sets(ctx, 3 * R)
        if self.one_port:
            send, recv = ctx.ports()
            ptr, idx = _append_cols(*gather_rows(ptr, idx, ctx.pair), np.stack([send, recv], axis=1))
        else:
            ptr, idx = gather_rows(ptr, idx, ctx.pair)
        part = Part.uniform(m, [Slot(HOLD, ctx.msg_latency + ctx.wire_time, res=(ptr, idx)),
                                Slot(DELAY, np.zeros(m), needs_recv=True)])
        return part, np.zeros(m, _I), np.zeros(m, _I), 3 * R + 2 * n_links, np.zeros(0)


def _route_sets(ctx: Context, base: int, *, fat: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the distinct channels (``base +`` channel) of its route's hops, fatpipe hops left out (or only them)."""
    return channel_sets(ctx.routes, ctx.hop_channels, ctx.hop_codes, ctx.hop_pair, base, fat=fat)


def _append_cols(ptr: np.ndarray, idx: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Append the row ``cols[i]`` to row ``i`` of a CSR."""
    n, k = cols.shape
    counts = np.diff(ptr) + k
    out_ptr = np.zeros(n + 1, _I)
    np.cumsum(counts, out=out_ptr[1:])
    out = np.empty(int(out_ptr[-1]), _I)
    keep = np.ones(out.shape[0], bool)
    tail = (out_ptr[1:, None] - k + np.arange(k)[None, :]).reshape(-1)
    keep[tail] = False
    out[keep] = idx
    out[tail] = cols.reshape(-1)
    return out_ptr, out


# --- Fluid ------------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class Fluid(Model):
    """Flows share link bandwidth max-min fairly; each pays its route latency first.

    **Equation.** A message of ``m`` bytes waits the latency ``L`` of its
    route, then flows: at every instant the rates ``x_f`` of the flows in
    progress are the max-min fair allocation of the constraints

        ``sum of x_f over the flows crossing channel c <= C_c`` for every channel,
        ``x_f <= cap_f``,

    with equal weights (progressive filling: every flow's rate grows at the
    same pace until a channel it crosses is full or it reaches its cap). A
    full-duplex link is two channels of its bandwidth, one per direction; a
    shared link one channel for both; a fatpipe link gives each flow its
    full bandwidth (a cap, never shared). Alone, a message takes
    ``L + m/B``. Sends are buffered: the send completes when the flow ends,
    the receive at the later of that and its posting. The receive starts
    when its data starts flowing, or when it is posted if that is later. With
    ``one_port=True`` a flow also holds ``send(s)`` and ``recv(r)`` while it
    flows (one message in and one out per node at a time).

    **What it ignores.** TCP effects (slow start, window limits, the
    latency-dependent shares of SimGrid's CM02 model: here shares are
    equal); packets and routers' queues; a message's first bytes arrive
    only after its full latency.

    **Defaults.** ``one_port=False, ties="fixed"``.

    **When to use it.** Switched networks where many transfers cross the
    same links (clusters, grids, fat trees): the default model, and the one
    SimGrid cross-checks (``backend="simgrid"``).

    Parameters
    ----------
    one_port : bool
    ties : {"fixed", "random"}

    References
    ----------
    P. Velho, L. Schnorr, H. Casanova, A. Legrand, "On the validity of
    flow-level TCP network models for grid and cloud simulations", ACM
    TOMACS 2013 (CM02 and max-min sharing in SimGrid).

    Examples
    --------
    Worked example (checked by ``test_fluid_worked_example``). On a
    star with 1 MB/s links of 0.5 ms latency, ``h0`` and ``h1`` each send
    1 MB to ``h2``: after 1 ms of latency both flows share ``h2``'s link at
    0.5 MB/s and end together at 2.001 s. A third flow ``h3 -> h0`` shares
    nothing with them (full duplex) and ends at 1.001 s.

    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth=1e6, latency=5e-4)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> _ = b.send("h3", "h0", [], size=1e6, recv_after=())
    >>> r = cs.simulate(p, b.build(), model=Fluid())
    >>> round(r.makespan, 9), r.trace.end[1::2].round(9).tolist()
    (2.001, [2.001, 2.001, 1.001])
    """

    one_port: bool
    ties: str
    _options = ("one_port", "ties")

    def __init__(self, *, one_port: bool = False, ties: str = "fixed", **unknown):
        self._set(dict(one_port=one_port, ties=ties), unknown)

    def _check(self) -> None:
        self._flag("one_port")

    def _messages(self, ctx: Context):
        routes, m = ctx.routes, ctx.n_messages
        ptr, idx = _route_sets(ctx, 0)
        cap = fatpipe_caps(ctx.platform, routes, ctx.hop_codes, ctx.hop_pair)
        res = np.stack(ctx.ports(), axis=1) if self.one_port else None
        part = Part.uniform(m, [Slot(DELAY, ctx.msg_latency),
                                Slot(FLOW, ctx.size, res=res, chan=gather_rows(ptr, idx, ctx.pair), cap=cap[ctx.pair]),
                                Slot(DELAY, np.zeros(m), needs_recv=True)])
        capacities = np.repeat([link.bandwidth for link in ctx.platform.links.values()], 2).astype(np.float64)
        return part, np.ones(m, _I), np.ones(m, _I), 3 * ctx.n_ranks, capacities


# --- PLogP ------------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class PLogP(Model):
    """The parameterised LogP model: latency ``L``, gap ``g(m)``, overheads ``o_s(m)``, ``o_r(m)``.

    **Equation.** A message of ``m`` bytes from ``s`` (in cluster ``i``) to
    ``r`` (in cluster ``j``), with the parameters ``P`` of the pair
    ``(i, j)``: ``send(s)`` is held ``max(g(m), o_s(m))`` (the gap: the
    sender may start its next message that much later; pLogP has
    ``g(m) >= o_s(m)``) and the send completes then; the message travels
    ``L`` holding nothing; then ``recv(r)`` is held ``o_r(m)`` once the
    receive is posted. Alone, a message takes ``g(m) + L + o_r(m)``; with
    ``o_r = 0`` this is the pLogP time ``L + g(m)`` that the cost formulas
    of seed 003's Table 1 use (flat tree ``L + (P-1) g(m)``, chain
    ``(P-1)(g(m) + L)``). ``g``, ``o_s`` and ``o_r`` are piecewise-linear in
    ``m`` (:class:`Piecewise`). Segmented messages are program-level: a
    segmented tree lowers to several messages.

    Parameters are per pair of the platform's clusters
    (:attr:`Platform.clusters <collsched.platform.Platform.clusters>`,
    indexed from 0): ``pairs[(i, j)]`` for messages from cluster ``i`` to
    cluster ``j``, else ``pairs[(j, i)]``, else ``params``; ranks in no
    cluster (routers) and platforms without clusters use ``params``.

    **What it ignores.** The network between clusters (no link contention:
    pLogP measures end-to-end); the routes and bandwidths of the platform
    (only its clusters are used); the CPU time of the overheads (they hold
    the ports, not the CPU).

    **Defaults.** ``pairs={}``, ``ties="fixed"``.

    **When to use it.** Grids of clusters measured with pLogP benchmarks
    (seed 003): choosing broadcast algorithms and inter-cluster trees from
    measured ``L`` and ``g(m)``.

    Parameters
    ----------
    params : PLogPParams
        The default parameters.
    pairs : mapping of (int, int) to PLogPParams, optional
        Parameters per ordered pair of cluster indices.
    ties : {"fixed", "random"}

    References
    ----------
    T. Kielmann, H. E. Bal, K. Verstoep, "Fast measurement of LogP parameters
    for message passing platforms", IPDPS workshops 2000 (pLogP).
    L. A. Steffenel, G. Mounié, (seed 003), section 2 and Table 1.

    Examples
    --------
    Worked example (checked by ``test_plogp_worked_example``). With
    ``L = 1 ms`` and ``g(m) = 0.1 ms + m / (100 MB/s)``, a flat-tree
    broadcast of 1 MB from ``h0`` to 3 hosts takes
    ``L + 3 g(m) = 0.001 + 3 * 0.0101 = 0.0313`` s, and a chain
    ``3 (g(m) + L) = 0.0333`` s.

    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> model = PLogP(PLogPParams(L=1e-3, g=Piecewise([0, 1e6], [1e-4, 1e-4 + 1e-2])))
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> for h in ("h1", "h2", "h3"):
    ...     _ = b.send("h0", h, [], size=1e6)
    >>> round(cs.simulate(p, b.build(), model=model).makespan, 9)
    0.0313
    """

    params: PLogPParams
    pairs: tuple
    ties: str
    _options = ("params", "pairs", "ties")

    def __init__(self, params: PLogPParams, *, pairs: Mapping | None = None, ties: str = "fixed", **unknown):
        self._set(dict(params=params, pairs=pairs, ties=ties), unknown)

    def _check(self) -> None:
        if not isinstance(self.params, PLogPParams):
            raise ValueError(f"PLogP option params={self.params!r} is not a PLogPParams")
        pairs = {} if self.pairs is None else self.pairs
        if isinstance(pairs, tuple):
            pairs = dict(pairs)
        if not isinstance(pairs, Mapping):
            raise ValueError(f"PLogP option pairs={self.pairs!r} is not a mapping (i, j) -> PLogPParams")
        for key, value in pairs.items():
            if (not isinstance(key, tuple) or len(key) != 2
                    or not all(isinstance(k, (int, np.integer)) and not _is_bool(k) and k >= 0 for k in key)):
                raise ValueError(f"PLogP option pairs has key {key!r}, not a pair of cluster indices (i, j)")
            if not isinstance(value, PLogPParams):
                raise ValueError(f"PLogP option pairs[{key!r}] is {value!r}, not a PLogPParams")
        object.__setattr__(self, "pairs", tuple(sorted(((int(i), int(j)), v) for (i, j), v in pairs.items())))

    def _messages(self, ctx: Context):
        m = ctx.n_messages
        clusters = ctx.platform.clusters
        if self.pairs and clusters is None:
            raise ValueError(f"PLogP has parameters per cluster pair but platform {ctx.platform.name!r} has no clusters")
        cluster_of = {h: i for i, group in enumerate(clusters or ()) for h in group}
        for i, j in (key for key, _ in self.pairs):
            if max(i, j) >= len(clusters):
                raise ValueError(f"PLogP pairs name cluster {max(i, j)}, but platform {ctx.platform.name!r} has "
                                 f"{len(clusters)} clusters")
        rank_cluster = np.array([cluster_of.get(r, -1) for r in ctx.program.ranks], _I)
        table = dict(self.pairs)
        ci, cj = rank_cluster[ctx.src], rank_cluster[ctx.dst]
        n_c = len(clusters or ()) + 1
        key = (ci + 1) * n_c + (cj + 1)
        gap, o_r, lat = np.zeros(m), np.zeros(m), np.zeros(m)
        for k in np.unique(key).tolist():
            i, j = k // n_c - 1, k % n_c - 1
            params = table.get((i, j)) or table.get((j, i)) or self.params
            sel = key == k
            size = ctx.size[sel]
            gap[sel] = np.maximum(params.g(size), params.o_s(size))
            o_r[sel] = params.o_r(size)
            lat[sel] = params.L
        local = ctx.src == ctx.dst
        gap[local] = o_r[local] = lat[local] = 0.0
        send, recv = ctx.ports()
        part = Part.uniform(m, [Slot(HOLD, gap, res=send.reshape(-1, 1)), Slot(DELAY, lat),
                                Slot(HOLD, o_r, res=recv.reshape(-1, 1), needs_recv=True)])
        return part, np.zeros(m, _I), np.full(m, 2, _I), 3 * ctx.n_ranks, np.zeros(0)


_BY_NAME = {"oneport": OnePort, "circuit": Circuit, "fluid": Fluid}


def model_from_text(text: str) -> Model:
    """A model from its command-line spelling: ``NAME`` or ``NAME:option=value,...``.

    Names are ``oneport``, ``circuit`` and ``fluid`` (any case); values
    ``true``/``false`` are booleans, anything else a string. PLogP needs
    its parameter tables and is made in Python.

    Raises
    ------
    ValueError
        An unknown name, a malformed option or a bad value (one line saying which).

    Examples
    --------
    >>> model_from_text("oneport:sync=false,cost=edges")
    OnePort(sync=False, cost='edges', ties='fixed')
    >>> model_from_text("Fluid")
    Fluid(one_port=False, ties='fixed')
    >>> model_from_text("plogp")
    Traceback (most recent call last):
    ...
    ValueError: unknown model 'plogp' (models: oneport, circuit, fluid; PLogP needs parameter tables: use the Python API)
    """
    name, _, rest = text.strip().partition(":")
    cls = _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"unknown model {name!r} (models: {', '.join(_BY_NAME)}; "
                         "PLogP needs parameter tables: use the Python API)")
    options = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"model option {item!r} is not key=value (e.g. oneport:sync=false)")
        options[key.strip()] = {"true": True, "false": False}.get(value.strip().lower(), value.strip())
    return cls(**options)
