"""The caterpillar all-to-all: in step k, host i sends to host i + k (mod n).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3)
>>> c = cs.AllToAll(senders=p.hosts, size=1e3)
>>> s = caterpillar(p, c)
>>> [[(t.src, t.dst) for t in step] for step in s.steps]
[[('h0', 'h1'), ('h1', 'h2'), ('h2', 'h0')], [('h0', 'h2'), ('h1', 'h0'), ('h2', 'h1')]]
>>> cs.validate(p, c, s)

References
----------
A. Chen, Y. Liu (seed 004), and the "caterpillar" of the liquid-schedule
literature (Gabrielyan and Hersch, seed 001).
"""

from __future__ import annotations

from ...schedules import StepSchedule, Transfer
from ..registry import register

__all__ = ["caterpillar"]


@register("caterpillar", family="baselines", kinds=("alltoall", "alltomany"),
          summary="step k: host i sends to host i+k (mod n)")
def caterpillar(platform, collective, *, seed: int = 0) -> StepSchedule:
    """Steps ``k = 1 .. n-1`` over the hosts involved (in platform order); absent messages are skipped.

    A series repeats the steps for each instance.

    Parameters
    ----------
    platform : Platform
        Gives the host order (its rank order).
    collective : AllToAll or AllToMany
        Or a :class:`~collsched.collectives.Series` of one.
    seed : int
        Unused (the algorithm is deterministic).

    Returns
    -------
    StepSchedule
        At most ``n - 1`` steps per instance, where ``n`` is the number of
        hosts involved; a step with no wanted message is dropped.

    Examples
    --------
    A sparse exchange keeps only the messages it has:

    >>> import collsched as cs
    >>> p = cs.topologies.star(3)
    >>> c = cs.AllToMany({("h0", "h1"): 10, ("h1", "h2"): 10, ("h2", "h0"): 5, ("h0", "h2"): 3})
    >>> s = caterpillar(p, c)
    >>> [[(t.src, t.dst) for t in step] for step in s.steps]
    [[('h0', 'h1'), ('h1', 'h2'), ('h2', 'h0')], [('h0', 'h2')]]
    >>> cs.validate(p, c, s)
    >>> len(caterpillar(p, cs.Series(cs.AllToAll(senders=p.hosts), count=2)))
    4
    """
    involved = set(collective.hosts)
    hosts = [h for h in platform.hosts if h in involved]
    wanted = {(s, d) for s, d in collective.pairs()}
    n = len(hosts)
    steps = []
    for inst in range(collective.count):
        for k in range(1, n):
            step = tuple(Transfer(hosts[i], hosts[(i + k) % n], inst=inst) for i in range(n)
                         if (hosts[i], hosts[(i + k) % n]) in wanted)
            if step:
                steps.append(step)
    return StepSchedule(steps=tuple(steps), algorithm="caterpillar")
