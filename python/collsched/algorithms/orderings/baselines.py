"""Seed 004's randomized orders: random order, RSPB and ORSPB (Chen and Liu 2002, section 3.5).

Each sender follows a list of receivers; the list runs over all the
receivers of the exchange (a sender skips itself, whose message costs
nothing). With ``n`` receivers ``R[0..n-1]`` in platform order:

* ``random``: each sender picks its next receiver at random (a uniform
  random permutation per sender);
* ``rspb`` (Random_Starting_Point_Baseline): sender ``i`` starts at a random
  receiver ``R[a_i]`` and follows the caterpillar ``R[a_i + k mod n]``; the
  starting points form a random permutation when there are no more senders
  than receivers (all-to-all, Table 3), else each is drawn on its own
  (all-to-some, Table 4);
* ``orspb`` (One_Random_Starting_Point_Baseline): one random permutation
  ``pi`` of the receivers is the first sender's column; sender ``i``'s
  ``k``-th receiver is ``R[pos(pi[k]) + i mod n]`` (the caterpillar
  horizontally, Tables 5 and 6).

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings.costs import overhead_platform
>>> p = overhead_platform([1] * 5)
>>> c = cs.AllToAll(senders=p.hosts, size=1)
>>> s = orspb(p, c, seed=1)
>>> cs.validate(p, c, s)
>>> sorted(len(v) for v in s.orders.values())
[4, 4, 4, 4, 4]
"""

from __future__ import annotations

import numpy as np

from ...schedules import OrderSchedule
from ..registry import register
from .common import check_seed, order_schedule
from .costs import exchange_of

__all__ = ["random_order", "rspb", "orspb", "rspb_table", "orspb_table"]

_KINDS = ("alltoall", "alltomany")



def rspb_table(n_senders: int, n_receivers: int, rng: np.random.Generator) -> np.ndarray:
    """Seed 004's RSPB timing diagram: row ``i`` is sender ``i``'s list of receiver positions.

    Parameters
    ----------
    n_senders, n_receivers : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n_senders, n_receivers)

    Examples
    --------
    >>> t = rspb_table(5, 5, np.random.default_rng(0))
    >>> sorted(t[:, 0].tolist()), ((t[:, 1] - t[:, 0]) % 5).tolist()
    ([0, 1, 2, 3, 4], [1, 1, 1, 1, 1])
    """
    # step 1: the first row, a random permutation (or, with more senders than receivers, random picks)
    if n_senders <= n_receivers:
        start = rng.permutation(n_receivers)[:n_senders]
    else:
        start = rng.integers(0, n_receivers, size=n_senders)
    # step 2: every sender then follows the caterpillar
    return (start[:, None] + np.arange(n_receivers)[None, :]) % n_receivers


def orspb_table(n_senders: int, n_receivers: int, rng: np.random.Generator) -> np.ndarray:
    """Seed 004's ORSPB timing diagram: row ``i`` is sender ``i``'s list of receiver positions.

    Parameters
    ----------
    n_senders, n_receivers : int
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n_senders, n_receivers)

    Examples
    --------
    >>> t = orspb_table(3, 3, np.random.default_rng(0))
    >>> ((t[1] - t[0]) % 3).tolist(), sorted(t[0].tolist())
    ([1, 1, 1], [0, 1, 2])
    """
    # step 1: a random permutation of the receivers is the first column
    first = rng.permutation(n_receivers)
    # step 2: the caterpillar horizontally: sender i, step k -> pi[k] + i
    return (first[None, :] + np.arange(n_senders)[:, None]) % n_receivers


@register("random", family="orderings", kinds=_KINDS, series=False,
          summary="each sender picks its next receiver at random (seed 004)")
def random_order(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """Random order: every sender sends to its receivers in a uniformly random order.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int
        Seeds the draws.

    Returns
    -------
    OrderSchedule
        With the open-shop bound of the synchronous overheads model.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    L.-R. Chen, P. Liu, "Empirical studies of collective communication in
    heterogeneous cluster systems", National Chung Cheng University, 2002
    (seed 004), section 3.5.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1, 5, 10, 1])
    >>> c = cs.AllToAll(senders=p.hosts, receivers=["h1", "h2"], size=1)
    >>> s = random_order(p, c, seed=3)
    >>> cs.validate(p, c, s)
    >>> s.n_transfers, s.bound.value > 0
    (6, True)
    """
    rng = np.random.default_rng(check_seed(seed))
    x = exchange_of(platform, collective)
    orders = [rng.permutation(len(x.receivers)) for _ in x.senders]
    return order_schedule(x, orders, "random", platform, collective, {"seed": seed})


@register("rspb", family="orderings", kinds=_KINDS, series=False,
          summary="random starting point per sender, then the caterpillar (seed 004)")
def rspb(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """Random_Starting_Point_Baseline: a random first receiver per sender, then the caterpillar.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int

    Returns
    -------
    OrderSchedule

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    L.-R. Chen, P. Liu, "Empirical studies of collective communication in
    heterogeneous cluster systems", National Chung Cheng University, 2002
    (seed 004), section 3.5.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1] * 4)
    >>> c = cs.AllToAll(senders=p.hosts, size=1)
    >>> s = rspb(p, c, seed=2)
    >>> cs.validate(p, c, s)
    >>> len({v[0] for v in s.orders.values()}) >= 2
    True
    """
    rng = np.random.default_rng(check_seed(seed))
    x = exchange_of(platform, collective)
    table = rspb_table(len(x.senders), len(x.receivers), rng)
    return order_schedule(x, table, "rspb", platform, collective, {"seed": seed})


@register("orspb", family="orderings", kinds=_KINDS, series=False,
          summary="one random first column, then the caterpillar horizontally (seed 004)")
def orspb(platform, collective, *, seed: int = 0) -> OrderSchedule:
    """One_Random_Starting_Point_Baseline: sender ``i``'s ``k``-th receiver is ``pi[k] + i``.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
    seed : int

    Returns
    -------
    OrderSchedule

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0.

    References
    ----------
    L.-R. Chen, P. Liu, "Empirical studies of collective communication in
    heterogeneous cluster systems", National Chung Cheng University, 2002
    (seed 004), section 3.5.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.algorithms.orderings.costs import overhead_platform
    >>> p = overhead_platform([1] * 10)
    >>> c = cs.AllToAll(senders=p.hosts, receivers=["h3", "h4", "h5", "h6", "h7"], size=1)
    >>> s = orspb(p, c, seed=0)
    >>> cs.validate(p, c, s)
    >>> s.orders["h0"][:2], s.orders["h1"][:2]
    (('h5', 'h7'), ('h6', 'h3'))
    """
    rng = np.random.default_rng(check_seed(seed))
    x = exchange_of(platform, collective)
    table = orspb_table(len(x.senders), len(x.receivers), rng)
    return order_schedule(x, table, "orspb", platform, collective, {"seed": seed})
