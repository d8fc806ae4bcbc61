"""SimGrid as an independent executor of programs: the cross-check of the ``Fluid`` model.

:func:`run` executes a :class:`~collsched.schedules.Program` in SimGrid
(through its Python bindings, found by :mod:`._simgrid_loader`; written
for and tested with SimGrid 3.32, Debian 12's ``python3-simgrid``) on the platform that
:func:`~collsched.platform.io.platform_to_simgrid` exports, configured so
that SimGrid computes what :class:`~collsched.simulation.models.Fluid`
computes. Two independent implementations of one model must agree; where
they do not, one of them is wrong.

Fluid, and how SimGrid is made to compute it
--------------------------------------------
Fluid: a message of ``m`` bytes from ``s`` to ``r`` waits its route latency
``L`` (a pure delay), then its bytes flow at the max-min fair rate with
*equal* shares over its route's channels (one per direction of a full-duplex
link, one per shared link; a FATPIPE link caps each flow at its bandwidth).
Sends are buffered: the bytes flow whether or not the receive is posted, the
send completes when they have arrived, the receive at the later of that and
its posting.

SimGrid's CM02 model is max-min fair sharing too, but by default (LV08) it
corrects latencies and bandwidths, limits each flow by a TCP window
(``TCP-gamma / 2L``), loads the reverse route with 5 % of every flow
(cross-traffic), and, even with all that turned off, shares a link in
inverse proportion to each flow's *sharing penalty*, which CM02 sets to the
flow's route latency (plus ``weight-S`` / bandwidth per link). Hence:

=========================================  ===================================================
``network/model:CM02``                     max-min fairness without LV08's corrections
``network/latency-factor:1``,              no correction of latencies and bandwidths
``network/bandwidth-factor:1``
``network/weight-S:0``                     no bandwidth term in the sharing penalty
``network/TCP-gamma:0``                    no TCP window bound
``network/crosstraffic:0``                 no load on the reverse route
every link latency 0 in SimGrid            CM02 gives a flow of zero latency the penalty 1,
                                           for good: equal shares (and no window bound)
latency paid outside SimGrid's sharing     the sending actor waits ``L``, then calls ``put``
a permanent receiver per message mailbox   SimGrid's eager mode: a ``put`` starts its transfer
                                           before the ``get`` (Fluid's buffered sends)
SPLITDUPLEX / SHARED / FATPIPE links       as exported (full duplex is split duplex)
sizes and bandwidths times ``2**k``        SimGrid takes whole bytes; scaling both by a power
                                           of two changes no rate and no time, exactly
``surf/precision:1e-12``,                  lowered from their defaults, so that nearby events
``maxmin/precision:1e-11``                 are not merged and a nearly saturated link is not
                                           taken for a saturated one
=========================================  ===================================================

``sends="rendezvous"`` gives SimGrid's own semantics instead: a transfer
starts when both its send and its receive are posted (a zero-byte handshake
on mailbox ``h<msg>`` detects that instant), its latency runs from then,
and both ends complete when the bytes have arrived. Fluid does not compute
that; it is there to measure what the difference does to a schedule.

Execution
---------
One actor per rank, on its host (a router cannot run an actor: programs
whose ranks are routers are rejected). An op starts when its dependencies
(ops of its rank) are done: a send waits its latency then calls
``put_async`` on mailbox ``d<msg>``, a receive calls ``get_async`` on it, a
computation is run by a helper actor on the host (``this_actor.execute``).
Each rank's CPU runs one computation at a time, earliest ready first, ties by op index (Fluid's
``ties="fixed"``). The rank's actor waits for the first of its comms to
finish (``Comm.wait_any``, or ``wait_any_for`` when a latency ends first)
and starts what became ready. A message from a rank to itself costs nothing,
as in every collsched model.

The trace has Fluid's times: a send runs from its ready time to the arrival
of its last byte; a receive from the later of its posting and the first
byte's departure (after the latency) to the later of its posting and the
last byte's arrival; a computation while the CPU runs it.

SimGrid's engine cannot be created twice in one process, and a Python
exception in an actor aborts the process; so every run happens in a child
process (about 0.2 s of start-up), which receives the platform (XML) and the
program (plain lists) and returns the times of every op.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(2, bandwidth=1e8, latency=1e-3)
>>> b = cs.ProgramBuilder(p.hosts)
>>> _ = b.send("h0", "h1", [], size=1e6)
>>> r = run(p, b.build())                       # doctest: +SKIP
>>> r.makespan, r.backend    # 2 ms of latency, then 1 MB at 100 MB/s  # doctest: +SKIP
(0.012, 'simgrid')
"""

