"""The ``collsched`` command line.

Bad input (malformed files, unknown nodes, bad numbers, schedules that do
not implement their collective, output files that could not be written)
ends with one line on stderr saying what, where and how to fix it, and exit
code 2; ``--debug`` shows the traceback. Ctrl-C ends with one line saying
how far the command got and how to go on, and exit code 130. Long commands
show their progress on stderr when it is a terminal.

The shared pieces are in :mod:`collsched.cli_common`; the ``platform`` and
``collective`` groups in :mod:`collsched.cli_platform` and
:mod:`collsched.cli_collective`.
"""

from __future__ import annotations

import contextlib
import inspect
import re
import shlex
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.exceptions import TyperException
from rich.table import Table

from .cli_collective import collective_app
from .cli_common import Interrupted, Steps, check_output, console, parse_options
from .cli_msccl import msccl_app
from .cli_platform import platform_app
from .errors import CollschedError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Plan, certify, simulate and run collective communications on heterogeneous platforms.")
app.add_typer(platform_app, name="platform")
app.add_typer(collective_app, name="collective")
app.add_typer(msccl_app, name="msccl")
app.command("plan-suite")(__import__("collsched.cli_mpi", fromlist=["cli_mpi"]).plan_suite_command)

_state = {"debug": False, "argv": []}


def _show_version(value: bool) -> None:
    if value:
        from . import __version__

        console.print(f"collsched {__version__}")
        raise typer.Exit()


@app.callback()
def _main(debug: bool = typer.Option(False, "--debug", help="Show tracebacks instead of one-line errors, "
                                     "and the LP solver's output."),
          version: bool = typer.Option(False, "--version", callback=_show_version, is_eager=True,
                                       help="Print the version and exit.")):
    from . import _highs

    _state["debug"] = debug
    _highs.VERBOSE = debug


def _again(drop: tuple[str, ...] = ()) -> str:
    """The command line as the user typed it (without the options in ``drop``), to run it again."""
    return shlex.join(["collsched", *(a for a in _state["argv"] if a not in drop)])


# --- plan and validate ----------------------------------------------------------------
def _model(text: Optional[str]):
    """The model named on the command line (None: the default), bad spellings as one-line errors."""
    from .simulation.models import model_from_text

    if text is None:
        return None
    try:
        return model_from_text(text)
    except ValueError as exc:
        raise CollschedError(f"--model {text!r}: {exc}") from None


_MODEL_HELP = "Simulation model: fluid (default), circuit or oneport, with options, e.g. 'oneport:sync=false,cost=edges'."
_BUDGET_HELP = ("Seconds the comparison of every algorithm may take (default: none up to 64 hosts, 60 up to 256, "
                "300 beyond); an algorithm whose estimated time does not fit is skipped, and its row says why.")


_FIGURES = (".png", ".svg", ".pdf")


def _program(p, c, schedule: Path, platform: Path, collective: Path, *, rendezvous: bool = False):
    """The validated program of a schedule or program file, an error naming the file if it does not fit."""
    from .schedules.io import load_program_or_schedule
    from .schedules.validate import lower_any, validate

    s = load_program_or_schedule(schedule)
    with _planned_for(schedule, platform, collective):
        program = lower_any(p, c, s)
        validate(p, c, program, rendezvous=rendezvous)
    return program


@contextlib.contextmanager
def _planned_for(schedule: Path, platform: Path, collective: Path):
    """A schedule file that does not fit the platform and collective given: say which file, and how to fix it."""
    try:
        yield
    except CollschedError as exc:
        if exc.where is not None:
            raise
        unknown = re.fullmatch(r"('[^']*') is not a rank of this program", exc.what)
        if unknown:
            again = shlex.join(["collsched", "plan", str(platform), str(collective), "-o", str(schedule)])
            raise type(exc)(f"the schedule names node {unknown.group(1)}, which {str(platform)!r} does not have: "
                            "it was planned for another platform", where=str(schedule),
                            fix=f"plan it for this one: {again}") from None
        raise type(exc)(exc.what, where=str(schedule), fix=exc.fix) from None


