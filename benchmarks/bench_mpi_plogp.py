"""pLogP calibrated on the emulated two-switch network against the measured binomial broadcast (docs/runtime.md).

The platform of ``tests/runtime/test_runtime_emulation.py``: 4 hosts placed
round-robin on two switches (50 MB/s links, a 5 MB/s trunk). In one
emulation (Linux, root), the binomial broadcast of 2 MB from ``h0`` is run
``--repeat`` times over MPI (best kept), and two pairs (``h0``-``h2`` on one
switch, ``h0``-``h1`` across) are calibrated twice: with the sizes of that
test (1 kB, 200 kB, 1 MB, 2 MB; ``repeat=2, burst=2, max_time=0.15``) and
with the calibration defaults (:data:`collsched.runtime.calibrate.SIZES`
and the others, the same as ``cs.mpi.calibrate``'s). It prints the
broadcast's makespan predicted by pLogP from each calibration
(``Calibration.plogp_model``), by the Fluid model of the platform, and as
measured, with the load average.

Run: ``.venv/bin/python benchmarks/bench_mpi_plogp.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main(argv=None) -> int:
    """Measure and print.

    Examples
    --------
    >>> callable(main)
    True
    """
    import collsched as cs
    from collsched.runtime import run_many
    from collsched.runtime.calibrate import calibrate
    from collsched.runtime.emulation import Emulation
    from collsched.runtime.platforms import round_robin_switches

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    p = round_robin_switches(4, bandwidth=50e6, trunk_bandwidth=5e6)
    c = cs.Series(cs.Broadcast(source="h0", targets=p.hosts, size=2e6), count=1)
    binomial = cs.plan(p, c, algorithm="binomial")
    pairs = [("h0", "h2"), ("h0", "h1")]
    load0, began = os.getloadavg(), time.time()
    with Emulation(p) as net:
        (run,) = run_many(p, [(binomial, c)], emulation=net, repeat=args.repeat, timeout=300)
        cals = {"the test's sizes": calibrate(p, pairs=pairs, sizes=(1000, 200_000, 1_000_000, 2_000_000), repeat=2,
                                              burst=2, max_time=0.15, emulation=net, timeout=300),
                "the defaults": calibrate(p, pairs=pairs, emulation=net, timeout=300)}
    load1 = os.getloadavg()
    fluid = cs.simulate(p, binomial, c, model=cs.models.Fluid()).makespan
    measured = min(run.makespans)
    print(f"binomial broadcast of 2 MB, 4 hosts round-robin on two switches (50 MB/s, trunk 5 MB/s); "
          f"{time.time() - began:.0f} s; load average {load0[0]:.2f} at start, {load1[0]:.2f} at end")
    print(f"measured (best of {args.repeat}): {measured:.3f} s  (all: {', '.join(f'{m:.3f}' for m in run.makespans)})")
    print(f"Fluid predicts {fluid:.3f} s")
    for name, cal in cals.items():
        predicted = cs.simulate(p, binomial, c, model=cal.plogp_model(p)).makespan
        print(f"pLogP from two pairs, {name} {list(cal.sizes)}: predicts {predicted:.3f} s "
              f"(measured / predicted {measured / predicted:.2f}); bandwidth h0-h2 {cal.bandwidth[0, 2] / 1e6:.1f} "
              f"MB/s, h0-h1 {cal.bandwidth[0, 1] / 1e6:.1f} MB/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