from __future__ import annotations

import dataclasses
import heapq
import math
import os
import pickle
import subprocess
import sys
import tempfile
import traceback
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..platform.io.simgrid import platform_to_simgrid
from ..schedules.program import COMPUTE, RECV, SEND, Program
from . import _simgrid_loader
from ._simgrid_loader import SimgridUnavailable

__all__ = ["run", "SimgridUnavailable", "SimgridTimes", "unavailable_reason", "CONFIG", "SENDS"]

CONFIG = ("network/model:CM02", "network/latency-factor:1", "network/bandwidth-factor:1", "network/weight-S:0",
          "network/TCP-gamma:0", "network/crosstraffic:0", "network/loopback-lat:0",
          "surf/precision:1e-12", "maxmin/precision:1e-11")
"""SimGrid configuration of every run (see the module docstring for why)."""

SENDS = ("buffered", "rendezvous")
"""Send semantics: Fluid's buffered sends, or SimGrid's rendezvous."""

_MAX_BYTES = 2.0 ** 63


@dataclass(frozen=True)
class SimgridTimes:
    """What a SimGrid run measured, per op of the program (SimGrid's clock, seconds).

    Attributes
    ----------
    ready : numpy.ndarray
        When each op's dependencies were done (a receive: when it was posted).
    start, end : numpy.ndarray
        Each op's times as a :class:`~collsched.schedules.trace.Trace` gives them
        (see the module docstring).
    flow_start : numpy.ndarray
        Sends and receives: when the message's bytes began to flow; NaN for computations.
    makespan : float
        Largest end (0 for an empty program).
    events : int
        SimGrid activities (comms and computations) that completed.
    sends : str
        One of :data:`SENDS`.

    Examples
    --------
    One message of 1 MB at 100 MB/s after 2 ms of latency, as :func:`_run_arrays` reports it:

    >>> t = SimgridTimes(ready=np.zeros(2), start=np.array([0.0, 0.0]), end=np.array([0.012, 0.012]),
    ...                  flow_start=np.array([0.002, 0.002]), makespan=0.012, events=1, sends="buffered")
    >>> float(t.end.max() - t.flow_start.min())
    0.01
    """

    ready: np.ndarray
    start: np.ndarray
    end: np.ndarray
    flow_start: np.ndarray
    makespan: float
    events: int
    sends: str


# --- the parent side ---------------------------------------------------------------------

def _error(what: str, fix: str | None = None):
    """The simulator's own error class (imported late: the package imports this module lazily)."""
    from . import SimulationError

    return SimulationError(what, fix=fix)


def run(platform, program: Program, model=None, seed: int = 0, *, sends: str = "buffered",
        timeout: float = 600.0):
    """Execute ``program`` on ``platform`` in SimGrid, computing what the Fluid model computes.

    Parameters
    ----------
    platform : Platform
    program : Program
        Its ranks must be hosts of ``platform``; dependencies within a rank.
    model : Fluid, optional
        The model SimGrid reproduces: ``Fluid`` without one-port limits and
        with fixed ties (None means ``Fluid()``).
    seed : int
        Unused (SimGrid is deterministic); accepted for the common executor signature.
    sends : {"buffered", "rendezvous"}
        Fluid's buffered sends (the default) or SimGrid's rendezvous (see the
        module docstring); keyword-only.
    timeout : float
        Wall-clock limit of the SimGrid run, in seconds; keyword-only.

    Returns
    -------
    SimResult
        ``backend="simgrid"``; the trace holds SimGrid's times. Send and
        receive ports are never held (Fluid without one-port); link busy
        times are bytes carried / bandwidth.

    Raises
    ------
    SimgridUnavailable
        If SimGrid's Python bindings cannot be imported (one line saying why).
    SimulationError
        If a rank is a router or not on the platform, a dependency crosses
        ranks, a message is malformed, or the program deadlocks (the message
        names the stuck ops).
    ValueError
        If ``model`` is not ``Fluid(one_port=False, ties="fixed")``, or an option is bad.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e8, latency=0)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h2", [], size=1e6)
    >>> _ = b.send("h1", "h2", [], size=1e6)
    >>> run(p, b.build()).makespan   # two flows share h2's link: 2 MB at 100 MB/s  # doctest: +SKIP
    0.02
    """
    model = _check_model(model)
    times = _run_arrays(platform, program, sends=sends, timeout=timeout)
    return _result(platform, program, model, times)


