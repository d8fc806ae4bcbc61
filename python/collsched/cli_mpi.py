"""``collsched plan-suite``: plan the collectives an MPI application declares into a plan folder for collsched.mpi.

Examples
--------
>>> plan_suite_command.__doc__.split(".")[0]
'Plan the collectives of a suite, best schedule per size bucket, into a plan folder for collsched'
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from .cli_common import check_output, console

__all__ = ["plan_suite_command", "calibrate_hosts_command"]


def plan_suite_command(platform: Path = typer.Argument(..., help="Platform file (its hosts run the MPI ranks)."),
                       collectives: Path = typer.Option(..., "--collectives", help="Suite file (JSON): the "
                                                        "collectives the application calls, with ranks and sizes."),
                       output: Path = typer.Option(..., "-o", "--output", help="The plan folder to write."),
                       message_cost: float | None = typer.Option(None, help="Seconds a rank spends per message "
                                                                 "beyond the network (ranks schedules with many small "
                                                                 "messages below those with few; default: the measured "
                                                                 "collsched.mpi.suite.MESSAGE_COST).")):
    """Plan the collectives of a suite, best schedule per size bucket, into a plan folder for collsched.mpi.

    Each bucket keeps the fastest schedule (simulated) with its bound and gap,
    or says to use MPI's own collective where no schedule beats it by 10%.

    Examples
    --------
    ``collsched plan-suite platform.json --collectives suite.json -o plans/``
    (tests/runtime/test_plan_suite.py runs it).

    >>> callable(plan_suite_command)
    True
    """
    from .errors import FormatError
    from .fileformat import read_text
    from .mpi.suite import MESSAGE_COST, parse_suite, plan_suite
    from .platform.io import load_platform

    check_output(output, (), option="-o", folder=True)
    p = load_platform(platform)
    try:
        suite = json.loads(read_text(collectives))
    except ValueError as exc:
        raise FormatError(f"{collectives}: not JSON ({exc})", fix="write the suite as JSON") from None
    entries = parse_suite(suite, p, str(collectives))
    plans = plan_suite(p, entries, output, message_cost=MESSAGE_COST if message_cost is None else message_cost,
                       progress=lambda line: console.print(line, soft_wrap=True, markup=False))
    planned = sum(not plan.use_mpi for plan in plans.plans)
    console.print(f"wrote {output}: {len(plans.plans)} buckets, {planned} planned, {len(plans.plans) - planned} "
                  "left to MPI's own collective", soft_wrap=True, markup=False)


def calibrate_hosts_command(hosts: Path | None, output: Path, repeat: int | None) -> None:
    """``collsched calibrate --hosts HOSTFILE -o platform.json``: one rank per host line, measured and clustered.

    Examples
    --------
    >>> calibrate_hosts_command(None, Path("p.json"), 3)
    Traceback (most recent call last):
    ...
    collsched.errors.CollschedError: calibrate needs a platform file or --hosts HOSTFILE (give one)
    """
    from .errors import CollschedError
    from .mpi.calibrate import calibrate_hosts

    if hosts is None:
        raise CollschedError("calibrate needs a platform file or --hosts HOSTFILE", fix="give one")
    p = calibrate_hosts(hosts, output, **({} if repeat is None else {"repeat": repeat}))
    console.print(f"wrote {output}: {len(p.hosts)} hosts measured, clusters "
                  + " | ".join(" ".join(c) for c in p.clusters), soft_wrap=True, markup=False)
