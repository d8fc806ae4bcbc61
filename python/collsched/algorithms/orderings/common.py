"""What the ordering algorithms share: option checks, the order schedule they return, its bound.

Examples
--------
>>> check_seed(3)
3
>>> check_seed(-1)
Traceback (most recent call last):
...
ValueError: option seed=-1 is not an integer >= 0
"""

from __future__ import annotations

import numpy as np

from ...schedules import OrderSchedule
from .costs import Exchange

__all__ = ["check_seed", "order_schedule", "planning_bound"]


def check_seed(seed) -> int:
    """``seed`` if it is an integer >= 0, else ``ValueError`` naming the option.

    Examples
    --------
    >>> check_seed(True)
    Traceback (most recent call last):
    ...
    ValueError: option seed=True is not an integer >= 0
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"option seed={seed!r} is not an integer >= 0")
    return int(seed)


def planning_bound(platform, collective):
    """The open-shop bound of the synchronous overheads model, the one the orderings plan for.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 1, 1])
    >>> round(planning_bound(p, cs.AllToAll(senders=p.hosts, size=1)).value, 6)
    6.0
    """
    from .exchange_bound import exchange_bound
    from ...simulation.models import OnePort

    return exchange_bound(platform, collective, model=OnePort(sync=True, cost="overheads"))


def order_schedule(x: Exchange, orders, algorithm: str, platform, collective, params=None, message="") -> OrderSchedule:
    """An :class:`OrderSchedule` from per-sender lists of receiver indices (entries without a message skipped).

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 1])
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> x = Exchange.of(p, c)
    >>> dict(order_schedule(x, [[0, 1], [0, 1]], "demo", p, c).orders)
    {'h0': ('h1',), 'h1': ('h0',)}
    """
    out = {}
    for i, row in enumerate(orders):
        dests = tuple(x.receivers[j] for j in row if x.mask[i, j])
        if dests:
            out[x.senders[i]] = dests
    return OrderSchedule(orders=out, algorithm=algorithm, params=dict(params or {}),
                         bound=planning_bound(platform, collective), message=message, collective=collective)