def _check_model(model):
    from .models import Fluid

    if model is None:
        return Fluid()
    if not isinstance(model, Fluid):
        raise ValueError(f"the SimGrid backend computes the Fluid model only, not {type(model).__name__}")
    if model.one_port:
        raise ValueError("the SimGrid backend cannot compute Fluid(one_port=True): SimGrid has no one-port limit")
    if model.ties != "fixed":
        raise ValueError(f"the SimGrid backend breaks ties in a fixed order, not ties={model.ties!r}; "
                         "use Fluid(ties='fixed')")
    return model


def _result(platform, program: Program, model, times: SimgridTimes):
    from ..schedules.trace import SimResult, Trace
    from .routes import link_busy

    trace = Trace.of_program(program, times.start, times.end)
    n = len(program.ranks)
    computes = program.op_kind == COMPUTE
    cpu_busy = np.zeros(n)
    np.add.at(cpu_busy, program.op_rank[computes], trace.duration[computes])
    busy = link_busy(platform, _dense(program)) if program.n_messages else np.zeros(len(platform.links))
    makespan = trace.makespan
    return SimResult(model=repr(model), makespan=makespan, throughput=None, trace=trace, send_busy=np.zeros(n),
                     recv_busy=np.zeros(n), cpu_busy=cpu_busy, link_ids=tuple(platform.links), link_busy=busy,
                     link_utilisation=busy / makespan if makespan > 0 else np.zeros(len(busy)),
                     events=times.events, backend="simgrid")


def _dense(program: Program) -> Program:
    """The program with message ids ``0 .. M-1``, as :func:`~collsched.simulation.routes.link_busy` wants them."""
    comm = program.op_kind != COMPUTE
    ids, inverse = np.unique(program.op_msg[comm], return_inverse=True)
    if ids.shape[0] == 0 or (ids[0] == 0 and ids[-1] == ids.shape[0] - 1):
        return program
    msg = program.op_msg.copy()
    msg[comm] = inverse.reshape(-1)
    return dataclasses.replace(program, op_msg=msg)


def _run_arrays(platform, program: Program, *, sends: str = "buffered", timeout: float = 600.0) -> SimgridTimes:
    """Run ``program`` in a child SimGrid process; the times of its ops as plain arrays (see :func:`run`)."""
    if sends not in SENDS:
        raise ValueError(f"unknown sends {sends!r}; expected one of {', '.join(SENDS)}")
    if isinstance(timeout, bool) or not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    job = _job(platform, program, sends)
    out = _spawn(job, timeout)
    ready, cpu_start, end = (np.array(out[k], dtype=float) for k in ("ready", "start", "end"))
    kind, msg = program.op_kind, np.array(job["msg"], dtype=np.int64)
    flow = np.full(program.n_ops, np.nan)
    comm = kind != COMPUTE
    flow[comm] = np.array(out["flow_at"], dtype=float)[msg[comm]]
    start = np.where(kind == SEND, ready, np.where(kind == RECV, np.fmax(ready, flow), cpu_start))
    return SimgridTimes(ready, start, end, flow, float(end.max()) if program.n_ops else 0.0, int(out["events"]),
                        sends)


