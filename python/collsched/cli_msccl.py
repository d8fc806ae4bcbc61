"""``collsched msccl {check,simulate,export,plan}``: MSCCL XML algorithm files, checked, simulated and written.

Examples
--------
>>> msccl_app.info.help
'Check, simulate and write MSCCL XML algorithm files.'
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from .cli_common import check_output, console

__all__ = ["msccl_app"]

msccl_app = typer.Typer(no_args_is_help=True, help="Check, simulate and write MSCCL XML algorithm files.")


def _platform(text: Optional[str]):
    """A platform file, or a GPU fabric by name (:func:`collsched.interop.msccl.fabrics.fabric`: ``mi250:2``)."""
    if text is None:
        return None
    from .interop.msccl.fabrics import NAMES, fabric

    if text.partition(":")[0] in NAMES and not Path(text).exists():
        return fabric(text)
    from .platform.io import load_platform

    return load_platform(Path(text))


_PLATFORM_HELP = "A platform file, or a GPU fabric: dgx2, ndv2, dgx_a100, mi250 (':N' for N boxes, e.g. mi250:2)."
_RANKS_HELP = ("The platform's host of GPU 0, 1, ... of the file, comma-separated (default: the platform's first "
               "ngpus hosts).")


def _ranks(text: Optional[str]):
    return None if text is None else [h.strip() for h in text.split(",") if h.strip()]


@msccl_app.command("check")
def check_command(file: Path = typer.Argument(..., help="MSCCL XML algorithm file."),
                  platform: Optional[str] = typer.Option(None,
                                                         help=_PLATFORM_HELP + " Default: a star of ngpus hosts."),
                  ranks: Optional[str] = typer.Option(None, help=_RANKS_HELP)):
    """Check that the file implements its collective, cannot deadlock or race, and will be used by the runtime."""
    from .interop import msccl

    result = msccl.check(file, _platform(platform), ranks=_ranks(ranks))
    for w in result.warnings:
        console.print(str(w), soft_wrap=True, markup=False)
    console.print(f"{file}: {result.summary()}", soft_wrap=True, markup=False)


@msccl_app.command("simulate")
def simulate_command(file: Path = typer.Argument(..., help="MSCCL XML algorithm file."),
                     platform: str = typer.Argument(..., help=_PLATFORM_HELP),
                     size: str = typer.Option("1MiB", metavar="BYTES", help="The collective's size: an allgather's "
                                              "block per GPU, a reducescatter's result block, an allreduce's, "
                                              "broadcast's or reduce's vector."),
                     ranks: Optional[str] = typer.Option(None, help=_RANKS_HELP),
                     gantt: Optional[Path] = typer.Option(None, help="Also draw a Gantt chart (.png, .svg or .pdf)."),
                     compare: bool = typer.Option(False, "--compare", help="Also rank it among collsched's algorithms "
                                                  "for the same collective and fabric.")):
    """Simulate the file on a platform under Fluid: makespan, algorithm bandwidth, gap to the bound, busiest link."""
    from . import bounds
    from .interop import msccl
    from .simulation import models, simulate
    from .units import format_quantity, parse as parse_quantity

    check_output(gantt, (".png", ".svg", ".pdf"), option="--gantt")
    p = _platform(platform)
    nbytes = parse_quantity(size, "size")
    result = msccl.check(file, p, size=nbytes, ranks=_ranks(ranks))
    imp = result.imported
    model = models.Fluid()
    r = simulate(p, imp.program, imp.collective, model=model)
    bound = bounds.collective_bound(p, imp.collective, model=model)
    call = msccl.call_bytes(imp.collective)
    gap = "" if bound is None else f", bound {bound.value * 1e6:.3f} us ({bound.name}), gap {r.makespan / bound.value - 1:+.1%}"
    console.print(f"{file}: {imp.collective.kind} of {format_quantity(call, 'size')} on {len(imp.program.ranks)} "
                  f"gpus: makespan {r.makespan * 1e6:.3f} us, algorithm bandwidth "
                  f"{call / r.makespan / 1e9:.2f} GB/s{gap}", soft_wrap=True, markup=False)
    if len(r.link_ids):
        k = int(r.link_busy.argmax())
        ends = getattr(p.links.get(r.link_ids[k]), "ends", None) if hasattr(p.links, "get") else None
        shown = f"{r.link_ids[k]} ({ends[0]}-{ends[1]})" if ends else r.link_ids[k]
        console.print(f"busiest link {shown}: busy {r.link_busy[k] * 1e6:.3f} us "
                      f"({r.link_busy[k] / r.makespan:.0%} of the makespan)", soft_wrap=True, markup=False)
    if compare:
        from .compare import compare as rank

        table = rank(p, imp.collective, model=model, extra={f"msccl:{file.stem}": imp.program})
        console.print(table.table().text(), soft_wrap=True, markup=False)
    if gantt is not None:
        from .report.gantt import gantt as draw

        draw(r, gantt, platform=p)
        console.print(f"wrote {gantt}", soft_wrap=True, markup=False)


@msccl_app.command("export")
def export_command(platform: str = typer.Argument(..., help=_PLATFORM_HELP),
                   collective: Path = typer.Argument(..., help="Collective file (.json): allgather, reducescatter, "
                                                               "allreduce, alltoall, broadcast or reduce; GPU g of the "
                                                               "file is its g-th host."),
                   schedule: Path = typer.Argument(..., help="Schedule or program file (.json) planned for them."),
                   output: Path = typer.Option(..., "-o", "--output", help="Where to write the MSCCL file (.xml)."),
                   proto: str = typer.Option("Simple", help="Simple, LL or LL128."),
                   min_bytes: Optional[int] = typer.Option(None, help="minBytes (default: the planned size S)."),
                   max_bytes: Optional[int] = typer.Option(None, help="maxBytes (default: S + 1)."),
                   registration: Optional[Path] = typer.Option(None, help="Also write the <msccl_algos> file listing "
                                                               "it (.xml), for microsoft/msccl's MSCCL_CONFIG; the MSCCL "
                                                               "executor and RCCL load a folder instead (MSCCL_ALGO_DIR)."),
                   strict: bool = typer.Option(False, "--strict", help="Refuse a forest schedule whose export "
                                               "exceeds the runtime's limits, instead of exporting a forest that "
                                               "fits (fewer chunks of 1, 2, 4, ..., 256, tree shares on a grid of "
                                               "1/32 .. 1/1), and a step schedule whose parts of messages are no "
                                               "chunks (open_shop_preemptive's), instead of rounding its parts to "
                                               "1/64 .. 1/1 of a message.")):
    """Write a schedule as an MSCCL XML file the runtime loads, checked by reading it back.

    Where the runtime cannot run the schedule as it is, another is exported (a forest: the fastest of its tree shares
    on a chunk grid and of the Program of msccl.ready's file; else that Program, without messages without data), said
    in one line; the time printed as the schedule exported's is the file's, read back, beside the schedule given's.
    """
    from .collective_io import load_collective
    from .interop import msccl
    from .schedules.io import load_program_or_schedule

    check_output(output, (".xml",), option="-o")
    check_output(registration, (".xml",), option="--registration")
    p = _platform(platform)
    c = load_collective(collective)
    s = load_program_or_schedule(schedule)
    options = dict(name=output.stem, proto=proto, min_bytes=min_bytes, max_bytes=max_bytes)
    planned = msccl.exported(p, c, s, strict=strict, made=msccl.ready(p, c, s, strict=strict, **options), **options)
    if planned.exported is not s:
        console.print(f"changed to fit the runtime: exported {planned.summary()}", soft_wrap=True, markup=False)
    _write_and_report(planned, output, p, c, registration, "exported")


def _write_and_report(planned, output: Path, p, c, registration: Optional[Path], what: str) -> None:
    """Write ``planned``'s file (and the registration), read it back, checked, and print the times: the schedule
    ``what`` (exported or planned), which the file takes, the file read back, and the schedule given where it is
    another (``export``'s and ``plan``'s last lines)."""
    from .interop import msccl
    from .simulation import models, simulate

    r = planned.ready
    r.write(output)
    result = msccl.check(output, p, size=c.size, ranks=list(c.hosts))
    console.print(f"wrote {output}: {result.summary()}", soft_wrap=True, markup=False)
    read_back = simulate(p, result.imported.program, result.imported.collective, model=models.Fluid()).makespan
    console.print(report(planned, read_back, what), soft_wrap=True, markup=False)
    if registration is not None:
        msccl.write_registration(registration, [output])
        console.print(f"wrote {registration}", soft_wrap=True, markup=False)


def report(planned, read_back: float, what: str = "exported") -> str:
    """The last line of ``export`` and ``plan``: the time of the schedule ``what`` (the one the file is written
    from, ``planned.ready.planned_makespan``), its gap, the file's read back (``read_back``) against it, and the
    schedule given where the exported one is another.

    >>> from types import SimpleNamespace as R
    >>> r = R(makespan=2e-6, planned_makespan=2e-6, bound=None)
    >>> report(R(ready=r, exported=1, schedule=1, given_makespan=2e-6), 2e-6)
    "Fluid: the schedule exported takes 2.000 us; the file read back 2.000 us (= the schedule exported's)"
    >>> report(R(ready=r, exported=1, schedule=0, given_makespan=3e-6), 2e-6)
    "Fluid: the schedule exported takes 2.000 us; the file read back 2.000 us (= the schedule exported's); the schedule given, as planned, 3.000 us, another schedule (above)"
    """
    r = planned.ready
    gap = "" if r.bound is None else \
        f", gap {r.planned_makespan / float(r.bound.value) - 1:+.1%} to the bound ({r.bound.name})"
    equal = f"= the schedule {what}'s" if read_back == r.planned_makespan else \
        f"not the schedule {what}'s: {read_back / r.planned_makespan - 1:+.1e}"
    line = (f"Fluid: the schedule {what} takes {r.planned_makespan * 1e6:.3f} us{gap}; the file read back "
            f"{read_back * 1e6:.3f} us ({equal})")
    if planned.exported is not planned.schedule or planned.given_makespan != r.planned_makespan:
        given = "the schedule given, as planned," if what == "exported" else "collsched.plan's schedule"
        line += f"; {given} {planned.given_makespan * 1e6:.3f} us, another schedule (above)"
    return line


@msccl_app.command("plan")
def plan_command(platform: str = typer.Argument(..., help=_PLATFORM_HELP),
                 collective: Path = typer.Argument(..., help="Collective file (.json), as for export."),
                 output: Path = typer.Option(..., "-o", "--output", help="Where to write the MSCCL file (.xml)."),
                 algorithm: str = typer.Option("forest", help="forest (tree shares planned on the runtime's chunk "
                                               "grid), or any other algorithm of the collective (lowered without "
                                               "signals)."),
                 chunks: Optional[int] = typer.Option(None, help="The forest's chunks (default: the planner's "
                                                      "choice, or fewer where it does not export as it is)."),
                 proto: str = typer.Option("Simple", help="Simple, LL or LL128."),
                 min_bytes: Optional[int] = typer.Option(None, help="minBytes (default: the planned size S)."),
                 max_bytes: Optional[int] = typer.Option(None, help="maxBytes (default: S + 1)."),
                 registration: Optional[Path] = typer.Option(None, help="Also write the <msccl_algos> file listing "
                                                             "it (.xml), as for export.")):
    """Plan a schedule in MSCCL's execution model and write it: the file takes the planned time exactly.

    The forest: the fastest under Fluid of its tree shares on each of the runtime's chunk grids (the best throughput
    on that grid) that exports as it is, and of the Program of the file msccl.ready makes of it; another algorithm is
    lowered without its messages without data. The first line says what was planned, the last the planned time and
    the file's, read back.
    """
    from .collective_io import load_collective
    from .interop import msccl

    check_output(output, (".xml",), option="-o")
    check_output(registration, (".xml",), option="--registration")
    p = _platform(platform)
    c = load_collective(collective)
    planned = msccl.plan(p, c, algorithm=algorithm, chunks=chunks, name=output.stem, proto=proto,
                         min_bytes=min_bytes, max_bytes=max_bytes)
    console.print(planned.summary(), soft_wrap=True, markup=False)
    _write_and_report(planned, output, p, c, registration, "planned")
