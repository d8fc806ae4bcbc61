"""collsched.mpi's compiled fast path (crates/py/src/mpi_fast.rs), over mpirun: what it learns, when it must not answer.

After the first call of a shape has found its route in Python
(``calls.own``), a call of that shape on plain arrays is answered by the
compiled path with no Python of collsched's. These tests check that it
answers then (no Python route lookup, results bitwise equal to mpi4py's,
``last_run()`` set), and only then: a different ``plans=`` object,
another communicator, a freed communicator, a size that a plan fits, each
take the Python path and get its answer; the ``FallbackWarning`` is said
once per shape.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mpi_api import launch, rank_main  # noqa: E402

HERE = os.path.abspath(__file__)
pytestmark = pytest.mark.mpi
N = 4


def test_compiled_routes_follow_plans_and_communicators_and_warn_once():
    ranks = launch(N, "routes", "none", script=HERE)
    for r in ranks:
        me = r["rank"]
        # the second call of each shape: answered without calls.own, last_run() set, results MPI's own
        assert r["own_after_first"] == {"bcast": 0, "allreduce": 0, "alltoallv": 0}, me
        assert r["last"] == ["fallback", "fallback", "fallback"], me
        assert r["equal"] == {"bcast": True, "allreduce": True, "alltoallv": True, "split allreduce": True,
                              "alternating": True}, me
        # plans= objects: a route learned for one is not the answer for another; a size a plan fits runs it
        assert r["ran"] == ["fallback", "plan", "fallback", "plan"], me
        assert r["freed"] == "Exception", me
    assert [len(r["warnings"]) for r in ranks] == [3, 0, 0, 0]  # bcast, allreduce, alltoallv: once each, 3 calls


def scenario_routes(comm, _):
    import warnings

    from mpi4py import MPI

    import collsched as cs
    from collsched import mpi as csmpi
    from collsched.mpi import api, calls
    from collsched.mpi.plans import Plan, PlanSet

    n, me = comm.size, comm.rank
    x = np.arange(16, dtype=np.int64) * (me + 1)
    counts = [4] * n
    equal, own_after_first, last, ran = {}, {}, [], []
    real_own = api.own
    counted = []

    def counting_own(*args, **kwargs):
        counted.append(args[2])
        return real_own(*args, **kwargs)

    shapes = {
        "bcast": (lambda: csmpi.bcast(comm, x.copy() if me == 0 else np.zeros_like(x), 0),
                  lambda: _mpi(comm.Bcast, x.copy() if me == 0 else np.zeros_like(x), 0)),
        "allreduce": (lambda: csmpi.allreduce(comm, x, np.empty_like(x), MPI.SUM),
                      lambda: _mpi(comm.Allreduce, x, np.empty_like(x), MPI.SUM)),
        "alltoallv": (lambda: csmpi.alltoallv(comm, x, counts, np.empty_like(x), counts),
                      lambda: _mpi(comm.Alltoallv, [x, counts], [np.empty_like(x), counts])),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kind, (ours, theirs) in shapes.items():
            ours()  # the first call of the shape: the Python path finds the route (and warns)
            ours()
            api.own = counting_own
            calls._LAST[0] = "none"
            try:
                got = ours()
            finally:
                api.own = real_own
            last.append(calls.last_run())
            own_after_first[kind] = len(counted)
            counted.clear()
            equal[kind] = got.tobytes() == theirs().tobytes()
    warned = [str(w.message) for w in caught if issubclass(w.category, csmpi.FallbackWarning)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", csmpi.FallbackWarning)
        # another communicator, then this one again: each call on its own private communicator
        half = comm.Split(me % 2, me)
        got = csmpi.allreduce(half, x, np.empty_like(x), MPI.SUM)
        equal["split allreduce"] = got.tobytes() == _mpi(half.Allreduce, x, np.empty_like(x), MPI.SUM).tobytes()
        same = True
        for k in range(4):
            c = half if k % 2 else comm
            same &= csmpi.allreduce(c, x, np.empty_like(x), MPI.SUM).tobytes() == \
                _mpi(c.Allreduce, x, np.empty_like(x), MPI.SUM).tobytes()
        equal["alternating"] = bool(same)
        # plans= objects: one whose plans do not fit 8 bytes (from 1 MB), one whose bcast plan does
        p = cs.topologies.fully_connected(n)
        c = cs.Broadcast(source="h0", targets=p.hosts, size=8)
        made = Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=10**9)
        large = Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=10**6, high=10**9)
        buf = np.ones(1) if me == 0 else np.zeros(1)
        unfit, fits = PlanSet([large], platform=p), PlanSet([made], platform=p)
        for plans in (unfit, fits, unfit):
            for _ in range(2):  # the second call of the shape is where the compiled path would answer
                csmpi.bcast(comm, buf, 0, plans=plans)
            ran.append(calls.last_run())
        csmpi.bcast(comm, np.ones(1 << 18) if me == 0 else np.zeros(1 << 18), 0, plans=unfit)  # 2 MB: fits
        ran.append(calls.last_run())
        # a freed communicator: refused by MPI, as without the fast path
        dup = comm.Dup()
        csmpi.bcast(dup, buf, 0)
        csmpi.bcast(dup, buf, 0)
        dup.Free()
        try:
            csmpi.bcast(dup, buf, 0)
            freed = "no error"
        except Exception as exc:  # noqa: BLE001 - what MPI raises
            freed = "Exception" if isinstance(exc, (MPI.Exception, csmpi.MPICallError)) else type(exc).__name__
    return {"equal": equal, "own_after_first": own_after_first, "last": last, "ran": ran, "freed": freed,
            "warnings": warned}


def _mpi(method, *args):
    """mpi4py's own collective; its output array (the broadcast buffer, or the receive buffer)."""
    method(*args)
    out = args[0] if method.__name__ == "Bcast" else args[1]
    return out[0] if isinstance(out, list) else out


if __name__ == "__main__":
    rank_main(globals())
