"""All-gather baselines, as NCCL/RCCL and MPI libraries run them: ring, direct (all-pairs), recursive doubling.

Registered under these names by :mod:`.dispatch` (with the other kinds' baselines of the same name).

Every participant ``P_0 .. P_{N-1}`` (the collective's order) contributes a
block ``b_i``; the transfers name the blocks they carry (a relay forwards
blocks it received), so each schedule lowers to a program that
:func:`collsched.validate` executes symbolically. A series runs the steps
of one instance after another (the ``post_all`` synchronisation pipelines
them: a send waits only for its rank's previous send and for the blocks it
forwards).

References
----------
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective communication
operations in MPICH", IJHPCA 19(1), 2005. doi:10.1177/1094342005051521 (ring and
recursive doubling all-gather).
NVIDIA, NCCL: ``src/device/all_gather.h`` (ring all-gather, one ring per channel).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> c = cs.AllGather(participants=["h2", "h0", "h3", "h1"], size=1e6)
>>> [len(f(p, c)) for f in (ring, recursive_doubling)]
[3, 2]
>>> for f in (ring, direct, recursive_doubling):
...     cs.validate(p, c, f(p, c))
"""

from __future__ import annotations

from ...schedules import OrderSchedule, StepSchedule, Transfer
from .phases import merge_steps, positive_int, ring_allgather

__all__ = ["ring", "direct", "recursive_doubling"]


def _instances(collective):
    """(the all-gather of one instance, its participants, the number of instances)."""
    base = collective.base
    return base, list(base.participants), collective.count


def ring(platform, collective, *, seed: int = 0, channels: int = 1) -> StepSchedule:
    """NCCL's ring all-gather over the participants in their order; ``channels`` rings share the blocks.

    Parameters
    ----------
    platform : Platform
        Gives the host indices of the blocks.
    collective : AllGather
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).
    channels : int
        Number of rings ``k >= 1``. Each block is cut into ``k`` equal pieces
        (the schedule's denominator is ``k``); piece ``c`` travels on ring
        ``c``, which runs forwards (``P_i → P_{i+1}``) for even ``c`` and
        backwards (``P_i → P_{i-1}``) for odd ``c``, so two channels use both
        directions of every full-duplex link, as NCCL's channels alternate.

    Returns
    -------
    StepSchedule
        ``N - 1`` steps per instance. In step ``s`` (from 0), on a forward
        ring, ``P_i`` sends ``b_{i-s}`` (indices mod ``N``) to ``P_{i+1}``:
        its own block first, then the one it received in the previous step.

    Raises
    ------
    ValueError
        If ``channels`` is not an integer >= 1.

    Notes
    -----
    ``N (N - 1) k`` transfers per instance. Every participant receives
    ``(N - 1) · size`` bytes in ``N - 1`` steps of ``size`` bytes (over all
    channels): on a homogeneous one-port star each step lasts ``size / B``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=["h1", "h2", "h0"], size=1e3)
    >>> s = ring(p, c)
    >>> [[(t.src, t.dst, t.values) for t in step] for step in s.steps][1]
    [('h1', 'h2', (m[0→*]@0,)), ('h2', 'h0', (m[1→*]@0,)), ('h0', 'h1', (m[2→*]@0,))]
    >>> s2 = ring(p, c, channels=2)
    >>> s2.denominator, len(s2), s2.n_transfers
    (2, 2, 12)
    >>> cs.validate(p, c, s2)
    >>> ring(p, c, channels=0)
    Traceback (most recent call last):
    ...
    ValueError: ring option channels=0 is not an integer >= 1
    """
    channels = positive_int("ring", "channels", channels)
    base, order, count = _instances(collective)
    n = len(order)
    steps = []
    for inst in range(count):
        blocks = [base.block_of(platform, inst, h) for h in order]
        # forward ring: P_i holds b_{i-s} since step s-1 and passes it on; backward: b_{i+s}
        parts = [None] if channels == 1 else [(c, c + 1) for c in range(channels)]
        steps += merge_steps(*(ring_allgather(order, lambda k: (blocks[k],), [parts[c]] * n, inst=inst,
                                              forward=c % 2 == 0) for c in range(channels)))
    return StepSchedule(steps=tuple(steps), denominator=channels, algorithm="ring",
                        params={"channels": channels})


