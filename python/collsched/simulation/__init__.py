"""Simulate a program (or a schedule) on a platform under a network model.

:func:`simulate` lowers a schedule if needed, compiles the program into
stages with the chosen model (:mod:`collsched.simulation.models`), runs the
event engine of the Rust core (``collsched._core.simulate``) without any
per-event Python call, and returns a
:class:`~collsched.schedules.trace.SimResult`. ``backend="simgrid"`` runs
the same program in SimGrid instead (:mod:`collsched.simulation.simgrid`).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4, bandwidth=1e6, latency=5e-4)
>>> c = cs.Scatter(source="h0", targets=p.hosts, size=1e6)
>>> s = cs.plan(p, c, algorithm="linear")
>>> r = cs.simulate(p, s, c, model=cs.models.OnePort())
>>> round(r.makespan, 9), r.trace.n_ops
(3.003, 6)
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CollschedError
from ..schedules.program import OP_KINDS, Program
from ..schedules.trace import SimResult, Trace
from ..schedules.validate import lower_any
from . import models
from .compile import Context
from .fluid_core import fluid_stages
from .models import Circuit, Fluid, Model, OnePort, PLogP

if TYPE_CHECKING:  # pragma: no cover
    from ..collectives import Collective
    from ..platform import Platform

__all__ = ["simulate", "SimulationError", "models", "Model", "OnePort", "Circuit", "Fluid", "PLogP", "BACKENDS",
           "ENGINES"]

BACKENDS = ("collsched", "simgrid")
ENGINES = ("core", "reference")


class SimulationError(CollschedError):
    """A program cannot be simulated: malformed, a rank not on the platform, or a deadlock.

    The message names the stuck or faulty operations as ``rank R op K (what)``,
    ``K`` counting the rank's operations from 0.

    Examples
    --------
    A synchronous send to oneself waits for a receive that waits for the send:

    >>> import collsched as cs
    >>> p = cs.topologies.star(2)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h0", [], size=1)
    >>> cs.simulate(p, b.build(), model=cs.models.OnePort())
    Traceback (most recent call last):
    ...
    collsched.simulation.SimulationError: program '' under OnePort(sync=True, cost='linear', ties='fixed'): deadlock: rank h0 op 0 (send msg 0 to h0) never completes (a send waits for a receive that is never posted, or a cycle of waits) (check the program's dependencies, or use an asynchronous model)
    """


def simulate(platform: Platform, schedule_or_program, collective: Collective | None = None, *,
             model: Model = Fluid(), seed: int = 0, backend: str = "collsched", engine: str = "core") -> SimResult:
    """Execute a schedule or a program on a platform under a network model.

    Parameters
    ----------
    platform : Platform
    schedule_or_program : Schedule or Program
        A schedule is lowered with ``schedule.lower(platform, collective)``.
    collective : Collective, optional
        Needed to lower a schedule; for a :class:`~collsched.collectives.Series`
        the result has a throughput (``count / makespan``).
    model : Model
        :class:`OnePort`, :class:`Circuit`, :class:`Fluid` (the default) or :class:`PLogP`.
    seed : int
        Seeds the tie-breaking of models made with ``ties="random"``
        (and the SimGrid backend, if it draws anything).
    backend : {"collsched", "simgrid"}
        The built-in engine, or SimGrid (if its Python bindings can be imported).
    engine : {"core", "reference"}
        The Rust event engine, or the slow pure-Python reference
        (:mod:`collsched.simulation.reference`), for tests.

    Returns
    -------
    SimResult

    Raises
    ------
    ValueError
        A bad option (naming it), or a schedule without its collective.
    SimulationError
        The program is malformed, a rank is not a node of the platform, or the
        run deadlocks; the message names the operations at fault.
    PlatformError
        A message's destination is unreachable from its source.

    Notes
    -----
    Message ids are renumbered densely if they are not ``0 .. M-1``; the
    trace keeps the program's own ids. Compilation is vectorised: one route
    lookup per distinct (source, destination) pair, the rest numpy; the run
    is one call into the Rust core, which releases the GIL. Under
    :class:`Fluid`, when every rank is a host, the stage table is compiled
    in the core from the routes of every host pair, kept on the platform
    after first use (:mod:`collsched.simulation.fluid_core`): the same
    table, without a Python object per message.

    Examples
    --------
    One-port serialisation at a receiver, then the same with overheads
    (seed 004's model):

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=5e-4)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> r = cs.simulate(p, b.build(), model=cs.models.OnePort())
    >>> round(r.makespan, 9), r.recv_busy.round(9).tolist()
    (2.002, [0.0, 0.0, 2.002])
    >>> cs.simulate(p, b.build(), model="fluid")
    Traceback (most recent call last):
    ...
    ValueError: simulate option model='fluid' is not a model (use cs.models.Fluid(), OnePort(), Circuit() or PLogP(...))
    """
    _check_options(model, seed, backend, engine)
    if not isinstance(schedule_or_program, Program):
        collective = schedule_or_program.answering(collective)
    program = _program(platform, collective, schedule_or_program)
    _check_ranks(platform, program, model)
    if backend == "simgrid":
        from . import simgrid

        dense = _checked(program, model)
        result = simgrid.run(platform, dense, model, seed)
        if dense is not program:
            result = dataclasses.replace(result, trace=Trace.of_program(program, result.trace.start, result.trace.end))
        return dataclasses.replace(result, throughput=_throughput(collective, result.makespan))
    fast = fluid_stages(platform, program, model) if engine == "core" and type(model) is Fluid else None
    if fast is not None:  # the program's structure beyond what the compile read is the core's check
        dense, (table, busy) = program, fast
    else:
        dense = _checked(program, model)
        ctx = Context(dense, platform)
        table = model._compile(ctx)
        busy = ctx.link_busy()
        del ctx  # its routes and per-hop arrays are not needed while the core runs
    run = _engine(engine)
    tie = "fixed" if model.ties == "fixed" else int(seed)
    try:
        start, end, resource_busy, _, events, makespan = run(
            len(dense.ranks), *_columns(dense), *table.arrays(), table.n_resources, table.capacities, tie=tie)
    except _failures() as exc:
        code, details = exc.args
        what, fix = _explain(program, model, code, details)
        raise SimulationError(what, fix=fix) from None
    R = len(dense.ranks)
    for times in (start, end):   # fresh arrays, nobody else's: the trace keeps them rather than a copy
        times.setflags(write=False)
    rb = np.asarray(resource_busy)
    makespan = float(makespan)
    return SimResult(model=repr(model), makespan=makespan, throughput=_throughput(collective, makespan),
                     trace=Trace.of_program(program, start, end), send_busy=rb[0:3 * R:3], recv_busy=rb[1:3 * R:3],
                     cpu_busy=rb[2:3 * R:3], link_ids=tuple(platform.links), link_busy=busy,
                     link_utilisation=busy / makespan if makespan > 0 else np.zeros_like(busy),
                     events=int(events), backend="collsched")


# --- helpers ------------------------------------------------------------------------------------


def _check_options(model, seed, backend, engine) -> None:
    if not isinstance(model, Model):
        raise ValueError(f"simulate option model={model!r} is not a model "
                         "(use cs.models.Fluid(), OnePort(), Circuit() or PLogP(...))")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"simulate option seed={seed!r} is not an integer in 0 .. 2**64 - 1")
    if backend not in BACKENDS:
        raise ValueError(f"simulate option backend={backend!r} is not one of {', '.join(map(repr, BACKENDS))}")
    if engine not in ENGINES:
        raise ValueError(f"simulate option engine={engine!r} is not one of {', '.join(map(repr, ENGINES))}")


def _program(platform, collective, schedule_or_program) -> Program:
    if isinstance(schedule_or_program, Program):
        return schedule_or_program
    return lower_any(platform, collective, schedule_or_program)


def _throughput(collective, makespan: float) -> float | None:
    from ..collectives import Series

    if not isinstance(collective, Series):
        return None
    return collective.count / makespan if makespan > 0 else float("inf")


def _engine(engine: str):
    if engine == "reference":
        from . import reference

        return reference.simulate
    from .. import _core

    run = getattr(_core, "simulate", None)
    if run is None:  # pragma: no cover - a stale build
        raise RuntimeError("collsched._core has no simulate(): the Rust extension is older than the Python "
                           "package; rebuild it with `pip install -e .`")
    return run


def _failures() -> tuple[type[BaseException], ...]:
    from .. import _core
    from .reference import SimulationFailed

    return (SimulationFailed, _core.SimulationFailed)


def _check_ranks(platform: Platform, program: Program, model: Model) -> None:
    for name in program.ranks:
        if name not in platform.nodes:
            raise SimulationError(f"program {program.name!r} has rank {name!r}, which is not a node of platform "
                                  f"{platform.name!r}", fix="build the program on this platform's hosts")


def _columns(p: Program) -> list[np.ndarray]:
    """The program's arrays as the core takes them (int64, contiguous; no copy if they already are)."""
    return [np.ascontiguousarray(getattr(p, name), dtype=np.int64)
            for name in ("op_rank", "op_kind", "op_peer", "op_msg", "dep_ptr", "dep_idx")]


def _checked(p: Program, model: Model) -> Program:
    """The program with dense message ids, once checked well formed (else :class:`SimulationError`).

    The common case costs one pass of the core's structure check (and one over
    the sizes); only a program that fails it, or has sparse message ids, goes
    through the vectorised :func:`_structure` (which names the fault) and
    :func:`_dense`.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1)
    >>> prog = b.build()
    >>> _checked(prog, cs.models.Fluid()) is prog
    True
    >>> _checked(dataclasses.replace(prog, op_peer=prog.op_peer * 0), cs.models.Fluid())
    Traceback (most recent call last):
    ...
    collsched.simulation.SimulationError: program '' under Fluid(one_port=False, ties='fixed'): message 0: rank h0 op 0 (send msg 0 to h0) and rank h1 op 0 (recv msg 0 from h0) do not name each other
    """
    from .. import _core

    size = p.op_size
    sizes_ok = size.shape[0] == 0 or bool(np.all(size >= 0) and np.isfinite(size.max()))
    well_formed = getattr(_core, "program_well_formed", None)  # None: an extension built before it (slower path)
    if sizes_ok and well_formed is not None and well_formed(len(p.ranks), *_columns(p)):
        return p
    problem = _structure(p)
    if problem is not None:
        what, fix = _explain(p, model, *problem)
        raise SimulationError(what, fix=fix)
    return _dense(p)


def _structure(p: Program) -> tuple[str, dict] | None:
    """The first structural fault of a program, as the core's (code, details), vectorised."""
    n, R = p.n_ops, len(p.ranks)
    comm = (p.op_kind == 0) | (p.op_kind == 1)
    bad = (p.op_rank < 0) | (p.op_rank >= R) | (p.op_kind < 0) | (p.op_kind > 2) | \
        (comm & ((p.op_peer < 0) | (p.op_peer >= R) | (p.op_msg < 0)))
    if bad.any():
        return "bad_op", {"op": int(np.flatnonzero(bad)[0])}
    sizes = ~np.isfinite(p.op_size) | (p.op_size < 0)
    if sizes.any():
        return "bad_size", {"op": int(np.flatnonzero(sizes)[0])}
    owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(p.dep_ptr))
    dep = p.dep_idx
    bad_dep = (dep < 0) | (dep >= owner)
    bad_dep |= p.op_rank[np.clip(dep, 0, max(n - 1, 0))] != p.op_rank[owner] if n else bad_dep
    if bad_dep.any():
        k = int(np.flatnonzero(bad_dep)[0])
        return "bad_dependency", {"op": int(owner[k]), "dep": int(dep[k])}
    ops = np.flatnonzero(comm)
    if ops.shape[0] == 0:
        return None
    ids, inverse = _message_ids(p.op_msg[ops])
    sends = np.bincount(inverse, weights=p.op_kind[ops] == 0, minlength=ids.shape[0])
    recvs = np.bincount(inverse, weights=p.op_kind[ops] == 1, minlength=ids.shape[0])
    wrong = np.flatnonzero((sends != 1) | (recvs != 1))
    if wrong.shape[0]:
        k = int(wrong[0])
        return "unmatched_message", {"msg": int(ids[k]), "op": int(ops[np.flatnonzero(inverse == k)[0]]),
                                     "sends": int(sends[k]), "recvs": int(recvs[k])}
    send_of = np.empty(ids.shape[0], np.int64)
    recv_of = np.empty(ids.shape[0], np.int64)
    is_send = p.op_kind[ops] == 0
    send_of[inverse[is_send]] = ops[is_send]
    recv_of[inverse[~is_send]] = ops[~is_send]
    mismatch = (p.op_peer[send_of] != p.op_rank[recv_of]) | (p.op_peer[recv_of] != p.op_rank[send_of])
    if mismatch.any():
        k = int(np.flatnonzero(mismatch)[0])
        return "mismatched_message", {"msg": int(ids[k]), "send": int(send_of[k]), "recv": int(recv_of[k])}
    return None


