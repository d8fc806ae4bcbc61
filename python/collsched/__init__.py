"""collsched: plan, certify, simulate and run collective communications on heterogeneous platforms.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.Reduce(participants=p.hosts, target="h0", size=1e6, task_cost=1e6)
>>> s = cs.plan(p, c, algorithm="binomial")
>>> cs.validate(p, c, s)
"""

from . import platform, topologies, units
from .collectives import (AllGather, AllReduce, AllToAll, AllToMany, Broadcast, Collective, Gather, Reduce,
                          ReduceScatter, Scatter, Series)
from .errors import (CollectiveError, CollschedError, FormatError, PlatformError, ScheduleError, UnitError,
                     ValidationError)
from .planner import plan
from .collective_io import load_collective, save_collective
from .platform import Link, Node, Platform
from .platform.io import load_platform, save_platform
from .schedules.io import load_program, load_schedule, save_program, save_schedule
from .schedules.trace import SimResult, Trace
from .simulation import SimulationError, models, simulate
from .schedules import (Bound, OrderSchedule, PeriodicSchedule, Program, ProgramBuilder, Schedule, Status,
                        StepSchedule, TreeSchedule, validate)

__version__ = "0.1.0"

__all__ = ["platform", "topologies", "units", "Platform", "Node", "Link", "load_platform", "save_platform",
           "load_collective", "save_collective", "load_schedule", "save_schedule", "load_program", "save_program",
           "Collective", "Scatter", "Gather", "Broadcast", "Reduce", "AllToAll", "AllToMany", "AllGather",
           "ReduceScatter", "AllReduce", "Series",
           "Schedule", "StepSchedule", "OrderSchedule", "TreeSchedule", "PeriodicSchedule", "Program",
           "ProgramBuilder", "Bound", "Status", "plan", "validate",
           "CollschedError", "PlatformError", "CollectiveError", "ScheduleError", "ValidationError",
           "FormatError", "UnitError"]

from . import runtime  # noqa: E402  (the MPI executor; imports mpi4py only when it runs)
from .runtime import run  # noqa: E402

__all__ += ["runtime", "run"]
