"""Topology-unaware baselines of seed 001: round-robin and random step schedules.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.liquid.traffic import figure1_platform, figure1_collective
>>> p, c = figure1_platform(), figure1_collective()
>>> [(t.src, t.dst) for t in round_robin(p, c).steps[0]]
[('T1', 'R1'), ('T2', 'R2'), ('T3', 'R3'), ('T4', 'R4'), ('T5', 'R5')]
"""

from __future__ import annotations

import random as _random

from ...schedules import StepSchedule, Transfer
from ..registry import register
from .traffic import KINDS, traffic_of

__all__ = ["round_robin", "random_steps"]


def _senders_receivers(collective):
    base = collective.base
    senders: dict[str, None] = {}
    receivers: dict[str, None] = {}
    for s, d in base.pairs():
        senders.setdefault(s)
        receivers.setdefault(d)
    return list(senders), list(receivers), set(base.pairs())


@register("round_robin", family="liquid", kinds=KINDS,
          summary="phase k: the i-th sender sends to the (i+k)-th receiver")
def round_robin(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Round-robin phases: in phase ``k`` sender ``i`` sends to receiver ``i + k`` (mod the receivers).

    Senders and receivers are taken in the collective's order; phases
    ``k = 0 .. n_r - 1`` (phase 0 pairs the i-th sender with the i-th
    receiver, as the paper's Figure 1a); absent messages (a host to itself,
    a sparse exchange) are skipped, and a sender beyond the receivers' count
    waits for its turn in later rounds of phases. A series repeats the
    phases per instance.

    Parameters
    ----------
    platform : Platform
        Unused (topology-unaware).
    collective : AllToAll or AllToMany
        Or a Series of one.
    seed : int
        Unused.

    Returns
    -------
    StepSchedule
        No durations (the steps ignore the links); transfers of a step may congest.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = round_robin(p, c)
    >>> [[(t.src, t.dst) for t in step] for step in s.steps]
    [[('h0', 'h1'), ('h1', 'h2'), ('h2', 'h0')], [('h0', 'h2'), ('h1', 'h0'), ('h2', 'h1')]]
    >>> cs.validate(p, c, s)
    """
    traffic_of(platform, collective)  # checks the kind and the routes
    senders, receivers, wanted = _senders_receivers(collective)
    n_r = len(receivers)
    steps = []
    for inst in range(collective.count):
        offset = 0
        while offset < len(senders):  # more senders than receivers: rounds of phases
            group = senders[offset:offset + n_r]
            for k in range(n_r):
                step = tuple(Transfer(s, receivers[(i + k) % n_r], inst=inst) for i, s in enumerate(group)
                             if (s, receivers[(i + k) % n_r]) in wanted)
                if step:
                    steps.append(step)
            offset += n_r
    return StepSchedule(steps=tuple(steps), algorithm="round_robin")


@register("random_steps", family="liquid", kinds=KINDS,
          summary="random phases: each sender's receivers in a random order, step j = the j-th of every sender")
def random_steps(platform, collective, *, seed: int = 0) -> StepSchedule:
    """A random schedule: each sender visits its receivers in a seeded random order; step ``j`` holds every sender's ``j``-th.

    A receiver drawn by two senders in one step keeps only the first there
    (the other moves on to the next step), so each step is a partial
    permutation, as in the paper's random baseline.

    Parameters
    ----------
    platform : Platform
        Unused (topology-unaware).
    collective : AllToAll or AllToMany
        Or a Series of one.
    seed : int
        Seed of the shuffles.

    Returns
    -------
    StepSchedule

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> c = cs.AllToAll(senders=p.hosts, size=1e3)
    >>> s = random_steps(p, c, seed=3)
    >>> s.n_transfers
    12
    >>> cs.validate(p, c, s)
    """
    traffic_of(platform, collective)
    rng = _random.Random(seed)
    base = collective.base
    steps = []
    for inst in range(collective.count):
        queues: dict[str, list[str]] = {}
        for s, d in base.pairs():
            queues.setdefault(s, []).append(d)
        for q in queues.values():
            rng.shuffle(q)
        while any(queues.values()):
            taken: set[str] = set()
            step = []
            for s, q in queues.items():
                for j, d in enumerate(q):
                    if d not in taken:
                        taken.add(d)
                        step.append(Transfer(s, d, inst=inst))
                        del q[j]
                        break
            steps.append(tuple(step))
    return StepSchedule(steps=tuple(steps), algorithm="random_steps")
