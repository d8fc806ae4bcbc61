"""All-to-all and all-to-some orderings under send/receive overheads (seed 004), and an exact preemptive open shop.

Algorithms (registered names): ``random``, ``rspb``, ``orspb`` (seed 004's
randomized orders), ``matching`` (Bhat, Prasanna and Raghavendra's
maximum-weight matching rounds), ``greedy``, ``open_shop`` (their greedy
and open-shop list schedules), and, beyond both papers,
``open_shop_preemptive`` (a Birkhoff-von Neumann / Gonzalez-Sahni
decomposition that reaches the open-shop bound), and two orderings planned
for the asynchronous model: ``open_shop_async`` (a list schedule on its
costs) and ``async_optimal`` (exact, a MILP for small exchanges). The
caterpillar is the baselines' ``caterpillar``.

Examples
--------
>>> import collsched as cs
>>> from collsched.algorithms.orderings import overhead_platform
>>> p = overhead_platform([1, 5, 10, 1, 5])
>>> c = cs.AllToAll(senders=p.hosts, size=1)
>>> for plan in (random_order, rspb, orspb, matching, greedy, open_shop, open_shop_preemptive, open_shop_async,
...              async_optimal):
...     cs.validate(p, c, plan(p, c, seed=1))
"""

from .asynchronous import async_optimal, open_shop_async
from .baselines import orspb, random_order, rspb
from .costs import Exchange, overhead_platform
from .listsched import greedy, open_shop
from .matching import matching
from .preemptive import open_shop_preemptive

__all__ = ["random_order", "rspb", "orspb", "matching", "greedy", "open_shop", "open_shop_preemptive",
           "open_shop_async", "async_optimal", "Exchange", "overhead_platform"]
