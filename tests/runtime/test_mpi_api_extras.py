"""collsched.mpi over mpirun: ``MPI.IN_PLACE``, ``alltoallv`` with uneven blocks, non-contiguous arrays, and the
thin path (no plan fits: MPI's own collective with no agreement of collsched's own).

Every result is compared bitwise with mpi4py's own collective on the same
data (integer values, so that reductions are exact in any order), with and
without ``plans=``. The jobs are launched as in ``test_mpi_api.py``, under
its timeout.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import collsched as cs
from collsched.mpi.plans import Plan, PlanSet

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mpi_api import launch, make_plans, rank_main  # noqa: E402

HERE = os.path.abspath(__file__)
pytestmark = pytest.mark.mpi
N = 4
CHECKS = ("allreduce in place", "reduce in place", "allgather in place", "gather in place", "scatter in place",
          "alltoall in place", "alltoallv", "alltoallv default displacements", "allreduce strided",
          "reduce callable strided", "bcast strided", "gather strided", "scatter fortran", "allgather strided",
          "alltoall strided")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    path = tmp_path_factory.mktemp("plans-extras")
    make_plans(N).save(path / "plans")
    # plans from 1 MB up only: smaller calls find no plan and take the thin path
    p = cs.topologies.fully_connected(N)
    plans = []
    for c, algorithm in ((cs.Broadcast(source="h0", targets=p.hosts, size=1e6), "binomial"),
                         (cs.AllReduce(participants=p.hosts, size=1e6), "ring"),
                         (cs.AllReduce(participants=p.hosts, size=1e6, commutative=False), "direct")):
        plans.append(Plan.of(p, c, cs.plan(p, c, algorithm=algorithm), low=10**6, high=10**9))
    PlanSet(plans, platform=p).save(path / "plans-large")
    return str(path / "plans"), str(path / "plans-large")


@pytest.mark.parametrize("which", ["none", "plans"])
def test_in_place_alltoallv_and_strided_arrays_equal_mpis_own(folders, which):
    ranks = launch(N, "extras", folders[0] if which == "plans" else "none", script=HERE)
    for r in ranks:
        assert r["equal"] == {name: True for name in CHECKS}, r["rank"]


def test_no_plan_fits_mpis_own_runs_with_no_agreement(folders):
    ranks = launch(N, "thin", folders[1], script=HERE)
    for r in ranks:
        # what each call did on the private communicator, in order
        assert r["calls"] == {"bcast 8 B": ["Bcast"], "allreduce SUM 800 B": ["Allreduce"],
                              "allreduce callable 800 B": ["Allreduce", "Allreduce"],
                              "bcast 2 MB": ["Allreduce", "Allreduce"]}, r["rank"]
        assert r["ran"] == ["fallback", "fallback", "fallback", "plan"]
        assert r["equal"] is True
        assert r["error"] == "rank 1: allreduce: the operator fails_at_1 raised ZeroDivisionError: at 1"
        assert r["bad"] == f"rank {r['rank']}: alltoallv: sendcounts has 3 counts and 3 " \
                           f"displacements; the communicator has {N} ranks"
    # bcast 8 B and allreduce 800 B (once), bcast without plans=; each pointing at the line that called collsched.mpi
    assert [len(r["warnings"]) for r in ranks] == [3] + [0] * (N - 1)
    assert ranks[0]["where"] == ["test_mpi_api_extras.py"]


def test_plain_arrays_take_the_fast_path_and_persistent_calls_are_mpis_own(folders):
    ranks = launch(N, "fast", f"{folders[0]},{folders[1]}", script=HERE)
    for r in ranks:
        assert r["equal"] == {f"{kind} {which}": True for which in ("none", "unfit", "persistent none",
                                                                     "persistent unfit")
                              for kind in FAST}, r["rank"]
        # after the first call of each shape: no general path, no route lookup in Python (the compiled path answers);
        # a strided array takes the general path
        assert r["general"] == {"none": 0, "unfit": 0, "strided": True}, r["rank"]
        assert r["bound"] == {"none": FAST_MPI, "unfit": FAST_MPI, "plan": ["bcast", "allreduce"],
                              "callable": ["allreduce"], "strided": ["bcast"]}, r["rank"]


# --- the ranks ------------------------------------------------------------------------------------------

def scenario_extras(comm, folder):
    from mpi4py import MPI

    from collsched import mpi as csmpi

    plans = None if folder == "none" else folder
    n, me = comm.size, comm.rank
    rng = np.random.default_rng(5 + me)
    x = rng.integers(-1000, 1000, 300)
    equal = {}

    def same(name, got, want):
        equal[name] = got is None and want is None or got.tobytes() == want.tobytes()

    # MPI.IN_PLACE, as mpi4py accepts it
    got, want = x.copy(), x.copy()
    csmpi.allreduce(comm, MPI.IN_PLACE, got, MPI.SUM, plans=plans)
    comm.Allreduce(MPI.IN_PLACE, want, op=MPI.SUM)
    same("allreduce in place", got, want)
    root = 2
    got, want = x.copy(), x.copy()
    csmpi.reduce(comm, MPI.IN_PLACE if me == root else x, got if me == root else None, MPI.SUM, root, plans=plans)
    comm.Reduce(MPI.IN_PLACE if me == root else x, want if me == root else None, op=MPI.SUM, root=root)
    same("reduce in place", got if me == root else None, want if me == root else None)
    block = rng.integers(0, 255, 40).astype(np.uint8)
    got, want = np.zeros(40 * n, np.uint8), np.zeros(40 * n, np.uint8)
    got[40 * me:40 * me + 40] = want[40 * me:40 * me + 40] = block
    csmpi.allgather(comm, MPI.IN_PLACE, got, plans=plans)
    comm.Allgather(MPI.IN_PLACE, want)
    same("allgather in place", got, want)
    root = 3
    got, want = (np.full(40 * n, 7, np.uint8), np.full(40 * n, 7, np.uint8)) if me == root else (None, None)
    if me == root:
        got[40 * root:40 * root + 40] = want[40 * root:40 * root + 40] = block
    csmpi.gather(comm, MPI.IN_PLACE if me == root else block, got, root, plans=plans)
    comm.Gather(MPI.IN_PLACE if me == root else block, want, root=root)
    same("gather in place", got, want)
    root = 1
    send = np.arange(10 * n, dtype=np.int32) * (me + 1) if me == root else None
    got, want = np.zeros(10, np.int32), np.zeros(10, np.int32)
    csmpi.scatter(comm, send, MPI.IN_PLACE if me == root else got, root, plans=plans)
    comm.Scatter(send, MPI.IN_PLACE if me == root else want, root=root)
    same("scatter in place", got, want)  # the root's recvbuf is untouched, as MPI's
    send = rng.integers(0, 1 << 30, 8 * n)
    got, want = send.copy(), send.copy()
    csmpi.alltoall(comm, MPI.IN_PLACE, got, plans=plans)
    comm.Alltoall(MPI.IN_PLACE, want)
    same("alltoall in place", got, want)
    # alltoallv: uneven counts, gaps between blocks, untouched elements keep their value
    counts = [(me + j) % 3 + j for j in range(n)]             # what rank me sends to j
    rcounts = [(i + me) % 3 + me for i in range(n)]           # what rank me receives from i
    sdispls = list(np.cumsum([0] + [c + 1 for c in counts[:-1]]))
    rdispls = list(np.cumsum([0] + [c + 2 for c in rcounts[:-1]]))
    send = rng.standard_normal(sdispls[-1] + counts[-1])
    got, want = np.full(rdispls[-1] + rcounts[-1] + 3, -1.0), np.full(rdispls[-1] + rcounts[-1] + 3, -1.0)
    csmpi.alltoallv(comm, send, counts, got, rcounts, sdispls=sdispls, rdispls=rdispls, plans=plans)
    comm.Alltoallv([send, (counts, sdispls), MPI.DOUBLE], [want, (rcounts, rdispls), MPI.DOUBLE])
    same("alltoallv", got, want)
    send = rng.integers(0, 100, sum(counts)).astype(np.int16)
    got, want = np.zeros(sum(rcounts), np.int16), np.zeros(sum(rcounts), np.int16)
    csmpi.alltoallv(comm, send, counts, got, rcounts, plans=plans)
    comm.Alltoallv([send, counts], [want, rcounts])
    same("alltoallv default displacements", got, want)
    # non-contiguous arrays: results written through the user's views, compared with MPI's own on copies
    wide = rng.integers(-1000, 1000, (50, 8))
    out = np.zeros((50, 8), dtype=np.int64)
    csmpi.allreduce(comm, wide[:, ::2], out[:, 1::2], MPI.SUM, plans=plans)
    want = np.empty((50, 4), dtype=np.int64)
    comm.Allreduce(np.ascontiguousarray(wide[:, ::2]), want, op=MPI.SUM)
    same("allreduce strided", out[:, 1::2].copy(), want)
    equal["allreduce strided"] &= not out[:, ::2].any()  # the other columns untouched
    got = np.zeros((50, 4), dtype=np.int64, order="F") if me == 0 else None
    csmpi.reduce(comm, wide[:, 1::2], got, np.add, 0, plans=plans)
    want = np.empty((50, 4), dtype=np.int64) if me == 0 else None
    comm.Reduce(np.ascontiguousarray(wide[:, 1::2]), want, op=MPI.SUM, root=0)
    same("reduce callable strided", None if got is None else np.ascontiguousarray(got), want)
    buf = wide.copy() if me == 1 else np.zeros((50, 8), dtype=np.int64)
    want = np.ascontiguousarray(buf[::3, ::2])
    csmpi.bcast(comm, buf[::3, ::2], 1, plans=plans)
    comm.Bcast(want, 1)
    same("bcast strided", np.ascontiguousarray(buf[::3, ::2]), want)
    equal["bcast strided"] &= me == 1 or not buf[1::3].any()
    got = np.zeros((2 * n, 50), dtype=np.int64) if me == 0 else None
    want = np.empty((n, 50), dtype=np.int64) if me == 0 else None
    csmpi.gather(comm, wide[:, 3], None if got is None else got[::2], 0, plans=plans)
    comm.Gather(np.ascontiguousarray(wide[:, 3]), want, root=0)
    same("gather strided", None if got is None else got[::2].copy(), want)
    send = np.asfortranarray(rng.integers(0, 9, (n, 6))) if me == 0 else None
    got, want = np.zeros(6, dtype=np.int64), np.zeros(6, dtype=np.int64)
    csmpi.scatter(comm, send, got, 0, plans=plans)
    comm.Scatter(None if send is None else np.ascontiguousarray(send), want, root=0)
    same("scatter fortran", got, want)
    got = np.zeros((n, 100), dtype=np.int64).T
    want = np.empty(n * 50, dtype=np.int64)
    csmpi.allgather(comm, x[::6], got[::2], plans=plans)
    comm.Allgather(np.ascontiguousarray(x[::6]), want)
    same("allgather strided", got[::2].copy(), want.reshape(50, n))
    send = np.zeros(16 * n, dtype=np.int64)
    send[::2] = rng.integers(0, 99, 8 * n)
    got, want = np.zeros(8 * n, dtype=np.int64), np.zeros(8 * n, dtype=np.int64)
    csmpi.alltoall(comm, send[::2], got, plans=plans)
    comm.Alltoall(np.ascontiguousarray(send[::2]), want)
    same("alltoall strided", got, want)
    return {"equal": equal}


COLLECTIVES = {"Barrier", "Bcast", "Reduce", "Allreduce", "Allgather", "Gather", "Scatter", "Alltoall", "Alltoallv",
               "bcast", "allgather", "allreduce"}


class _Recorder:
    """Stands in for the private communicator: records the name of each collective called on it."""

    def __init__(self, comm, names):
        self._comm, self._names = comm, names

    def __getattr__(self, name):
        attr = getattr(self._comm, name)
        if name in COLLECTIVES:
            def recorded(*args, **kwargs):
                self._names.append(name)
                return attr(*args, **kwargs)
            return recorded
        return attr


def scenario_thin(comm, folder):
    import warnings

    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi.calls import last_run, private

    n, me = comm.size, comm.rank
    ctx = private(comm)
    real = ctx.comm
    calls, ran = {}, []
    x = np.arange(100, dtype=np.int64) * (me + 1)
    summed = np.empty_like(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, fn in (("bcast 8 B", lambda: csmpi.bcast(comm, np.ones(1), 0, plans=folder)),
                         ("allreduce SUM 800 B", lambda: csmpi.allreduce(comm, x, np.empty_like(x), MPI.SUM,
                                                                        plans=folder)),
                         ("allreduce callable 800 B", lambda: csmpi.allreduce(comm, x, summed, np.add,
                                                                             plans=folder)),
                         ("bcast 2 MB", lambda: csmpi.bcast(comm, np.ones(1 << 18), 0, plans=folder))):
            calls[name] = []
            ctx.comm = _Recorder(real, calls[name])
            try:
                fn()
            finally:
                ctx.comm = real
            ran.append(last_run())
        equal = bool(np.array_equal(summed, np.arange(100) * n * (n + 1) // 2))  # the callable's allreduce

        def fails_at_1(a, b):
            if me == 1:
                raise ZeroDivisionError("at 1")
            return a + b

        error = None
        try:
            csmpi.allreduce(comm, x, np.empty_like(x), fails_at_1, plans=folder)
        except csmpi.MPICallError as exc:
            error = str(exc)
        csmpi.bcast(comm, np.ones(1), 0)  # without plans=: its own warning
        bad = None
        try:  # no alltoallv plan exists: the bad input raises on its own rank, before any communication
            csmpi.alltoallv(comm, np.zeros(3), [1, 1, 1], np.zeros(3), [1, 1, 1], plans=folder)
        except csmpi.MPICallError as exc:
            bad = str(exc)
    return {"calls": calls, "ran": ran, "equal": equal, "error": error, "bad": bad,
            "warnings": [str(w.message) for w in caught if issubclass(w.category, csmpi.FallbackWarning)],
            "where": sorted({os.path.basename(w.filename) for w in caught
                             if issubclass(w.category, csmpi.FallbackWarning)})}



FAST = ("bcast", "scatter", "gather", "allgather", "alltoall", "reduce", "allreduce")
FAST_MPI = ["Bcast", "Scatter", "Gather", "Allgather", "Alltoall", "Reduce", "Allreduce"]


def scenario_fast(comm, folder):
    """Plain arrays, no plans= and plans none of which fits: MPI's own at once, bitwise; persistent calls bound."""
    import warnings

    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi import api, calls

    planned, unfit = folder.split(",")
    n, me = comm.size, comm.rank
    rng = np.random.default_rng(11 + me)
    x = rng.integers(-1000, 1000, 64)
    ctx = calls.private(comm)
    equal, general, bound = {}, {}, {}

    def calls_of(kind, plans, x):
        """(collsched.mpi's call, mpi4py's own on the same data); each returns the output array."""
        at0 = me == 0
        return {
            "bcast": (lambda: csmpi.bcast(comm, x.copy(), 0, plans=plans), lambda: _own(comm.Bcast, x.copy(), 0)),
            "scatter": (lambda: csmpi.scatter(comm, np.tile(x, n) if at0 else None, np.empty_like(x), 0, plans=plans),
                        lambda: _own(comm.Scatter, np.tile(x, n) if at0 else None, np.empty_like(x), 0)),
            "gather": (lambda: csmpi.gather(comm, x, np.empty(n * x.size, x.dtype) if at0 else None, 0, plans=plans),
                       lambda: _own(comm.Gather, x, np.empty(n * x.size, x.dtype) if at0 else None, 0)),
            "allgather": (lambda: csmpi.allgather(comm, x, np.empty(n * x.size, x.dtype), plans=plans),
                          lambda: _own(comm.Allgather, x, np.empty(n * x.size, x.dtype))),
            "alltoall": (lambda: csmpi.alltoall(comm, x, np.empty_like(x), plans=plans),
                         lambda: _own(comm.Alltoall, x, np.empty_like(x))),
            "reduce": (lambda: csmpi.reduce(comm, x, np.empty_like(x) if at0 else None, MPI.SUM, 0, plans=plans),
                       lambda: _own(comm.Reduce, x, np.empty_like(x) if at0 else None, MPI.SUM, 0)),
            "allreduce": (lambda: csmpi.allreduce(comm, x, np.empty_like(x), MPI.SUM, plans=plans),
                          lambda: _own(comm.Allreduce, x, np.empty_like(x), MPI.SUM)),
        }[kind]

    counted = []
    real = api._copy, api._reduction, calls._route, api.own

    def counting(fn):
        def counted_fn(*args, **kwargs):
            counted.append(fn.__name__)
            return fn(*args, **kwargs)
        return counted_fn

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", csmpi.FallbackWarning)
        for which, plans in (("none", None), ("unfit", unfit)):
            for kind in FAST:
                calls_of(kind, plans, x)[0]()  # the first call of this shape finds its path
            api._copy, api._reduction, calls._route, api.own = (counting(f) for f in real)
            counted.clear()
            try:
                for kind in FAST:
                    ours, theirs = calls_of(kind, plans, x)
                    got, want = ours(), theirs()
                    equal[f"{kind} {which}"] = got is None and want is None or got.tobytes() == want.tobytes()
                general[which] = len(counted)
                counted.clear()
                csmpi.bcast(comm, np.zeros(128, np.int64)[::2], 0, plans=plans)  # a strided array
                general["strided"] = len(counted) > 0
            finally:
                api._copy, api._reduction, calls._route, api.own = real
        # persistent calls: the private communicator's own method where MPI's own runs; started twice, new data
        out = np.empty_like(x)
        for which, plans in (("none", None), ("unfit", unfit)):
            names = []
            for kind in FAST:
                buf = x.copy()
                send = np.tile(buf, n) if kind == "scatter" and me == 0 else buf
                recv = {"bcast": None, "scatter": np.empty_like(x), "gather": np.empty(n * x.size, x.dtype),
                        "allgather": np.empty(n * x.size, x.dtype), "alltoall": np.empty_like(x),
                        "reduce": np.empty_like(x), "allreduce": np.empty_like(x)}[kind]
                fn = getattr(csmpi, kind)
                args = {"bcast": (buf, 0), "scatter": (send, recv, 0), "gather": (send, recv, 0),
                        "allgather": (send, recv), "alltoall": (send, recv), "reduce": (send, recv, MPI.SUM, 0),
                        "allreduce": (send, recv, MPI.SUM)}[kind]
                start = csmpi.persistent(fn, comm, *args, plans=plans)
                names.append(getattr(start.func, "__name__", None) if getattr(start.func, "__self__", None)
                             is ctx.comm else "not bound")
                ok = True
                for step in range(2):
                    fresh = rng.integers(-1000, 1000, 64) * (step + 1)
                    buf[...] = fresh
                    if kind == "scatter" and me == 0:
                        send[...] = np.tile(fresh, n)
                    start()
                    want = calls_of(kind, None, fresh)[1]()
                    got = buf if kind == "bcast" else recv
                    ok &= kind in ("reduce", "gather") and me != 0 or got.tobytes() == want.tobytes()
                equal[f"{kind} persistent {which}"] = bool(ok)
            bound[which] = names
        # where a plan fits, a callable op, a strided array: the call itself, bound
        big = np.ones(2000)
        bound["plan"] = [csmpi.persistent(csmpi.bcast, comm, big, 1, plans=planned).func.__name__,
                         csmpi.persistent(csmpi.allreduce, comm, big, np.empty(2000), MPI.SUM,
                                          plans=planned).func.__name__]
        bound["callable"] = [csmpi.persistent(csmpi.allreduce, comm, x, out, np.add).func.__name__]
        bound["strided"] = [csmpi.persistent(csmpi.bcast, comm, big[::2], 0).func.__name__]
    return {"equal": equal, "general": general, "bound": bound}


def _own(method, *args):
    """mpi4py's own collective; its output array (the last array argument, or the broadcast buffer)."""
    method(*args)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    return arrays[0] if method.__name__ == "Bcast" else args[1]


if __name__ == "__main__":
    rank_main(globals())
