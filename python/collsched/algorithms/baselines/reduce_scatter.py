"""Reduce-scatter and all-reduce baselines: ``direct`` (all-pairs).

``direct``: every participant ``P_i`` cuts its vector into ``N`` fragments
and sends fragment ``j`` to ``P_j``, which reduces the ``N`` fragments ``j``
(its own and the ``N - 1`` it received) in one task; for an all-reduce,
``P_j`` then sends its reduced fragment to every other participant (the
all-gather half). It is MPICH's pairwise exchange for ``MPI_Reduce_scatter_block``
followed, for ``MPI_Allreduce``, by an all-pairs all-gather: one step of
``N (N - 1)`` messages each way, the fewest steps and the most messages.

:func:`direct` gives the schedule as steps (transfers that name the values
and fragments they carry); :func:`direct_program` lowers it explicitly, with
one reduction task of ``N`` inputs per participant and instance.

References
----------
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1), 2005. doi:10.1177/1094342005051521 (pairwise
exchange reduce-scatter).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllReduce(participants=["h2", "h0", "h3", "h1"], size=4e6, task_cost=1e6)
>>> prog = direct_program(p, c)
>>> prog.denominator, prog.n_messages, prog.bytes_sent
(4, 24, 24000000.0)
>>> cs.validate(p, c, prog)
"""

from __future__ import annotations

from typing import Sequence

from ...schedules import ProgramBuilder, StepSchedule, Transfer
from ...schedules.program import Program
from ...schedules.values import Piece

__all__ = ["direct", "direct_program"]


def _check(collective) -> None:
    if collective.base.kind not in ("reducescatter", "allreduce"):
        raise ValueError(f"direct reduction of a {collective.base.kind}: give a ReduceScatter or an AllReduce "
                         "(or a Series of one)")


def direct(platform, collective, *, seed: int = 0) -> StepSchedule:
    """The all-pairs reduce-scatter (then all-gather, for an all-reduce) as a step schedule.

    Parameters
    ----------
    platform : Platform
        Unused (values name operand positions, not hosts).
    collective : ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    StepSchedule
        Denominator ``N``. Per instance, a step where ``P_i`` sends fragment
        ``[j, j+1)`` of its operand to each ``P_j``; for an all-reduce, a
        second step where ``P_j`` sends fragment ``[j, j+1)`` of the result
        to each ``P_k``. The reductions are formed when it is lowered.

    Raises
    ------
    ValueError
        For another kind of collective.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> s = direct(p, cs.AllReduce(participants=p.hosts, size=3))
    >>> len(s), s.denominator, s.n_transfers
    (2, 3, 12)
    >>> s.steps[1][0]
    Transfer(src='h0', dst='h1', inst=0, part=(0, 1), values=(Σ{0..2}@0,))
    """
    _check(collective)
    base, order = collective.base, collective.base.participants
    steps = []
    for inst in range(collective.count):
        steps.append(tuple(Transfer(a, b, inst, (j, j + 1), (base.operand(inst, i),))
                           for i, a in enumerate(order) for j, b in enumerate(order) if a != b))
        if base.kind == "allreduce":
            result = base.result(inst)
            steps.append(tuple(Transfer(a, b, inst, (j, j + 1), (result,))
                               for j, a in enumerate(order) for b in order if a != b))
    return StepSchedule(steps=tuple(steps), denominator=len(order), algorithm="direct")


def direct_program(platform, collective, *, order: Sequence[int] | None = None) -> Program:
    """:func:`direct` lowered: sends in program order, one ``N``-input reduction per participant and instance.

    Parameters
    ----------
    platform : Platform
        Its hosts are the program's ranks.
    collective : ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one.
    order : sequence of int, optional
        The order in which a participant lists the ``N`` fragments it
        reduces (operand positions, a permutation of ``0 .. N-1``); by
        default ``0 .. N-1``. A commutative reduction accepts any order; the
        ordered operator (``commutative=False``) only the default.

    Returns
    -------
    Program
        Denominator ``N``. Per instance: ``P_i`` sends fragment ``j`` of its
        operand to each ``P_j`` (``size`` bytes for a reduce-scatter,
        ``size / N`` for an all-reduce), ``P_j`` reduces fragment ``j``
        (cost ``(N - 1) · task_cost / N``), and for an all-reduce sends it
        to every other participant.

    Raises
    ------
    ValueError
        For another kind of collective, or an ``order`` that is not a permutation.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=p.hosts, size=8, task_cost=30)
    >>> prog = direct_program(p, c, order=[2, 0, 1])
    >>> [op for op in prog if op.kind == "compute"][1]
    Op(13: h1 compute 20 [Σ{2}@0[1:2], Σ{0}@0[1:2], Σ{1}@0[1:2] -> Σ{0..2}@0[1:2]] after (1, 11))
    >>> cs.validate(p, c, prog)
    >>> ordered = cs.ReduceScatter(participants=p.hosts, size=8, commutative=False)
    >>> cs.validate(p, ordered, direct_program(p, ordered, order=[1, 0, 2]))
    Traceback (most recent call last):
    ...
    collsched.errors.ValidationError: program 'direct': rank h0 op 4 (compute) is not a valid reduction: inputs are not adjacent in operand order: v[1..1]@0 part [0/3, 1/3) ⊕ v[0..0]@0 part [0/3, 1/3) ⊕ v[2..2]@0 part [0/3, 1/3) → v[0..2]@0 part [0/3, 1/3)
    """
    _check(collective)
    base, hosts = collective.base, collective.base.participants
    n = len(hosts)
    order = list(range(n)) if order is None else [int(k) for k in order]
    if sorted(order) != list(range(n)):
        raise ValueError(f"direct_program option order={order!r} is not a permutation of 0..{n - 1}")
    weigh = base.sizer(platform)
    b = ProgramBuilder(platform.hosts, denominator=n, name="direct")
    for inst in range(collective.count):
        operand = [base.operand(inst, i) for i in range(n)]
        result = base.result(inst)
        fragment = weigh(result) / n
        # step 1: P_i sends fragment j of its operand to P_j
        for i, a in enumerate(hosts):
            for j, dst in enumerate(hosts):
                if a != dst:
                    b.send(a, dst, [Piece(operand[i], j, j + 1)], size=fragment)
        # step 2: P_j reduces the N fragments j
        for j, h in enumerate(hosts):
            b.compute(h, [Piece(operand[k], j, j + 1) for k in order], Piece(result, j, j + 1),
                      cost=(n - 1) * base.task_cost / n)
        # step 3 (all-reduce): P_j sends its reduced fragment to every other participant
        if base.kind == "allreduce":
            for j, a in enumerate(hosts):
                for dst in hosts:
                    if a != dst:
                        b.send(a, dst, [Piece(result, j, j + 1)], size=fragment)
    return b.build()