def _job(platform, program: Program, sends: str) -> dict:
    """Everything the child needs, as plain Python data."""
    hosts = set(platform.hosts)
    for rank in program.ranks:
        if rank in hosts:
            continue
        if rank in platform.nodes:
            raise _error(f"rank {rank!r} is a router of platform {platform.name!r}; SimGrid routers cannot run "
                         "actors", fix="give the program only host ranks, or use backend='collsched'")
        raise _error(f"rank {rank!r} is not a node of platform {platform.name!r}",
                     fix="build the program on this platform's hosts")
    kind, rank, peer = program.op_kind.tolist(), program.op_rank.tolist(), program.op_peer.tolist()
    msg, size = program.op_msg.tolist(), program.op_size.tolist()
    deps = [program.dep_idx[program.dep_ptr[i]:program.dep_ptr[i + 1]].tolist() for i in range(program.n_ops)]
    for i, ds in enumerate(deps):
        for d in ds:
            if not (0 <= d < program.n_ops and rank[d] == rank[i] and d != i):
                raise _error(f"op {i} depends on op {d}, which is not another op of rank {program.ranks[rank[i]]!r}",
                             fix="dependencies stay within a rank")
    send_of, recv_of = _messages(kind, rank, peer, msg, size)
    messages = sorted(send_of)
    index = {m: j for j, m in enumerate(messages)}
    names = program.ranks
    src = [rank[send_of[m]] for m in messages]
    dst = [rank[recv_of[m]] for m in messages]
    latency = [platform.latency(names[a], names[b]) for a, b in zip(src, dst)]
    factor = 2.0 ** _scale_exponent([size[send_of[m]] for m in messages])
    nbytes = [int(size[send_of[m]] * factor) for m in messages]
    if any(b >= _MAX_BYTES for b in nbytes):
        raise _error("a message is too large for SimGrid once its size is made a whole number of bytes",
                     fix="round message sizes to fewer significant bits")
    return {"xml": _simgrid_xml(platform, factor), "config": CONFIG, "ranks": list(names),
            "kind": kind, "rank": rank, "msg": [index.get(m, -1) for m in msg], "deps": deps,
            "flops": [size[i] if kind[i] == COMPUTE else 0.0 for i in range(program.n_ops)],
            "latency": latency, "bytes": nbytes, "recv_rank": dst, "self_msg": [a == b for a, b in zip(src, dst)],
            "sends": sends}


def _messages(kind, rank, peer, msg, size) -> tuple[dict[int, int], dict[int, int]]:
    """The send op and the receive op of every message id; raises if one is missing or they disagree."""
    sends: dict[int, int] = {}
    recvs: dict[int, int] = {}
    for i, k in enumerate(kind):
        if not (math.isfinite(size[i]) and size[i] >= 0):
            raise _error(f"op {i} has size {size[i]!r}", fix="give a finite size or cost >= 0")
        if k == COMPUTE:
            continue
        table = sends if k == SEND else recvs
        if msg[i] in table:
            what = "sends" if k == SEND else "receives"
            raise _error(f"message {msg[i]} has two {what} (ops {table[msg[i]]} and {i})",
                         fix="give every message exactly one send and one recv")
        table[msg[i]] = i
    for m in sorted(set(sends) | set(recvs)):
        if m not in sends or m not in recvs:
            op = recvs.get(m, sends.get(m))
            raise _error(f"message {m} has no {'send' if m not in sends else 'receive'} (op {op} would wait forever)",
                         fix="give every message exactly one send and one recv")
        s, r = sends[m], recvs[m]
        if peer[s] != rank[r] or peer[r] != rank[s]:
            raise _error(f"message {m}: send op {s} and receive op {r} do not name each other's ranks")
    return sends, recvs


def _scale_exponent(sizes: list[float]) -> int:
    """Smallest ``k >= 0`` such that every ``size * 2**k`` is a whole number.

    Examples
    --------
    >>> _scale_exponent([3.0, 0.5, 1.25])
    2
    """
    k = 0
    for s in sizes:
        k = max(k, float(s).as_integer_ratio()[1].bit_length() - 1)
    return k


def _simgrid_xml(platform, factor: float) -> str:
    """The platform as SimGrid XML with every latency 0 and bandwidths times ``factor`` (a power of two)."""
    xml_decl, doctype, body = platform_to_simgrid(platform).split("\n", 2)
    root = ET.fromstring(body)
    for link in root.iter("link"):
        link.set("latency", "0s")
        link.set("bandwidth", f"{float(link.get('bandwidth').removesuffix('Bps')) * factor!r}Bps")
    for parent in list(root.iter()):
        for prop in [c for c in parent if c.tag == "prop"]:
            parent.remove(prop)
    return f"{xml_decl}\n{doctype}\n" + ET.tostring(root, encoding="unicode") + "\n"


