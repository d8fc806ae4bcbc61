"""Calibration: measure a network by ping-pong and fill α-β and pLogP parameters from it.

For each measured pair ``(a, b)`` (one after the other, the other ranks
idle) and each message size ``m``, inside one MPI job:

* **one-way time** ``T(m)``: half the round trip of ``m`` bytes ``a → b → a``
  (blocking ``Send``/``Recv``), best of ``repeat`` after one warm-up, or of
  as many as fit in ``time_per_size`` seconds if that is more (other work
  on the machine only adds time: more tries at a short message cost little
  and find an undisturbed one); once ``T(m)`` reaches ``max_time`` seconds
  (from the second size on), the larger sizes are not measured for that pair
  (NaN): a sweep long enough for a fast link takes no longer on a slow one;
* **gap** ``g(m)``: ``a`` sends ``burst`` messages of ``m`` bytes back to back
  (``Isend`` then ``Waitall``), ``b`` answers with one byte once it has them
  all; ``g(m) = (elapsed - 2 T(m_0)) / burst``;
* **send overhead** ``o_s(m)``: how long ``a``'s blocking ``Send`` takes when
  ``b`` has already posted its receive;
* **receive overhead** ``o_r(m)``: how long ``b``'s ``Recv`` takes once the
  message has had time to arrive (``b`` sleeps ``2 T(m)`` first).

From these: latency ``α = T(m_0)`` (the smallest size) and bandwidth
``β = 1 / s`` where ``s`` is the slope of a robust line (Siegel's repeated
medians, :func:`scipy.stats.siegelslopes`) through the ``(m, T(m))`` of the
sizes past the smallest when there are three or more, through both when
there are two (if noise makes it 0 or negative: ``m_k / T(m_k)`` for the
largest size measured), the α-β model of the pair. The smallest message is left out
of the slope because it goes differently: MPI sends it eagerly, while
messages past the eager limit (64 kB for Open MPI's TCP transport) wait for
a handshake, a step in ``T(m)`` that a line through both would read as
bandwidth (0.84 of the rate between 64 and 128 kB on the emulated network).
So, for an accurate β, give sizes past the eager limit and large enough
that scheduling noise is small beside their time (on a loaded machine a
transfer can end a clock tick late, 4 ms at ``HZ=250``, whatever the
repeats); the repeated medians then ignore one size whose every repeat was
disturbed. And
pLogP parameters ``L = T(m_0)``, ``g``, ``o_s``, ``o_r`` as
piecewise-linear functions of the size
(:class:`~collsched.simulation.plogp.PLogPParams`). The overheads include
whatever copying MPI does in the call (for a large message, the transfer
itself under the rendezvous protocol), so they are upper bounds of the CPU
overheads pLogP means.

:meth:`Calibration.platform` turns the measurements into a platform (one
directed link per measured ordered pair) on which a schedule can be planned
for the network as measured.

Examples
--------
>>> import collsched as cs
>>> from collsched.runtime import mpi_available
>>> p = cs.topologies.star(2)
>>> if mpi_available() is None:
...     cal = calibrate(p, sizes=(8, 65536), repeat=3)
...     assert cal.bandwidth[0, 1] > 0 and cal.latency[0, 1] > 0
...     assert cal.platform().bandwidth("h0", "h1") == cal.bandwidth[0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..simulation.plogp import PLogPParams, Piecewise
from .launch import launch

__all__ = ["Calibration", "calibrate", "pingpong_task", "calibration_of", "SIZES", "REPEAT", "BURST", "TIME_PER_SIZE",
           "MAX_TIME"]


#: The defaults of every calibration entry point (:func:`calibrate`, ``collsched calibrate``,
#: :func:`collsched.mpi.calibrate` and ``collsched calibrate --hosts``), one set. Sizes (bytes): the smallest for
#: the latency, the others past Open MPI's 64 kB eager limit for the bandwidth (:attr:`Calibration.bandwidth`), up
#: to 4 MB (80 ms at 50 MB/s); each size best of ``REPEAT`` round trips or of ``TIME_PER_SIZE`` seconds of them,
#: bursts of ``BURST``; a pair stops its sweep once a one-way time reaches ``MAX_TIME`` (0.15 s: 1 MB on a
#: 5 MB/s link).
SIZES = (1000, 131072, 262144, 524288, 1048576, 2097152, 4194304)
REPEAT, BURST, TIME_PER_SIZE, MAX_TIME = 3, 2, 0.25, 0.15


@dataclass(frozen=True, eq=False)
class Calibration:
    """Measured parameters of a network, per ordered pair of hosts.

    Parameters
    ----------
    hosts : tuple of str
    sizes : tuple of int
        Message sizes measured (bytes).
    pairs : tuple of (int, int)
        Measured ordered pairs (host indices); the reverse pair takes the same numbers.
    one_way, gap, send_overhead, recv_overhead : numpy.ndarray
        Seconds, shape ``(len(pairs), len(sizes))``; NaN for the sizes a pair did not measure (``max_time``).

    Examples
    --------
    >>> c = Calibration(("a", "b"), (8, 1008), ((0, 1),), one_way=np.array([[1e-5, 2e-5]]),
    ...                 gap=np.array([[1e-6, 1e-5]]), send_overhead=np.zeros((1, 2)), recv_overhead=np.zeros((1, 2)))
    >>> float(c.latency[1, 0]), round(c.bandwidth[0, 1])
    (1e-05, 100000000)
    >>> c.plogp("a", "b").L
    1e-05
    """

    hosts: tuple[str, ...]
    sizes: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...]
    one_way: np.ndarray
    gap: np.ndarray
    send_overhead: np.ndarray
    recv_overhead: np.ndarray

    def _matrix(self, values) -> np.ndarray:
        n = len(self.hosts)
        out = np.full((n, n), np.nan)
        np.fill_diagonal(out, 0.0)
        for (a, b), x in zip(self.pairs, values):
            out[a, b] = x
            if np.isnan(out[b, a]) or (b, a) not in self.pairs:
                out[b, a] = x
        return out

    @property
    def latency(self) -> np.ndarray:
        """α per ordered pair (seconds; NaN where not measured): the one-way time of the smallest message."""
        return self._matrix(self.one_way[:, 0])

    @property
    def bandwidth(self) -> np.ndarray:
        """β per ordered pair (bytes/s; NaN where not measured): 1 / the slope of ``T(m)`` (repeated medians).

        The line goes through the sizes past the smallest if there are three
        or more, through both sizes otherwise (see the module docstring). If
        timing noise makes the slope 0 or negative (a very fast network
        measured with small sizes), β is the largest size over its one-way time.

        Examples
        --------
        One of the four sizes in the line disturbed (its time doubled) leaves β as it was:

        >>> from dataclasses import replace
        >>> t = np.array([[1e-5, 1e-3, 2e-3, 4e-3, 8e-3]])
        >>> c = Calibration(("a", "b"), (8, 1000, 2000, 4000, 8000), ((0, 1),), one_way=t, gap=np.zeros((1, 5)),
        ...                 send_overhead=np.zeros((1, 5)), recv_overhead=np.zeros((1, 5)))
        >>> round(c.bandwidth[0, 1]), round(replace(c, one_way=t * [1, 1, 2, 1, 1]).bandwidth[0, 1])
        (1000000, 1000000)

        A pair that stopped before the largest size (``max_time``) is fitted on what it measured:

        >>> stopped = replace(c, one_way=t * [1, 1, 1, 1, np.nan])
        >>> round(stopped.bandwidth[0, 1]), stopped.plogp("a", "b").g.sizes
        (1000000, (8.0, 1000.0, 2000.0, 4000.0))
        """
        m = np.asarray(self.sizes, dtype=float)
        return self._matrix([_bandwidth(m[np.isfinite(t)], t[np.isfinite(t)]) for t in self.one_way])

    def plogp(self, a: str, b: str) -> PLogPParams:
        """pLogP parameters of the pair ``(a, b)`` (or ``(b, a)`` if only that one was measured).

        Raises
        ------
        KeyError
            If neither direction was measured.

        Examples
        --------
        See :class:`Calibration`.
        """
        i, j = self.hosts.index(a), self.hosts.index(b)
        k = self.pairs.index((i, j)) if (i, j) in self.pairs else self.pairs.index((j, i))
        done = np.isfinite(self.one_way[k])
        sizes = list(np.asarray(self.sizes)[done])
        return PLogPParams(L=float(self.one_way[k, 0]), g=Piecewise(sizes, np.maximum(self.gap[k][done], 0.0)),
                           o_s=Piecewise(sizes, np.maximum(self.send_overhead[k][done], 0.0)),
                           o_r=Piecewise(sizes, np.maximum(self.recv_overhead[k][done], 0.0)))

    def plogp_model(self, platform):
        """A :class:`~collsched.simulation.models.PLogP` model of ``platform``'s clusters, from the measurements.

        For each ordered pair of clusters (``platform.clusters``), the first
        measured pair of hosts from the one to the other gives its parameters;
        the first measured pair gives the default.

        Parameters
        ----------
        platform : Platform
            The platform measured (its hosts and clusters).

        Returns
        -------
        collsched.simulation.models.PLogP

        Examples
        --------
        >>> import collsched as cs
        >>> p = cs.topologies.two_switches(1)
        >>> c = Calibration(p.hosts, (8, 1008), ((0, 1),), one_way=np.array([[1e-5, 2e-5]]),
        ...                 gap=np.array([[1e-6, 1e-5]]), send_overhead=np.zeros((1, 2)),
        ...                 recv_overhead=np.zeros((1, 2)))
        >>> model = c.plogp_model(p)
        >>> [k for k, _ in model.pairs], model.params.L
        ([(0, 1)], 1e-05)
        """
        from ..simulation.models import PLogP

        cluster = {h: k for k, hosts in enumerate(platform.clusters or ()) for h in hosts}
        pairs = {}
        for a, b in self.pairs:
            key = (cluster.get(self.hosts[a]), cluster.get(self.hosts[b]))
            if None not in key and key not in pairs:
                pairs[key] = self.plogp(self.hosts[a], self.hosts[b])
        first = self.pairs[0]
        return PLogP(self.plogp(self.hosts[first[0]], self.hosts[first[1]]), pairs=pairs)

    def platform(self, *, name: str = "measured"):
        """A platform of the measured hosts with one directed link per measured ordered pair (α, β).

        Returns
        -------
        Platform
            Links ``m-a-b``; a pair measured in one direction only gets the same numbers both ways.

        Examples
        --------
        See the module docstring.
        """
        from ..platform import Link, Node, Platform

        lat, bw = self.latency, self.bandwidth
        n = len(self.hosts)
        links = [Link(f"m-{self.hosts[i]}-{self.hosts[j]}", float(bw[i, j]), float(lat[i, j]),
                      ends=(self.hosts[i], self.hosts[j]), directed=True)
                 for i in range(n) for j in range(n) if i != j and not np.isnan(bw[i, j])]
        return Platform([Node(h) for h in self.hosts], links, name=name)


def _bandwidth(m: np.ndarray, t: np.ndarray) -> float:
    """β of one pair from its sizes ``m`` and one-way times ``t`` (measured ones only): see the module docstring.

    Examples
    --------
    >>> _bandwidth(np.array([8.0, 1e3, 2e3, 4e3]), np.array([1e-5, 1e-3, 2e-3, 4e-3]))
    1000000.0...
    >>> _bandwidth(np.array([8.0, 1e3]), np.array([2e-3, 1e-3]))  # noise: no positive slope
    1000000.0
    """
    from scipy.stats import siegelslopes

    line = slice(1, None) if len(m) >= 3 else slice(None)
    slope = siegelslopes(t[line], m[line]).slope
    return float(1.0 / slope) if slope > 0 else float(m[-1] / t[-1])


def calibrate(platform, *, pairs: Sequence[tuple[str, str]] | None = None,
              sizes: Sequence[int] = SIZES, repeat: int = REPEAT, burst: int = BURST,
              time_per_size: float = TIME_PER_SIZE, max_time: float = MAX_TIME, emulation=None,
              timeout: float = 300.0) -> Calibration:
    """Measure the pairs of ``platform``'s hosts by ping-pong (one MPI job).

    Parameters
    ----------
    platform : Platform
        Its hosts are the ranks.
    pairs : sequence of (str, str), optional
        Ordered pairs to measure; default every unordered pair once (``(a, b)``, ``a`` first in host order).
    sizes : sequence of int
        Message sizes in bytes, increasing, at least two. The defaults of
        this and the next four options are :data:`SIZES`, :data:`REPEAT`,
        :data:`BURST`, :data:`TIME_PER_SIZE` and :data:`MAX_TIME`.
    repeat : int
        Round trips per size (the best is kept).
    burst : int
        Messages per gap measurement.
    time_per_size : float
        Seconds of round trips per size at least (more than ``repeat`` of them if they fit).
    max_time : float
        A pair measures no larger size once a one-way time (from the second size on) reaches this (seconds).
    emulation : Emulation, optional
        Measure the emulated network (:mod:`.emulation`) instead of the local one.
    timeout : float

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        Bad sizes, counts or pairs.
    RunError
        The MPI job failed.

    Examples
    --------
    See the module docstring.
    """
    hosts = tuple(platform.hosts)
    task = pingpong_task(hosts, pairs=pairs, sizes=sizes, repeat=repeat, burst=burst, time_per_size=time_per_size,
                         max_time=max_time, where=platform.name)
    (answer,) = launch(list(hosts), [task], timeout=timeout, emulation=emulation)
    return calibration_of(hosts, task, answer)


def pingpong_task(hosts: Sequence[str], *, pairs=None, sizes: Sequence[int] = SIZES, repeat: int = REPEAT,
                  burst: int = BURST, time_per_size: float = TIME_PER_SIZE, max_time: float = MAX_TIME,
                  where: str = "the job") -> dict:
    """The ping-pong task of a calibration (every rank runs it: :func:`~.pingpong.pingpong_rank`), options checked.

    Parameters
    ----------
    hosts : sequence of str
        The host of each rank.
    pairs, sizes, repeat, burst, time_per_size, max_time
        As for :func:`calibrate`.
    where : str
        What the hosts belong to, for messages.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        Bad sizes, counts or pairs.

    Examples
    --------
    >>> pingpong_task(["a", "b", "c"], sizes=(8, 64))["pairs"]
    [['a', 'b'], ['a', 'c'], ['b', 'c']]
    >>> pingpong_task(["a", "b"], sizes=(64, 8))
    Traceback (most recent call last):
    ...
    ValueError: calibrate option sizes=[64, 8] must be at least two increasing sizes >= 1 byte
    >>> pingpong_task(["a", "b"], time_per_size=-1)
    Traceback (most recent call last):
    ...
    ValueError: calibrate option time_per_size=-1 is not a number of seconds >= 0
    """
    sizes = [int(s) for s in sizes]
    if len(sizes) < 2 or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise ValueError(f"calibrate option sizes={sizes!r} must be at least two increasing sizes >= 1 byte")
    for name, v in (("repeat", repeat), ("burst", burst)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"calibrate option {name}={v!r} is not an integer >= 1")
    for name, v in (("time_per_size", time_per_size), ("max_time", max_time)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
            raise ValueError(f"calibrate option {name}={v!r} is not a number of seconds >= 0")
    hosts = tuple(hosts)
    if pairs is None:
        pairs = [(a, b) for i, a in enumerate(hosts) for b in hosts[i + 1:]]
    for a, b in pairs:
        if a not in hosts or b not in hosts or a == b:
            raise ValueError(f"calibrate pair ({a!r}, {b!r}) is not two distinct hosts of {where!r}")
    return {"kind": "pingpong", "pairs": [[a, b] for a, b in pairs], "sizes": sizes, "repeat": int(repeat),
            "burst": int(burst), "time_per_size": float(time_per_size), "max_time": float(max_time)}


def calibration_of(hosts: Sequence[str], task: dict, answer: dict) -> Calibration:
    """The :class:`Calibration` of a ping-pong task's answer (what rank 0's :func:`~.pingpong.pingpong_rank` returns).

    Examples
    --------
    >>> task = pingpong_task(["a", "b"], sizes=(8, 1008))
    >>> answer = {"one_way": [[1e-5, 2e-5]], "gap": [[0, 0]], "send_overhead": [[0, 0]], "recv_overhead": [[0, 0]]}
    >>> round(calibration_of(["a", "b"], task, answer).bandwidth[0, 1])
    100000000
    """
    hosts = tuple(hosts)
    pairs, sizes = task["pairs"], task["sizes"]
    index = {h: i for i, h in enumerate(hosts)}
    arrays = {k: np.array(answer[k], dtype=float).reshape(len(pairs), len(sizes))
              for k in ("one_way", "gap", "send_overhead", "recv_overhead")}
    return Calibration(hosts, tuple(sizes), tuple((index[a], index[b]) for a, b in pairs), **arrays)
