"""``plan-suite``: plan the collectives an application declares, per size bucket, into a plan folder.

A suite is a JSON file ``{"collectives": [...]}``; each entry:

``kind``
    ``broadcast``, ``reduce``, ``allreduce``, ``scatter``, ``gather``,
    ``allgather`` or ``alltoall``.
``ranks`` (optional)
    The host of each communicator rank, in rank order: host ids, or indices
    into the platform's hosts (default: every host, in the platform's order).
``root`` (rooted kinds; default 0)
    A communicator rank.
``sizes``
    ``[smallest, largest]``, bytes (numbers or unit strings such as
    ``"1MB"``), in the sense of :mod:`.plans` (a block for scatter, gather,
    all-gather and all-to-all).
``operator`` (reductions; default ``"commutative"``)
    ``"commutative"`` (``MPI.SUM`` and the like: the plan may combine in any
    order, and a reduce takes its operands cluster by cluster),
    ``"ordered"`` (rank order kept: any operator), or ``"both"``.

The size range is cut into buckets of a factor 4 (``[lo, 4·lo)``, ...).
For each bucket the collective is planned at the bucket's geometric middle
by every applicable algorithm (:func:`collsched.compare.compare` under the
Fluid model; for broadcast, scatter, reduce and all-gather also the
pipelined steady-state schedule of one instance), and the cheapest whose
program runs on the hosts alone (a program that relays through a switch
has no MPI rank to run it) is kept, cheapest meaning the simulated makespan
plus :data:`MESSAGE_COST` per message of the busiest rank, and for a plan
(not for MPI's own) its two agreements, all-reduces of :data:`AGREEMENT`
bytes (:func:`_agreements`): a planned call runs them, MPI's own does
not. It is stored
with its simulated makespan, MPI's own
algorithm's (:data:`collsched.planner.MPI_ALGORITHM`, over the ranks in
rank order, as MPI runs it),
and the gap to the comparison's bound. A bucket where the best is not at
least :data:`GAIN` times cheaper than MPI's own algorithm is stored as
``use_mpi``: the call then runs MPI's own collective.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> suite = parse_suite({"collectives": [{"kind": "broadcast", "root": 1, "sizes": ["1MB", "2MB"]}]}, p)
>>> suite[0].kind, suite[0].ranks, suite[0].root, suite[0].buckets()
('broadcast', ('h0', 'h1', 'h2', 'h3'), 1, [(1000000, 2000000)])
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..collectives import AllGather, AllReduce, AllToAll, Broadcast, Gather, Reduce, Scatter, Series
from ..compare import compare
from ..errors import FormatError
from ..planner import MPI_ALGORITHM
from ..units import parse as parse_quantity
from .plans import KINDS, ROOTED, Plan, PlanSet

__all__ = ["SuiteEntry", "parse_suite", "plan_suite", "plan_entry", "GAIN", "BUCKET", "MESSAGE_COST"]

GAIN = 1.1
"""A bucket is planned when its best schedule is predicted at least this many times faster than MPI's own."""
MESSAGE_COST = 1.5e-5
"""Seconds an MPI rank spends per send or receive beyond the network's time (Python executor, MPI software).

The Fluid model of a platform without latency sees no cost in cutting a
collective into many small messages (a tree-packing schedule may send 10⁵
of them for 1 MB); a real rank pays for each. Candidates are ranked by
their simulated makespan plus this cost times the operations of their
busiest rank, and MPI's own algorithm is charged the same way.

Measured: the executor's own CPU per message per rank, outside
``MPI_Waitsome`` (``benchmarks/bench_runtime.py --executor-only``, its
lines "the walk alone": pre-built buffers handed over, as
:mod:`collsched.mpi` does), 13.8–14.2 µs on 8 local ranks over 2 cores and
4.9 µs on 2 ranks, in two runs (load average 12.0 at the start, 18.2 at
the end; then 13.5 and 15.3). This is the larger figure, rounded up: the
MPI library's own work per message (inside ``MPI_Waitsome``) comes on top
of it. It was 50 µs before the executor was rebuilt around pre-built
request lists. Going to 15 µs alone, every decision of
``tests/runtime/test_plan_suite.py``'s suite and of docs/mpi.md's example
stayed the same (the same algorithm, the same ``use_mpi``): their messages
of 100 kB and more take milliseconds on 5 to 50 MB/s links, which the
per-message charge hardly moves (the ordered reduce stays at 1.05 below
:data:`GAIN`, the 10-byte all-to-all at 2.23 above it, from 2.30). But the
larger charge had also stood for what a planned call costs beyond its
messages, which nothing else counted: at 15 µs, the example's 8-byte
reduce was planned (a call of two agreements to save 4.8 µs of simulated
time: 1.92 against 6.72 µs). A plan is now charged its two agreements too
(:func:`_agreements`); with them, the 100 kB decisions stay (MPI's own cost over the plan's 1.81,
1.89, 2.69, the ordered reduce 1.04), and the 10-byte all-to-all goes to
MPI's own (0.79: its plan saved 2% of a few microseconds). The ratios
are each plan's ``mpi_cost / cost`` from :func:`plan_suite` on the test's
platform (``round_robin_switches(2, bandwidth=5e7, trunk_bandwidth=5e6)``)
and suite."""
BUCKET = 4
"""Each size bucket spans a factor of this."""
_STEADY = ("broadcast", "scatter", "reduce", "allgather")


