"""The plan cache: planned programs per (collective kind, communicator size, root, size bucket), in memory or a folder.

A :class:`Plan` is one collective planned for one bucket of sizes on one
platform: the lowered program, which communicator rank runs as which host,
the operand order of a reduction, the simulated makespans of the program
and of MPI's own algorithm, the bound and the gap. ``use_mpi`` marks a
bucket where the plan predicts no gain over MPI's own algorithm: the call
then uses MPI's own collective, silently.

A :class:`PlanSet` holds the plans of one platform and finds the one for a
call (:meth:`PlanSet.find`). On disk (``collsched plan-suite``, see
:mod:`.suite`) it is a folder with ``index.json`` (the platform's name and
fingerprint, the plan files) and one JSON file per plan; every plan file
names the platform it was planned on, so a file copied from another
platform's folder is refused.

Sizes are those of the collsched collective: the buffer of a broadcast, the
vector of a reduction, one rank's block of a scatter, gather or all-gather,
one pair's block of an all-to-all (bytes).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e6)
>>> plan = Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=2**21)
>>> plans = PlanSet([plan], platform=p)
>>> plans.find("broadcast", 4, 0, 10**6, commutative=True) is plan
True
>>> plans.find("broadcast", 4, 1, 10**6, commutative=True) is None   # planned from root 0 only
True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..collectives import AllGather, AllReduce, AllToAll, Broadcast, Gather, Reduce, Scatter, Series
from ..errors import CollschedError, FormatError
from ..fileformat import atomic_write, read_text
from ..platform.io.native import platform_to_json
from ..schedules.program import Program
from ..schedules.program_io import program_from_dict, program_to_dict
from ..schedules.validate import lower_any

__all__ = ["Plan", "PlanSet", "PlanError", "load_plans", "fingerprint", "KINDS", "ROOTED", "FORMAT"]

KINDS = ("broadcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall")
"""The collective kinds :mod:`collsched.mpi` calls (collsched's names)."""
ROOTED = ("broadcast", "reduce", "scatter", "gather")
"""The kinds with a root."""
FORMAT = "collsched-mpi-plan"
"""The ``format`` field of plan files and of ``index.json``."""


class PlanError(CollschedError):
    """A plan that does not fit the call: another communicator size, another platform, a bad plan file.

    Examples
    --------
    >>> str(PlanError("plan x is for 8 ranks", fix="plan for this communicator"))
    'plan x is for 8 ranks (plan for this communicator)'
    """


def fingerprint(platform) -> str:
    """A short hash of a platform's JSON form: two platforms with the same fingerprint are the same machine model.

    Examples
    --------
    >>> import collsched as cs
    >>> fingerprint(cs.topologies.star(4)) == fingerprint(cs.topologies.star(4)) != fingerprint(cs.topologies.star(5))
    True
    """
    return hashlib.sha256(platform_to_json(platform).encode()).hexdigest()[:16]


def _describe(platform, collective, ranks):
    """``(kind, hosts of comm ranks, root rank, operand hosts, commutative, size)`` of a collective."""
    base = collective.collective if isinstance(collective, Series) else collective
    if isinstance(collective, Series) and collective.count != 1:
        raise PlanError(f"a plan is one collective, not a series of {collective.count}", fix="plan Series(c, 1)")
    if not isinstance(base, (Broadcast, Scatter, Gather, Reduce, AllReduce, AllGather, AllToAll)):
        raise PlanError(f"collsched.mpi has no call for a {base.kind}", fix=f"plan one of {', '.join(KINDS)}")
    involved = set(base.hosts)
    ranks = tuple(h for h in platform.hosts if h in involved) if ranks is None else tuple(ranks)
    if set(ranks) != involved or len(ranks) != len(involved):
        raise PlanError(f"ranks {', '.join(ranks)} are not the hosts of the {base.kind}",
                        fix="give each host of the collective once, in communicator rank order")
    root = getattr(base, "source", None) or getattr(base, "target", None)
    operands = tuple(base.participants) if isinstance(base, (Reduce, AllReduce)) else ()
    if isinstance(base, AllToAll) and (tuple(base.receivers) != tuple(base.senders) or np.ndim(base.size) != 0):
        raise PlanError("collsched.mpi plans an all-to-all of every rank to every rank with one block size",
                        fix="give senders == receivers and one size")
    if isinstance(base, Reduce) and set(operands) != involved:
        raise PlanError("the target of an MPI reduce is one of its participants", fix="make the target a participant")
    commutative = getattr(base, "commutative", False) or (isinstance(base, Reduce) and operands != ranks)
    return base.kind, ranks, None if root is None else ranks.index(root), operands, commutative, float(base.size)


@dataclass(frozen=True, eq=False)
class Plan:
    """One collective planned for a bucket of sizes ``[low, high]`` bytes; see the module docstring.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    ranks : tuple of str
        The host that communicator rank ``i`` runs as.
    hosts : tuple of str
        The platform's hosts, in order (symbolic values name hosts by this index).
    root : int or None
        Communicator rank of the root (rooted kinds).
    operands : tuple of int
        Reductions: the communicator rank of operand ``k`` (rank order for an
        ordered operator; any order for a commutative one).
    commutative : bool
        The plan needs a commutative operator (its operand order is not rank
        order, or it combines partial results in any order).
    low, high : int
        The bucket, bytes (inclusive).
    size : float
        The size it was planned and simulated at.
    program : Program or None
        None when ``use_mpi``.
    algorithm : str
    makespan, mpi_makespan : float
        Simulated seconds of the program and of MPI's own algorithm at ``size``.
    bound : float or None
        Lower bound of the makespan at ``size`` (seconds), when known.
    gap : float or None
        Relative gap of ``makespan`` to ``bound``.
    use_mpi : bool
        The plan predicts no gain: use MPI's own collective.
    platform : str
        The platform's name.
    platform_fingerprint : str
        :func:`fingerprint` of the platform.
    cost, mpi_cost : float
        What the plan and MPI's own were ranked by: simulated makespan plus a
        cost per message of the busiest rank (:data:`collsched.mpi.suite.MESSAGE_COST`),
        and for the plan its two agreements (``collsched.mpi.suite._agreements``).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.Reduce(participants=["h1", "h0", "h2"], target="h1", size=64)
    >>> plan = Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=64)
    >>> plan.root, plan.operands, plan.commutative
    (1, (1, 0, 2), True)
    >>> Plan.from_dict(plan.to_dict()).program == plan.program
    True
    """

    kind: str
    ranks: tuple[str, ...]
    hosts: tuple[str, ...]
    root: int | None
    operands: tuple[int, ...]
    commutative: bool
    low: int
    high: int
    size: float
    program: Program | None
    algorithm: str
    makespan: float
    mpi_makespan: float
    bound: float | None
    gap: float | None
    use_mpi: bool
    platform: str
    platform_fingerprint: str
    cost: float = float("nan")
    mpi_cost: float = float("nan")
    prepared: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, platform, collective, schedule, *, low: int, high: int, makespan: float = float("nan"),
           mpi_makespan: float = float("nan"), bound: float | None = None, gap: float | None = None,
           use_mpi: bool = False, ranks: Sequence[str] | None = None, cost: float = float("nan"),
           mpi_cost: float = float("nan")) -> Plan:
        """The plan of ``schedule`` (or a program) for ``collective`` on ``platform``, for sizes ``[low, high]``.

        Parameters
        ----------
        platform : Platform
        collective : Collective
            A broadcast, reduce, all-reduce, scatter, gather, all-gather or
            all-to-all (or a ``Series`` of one), over every rank.
        schedule : Schedule or Program
        low, high : int
            The size bucket, bytes.
        makespan, mpi_makespan, bound, gap, cost, mpi_cost : float, optional
            As the attributes.
        use_mpi : bool
        ranks : sequence of str, optional
            The host of each communicator rank (default: the collective's
            hosts in the platform's order).

        Returns
        -------
        Plan

        Raises
        ------
        PlanError
            A kind collsched.mpi does not call, or a program with a rank
            that is not one of the collective's hosts (a router relay).

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.star(2)
        >>> c = cs.AllGather(participants=p.hosts, size=8)
        >>> Plan.of(p, c, cs.plan(p, c, algorithm="ring"), low=1, high=8).ranks
        ('h0', 'h1')
        """
        kind, ranks, root, operands, commutative, size = _describe(platform, collective, ranks)
        program = None if use_mpi else lower_any(platform, collective, schedule)
        if program is not None and not set(program.ranks) <= set(ranks):
            extra = sorted(set(program.ranks) - set(ranks))
            raise PlanError(f"the {kind} program of {getattr(schedule, 'algorithm', 'a schedule')!r} runs on "
                            f"{', '.join(extra[:3])}, which no MPI rank is",
                            fix="plan with an algorithm whose program runs on the hosts only")
        return cls(kind, ranks, tuple(platform.hosts), root, tuple(ranks.index(h) for h in operands), commutative,
                   int(low), int(high), size, program, getattr(schedule, "algorithm", None) or "program",
                   float(makespan), float(mpi_makespan), bound, gap, bool(use_mpi), platform.name,
                   fingerprint(platform), float(cost), float(mpi_cost))

    @property
    def n(self) -> int:
        """Communicator size."""
        return len(self.ranks)

    def to_dict(self) -> dict:
        """The plan as a JSON-ready dict (its program as :func:`~collsched.schedules.program_io.program_to_dict`).

        Examples
        --------
        See :class:`Plan`.

        >>> sorted(Plan.to_dict.__annotations__)
        ['return']
        """
        out = {"format": FORMAT, "version": 1}
        for name in ("kind", "ranks", "hosts", "root", "operands", "commutative", "low", "high", "size", "algorithm",
                     "makespan", "mpi_makespan", "bound", "gap", "use_mpi", "platform", "platform_fingerprint",
                     "cost", "mpi_cost"):
            value = getattr(self, name)
            value = None if isinstance(value, float) and math.isnan(value) else value  # JSON has no NaN
            out[name] = list(value) if isinstance(value, tuple) else value
        out["program"] = None if self.program is None else program_to_dict(self.program)
        return out

    @classmethod
    def from_dict(cls, obj: dict, where: str = "<plan>") -> Plan:
        """The plan ``obj`` describes (see :meth:`to_dict`).

        Raises
        ------
        PlanError
            Not a plan document, or a field missing.

        Examples
        --------
        >>> Plan.from_dict({"format": "x"}, "p.json")
        Traceback (most recent call last):
        ...
        collsched.mpi.plans.PlanError: p.json is not a collsched.mpi plan (format 'x') (write plans with ...)
        """
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            got = obj.get("format") if isinstance(obj, dict) else None
            raise PlanError(f"{where} is not a collsched.mpi plan (format {got!r})",
                            fix="write plans with collsched plan-suite")
        try:
            program = None if obj["program"] is None else program_from_dict(obj["program"], where)
            return cls(obj["kind"], tuple(obj["ranks"]), tuple(obj["hosts"]), obj["root"], tuple(obj["operands"]),
                       bool(obj["commutative"]), int(obj["low"]), int(obj["high"]), float(obj["size"]), program,
                       obj["algorithm"], _number(obj["makespan"]), _number(obj["mpi_makespan"]), obj["bound"],
                       obj["gap"], bool(obj["use_mpi"]), obj["platform"], obj["platform_fingerprint"],
                       _number(obj.get("cost")), _number(obj.get("mpi_cost")))
        except KeyError as exc:
            raise PlanError(f"{where} has no field {exc.args[0]!r}",
                            fix="write plans with collsched plan-suite") from None


