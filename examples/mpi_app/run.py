"""Plan the parameter-averaging app's collectives and run it over mpirun on the emulated two-cluster network.

The platform: 8 hosts on two switches (50 MB/s links) joined by a 5 MB/s
trunk, ranks placed round-robin (:func:`collsched.runtime.platforms.round_robin_switches`),
emulated in network namespaces (Linux, root; else the ranks run locally
over shared memory, where no gain is expected). ``plan-suite`` plans the
allreduce of the parameters and the reduce of the loss; ``app.py`` then
runs its loop with ``collsched.mpi`` and with MPI's own collectives, and
this prints the seconds each spent in the collectives and the speed-up.

Run: ``.venv/bin/python examples/mpi_app/run.py [--size 1000000] [--steps 3] [--warmup 1] [--local]``.
"""

import argparse
import contextlib
import json
import os
import tempfile
from pathlib import Path

from collsched.mpi.emulated import run_script
from collsched.mpi.suite import parse_suite, plan_suite
from collsched.runtime.emulation import Emulation, emulation_unavailable
from collsched.runtime.platforms import round_robin_switches

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="bytes of the parameter vector")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed steps of each loop first")
    ap.add_argument("--local", action="store_true", help="no emulation: local ranks")
    ap.add_argument("--plans", help="plan folder to reuse or write (default: a temporary one)")
    args = ap.parse_args()
    p = round_robin_switches(4, bandwidth=5e7, trunk_bandwidth=5e6)
    folder = args.plans or tempfile.mkdtemp(prefix="collsched-app-plans-")
    if not os.path.exists(os.path.join(folder, "index.json")):
        suite = {"collectives": [{"kind": "allreduce", "sizes": [args.size, args.size]},
                                 {"kind": "reduce", "root": 0, "sizes": [8, 8]}]}
        for plan in plan_suite(p, parse_suite(suite, p), folder).plans:
            print(f"planned {plan.kind} {plan.low}..{plan.high} B: {'MPI' if plan.use_mpi else plan.algorithm} "
                  f"(simulated {plan.makespan * 1e3:.3g} ms, MPI's own {plan.mpi_makespan * 1e3:.3g} ms)")
    why = "--local" if args.local else emulation_unavailable()
    with (contextlib.nullcontext() if why else Emulation(p)) as net:
        out = run_script(p.hosts, str(HERE / "app.py"), ["--plans", folder, "--size", str(args.size),
                                                         "--steps", str(args.steps), "--warmup", str(args.warmup)],
                          emulation=net, timeout=900)
    r = json.loads(out.strip().splitlines()[-1])
    where = "local ranks" if why else "the emulated two-switch network"
    print(f"{r['ranks']} ranks on {where}, {r['steps']} steps (after {r['warmup']} untimed) of a "
          f"{r['bytes']}-byte parameter vector: "
          f"collsched.mpi {r['collsched_seconds']:.3f} s, MPI's own {r['mpi_seconds']:.3f} s in the collectives: "
          f"speed-up {r['speedup']:.2f}x; same parameters: {r['same_parameters']}")


if __name__ == "__main__":
    main()
