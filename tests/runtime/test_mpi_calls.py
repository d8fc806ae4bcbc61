"""collsched.mpi's public calls are compiled functions (crates/py/src/mpi_calls.rs) around the Python ones.

In this process: each is a builtin function with the Python
implementation's name, module, signature and docstring, and a call whose
arguments do not bind raises exactly what the Python function raises.
Over mpirun (4 ranks): a call of a learned shape on plain arrays runs no
Python of collsched's, whether its arguments come by position or by
keyword (the hit path); a call the fast path does not answer (a
non-contiguous array, ``MPI.IN_PLACE``, a callable ``op``, a plan that
fits, a bad root, a wrong receive buffer) runs the Python function with the
same arguments (the miss path) and gets its result, its error or its
warning; every result is bitwise equal to mpi4py's own collective on the
same data.
"""

from __future__ import annotations

import inspect
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_mpi_api import launch, rank_main  # noqa: E402

HERE = os.path.abspath(__file__)
N = 4
NAMES = ("bcast", "scatter", "gather", "allgather", "alltoall", "alltoallv", "reduce", "allreduce")


def test_each_call_is_a_compiled_function_with_the_python_ones_signature_and_docstring():
    from collsched import mpi as csmpi
    from collsched.mpi import api

    for name in NAMES:
        compiled, python = getattr(csmpi, name), api._PYTHON[name]
        assert compiled is getattr(api, name), name
        assert inspect.isbuiltin(compiled) and not inspect.isfunction(compiled), name
        assert (compiled.__name__, compiled.__module__) == (name, "collsched.mpi.api")
        assert compiled.__doc__ == python.__doc__, name
        assert "\n    Examples\n    --------\n" in compiled.__doc__, name
        ours = inspect.signature(compiled)
        theirs = inspect.signature(python)
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name
    assert repr(csmpi.bcast) == "<built-in function bcast>"


def test_arguments_that_do_not_bind_raise_what_the_python_function_raises():
    from collsched import mpi as csmpi
    from collsched.mpi import api

    cases = [("bcast", (1, 2, 3, 4), {}), ("bcast", (1, 2), {"plan": 1}), ("bcast", (1, 2), {"comm": 1}),
             ("reduce", (1,), {}), ("alltoallv", (1, 2, 3, 4), {"rdispls": None}),
             ("allreduce", (1, 2, 3, 4, 5), {})]
    for name, args, kwargs in cases:
        with pytest.raises(TypeError) as ours:
            getattr(csmpi, name)(*args, **kwargs)
        with pytest.raises(TypeError) as theirs:
            api._PYTHON[name](*args, **kwargs)
        assert str(ours.value) == str(theirs.value), (name, args, kwargs)


def test_a_call_is_compiled_once():
    from collsched._core import _mpi_call
    from collsched.mpi import api

    with pytest.raises(ValueError, match="compiled once"):
        _mpi_call("bcast", api._PYTHON["bcast"], api._FAST, "bcast(comm)\n--\n\n", "x")
    with pytest.raises(ValueError, match='no compiled collsched.mpi call "sum"'):
        _mpi_call("sum", sum, api._FAST, "sum()\n--\n\n", "x")


@pytest.mark.mpi
def test_hits_run_no_python_and_misses_run_the_python_function_with_the_same_arguments():
    ranks = launch(N, "calls", "none", script=HERE)
    for r in ranks:
        me = r["rank"]
        assert r["hits"] == {k: 0 for k in r["hits"]}, me  # no Python function of collsched.mpi ran
        assert len(r["hits"]) == 17, me
        assert all(r["equal"].values()) and len(r["equal"]) == 17 + 8, (me, r["equal"])
        assert all(r["same_object"].values()), me
        # the miss path: the Python function ran, with the arguments given, and gave MPI's own result
        # (a shape is kind, root and size in bytes: another dtype of a learned size is a hit, and moves as bytes)
        assert r["misses"].pop("complex64 scatter") == 0, me
        assert all(n > 0 for n in r["misses"].values()) and len(r["misses"]) == 7, (me, r["misses"])
        assert r["plan_ran"] == "plan", me
        # errors: the compiled call's, then the Python function's, on the same arguments
        errors = r["errors"]
        assert errors["bad root"] == [f"rank {me}: broadcast: root=7 is not a rank of the communicator (0 .. 3)"] * 2
        assert errors["recvbuf of another dtype"] == [f"rank {me}: allreduce: recvbuf ((16,) float32) is not shaped "
                                                      f"like sendbuf ((16,) float64)"] * 2
        ours, theirs = errors["an op that raises"]  # raised where MPI's own reduce applied the operator
        raised = f"rank {me}: reduce: the operator _boom raised ZeroDivisionError: boom"
        assert ours == theirs and ours in ("no error", raised) and (me != 0 or ours == raised), me
    # each FallbackWarning once (per kind, root and size bucket), on rank 0 only
    assert [len(r["warnings"]) for r in ranks] == [r["expected_warnings"] for r in ranks]
    assert ranks[0]["expected_warnings"] >= 8 and len(set(ranks[0]["warnings"])) == len(ranks[0]["warnings"])


