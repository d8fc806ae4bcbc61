"""Comparisons shared by the report tests: real planned, validated and simulated schedules on small platforms."""

import dataclasses

import pytest

import collsched as cs
from collsched.compare import Candidate, compare


@pytest.fixture(scope="session")
def star():
    return cs.topologies.star(4, bandwidth=1e6, latency=1e-4)


@pytest.fixture(scope="session")
def scatter_cmp(star):
    """One instance, ranked by makespan."""
    return compare(star, cs.Scatter(source="h0", targets=star.hosts, size=1e6), model=cs.models.OnePort())


@pytest.fixture(scope="session")
def series_cmp(star):
    """A series, ranked by throughput."""
    c = cs.Series(cs.Gather(sources=star.hosts, target="h1", size=1e5), count=3)
    return compare(star, c, model=cs.models.OnePort(), algorithms=["binomial", "linear"])


@pytest.fixture(scope="session")
def with_failure(scatter_cmp):
    """The scatter comparison plus a candidate that failed, with markup in its name and message."""
    bad = Candidate("bad<alg>", "tests", None, None, None, None, 0.01, 0.0,
                    "planning: <script>alert('x')</script> & more")
    return dataclasses.replace(scatter_cmp, candidates=scatter_cmp.candidates + (bad,))


@pytest.fixture(scope="session")
def all_failed(scatter_cmp):
    bad = Candidate("nothing", "tests", None, None, None, None, 0.0, 0.0, "simulation: deadlock")
    return dataclasses.replace(scatter_cmp, candidates=(bad,))
