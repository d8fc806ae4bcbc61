"""Seed 004's synchronous simulator: the two service disciplines of a busy receiver."""

import numpy as np
import pytest

import collsched as cs
from collsched.algorithms.orderings import overhead_platform
from collsched.algorithms.orderings.costs import Exchange
from collsched.studies.orderings import ALGORITHMS
from collsched.studies.orderings_sim import sender_orders, simulate_orders

SYNC = cs.models.OnePort(sync=True, cost="overheads")


@pytest.mark.parametrize("seed", range(5))
def test_fifo_service_is_what_oneport_simulates(seed):
    """Without ties, 'fifo' and the engine agree exactly on random orders.

    Ties are avoided by irrational overheads (sums of square roots of distinct primes) and by first receivers
    that are all distinct (at time 0 every sender is free: the engine breaks such ties by message index, the
    simulator at random).
    """
    rng = np.random.default_rng(seed)
    n = 7
    p = overhead_platform(np.sqrt([2, 3, 5, 7, 11, 13, 17]) * rng.choice([1, 3], size=n), latency=np.sqrt(0.19))
    hosts = list(p.hosts)
    c = cs.AllToAll(senders=hosts, size=1)
    x = Exchange.of(p, c)
    shift = 1 + seed % (n - 1)
    orders = [[(i + shift) % n] + [int(j) for j in rng.permutation(n) if j not in (i, (i + shift) % n)]
              for i in range(n)]
    s = cs.OrderSchedule(orders={x.senders[i]: tuple(x.receivers[j] for j in o) for i, o in enumerate(orders)},
                         collective=c)
    assert simulate_orders(x, orders, service="fifo") == pytest.approx(cs.simulate(p, s, c, model=SYNC).makespan,
                                                                        rel=1e-12)


def test_random_service_serves_waiting_senders_in_random_order():
    """h1 (free at 4) and h2 (free at 8) wait for h3, busy until 12: fifo takes h1 first (24); random either."""
    p = overhead_platform([10, 2, 6, 1, 1, 1], latency=1.0)
    c = cs.AllToMany({("h0", "h3"): 1, ("h1", "h4"): 1, ("h1", "h3"): 1, ("h1", "h5"): 1, ("h2", "h5"): 1,
                      ("h2", "h3"): 1})
    x = Exchange.of(p, c)
    orders = [[x.receivers.index(r) for r in rs] for rs in (["h3"], ["h4", "h3", "h5"], ["h5", "h3"])]
    assert {round(simulate_orders(x, orders, service="fifo", seed=k), 9) for k in range(20)} == {24.0}
    # random: h2 first gives h3 [12, 20], h1 [20, 24], then h1 -> h5 [24, 28]
    assert {round(simulate_orders(x, orders, service="random", seed=k), 9) for k in range(20)} == {24.0, 28.0}


def test_figure_10_ranking_appears_under_random_service_only():
    """Seeded small profile of the study's synchronous all-to-some: 100 nodes, 30% receivers, 3 runs."""
    means = {("fifo", a): [] for a in ("caterpillar", "rspb", "orspb", "random")}
    means.update({("random", a): [] for a in ("caterpillar", "rspb", "orspb", "random")})
    for k in range(3):
        rng = np.random.default_rng([k, 100])
        p = overhead_platform(rng.choice([1.0, 5.0, 10.0], size=100), latency=1.0)
        hosts = list(p.hosts)
        start = int(rng.integers(0, 100))
        receivers = sorted((hosts[(start + i) % 100] for i in range(30)), key=hosts.index)
        c = cs.AllToAll(senders=hosts, receivers=receivers, size=1.0)
        x = Exchange.of(p, c)
        for a in ("caterpillar", "rspb", "orspb", "random"):
            orders = sender_orders(x, ALGORITHMS[a](p, c, seed=k))
            for service in ("fifo", "random"):
                means[service, a].append(simulate_orders(x, orders, service=service, seed=k))
    m = {key: float(np.mean(v)) for key, v in means.items()}
    four = ("caterpillar", "rspb", "orspb", "random")
    assert max(four, key=lambda a: m["random", a]) == "caterpillar"               # the paper's Fig. 10
    assert m["random", "caterpillar"] > 1.1 * max(m["random", a] for a in four[1:])
    assert max(four, key=lambda a: m["fifo", a]) != "caterpillar"                 # not under fifo
    assert m["fifo", "caterpillar"] < 1.02 * min(m["fifo", a] for a in four)


def test_sender_orders_of_steps_and_bad_service():
    p = overhead_platform([1, 1, 1])
    c = cs.AllToAll(senders=p.hosts, size=1)
    x = Exchange.of(p, c)
    assert sender_orders(x, cs.plan(p, c, algorithm="caterpillar")) == [[1, 2], [2, 0], [0, 1]]
    with pytest.raises(ValueError, match="option service='lifo'"):
        simulate_orders(x, [[1, 2], [2, 0], [0, 1]], service="lifo")
    with pytest.raises(ValueError, match="OrderSchedule or a StepSchedule"):
        sender_orders(x, object())
