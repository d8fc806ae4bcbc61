"""What an MPI run returns, and measured beside simulated: a table and a plot.

A :class:`RunResult` wraps the :class:`~collsched.schedules.trace.SimResult`
every executor returns (``backend="mpi"``, so a Gantt chart or a report
takes it like a simulation), plus what only a real run has: whether every
byte was verified, the problems found, the makespan of every repetition.

Examples
--------
>>> import numpy as np, collsched as cs
>>> p = cs.topologies.star(2, bandwidth=1e6, latency=0.0)
>>> b = cs.ProgramBuilder(p.hosts)
>>> _ = b.send("h0", "h1", [], size=1e6)
>>> prog = b.build()
>>> measured = RunResult.of_program(prog, p, np.array([[0.0, 0.0]]), np.array([[0.9, 1.1]]), (), network="local")
>>> simulated = cs.simulate(p, prog, model=cs.models.OnePort())
>>> measured.verified, measured.makespan, measured.result.backend
(True, 1.1, 'mpi')
>>> table = comparison_table({"mpi": measured, "one-port": simulated})
>>> table.columns[:3], table.rows[-1]
(('rank', 'mpi', 'one-port'), ('makespan', 1.1, 1.0))
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from ..schedules.trace import SimResult, Trace

__all__ = ["RunResult", "comparison_table", "comparison_plot"]


@dataclass(frozen=True, eq=False)
class RunResult:
    """One timed MPI execution of a program (or of MPI's own collective).

    Parameters
    ----------
    what : str
        The program's name, or the MPI call of a baseline (``"MPI_Bcast"``).
    verified : bool
        True when every received byte and every final value was checked and right.
    problems : tuple of str
        What was wrong (empty when verified), each naming the rank.
    makespans : tuple of float
        Seconds, per repetition.
    result : SimResult
        The median repetition as the executors' common type (``backend="mpi"``);
        a baseline's trace has one operation per rank (its MPI call, as a compute).
    network : str
        ``"local"`` (shared memory, loopback) or the emulated platform's name.

    Examples
    --------
    See the module docstring.

    >>> RunResult.__dataclass_fields__.keys() >= {"verified", "makespans", "result"}
    True
    """

    what: str
    verified: bool
    problems: tuple[str, ...]
    makespans: tuple[float, ...]
    result: SimResult
    network: str

    @property
    def makespan(self) -> float:
        """Seconds of the median repetition."""
        return self.result.makespan

    @property
    def throughput(self) -> float | None:
        """Instances per second of a series (None for one instance)."""
        return self.result.throughput

    @property
    def trace(self) -> Trace:
        """When every operation ran (the median repetition)."""
        return self.result.trace

    @classmethod
    def of_program(cls, program, platform, start: np.ndarray, end: np.ndarray, problems, *, network: str,
                   count: int | None = None) -> RunResult:
        """The result of ``program`` from per-repetition start and end times (``(repeat, n_ops)`` arrays).

        Parameters
        ----------
        program : Program
        platform : Platform
            Gives the link ids of the result.
        start, end : numpy.ndarray
            Seconds since the repetition's time 0, per repetition and operation.
        problems : sequence of str
        network : str
        count : int, optional
            Instances of a series (gives a throughput).

        Returns
        -------
        RunResult

        Examples
        --------
        See the module docstring.

        >>> callable(RunResult.of_program)
        True
        """
        start, end = np.atleast_2d(start), np.atleast_2d(end)
        spans = end.max(axis=1) if end.shape[1] else np.zeros(end.shape[0])
        k = int(np.argsort(spans)[(len(spans) - 1) // 2])
        trace = Trace.of_program(program, start[k], end[k])
        return cls(program.name, not problems, tuple(problems), tuple(float(x) for x in spans),
                   _sim_result(trace, platform, count, network), network)

    @classmethod
    def of_baseline(cls, call: str, ranks, platform, start, end, problems, *, network: str,
                    count: int | None = None) -> RunResult:
        """The result of an MPI collective from per-repetition first start and last end.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2)
        >>> r = RunResult.of_baseline("MPI_Bcast", p.hosts, p, [0.0, 0.0], [2.0, 1.0], (), network="local")
        >>> r.makespans, r.makespan, r.trace.n_ops
        ((2.0, 1.0), 1.0, 2)
        """
        spans = np.asarray(end, dtype=float) - np.minimum(np.asarray(start, dtype=float), 0.0)
        k = int(np.argsort(spans)[(len(spans) - 1) // 2])
        n = len(ranks)
        trace = Trace(tuple(ranks), np.arange(n), np.full(n, 2), np.full(n, -1), np.full(n, -1), np.zeros(n),
                      np.full(n, max(float(start[k]), 0.0)), np.full(n, float(spans[k])))
        return cls(call, not problems, tuple(problems), tuple(float(x) for x in spans),
                   _sim_result(trace, platform, count, network), network)

    def __repr__(self) -> str:
        tp = "" if self.throughput is None else f", throughput {self.throughput:.6g}/s"
        ok = "verified" if self.verified else f"NOT verified ({len(self.problems)} problems)"
        return f"<RunResult {self.what!r} over MPI ({self.network}): makespan {self.makespan:.6g} s{tp}, {ok}>"


def _sim_result(trace: Trace, platform, count, network) -> SimResult:
    links = tuple(platform.links)
    makespan = trace.makespan
    return SimResult(model=f"MPI({network})", makespan=makespan,
                     throughput=None if count is None else (count / makespan if makespan > 0 else float("inf")),
                     trace=trace, send_busy=trace.busy("send"), recv_busy=trace.busy("recv"),
                     cpu_busy=trace.busy("compute"), link_ids=links, link_busy=np.full(len(links), np.nan),
                     link_utilisation=np.full(len(links), np.nan), events=trace.n_ops, backend="mpi")


def _as_sim(r) -> SimResult:
    return r.result if isinstance(r, RunResult) else r


def comparison_table(results: Mapping[str, RunResult | SimResult], *, title: str = "measured and simulated"):
    """Per rank, when each run's last operation ended; the makespans last.

    Parameters
    ----------
    results : mapping of str to RunResult or SimResult
        Column name -> result (runs of one collective, by any schedule or executor).
    title : str

    Returns
    -------
    collsched.studies.base.Table
        Columns ``rank`` then one per result; seconds; NaN where a result has no such rank
        (a schedule that relays through routers has them as ranks).

    Examples
    --------
    See the module docstring.

    >>> comparison_table({}).rows
    (('makespan',),)
    """
    from ..studies.base import Table

    sims = {name: _as_sim(r) for name, r in results.items()}
    ranks = list(dict.fromkeys(r for s in sims.values() for r in s.trace.ranks))
    rows = []
    for rank in ranks:
        cells = []
        for s in sims.values():
            if rank not in s.trace.ranks:
                cells.append(float("nan"))
                continue
            mine = s.trace.rank == s.trace.ranks.index(rank)
            cells.append(float(s.trace.end[mine].max(initial=0.0)))
        rows.append((rank, *cells))
    rows.append(("makespan", *(s.makespan for s in sims.values())))
    return Table(title, ("rank", *sims), tuple(rows), notes=("seconds: when each rank's last operation ended",))


def comparison_plot(results: Mapping[str, RunResult | SimResult], path: str | Path, *,
                    title: str = "measured and simulated") -> Path:
    """Bars per rank of when its last operation ended, one colour per result; saved to ``path``.

    Parameters
    ----------
    results : mapping of str to RunResult or SimResult
    path : str or Path
        PNG, SVG or PDF (from the suffix).
    title : str

    Returns
    -------
    Path

    Examples
    --------
    >>> import tempfile, pathlib, collsched as cs
    >>> p = cs.topologies.star(2)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1e6)
    >>> r = cs.simulate(p, b.build())
    >>> comparison_plot({"fluid": r}, pathlib.Path(tempfile.mkdtemp()) / "c.png").suffix
    '.png'
    """
    from ..report import _figures

    path = _figures.check_path(path, "comparison plot")
    table = comparison_table(results, title=title)
    names = table.columns[1:]
    labels = [row[0] for row in table.rows]
    fig = _figures.new_figure(max(4.0, 0.6 * len(labels) * max(1, len(names)) / 2 + 2), 3.5)
    ax = fig.add_subplot(1, 1, 1)
    width = 0.8 / max(1, len(names))
    x = np.arange(len(labels))
    for j, name in enumerate(names):
        ax.bar(x + j * width, [row[1 + j] for row in table.rows], width, label=name)
    ax.set_xticks(x + width * (len(names) - 1) / 2, labels, rotation=45, ha="right")
    ax.set_ylabel("seconds")
    ax.set_title(title)
    ax.legend()
    return _figures.save(fig, path)