@dataclass(frozen=True)
class SuiteEntry:
    """One collective of a suite (see the module docstring).

    Examples
    --------
    >>> SuiteEntry("allreduce", ("a", "b"), None, 1000, 64000, "commutative").buckets()
    [(1000, 3999), (4000, 15999), (16000, 63999), (64000, 64000)]
    """

    kind: str
    ranks: tuple[str, ...]
    root: int | None
    low: int
    high: int
    operator: str

    def buckets(self) -> list[tuple[int, int]]:
        """``(low, high)`` byte ranges (inclusive) covering ``[self.low, self.high]``, a factor :data:`BUCKET` each.

        Examples
        --------
        >>> SuiteEntry("gather", ("a", "b"), 0, 10, 50, "commutative").buckets()
        [(10, 39), (40, 50)]
        """
        out, lo = [], self.low
        while lo <= self.high:
            hi = min(self.high, lo * BUCKET - 1)
            out.append((lo, hi))
            lo = hi + 1
        return out

    def collectives(self, size: float, platform) -> list[tuple[object, bool]]:
        """``(collective, ordered)`` to plan for a bucket planned at ``size`` bytes.

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2)
        >>> entry = SuiteEntry("allreduce", p.hosts, None, 8, 8, "both")
        >>> [(c.kind, ordered) for c, ordered in entry.collectives(8.0, p)]
        [('allreduce', False), ('allreduce', True)]
        """
        ranks, root = list(self.ranks), None if self.root is None else self.ranks[self.root]
        if self.kind == "broadcast":
            return [(Broadcast(source=root, targets=ranks, size=size), False)]
        if self.kind == "scatter":
            return [(Scatter(source=root, targets=ranks, size=size), False)]
        if self.kind == "gather":
            return [(Gather(sources=ranks, target=root, size=size), False)]
        if self.kind == "allgather":
            return [(AllGather(participants=ranks, size=size), False)]
        if self.kind == "alltoall":
            return [(AllToAll(senders=ranks, size=size), False)]
        out = []
        if self.operator in ("commutative", "both"):
            if self.kind == "reduce":
                out.append((Reduce(participants=_cluster_order(platform, ranks), target=root, size=size), False))
            else:
                out.append((AllReduce(participants=ranks, size=size), False))
        if self.operator in ("ordered", "both"):
            if self.kind == "reduce":
                out.append((Reduce(participants=ranks, target=root, size=size), True))
            else:
                out.append((AllReduce(participants=ranks, size=size, commutative=False), True))
        return out