def _child_env() -> dict[str, str]:
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([package_parent] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _spawn(job: dict, timeout: float) -> dict:
    """Run :func:`_worker_main` in a child process on ``job``; its answer, or the error it reports."""
    with tempfile.TemporaryDirectory(prefix="collsched-simgrid-") as folder:
        job_path, out_path = os.path.join(folder, "job.pickle"), os.path.join(folder, "out.pickle")
        with open(job_path, "wb") as f:
            pickle.dump(job, f, protocol=pickle.HIGHEST_PROTOCOL)
        code = "from collsched.simulation.simgrid import _worker_main; _worker_main()"
        try:
            proc = subprocess.run([sys.executable, "-c", code, job_path, out_path], env=_child_env(), cwd=folder,
                                  capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the SimGrid run took more than {timeout:g} s (raise timeout)") from None
        out = None
        if os.path.exists(out_path):
            with open(out_path, "rb") as f:
                out = pickle.load(f)
    if out is None:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else f"exit code {proc.returncode}"
        raise RuntimeError(f"the SimGrid child process failed: {last}")
    if out.get("unavailable"):
        raise SimgridUnavailable(out["unavailable"])
    if out.get("error"):
        raise RuntimeError(f"the SimGrid run failed: {out['error']}")
    if out.get("stuck"):
        raise _error(f"deadlock in SimGrid: {out['stuck']}",
                     fix="every receive needs its send, and no op may wait for itself")
    return out


@lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """Why SimGrid cannot run here (one line), or None if a child process can import its bindings.

    Examples
    --------
    >>> reason = unavailable_reason()
    >>> reason is None or isinstance(reason, str)
    True
    """
    reason = _simgrid_loader.unavailable_reason()
    if reason is not None:
        return reason
    code = ("import sys\nfrom collsched.simulation._simgrid_loader import load, SimgridUnavailable\n"
            "try:\n    sg = load()\nexcept SimgridUnavailable as e:\n    print(e)\n    sys.exit(3)\n"
            "print('SimGrid', sg.simgrid_version)")
    try:
        proc = subprocess.run([sys.executable, "-c", code], env=_child_env(), capture_output=True, text=True,
                              timeout=120, check=False)
    except subprocess.TimeoutExpired:
        return "importing SimGrid's Python bindings took more than 120 s"
    if proc.returncode == 0:
        return None
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return lines[-1] if lines else f"importing SimGrid's Python bindings failed (exit code {proc.returncode})"


# --- the child side: SimGrid actors --------------------------------------------------------

def _one_cpu() -> None:  # pragma: no cover - runs in the child process
    """Keep this process on one CPU (Linux; elsewhere nothing): SimGrid runs Python actors as threads handing off
    to one another, 3 to 5 times faster when the hand-offs stay on one CPU (``benchmarks/bench_simulate_fluid.py``,
    *One CPU*). Concurrent children spread over the CPUs allowed, by process id."""
    if hasattr(os, "sched_setaffinity"):
        cpus = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpus[os.getpid() % len(cpus)]})


def _worker_main() -> None:  # pragma: no cover - runs in the child process
    job_path, out_path = sys.argv[1], sys.argv[2]
    with open(job_path, "rb") as f:
        job = pickle.load(f)
    _one_cpu()
    try:
        out = _simulate(job)
    except SimgridUnavailable as exc:
        out = {"unavailable": str(exc)}
    except Exception:  # noqa: BLE001 - reported to the parent
        out = {"error": traceback.format_exc().strip().splitlines()[-1]}
    with open(out_path, "wb") as f:
        pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.flush()
    os._exit(0)  # SimGrid's exit handlers would complain about the actors a deadlock leaves behind


class _Run:
    """The shared state of one SimGrid run (actors run one at a time: no locks needed)."""

    def __init__(self, sg, engine, job: dict):
        self.sg, self.engine, self.job = sg, engine, job
        n, nm = len(job["kind"]), len(job["latency"])
        self.ready = [math.nan] * n      # when each op's dependencies were done
        self.start = [math.nan] * n      # computations: when the CPU took them
        self.end = [math.nan] * n
        self.flow_at = [math.nan] * nm   # when each message's bytes began to flow
        self.events = 0
        self.errors: list[str] = []
        self.ops_of: list[list[int]] = [[] for _ in job["ranks"]]
        for i, r in enumerate(job["rank"]):
            self.ops_of[r].append(i)
        self.dependents: list[list[int]] = [[] for _ in range(n)]
        for i, ds in enumerate(job["deps"]):
            for d in ds:
                self.dependents[d].append(i)


