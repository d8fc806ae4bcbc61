"""pLogP parameters of a grid of logical clusters, and the measurement plan that acquires them.

Seed 003, section 4.2: once the hosts are split into logical clusters, one
process represents each cluster, so the parameters of ``C`` clusters need at
most ``C (C - 1) + C`` pLogP measurements (one per ordered pair of clusters,
one inside each cluster), half the inter-cluster ones if links are
symmetric. :class:`MeasurementPlan` is that list as data, written as JSON,
which the MPI runtime fills in (``L`` and the ``g``, ``o_s``, ``o_r`` values
at the plan's sizes); :meth:`MeasurementPlan.params` turns a filled plan into
:class:`GridParams`, the per-cluster and per-pair
:class:`~collsched.simulation.plogp.PLogPParams` that the planners and the
:class:`~collsched.simulation.models.PLogP` simulation model use.

Examples
--------
>>> plan = MeasurementPlan.for_clusters([["a", "b"], ["c"], ["d", "e"]])
>>> len(plan.measurements), [(m.src, m.dst) for m in plan.measurements][:3]
(8, [('a', 'b'), ('d', 'e'), ('a', 'c')])
>>> filled = plan.filled(lambda src, dst, sizes: (1e-3, [s / 1e8 for s in sizes]))
>>> p = filled.params()
>>> round(float(p.pair(0, 1).g(1e6)), 6), p.pair(2, 2).L
(0.01, 0.001)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence

import numpy as np

from ...errors import FormatError
from ...fileformat import atomic_write, read_text
from ...simulation.models import PLogP
from ...simulation.plogp import Piecewise, PLogPParams

__all__ = ["GridParams", "Measurement", "MeasurementPlan", "DEFAULT_SIZES"]

#: Message sizes (bytes) a measurement probes by default: 1 B to 4 MB, powers of 4.
DEFAULT_SIZES = tuple(float(4 ** k) for k in range(12))

_PLAN_FORMAT = "collsched-plogp-plan"


@dataclass(frozen=True)
class GridParams:
    """pLogP parameters of a grid: one set inside each cluster, one per ordered pair of clusters.

    Attributes
    ----------
    clusters : tuple of tuple of str
        The logical clusters (hosts); the first host of each is its representative.
    intra : tuple of PLogPParams
        ``intra[k]``: between two hosts of cluster ``k``.
    inter : mapping of (int, int) to PLogPParams
        ``inter[(i, j)]``: from cluster ``i`` to cluster ``j`` (``i != j``); a
        missing ``(i, j)`` falls back to ``(j, i)`` (symmetric links).

    Examples
    --------
    >>> g = PLogPParams(L=1e-3, g=Piecewise.linear(0, 1e-8))
    >>> gp = GridParams(clusters=(("a",), ("b",)), intra=(g, g), inter={(0, 1): g})
    >>> gp.pair(1, 0) is g, gp.n
    (True, 2)
    """

    clusters: tuple[tuple[str, ...], ...]
    intra: tuple[PLogPParams, ...]
    inter: Mapping[tuple[int, int], PLogPParams]

    def __post_init__(self):
        object.__setattr__(self, "clusters", tuple(tuple(c) for c in self.clusters))
        object.__setattr__(self, "intra", tuple(self.intra))
        object.__setattr__(self, "inter", dict(self.inter))
        if len(self.intra) != len(self.clusters):
            raise ValueError(f"GridParams has {len(self.intra)} intra-cluster parameter sets for "
                             f"{len(self.clusters)} clusters")

    @property
    def n(self) -> int:
        """Number of clusters.

        Examples
        --------
        >>> GridParams.from_platform(__import__("collsched").topologies.grid_of_clusters([2, 1])).n
        2
        """
        return len(self.clusters)

    def pair(self, i: int, j: int) -> PLogPParams:
        """The parameters from cluster ``i`` to cluster ``j`` (``intra[i]`` when ``i == j``).

        Raises
        ------
        KeyError
            If neither ``(i, j)`` nor ``(j, i)`` is known.

        Examples
        --------
        >>> gp = GridParams.from_platform(__import__("collsched").topologies.grid_of_clusters([2, 1], seed=3))
        >>> gp.pair(0, 1) == gp.pair(1, 0), gp.pair(0, 0) is gp.intra[0]
        (True, True)
        """
        if i == j:
            return self.intra[i]
        if (i, j) in self.inter:
            return self.inter[(i, j)]
        return self.inter[(j, i)]

    def matrices(self, m: float) -> tuple[np.ndarray, np.ndarray]:
        """Inter-cluster latencies ``L[i, j]`` and gaps ``g[i, j](m)`` (diagonal: inside the cluster).

        Examples
        --------
        >>> gp = GridParams.from_platform(__import__("collsched").topologies.grid_of_clusters([2, 2], seed=1))
        >>> L, g = gp.matrices(1e6)
        >>> L.shape, bool(g[0, 1] > g[0, 0])
        ((2, 2), True)
        """
        n = self.n
        L, g = np.zeros((n, n)), np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                p = self.pair(i, j)
                L[i, j], g[i, j] = p.L, float(p.g(m))
        return L, g

    def model(self, **options) -> PLogP:
        """The :class:`~collsched.simulation.models.PLogP` model of these parameters.

        It reads the clusters of the platform it simulates, which must be
        these clusters in this order (see
        :func:`collsched.platform.clustering.with_clusters`).

        Examples
        --------
        >>> gp = GridParams.from_platform(__import__("collsched").topologies.grid_of_clusters([2, 1]))
        >>> len(gp.model().pairs)
        4
        """
        pairs = {(i, j): self.pair(i, j) for i in range(self.n) for j in range(self.n)}
        return PLogP(self.intra[0], pairs=pairs, **options)

    @classmethod
    def from_platform(cls, platform, clusters: Sequence[Sequence[str]] | None = None) -> GridParams:
        """Parameters read off a platform's matrix view, as a measurement would find them.

        Between representatives (each cluster's first host): ``L`` is the
        route latency and ``g(m) = m / B`` with ``B`` the bottleneck bandwidth;
        no overheads. Inside a one-host cluster, ``L = 0`` and ``g = 0``.

        Parameters
        ----------
        platform : Platform
        clusters : sequence of sequences of str, optional
            Default: the platform's own clusters (or one cluster of all hosts).

        Returns
        -------
        GridParams

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.grid_of_clusters([2, 1], intra_bandwidth=1e8, intra_latency=1e-5)
        >>> gp = GridParams.from_platform(p)
        >>> gp.intra[0].L, float(gp.intra[0].g(1e6))
        (2e-05, 0.01)
        """
        clusters = tuple(tuple(c) for c in (clusters or platform.clusters or (platform.hosts,)))

        def measured(a: str, b: str) -> PLogPParams:
            return PLogPParams(L=platform.latency(a, b), g=Piecewise.linear(0.0, 1.0 / platform.bandwidth(a, b)))

        intra = tuple(measured(c[0], c[1]) if len(c) > 1 else PLogPParams(L=0.0, g=0.0) for c in clusters)
        inter = {(i, j): measured(a[0], b[0]) for i, a in enumerate(clusters) for j, b in enumerate(clusters) if i != j}
        return cls(clusters=clusters, intra=intra, inter=inter)


@dataclass(frozen=True)
class Measurement:
    """One pLogP measurement between two representatives, and (once filled) what it found.

    Attributes
    ----------
    src, dst : str
        Hosts.
    sizes : tuple of float
        Message sizes to probe (bytes).
    L : float or None
        Measured latency (s).
    g, o_s, o_r : tuple of float or None
        Measured gap and overheads at each size (s).

    Examples
    --------
    >>> Measurement("a", "b", (1.0, 1e3)).done
    False
    """

    src: str
    dst: str
    sizes: tuple[float, ...]
    L: float | None = None
    g: tuple[float, ...] | None = None
    o_s: tuple[float, ...] | None = None
    o_r: tuple[float, ...] | None = None

    @property
    def done(self) -> bool:
        """Whether ``L`` and ``g`` are filled in.

        Examples
        --------
        >>> Measurement("a", "b", (1.0,), L=1e-5, g=(2e-6,)).done
        True
        """
        return self.L is not None and self.g is not None

    def params(self) -> PLogPParams:
        """The measured pLogP parameters (piecewise linear over :attr:`sizes`).

        Raises
        ------
        ValueError
            If the measurement is not filled in.

        Examples
        --------
        >>> float(Measurement("a", "b", (0.0, 10.0), L=1e-5, g=(0.0, 1.0)).params().g(5))
        0.5
        """
        if not self.done:
            raise ValueError(f"measurement {self.src} -> {self.dst} is not filled in")
        table = lambda v: 0.0 if v is None else Piecewise(self.sizes, v)  # noqa: E731
        return PLogPParams(L=self.L, g=Piecewise(self.sizes, self.g), o_s=table(self.o_s), o_r=table(self.o_r))


@dataclass(frozen=True)
class MeasurementPlan:
    """Seed 003's measurement plan: one representative per cluster, ``C (C - 1) + C`` measurements at most.

    Attributes
    ----------
    clusters : tuple of tuple of str
        The clusters; the first host of each is its representative.
    measurements : tuple of Measurement
        First one inside each cluster of two hosts or more (representative to
        the second host), then one per ordered pair of clusters (per
        unordered pair if ``symmetric``).
    symmetric : bool
        Links are taken as symmetric: ``(j, i)`` reuses ``(i, j)``.

    Examples
    --------
    >>> plan = MeasurementPlan.for_clusters([["a", "b"], ["c", "d"], ["e", "f"]], symmetric=True)
    >>> len(plan.measurements)
    6
    >>> MeasurementPlan.from_json(plan.to_json()) == plan
    True
    """

    clusters: tuple[tuple[str, ...], ...]
    measurements: tuple[Measurement, ...]
    symmetric: bool = False

    @classmethod
    def for_clusters(cls, clusters: Sequence[Sequence[str]], *, sizes: Sequence[float] = DEFAULT_SIZES,
                     symmetric: bool = False) -> MeasurementPlan:
        """The plan for these clusters.

        Parameters
        ----------
        clusters : sequence of sequences of str
        sizes : sequence of float
            Message sizes every measurement probes.
        symmetric : bool
            Measure each pair of clusters once.

        Returns
        -------
        MeasurementPlan

        Examples
        --------
        >>> len(MeasurementPlan.for_clusters([["a", "b"], ["c", "d"], ["e", "f"]]).measurements)  # 3 * 2 + 3
        9
        """
        clusters = tuple(tuple(c) for c in clusters)
        sizes = tuple(float(s) for s in sizes)
        reps = [c[0] for c in clusters]
        out = [Measurement(c[0], c[1], sizes) for c in clusters if len(c) > 1]
        out += [Measurement(reps[i], reps[j], sizes) for i in range(len(reps)) for j in range(len(reps))
                if i != j and (not symmetric or i < j)]
        return cls(clusters, tuple(out), symmetric)

    def filled(self, measure: Callable[[str, str, tuple], tuple]) -> MeasurementPlan:
        """The plan with every measurement filled by ``measure(src, dst, sizes) -> (L, g[, o_s, o_r])``.

        Examples
        --------
        >>> plan = MeasurementPlan.for_clusters([["a"], ["b"]]).filled(lambda s, d, sz: (1e-3, [0.0] * len(sz)))
        >>> all(m.done for m in plan.measurements)
        True
        """
        def fill(m: Measurement) -> Measurement:
            L, g, *over = measure(m.src, m.dst, m.sizes)
            o_s, o_r = (tuple(map(float, o)) if o is not None else None for o in (list(over) + [None, None])[:2])
            return replace(m, L=float(L), g=tuple(map(float, g)), o_s=o_s, o_r=o_r)

        return replace(self, measurements=tuple(fill(m) for m in self.measurements))

    def params(self) -> GridParams:
        """The grid's parameters from the filled measurements.

        Raises
        ------
        ValueError
            If a measurement is not filled in.

        Examples
        --------
        >>> plan = MeasurementPlan.for_clusters([["a"], ["b"]]).filled(lambda s, d, sz: (2e-3, [0.0] * len(sz)))
        >>> plan.params().pair(1, 0).L, plan.params().intra[0].L
        (0.002, 0.0)
        """
        where = {h: k for k, c in enumerate(self.clusters) for h in c}
        intra = [PLogPParams(L=0.0, g=0.0)] * len(self.clusters)
        inter = {}
        for m in self.measurements:
            i, j = where[m.src], where[m.dst]
            if i == j:
                intra[i] = m.params()
            else:
                inter[(i, j)] = m.params()
        return GridParams(self.clusters, tuple(intra), inter)

    def to_json(self) -> str:
        """The plan as JSON text (filled fields included).

        Examples
        --------
        >>> MeasurementPlan.for_clusters([["a"], ["b"]], sizes=[1]).to_json().splitlines()[1]
        ' "format": "collsched-plogp-plan",'
        """
        return json.dumps({"format": _PLAN_FORMAT, "version": 1, "symmetric": self.symmetric,
                           "clusters": [list(c) for c in self.clusters],
                           "measurements": [{k: (list(v) if isinstance(v, tuple) else v)
                                             for k, v in vars(m).items() if v is not None}
                                            for m in self.measurements]}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str, *, where: str = "<plan>") -> MeasurementPlan:
        """Read a plan written by :meth:`to_json`.

        Raises
        ------
        FormatError
            If the text is not such a plan.

        Examples
        --------
        >>> MeasurementPlan.from_json('{"format": "x"}')
        Traceback (most recent call last):
        ...
        collsched.errors.FormatError: <plan>: not a pLogP measurement plan (its format is not 'collsched-plogp-plan')
        """
        try:
            doc = json.loads(text)
            if not isinstance(doc, dict) or doc.get("format") != _PLAN_FORMAT:
                raise FormatError(f"not a pLogP measurement plan (its format is not {_PLAN_FORMAT!r})", where=where)
            tup = lambda v: None if v is None else tuple(float(x) for x in v)  # noqa: E731
            ms = tuple(Measurement(str(m["src"]), str(m["dst"]), tup(m["sizes"]),
                                   None if m.get("L") is None else float(m["L"]),
                                   tup(m.get("g")), tup(m.get("o_s")), tup(m.get("o_r"))) for m in doc["measurements"])
            return cls(tuple(tuple(c) for c in doc["clusters"]), ms, bool(doc.get("symmetric", False)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, FormatError):
                raise
            raise FormatError(f"bad pLogP measurement plan: {exc}", where=where) from None

    def save(self, path) -> None:
        """Write :meth:`to_json` to ``path`` atomically.

        Examples
        --------
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "plan.json")
        >>> MeasurementPlan.for_clusters([["a"], ["b"]]).save(path)
        >>> len(MeasurementPlan.load(path).measurements)
        2
        """
        atomic_write(path, self.to_json())

    @classmethod
    def load(cls, path) -> MeasurementPlan:
        """Read a plan file.

        Examples
        --------
        >>> MeasurementPlan.load("/no/such/plan.json")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        collsched.errors.FormatError: ...
        """
        return cls.from_json(read_text(path), where=str(path))
