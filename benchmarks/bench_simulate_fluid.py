"""Fluid model at scale, against SimGrid's engine alone: all-to-all on a star and on a two-level fat tree.

For each N (default 64, 128, 256, 1024), each topology (a star, and a
two-level fat tree of ``N / 16`` leaves of 16 hosts) and two ways of issuing
the 1 MB messages — everything in flight at once, or each sender one message
after the other (caterpillar order: host i sends to i+1, i+2, ...) — prints
the wall time of the whole ``cs.simulate(platform, program, Fluid())`` call
and the peak memory of its process; up to N = 128 (and when SimGrid's
bindings are installed) also SimGrid's own simulation time on the same case.

What the SimGrid figure includes, and what it does not
-------------------------------------------------------
Only ``Engine.run()``, timed around that call inside the SimGrid child
process: not the process start, not loading the bindings, not parsing the
platform, not creating the actors (Debian's SimGrid has no C++ headers here,
so the drivers are Python actors; their Python code that runs inside
``Engine.run()`` is counted). The platform is the file that
``backend="simgrid"`` gives SimGrid (:func:`collsched.simulation.simgrid._simgrid_xml`:
link latencies 0, so that CM02 shares equally; the route latency is waited
by the sender before its transfer, as ``backend="simgrid"`` does), with the
same configuration (:data:`collsched.simulation.simgrid.CONFIG`). Two
drivers, the faster kept, each on one CPU (below):

``sendto``
    no mailboxes nor receivers: ``Comm.sendto_async(src, dst, bytes)``. In
    flight: one actor per sender waits each distinct latency of its routes
    and posts the transfers of that latency, then waits for all. Sequential:
    one actor per sender waits the latency, then ``sendto_async(...).wait()``,
    message after message.
``mailbox``
    one mailbox per destination host, with a permanent receiver (SimGrid's
    eager mode: a transfer starts when it is put) that posts every
    ``get_async`` of its host at once and waits for all; the senders post
    ``put_async`` (in flight: all after their latencies, then wait;
    sequential: one at a time).

**One CPU.** Debian's SimGrid runs Python actors only in its ``thread``
context factory (``raw``, ``ucontext`` and ``boost`` abort with pybind11's
``loader_life_support: internal error``), where every switch between
actors is a hand-off between threads. On two CPUs those hand-offs cross
CPUs and take from 1.3 to 2.5 s of wall time (about 1 s of it system time)
on the star in sequence at N = 128; pinned to one CPU, 0.39 s, every run
(``taskset -c 1 ... --child simgrid star 128 sequential sendto``, load about
1). So the SimGrid child pins itself to one CPU before it creates its
engine (``os.sched_setaffinity``): its fastest configuration, which an
earlier version of this benchmark did not use (its ratios were 3 to 5
times too flattering).

The transfers are the program's sends (source, destination, bytes), so both
sides compute the same thing; the relative difference of the makespans
(SimGrid's clock at the end against ``SimResult.makespan``) is printed.
Each figure is the best of ``--repeat`` runs (default 3), each in its own
process for SimGrid (its engine cannot be created twice in one process)
and in one process for collsched, on one platform object (whose route
cache is warm after the first call, as SimGrid's routes are computed when
it loads the platform, which is not timed either). The load average is printed before and
after: the machine is shared, and ratios taken in the same run are what
compares.

Targets (issue #17): ours at least 100 times faster than SimGrid at N = 128
on all four cases with the same makespan (1e-9); N = 1024 under 1 s.

With ``--phases``, prints instead the best time of each phase of
``cs.simulate`` (checking the program, routing its pairs, compiling the
stage table, the Rust core, the results), of the whole call, and of the
whole call less its Rust core (``front``, the core timed inside the same
call); ``check`` to ``results`` add up to about ``whole``; ``first`` is the
first run's phases added up (a fresh process, which builds the platform's
routes). Each case prints two rows: wall time, and the CPU time of the
process (``time.process_time``), which a shared machine disturbs less. The phases are
those of the package imported: with a package before the core's compile
of the Fluid table (``collsched.simulation.fluid_core``), the Python
compile's; so one script measures main and a branch (``PYTHONPATH``).

With ``--digest``, each row ends with a digest of the last call's outputs
(operation start and end times, the ranks' send, receive and CPU busy
times, the links' busy times, the makespan and the number of events; every
float to the last bit), which two versions of the code must agree on.

Run: ``PYTHONPATH=python .venv/bin/python benchmarks/bench_simulate_fluid.py [--phases] [--digest] [--repeat K] [N ...]``
(``--help`` says the same).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SIMGRID_UP_TO = 128
DRIVERS = ("sendto", "mailbox")
TOPOLOGIES = ("star", "fat_tree")
MODES = ("in_flight", "sequential")


def platform(topology: str, n: int):
    import collsched as cs

    if topology == "star":
        return cs.topologies.star(n, bandwidth=1.25e8, latency=1e-5)
    return cs.topologies.fat_tree(n // 16, 16, bandwidth=1.25e8, latency=1e-5)


def case(topology: str, n: int, mode: str):
    from programs import caterpillar

    p = platform(topology, n)
    return p, caterpillar(p.hosts, 1e6, sequential=(mode == "sequential"))


def ours(topology: str, n: int, mode: str, repeat: int) -> dict:
    """Best wall time of the whole ``cs.simulate`` call, over ``repeat`` calls in this process."""
    import collsched as cs

    p, program = case(topology, n, mode)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = cs.simulate(p, program, model=cs.models.Fluid())
        best = min(best, time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MB (Linux reports kB)
    return dict(wall=best, makespan=result.makespan, events=result.events, peak_mb=peak, digest=digest(result))


def digest(result) -> str:
    """A short digest of a ``SimResult``'s outputs, every float to the last bit (see ``--digest``)."""
    import hashlib

    import numpy as np

    h = hashlib.sha256()
    for a in (result.trace.start, result.trace.end, result.send_busy, result.recv_busy, result.cpu_busy,
              result.link_busy, [result.makespan, float(result.events)]):
        h.update(np.ascontiguousarray(a, dtype="<f8").tobytes())
    return h.hexdigest()[:16]