def _cluster_order(platform, ranks: list[str]) -> list[str]:
    """The ranks cluster by cluster (a commutative operator's operands may come in any order)."""
    clusters = getattr(platform, "clusters", None) or ()
    order = [h for cluster in clusters for h in cluster if h in ranks]
    return order + [h for h in ranks if h not in order]


def parse_suite(obj, platform, where: str = "<suite>") -> list[SuiteEntry]:
    """The entries of a suite document (parsed JSON), checked against ``platform``.

    Raises
    ------
    FormatError
        One line naming the entry and the field, and how to fix it.

    Examples
    --------
    >>> import collsched as cs
    >>> parse_suite({"collectives": [{"kind": "bcast", "sizes": [1, 2]}]}, cs.topologies.star(2), "s.json")
    Traceback (most recent call last):
    ...
    collsched.errors.FormatError: s.json: collectives[0]: kind 'bcast' is not one of broadcast, reduce, ...
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("collectives"), list):
        raise FormatError(f"{where}: a suite is an object with a list 'collectives'",
                          fix='write {"collectives": [{"kind": "allreduce", "sizes": ["1MB", "64MB"]}]}')
    entries = []
    for i, item in enumerate(obj["collectives"]):
        at = f"{where}: collectives[{i}]"
        if not isinstance(item, dict):
            raise FormatError(f"{at} is not an object", fix="give kind, sizes and optionally ranks, root, operator")
        unknown = sorted(set(item) - {"kind", "ranks", "root", "sizes", "operator"})
        if unknown:
            raise FormatError(f"{at}: unknown field {unknown[0]!r}",
                              fix="fields are kind, ranks, root, sizes, operator")
        kind = item.get("kind")
        if kind not in KINDS:
            raise FormatError(f"{at}: kind {kind!r} is not one of {', '.join(KINDS)}", fix="use collsched's names")
        ranks = item.get("ranks", list(platform.hosts))
        if not isinstance(ranks, list) or not ranks:
            raise FormatError(f"{at}: ranks is not a non-empty list", fix="list host ids or indices in rank order")
        hosts = []
        for r in ranks:
            host = platform.hosts[r] if isinstance(r, int) and 0 <= r < len(platform.hosts) else r
            if host not in platform.hosts:
                raise FormatError(f"{at}: rank {r!r} is not a host of platform {platform.name!r}",
                                  fix=f"hosts are {', '.join(platform.hosts[:6])}...")
            hosts.append(host)
        if len(set(hosts)) != len(hosts):
            raise FormatError(f"{at}: ranks name a host twice", fix="give each host once")
        root = item.get("root", 0) if kind in ROOTED else None
        if kind not in ROOTED and "root" in item:
            raise FormatError(f"{at}: a {kind} has no root", fix="remove root")
        if root is not None and (not isinstance(root, int) or not 0 <= root < len(hosts)):
            raise FormatError(f"{at}: root {root!r} is not a rank 0..{len(hosts) - 1}", fix="give a rank")
        sizes = item.get("sizes")
        if not isinstance(sizes, list) or len(sizes) != 2:
            raise FormatError(f"{at}: sizes is not [smallest, largest]", fix='write e.g. ["1KB", "64MB"]')
        low, high = (int(round(parse_quantity(s, "size", where=f"{at}: sizes"))) for s in sizes)
        if not 1 <= low <= high:
            raise FormatError(f"{at}: sizes {sizes} are not 1 <= smallest <= largest", fix="give a size range")
        operator = item.get("operator", "commutative")
        if operator not in ("commutative", "ordered", "both"):
            raise FormatError(f"{at}: operator {operator!r} is not commutative, ordered or both", fix="pick one")
        entries.append(SuiteEntry(kind, tuple(hosts), root, low, high, operator))
    return entries


def _cost(result, message_cost: float) -> float:
    """Simulated makespan plus ``message_cost`` per send or receive of the busiest rank."""
    talks = result.trace.kind < 2
    busiest = int(np.bincount(result.trace.rank[talks]).max()) if talks.any() else 0
    return result.makespan + message_cost * busiest


def _candidates(platform, collective, kind: str, message_cost: float):
    """``(algorithm, schedule, collective, makespan, cost)`` of every valid plan, cheapest first, and the comparison."""
    cmp = compare(platform, collective, steady=False)
    found = [(c.algorithm, c.schedule, collective, c.result.makespan, _cost(c.result, message_cost))
             for c in cmp.candidates if c.valid]
    if kind in _STEADY:
        series = Series(collective, count=1)
        try:
            steady = compare(platform, series, algorithms=["steady_state"], steady=False).candidates
        except Exception:  # noqa: BLE001 - the steady-state schedule is one more candidate, not a requirement
            steady = ()
        found += [(c.algorithm, c.schedule, series, c.result.makespan, _cost(c.result, message_cost))
                  for c in steady if c.valid]
    return sorted(found, key=lambda x: x[4]), cmp


AGREEMENT = 72
"""Bytes of one agreement of a planned call (9 int64: :func:`collsched.mpi.calls.call`, steps 3 and 5)."""


def _agreements(platform, entry: SuiteEntry, message_cost: float) -> float:
    """What a planned call pays beyond its program: its two agreements, each an all-reduce of :data:`AGREEMENT` bytes.

    Modelled as recursive doubling, as MPI libraries reduce a few bytes:
    ``ceil(log2 n)`` rounds, each a send and a receive per rank
    (``2 * message_cost``) and one message over the slowest pair of ranks
    (its latency plus :data:`AGREEMENT` bytes at its bottleneck bandwidth).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4, bandwidth="1MBps", latency="10us")   # two hops: 20 us and 72 us per message
    >>> round(_agreements(p, SuiteEntry("allreduce", p.hosts, None, 8, 8, "commutative"), 1.5e-5) * 1e6, 1)
    488.0
    """
    ranks = list(entry.ranks)
    rounds = math.ceil(math.log2(len(ranks))) if len(ranks) > 1 else 0
    slowest = max((platform.latency(a, b) + AGREEMENT / platform.bandwidth(a, b) for a in ranks for b in ranks
                   if a != b), default=0.0)
    return 2 * rounds * (2 * message_cost + slowest)


def _mpi_cost(platform, entry: SuiteEntry, size: float, message_cost: float) -> tuple[float, float]:
    """Simulated makespan of MPI's own algorithm (:data:`~collsched.planner.MPI_ALGORITHM` over the ranks in rank
    order), and with :func:`_cost`'s charge per message."""
    ranks, root = list(entry.ranks), None if entry.root is None else entry.ranks[entry.root]
    if entry.kind == "reduce":
        collective = Reduce(participants=ranks, target=root, size=size)
    elif entry.kind == "allreduce":
        collective = AllReduce(participants=ranks, size=size)
    else:
        collective = entry.collectives(size, platform)[0][0]
    try:
        best = compare(platform, collective, algorithms=[MPI_ALGORITHM[entry.kind]], steady=False).best
    except Exception:  # noqa: BLE001 - no MPI algorithm to compare with: every plan is kept
        return float("nan"), float("nan")
    return best.result.makespan, _cost(best.result, message_cost)