def _simulate(job: dict) -> dict:  # pragma: no cover - runs in the child process
    sg = _simgrid_loader.load()
    engine = sg.Engine(["collsched"] + [f"--cfg={c}" for c in job["config"]] + ["--log=root.thres:warning"])
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(job["xml"])
    try:
        engine.load_platform(f.name)
    finally:
        os.unlink(f.name)
    state = _Run(sg, engine, job)
    actors = {}
    for r, name in enumerate(job["ranks"]):
        if state.ops_of[r]:
            actors[r] = sg.Actor.create(f"rank-{name}", sg.Host.by_name(name), _rank_actor, state, r)
    if job["sends"] == "buffered":
        # a permanent receiver makes SimGrid start a transfer as soon as it is put (SimGrid's eager mode)
        for m, r in enumerate(job["recv_rank"]):
            if not job["self_msg"][m]:
                sg.Mailbox.by_name(f"d{m}").set_receiver(actors[r])
    engine.run()
    if state.errors:
        return {"error": state.errors[0]}
    out = {"ready": state.ready, "start": state.start, "end": state.end, "flow_at": state.flow_at,
           "events": state.events}
    stuck = [i for i, e in enumerate(state.end) if math.isnan(e)]
    if stuck:
        out["stuck"] = _describe_stuck(job, stuck, state.ready)
    return out


def _describe_stuck(job: dict, stuck: list[int], ready: list[float]) -> str:
    kinds = ("send", "recv", "compute")
    shown = [f"op {i} ({kinds[job['kind'][i]]} on {job['ranks'][job['rank'][i]]}, "
             f"{'started' if not math.isnan(ready[i]) else 'never ready'})" for i in stuck[:5]]
    more = f" and {len(stuck) - 5} more" if len(stuck) > 5 else ""
    return f"{len(stuck)} ops never completed: " + ", ".join(shown) + more


def _rank_actor(state: _Run, r: int) -> None:  # pragma: no cover - runs in the child process
    try:
        _Rank(state, r).run()
    except state.sg.ActorKilled:  # SimGrid ends a deadlocked run by killing its actors
        pass
    except Exception:  # noqa: BLE001 - an exception escaping an actor aborts SimGrid
        state.errors.append(f"rank {state.job['ranks'][r]!r}: " + traceback.format_exc().strip().splitlines()[-1])


def _cpu_actor(state: _Run, r: int, op: int) -> None:  # pragma: no cover - runs in the child process
    try:
        state.sg.this_actor.execute(state.job["flops"][op])
        state.end[op] = state.engine.clock
        state.sg.Mailbox.by_name(f"c{r}").put(op, 0)
    except state.sg.ActorKilled:
        pass
    except Exception:  # noqa: BLE001
        state.errors.append(f"compute op {op}: " + traceback.format_exc().strip().splitlines()[-1])


