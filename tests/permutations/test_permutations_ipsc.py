"""The iPSC/860 cost model: half-duplex nodes, and a pairwise exchange for one message time (seed 002, 2.1)."""

import pytest

import collsched as cs
from collsched.algorithms.permutations.ipsc import ipsc_time


def _star(n):
    return cs.topologies.star(n, bandwidth=1e6, latency=1e-3)   # 2 ms per route, 1 s per MB


def test_an_exchange_costs_one_message_time():
    p = _star(2)
    c = cs.AllToMany({("h0", "h1"): 1e6, ("h1", "h0"): 5e5})
    s = cs.StepSchedule.from_pairs([[("h0", "h1"), ("h1", "h0")]])
    # one exchange: 2 ms of handshake, then the longer message, 2 ms + 1 s
    assert ipsc_time(p, s, c, scheme="ready") == pytest.approx(0.002 + 1.002, abs=1e-12)
    # two messages through half-duplex nodes: (2 ms + 1.002 s) + (2 ms + 0.502 s)
    assert ipsc_time(p, s, c, scheme="ready", pairwise=False) == pytest.approx(1.004 + 0.504, abs=1e-12)


def test_a_send_and_a_receive_to_different_partners_do_not_overlap():
    p = _star(3)
    c = cs.AllToMany({("h0", "h1"): 1e6, ("h2", "h0"): 1e6, ("h1", "h0"): 1e6})
    one = cs.StepSchedule.from_pairs([[("h0", "h1"), ("h2", "h0")]])
    assert ipsc_time(p, one, cs.AllToMany({("h0", "h1"): 1e6, ("h2", "h0"): 1e6}),
                     scheme="post_all") == pytest.approx(2 * 1.004, abs=1e-12)
    # the exchange h0 <-> h1 goes first (1.004 s), then h2 -> h0 (1.004 s)
    s = cs.StepSchedule.from_pairs([[("h0", "h1"), ("h1", "h0"), ("h2", "h0")]])
    assert ipsc_time(p, s, c, scheme="post_all") == pytest.approx(2 * 1.004, abs=1e-12)
    assert ipsc_time(p, s, c, scheme="post_all", pairwise=False) == pytest.approx(3 * 1.004, abs=1e-12)


def test_short_messages_skip_the_handshake_under_s2_only():
    p = _star(2)
    c = cs.AllToMany({("h0", "h1"): 100})
    s = cs.StepSchedule.from_pairs([[("h0", "h1")]])
    assert ipsc_time(p, s, c, scheme="post_all") == pytest.approx(0.002 + 1e-4, abs=1e-12)
    assert ipsc_time(p, s, c, scheme="ready") == pytest.approx(0.004 + 1e-4, abs=1e-12)


def test_lp_on_a_square_gains_exactly_half_from_pairwise_exchanges():
    p = cs.topologies.hypercube(2, bandwidth=1e6, latency=0.0)
    c = cs.AllToAll(senders=p.hosts, size=1e6)
    s = cs.plan(p, c, algorithm="lp")
    # 3 xor phases of exchanges: 3 s with the advantage, 6 s without
    assert ipsc_time(p, s, c, scheme="ready") == pytest.approx(3.0, abs=1e-12)
    assert ipsc_time(p, s, c, scheme="ready", pairwise=False) == pytest.approx(6.0, abs=1e-12)


def test_a_transfer_outside_the_collective_is_refused():
    p = _star(2)
    s = cs.StepSchedule.from_pairs([[("h0", "h1")]])
    with pytest.raises(cs.errors.ScheduleError, match="not a message of the collective"):
        ipsc_time(p, s, cs.AllToMany({("h1", "h0"): 1.0}), scheme="ready")