def plan_entry(platform, entry: SuiteEntry, *, message_cost: float = MESSAGE_COST,
               progress: Callable[[str], None] | None = None) -> list[Plan]:
    """The plans of one suite entry, one per bucket and operator variant (see the module docstring).

    Parameters
    ----------
    platform : Platform
    entry : SuiteEntry
    message_cost : float
        See :data:`MESSAGE_COST`.
    progress : callable, optional
        Called with one line per bucket planned.

    Returns
    -------
    list of Plan

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> [plan.use_mpi for plan in plan_entry(p, SuiteEntry("broadcast", p.hosts, 0, 10**6, 10**6, "commutative"))]
    [True]
    """
    plans, agreements = [], None
    for low, high in entry.buckets():
        size = float(round(math.sqrt(low * high)))
        mpi = None
        for collective, ordered in entry.collectives(size, platform):
            found, cmp = _candidates(platform, collective, entry.kind, message_cost)
            if mpi is None:
                mpi = _mpi_cost(platform, entry, size, message_cost)
            mpi_makespan, mpi_cost = mpi
            chosen = None
            for name, schedule, c, makespan, cost in found:
                try:
                    chosen = Plan.of(platform, c, schedule, low=low, high=high, makespan=makespan, ranks=entry.ranks)
                    break
                except Exception:  # noqa: BLE001 - a program relayed through a switch: no MPI rank runs it
                    continue
            if chosen is None:
                continue
            bound = float(cmp.bound.value) if cmp.bound is not None and cmp.bound.metric == "makespan" else None
            gap = None if bound is None or bound <= 0 else chosen.makespan / bound - 1
            if agreements is None:
                agreements = _agreements(platform, entry, message_cost)
            cost += agreements
            use_mpi = mpi_cost < GAIN * cost  # NaN (nothing to compare with): keep the plan
            chosen = Plan.of(platform, c, None if use_mpi else schedule, low=low, high=high, makespan=makespan,
                             mpi_makespan=mpi_makespan, bound=bound, gap=gap, use_mpi=use_mpi, ranks=entry.ranks,
                             cost=cost, mpi_cost=mpi_cost)
            plans.append(chosen)
            if progress is not None:
                progress(f"{entry.kind} {low}..{high} B{' ordered' if ordered else ''}: "
                         f"{'MPI' if use_mpi else name} ({name}: simulated {makespan * 1e3:.3g} ms, with messages "
                         f"{cost * 1e3:.3g} ms; MPI's {MPI_ALGORITHM[entry.kind]} {mpi_makespan * 1e3:.3g} ms, "
                         f"{mpi_cost * 1e3:.3g} ms)")
    return plans


