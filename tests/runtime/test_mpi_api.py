"""collsched.mpi on the user's own arrays, over mpirun: every kind, dtype and operator against mpi4py's own collective.

The test process plans (two algorithms per kind, in two size buckets, on a
fully connected platform and on a star), writes the plans into a folder,
and launches ``mpirun`` on this very file: each rank runs the scenario named
on its command line (the functions ``scenario_*`` below) and prints one JSON
line. Random sizes and contents are seeded. The job runs under a timeout,
so a hang fails the test instead of blocking it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import collsched as cs
from collsched.mpi.plans import Plan, PlanSet

HERE = os.path.abspath(__file__)
PRIME = 2_147_483_647

# (kind, collective maker, algorithm for small sizes, algorithm for large ones); sizes split at 1000 bytes
KINDS = [
    ("broadcast", lambda H: cs.Broadcast(source=H[1], targets=H, size=1e5), "binomial", "ecef"),
    ("broadcast", lambda H: cs.Series(cs.Broadcast(source=H[0], targets=H, size=1e5), count=1), "linear",
     "steady_state"),
    ("reduce", lambda H: cs.Reduce(participants=H, target=H[2], size=1e5), "linear", "binomial"),
    ("reduce", lambda H: cs.Series(cs.Reduce(participants=H, target=H[0], size=1e5), count=1), "binomial",
     "steady_state"),
    ("reduce", lambda H: cs.Reduce(participants=H[1:] + H[:1], target=H[2], size=1e5), "binomial", "linear"),
    ("allreduce", lambda H: cs.AllReduce(participants=H, size=1e5), "halving_doubling", "ring"),
    ("allreduce", lambda H: cs.AllReduce(participants=H, size=1e5, commutative=False), "direct", "double_binary_tree"),
    ("scatter", lambda H: cs.Series(cs.Scatter(source=H[1], targets=H, size=1e5), count=1), "binomial",
     "steady_state"),
    ("gather", lambda H: cs.Gather(sources=H, target=H[3], size=1e5), "linear", "binomial"),
    ("allgather", lambda H: cs.AllGather(participants=H, size=1e5), "recursive_doubling", "ring"),
    ("allgather", lambda H: cs.Series(cs.AllGather(participants=H, size=1e5), count=1), "direct", "steady_state"),
    ("alltoall", lambda H: cs.AllToAll(senders=H, size=1e5), "caterpillar", "open_shop_preemptive"),
]


def make_plans(n: int) -> PlanSet:
    p = cs.topologies.fully_connected(n)
    plans = []
    for _, make, small, large in KINDS:
        c = make(list(p.hosts))
        for algorithm, low, high in ((small, 1, 999), (large, 1000, 10**9)):
            plans.append(Plan.of(p, c, cs.plan(p, c, algorithm=algorithm), low=low, high=high))
    return PlanSet(plans, platform=p)


def launch(n: int, scenario: str, folder: str, timeout: float = 90.0, script: str = HERE) -> list[dict]:
    """Run ``scenario`` (a function ``scenario_*`` of ``script``) on ``n`` ranks; the JSON line of every rank, by rank."""
    from collsched.runtime.launch import mpirun_command

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out_dir = tempfile.mkdtemp(prefix="collsched-mpi-api-")
    cmd = mpirun_command(n, [sys.executable, script, scenario, folder, out_dir])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True,
                            text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"scenario {scenario} on {n} ranks hung (more than {timeout} s)")
    assert proc.returncode == 0, err[-3000:]
    ranks = []
    for r in range(n):
        with open(os.path.join(out_dir, f"rank-{r}.json"), encoding="utf-8") as f:
            ranks.append(json.load(f))
    shutil.rmtree(out_dir)
    return ranks


# --- the test process ---------------------------------------------------------------------------------

pytestmark = pytest.mark.mpi


@pytest.fixture(scope="module", params=[4, 6])
def folder(request, tmp_path_factory):
    path = tmp_path_factory.mktemp(f"plans{request.param}")
    n = request.param
    make_plans(n).save(path / "plans")
    # for the bad-input cases: plans for 3 ranks; a folder with a plan file from another platform
    small = cs.topologies.fully_connected(3)
    c = cs.AllGather(participants=small.hosts, size=8)
    PlanSet([Plan.of(small, c, cs.plan(small, c, algorithm="ring"), low=1, high=10**9)]).save(path / "plans-small")
    mine, other = cs.topologies.fully_connected(n), cs.topologies.fully_connected(3)
    plans = []
    for q in (mine, other):
        c = cs.Broadcast(source="h0", targets=q.hosts, size=8)
        plans.append(Plan.of(q, c, cs.plan(q, c, algorithm="binomial"), low=1, high=10**9))
    name = PlanSet(plans[:1]).save(path / "plans-mixed")[0]
    (path / "plans-mixed" / name).write_text(json.dumps(plans[1].to_dict()))
    return n, str(path / "plans")


def test_every_kind_dtype_and_operator_equals_mpi(folder):
    n, path = folder
    ranks = launch(n, "kinds", path)
    print(f"{n} ranks: {ranks[0]['seconds']:.2f} s")
    for r in ranks:
        assert r["failures"] == [], (r["rank"], r["failures"][:5])
        assert r["checks"] > (250 if n == 4 else 50)
    # a fallback says so once, on rank 0 only
    assert [r["warnings"] for r in ranks] == [["collsched.mpi: broadcast of 800 bytes on %d ranks from root 0: "
                                               "no plans= given; MPI's own collective runs" % n]] + [[]] * (n - 1)


def test_bad_input_raises_one_error_on_every_rank(folder):
    n, path = folder
    ranks = launch(n, "errors", path)
    cases = ranks[0]["errors"]
    for r in ranks:
        assert r["errors"] == cases  # the same exception text on every rank
        assert r["after"] is True    # and the next call works
    assert cases["size"] == ("rank 2: broadcast: its buffer gives 808 bytes where rank 0's buffer gives 800 bytes "
                             "(give every rank buffers of the same size)")
    assert cases["dtype"] == ("rank 1: allreduce: its dtype is float32 where rank 0's dtype is float64 "
                              "(give every rank arrays of the same dtype)")
    assert cases["shape"] == ("rank 0: reduce: recvbuf ((50,) int64) is not shaped like sendbuf ((100,) int64)")
    assert cases["not an array"] == "rank 1: gather: sendbuf is a list, not a numpy array"
    assert cases["op at the root"] == "rank 0: reduce: the operator fails_at_0 raised ZeroDivisionError: boom"
    assert cases["op inside"].startswith("rank ") and "the operator fails_inside raised ZeroDivisionError: inside" in \
        cases["op inside"]
    assert cases["communicator size"] == (
        f"rank 0: allgather: the allgather plans of {path}-small are for communicators of 3 ranks; this one has {n} "
        "(plan the collective for this communicator (collsched plan-suite))")
    assert cases["platform"].startswith(f"rank 0: broadcast: plan file {path}-mixed/") and \
        "was made on platform 'fully-connected-3'" in cases["platform"]


def test_without_plans_mpis_own_runs_bitwise_and_warns_once(folder):
    n, path = folder
    ranks = launch(n, "delegated", path)
    for r in ranks:
        assert r["equal"] == {k: True for k in ("allreduce", "bcast", "reduce", "allgather", "alltoall", "gather",
                                                 "scatter", "reduce by callable")}, r["rank"]
        assert r["ran"] == ["fallback"]
        # a bad input raises on its own rank before any communication (here every rank's input is bad)
        assert r["bad"] == f"rank {r['rank']}: gather: sendbuf is a list, not a numpy array"
        assert r["after"] is True
    # the warning once per kind, root and size bucket, on rank 0 only: the same call twice warns once, and the
    # two reduces (1600 bytes from root 0) share one warning: 7 of the 8 calls warn
    assert [len(r["warnings"]) for r in ranks] == [7] + [0] * (n - 1)
    assert ranks[0]["warnings"][0] == f"collsched.mpi: allreduce of 1600 bytes on {n} ranks: no plans= given; " \
                                      "MPI's own collective runs"


# --- the ranks ------------------------------------------------------------------------------------------

def _fold(parts, f):
    out = parts[0]
    for x in parts[1:]:
        out = f(out, x)
    return out


def matmul_mod(a, b):
    """Products of stacks of 2×2 matrices modulo a prime: a non-commutative operator."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.int64)
    for i in range(2):
        for j in range(2):
            out[..., i, j] = (a[..., i, 0] * b[..., 0, j] % PRIME + a[..., i, 1] * b[..., 1, j] % PRIME) % PRIME
    return out


