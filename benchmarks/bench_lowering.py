"""Lowering, microseconds per operation, for every schedule family ``cs.plan`` can return (issue #17's last row).

For every registered algorithm (``collsched.algorithms.registry``) and every
collective kind it takes, the script plans a case large enough that the
program has at least ``--target-ops`` operations where the family allows it
(a series long enough, for algorithms that plan series; the platform's size
otherwise), then times ``schedule.lower(platform, collective)`` and prints
its operations, seconds and microseconds per operation, and its path:

* ``columns`` — no operation went through ``ProgramBuilder``;
* ``copied`` — a few periods went through the builder, the rest were
  copied column-wise (``schedules/repeat.py``); the share is printed;
* ``builder`` — every operation went through the builder.

With the reference (the default; ``--no-reference`` skips it), the same
schedule is lowered again with every column-wise path switched off, so
through the builder alone, its microseconds per operation printed beside
(the same run, so the ratio compares) and the two programs checked equal.
Programs of more than ``--reference-max-ops`` operations are not lowered
through the builder (``-``).

Platforms: hypercubes; all-to-all and all-to-many among ``--exchange-hosts``
hosts (all-to-many: each pair with probability 1/2, seeded), trees among
``--tree-hosts``, all-gather, reduce-scatter and all-reduce among
``--gpu-hosts``, steady state among ``--steady-hosts`` (and the planners of
:data:`SLOW_PLANNERS` among fewer). Messages of 1 MB.

With ``--digest``, each row ends with a digest of the program (every
column, the ranks, the name and the operand sets): run it with two versions
of the code (``PYTHONPATH``) and compare, to see that a change of the
lowering left every program as it was.

With ``--memory``, each row ends with what the lowering keeps on the
schedule after it: a steady-state schedule's pattern (its arrays and lists),
a hierarchical tree's message list and node arrays (bytes, ``kept``).

With ``--cold --plans N``, one-instance schedules are planned ``N`` times and
the time is the mean of their ``N`` first lowerings (a single first
lowering, on this loaded machine, is mostly the caches the planning left
cold).

Run: ``PYTHONPATH=python .venv/bin/python benchmarks/bench_lowering.py [--only TEXT] [--target-ops N]
[--no-reference] [--digest] [--single-count N] [--cold] [--plans N] [--repeat N] [--cpu] [--memory]`` (``--only`` keeps the rows whose ``algorithm kind`` contains TEXT;
``--cpu`` times by the process's CPU time instead of the wall clock). Figures depend on the
machine and its load (printed before and after); the ratios within one run are what compares.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import random
import sys
import time

import collsched as cs
from collsched.algorithms import registry
from collsched.collective_io import new_collective
from collsched.schedules import forest, orders, periodic, program, steps, trees

from _cli import parser, run

MB = 1e6
TREE_KINDS = ("broadcast", "scatter", "gather", "reduce")
GPU_KINDS = ("allgather", "reducescatter", "allreduce")
EXCHANGE_KINDS = ("alltoall", "alltomany")


def collective(kind: str, hosts: list[str]):
    """The collective of ``kind`` among ``hosts`` (the first is the root), 1 MB messages."""
    if kind == "alltomany":
        rng = random.Random(0)
        return cs.AllToMany({(a, b): MB for a in hosts for b in hosts if a != b and rng.random() < 0.5})
    return new_collective(kind, hosts, size=MB, task_cost=MB if kind == "reduce" else None)


#: Planners too slow for the default exchange size: liquid's exact search among 256 hosts had not finished
#: planning after 10 minutes (load average about 15), so it plans among fewer.
SLOW_PLANNERS = {"liquid": 64}


def hosts_for(algorithm: str, kind: str, args) -> int:
    if algorithm in SLOW_PLANNERS and kind in EXCHANGE_KINDS:
        return min(SLOW_PLANNERS[algorithm], args.exchange_hosts)
    if algorithm == "steady_state":
        return args.steady_hosts
    if kind in TREE_KINDS:
        return args.tree_hosts
    if kind in GPU_KINDS:
        return args.gpu_hosts
    return args.exchange_hosts


class Count:
    """How many operations went through ``ProgramBuilder`` (its ``_append``) while it is active."""

    def __init__(self):
        self.ops = 0

    @contextlib.contextmanager
    def active(self):
        original = program.ProgramBuilder._append

        def counted(builder, *args):
            self.ops += 1
            return original(builder, *args)

        program.ProgramBuilder._append = counted
        try:
            yield self
        finally:
            program.ProgramBuilder._append = original


@contextlib.contextmanager
def builder_only():
    """Every column-wise path off: ``lower`` goes through the builder (the reference)."""
    none = lambda *args, **kwargs: None  # noqa: E731
    patches = [(steps, "step_program"), (steps, "direct_step_program"), (orders, "order_program"), (orders, "direct_order_program"),
               (periodic, "periodic_program"), (trees, "repeated"), (forest, "_repeated_rounds"),
               (steps, "_repeated_instances"), (trees, "_hierarchical_columns")]
    saved = [(m, name, getattr(m, name)) for m, name in patches if hasattr(m, name)]  # older versions lack some
    for m, name, _ in saved:
        setattr(m, name, none)
    try:
        yield
    finally:
        for m, name, value in saved:
            setattr(m, name, value)


def digest(prog) -> str:
    """A short digest of everything :meth:`Program.__eq__` compares."""
    h = hashlib.sha1(repr((prog.ranks, prog.denominator, prog.name, prog.operand_sets)).encode())
    for name in ("op_rank", "op_kind", "op_peer", "op_msg", "op_size", "dep_ptr", "dep_idx", "piece_ptr", "pieces"):
        h.update(getattr(prog, name).tobytes())
    return h.hexdigest()[:12]


def timed_lower(s, p, c, repeat: int = 1, clock=time.perf_counter):
    """(program, the least seconds of ``repeat`` lowerings by ``clock``, operations through the builder in one)."""
    best = math.inf
    for _ in range(repeat):
        count = Count()
        with count.active():
            start = clock()
            prog = s.lower(p, c)
            best = min(best, clock() - start)
    return prog, best, count.ops


def kept_bytes(s) -> int:
    """Bytes a lowering left on the schedule: numpy arrays (their buffers) and lists (their slots and items), of a
    steady-state schedule's pattern or a hierarchical tree's message list and node arrays."""
    import numpy as np

    def size(x) -> int:
        if isinstance(x, np.ndarray):
            return x.nbytes
        if isinstance(x, (list, tuple)):
            return sys.getsizeof(x) + sum(size(y) for y in x if not isinstance(y, str))
        if hasattr(x, "__dict__"):
            return sum(size(y) for y in vars(x).values())
        return sys.getsizeof(x)

    kept = [v for k, v in vars(s).items() if k in ("_pattern", "_messages_kept", "_hierarchy_kept", "_hierarchical_messages")]
    return sum(size(v) for v in kept)


def cold_lowerings(algorithm: str, c, p, plans: int, clock):
    """(program, mean seconds) of the first lowerings of ``plans`` schedules planned for ``c``."""
    schedules = [cs.plan(p, c.base if c.count == 1 else c, algorithm=algorithm) for _ in range(plans)]
    start = clock()
    for s in schedules:
        prog = s.lower(p, c)
    return prog, (clock() - start) / plans


def plan_case(algorithm: str, kind: str, args):
    """(platform, collective, schedule) of at least ``args.target_ops`` operations where the family allows it.

    One instance if its program is long enough (or the algorithm plans no series); else a series, its count
    scaled from a series of two (a series may be planned differently: the forest's pipeline of one instance is
    cut in many chunks, a series' in one).
    """
    algo = registry.get(algorithm)
    n = hosts_for(algorithm, kind, args)
    p = cs.topologies.hypercube(int(math.log2(n)))
    base = collective(kind, list(p.hosts))
    if algo.single:
        s = cs.plan(p, base, algorithm=algorithm)
        if not algo.series:  # one instance's schedule, lowered for it or (--single-count) for a series of it
            c = base if args.single_count == 1 else cs.Series(base, count=args.single_count)
            if not args.cold:
                s.lower(p, c)  # warms the caches, as below
            return p, c, s
        if s.lower(p, base).n_ops >= args.target_ops or not algo.series:  # the lowering also warms the caches
            return p, base, s
    probe = cs.Series(base, count=2)
    ops = cs.plan(p, probe, algorithm=algorithm).lower(p, probe).n_ops
    c = cs.Series(base, count=max(2, math.ceil(args.target_ops * 2 / max(ops, 1))))
    return p, c, cs.plan(p, c, algorithm=algorithm)


def main(argv: list[str] | None = None) -> None:
    ap = parser(__doc__)
    ap.add_argument("--only", default="", help="keep the rows whose 'algorithm kind' contains this text")
    ap.add_argument("--target-ops", type=int, default=100_000, help="operations a case aims at (default 100000)")
    ap.add_argument("--no-reference", action="store_true", help="do not lower through the builder alone")
    ap.add_argument("--digest", action="store_true", help="end each row with a digest of the program")
    ap.add_argument("--reference-max-ops", type=int, default=400_000,
                    help="lower through the builder only programs of at most this many operations (default 400000)")
    ap.add_argument("--single-count", type=int, default=1,
                    help="lower the schedules of algorithms that plan no series for a series of this many instances "
                         "of the collective they were planned for (default 1)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="lower each schedule this many times both ways and keep the least time (default 1; with "
                         "--cold only the first lowering is cold)")
    ap.add_argument("--cold", action="store_true",
                    help="time the first lowering of the schedules of algorithms that plan no series (by default "
                         "a lowering before the timed one warms the caches)")
    ap.add_argument("--plans", type=int, default=1,
                    help="with --cold: plan each one-instance case this many times and time the mean of their first "
                         "lowerings (default 1)")
    ap.add_argument("--memory", action="store_true",
                    help="end each row with the bytes the lowering kept on the schedule (a steady-state pattern, a "
                         "hierarchical tree's message list)")
    ap.add_argument("--cpu", action="store_true",
                    help="time by the process's CPU time (time.process_time), not the wall clock: on a loaded machine "
                         "the wall time counts the waits for a core")
    ap.add_argument("--exchange-hosts", type=int, default=256, help="hosts of all-to-all cases (default 256)")
    ap.add_argument("--tree-hosts", type=int, default=64, help="hosts of tree cases (default 64)")
    ap.add_argument("--gpu-hosts", type=int, default=8, help="hosts of all-gather/reduce-scatter/all-reduce (default 8)")
    ap.add_argument("--steady-hosts", type=int, default=8, help="hosts of steady-state cases (default 8)")
    args = ap.parse_args(argv)
    if args.repeat < 1 or args.single_count < 1 or args.plans < 1:
        ap.error(f"--repeat {args.repeat} --single-count {args.single_count} --plans {args.plans}: give integers >= 1")
    for name in ("exchange_hosts", "tree_hosts", "gpu_hosts", "steady_hosts"):
        n = getattr(args, name)
        if n < 2 or n & (n - 1):
            ap.error(f"--{name.replace('_', '-')} is {n}: give a power of two >= 2 (the platforms are hypercubes)")
    print(f"load average before: {os.getloadavg()[0]:.2f}; times: "
          f"{'CPU time of the process' if args.cpu else 'wall clock'}", flush=True)
    head = (f"{'algorithm':22s} {'kind':13s} {'hosts':>5s} {'count':>5s} {'ops':>9s} {'path':8s} {'builder':>7s} "
            f"{'seconds':>8s} {'us/op':>7s} {'builder us/op':>13s} {'ratio':>6s} equal")
    print(head)
    print("-" * len(head), flush=True)
    for algorithm in registry.names():
        algo = registry.get(algorithm)
        for kind in algo.kinds:
            if args.only not in f"{algorithm} {kind}":
                continue
            try:
                p, c, s = plan_case(algorithm, kind, args)
            except Exception as exc:  # a planner that cannot take this case: say so, go on
                print(f"{algorithm:22s} {kind:13s} not planned: {type(exc).__name__}: {str(exc).splitlines()[0]}",
                      flush=True)
                continue
            clock = time.process_time if args.cpu else time.perf_counter
            prog, seconds, via_builder = timed_lower(s, p, c, args.repeat, clock)
            if args.cold and args.plans > 1 and registry.get(algorithm).single and not registry.get(algorithm).series:
                prog, seconds = cold_lowerings(algorithm, c, p, args.plans, clock)
            n = prog.n_ops
            path = "columns" if via_builder == 0 else "builder" if via_builder >= n else "copied"
            ref, ratio, equal = "-", "-", "-"
            if not args.no_reference and n <= args.reference_max_ops:
                with builder_only():
                    slow, slow_seconds, _ = timed_lower(s, p, c, args.repeat, clock)
                ref = f"{1e6 * slow_seconds / n:.2f}"
                ratio = f"{slow_seconds / seconds:.1f}"
                equal = "yes" if slow == prog else "NO"
            print(f"{algorithm:22s} {kind:13s} {len(p.hosts):5d} {c.count:5d} {n:9d} {path:8s} "
                  f"{100 * via_builder / max(n, 1):6.1f}% {seconds:8.3f} {1e6 * seconds / max(n, 1):7.2f} "
                  f"{ref:>13s} {ratio:>6s} {equal}" + (f"  {digest(prog)}" if args.digest else "")
                  + (f"  kept {kept_bytes(s):,} B" if args.memory else ""), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    run(main)
