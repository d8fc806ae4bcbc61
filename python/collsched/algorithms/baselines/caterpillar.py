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

import numpy as np

from ...schedules import StepSchedule
from ...schedules.columns import size_matrix
from ...schedules.steps import DirectSteps
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
    n = len(hosts)
    # wanted[i, j]: the collective has a message hosts[i] -> hosts[j]
    if len(hosts) == len(involved):  # every host is the platform's: the messages as one matrix
        at = np.array([platform.host_index(h) for h in hosts], dtype=np.int64)
        wanted = ~np.isnan(size_matrix(collective.base, platform)[np.ix_(at, at)])
    else:
        position = {h: i for i, h in enumerate(hosts)}
        pairs = np.array([(position[s], position[d]) for s, d in collective.pairs() if s in position and d in position],
                         dtype=np.int64).reshape(-1, 2)
        wanted = np.zeros((n, n), bool)
        wanted[pairs[:, 0], pairs[:, 1]] = True
    # step k = 1 .. n-1: host i sends to host i + k (mod n), in host order
    src = np.tile(np.arange(n, dtype=np.int64), max(n - 1, 0))
    dst = (src + np.repeat(np.arange(1, n, dtype=np.int64), n)) % n
    keep = wanted[src, dst]
    src, dst = src[keep], dst[keep]
    per_step = np.bincount((np.repeat(np.arange(max(n - 1, 0)), n))[keep], minlength=max(n - 1, 0))
    per_step = per_step[per_step > 0]  # a step with no wanted message is dropped
    count = collective.count
    step_ptr = np.concatenate([[0], np.cumsum(np.tile(per_step, count))])
    steps = DirectSteps(hosts, step_ptr, np.tile(src, count), np.tile(dst, count),
                        np.repeat(np.arange(count, dtype=np.int64), len(src)))
    return StepSchedule(steps=steps, algorithm="caterpillar")
