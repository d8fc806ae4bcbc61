"""collsched's schedules in the user's own mpi4py program: collectives on the application's arrays.

Three steps: describe the machine (a platform file; :func:`.calibrate`
measures it from inside an MPI job and clusters its hosts), plan the collectives
the application uses (``collsched plan-suite platform.json --collectives
suite.json -o plans/``, :mod:`.suite`), and call them in place of mpi4py's
``Bcast``, ``Reduce``, ``Allreduce``, ``Scatter``, ``Gather``,
``Allgather`` and ``Alltoall``:

.. code-block:: python

    from mpi4py import MPI
    from collsched import mpi as csmpi
    csmpi.allreduce(comm, sendbuf, recvbuf, MPI.SUM, plans="plans/")

A call made many times on the same arrays can be made once
(:func:`.persistent.persistent`): where MPI's own collective runs, it is
then mpi4py's own call, with no Python of collsched's per start.

Each call looks up the plan for its kind, size and root, executes the
plan's program on the user's arrays (non-blocking sends and receives in
dependency order, segments mapped to ranges of the arrays:
:mod:`.layout`), and falls back to MPI's own collective, saying so once,
when no plan fits. The result is MPI's own: bitwise for the copying
collectives; for a reduction, what the operator gives combining the
operands in rank order (exact for integer sums). Bad input raises one
:class:`MPICallError` on every rank, naming the rank and the reason
(:mod:`.calls`).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllReduce(participants=p.hosts, size=2**20)
>>> plans = PlanSet([Plan.of(p, c, cs.plan(p, c, algorithm="ring"), low=2**19, high=2**21)], platform=p)
>>> plans.find("allreduce", 4, None, 2**20, commutative=True).algorithm
'ring'
"""

from .api import allgather, allreduce, alltoall, alltoallv, bcast, gather, reduce, scatter
from .calibrate import calibrate
from .calls import FallbackWarning, MPICallError
from .persistent import persistent
from .plans import Plan, PlanError, PlanSet, load_plans

__all__ = ["bcast", "reduce", "allreduce", "scatter", "gather", "allgather", "alltoall", "alltoallv", "persistent", "Plan",
           "PlanSet", "PlanError", "load_plans", "MPICallError", "FallbackWarning", "calibrate"]