def plan_suite(platform, entries: Sequence[SuiteEntry], folder: str | os.PathLike, *,
               message_cost: float = MESSAGE_COST, progress: Callable[[str], None] | None = None) -> PlanSet:
    """Plan every entry and write the plans into ``folder`` (each file atomically; ``index.json`` last).

    Parameters
    ----------
    platform : Platform
    entries : sequence of SuiteEntry
        From :func:`parse_suite`.
    folder : str or path-like
        Created if missing; checked before any planning.
    message_cost : float
        See :data:`MESSAGE_COST`.
    progress : callable, optional
        Called with one line per bucket planned.

    Returns
    -------
    PlanSet

    Raises
    ------
    FormatError
        ``folder`` is a file, or cannot be written.

    Examples
    --------
    >>> import collsched as cs, tempfile
    >>> p = cs.topologies.star(3)
    >>> plans = plan_suite(p, [SuiteEntry("allgather", p.hosts, None, 10**6, 10**6, "commutative")], tempfile.mkdtemp())
    >>> [(plan.kind, plan.low, plan.high) for plan in plans.plans]
    [('allgather', 1000000, 1000000)]
    """
    folder = os.fspath(folder)
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise FormatError(f"plan folder {folder} exists and is not a folder", fix="give a folder path with -o")
    parent = os.path.dirname(os.path.abspath(folder))
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise FormatError(f"cannot write plan folder {folder}: {parent} is not a writable folder",
                          fix="create it, or give another -o")
    if isinstance(message_cost, bool) or not isinstance(message_cost, (int, float)) or not message_cost >= 0:
        raise ValueError(f"plan_suite option message_cost={message_cost!r} is not a number of seconds >= 0")
    plans = [plan for entry in entries
             for plan in plan_entry(platform, entry, message_cost=message_cost, progress=progress)]
    result = PlanSet(plans, platform=platform, where=folder)
    result.save(folder)
    return result