def _values(rng, dtype, shape):
    if np.dtype(dtype).kind == "c":
        return (rng.integers(-50, 50, shape) + 1j * rng.integers(-50, 50, shape)).astype(dtype)
    if np.dtype(dtype).kind == "f":
        return rng.integers(-1000, 1000, shape).astype(dtype) / 4  # exact in binary: sums are exact in any order
    return rng.integers(-1000, 1000, shape).astype(dtype)


def scenario_kinds(comm, folder):
    import warnings

    from mpi4py import MPI

    from collsched import mpi as csmpi

    n, me = comm.size, comm.rank
    rng = np.random.default_rng(1234)  # the same sizes on every rank
    mine = np.random.default_rng(99 + me)  # this rank's contents
    failures, checks = [], 0
    sizes = [1, 7, 999, 1000, 20000] if n == 4 else [7, 1000]  # both buckets, below and above every denominator
    sizes += list(rng.integers(2, 30000, 2 if n == 4 else 1))
    dtypes = (np.int32, np.int64, np.float64, np.complex128, np.uint8) if n == 4 else (np.int64, np.complex128)

    def check(name, got, want, exact=True):
        nonlocal checks
        checks += 1
        same = np.array_equal(got, want) if exact else np.allclose(got, want, rtol=1e-12, atol=0)
        if not same:
            failures.append(name)

    for count in sizes:
        count = int(count)
        for dtype in dtypes:
            tag = f"{count} {np.dtype(dtype).name}"
            for root in (0, 1):  # the roots planned (another root falls back to MPI's own, with a warning)
                ref = _values(rng, dtype, count)
                buf = ref.copy() if me == root else np.zeros(count, dtype)
                csmpi.bcast(comm, buf, root, plans=folder)
                check(f"bcast {tag} root {root}", buf, ref)
            block = _values(mine, dtype, count)
            got, want = np.empty(n * count, dtype), np.empty(n * count, dtype)
            csmpi.allgather(comm, block, got, plans=folder)
            comm.Allgather(block, want)
            check(f"allgather {tag}", got, want)
            root = 1
            send = _values(mine, dtype, n * count) if me == root else None
            got, want = np.empty(count, dtype), np.empty(count, dtype)
            csmpi.scatter(comm, send, got, root, plans=folder)
            comm.Scatter(send, want, root=root)
            check(f"scatter {tag} root {root}", got, want)
            for root in (3,):
                got = np.empty(n * count, dtype) if me == root else None
                want = np.empty(n * count, dtype) if me == root else None
                csmpi.gather(comm, block, got, root, plans=folder)
                comm.Gather(block, want, root=root)
                if me == root:
                    check(f"gather {tag} root {root}", got, want)
            send = _values(mine, dtype, n * count)
            got, want = np.empty_like(send), np.empty_like(send)
            csmpi.alltoall(comm, send, got, plans=folder)
            comm.Alltoall(send, want)
            check(f"alltoall {tag}", got, want)
            # Open MPI's SUM of uint8 saturates (its op/avx component), so that its result depends on the order
            ops = [MPI.PROD] + ([MPI.SUM] if dtype != np.uint8 else []) + \
                ([MPI.MIN, MPI.MAX] if np.dtype(dtype).kind != "c" else [])
            for op in ops:
                x = _values(mine, dtype, count) if op is not MPI.PROD else (mine.integers(1, 3, count)).astype(dtype)
                got, want = np.empty_like(x), np.empty_like(x)
                csmpi.allreduce(comm, x, got, op, plans=folder)
                comm.Allreduce(x, want, op=op)
                check(f"allreduce {tag} {op}", got, want)
                for root in (0, 2):
                    got = np.empty_like(x) if me == root else None
                    want = np.empty_like(x) if me == root else None
                    csmpi.reduce(comm, x, got, op, root, plans=folder)
                    comm.Reduce(x, want, op=op, root=root)
                    if me == root:
                        check(f"reduce {tag} {op} root {root}", got, want)
        # non-commutative: products of 2×2 matrices modulo a prime, in rank order; and a commutative callable
        mats = mine.integers(0, PRIME, (max(1, count // 32), 2, 2)).astype(np.int64)
        fold = _fold(comm.allgather(mats), matmul_mod)
        mpi_op = MPI.Op.Create(lambda a, b, t: _matmul_into(a, b), commute=False)
        row = MPI.INT64_T.Create_contiguous(4).Commit()
        want = np.empty_like(mats)
        comm.Allreduce([mats, mats.shape[0], row], [want, mats.shape[0], row], op=mpi_op)
        mpi_op.Free()
        row.Free()
        check(f"mpi4py's own non-commutative allreduce {count}", want, fold)
        got = np.empty_like(mats)
        csmpi.allreduce(comm, mats, got, matmul_mod, plans=folder)
        check(f"allreduce matmul {count}", got, fold)
        for root in (0, 2):
            got = np.empty_like(mats) if me == root else None
            csmpi.reduce(comm, mats, got, matmul_mod, root, plans=folder)
            if me == root:
                check(f"reduce matmul {count} root {root}", got, fold)
        x = mine.random(count)
        got, want = np.empty_like(x), np.empty_like(x)
        csmpi.allreduce(comm, x, got, np.add, commute=True, plans=folder)
        comm.Allreduce(x, want, op=MPI.SUM)
        check(f"allreduce np.add random float64 {count}", got, want, exact=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            buf = np.arange(100, dtype=np.float64) if me == 0 else np.zeros(100)
            csmpi.bcast(comm, buf, 0)
            if not np.array_equal(buf, np.arange(100, dtype=np.float64)):
                failures.append("fallback bcast")
    return {"failures": failures, "checks": checks, "warnings": [str(w.message) for w in caught]}


def _matmul_into(inbuf, inoutbuf):
    a = np.frombuffer(inbuf, dtype=np.int64).reshape(-1, 2, 2)
    b = np.frombuffer(inoutbuf, dtype=np.int64).reshape(-1, 2, 2)
    b[...] = matmul_mod(a, b)


def scenario_errors(comm, folder):
    from mpi4py import MPI

    from collsched import mpi as csmpi

    n, me = comm.size, comm.rank
    errors = {}

    def attempt(name, fn):
        try:
            fn()
            errors[name] = None
        except csmpi.MPICallError as exc:
            errors[name] = str(exc)

    attempt("size", lambda: csmpi.bcast(comm, np.zeros(101 if me == 2 else 100), 0, plans=folder))
    wide = np.float32 if me == 1 else np.float64  # 20 float32 or 10 float64: the same bytes
    attempt("dtype", lambda: csmpi.allreduce(comm, np.ones(80 // np.dtype(wide).itemsize, wide),
                                             np.empty(80 // np.dtype(wide).itemsize, wide), plans=folder))
    attempt("shape", lambda: csmpi.reduce(comm, np.ones(100, np.int64), np.empty(50, np.int64), MPI.SUM, 0,
                                          plans=folder))
    # a gather to root 3 has a plan: the ranks agree before it, so rank 3's bad input raises everywhere (where no
    # plan fits, MPI's own runs with no agreement and a bad input raises on its own rank: test_mpi_api_extras.py)
    listed = [0.0] * 100 if me == 1 else np.zeros(100)
    attempt("not an array", lambda: csmpi.gather(comm, listed, np.empty(100 * n) if me == 3 else None, 3,
                                                 plans=folder))

    def fails_at_0(a, b):
        if me == 0:
            raise ZeroDivisionError("boom")
        return matmul_mod(a, b)

    def fails_inside(a, b):
        if me != 0:
            raise ZeroDivisionError("inside")
        return matmul_mod(a, b)

    mats = np.ones((1000, 2, 2), dtype=np.int64)
    attempt("op at the root", lambda: csmpi.reduce(comm, mats, np.empty_like(mats), fails_at_0, 0, plans=folder))
    attempt("op inside", lambda: csmpi.allreduce(comm, mats, np.empty_like(mats), fails_inside, plans=folder))
    attempt("communicator size", lambda: csmpi.allgather(comm, np.ones(10), np.empty(10 * n), plans=folder + "-small"))
    attempt("platform", lambda: csmpi.bcast(comm, np.ones(10), 0, plans=folder + "-mixed"))
    buf = np.arange(5000.0) if me == 0 else np.zeros(5000)
    csmpi.bcast(comm, buf, 0, plans=folder)
    return {"errors": errors, "after": bool(np.array_equal(buf, np.arange(5000.0)))}


def scenario_delegated(comm, folder):
    """Every kind without plans= against mpi4py's own, bitwise (each call twice: one warning)."""
    import warnings

    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi.calls import last_run

    n, me = comm.size, comm.rank
    x = np.random.default_rng(7 + me).standard_normal(200)
    xi = (x * 1000).astype(np.int64)  # a callable's order may differ from MPI.SUM's: exact sums compare bitwise
    at0 = me == 0
    ours = {
        "allreduce": lambda: csmpi.allreduce(comm, x, np.empty_like(x), MPI.SUM),
        "bcast": lambda: csmpi.bcast(comm, x.copy(), 0),
        "reduce": lambda: csmpi.reduce(comm, x, np.empty_like(x) if at0 else None, MPI.SUM, 0),
        "allgather": lambda: csmpi.allgather(comm, x, np.empty(n * x.size)),
        "alltoall": lambda: csmpi.alltoall(comm, x[: 8 * n], np.empty(8 * n)),
        "gather": lambda: csmpi.gather(comm, x, np.empty(n * x.size) if at0 else None, 0),
        "scatter": lambda: csmpi.scatter(comm, np.tile(x, n) if at0 else None, np.empty_like(x), 0),
        "reduce by callable": lambda: csmpi.reduce(comm, xi, np.empty_like(xi) if at0 else None, np.add, 0),
    }

    def theirs(kind):
        if kind == "allreduce":
            out = np.empty_like(x)
            comm.Allreduce(x, out, op=MPI.SUM)
        elif kind == "bcast":
            out = x.copy()
            comm.Bcast(out, 0)
        elif kind in ("reduce", "reduce by callable"):
            y = x if kind == "reduce" else xi
            out = np.empty_like(y) if at0 else None
            comm.Reduce(y, out, op=MPI.SUM, root=0)
        elif kind == "allgather":
            out = np.empty(n * x.size)
            comm.Allgather(x, out)
        elif kind == "alltoall":
            out = np.empty(8 * n)
            comm.Alltoall(x[: 8 * n].copy(), out)
        elif kind == "gather":
            out = np.empty(n * x.size) if at0 else None
            comm.Gather(x, out, root=0)
        else:
            out = np.empty_like(x)
            comm.Scatter(np.tile(x, n) if at0 else None, out, root=0)
        return out

    equal, ran = {}, set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for kind, fn in ours.items():
            got = [fn(), fn()][0]
            ran.add(last_run())
            want = theirs(kind)
            equal[kind] = got is None and want is None or got.tobytes() == want.tobytes()
    bad = None
    try:
        csmpi.gather(comm, [0.0] * 100, np.empty(100 * n) if at0 else None, 0)
    except csmpi.MPICallError as exc:
        bad = str(exc)
    buf = np.arange(50.0) if at0 else np.zeros(50)
    csmpi.bcast(comm, buf, 0)
    return {"equal": equal, "ran": sorted(ran), "bad": bad, "after": bool(np.array_equal(buf, np.arange(50.0))),
            "warnings": [str(w.message) for w in caught if issubclass(w.category, csmpi.FallbackWarning)]}


def scenario_suite(comm, folder):
    """The calls of test_plan_suite's suite on round-robin ranks; which ran a plan and which MPI's own."""
    from mpi4py import MPI

    from collsched import mpi as csmpi
    from collsched.mpi.calls import last_run

    me, failures, checks, ran = comm.rank, [], 0, {}
    rng = np.random.default_rng(7 + me)

    def check(name, got, want):
        nonlocal checks
        checks += 1
        if not np.array_equal(got, want):
            failures.append(name)

    for size in (200000, 400000):
        ref = np.arange(size, dtype=np.uint8)
        buf = ref.copy() if me == 1 else np.zeros(size, np.uint8)
        csmpi.bcast(comm, buf, 1, plans=folder)
        ran[f"bcast {size}"] = last_run()
        check(f"bcast {size}", buf, ref)
    x = rng.integers(-10**6, 10**6, 12500)
    got, want = (np.empty_like(x), np.empty_like(x)) if me == 0 else (None, None)
    csmpi.reduce(comm, x, got, MPI.SUM, 0, plans=folder)
    ran["reduce sum"] = last_run()
    comm.Reduce(x, want, op=MPI.SUM, root=0)
    mats = rng.integers(0, PRIME, (3125, 2, 2))
    fold = _fold(comm.allgather(mats), matmul_mod)
    prod = np.empty_like(mats) if me == 0 else None
    csmpi.reduce(comm, mats, prod, matmul_mod, 0, plans=folder)
    ran["reduce matmul"] = last_run()
    if me == 0:
        check("reduce sum", got, want)
        check("reduce matmul", prod, fold)
    got, want = np.empty_like(x), np.empty_like(x)
    csmpi.allreduce(comm, x, got, MPI.SUM, plans=folder)
    ran["allreduce sum"] = last_run()
    comm.Allreduce(x, want, op=MPI.SUM)
    check("allreduce sum", got, want)
    send = rng.integers(0, 255, 40).astype(np.uint8)
    got, want = np.empty_like(send), np.empty_like(send)
    csmpi.alltoall(comm, send, got, plans=folder)
    ran["alltoall"] = last_run()
    comm.Alltoall(send, want)
    check("alltoall", got, want)
    return {"failures": failures, "checks": checks, "ran": ran}


def rank_main(scenarios: dict) -> None:
    """One rank of a job :func:`launch` started: run the scenario named on the command line, write its JSON."""
    from mpi4py import MPI

    scenario, where, out = sys.argv[1:4]
    began = time.perf_counter()
    result = scenarios[f"scenario_{scenario}"](MPI.COMM_WORLD, where)
    with open(os.path.join(out, f"rank-{MPI.COMM_WORLD.rank}.json"), "w", encoding="utf-8") as f:
        json.dump(dict(result, rank=MPI.COMM_WORLD.rank, seconds=time.perf_counter() - began), f)


if __name__ == "__main__":
    rank_main(globals())
