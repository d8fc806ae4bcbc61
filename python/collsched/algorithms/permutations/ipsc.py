"""The iPSC/860 cost of a step schedule: half-duplex nodes, and a pairwise exchange for the price of one message.

Seed 002, section 2.1, observation 1: a node sends one and receives one
message at a time, but a send to ``P_j`` and a receive from ``P_k != P_j``
"rarely proceed concurrently"; only a *pairwise exchange* (``P_i`` and
``P_j`` send to each other, after a pairwise synchronization) is
guaranteed to. Neither collsched model has that asymmetry (``Circuit`` has
independent send and receive ports), so the variants that look for
pairwise exchanges (LP, RS_NP, RS_NLP, RS_NLPH) gain nothing there. This
module costs a schedule under the machine the paper describes:

* **a node is half duplex**: every message it sends or receives holds it;
* **circuit switching**: a message holds every link direction of its route
  (:func:`~collsched.algorithms.permutations.common.route_resources`);
* a message of ``m`` bytes from ``P_i`` to ``P_j`` lasts ``L_ij + m / B_ij``
  (route latency and bottleneck bandwidth of the platform);
* with ``pairwise=True``, two transfers ``i -> j`` and ``j -> i`` of the
  same step are **one exchange**: they start together and both end after
  ``max`` of their two durations (one message time, not two); with
  ``pairwise=False`` they are two messages like any other;
* a handshake of one route latency precedes the data: under scheme
  ``"ready"`` (S1) the receiver's 0-byte ready signal, under ``"post_all"``
  (S2) the iPSC/860's long-message protocol (the sender informs, the
  receiver requests), which S2 pays only for messages over 100 bytes
  (``SHORT``; shorter ones go straight).

Transfers are placed in schedule order (step by step, in the step's order),
each as early as its nodes and links are free: a list schedule, first come
first served, no overtaking of an earlier transfer on a shared resource.
What it ignores: the iPSC/860's short/long message protocols, copies
through system buffers (S2's cost for long messages), and any overlap of a
send with a receive other than an exchange.

Examples
--------
Two hosts of a 1 MB/s star (1 ms per link, so 2 ms per route) swap 1 MB
under S1 (2 ms of ready signal, 1.002 s of message): one exchange, 1.004 s,
instead of 2.008 s as two messages.

>>> import collsched as cs
>>> p = cs.topologies.star(2, bandwidth=1e6, latency=1e-3)
>>> c = cs.AllToMany({("h0", "h1"): 1e6, ("h1", "h0"): 1e6})
>>> s = cs.StepSchedule.from_pairs([[("h0", "h1"), ("h1", "h0")]])
>>> round(ipsc_time(p, s, c, scheme="ready"), 6), round(ipsc_time(p, s, c, scheme="ready", pairwise=False), 6)
(1.004, 2.008)
"""

from __future__ import annotations

import numpy as np

from ...errors import ScheduleError
from .common import com_matrix, route_resources

__all__ = ["ipsc_time", "SCHEMES", "SHORT"]

#: The execution schemes: seed 002's S1 (``"ready"``) and S2 (``"post_all"``).
SCHEMES = ("ready", "post_all")
#: Largest message (bytes) the iPSC/860 sends with its short protocol (no handshake).
SHORT = 100


def ipsc_time(platform, schedule, collective, *, scheme: str, pairwise: bool = True) -> float:
    """Makespan of ``schedule`` on the iPSC/860 model of this module (seconds).

    Parameters
    ----------
    platform : Platform
        Routes, route latencies and bottleneck bandwidths.
    schedule : StepSchedule
        Steps of direct transfers (parts of messages welcome).
    collective : AllToMany or AllToAll
        Gives each message's size.
    scheme : {"ready", "post_all"}
        S1 (a ready signal before each message) or S2 (a handshake before messages over ``SHORT`` bytes).
    pairwise : bool
        Charge a pairwise exchange of one step one message time.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``scheme`` is unknown.
    ScheduleError
        If a transfer is not one of the collective's messages.

    Notes
    -----
    ``O(T (n + h))`` for ``T`` transfers, ``n`` hosts, ``h`` hops per route.

    Examples
    --------
    ``h0 -> h1`` and ``h2 -> h0`` in one step: ``h0`` is half duplex, so the
    second waits for the first (2 ms of ready signal + 1.002 s each), with
    or without ``pairwise``.

    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
    >>> c = cs.AllToMany({("h0", "h1"): 1e6, ("h2", "h0"): 1e6})
    >>> s = cs.StepSchedule.from_pairs([[("h0", "h1"), ("h2", "h0")]])
    >>> round(ipsc_time(p, s, c, scheme="ready"), 6)
    2.008
    >>> c = cs.AllToMany({("h0", "h1"): 100, ("h2", "h0"): 100})  # short messages: S2 skips the handshake
    >>> round(ipsc_time(p, s, c, scheme="post_all"), 6)
    0.0042
    >>> ipsc_time(p, s, c, scheme="S3")
    Traceback (most recent call last):
    ...
    ValueError: unknown scheme 'S3'; expected one of ready, post_all

    References
    ----------
    S. Ranka and J.-C. Wang, "Static and runtime scheduling of unstructured
    communication", Syracuse University, 1993 (seed 002), sections 2.1 and 7.
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; expected one of {', '.join(SCHEMES)}")
    com = com_matrix(platform, collective)
    index = {h: i for i, h in enumerate(com.hosts)}
    msg_of = {(int(s), int(d)): m for m, (s, d) in enumerate(zip(com.src, com.dst))}
    path_ptr, path, n_res = route_resources(platform, com)
    lat, bw = platform.latency_matrix(), platform.bandwidth_matrix()
    node_free = np.zeros(com.n)
    link_free = np.zeros(n_res)
    den = schedule.denominator
    end = 0.0
    for step in schedule.steps:
        # step 1: the step's transfers as (i, j, message, handshake seconds, seconds on the wire)
        items = []
        for t in step:
            i, j = index[t.src], index[t.dst]
            m = msg_of.get((i, j))
            if m is None:
                raise ScheduleError(f"transfer {t.src} -> {t.dst} is not a message of the collective",
                                    fix="cost a schedule planned for this collective")
            share = 1.0 if t.part is None else (t.part[1] - t.part[0]) / den
            size = com.size[m] * share
            shake = lat[j, i] if scheme == "ready" or size > SHORT else 0.0
            items.append((i, j, m, shake, lat[i, j] + size / bw[i, j]))
        # step 2: pair i -> j with j -> i (the first of each, in step order)
        partner: dict[int, int] = {}
        if pairwise:
            first = {(i, j): k for k, (i, j, *_) in reversed(list(enumerate(items)))}
            for k, (i, j, *_) in enumerate(items):
                r = first.get((j, i))
                if r is not None and k not in partner and r not in partner and first[i, j] == k:
                    partner[k], partner[r] = r, k
        # step 3: place each transfer (or exchange) as early as its nodes and links are free
        for k, (i, j, *_) in enumerate(items):
            group = [k] if k not in partner else ([k, partner[k]] if k < partner[k] else [])
            if not group:
                continue
            nodes = [i, j]
            links = np.concatenate([path[path_ptr[items[g][2]]:path_ptr[items[g][2] + 1]] for g in group])
            start = max(float(node_free[nodes].max()), float(link_free[links].max()) if len(links) else 0.0)
            finish = start + max(items[g][3] + items[g][4] for g in group)
            node_free[nodes] = finish
            if len(links):
                link_free[links] = finish
            end = max(end, float(finish))
    return float(end)
