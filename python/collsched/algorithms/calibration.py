"""Cost models of the registered algorithms: how long a comparison spends on each, as the collective grows.

:class:`Cost` is the model (``seconds = coefficient * n ** exponent *
count``); :data:`COSTS` holds the calibrated one of each algorithm, fitted by
``benchmarks/bench_scale_calibrate.py`` on measured comparisons (fat trees
of 32, 64 and 128 hosts, the algorithm's first collective kind, 1 MB
messages). The runs were made on a 2-core machine loaded by other jobs
(load average 10-15), so the estimates are pessimistic on an idle one; an
algorithm registered with ``cost=`` keeps its own.

Examples
--------
>>> from collsched.collectives import AllToAll
>>> c = AllToAll(senders=[f"h{i}" for i in range(256)])
>>> 1 < COSTS["caterpillar"].seconds(c) < 1000
True
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Cost", "COSTS", "OP_SECONDS"]


@dataclass(frozen=True)
class Cost:
    """How long an algorithm's candidate takes in a comparison, as a function of the collective's size.

    ``seconds = coefficient * n ** exponent * count``, with ``n`` the number of
    hosts the collective involves and ``count`` its number of instances: the
    wall time of planning, lowering, validating and simulating it (what
    :func:`collsched.compare.compare` spends on it), fitted on measured runs.

    Attributes
    ----------
    coefficient : float
        Seconds at ``n = 1`` (> 0).
    exponent : float
        Growth with the number of hosts (>= 0).
    measured : str
        Where the fit comes from (runs, machine), for the record.

    Examples
    --------
    >>> from collsched.collectives import AllToAll
    >>> cost = Cost(1e-6, 3.0)
    >>> round(cost.seconds(AllToAll(senders=[f"h{i}" for i in range(100)])), 6)
    1.0
    >>> Cost(0.0, 2.0)
    Traceback (most recent call last):
    ...
    ValueError: cost coefficient 0.0 must be a finite number > 0
    """

    coefficient: float
    exponent: float
    measured: str = ""

    def __post_init__(self):
        if not (isinstance(self.coefficient, (int, float)) and 0 < self.coefficient < float("inf")):
            raise ValueError(f"cost coefficient {self.coefficient!r} must be a finite number > 0")
        if not (isinstance(self.exponent, (int, float)) and 0 <= self.exponent < float("inf")):
            raise ValueError(f"cost exponent {self.exponent!r} must be a finite number >= 0")

    def seconds(self, collective) -> float:
        """The estimated wall time (s) of one candidate for ``collective``.

        Parameters
        ----------
        collective : Collective
            Any collective, or a series of one.

        Returns
        -------
        float

        Examples
        --------
        >>> from collsched.collectives import Scatter, Series
        >>> c = Scatter(source="h0", targets=["h1", "h2", "h3"], size=8)
        >>> Cost(0.5, 1.0).seconds(c), Cost(0.5, 1.0).seconds(Series(c, count=10))
        (2.0, 20.0)
        """
        return self.coefficient * len(collective.hosts) ** self.exponent * collective.count


_RUNS = "2026-11-24, fat tree, all-to-all of 1 MB unless said, loaded 2-core machine"

#: The calibrated cost model of each algorithm (seconds of planning, lowering, validating and simulating).
COSTS: dict[str, Cost] = {
    "ac": Cost(0.000868, 1.99, f"{_RUNS}: 32: 0.92 s, 64: 3.12 s, 128: 14.61 s"),
    "binomial": Cost(0.000637, 1.36, f"{_RUNS}: reduce, 32: 0.08 s, 64: 0.15 s, 128: 0.53 s"),
    "caterpillar": Cost(5.08e-05, 1.87, "2026-11-24, fat tree, all-to-all of 1 MB, steps as columns and modes "
                        "ruled out by their floors, 2-core machine at load 11.4: 32: 0.04 s, 64: 0.09 s, 128: 0.45 s, "
                        "256: 1.72 s"),
    "direct": Cost(0.0302, 1.57, f"{_RUNS}: allgather, 32: 5.63 s, 64: 30.32 s, 128: 49.35 s"),
    "double_binary_tree": Cost(0.00697, 1.81, f"{_RUNS}: allreduce, 32: 3.11 s, 64: 17.48 s, 128: 38.03 s"),
    "ecef": Cost(0.00418, 1.03, f"{_RUNS}: broadcast, 32: 0.12 s, 64: 0.46 s, 128: 0.50 s"),
    "ecef_la": Cost(0.000585, 1.45, f"{_RUNS}: broadcast, 32: 0.10 s, 64: 0.20 s, 128: 0.75 s"),
    "ecef_lat": Cost(0.00152, 1.20, f"{_RUNS}: broadcast, 32: 0.10 s, 64: 0.22 s, 128: 0.53 s"),
    "ecef_lat_max": Cost(0.000688, 1.41, f"{_RUNS}: broadcast, 32: 0.10 s, 64: 0.21 s, 128: 0.71 s"),
    "fef": Cost(0.000714, 1.40, f"{_RUNS}: broadcast, 32: 0.10 s, 64: 0.21 s, 128: 0.70 s"),
    "flat_tree": Cost(0.00338, 1.00, f"{_RUNS}: broadcast, 32: 0.11 s, 64: 0.21 s, 128: 0.44 s"),
    "forest": Cost(0.566, 1.08, f"{_RUNS}: allgather, 32: 22.57 s, 64: 58.97 s, 128: 101.36 s"),
    "greedy": Cost(3.45e-05, 2.26, f"{_RUNS}: 32: 0.08 s, 64: 0.48 s, 128: 1.83 s"),
    "halving_doubling": Cost(0.00014, 2.69, f"{_RUNS}: reducescatter, 32: 1.73 s, 64: 7.87 s, 128: 71.56 s"),
    "hierarchical": Cost(0.00485, 2.01, f"{_RUNS}: allgather, 32: 4.84 s, 64: 22.81 s, 128: 78.28 s"),
    "linear": Cost(0.0022, 1.24, f"{_RUNS}: scatter, 32: 0.17 s, 64: 0.35 s, 128: 0.95 s"),
    "liquid": Cost(0.000253, 2.38, f"{_RUNS}: 32: 0.97 s, 64: 4.82 s, 128: 26.18 s"),
    "lp": Cost(0.000386, 2.12, f"{_RUNS}: 32: 0.59 s, 64: 2.79 s, 128: 11.20 s"),
    "matching": Cost(0.00037, 2.10, f"{_RUNS}: 32: 0.49 s, 64: 2.62 s, 128: 8.95 s"),
    "open_shop": Cost(1.97e-05, 2.52, f"{_RUNS}: 32: 0.13 s, 64: 0.59 s, 128: 4.25 s"),
    "open_shop_preemptive": Cost(5.06e-05, 2.17, "2026-11-25, fat tree, all-to-all of 1 MB, split messages lowered "
                                 "column-wise, 2-core machine at load 15.7 to 16.6, after a warm-up run: 32: 0.11 s, "
                                 "64: 0.37 s, 128: 1.81 s, 256: 9.35 s"),
    "orspb": Cost(8.51e-05, 2.19, f"{_RUNS}: 32: 0.18 s, 64: 0.69 s, 128: 3.76 s"),
    "random": Cost(0.000139, 2.10, f"{_RUNS}: 32: 0.22 s, 64: 0.74 s, 128: 4.06 s"),
    "random_steps": Cost(0.000176, 2.25, f"{_RUNS}: 32: 0.44 s, 64: 2.00 s, 128: 9.99 s"),
    "recursive_doubling": Cost(0.00102, 2.39, f"{_RUNS}: allgather, 32: 3.98 s, 64: 21.43 s, 128: 109.23 s"),
    "ring": Cost(0.00718, 2.05, f"{_RUNS}: allgather, 32: 8.54 s, 64: 37.64 s, 128: 146.26 s"),
    "round_robin": Cost(0.000789, 2.01, f"{_RUNS}: 32: 0.95 s, 64: 2.54 s, 128: 15.36 s"),
    "rs_n": Cost(0.000291, 2.30, f"{_RUNS}: 32: 0.80 s, 64: 4.51 s, 128: 19.34 s"),
    "rs_nl": Cost(0.000157, 2.63, f"{_RUNS}: 32: 1.54 s, 64: 7.76 s, 128: 59.25 s"),
    "rs_nlh": Cost(0.00042, 2.44, f"{_RUNS}: 32: 2.16 s, 64: 8.69 s, 128: 63.32 s"),
    "rs_nlp": Cost(0.000382, 2.48, f"{_RUNS}: 32: 2.11 s, 64: 10.74 s, 128: 65.48 s"),
    "rs_nlph": Cost(9.49e-05, 2.58, f"{_RUNS}: 32: 0.77 s, 64: 4.00 s, 128: 27.66 s"),
    "rs_np": Cost(0.000398, 2.09, f"{_RUNS}: 32: 0.53 s, 64: 2.72 s, 128: 9.65 s"),
    "rspb": Cost(8.25e-05, 2.20, f"{_RUNS}: 32: 0.18 s, 64: 0.67 s, 128: 3.79 s"),
}

#: Seconds per operation of lowering, validating and simulating a program (what a synchronisation mode costs).
OP_SECONDS = 3e-6
