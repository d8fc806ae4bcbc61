"""A lower bound on the makespan of any personalized exchange (all-to-all, all-to-some, all-to-many) under a model.

The open-shop bound of seed 004 (per-node send and receive sums under
one-port) and the per-link loads (Circuit, Fluid). The exchange families
(orderings, permutations) put it on their schedules; :mod:`collsched.bounds`
re-exports it beside the bounds of the other collectives.
"""

from __future__ import annotations

import numpy as np

from ...errors import CollectiveError
from ...platform.routes import PairRoutes, pair_routes
from ...schedules.base import Bound
from ...simulation.models import Circuit, Fluid, Model, OnePort
from .costs import Exchange

__all__ = ["exchange_bound"]


def _open_shop(x, sync: bool) -> tuple[float, str]:
    """Per-node port sums (sync: whole cost on both ports; async: o_s on the sender, o_r + m/B on the receiver)."""
    inf = np.inf
    if sync:
        rows, cols = x.cost.sum(axis=1), x.cost.sum(axis=0)
        best_s, best_r = float(rows.max(initial=0.0)), float(cols.max(initial=0.0))
    else:
        # a sender holds its port for every o_s, and its last message still travels and is received
        tail = np.where(x.mask, x.latency + x.recv, inf).min(axis=1)
        rows = x.send.sum(axis=1) + np.where(np.isfinite(tail), tail, 0.0)
        # a receiver holds its port for every o_r + m/B, after the first message could have arrived
        head = np.where(x.mask, x.send + x.latency, inf).min(axis=0)
        cols = x.recv.sum(axis=0) + np.where(np.isfinite(head), head, 0.0)
        best_s, best_r = float(rows.max(initial=0.0)), float(cols.max(initial=0.0))
    if best_s >= best_r:
        return best_s, "largest per-node send sum (open-shop bound)"
    return best_r, "largest per-node receive sum (open-shop bound)"


def _links(platform, collective, fluid: bool, routes: PairRoutes | None = None) -> tuple[float, str]:
    """Per link (direction) load: Circuit holds it L + m/B per message; Fluid carries m at its bandwidth.

    ``routes``: those of the collective's messages (``message_columns``) if
    the caller has them. The loads are summed hop by hop in message order,
    as a loop over the messages would sum them, so the figures are those of
    that loop to the last bit; among equal loads the link first met wins.
    """
    src, dst, size = collective.message_columns(platform)
    if routes is None:
        routes = pair_routes(platform, platform.hosts, src, dst)
    links = list(platform.links.values())
    fatpipe = np.array([link.sharing == "fatpipe" for link in links])
    two_way = np.array([link.sharing != "shared" for link in links])
    link_bw = np.array([link.bandwidth for link in links], dtype=np.float64)
    pair, hop_link, forward = routes.hop_pair, routes.hop_link, routes.hop_fwd
    if fatpipe.any():   # a fat pipe gives every flow its full bandwidth: no load
        kept = ~fatpipe[hop_link]
        pair, hop_link, forward = pair[kept], hop_link[kept], forward[kept]
    if not hop_link.shape[0]:
        return 0.0, "largest link load"
    # one key per link direction; a shared link's directions are one capacity
    key = 2 * hop_link + (two_way[hop_link] & ~forward)
    n_keys = 2 * len(links)
    if fluid:
        load = np.bincount(key, weights=size[pair] / link_bw[hop_link], minlength=n_keys)
        first = np.full(n_keys, np.inf)
        np.minimum.at(first, key, routes.latency[pair])
        score = load + first
    else:
        score = np.bincount(key, weights=routes.latency[pair] + size[pair] / routes.bandwidth[pair], minlength=n_keys)
    used = np.flatnonzero(np.bincount(key, minlength=n_keys))
    best = score[used].max()
    tied = used[score[used] == best]
    chosen = int(key[np.argmax(np.isin(key, tied))])  # the link direction met first
    return float(score[chosen]), f"largest link load (link {links[chosen // 2].id})"


def exchange_bound(platform, collective, *, model: Model) -> Bound:
    """A lower bound on the makespan of any schedule of a personalized exchange under ``model``.

    Parameters
    ----------
    platform : Platform
    collective : AllToAll or AllToMany
        An all-to-all, all-to-some (receiver subset) or all-to-many exchange.
    model : Model
        ``OnePort`` (``cost="linear"`` or ``"overheads"``, synchronous or
        not), ``Circuit`` or ``Fluid``.

    Returns
    -------
    Bound
        ``Bound(value, "makespan", name)``, ``name`` saying which term is the largest.

    Raises
    ------
    CollectiveError
        If ``collective`` is not a personalized exchange.
    ValueError
        If ``model`` is not a model this bound covers (``PLogP``, ``OnePort(cost="edges")``).

    Notes
    -----
    Synchronous OnePort: every message holds both end ports for
    ``o_s + L + o_r + m/B``, so each node's row sum and column sum of that
    cost matrix is a bound (the open-shop bound; it is reached exactly by a
    preemptive schedule, see ``open_shop_preemptive``). Asynchronous: a
    sender's port is held ``o_s`` per message and its last message needs at
    least ``L + o_r + m/B`` more; a receiver's port is held ``o_r + m/B``
    per message, the first no sooner than ``o_s + L``. Circuit and Fluid:
    the per-link-direction loads. With ``one_port=True`` the per-node sums
    of ``L + m/B`` (Circuit) or ``m/B`` (Fluid) are added as candidates.
    Cost: O(number of messages x route length).

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(3, bandwidth=1e6, latency=5e-4)
    >>> c = cs.AllToAll(senders=["h0", "h1"], receivers=["h2"], size=1e6)
    >>> b = exchange_bound(p, c, model=cs.models.Fluid())
    >>> round(b.value, 6), b.name
    (2.001, 'largest link load (link l2)')
    >>> exchange_bound(p, c, model=cs.models.OnePort(cost="edges"))
    Traceback (most recent call last):
    ...
    ValueError: exchange_bound option model=OnePort(sync=True, cost='edges', ties='fixed') is not covered (use OnePort linear or overheads, Circuit or Fluid)
    """
    covered = (isinstance(model, OnePort) and model.cost in ("linear", "overheads")) or \
        isinstance(model, (Circuit, Fluid))
    if not covered:
        raise ValueError(f"exchange_bound option model={model!r} is not covered "
                         "(use OnePort linear or overheads, Circuit or Fluid)")
    if collective.kind not in ("alltoall", "alltomany"):
        raise CollectiveError(f"exchange_bound needs a personalized exchange, not a {collective.kind}")
    candidates: list[tuple[float, str]] = []
    if isinstance(model, OnePort):
        x = Exchange.of(platform, collective, overheads=model.cost == "overheads")
        candidates.append(_open_shop(x, model.sync))
        candidates.append((float(x.cost.max(initial=0.0)), "longest single message"))
    else:
        src, dst, _ = collective.message_columns(platform)
        routes = pair_routes(platform, platform.hosts, src, dst)
        x = Exchange.of(platform, collective, overheads=False, routes=routes)
        candidates.append((float(x.cost.max(initial=0.0)), "longest single message"))
        candidates.append(_links(platform, collective, isinstance(model, Fluid), routes))
        if model.one_port:
            y = x if isinstance(model, Circuit) else Exchange(x.senders, x.receivers, x.mask, x.send,
                                                              np.zeros_like(x.latency), x.recv, x.recv)
            candidates.append(_open_shop(y, True))
    value, name = max(candidates, key=lambda vn: vn[0])
    return Bound(value, "makespan", name)


# --- bounds of any collective -----------------------------------------------------------
