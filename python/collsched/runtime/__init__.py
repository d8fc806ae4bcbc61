"""The MPI runtime: execute any program for real over MPI, verify every byte, time MPI's own collectives.

``cs.run(platform, schedule, collective)`` lowers the schedule, launches
``mpirun`` (Open MPI) with one rank per node of the program
(:mod:`.launch`), and every rank executes its operations with real buffers
(:mod:`.execute`): non-blocking sends and receives in the program's
dependency order, reductions as products of 2×2 matrices modulo a prime
(a non-commutative operator), contents derived from the values and message
ids and checked at every receiver (:mod:`.payload`). It returns a
:class:`RunResult` whose ``result`` is the same
:class:`~collsched.schedules.trace.SimResult` the simulator returns.
:func:`run_baseline` times MPI's own collective on the same ranks and data
(:mod:`.baselines`); :mod:`.emulation` runs the ranks in network namespaces
shaped like a platform (Linux, root), and :mod:`.calibrate` measures a
network's α-β and pLogP parameters.

Examples
--------
>>> import collsched as cs
>>> from collsched.runtime import mpi_available, run_many, MPICollective
>>> p = cs.topologies.star(4)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> if mpi_available() is None:
...     ours, theirs = run_many(p, [(cs.plan(p, c, algorithm="caterpillar"), c), MPICollective(c)])
...     assert ours.verified and theirs.verified
"""

from .launch import RunError, mpi_available
from .result import RunResult, comparison_plot, comparison_table
from .run import MPICollective, run, run_baseline, run_many

__all__ = ["run", "run_many", "run_baseline", "MPICollective", "RunResult", "RunError", "mpi_available",
           "comparison_table", "comparison_plot"]
