"""The scale targets of issue #17: ``collsched compare`` at 256 and 1,024 hosts, the matching ordering, lowering.

Each ``compare`` runs as its own ``collsched`` process (its wall time and peak
resident memory measured by ``os.wait4``), on platforms and collectives the
script writes with ``collsched platform generate`` and ``collective new``
(all-to-all of 1 MB messages). The matching ordering is timed in the Rust core
and, with ``--scipy``, in the scipy reference (29 s at N = 1,024). Lowering is
timed per operation, through the ProgramBuilder, column-wise from Transfer
objects and from the caterpillar's columns, on the same schedule (the programs
are checked equal), and the program's validation per operation; then compare's
floors and lowerings of three step schedules with their steps as Transfer
objects and as columns.

Run: ``PYTHONPATH=python python benchmarks/bench_scale.py [--quick] [--scipy]``
(``--quick``: 256 hosts only). Figures depend on the machine and its load; the
ratios within one run are what compares.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

import collsched as cs
from collsched.schedules import columns

from _cli import parser, run


def collsched_process(argv: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, peak resident GB, exit code and standard output of ``collsched argv``."""
    env = dict(os.environ, COLUMNS="200")
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "collsched.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=env, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1e6, os.waitstatus_to_exitcode(status), out


def inputs(folder: Path, name: str, kind: str, params: list[str]) -> tuple[str, str]:
    """Write a platform and its all-to-all; return their paths."""
    p, c = folder / f"{name}.json", folder / f"{name}-a2a.json"
    subprocess.run([sys.executable, "-m", "collsched.cli", "platform", "generate", kind, "-o", str(p),
                    *sum((["-p", x] for x in params), [])], check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "collsched.cli", "collective", "new", "alltoall", "--platform", str(p),
                    "--size", "1MB", "-o", str(c)], check=True, capture_output=True)
    return str(p), str(c)


def compare_case(label: str, argv: list[str]) -> None:
    wall, rss, code, out = collsched_process(["compare", *argv])
    # a table row starts with "│" and names its algorithm; a wrapped cell continues on lines whose first cell is blank
    rows = [line for line in out.splitlines() if line.startswith("│") and line[1:].split("│", 1)[0].strip()]
    skipped = sum("skipped" in line for line in rows)
    print(f"{label:58s} {wall:8.1f} s {rss:6.2f} GB  exit {code}  rows {len(rows)}, skipped {skipped}", flush=True)


def matching_case(n: int, scipy: bool) -> None:
    from collsched.algorithms.orderings.matching import matching_rounds, matching_rounds_reference

    rng = np.random.default_rng(0)
    o = rng.choice([1.0, 5.0, 10.0], size=n)
    mask = ~np.eye(n, dtype=bool)
    cost = np.where(mask, o[:, None] + 1.0 + o[None, :], 0.0)  # seed 004's overhead platform
    start = time.perf_counter()
    ours = matching_rounds(cost, mask)
    rust = time.perf_counter() - start
    line = f"matching ordering N={n}: Rust core {rust:.2f} s ({len(ours)} rounds)"
    if scipy:
        start = time.perf_counter()
        ref = matching_rounds_reference(cost, mask)
        line += f", scipy reference {time.perf_counter() - start:.1f} s ({len(ref)} rounds)"
        weights = [[(len(r), sum(cost[i, j] for i, j in r)) for r in rounds] for rounds in (ours, ref)]
        line += f", rounds' sizes and weights equal: {weights[0] == weights[1]}"
    print(line + f", load average {os.getloadavg()[0]:.1f}", flush=True)


def lowering_case(n: int) -> None:
    p = cs.topologies.fat_tree(n // 16, 16)
    c = cs.AllToAll(senders=p.hosts, size=1e6)
    start = time.perf_counter()
    s = cs.plan(p, c, algorithm="caterpillar")  # steps as columns (DirectSteps)
    t_plan = time.perf_counter() - start
    objects = replace(s, steps=tuple(s.steps))  # the same steps as Transfer objects
    s.lower(p, c, sync="post_all")  # warm the collective's caches
    print(f"caterpillar N={n}: planned in {t_plan:.2f} s, {s.n_transfers} transfers as columns", flush=True)
    for sync in ("barrier", "post_all"):
        start = time.perf_counter()
        cols = s.lower(p, c, sync=sync)
        t_cols = time.perf_counter() - start
        start = time.perf_counter()
        fast = objects.lower(p, c, sync=sync)
        t_fast = time.perf_counter() - start
        direct, columns._direct = columns._direct, lambda *args, **kwargs: None
        try:
            start = time.perf_counter()
            slow = objects.lower(p, c, sync=sync)
            t_slow = time.perf_counter() - start
        finally:
            columns._direct = direct
        assert cols == fast == slow
        start = time.perf_counter()
        cs.validate(p, c, cols)
        t_valid = time.perf_counter() - start
        print(f"lowering caterpillar N={n} sync={sync}: {fast.n_ops} ops, ProgramBuilder "
              f"{1e6 * t_slow / fast.n_ops:.2f} us/op, column-wise from Transfers {1e6 * t_fast / fast.n_ops:.2f} us/op, "
              f"from columns {1e6 * t_cols / fast.n_ops:.2f} us/op; validating it {1e6 * t_valid / fast.n_ops:.2f} us/op",
              flush=True)


def columns_case(n: int) -> None:
    """compare's floors (ready, barrier) and lowerings (per-sender, ready) of a step schedule, its steps as
    Transfer objects against the same steps as columns (``compare._as_columns``), in the same process."""
    from collsched.bounds import sync_bound
    from collsched.compare import _as_columns

    p = cs.topologies.fat_tree(n // 16, 16)
    c = cs.AllToAll(senders=p.hosts, size=1e6)
    model = cs.models.Fluid()
    for algo in ("matching", "rs_n", "lp"):
        s = cs.plan(p, c, algorithm=algo)
        sync_bound(p, c, s, "ready", model=model)  # the graph view's paths, computed once per platform
        times = {}
        for label, schedule in (("Transfers", lambda: s), ("columns", lambda: _as_columns(s, p, c))) * 2:
            start = time.perf_counter()
            x = schedule()
            for sync in ("ready", "barrier"):
                sync_bound(p, c, x, sync, model=model)
            for sync in ("post_all", "ready"):
                x.lower(p, c, sync=sync)
            times.setdefault(label, []).append(time.perf_counter() - start)
        print(f"floors and lowerings, {algo} N={n}: steps as Transfers {min(times['Transfers']):.2f} s, as columns "
              f"{min(times['columns']):.2f} s (best of 2), load average {os.getloadavg()[0]:.1f}", flush=True)


def main(quick: bool, scipy: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ft256 = inputs(folder, "ft256", "fat_tree", ["k_leaves=16", "hosts_per_leaf=16"])
        compare_case("compare all-to-all, 256-host fat tree, every algorithm", list(ft256))
        if not quick:
            hc = inputs(folder, "hc1024", "hypercube", ["d=10"])
            compare_case("compare all-to-all, 1,024-host hypercube, -a caterpillar", [*hc, "-a", "caterpillar"])
            compare_case("compare all-to-all, 1,024-host hypercube, every algorithm", list(hc))
    matching_case(256, scipy)
    if not quick:
        matching_case(1024, scipy)
    lowering_case(256)
    columns_case(256)


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("--quick", action="store_true", help="256 hosts only")
    ap.add_argument("--scipy", action="store_true", help="also time the matching ordering's scipy reference")
    args = ap.parse_args()
    run(main, args.quick, args.scipy)
