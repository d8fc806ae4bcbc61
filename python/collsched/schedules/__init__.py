"""Schedules (the answers), programs (their lowered form) and the symbolic validator.

Five shapes: :class:`StepSchedule`, :class:`OrderSchedule`,
:class:`TreeSchedule`, :class:`PeriodicSchedule` and :class:`ForestSchedule`; each lowers to a
:class:`Program`, which :func:`validate` executes symbolically.
"""

from .base import Bound, Schedule, Status
from .forest import ForestSchedule, ForestTree
from .orders import OrderSchedule
from .periodic import PeriodicSchedule, PeriodicTask, PeriodicTransfer, Slot
from .program import COMPUTE, PREVIOUS, RECV, SEND, Op, Program, ProgramBuilder
from .steps import SYNC_MODES, StepSchedule, Transfer
from .trees import TreeSchedule
from .validate import validate
from .values import BLOCK, PARTIAL, Piece, Value, block, combine, partial

__all__ = ["Schedule", "Bound", "Status", "StepSchedule", "Transfer", "SYNC_MODES", "OrderSchedule", "TreeSchedule",
           "PeriodicSchedule", "PeriodicTransfer", "PeriodicTask", "Slot", "ForestSchedule", "ForestTree", "Program", "ProgramBuilder", "Op",
           "SEND", "RECV", "COMPUTE", "PREVIOUS", "validate", "Value", "Piece", "BLOCK", "PARTIAL", "block",
           "partial", "combine"]