def direct(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """All-pairs all-gather: ``P_i`` sends its block to ``P_{i+1}, P_{i+2}, ..., P_{i+N-1}`` in turn.

    Parameters
    ----------
    platform : Platform
        Unused: the order depends only on the collective.
    collective : AllGather
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    OrderSchedule
        Per participant, its ``N - 1`` destinations (instance after instance
        for a series); staggered so that in the ``k``-th send every
        participant sends to a different one (a shifted permutation). Every
        receive is posted at once, as with ``MPI_Irecv``/``MPI_Isend``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllGather(participants=["h2", "h0", "h1"], size=1e3)
    >>> dict(direct(p, c).orders)
    {'h2': ('h0', 'h1'), 'h0': ('h1', 'h2'), 'h1': ('h2', 'h0')}
    >>> series = cs.Series(c, count=2)
    >>> cs.validate(p, series, direct(p, series))
    """
    _, order, count = _instances(collective)
    n = len(order)
    orders = {h: tuple((order[(i + k) % n], inst) for inst in range(count) for k in range(1, n))
              for i, h in enumerate(order)}
    return OrderSchedule(orders=orders, algorithm="direct")


def recursive_doubling(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Recursive-doubling all-gather; for ``N`` not a power of two, the nearest lower power and two fix-up steps.

    Parameters
    ----------
    platform : Platform
        Gives the host indices of the blocks.
    collective : AllGather
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    StepSchedule
        With ``m = 2^⌊log2 N⌋`` and ``r = N - m``: if ``r > 0``, a first step
        in which ``P_{m+i}`` sends its block to ``P_i`` (``i < r``); then
        ``log2 m`` steps in which ``P_i`` and ``P_{i XOR 2^k}`` (``i < m``)
        exchange every block they hold (``2^k`` participants' blocks, with
        the extra ones folded in); if ``r > 0``, a last step in which ``P_i``
        sends ``P_{m+i}`` the ``N - 1`` blocks it lacks. So ``log2 N`` steps
        for a power of two, ``⌊log2 N⌋ + 2`` otherwise, per instance.

    Notes
    -----
    The fix-up is the usual one for recursive doubling and halving (as
    Rabenseifner's reduce-scatter folds the extra ranks in); MPICH's
    all-gather uses a different correction for non-powers of two (a
    "missing blocks" exchange inside the doubling steps), with the same
    step count but no idle ranks. Ours leaves ``P_m .. P_{N-1}`` idle
    between the first and last steps, and ``P_i`` (``i < r``) sends
    ``N - 1`` blocks in the last step: on a one-port model it is slower
    than the ring for large blocks, as in practice.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(6)
    >>> c = cs.AllGather(participants=p.hosts, size=1e3)
    >>> s = recursive_doubling(p, c)
    >>> [[(t.src, t.dst, len(t.values)) for t in step] for step in s.steps][0]
    [('h4', 'h0', 1), ('h5', 'h1', 1)]
    >>> len(s), [len(t.values) for t in s.steps[-1]]
    (4, [5, 5])
    >>> cs.validate(p, c, s)
    """
    base, order, count = _instances(collective)
    n = len(order)
    m = 1 << (n.bit_length() - 1)
    r = n - m
    steps = []
    for inst in range(count):
        blocks = [base.block_of(platform, inst, h) for h in order]
        held = {i: [i] + ([m + i] if i < r else []) for i in range(m)}  # block indices P_i holds (i < m)
        if r:
            steps.append(tuple(Transfer(order[m + i], order[i], inst=inst, values=(blocks[m + i],))
                               for i in range(r)))
        dist = 1
        while dist < m:
            step = tuple(Transfer(order[i], order[i ^ dist], inst=inst, values=tuple(blocks[j] for j in held[i]))
                         for i in range(m))
            held = {i: sorted(held[i] + held[i ^ dist]) for i in range(m)}
            steps.append(step)
            dist *= 2
        if r:
            steps.append(tuple(Transfer(order[i], order[m + i], inst=inst,
                                        values=tuple(blocks[j] for j in range(n) if j != m + i))
                               for i in range(r)))
    return StepSchedule(steps=tuple(steps), algorithm="recursive_doubling")
