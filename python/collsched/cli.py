"""The ``collsched`` command line.

Bad input (malformed files, unknown nodes, bad numbers, schedules that do
not implement their collective) ends with one line on stderr saying what,
where and how to fix it, and exit code 2; ``--debug`` shows the traceback.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from typer.exceptions import TyperException
from rich.console import Console
from rich.table import Table

from .errors import CollschedError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Plan, certify, simulate and run collective communications on heterogeneous platforms.")
platform_app = typer.Typer(no_args_is_help=True, help="Show, generate and convert platform files.")
app.add_typer(platform_app, name="platform")

console = Console(width=None if sys.stdout.isatty() else 120)
_state = {"debug": False}


@app.callback()
def _main(debug: bool = typer.Option(False, "--debug", help="Show tracebacks instead of one-line errors.")):
    _state["debug"] = debug


def _options(items: List[str], accepted: List[str], owner: str) -> dict:
    """``NAME=VALUE`` options (VALUE read as JSON if it can be), each name one that ``owner`` accepts."""
    options = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep:
            raise CollschedError(f"--param {item!r} is not NAME=VALUE")
        if name not in accepted:
            raise CollschedError(f"{owner} has no option {name!r}", fix=f"options: {', '.join(accepted) or 'none'}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


# --- platform ----------------------------------------------------------------------
@platform_app.command("show")
def platform_show(path: Path = typer.Argument(..., help="Platform file (.json or SimGrid .xml)."),
                  routes: int = typer.Option(0, help="Also print this many host-to-host routes."),
                  matrix: bool = typer.Option(False, help="Also print the latency and bandwidth matrices.")):
    """Summarise a platform: hosts, routers, links, routing."""
    from .platform.io import load_platform
    from .units import format_quantity as q

    p = load_platform(path)
    links = list(p.links.values())
    table = Table(title=f"platform {p.name!r}", show_header=False)
    table.add_row("hosts", f"{len(p.hosts)}: {_preview(p.hosts)}")
    table.add_row("routers", f"{len(p.routers)}: {_preview(p.routers)}")
    table.add_row("links", str(len(links)))
    bws = [link.bandwidth for link in links]
    lats = [link.latency for link in links]
    if links:
        table.add_row("bandwidth", f"{q(min(bws), 'bandwidth')} .. {q(max(bws), 'bandwidth')}")
        table.add_row("latency", f"{q(min(lats), 'time')} .. {q(max(lats), 'time')}")
    speeds = [p.nodes[h].speed for h in p.hosts]
    table.add_row("host speed", f"{q(min(speeds), 'speed')} .. {q(max(speeds), 'speed')}")
    table.add_row("routing", repr(p.routing))
    if p.clusters:
        table.add_row("clusters", ", ".join(str(len(c)) for c in p.clusters))
    console.print(table)
    shown = 0
    for a in p.hosts:
        for b in p.hosts:
            if a != b and shown < routes:
                console.print(f"{a} -> {b}: {' '.join(p.route(a, b))}  "
                              f"({q(p.latency(a, b), 'time')}, {q(p.bandwidth(a, b), 'bandwidth')})")
                shown += 1
    if matrix:
        for title, m, dim in (("latency", p.latency_matrix(), "time"), ("bandwidth", p.bandwidth_matrix(), "bandwidth")):
            t = Table(title=title)
            t.add_column("")
            for h in p.hosts:
                t.add_column(h)
            for h, row in zip(p.hosts, m):
                t.add_row(h, *("-" if a == h else q(x, dim) for a, x in zip(p.hosts, row)))
            console.print(t)


@platform_app.command("generate")
def platform_generate(kind: str = typer.Argument(..., help="Generator name, e.g. star, hypercube, tiers."),
                      output: Path = typer.Option(..., "-o", "--output", help="Where to write (.json or .xml)."),
                      param: List[str] = typer.Option([], "-p", "--param",
                                                      help="Generator option NAME=VALUE (VALUE read as JSON if it can be).")):
    """Generate a platform with one of collsched.topologies' generators."""
    from . import topologies
    from .platform.io import save_platform

    if kind not in topologies.__all__:
        raise CollschedError(f"unknown generator {kind!r}", fix=f"use one of {', '.join(topologies.__all__)}")
    generator = getattr(topologies, kind)
    options = _options(param, list(inspect.signature(generator).parameters), f"generator {kind!r}")
    try:
        platform = generator(**options)
    except TypeError as exc:
        raise CollschedError(f"generator {kind!r}: {exc}") from None
    save_platform(platform, output)
    console.print(f"wrote {output}: {len(platform.hosts)} hosts, {len(platform.routers)} routers, "
                  f"{len(platform.links)} links")