def scenario_calls(comm, _):
    import warnings

    from mpi4py import MPI

    import collsched as cs
    from collsched import mpi as csmpi
    from collsched.mpi import api, calls
    from collsched.mpi.plans import Plan, PlanSet

    n, me = comm.size, comm.rank
    here = os.path.dirname(os.path.abspath(csmpi.__file__))
    ran: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(here):
            ran.append(frame.f_code.co_name)

    def count(fn):
        """How many Python functions of collsched.mpi ``fn()`` ran; its result."""
        ran.clear()
        sys.setprofile(profile)
        try:
            out = fn()
        finally:
            sys.setprofile(None)
        return len(ran), out

    rng = np.random.default_rng(me)
    x = rng.integers(-1000, 1000, 16).astype(np.float64)
    whole = np.tile(x[:4], n)
    counts = [4] * n

    def fresh(a):
        return np.zeros_like(a)

    # (ours, mpi4py's own), each returning the output array; ours called with positions and keywords
    bx = x.copy() if me == 0 else np.zeros_like(x)
    shapes = {
        "bcast": (lambda o: csmpi.bcast(comm, o, 0), lambda o: comm.Bcast(o, 0), lambda: bx.copy()),
        "bcast default root": (lambda o: csmpi.bcast(comm, o), lambda o: comm.Bcast(o, 0), lambda: bx.copy()),
        "bcast keywords": (lambda o: csmpi.bcast(buf=o, comm=comm, plans=None, root=0), lambda o: comm.Bcast(o, 0),
                           lambda: bx.copy()),
        "scatter": (lambda o: csmpi.scatter(comm, whole, o, 0), lambda o: comm.Scatter(whole, o, 0),
                    lambda: np.zeros(4)),
        "scatter keywords": (lambda o: csmpi.scatter(comm, sendbuf=whole, recvbuf=o, root=0),
                             lambda o: comm.Scatter(whole, o, 0), lambda: np.zeros(4)),
        "gather": (lambda o: csmpi.gather(comm, x[:4].copy(), o, 0), lambda o: comm.Gather(x[:4].copy(), o, 0),
                   lambda: np.zeros(4 * n)),
        "gather keywords": (lambda o: csmpi.gather(comm, x[:4].copy(), recvbuf=o, root=0, plans=None),
                            lambda o: comm.Gather(x[:4].copy(), o, 0), lambda: np.zeros(4 * n)),
        "allgather": (lambda o: csmpi.allgather(comm, x[:4].copy(), o), lambda o: comm.Allgather(x[:4].copy(), o),
                      lambda: np.zeros(4 * n)),
        "allgather keywords": (lambda o: csmpi.allgather(comm, recvbuf=o, sendbuf=x[:4].copy()),
                               lambda o: comm.Allgather(x[:4].copy(), o), lambda: np.zeros(4 * n)),
        "alltoall": (lambda o: csmpi.alltoall(comm, whole, o), lambda o: comm.Alltoall(whole, o),
                     lambda: fresh(whole)),
        "alltoallv": (lambda o: csmpi.alltoallv(comm, whole, counts, o, counts),
                      lambda o: comm.Alltoallv([whole, counts], [o, counts]), lambda: fresh(whole)),
        "alltoallv keywords": (lambda o: csmpi.alltoallv(comm, whole, counts, o, recvcounts=counts, sdispls=None,
                                                          rdispls=None),
                               lambda o: comm.Alltoallv([whole, counts], [o, counts]), lambda: fresh(whole)),
        "reduce": (lambda o: csmpi.reduce(comm, x, o, MPI.SUM, 0), lambda o: comm.Reduce(x, o, MPI.SUM, 0),
                   lambda: fresh(x)),
        "reduce keywords": (lambda o: csmpi.reduce(comm, x, o, op=MPI.MAX, root=0, commute=False),
                            lambda o: comm.Reduce(x, o, MPI.MAX, 0), lambda: fresh(x)),
        "allreduce": (lambda o: csmpi.allreduce(comm, x, o, MPI.SUM), lambda o: comm.Allreduce(x, o, MPI.SUM),
                      lambda: fresh(x)),
        "allreduce default op": (lambda o: csmpi.allreduce(comm, x, o), lambda o: comm.Allreduce(x, o, MPI.SUM),
                                 lambda: fresh(x)),
        "allreduce keywords": (lambda o: csmpi.allreduce(comm, sendbuf=x, recvbuf=o, op=MPI.PROD, plans=None),
                               lambda o: comm.Allreduce(x, o, MPI.PROD), lambda: fresh(x)),
    }
    hits, equal, same_object, misses, errors = {}, {}, {}, {}, {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for name, (ours, theirs, make) in shapes.items():
            ours(make())  # the first call of the shape: the Python function finds the route
            out = make()
            hits[name], got = count(lambda: ours(out))
            same_object[name] = got is out
            expected = make()
            theirs(expected)
            equal[name] = out.tobytes() == expected.tobytes()
        # misses: what the fast path leaves to the Python function, which must give MPI's own result
        def strided(a):
            room = np.zeros((a.size, 2), a.dtype)
            room[:, 0] = a
            return room[:, 0]  # a view with a stride of two elements

        def inplace():
            out = x.copy()
            return csmpi.allreduce(comm, MPI.IN_PLACE, out)

        w32, b4 = whole.astype(np.int32), x[:4]
        cases = {
            "non-contiguous bcast": (lambda: csmpi.bcast(comm, strided(bx), 0), comm.Bcast, lambda: (bx.copy(), 0)),
            "in-place allreduce": (inplace, comm.Allreduce, lambda: (x, fresh(x), MPI.SUM)),
            "callable op allreduce": (lambda: csmpi.allreduce(comm, x, fresh(x), np.add, commute=True),
                                      comm.Allreduce, lambda: (x, fresh(x), MPI.SUM)),
            "non-contiguous allgather": (lambda: csmpi.allgather(comm, strided(b4), fresh(whole)), comm.Allgather,
                                         lambda: (b4.copy(), fresh(whole))),
            "int32 alltoall": (lambda: csmpi.alltoall(comm, w32, fresh(w32)), comm.Alltoall, lambda: (w32, fresh(w32))),
            "complex64 scatter": (lambda: csmpi.scatter(comm, whole.astype(np.complex64), np.zeros(4, np.complex64)),
                                  comm.Scatter, lambda: (whole.astype(np.complex64), np.zeros(4, np.complex64), 0)),
            "float32 reduce": (lambda: csmpi.reduce(comm, x.astype(np.float32), fresh(x).astype(np.float32)),
                               comm.Reduce, lambda: (x.astype(np.float32), fresh(x).astype(np.float32), MPI.SUM, 0)),
            "int16 gather": (lambda: csmpi.gather(comm, b4.astype(np.int16), np.zeros(4 * n, np.int16)), comm.Gather,
                             lambda: (b4.astype(np.int16), np.zeros(4 * n, np.int16), 0)),
        }
        for name, (ours, method, args) in cases.items():
            misses[name], got = count(ours)
            given = args()
            method(*given)
            want = given[0] if method == comm.Bcast else given[1]
            rooted = name in ("float32 reduce", "int16 gather")
            equal[name] = (rooted and me != 0) or got.tobytes() == want.tobytes()
        # a plan that fits, its plans= given by keyword: the Python function runs it
        p = cs.topologies.fully_connected(n)
        c = cs.Broadcast(source="h0", targets=p.hosts, size=8)
        fits = PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm="binomial"), low=1, high=10**9)], platform=p)
        buf = np.ones(1) if me == 0 else np.zeros(1)
        csmpi.bcast(comm, buf, 0, plans=fits)
        csmpi.bcast(comm, buf, root=0, plans=fits)
        plan_ran = calls.last_run()
        # errors: the Python function's, on the miss path, after the shape was learned
        y = np.zeros(16)
        csmpi.allreduce(comm, x, y, MPI.SUM)
        python = api._PYTHON
        for name, call, args in (("bad root", "bcast", lambda: (comm, y, 7)),
                                 ("recvbuf of another dtype", "allreduce", lambda: (comm, x, np.zeros(16, np.float32))),
                                 ("an op that raises", "reduce", lambda: (comm, x, fresh(x), _boom, 0))):
            errors[name] = [_error(lambda: f(*args())) for f in (getattr(csmpi, call), python[call])]
    warned = [str(w.message) for w in caught if issubclass(w.category, csmpi.FallbackWarning)]
    # rank 0 warns once per kind, root and size bucket where MPI's own runs; count those this scenario met
    expected = len(calls._WARNED) if me == 0 else 0
    return {"hits": hits, "equal": equal, "same_object": same_object, "misses": misses, "plan_ran": plan_ran,
            "errors": errors, "warnings": warned, "expected_warnings": expected}


def _error(fn) -> str:
    from collsched import mpi as csmpi

    try:
        fn()
        return "no error"
    except csmpi.MPICallError as exc:
        return str(exc)


def _boom(a, b):
    raise ZeroDivisionError("boom")


if __name__ == "__main__":
    rank_main(globals())