def _number(x) -> float:
    return float("nan") if x is None else float(x)


class PlanSet:
    """The plans of one platform; :meth:`find` picks the one for a call.

    Parameters
    ----------
    plans : sequence of Plan
    platform : Platform, optional
        With it, every plan must come from this platform (its fingerprint).
    name, platform_fingerprint : str, optional
        The platform's name and fingerprint when ``platform`` is not given
        (default: the first plan's).

    Raises
    ------
    PlanError
        A plan from another platform than the set's.

    Examples
    --------
    >>> import collsched as cs
    >>> p, q = cs.topologies.star(2), cs.topologies.star(2, bandwidth="1MBps")
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=8)
    >>> PlanSet([Plan.of(q, c, cs.plan(q, c, algorithm="binomial"), low=1, high=8)], platform=p)
    Traceback (most recent call last):
    ...
    collsched.mpi.plans.PlanError: the broadcast plan for sizes 1..8 was made on platform 'star-2' (...), not on ...
    """

    def __init__(self, plans: Sequence[Plan], *, platform=None, name: str | None = None,
                 platform_fingerprint: str | None = None, where: str = "<memory>"):
        self.plans = tuple(plans)
        self.where = where
        if platform is not None:
            name, platform_fingerprint = platform.name, fingerprint(platform)
        elif self.plans:
            name = name or self.plans[0].platform
            platform_fingerprint = platform_fingerprint or self.plans[0].platform_fingerprint
        self.name, self.fingerprint = name, platform_fingerprint
        for plan in self.plans:
            if plan.platform_fingerprint != self.fingerprint:
                raise PlanError(f"the {plan.kind} plan for sizes {plan.low}..{plan.high} was made on platform "
                                f"{plan.platform!r} ({plan.platform_fingerprint}), not on platform {self.name!r} "
                                f"({self.fingerprint})", fix="plan again on this platform: collsched plan-suite")
        self._by_kind: dict[str, list[Plan]] = {}
        for plan in self.plans:
            self._by_kind.setdefault(plan.kind, []).append(plan)

    def find(self, kind: str, n: int, root: int | None, size: int, *, commutative: bool) -> Plan | None:
        """The plan for a call, or None (then MPI's own collective runs).

        Parameters
        ----------
        kind : str
        n : int
            Communicator size.
        root : int or None
        size : int
            Bytes (see the module docstring).
        commutative : bool
            The call's operator commutes (a plan that needs it is taken only then; preferred then).

        Returns
        -------
        Plan or None

        Raises
        ------
        PlanError
            The set has plans of this kind only for other communicator sizes.

        Examples
        --------
        >>> PlanSet([]).find("reduce", 4, 0, 8, commutative=False) is None
        True
        """
        plans = self._by_kind.get(kind)
        if not plans:
            return None
        sized = [p for p in plans if p.n == n]
        if not sized:
            raise PlanError(f"the {kind} plans of {self.where} are for communicators of "
                            f"{', '.join(str(m) for m in sorted({p.n for p in plans}))} ranks; this one has {n}",
                            fix="plan the collective for this communicator (collsched plan-suite)")
        fits = [p for p in sized if p.root == root and p.low <= size <= p.high and (commutative or not p.commutative)]
        fits.sort(key=lambda p: not p.commutative)
        return fits[0] if fits else None

    def save(self, folder: str | os.PathLike) -> list[str]:
        """Write the set into ``folder`` (created): one file per plan, then ``index.json``, each atomically.

        Returns
        -------
        list of str
            The plan files written (names inside ``folder``).

        Raises
        ------
        FormatError
            ``folder`` exists and is not a directory, or cannot be written.

        Examples
        --------
        >>> import tempfile
        >>> PlanSet([], name="x", platform_fingerprint="0").save(tempfile.mkdtemp())
        []
        """
        folder = os.fspath(folder)
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise FormatError(f"plan folder {folder} exists and is not a folder", fix="give a folder path with -o")
        os.makedirs(folder, exist_ok=True)
        names = []
        for plan in self.plans:
            tag = f"root{plan.root}-" if plan.root is not None else ""
            order = "commutative-" if plan.commutative else ""
            name = f"{plan.kind}-n{plan.n}-{tag}{order}{plan.low}-{plan.high}.json"
            atomic_write(os.path.join(folder, name), json.dumps(plan.to_dict()) + "\n")
            names.append(name)
        index = {"format": FORMAT, "version": 1, "kind": "index", "platform": self.name,
                 "platform_fingerprint": self.fingerprint, "plans": names}
        atomic_write(os.path.join(folder, "index.json"), json.dumps(index, indent=1) + "\n")
        return names