@platform_app.command("convert")
def platform_convert(source: Path = typer.Argument(..., help="Input platform (.json or .xml)."),
                     target: Path = typer.Argument(..., help="Output platform (.json or .xml).")):
    """Convert a platform between native JSON and SimGrid XML."""
    from .platform.io import load_platform, save_platform

    platform = load_platform(source)
    save_platform(platform, target)
    console.print(f"wrote {target}")


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


def _fmt(x, unit: str = "") -> str:
    if x is None:
        return "-"
    return f"{x:.4g}{unit}"


@app.command("plan")
def plan_command(platform: Path = typer.Argument(..., help="Platform file."),
                 collective: Path = typer.Argument(..., help="Collective file (.json)."),
                 algorithm: Optional[str] = typer.Option(None, "-a", "--algorithm",
                                                         help="Registered algorithm name (default: the best, by simulation)."),
                 output: Path = typer.Option(..., "-o", "--output", help="Where to write the schedule (.json)."),
                 model: Optional[str] = typer.Option(None, help=_MODEL_HELP + " Only without --algorithm."),
                 param: List[str] = typer.Option([], "-p", "--param",
                                                 help="Algorithm option NAME=VALUE (VALUE read as JSON if it can be)."),
                 seed: int = typer.Option(0, help="Seed for randomised algorithms.")):
    """Plan a schedule (the named algorithm's, or the best of all), validate it, and write it."""
    from .collective_io import load_collective
    from .planner import plan
    from .platform.io import load_platform
    from .schedules.io import save_schedule
    from .schedules.validate import validate

    p, c = load_platform(platform), load_collective(collective)
    if algorithm is not None and model is not None:
        raise CollschedError("--model chooses among algorithms: give it without --algorithm")
    options = {}
    if param:
        if algorithm is None:
            raise CollschedError("--param sets an algorithm's option: name the algorithm with -a")
        from .algorithms import registry

        fn = registry.get(algorithm).function
        accepted = [n for n, v in inspect.signature(fn).parameters.items() if v.kind == v.KEYWORD_ONLY and n != "seed"]
        options = _options(param, accepted, f"algorithm {algorithm!r}")
    try:
        schedule = plan(p, c, algorithm, seed=seed, model=_model(model), **options)
    except (TypeError, ValueError) as exc:
        raise CollschedError(f"algorithm {algorithm!r}: {exc}") from None
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
    from .schedules.validate import validate

    p, c = load_platform(platform), load_collective(collective)
    s = load_schedule(schedule)
    if sync is not None and not isinstance(s, StepSchedule):
        raise CollschedError(f"--sync applies to step schedules, not to a {s.shape} schedule")
    program = s.lower(p, c, sync=sync) if sync is not None else s.lower(p, c)
    validate(p, c, program)
    suffix = output.suffix.lower()
    if suffix == ".goal":
        save_goal(program, output, speed={h: p.nodes[h].speed for h in p.hosts})
    elif suffix == ".json":
        save_program(program, output)
    else:
        raise CollschedError(f"cannot tell the format of {str(output)!r}", fix="name it .json or .goal")
    console.print(f"wrote {output}: {program.n_ops} operations on {len(program.ranks)} ranks, validated")