def phases(topology: str, n: int, mode: str, repeat: int) -> dict:
    """Best time of each phase of ``cs.simulate`` (the steps of its body, called one by one), of the whole call,
    and of the whole call less its Rust core (``front``: the core timed inside that call)."""
    import collsched as cs
    from collsched import _core
    from collsched import simulation as sim
    from collsched.schedules.trace import Trace
    from collsched.simulation.compile import Context

    p, program = case(topology, n, mode)
    model = cs.models.Fluid()
    best: dict[str, float] = {}
    in_core = getattr(sim, "fluid_stages", None)   # None: a package before the core's compile (main's, say)

    def timed(name, f):
        start, cpu = time.perf_counter(), time.process_time()
        out = f()
        best[name] = min(best.get(name, float("inf")), time.perf_counter() - start)
        best[name + " cpu"] = min(best.get(name + " cpu", float("inf")), time.process_time() - cpu)
        if first_run:
            first[0] += time.perf_counter() - start
            first[1] += time.process_time() - cpu
        return out

    def run(dense, table):
        return _core.simulate(len(dense.ranks), *sim._columns(dense), *table.arrays(), table.n_resources,
                              table.capacities, tie="fixed")

    core_time = [0.0, 0.0]
    engine = _core.simulate

    def timed_engine(*args, **kw):
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return engine(*args, **kw)
        finally:
            core_time[:] = time.perf_counter() - start, time.process_time() - cpu

    first = [0.0, 0.0]   # the phases of the first run (which builds the platform's routes), added up
    for run_index in range(repeat):
        first_run = run_index == 0
        if in_core is None:
            dense = timed("check", lambda: sim._checked(program, model))
            ctx = timed("routes", lambda: (lambda c: (c.routes, c)[1])(Context(dense, p)))
            table = timed("compile", lambda: model._compile(ctx))
            out = timed("core", lambda: run(dense, table))
            timed("results", lambda: (ctx.link_busy(), Trace.of_program(program, out[0], out[1])))
            del ctx
        else:
            from collsched.simulation.fluid_core import host_pairs

            timed("check", lambda: sim._check_ranks(p, program, model))
            timed("routes", lambda: host_pairs(p))
            table, _ = timed("compile", lambda: in_core(p, program, model))
            out = timed("core", lambda: run(program, table))
            for times in out[:2]:   # as cs.simulate does: the trace keeps the core's fresh times
                times.setflags(write=False)
            timed("results", lambda: Trace.of_program(program, out[0], out[1]))
        del table, out
        _core.simulate = timed_engine
        try:
            start, cpu = time.perf_counter(), time.process_time()
            cs.simulate(p, program, model=model)
            whole, whole_cpu = time.perf_counter() - start, time.process_time() - cpu
        finally:
            _core.simulate = engine
        for name, wall, cpu in (("whole", whole, whole_cpu), ("front", whole - core_time[0], whole_cpu - core_time[1])):
            best[name] = min(best.get(name, float("inf")), wall)
            best[name + " cpu"] = min(best.get(name + " cpu", float("inf")), cpu)
    best["first"], best["first cpu"] = first
    return best