@app.command("plan")
def plan_command(platform: Path = typer.Argument(..., help="Platform file."),
                 collective: Path = typer.Argument(..., help="Collective file (.json)."),
                 algorithm: Optional[str] = typer.Option(None, "-a", "--algorithm",
                                                         help="Registered algorithm name (default: the best, by simulation)."),
                 output: Path = typer.Option(..., "-o", "--output", help="Where to write the schedule (.json)."),
                 model: Optional[str] = typer.Option(None, help=_MODEL_HELP + " Only without --algorithm."),
                 param: List[str] = typer.Option([], "-p", "--param",
                                                 help="Algorithm option NAME=VALUE (VALUE read as JSON if it can be)."),
                 seed: int = typer.Option(0, help="Seed for randomised algorithms."),
                 budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", help=_BUDGET_HELP)):
    """Plan a schedule (the named algorithm's, or the best of all), validate it, and write it."""
    from .collective_io import load_collective
    from .planner import best_of, plan
    from .platform.io import load_platform
    from .schedules.io import save_schedule
    from .schedules.validate import validate

    check_output(output, (".json",), option="-o")
    p, c = load_platform(platform), load_collective(collective)
    if algorithm is not None and model is not None:
        raise CollschedError("--model chooses among algorithms: give it without --algorithm")
    if algorithm is not None and budget is not None:
        raise CollschedError("--budget limits the comparison of every algorithm: give it without --algorithm")
    options = {}
    if param:
        if algorithm is None:
            raise CollschedError("--param sets an algorithm's option: name the algorithm with -a")
        from .algorithms import registry

        fn = registry.get(algorithm).function
        accepted = [n for n, v in inspect.signature(fn).parameters.items() if v.kind == v.KEYWORD_ONLY and n != "seed"]
        options = parse_options(param, accepted, f"algorithm {algorithm!r}")
    if algorithm is None:  # the best of all, with the progress of each algorithm
        c.validate(p)
        schedule = best_of(compare_with_progress(p, c, then="nothing kept: run it again, or plan one with -a NAME",
                                                 model=_model(model), seed=seed, steady=False,
                                                 budget=_budget(budget)))
    else:
        try:
            schedule = plan(p, c, algorithm, seed=seed, **options)
        except (TypeError, ValueError) as exc:
            said = str(exc)
            raise CollschedError(said if said.startswith(f"algorithm {algorithm!r}") else
                                 f"algorithm {algorithm!r}: {said}") from None
    validate(p, c, schedule)
    save_schedule(schedule, output)
    console.print(f"wrote {output}: {schedule.algorithm} ({schedule.shape}), validated")


@app.command("lower")
def lower_command(platform: Path = typer.Argument(..., help="Platform file."),
                  collective: Path = typer.Argument(..., help="Collective file (.json)."),
                  schedule: Path = typer.Argument(..., help="Schedule file (.json)."),
                  output: Path = typer.Option(..., "-o", "--output",
                                              help="Program file: .json (collsched) or .goal (LogGOPSim GOAL)."),
                  sync: Optional[str] = typer.Option(None, help="Step schedules: barrier, ready or post_all.")):
    """Lower a schedule to the program every executor runs; write it as collsched JSON or GOAL."""
    from .collective_io import load_collective
    from .platform.io import load_platform
    from .schedules import StepSchedule
    from .schedules.io import load_schedule, save_goal, save_program
    from .schedules.validate import check_planned_for, validate

    check_output(output, (".json", ".goal"), option="-o")
    p, c = load_platform(platform), load_collective(collective)
    s = load_schedule(schedule)
    if sync is not None and not isinstance(s, StepSchedule):
        raise CollschedError(f"--sync applies to step schedules, not to a {s.shape} schedule")
    with _planned_for(schedule, platform, collective):
        check_planned_for(s, c)
        program = s.lower(p, c, sync=sync) if sync is not None else s.lower(p, c)
        validate(p, c, program)
    if output.suffix.lower() == ".goal":
        save_goal(program, output, speed={h: p.nodes[h].speed for h in p.hosts})
    else:
        save_program(program, output)
    console.print(f"wrote {output}: {program.n_ops} operations on {len(program.ranks)} ranks, validated")


@app.command("compare")
def compare_command(platform: Path = typer.Argument(..., help="Platform file."),
                    collective: Path = typer.Argument(..., help="Collective file (.json)."),
                    algorithm: Optional[List[str]] = typer.Option(None, "-a", "--algorithm",
                                                                  help="Compare only these (repeat the option)."),
                    model: Optional[str] = typer.Option(None, help=_MODEL_HELP),
                    seed: int = typer.Option(0, help="Seed for randomised algorithms."),
                    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", help=_BUDGET_HELP)):
    """Plan, validate and simulate every applicable algorithm; print each one's bound, result, gap and time."""
    comparison = _compare_files(platform, collective, algorithm, model, seed, budget=_budget(budget))
    if not any(cand.valid for cand in comparison.candidates):
        raise typer.Exit(1)


def _budget(budget: Optional[float]) -> Optional[float]:
    """The ``--budget`` value, checked."""
    if budget is not None and not budget > 0:
        raise CollschedError(f"--budget {budget:g} is not a number of seconds > 0")
    return budget


def _compare_files(platform: Path, collective: Path, algorithms, model: Optional[str], seed: int, *,
                   budget: Optional[float] = None):
    """Load the files, compare with a progress bar, print the table and its notes; return the comparison."""
    from .collective_io import load_collective
    from .platform.io import load_platform

    p, c = load_platform(platform), load_collective(collective)
    comparison = compare_with_progress(p, c, algorithms=algorithms or None, model=_model(model), seed=seed,
                                       budget=budget)
    console.print(comparison_table(comparison, title=f"{c.kind} on {p.name}"))
    for line in comparison_notes(comparison):
        console.print(f"  {line}")
    return comparison


def compare_with_progress(p, c, *, then: str = "nothing kept: run it again, or compare fewer with -a NAME",
                          show: bool | None = None, **kwargs):
    """:func:`collsched.compare.compare` with a progress bar; Ctrl-C becomes one :class:`Interrupted` line.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> compare_with_progress(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6), show=False).best.algorithm
    'binomial'
    """
    from .algorithms import registry
    from .compare import compare

    total = len(kwargs.get("algorithms") or registry.applicable(c))
    with Steps("algorithms", then, show=show) as steps:
        steps.update(0, total, "planning")

        def progress(done, n, name):  # after each algorithm (done=0 first)
            steps.update(done, n, f"{name} done" if done else "planning")

        def on_start(name, estimate, eta):  # before each algorithm that runs: its estimate and the ETA
            guess = "" if estimate is None else f", est. {estimate:.0f} s, about {eta:.0f} s left"
            steps.update(steps.done, steps.total, f"{name}{guess}")

        comparison = compare(p, c, progress=progress, on_start=on_start, **kwargs)
        steps.update(total, total)
        return comparison


def comparison_table(comparison, *, title: str) -> Table:
    """A rich table of a :class:`~collsched.compare.Comparison`, best first: :meth:`Comparison.table`'s cells.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> t = comparison_table(compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)), title="t")
    >>> [c.header for c in t.columns][:4]
    ['algorithm', 'makespan s', 'gap', 'status']
    """
    from rich.markup import escape

    t = comparison.table()
    table = Table(title=title)
    for j, (header, numeric) in enumerate(zip(t.header, t.numeric)):
        width = max([len(r[j]) for r in t.rows] + [len(w) for w in header.split()]) if numeric else None
        table.add_column(header, justify="right" if numeric else "left", no_wrap=header == "algorithm",
                         min_width=width, max_width=width)
    status = t.header.index("status")
    for i, (cand, row) in enumerate(zip(comparison.candidates, t.rows)):
        cells = [escape(x) for x in row]
        if i == 0 and cand.valid:
            cells[0] = f"[bold]{cells[0]}[/]"
        cells[status] = (f"[green]{cells[status]}[/]" if cand.valid else f"[yellow]{cells[status]}[/]"
                         if cand.skipped else f"[red]{escape(cand.error or '')}[/]")
        table.add_row(*cells)
    return table


def comparison_notes(comparison) -> list[str]:
    """The lines printed under a comparison table: :meth:`Comparison.notes` (model, bound, what is not a bound).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> comparison_notes(compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)))[0]
    "model: Fluid(one_port=False, ties='fixed')"
    """
    return comparison.notes()


@app.command("report")
def report_command(platform: Path = typer.Argument(..., help="Platform file."),
                   collective: Path = typer.Argument(..., help="Collective file (.json)."),
                   output: Path = typer.Option(Path("collsched-report.html"), "-o", "--output", help="HTML file to write."),
                   algorithm: Optional[List[str]] = typer.Option(None, "-a", "--algorithm",
                                                                 help="Compare only these (repeat the option)."),
                   model: Optional[str] = typer.Option(None, help=_MODEL_HELP),
                   seed: int = typer.Option(0, help="Seed for randomised algorithms.")):
    """Compare the algorithms for a collective and write one self-contained HTML report."""
    from .report.html import write_report

    check_output(output, (".html",), option="-o")
    comparison = _compare_files(platform, collective, algorithm, model, seed)
    p, c = comparison.platform, comparison.collective
    path = write_report(output, {f"{c.kind} on {p.name}": comparison}, title=f"collsched: {c.kind} on {p.name}")
    console.print(f"report: {path.resolve()}")


@app.command("simulate")
def simulate_command(platform: Path = typer.Argument(..., help="Platform file."),
                     collective: Path = typer.Argument(..., help="Collective file (.json)."),
                     schedule: Path = typer.Argument(..., help="Schedule or program file (.json)."),
                     model: Optional[str] = typer.Option(None, help=_MODEL_HELP),
                     gantt: Optional[Path] = typer.Option(None, help="Also draw a Gantt chart (.png or .svg)."),
                     seed: int = typer.Option(0, help="Seed of random tie-breaking.")):
    """Validate a schedule (or program) and simulate it; print its makespan, throughput and bound."""
    from .bounds import collective_bound
    from .collective_io import load_collective
    from .platform.io import load_platform
    from .compare import DEFAULT_MODEL
    from .simulation import simulate

    check_output(gantt, _FIGURES, option="--gantt")
    p, c = load_platform(platform), load_collective(collective)
    program = _program(p, c, schedule, platform, collective)
    m = _model(model) or DEFAULT_MODEL
    r = simulate(p, program, c, model=m, seed=seed)
    b = collective_bound(p, c, model=m)
    console.print(f"model {m!r}: makespan {r.makespan:.6g} s" +
                  (f", throughput {r.throughput:.6g} ops/s" if r.throughput is not None else "") +
                  f", {r.events} events")
    if b is not None:
        achieved = r.throughput if b.metric == "throughput" else r.makespan
        console.print(f"bound {float(b.value):.6g} ({b.name}): gap {100 * b.gap(achieved):.1f}%")
    if gantt is not None:
        from .report.gantt import gantt as draw

        console.print(f"wrote {draw(r, gantt, platform=p)}")


@app.command("validate")
def validate_command(platform: Path = typer.Argument(..., help="Platform file."),
                     collective: Path = typer.Argument(..., help="Collective file (.json)."),
                     schedule: Path = typer.Argument(..., help="Schedule or program file (.json)."),
                     rendezvous: bool = typer.Option(False, help="Also require deadlock freedom with synchronous sends.")):
    """Check that a schedule (or program) implements a collective on a platform."""
    from .collective_io import load_collective
    from .platform.io import load_platform

    p, c = load_platform(platform), load_collective(collective)
    program = _program(p, c, schedule, platform, collective, rendezvous=rendezvous)
    console.print(f"valid: {program.n_ops} operations, {program.n_messages} messages implement the {c.kind}")


# --- MPI runtime ----------------------------------------------------------------------------
@app.command("run")
def run_command(platform: Path = typer.Argument(..., help="Platform file."),
                collective: Path = typer.Argument(..., help="Collective file (.json)."),
                schedule: Path = typer.Argument(..., help="Schedule or program file (.json)."),
                repeat: int = typer.Option(3, help="Repetitions (the median is reported)."),
                timeout: float = typer.Option(120.0, help="Seconds the MPI job may take."),
                compute: str = typer.Option("model", help="'model': computations last cost/speed; 'real': only the products."),
                emulate: bool = typer.Option(False, help="Emulate the platform's network (Linux, root)."),
                baseline: bool = typer.Option(False, help="Also time MPI's own collective on the same ranks and data."),
                plot: Optional[Path] = typer.Option(None, help="Draw measured beside simulated (.png or .svg).")):
    """Validate a schedule (or program), run it over MPI with every byte checked, and compare with the simulator."""
    import contextlib

    from .collective_io import load_collective
    from .platform.io import load_platform
    from .runtime import MPICollective, comparison_plot, comparison_table, run_many
    from .runtime.emulation import Emulation
    from .simulation import models, simulate

    from .runtime.run import COMPUTE_MODES

    for bad, what, fix in ((compute not in COMPUTE_MODES, f"--compute {compute!r}", f"one of {', '.join(COMPUTE_MODES)}"),
                           (repeat < 1, f"--repeat {repeat}", ">= 1"), (not timeout > 0, f"--timeout {timeout:g}", "> 0")):
        if bad:
            raise CollschedError(f"{what} is not allowed", fix=f"give {fix}")
    check_output(plot, _FIGURES, option="--plot")
    p, c = load_platform(platform), load_collective(collective)
    program = _program(p, c, schedule, platform, collective)
    items = [(program, c)] + ([MPICollective(c)] if baseline else [])
    with (Emulation(p) if emulate else contextlib.nullcontext()) as net:
        results = run_many(p, items, repeat=repeat, timeout=timeout, compute=compute, emulation=net)
    ours = results[0]
    sim = simulate(p, program, c, model=models.Fluid())
    console.print(f"{ours.what or 'program'} over MPI ({ours.network}): makespan {ours.makespan:.6g} s"
                  + (f", throughput {ours.throughput:.6g} ops/s" if ours.throughput is not None else "")
                  + f", every byte verified ({repeat} repetitions)")
    columns = {"mpi": ours, "fluid (simulated)": sim}
    t = comparison_table(columns, title="measured and simulated (seconds)")
    table = Table(title=t.title)
    for col in t.columns:
        table.add_column(col)
    for row in t.rows:
        table.add_row(*(f"{x:.4g}" if isinstance(x, float) else str(x) for x in row))
    console.print(table)
    if baseline:
        mpi = results[1]
        console.print(f"{mpi.what}: makespan {mpi.makespan:.6g} s (ratio to the schedule: "
                      f"{mpi.makespan / ours.makespan:.3g})")
    if plot is not None:
        console.print(f"wrote {comparison_plot(columns, plot)}")


@app.command("calibrate")
def calibrate_command(platform: Optional[Path] = typer.Argument(None, help="Platform file (its hosts are the "
                                                                 "ranks)."),
                      output: Path = typer.Option(..., "-o", "--output", help="Where to write the measured platform (.json)."),
                      emulate: bool = typer.Option(False, help="Measure the emulated network of the platform (Linux, root)."),
                      repeat: Optional[int] = typer.Option(None, help="Round trips per size at least (default: "
                                                           "collsched.runtime.calibrate.REPEAT, as cs.calibrate)."),
                      hosts: Optional[Path] = typer.Option(None, help="An Open MPI hostfile: measure its hosts "
                                                           "instead of a platform's, and cluster them.")):
    """Measure latency and bandwidth between hosts by ping-pong over MPI; write them as a platform."""
    import contextlib

    from .platform.io import load_platform, save_platform
    from .runtime.calibrate import calibrate
    from .runtime.emulation import Emulation

    check_output(output, (".json",), option="-o")
    if hosts is not None or platform is None:  # the hosts of a hostfile, measured and clustered (collsched.mpi)
        from .cli_mpi import calibrate_hosts_command
        return calibrate_hosts_command(hosts, output, repeat)
    p = load_platform(platform)
    with (Emulation(p) if emulate else contextlib.nullcontext()) as net:
        cal = calibrate(p, emulation=net, **({} if repeat is None else {"repeat": repeat}))
    save_platform(cal.platform(name=f"{p.name}-measured"), output)
    console.print(f"wrote {output}: {len(cal.pairs)} pairs measured; latency {_span(cal.latency)} s, "
                  f"bandwidth {_span(cal.bandwidth)} B/s")


def _span(m) -> str:
    import numpy as np

    x = m[~np.eye(len(m), dtype=bool) & ~np.isnan(m)]
    return f"{x.min():.3g} .. {x.max():.3g}" if x.size else "-"


# --- studies --------------------------------------------------------------------------------
@app.command("study")
def study_command(name: Optional[str] = typer.Argument(None, help="Study name; omit to list the studies."),
                  samples: Optional[int] = typer.Option(None, help="Samples per cell (default: the paper's)."),
                  seed: int = typer.Option(0, help="Seed of every random draw."),
                  quick: bool = typer.Option(False, help="A small version (fewer cells), for a first look."),
                  out: Path = typer.Option(Path("studies-out"), help="Folder of the CSV results and plots."),
                  workers: Optional[int] = typer.Option(None, help="Local worker processes (default: the cores)."),
                  dask: Optional[str] = typer.Option(None, help="Run the cells on this Dask scheduler (tcp://HOST:PORT)."),
                  resume: bool = typer.Option(True, help="Reuse the cells an interrupted run finished.")):
    """Run one of the papers' experiments and print its tables beside the paper's figures.

    Every finished cell is kept under OUT/NAME/.cells: after Ctrl-C (or a crash)
    the same command goes on from where it stopped."""
    from .studies import get_study, run_study, study_names

    if name is None:
        table = Table(title="studies")
        for col in ("name", "title", "paper"):
            table.add_column(col)
        for n in study_names():
            s = get_study(n)
            table.add_row(n, s.title, s.paper)
        console.print(table)
        return
    if samples is not None and samples < 1:
        raise CollschedError(f"--samples {samples} must be >= 1")
    if workers is not None and workers < 1:
        raise CollschedError(f"--workers {workers} must be >= 1")
    get_study(name)  # an unknown name fails before any work
    check_output(out, (), option="--out", folder=True)
    kept = out / name / ".cells"
    with Steps("cells", f"kept in {kept}; resume with: {_again(drop=('--no-resume',))}") as steps:
        counts = {}

        def progress(label, done, total):
            counts[label] = (done, total)
            steps.update(sum(d for d, _ in counts.values()), sum(t for _, t in counts.values()), label)

        report = run_study(name, samples=samples, seed=seed, quick=quick, out=out, workers=workers, dask=dask,
                           resume=resume, progress=progress)
    for t in report.tables:
        table = Table(title=t.title)
        for col in t.columns:
            table.add_column(str(col))
        for row in t.rows:
            table.add_row(*(f"{x:.4g}" if isinstance(x, float) else str(x) for x in row))
        console.print(table)
        for note in t.notes:
            console.print(f"  {note}")
    console.print("wrote " + ", ".join(report.files))


# --- demo ---------------------------------------------------------------------------------
@app.command("demo")
def demo_command(seed: int = typer.Option(1, help="Seed of the demo platform."),
                 quick: bool = typer.Option(False, "--quick", help="Short series (8 operations instead of 400)."),
                 out: Optional[Path] = typer.Option(None, "-o", "--out", show_default=False,
                                                    help="Where to write the HTML report (default: collsched-demo.html "
                                                         "in the system's temporary folder).")):
    """Compare every algorithm on a built-in heterogeneous platform; print the tables and write an HTML report."""
    import tempfile
    import time

    from .demo import DEMO_SECTIONS, demo, demo_platform

    out = Path(tempfile.gettempdir()) / "collsched-demo.html" if out is None else out
    check_output(out, (".html",), option="-o")
    p = demo_platform(seed)
    console.print(f"platform {p.name!r}: {len(p.hosts)} hosts, {len(p.routers)} routers, {len(p.links)} links "
                  f"(Tiers-like WAN/MAN/LAN, seed {seed})")
    start = time.perf_counter()
    labels = list(DEMO_SECTIONS)
    then = "nothing kept: run it again" + ("" if quick else " (--quick is shorter)")
    with Steps("sections", then) as steps:
        steps.update(0, len(labels))

        def progress(label, name, *rest):
            steps.update(labels.index(label), len(labels), f"{label}: {name}")

        sections = demo(seed, quick=quick, progress=progress)
    for section in sections:
        cmp = section.comparison
        console.print(comparison_table(cmp, title=f"{section.label} ({cmp.collective.base.kind}, "
                                                  f"{len(cmp.collective.hosts)} hosts of {cmp.platform.name})"))
        for line in comparison_notes(cmp):
            console.print(f"  {line}")
    console.print(f"{sum(len(s.comparison.candidates) for s in sections)} schedules planned, validated and simulated "
                  f"in {time.perf_counter() - start:.1f} s")
    from .report.html import write_report

    path = write_report(out, {s.label: s.comparison for s in sections}, title="collsched demo",
                        intro=f"Every applicable algorithm on {p.name} (Tiers-like WAN/MAN/LAN, seed {seed}; the "
                              "grid broadcast on demo-grid, 8 clusters): planned, validated, simulated and ranked "
                              "against a bound valid under the model.")
    console.print(f"report: {path.resolve()}", soft_wrap=True)
    if not all(s.comparison.candidates and s.comparison.candidates[0].valid for s in sections):
        raise typer.Exit(1)


def _flags_without_type(command, ctx=None) -> None:
    """Show flags as flags in ``--help``: no ``<bool>`` after ``--quick`` or ``--help`` (typer >= 0.29 adds it)."""
    ctx = typer.Context(command, info_name=command.name, parent=ctx)
    help_option = command.get_help_option(ctx)
    for param in [*command.params, *([help_option] if help_option is not None else [])]:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    for sub in getattr(command, "commands", {}).values():
        _flags_without_type(sub, ctx)


def _command():
    """The click command of :data:`app`, built once, with flags shown as flags."""
    import typer.main

    if "command" not in _state:
        command = typer.main.get_command(app)
        try:
            _flags_without_type(command)
        except Exception:  # pragma: no cover - typer internals moved: help shows '<bool>' again, nothing worse
            pass
        _state["command"] = command
    return _state["command"]


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app; user errors become one line and exit code 2, Ctrl-C one line and exit code 130."""
    args = list(sys.argv[1:] if argv is None else argv)
    _state["argv"] = args
    debug = "--debug" in args
    try:
        code = _command().main(args=args, prog_name="collsched", standalone_mode=False)
    except Interrupted as exc:
        print(f"collsched: {exc}", file=sys.stderr)
        sys.exit(130)
    except KeyboardInterrupt:
        print("collsched: interrupted", file=sys.stderr)
        sys.exit(130)
    except CollschedError as exc:
        if debug:
            raise
        print(f"collsched: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (typer.Exit, SystemExit) as exc:
        sys.exit(getattr(exc, "exit_code", getattr(exc, "code", 0)))
    except typer.Abort:
        sys.exit(1)
    except TyperException as exc:  # usage errors: typer shows them itself
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            print(f"collsched: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    if code == 130:  # typer turns a KeyboardInterrupt outside any progress into exit code 130
        print("collsched: interrupted", file=sys.stderr)
    if isinstance(code, int) and code:  # typer returns the code of typer.Exit(code) without standalone mode
        sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