@app.command("compare")
def compare_command(platform: Path = typer.Argument(..., help="Platform file."),
                    collective: Path = typer.Argument(..., help="Collective file (.json)."),
                    algorithm: Optional[List[str]] = typer.Option(None, "-a", "--algorithm",
                                                                  help="Compare only these (repeat the option)."),
                    model: Optional[str] = typer.Option(None, help=_MODEL_HELP),
                    seed: int = typer.Option(0, help="Seed for randomised algorithms.")):
    """Plan, validate and simulate every applicable algorithm; print each one's bound, result, gap and time."""
    comparison = _compare_files(platform, collective, algorithm, model, seed)
    if not any(cand.valid for cand in comparison.candidates):
        raise typer.Exit(1)


def _compare_files(platform: Path, collective: Path, algorithms, model: Optional[str], seed: int):
    """Load the files, compare with a progress bar, print the table and its notes; return the comparison."""
    from .collective_io import load_collective
    from .platform.io import load_platform

    p, c = load_platform(platform), load_collective(collective)
    comparison = _compare_with_progress(p, c, algorithms=algorithms or None, model=_model(model), seed=seed)
    console.print(comparison_table(comparison, title=f"{c.kind} on {p.name}"))
    for line in comparison_notes(comparison):
        console.print(f"  {line}")
    return comparison