class _Rank:  # pragma: no cover - runs in the child process
    """The event loop of one rank's actor."""

    def __init__(self, state: _Run, r: int):
        self.s, self.r = state, r
        self.sg, self.job = state.sg, state.job
        self.buffered = state.job["sends"] == "buffered"
        self.waiting = {i: len(state.job["deps"][i]) for i in state.ops_of[r]}
        self.left = len(state.ops_of[r])
        self.comms: list = []          # pending SimGrid comms ...
        self.tags: list[tuple] = []    # ... what each one is, (event, op) ...
        self.keep: list = []           # ... and what must outlive it
        self.timers: list[tuple] = []  # (time, op): a send's latency is over, its bytes may go
        self.cpu_queue: list[tuple] = []
        self.cpu_busy = False
        self.to_self: dict[int, int] = {}  # message to this rank itself -> its posted receive, or -1 if delivered

    def now(self) -> float:
        return self.s.engine.clock

    def run(self) -> None:
        t = self.now()
        for i in [i for i in self.s.ops_of[self.r] if self.waiting[i] == 0]:  # (ready() may free others)
            self.ready(i, t)
        self.start_cpu()
        while self.left:
            self.step()
            self.start_cpu()

    # --- ops ---
    def ready(self, i: int, t: float) -> None:
        kind, m = self.job["kind"][i], self.job["msg"][i]
        self.s.ready[i] = t
        if kind == COMPUTE:
            heapq.heappush(self.cpu_queue, (t, i))
        elif self.job["self_msg"][m]:
            self.to_self_ready(i, kind, m, t)
        elif self.buffered:
            if kind == SEND:
                self.after_latency(i, t)
            else:
                self.post_get(i)
        else:  # rendezvous: a zero-byte handshake tells both ends when the other is there
            mailbox = self.sg.Mailbox.by_name(f"h{m}")
            if kind == SEND:
                self.post(mailbox.put_async(i, 0), ("handshake_sent", i))
            else:
                self.post_get_async(mailbox, ("handshake_received", i))

    def to_self_ready(self, i: int, kind: int, m: int, t: float) -> None:
        """A message from this rank to itself costs nothing (as in every collsched model)."""
        if kind == SEND:
            self.s.flow_at[m] = t
            self.done(i, t)
            posted = self.to_self.pop(m, None)
            if posted is None:
                self.to_self[m] = -1
            else:
                self.done(posted, t)
        elif self.to_self.pop(m, None) == -1:
            self.done(i, t)
        else:
            self.to_self[m] = i

    def after_latency(self, i: int, t: float) -> None:
        latency = self.job["latency"][self.job["msg"][i]]
        if latency > 0:
            heapq.heappush(self.timers, (t + latency, i))
        else:
            self.post_put(i, t)

    def post_put(self, i: int, t: float) -> None:
        m = self.job["msg"][i]
        self.s.flow_at[m] = t
        self.post(self.sg.Mailbox.by_name(f"d{m}").put_async(i, self.job["bytes"][m]), ("sent", i))

    def post_get(self, i: int) -> None:
        self.post_get_async(self.sg.Mailbox.by_name(f"d{self.job['msg'][i]}"), ("received", i))

    def done(self, i: int, t: float) -> None:
        if self.job["kind"][i] != COMPUTE:
            self.s.end[i] = t
        self.left -= 1
        for j in self.s.dependents[i]:
            self.waiting[j] -= 1
            if self.waiting[j] == 0:
                self.ready(j, t)

    def start_cpu(self) -> None:
        if self.cpu_busy or not self.cpu_queue:
            return
        self.settle()  # every event of this instant first: a compute made ready now may have priority
        _, i = heapq.heappop(self.cpu_queue)
        self.cpu_busy = True
        self.s.start[i] = self.now()
        self.post_get_async(self.sg.Mailbox.by_name(f"c{self.r}"), ("computed", i))
        host = self.sg.Host.by_name(self.job["ranks"][self.r])
        self.sg.Actor.create(f"cpu-{i}", host, _cpu_actor, self.s, self.r, i)

    # --- waiting ---
    def post(self, comm, tag: tuple, keep=None) -> None:
        self.comms.append(comm)
        self.tags.append(tag)
        self.keep.append(keep)

    def post_get_async(self, mailbox, tag: tuple) -> None:
        # the second half of get_async's answer holds the buffer SimGrid writes the payload into:
        # it must live as long as the comm, or SimGrid writes into freed memory
        comm, buffer = mailbox.get_async()
        self.post(comm, tag, buffer)

    def step(self) -> None:
        if self.timers:
            due = self.timers[0][0]
            if due > self.now():
                if self.comms:
                    k = self.sg.Comm.wait_any_for(self.comms, due - self.now())
                else:
                    self.sg.this_actor.sleep_until(due)
                    k = -1
                if k >= 0:
                    self.finish(k)
                    return
            # the delay is over (the clock may stop one ulp short of `due`)
            t = self.now()
            self.post_put(heapq.heappop(self.timers)[1], t)
            while self.timers and self.timers[0][0] <= t:
                self.post_put(heapq.heappop(self.timers)[1], t)
            return
        if not self.comms:
            raise RuntimeError(f"rank waits for nothing with {self.left} ops left")
        self.finish(self.sg.Comm.wait_any(self.comms))

    def settle(self) -> None:
        """Handle every comm that has already finished at this instant."""
        k = 0
        while k < len(self.comms):
            if self.comms[k].test():
                self.finish(k)
                k = 0
            else:
                k += 1

    def finish(self, k: int) -> None:
        self.comms.pop(k)
        self.keep.pop(k)
        event, i = self.tags.pop(k)
        self.s.events += 1
        t = self.now()
        if event == "handshake_sent":
            self.after_latency(i, t)
        elif event == "handshake_received":
            self.post_get(i)
        elif event == "computed":
            self.cpu_busy = False
            self.done(i, t)
        else:  # "sent", "received"
            self.done(i, t)