def transfers(topology: str, n: int, mode: str) -> tuple[list[str], list[list[tuple[float, int, int]]]]:
    """Hosts, and per sender its transfers ``(route latency, destination, bytes)`` in program order."""
    from collsched.schedules.program import SEND

    p, program = case(topology, n, mode)
    hosts = list(program.ranks)
    lat = p.latency_matrix(hosts)
    per: list[list[tuple[float, int, int]]] = [[] for _ in hosts]
    sends = [i for i in range(program.n_ops) if program.op_kind[i] == SEND]
    for i in sends:
        a, b = int(program.op_rank[i]), int(program.op_peer[i])
        per[a].append((float(lat[a, b]), b, int(program.op_size[i])))
    return hosts, per


def simgrid(topology: str, n: int, mode: str, driver: str) -> dict:
    """SimGrid's ``Engine.run()`` alone on the case, with ``driver`` (runs in a child process)."""
    import tempfile

    from collsched.simulation import _simgrid_loader
    from collsched.simulation.simgrid import CONFIG, _simgrid_xml

    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one CPU: SimGrid's thread contexts hand off fastest
    sg = _simgrid_loader.load()
    p, _ = case(topology, n, mode)
    hosts, per = transfers(topology, n, mode)
    engine = sg.Engine(["bench"] + [f"--cfg={c}" for c in CONFIG] + ["--log=root.thres:warning"])
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(_simgrid_xml(p, 1.0))
    try:
        engine.load_platform(f.name)
    finally:
        os.unlink(f.name)
    host = [sg.Host.by_name(h) for h in hosts]
    sequential = mode == "sequential"
    done = [0]

    def groups(items):  # consecutive runs of one latency, in increasing latency
        out: dict[float, list] = {}
        for t, b, size in items:
            out.setdefault(t, []).append((b, size))
        return sorted(out.items())

    def sender_sendto(a: int) -> None:
        if sequential:
            for t, b, size in per[a]:
                sg.this_actor.sleep_for(t)
                sg.Comm.sendto_async(host[a], host[b], size).wait()
                done[0] += 1
            return
        comms = []
        for t, items in groups(per[a]):
            sg.this_actor.sleep_until(t)
            comms += [sg.Comm.sendto_async(host[a], host[b], size) for b, size in items]
        sg.Comm.wait_all(comms)
        done[0] += len(comms)

    boxes = [sg.Mailbox.by_name(f"to{b}") for b in range(len(hosts))]
    incoming = [0] * len(hosts)
    for items in per:
        for _, b, _ in items:
            incoming[b] += 1

    def receiver(b: int) -> None:
        gets = [boxes[b].get_async() for _ in range(incoming[b])]
        sg.Comm.wait_all([g for g, _ in gets])
        done[0] += len(gets)

    def sender_mailbox(a: int) -> None:
        if sequential:
            for t, b, size in per[a]:
                sg.this_actor.sleep_for(t)
                boxes[b].put_async(a, size).wait()
            return
        comms = []
        for t, items in groups(per[a]):
            sg.this_actor.sleep_until(t)
            comms += [boxes[b].put_async(a, size) for b, size in items]
        sg.Comm.wait_all(comms)

    if driver == "mailbox":
        for b in range(len(hosts)):
            if incoming[b]:
                actor = sg.Actor.create(f"recv{b}", host[b], receiver, b)
                boxes[b].set_receiver(actor)
    for a in range(len(hosts)):
        if per[a]:
            sg.Actor.create(f"send{a}", host[a], sender_sendto if driver == "sendto" else sender_mailbox, a)
    start = time.perf_counter()
    engine.run()
    wall = time.perf_counter() - start
    expected = sum(len(x) for x in per)
    if done[0] != expected:
        raise RuntimeError(f"{driver}: {done[0]} of {expected} transfers completed")
    return dict(wall=wall, makespan=engine.clock)


def in_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True,
                         cwd=Path(__file__).parent)
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return {"error": (out.stderr.strip().splitlines() or [f"exit code {out.returncode}"])[-1]}
    return json.loads(lines[-1])