def _compare_with_progress(p, c, **kwargs):
    """:func:`collsched.compare.compare` with a progress bar (one step per algorithm)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from .algorithms import registry
    from .compare import compare

    total = len(kwargs.get("algorithms") or registry.applicable(c))
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task("planning", total=total)
        seen = []

        def step(name):
            if seen:
                bar.advance(task)
            seen.append(name)
            bar.update(task, description=f"planning, validating, simulating {name}")

        return compare(p, c, progress=step, **kwargs)


def comparison_table(comparison, *, title: str) -> Table:
    """A rich table of a :class:`~collsched.compare.Comparison`, best first.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> t = comparison_table(compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)), title="t")
    >>> [c.header for c in t.columns][:4]
    ['algorithm', 'family', 'bound (own)', 'makespan s']
    """
    unit = "ops/s" if comparison.metric == "throughput" else "s"
    table = Table(title=title)
    for col in ("algorithm", "family", "bound (own)", f"{comparison.metric} {unit}", "gap", "plan ms",
                "simulate ms", "status"):
        table.add_column(col, justify="left" if col in ("algorithm", "family", "status") else "right")
    for i, row in enumerate(comparison.rows()):
        name, family, own, achieved, gap, t_plan, t_sim, status = row
        table.add_row(("[bold]" + name + "[/]") if i == 0 and status == "ok" else name, family, _fmt(own),
                      _fmt(achieved), "-" if gap is None else f"{100 * gap:.1f}%", f"{1e3 * t_plan:.1f}",
                      f"{1e3 * t_sim:.1f}", "[green]ok[/]" if status == "ok" else f"[red]{status}[/]")
    return table


def comparison_notes(comparison) -> list[str]:
    """The lines printed under a comparison table: the model and the bound the gaps are measured against.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.compare import compare
    >>> p = cs.topologies.star(3)
    >>> comparison_notes(compare(p, cs.Broadcast(source="h0", targets=p.hosts, size=1e6)))[0]
    "model: Fluid(one_port=False, ties='fixed')"
    """
    b = comparison.bound
    unit = "ops/s" if comparison.metric == "throughput" else "s"
    return [f"model: {comparison.model!r}",
            "gap: no bound under this model" if b is None else
            f"gap against the bound {float(b.value):.4g} {unit} ({b.name}); 'bound (own)' is each algorithm's own, "
            "which may hold under another model"]


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
    from .schedules.io import load_program_or_schedule
    from .schedules.validate import lower_any, validate
    from .compare import DEFAULT_MODEL
    from .simulation import simulate

    p, c = load_platform(platform), load_collective(collective)
    program = lower_any(p, c, load_program_or_schedule(schedule))
    validate(p, c, program)
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
    from .schedules.io import load_program_or_schedule
    from .schedules.validate import lower_any, validate

    p, c = load_platform(platform), load_collective(collective)
    s = load_program_or_schedule(schedule)
    program = lower_any(p, c, s)
    validate(p, c, program, rendezvous=rendezvous)
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
    from .schedules.io import load_program_or_schedule
    from .schedules.validate import lower_any, validate
    from .simulation import models, simulate

    from .runtime.run import COMPUTE_MODES

    for bad, what, fix in ((compute not in COMPUTE_MODES, f"--compute {compute!r}", f"one of {', '.join(COMPUTE_MODES)}"),
                           (repeat < 1, f"--repeat {repeat}", ">= 1"), (not timeout > 0, f"--timeout {timeout:g}", "> 0")):
        if bad:
            raise CollschedError(f"{what} is not allowed", fix=f"give {fix}")
    p, c = load_platform(platform), load_collective(collective)
    program = lower_any(p, c, load_program_or_schedule(schedule))
    validate(p, c, program)
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
def calibrate_command(platform: Path = typer.Argument(..., help="Platform file (its hosts are the ranks)."),
                      output: Path = typer.Option(..., "-o", "--output", help="Where to write the measured platform (.json)."),
                      emulate: bool = typer.Option(False, help="Measure the emulated network of the platform (Linux, root)."),
                      repeat: int = typer.Option(5, help="Round trips per size.")):
    """Measure latency and bandwidth between hosts by ping-pong over MPI; write them as a platform."""
    import contextlib

    from .platform.io import load_platform, save_platform
    from .runtime.calibrate import calibrate
    from .runtime.emulation import Emulation

    p = load_platform(platform)
    with (Emulation(p) if emulate else contextlib.nullcontext()) as net:
        cal = calibrate(p, repeat=repeat, emulation=net)
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
    """Run one of the papers' experiments and print its tables beside the paper's figures."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

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
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        tasks = {}

        def progress(label, done, total):
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

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
                 quick: bool = typer.Option(False, help="Short series (8 operations instead of 400)."),
                 out: Path = typer.Option(Path("collsched-demo.html"), "-o", "--out", help="Where to write the HTML report.")):
    """Compare every algorithm on a built-in heterogeneous platform; print the tables and write an HTML report."""
    import time

    from .demo import demo, demo_platform

    p = demo_platform(seed)
    console.print(f"platform {p.name!r}: {len(p.hosts)} hosts, {len(p.routers)} routers, {len(p.links)} links "
                  f"(Tiers-like WAN/MAN/LAN, seed {seed})")
    start = time.perf_counter()
    with console.status("planning") as status:
        sections = demo(seed, quick=quick,
                        progress=lambda label, name: status.update(f"{label}: planning, validating, simulating {name}"))
    for section in sections:
        cmp = section.comparison
        console.print(comparison_table(cmp, title=f"{section.label} ({cmp.collective.base.kind}, "
                                                  f"{len(cmp.collective.hosts)} hosts of {cmp.platform.name})"))
        for line in comparison_notes(cmp):
            console.print(f"  {line}")
    console.print(f"{sum(len(s.comparison.candidates) for s in sections)} schedules planned, validated and simulated "
                  f"in {time.perf_counter() - start:.1f} s")
    from .report.html import write_report

    with console.status("writing the report"):
        path = write_report(out, {s.label: s.comparison for s in sections}, title="collsched demo",
                            intro=f"Every applicable algorithm on {p.name} (Tiers-like WAN/MAN/LAN, seed {seed}; the "
                                  "grid broadcast on demo-grid, 8 clusters): planned, validated, simulated and ranked "
                                  "against a bound valid under the model.")
    console.print(f"report: {path.resolve()}")
    if not all(s.comparison.candidates and s.comparison.candidates[0].valid for s in sections):
        raise typer.Exit(1)


def _preview(items, k: int = 6) -> str:
    return ", ".join(items[:k]) + (", ..." if len(items) > k else "")


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turning user errors into one line and exit code 2."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        app(args=args, standalone_mode=False)
    except CollschedError as exc:
        if debug:
            raise
        print(f"collsched: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (typer.Exit, SystemExit) as exc:
        code = getattr(exc, "exit_code", getattr(exc, "code", 0))
        sys.exit(code)
    except typer.Abort:
        sys.exit(1)
    except TyperException as exc:  # usage errors: typer shows them itself
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            print(f"collsched: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
