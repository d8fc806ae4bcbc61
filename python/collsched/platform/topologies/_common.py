"""Shared private helpers of the topology generators.

* :class:`Options` validates a generator's options before any work and raises
  :class:`~collsched.errors.PlatformError` with a one-line message naming the
  generator and the option;
* :class:`Spec` is a number or a ``(low, high)`` range, drawn uniformly per
  host or per link; :class:`Matrix` is a per-pair matrix of values;
* :class:`Builder` accumulates hosts, routers and links (drawing heterogeneous
  values from one seeded generator, in creation order) and builds the sealed
  :class:`~collsched.platform.Platform`.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Sequence, Union

import numpy as np

from ...errors import PlatformError, UnitError
from ...units import parse
from ..model import HOST, ROUTER, Link, Node, Platform
from ..routing import Routing

Number = Union[float, int, str]
Value = Union[Number, tuple[Number, Number]]
"""A number (SI, or a string with a unit) or a ``(low, high)`` range drawn uniformly."""
MatrixLike = Union[Sequence[Sequence[Number]], np.ndarray]

MAX_HOSTS = 2**16
"""The most hosts a generator builds (a typo should fail at once, not fill the memory)."""

# which unit dimension, and whether 0 is allowed, for each kind of quantity
_KINDS = {"bandwidth": ("bandwidth", False), "latency": ("time", True), "speed": ("speed", False),
          "length": (None, False), "signal speed": (None, False)}


@dataclass(frozen=True)
class Spec:
    """A value or a uniform range ``[low, high]``."""

    low: float
    high: float

    def draw(self, rng: np.random.Generator) -> float:
        return self.low if self.low == self.high else float(rng.uniform(self.low, self.high))


@dataclass(frozen=True)
class Matrix:
    """An n x n matrix of values (the diagonal is ignored)."""

    values: tuple[tuple[float, ...], ...]

    @property
    def symmetric(self) -> bool:
        n = len(self.values)
        return all(self.values[i][j] == self.values[j][i] for i in range(n) for j in range(i))

    def at(self, i: int, j: int) -> float:
        return self.values[i][j]


def _is_int(x: object) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


class Options:
    """Validators for the options of one generator; each returns the clean value."""

    def __init__(self, generator: str):
        self.generator = generator

    def error(self, option: str, what: str) -> PlatformError:
        return PlatformError(f"{self.generator}: {option} {what}")

    def count(self, option: str, value: object, minimum: int = 1, maximum: int | None = None) -> int:
        if not _is_int(value) or value < minimum or (maximum is not None and value > maximum):
            bound = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"
            raise self.error(option, f"must be an integer {bound}, got {value!r}")
        return int(value)

    def hosts(self, option: str, total: int) -> int:
        """Check the total number of hosts that ``option`` implies."""
        if not 1 <= total <= MAX_HOSTS:
            raise self.error(option, f"gives {total} hosts, expected 1 .. {MAX_HOSTS}")
        return total

    def counts(self, option: str, value: object, length: int, minimum: int = 0) -> list[int]:
        """An int (the same for all ``length`` items) or a sequence of ``length`` ints."""
        if _is_int(value):
            return [self.count(option, value, minimum)] * length
        if not isinstance(value, (Sequence, np.ndarray)) or isinstance(value, str) or len(value) != length:
            raise self.error(option, f"must be an integer or a sequence of {length} integers, got {value!r}")
        return [self.count(f"{option}[{i}]", v, minimum) for i, v in enumerate(value)]

    def sizes(self, option: str, value: object, minimum: int = 1) -> tuple[int, ...]:
        """A non-empty sequence of ints (e.g. torus dimensions, cluster sizes)."""
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) or len(value) == 0:
            raise self.error(option, f"must be a non-empty sequence of integers, got {value!r}")
        return tuple(self.counts(option, value, len(value), minimum))

    def seed(self, value: object) -> int:
        return self.count("seed", value, minimum=0)

    def name(self, value: object, default: str) -> str:
        if value is None:
            return default
        if not isinstance(value, str) or not value:
            raise self.error("name", f"must be a non-empty string, got {value!r}")
        return value

    def choice(self, option: str, value: object, choices: Sequence[str]) -> str:
        if value not in choices:
            raise self.error(option, f"must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value  # type: ignore[return-value]

    def number(self, option: str, value: object, kind: str) -> float:
        dimension, zero_ok = _KINDS[kind]
        if isinstance(value, str) and dimension is not None:
            try:
                value = parse(value, dimension)
            except UnitError as err:
                raise self.error(option, f"is not a {kind}: {err.what}") from None
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value) \
                or value < 0 or (value == 0 and not zero_ok):
            raise self.error(option, f"must be a finite {kind} {'>= 0' if zero_ok else '> 0'}, got {value!r}")
        return float(value)

    def value(self, option: str, value: object, kind: str) -> Spec:
        """A number or a ``(low, high)`` range with ``low <= high``."""
        if isinstance(value, (tuple, list)):
            if len(value) != 2:
                raise self.error(option, f"must be a number or a (low, high) pair, got {value!r}")
            low, high = (self.number(option, v, kind) for v in value)
            if low > high:
                raise self.error(option, f"range ({low!r}, {high!r}) has low > high")
            return Spec(low, high)
        x = self.number(option, value, kind)
        return Spec(x, x)

    def link_values(self, bandwidth: object, latency: object, prefix: str = "",
                    default: tuple[Spec, Spec] | None = None) -> tuple[Spec, Spec]:
        """Options ``{prefix}bandwidth`` and ``{prefix}latency``; None takes the ``default`` pair."""
        if default is not None and bandwidth is None:
            bw = default[0]
        else:
            bw = self.value(f"{prefix}bandwidth", bandwidth, "bandwidth")
        if default is not None and latency is None:
            return bw, default[1]
        return bw, self.value(f"{prefix}latency", latency, "latency")

    def value_or_matrix(self, option: str, value: object, kind: str, n: int) -> Spec | Matrix:
        """A number, a ``(low, high)`` range, or an ``n x n`` matrix (numpy array or nested lists)."""
        if isinstance(value, np.ndarray) and value.ndim != 2:
            value = value.tolist()
        if isinstance(value, np.ndarray) or (isinstance(value, (list, tuple)) and value
                                             and all(isinstance(row, (list, tuple, np.ndarray)) for row in value)):
            rows = [list(row) for row in value]
            if len(rows) != n or any(len(row) != n for row in rows):
                raise self.error(option, f"must be a {n} x {n} matrix, got shape {np.shape(value)}")
            return Matrix(tuple(tuple(0.0 if i == j else self.number(f"{option}[{i}][{j}]", v, kind)
                                      for j, v in enumerate(row)) for i, row in enumerate(rows)))
        return self.value(option, value, kind)


class Builder:
    """Accumulates nodes and links; draws heterogeneous values in creation order."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[Node] = []
        self.links: list[Link] = []
        self.n_hosts = 0

    def draw(self, value: Spec | float) -> float:
        return value.draw(self.rng) if isinstance(value, Spec) else float(value)

    def hosts(self, count: int, speed: Spec | float) -> list[str]:
        """Add ``count`` hosts named ``h{k}`` (numbering continues); return their ids."""
        ids = [f"h{k}" for k in range(self.n_hosts, self.n_hosts + count)]
        self.nodes.extend(Node(h, kind=HOST, speed=self.draw(speed)) for h in ids)
        self.n_hosts += count
        return ids

    def router(self, ident: str) -> str:
        self.nodes.append(Node(ident, kind=ROUTER))
        return ident

    def link(self, ident: str, a: str, b: str, bandwidth: Spec | float, latency: Spec | float,
             *, directed: bool = False, extra_latency: float = 0.0) -> str:
        bw = self.draw(bandwidth)
        self.links.append(Link(ident, bandwidth=bw, latency=self.draw(latency) + extra_latency,
                               ends=(a, b), directed=directed))
        return ident

    def attach(self, hosts: Sequence[str], switch: str, bandwidth: Spec | float, latency: Spec | float) -> None:
        """Join each host ``h{k}`` to ``switch`` by a link ``l{k}`` with ends ``(h{k}, switch)``."""
        for h in hosts:
            self.link(f"l{h[1:]}", h, switch, bandwidth, latency)

    def pairwise(self, ends: Sequence[str], prefix: str, bandwidth: Spec | Matrix, latency: Spec | Matrix) -> None:
        """One link per pair of ``ends`` (``{prefix}{i}-{j}``, i < j); if a matrix is not
        symmetric, one directed link per ordered pair instead."""
        directed = any(isinstance(m, Matrix) and not m.symmetric for m in (bandwidth, latency))
        n = len(ends)
        for i in range(n):
            for j in range(n) if directed else range(i + 1, n):
                if i != j:
                    self.link(f"{prefix}{i}-{j}", ends[i], ends[j],
                              bandwidth.at(i, j) if isinstance(bandwidth, Matrix) else bandwidth,
                              latency.at(i, j) if isinstance(latency, Matrix) else latency, directed=directed)

    def build(self, routing: Routing | None, name: str, clusters: Sequence[Sequence[str]] | None = None) -> Platform:
        return Platform(self.nodes, self.links, routing, name=name, clusters=clusters)