def simgrid_best(topology: str, n: int, mode: str, driver: str, repeat: int) -> dict:
    runs = [in_child("simgrid", topology, str(n), mode, driver) for _ in range(repeat)]
    errors = [r for r in runs if "error" in r]
    return errors[0] if errors else min(runs, key=lambda r: r["wall"])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(sizes: list[int], repeat: int, with_digest: bool = False) -> None:
    from collsched.simulation._simgrid_loader import unavailable_reason

    reason = unavailable_reason()
    print(f"load average before: {load()}; best of {repeat} runs each; SimGrid: Engine.run() only"
          + (f" (unavailable: {reason})" if reason else ""))
    print(f"{'topology':<9} {'N':>5} {'mode':<11} {'ours s':>8} {'peak MB':>8} {'sendto s':>9} {'mailbox s':>10} "
          f"{'ratio':>7} {'makespan rel diff':>18}" + (f"  {'digest':<16}" if with_digest else ""))
    for topology in TOPOLOGIES:
        for n in sizes:
            for mode in MODES:
                us = in_child("ours", topology, str(n), mode, str(repeat))
                if "error" in us:
                    print(f"{topology:<9} {n:>5} {mode:<11} error: {us['error']}", flush=True)
                    continue
                row = f"{topology:<9} {n:>5} {mode:<11} {us['wall']:>8.4f} {us['peak_mb']:>8.0f}"
                if n <= SIMGRID_UP_TO and reason is None:
                    sg = {d: simgrid_best(topology, n, mode, d, repeat) for d in DRIVERS}
                    bad = [f"{d}: {r['error']}" for d, r in sg.items() if "error" in r]
                    if bad:
                        row += f"  SimGrid failed ({bad[0][:80]})"
                    else:
                        fastest = min(sg.values(), key=lambda r: r["wall"])
                        diff = max(abs(r["makespan"] - us["makespan"]) for r in sg.values()) / us["makespan"]
                        row += (f" {sg['sendto']['wall']:>9.3f} {sg['mailbox']['wall']:>10.3f} "
                                f"{fastest['wall'] / us['wall']:>7.1f} {diff:>18.1e}")
                print(row + (f"  {us['digest']}" if with_digest else ""), flush=True)
    print(f"load average after: {load()}")


def main_phases(sizes: list[int], repeat: int) -> None:
    from collsched import simulation as sim

    print(f"load average before: {load()}; best of {repeat} runs of each phase of cs.simulate (seconds)")
    if getattr(sim, "fluid_stages", None) is None:
        print("phases: check = _checked, routes = Context and its routes, compile = Fluid._compile, "
              "core = _core.simulate, results = link_busy and the Trace")
    else:
        print("phases: check = _check_ranks, routes = the platform's host pairs (kept on it after the first call), "
              "compile = fluid_core.fluid_stages (the core's compile, which also sums the links' bytes), "
              "core = _core.simulate, results = the Trace")
    print("front = whole less the core, timed inside the same call (its best over the runs); first = the phases of "
          "the first run added up (a fresh process: it builds the platform's routes); each case on two rows, "
          "wall time and CPU time of the process")
    cols = ("check", "routes", "compile", "core", "results", "whole", "front", "first")
    print(f"{'topology':<9} {'N':>5} {'mode':<11} {'':<4} " + " ".join(f"{c:>8}" for c in cols))
    for topology in TOPOLOGIES:
        for n in sizes:
            for mode in MODES:
                r = in_child("phases", topology, str(n), mode, str(repeat))
                if "error" in r:
                    print(f"{topology:<9} {n:>5} {mode:<11} error: {r['error']}", flush=True)
                    continue
                for clock, suffix in (("wall", ""), ("cpu", " cpu")):
                    cells = " ".join(f"{r[c + suffix]:>8.4f}" for c in cols)
                    print(f"{topology:<9} {n:>5} {mode:<11} {clock:<4} {cells}", flush=True)
    print(f"load average after: {load()}")


def arguments(argv: list[str]):
    """The options (``--help`` prints the module docstring; a bad one is the usage and one line, exit 2)."""
    from _cli import parser

    ap = parser(__doc__)
    ap.add_argument("sizes", nargs="*", type=int, metavar="N",
                    help="numbers of hosts (default: 64 128 256 1024; a multiple of 16 for the fat tree)")
    ap.add_argument("--repeat", type=int, default=3, metavar="K", help="best of K runs (default 3)")
    ap.add_argument("--phases", action="store_true",
                    help="print the best time of each phase of cs.simulate instead (no SimGrid)")
    ap.add_argument("--digest", action="store_true",
                    help="end each row with a digest of the outputs (times, busy times, makespan, events)")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error(f"--repeat {args.repeat}: give a number of runs >= 1")
    if args.digest and args.phases:
        ap.error("--digest goes with the default rows, not --phases: drop one of them")
    bad = [n for n in args.sizes if n < 16 or n % 16]
    if bad:
        ap.error(f"N = {bad[0]}: give a multiple of 16, at least 16 (the fat tree has N / 16 leaves of 16 hosts)")
    return args


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        what, topology, n, mode, extra = sys.argv[2:7]
        if what == "ours":
            print(json.dumps(ours(topology, int(n), mode, int(extra))))
        elif what == "phases":
            print(json.dumps(phases(topology, int(n), mode, int(extra))))
        else:
            print(json.dumps(simgrid(topology, int(n), mode, extra)))
    else:
        from _cli import run

        options = arguments(sys.argv[1:])
        sizes = options.sizes or [64, 128, 256, 1024]
        if options.phases:
            run(main_phases, sizes, options.repeat)
        else:
            run(main, sizes, options.repeat, options.digest)
