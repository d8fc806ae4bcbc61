"""NCCL's ring reduce-scatter and all-reduce, with ``channels`` rings sharing the data.

The vector is cut into ``N`` blocks (block ``j`` is ``P_j``'s result in a
reduce-scatter) and every block into ``channels`` equal pieces; piece ``c``
of every block travels on ring ``c``, forwards (``P_i → P_{i+1}``) for even
``c`` and backwards for odd ``c`` (the convention of the all-gather
``ring``), so that two channels use both directions of every link. NCCL
runs each channel on a ring its topology search finds; on one switch
every order is as good, and a reversed ring is one NCCL may pick. A reduce-scatter
is ``N - 1`` steps: in step ``s`` (forwards) ``P_i`` sends ``P_{i+1}``
block ``i - s - 1`` reduced over ``P_{i-s} .. P_i`` — what it received in
the step before, combined with its own operand — so that after the last
step ``P_j`` combines its own operand into the rest of block ``j``. An
all-reduce follows it with the ``N - 1`` steps of a ring all-gather of the
reduced blocks (NCCL's ``ncclAllReduce`` ring: ``2(N - 1)`` steps).

A ring cannot keep operand order: block ``j`` is reduced in the order
``j+1, ..., N-1, 0, ..., j``, which wraps around; a non-commutative
reduction raises (``direct`` and ``double_binary_tree`` keep the order).

References
----------
P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", JPDC 69(2), 2009. doi:10.1016/j.jpdc.2008.09.002 (the ring all-reduce).
NVIDIA, NCCL: ``src/device/all_reduce.h`` (``runRing``), ``src/device/reduce_scatter.h``.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllReduce(participants=["h2", "h0", "h3", "h1"], size=4e6)
>>> s = ring_reduction(p, c, channels=2)
>>> len(s), s.denominator, s.n_transfers
(6, 8, 48)
"""

from __future__ import annotations

from ...schedules import StepSchedule
from .phases import channel_fragments, merge_steps, positive_int, reduction_of, ring_allgather, \
    ring_reduce_scatter, value_over

__all__ = ["ring_reduction"]


def ring_reduction(platform, collective, *, seed: int = 0, channels: int = 1) -> StepSchedule:
    """NCCL's ring reduce-scatter (``N - 1`` steps) or all-reduce (``2(N - 1)`` steps), ``channels`` rings.

    Parameters
    ----------
    platform : Platform
        Unused: the rings follow the participants' order.
    collective : ReduceScatter or AllReduce
        Or a :class:`~collsched.collectives.Series` of one; commutative.
    seed : int
        Unused (the algorithm is deterministic).
    channels : int
        Rings ``k >= 1``; the schedule's denominator is ``N k``.

    Returns
    -------
    StepSchedule
        Per instance, ``N - 1`` steps (reduce-scatter) or ``2(N - 1)``
        (all-reduce) of ``N k`` transfers each, every transfer a ``1/(N k)``
        fragment of the vector.

    Raises
    ------
    ValueError
        If ``channels`` is not an integer >= 1.
    ScheduleError
        If the reduction is not commutative.

    Notes
    -----
    Every participant sends and receives ``(N - 1)/N`` of the vector in a
    reduce-scatter (twice that in an all-reduce), the bandwidth optimum of
    Patarasuk and Yuan. Lowered with ``sync="post_all"`` on a single switch
    where every route has latency ``α`` and bandwidth ``β``, one channel
    takes ``2(N - 1)(α + M/(N β))`` for an all-reduce of ``M`` bytes
    (``tests/gpu/test_gpu_baselines_times.py`` checks it under
    ``Fluid``); ``k`` channels take ``2(N - 1)(k α + M/(N β))`` there, as a
    rank's ``k`` sends of a step go one after the other.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.ReduceScatter(participants=p.hosts, size=1e3)
    >>> s = ring_reduction(p, c)
    >>> [(t.src, t.dst, t.values[0], t.part) for t in s.steps[0]]
    [('h0', 'h1', Σ{0}@0, (2, 3)), ('h1', 'h2', Σ{1}@0, (0, 1)), ('h2', 'h0', Σ{2}@0, (1, 2))]
    >>> ring_reduction(p, cs.ReduceScatter(participants=p.hosts, size=1e3, commutative=False))
    Traceback (most recent call last):
    ...
    collsched.errors.ScheduleError: ring cannot keep operand order: a non-commutative reducescatter needs direct or double_binary_tree (or commutative=True)
    """
    channels = positive_int("ring", "channels", channels)
    base, order, count = reduction_of(collective, "ring", ordered=False)
    n = len(order)
    rings = channel_fragments([(j * channels, (j + 1) * channels) for j in range(n)], channels)
    steps = []
    for inst in range(count):
        # phase 1: reduce-scatter, one ring per channel (even forwards, odd backwards)
        steps += merge_steps(*(ring_reduce_scatter(order, lambda k: [k], rings[c], base, inst, forward=c % 2 == 0)
                               for c in range(channels)))
        if base.kind == "allreduce":
            # phase 2: all-gather of the reduced blocks on the same rings
            full = (value_over(base, inst, range(n)),)
            steps += merge_steps(*(ring_allgather(order, lambda k: full, rings[c], inst=inst, forward=c % 2 == 0)
                                   for c in range(channels)))
    return StepSchedule(steps=tuple(steps), denominator=n * channels, algorithm="ring", params={"channels": channels})