_LOADED: dict[tuple[str, float], PlanSet] = {}


def load_plans(folder: str | os.PathLike, *, platform=None) -> PlanSet:
    """The plans of a folder written by ``collsched plan-suite`` (read once per process and kept).

    Parameters
    ----------
    folder : str or path-like
    platform : Platform, optional
        The platform the plans must have been made on.

    Returns
    -------
    PlanSet

    Raises
    ------
    PlanError
        No ``index.json``, a file that is not a plan, or a plan made on another platform.

    Examples
    --------
    >>> import tempfile
    >>> load_plans(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    collsched.mpi.plans.PlanError: .../index.json does not exist (write the folder with collsched plan-suite ...)
    """
    folder = os.path.abspath(os.fspath(folder))
    index_path = os.path.join(folder, "index.json")
    if not os.path.exists(index_path):
        raise PlanError(f"{index_path} does not exist",
                        fix="write the folder with collsched plan-suite PLATFORM --collectives SUITE -o FOLDER")
    key = (folder, os.path.getmtime(index_path))
    if key in _LOADED and platform is None:
        return _LOADED[key]
    try:
        index = json.loads(read_text(index_path))
        plans = [Plan.from_dict(json.loads(read_text(os.path.join(folder, name))), os.path.join(folder, name))
                 for name in index["plans"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise PlanError(f"{folder} is not a plan folder: {exc}", fix="write it with collsched plan-suite") from None
    for plan, name in zip(plans, index["plans"]):
        if plan.platform_fingerprint != index.get("platform_fingerprint"):
            raise PlanError(f"plan file {os.path.join(folder, name)} was made on platform {plan.platform!r} "
                            f"({plan.platform_fingerprint}), but {folder} is for {index.get('platform')!r} "
                            f"({index.get('platform_fingerprint')})",
                            fix="plan again on this platform: collsched plan-suite")
    result = PlanSet(plans, name=index.get("platform"), platform_fingerprint=index.get("platform_fingerprint"),
                     where=folder)
    if platform is not None:
        PlanSet(plans, platform=platform, where=folder)  # raises if made on another platform
    _LOADED[key] = result
    return result