def _message_ids(msg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct ids in order, position of each entry's id)``, like ``np.unique``; O(n) for small ids."""
    if msg.shape[0] and msg.min() >= 0 and msg.max() < 4 * msg.shape[0]:
        present = np.bincount(msg) > 0
        ids = np.flatnonzero(present)
        rank = np.cumsum(present) - 1
        return ids, rank[msg]
    ids, inverse = np.unique(msg, return_inverse=True)
    return ids, inverse.reshape(-1)


def _dense(p: Program) -> Program:
    """The program with message ids ``0 .. M-1`` (the same object if they already are)."""
    comm = (p.op_kind == 0) | (p.op_kind == 1)
    ids, inverse = _message_ids(p.op_msg[comm])
    if ids.shape[0] == 0 or (ids[0] == 0 and ids[-1] == ids.shape[0] - 1):
        return p
    msg = p.op_msg.copy()
    msg[comm] = inverse
    return dataclasses.replace(p, op_msg=msg)


def _describe(p: Program, i: int) -> str:
    if not 0 <= i < p.n_ops:
        return f"op id {i}"
    rank = int(p.op_rank[i])
    name = p.ranks[rank] if 0 <= rank < len(p.ranks) else f"#{rank}"
    local = int(np.count_nonzero(p.op_rank[:i] == rank))
    kind = int(p.op_kind[i])
    if kind not in (0, 1, 2):
        return f"rank {name} op {local} (kind {kind})"
    what = OP_KINDS[kind]
    if kind != 2:
        peer = int(p.op_peer[i])
        peer_name = p.ranks[peer] if 0 <= peer < len(p.ranks) else f"#{peer}"
        what = f"{what} msg {int(p.op_msg[i])} {'to' if kind == 0 else 'from'} {peer_name}"
    return f"rank {name} op {local} ({what})"


def _explain(p: Program, model: Model, code: str, d: dict) -> tuple[str, str | None]:
    """One line for the core's ``(code, details)``, and how to fix it."""
    head = f"program {p.name!r} under {model!r}: "
    if code == "deadlock":
        stuck = [int(i) for i in d["stuck"]]
        # name the ops that wait for the world, not those that merely wait for an earlier stuck op of their rank
        listed_set = set(stuck)
        first = [i for i in stuck if not (0 <= i < p.n_ops
                                          and listed_set.intersection(p.dep_idx[p.dep_ptr[i]:p.dep_ptr[i + 1]].tolist()))]
        stuck = first or stuck
        listed = ", ".join(_describe(p, i) for i in stuck[:4]) + (f" and {len(stuck) - 4} more"
                                                                  if len(stuck) > 4 else "")
        kinds = {int(p.op_kind[i]) for i in stuck if 0 <= i < p.n_ops}
        why = ("each waits for a message that cannot come: a cycle of waits" if kinds <= {1} else
               "a send waits for a receive that is never posted, or a cycle of waits")
        verb = "never completes" if len(stuck) == 1 else "never complete"
        return (head + f"deadlock: {listed} {verb} ({why})",
                "check the program's dependencies" + ("" if kinds <= {1} else ", or use an asynchronous model"))
    if code == "unmatched_message":
        have = f"{d.get('sends', '?')} send(s) and {d.get('recvs', '?')} receive(s)"
        return head + f"message {d['msg']} has {have}, not one of each (at {_describe(p, d['op'])})", \
            "give every message exactly one send and one recv"
    if code == "mismatched_message":
        return head + (f"message {d['msg']}: {_describe(p, d['send'])} and {_describe(p, d['recv'])} "
                       "do not name each other"), None
    if code == "bad_dependency":
        return head + f"{_describe(p, d['op'])} depends on op id {d['dep']}, which is not an earlier op of its rank", None
    if code == "bad_op":
        return head + f"op id {d['op']} has a rank, peer, kind or message id out of range", None
    if code == "bad_size":
        return head + f"{_describe(p, d['op'])} has size {float(p.op_size[d['op']])!r}, not a finite number >= 0", None
    if code == "bad_stages":
        return head + f"the model compiled a bad stage table ({d['reason']})", "this is a collsched bug: report it"
    return head + f"malformed program ({code}: {d})", None
