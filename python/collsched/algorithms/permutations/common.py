"""What the permutation algorithms share: the COM matrix in host indices, routes, pieces to steps.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3)
>>> com = com_matrix(p, cs.AllToMany({("h2", "h0"): 5, ("h0", "h1"): 7}))
>>> com.n, com.src.tolist(), com.dst.tolist(), com.size.tolist()
(3, [0, 2], [1, 0], [7.0, 5.0])
>>> com.row_ptr.tolist(), com.max_degree
([0, 1, 1, 2], 1)
"""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass

import numpy as np

from ...errors import CollectiveError
from ...schedules import StepSchedule, Transfer

__all__ = ["Com", "com_matrix", "route_resources", "steps_from_pieces", "check_kind"]

KINDS = ("alltomany", "alltoall")


def check_kind(collective, name: str):
    """The collective itself if it is an all-to-many or all-to-all, else a one-line error.

    Examples
    --------
    >>> import collsched as cs
    >>> check_kind(cs.Scatter(source="h0", targets=["h0", "h1"], size=1), "rs_n")
    Traceback (most recent call last):
    ...
    collsched.errors.CollectiveError: rs_n schedules an alltomany or alltoall, not a scatter
    """
    if collective.kind not in KINDS:
        raise CollectiveError(f"{name} schedules an alltomany or alltoall, not a {collective.kind}")
    return collective


@dataclass(frozen=True)
class Com:
    """The COM matrix, row-wise in platform host indices (the paper's ``P_0 .. P_{n-1}``).

    Attributes
    ----------
    n : int
        Number of hosts of the platform.
    hosts : tuple of str
    src, dst : int arrays
        Per message, sorted by source then destination.
    size : float array
        Bytes per message.
    row_ptr : int array
        Messages of source ``i``: ``row_ptr[i] .. row_ptr[i + 1]``.

    Examples
    --------
    >>> import collsched as cs
    >>> com = com_matrix(cs.topologies.star(3), cs.AllToMany({("h1", "h0"): 5, ("h2", "h0"): 7}))
    >>> com.hosts, com.max_degree
    (('h0', 'h1', 'h2'), 2)
    """

    n: int
    hosts: tuple[str, ...]
    src: np.ndarray
    dst: np.ndarray
    size: np.ndarray
    row_ptr: np.ndarray

    @property
    def max_degree(self) -> int:
        """Largest number of messages a host sends or receives: a lower bound on the phases.

        Examples
        --------
        >>> import collsched as cs
        >>> com_matrix(cs.topologies.star(3), cs.AllToMany({("h0", "h1"): 1, ("h0", "h2"): 1})).max_degree
        2
        """
        if len(self.src) == 0:
            return 0
        return int(max(np.bincount(self.src, minlength=self.n).max(), np.bincount(self.dst, minlength=self.n).max()))


def com_matrix(platform, collective) -> Com:
    """The COM matrix of ``collective`` on ``platform``.

    Parameters
    ----------
    platform : Platform
    collective : AllToMany or AllToAll

    Returns
    -------
    Com

    Raises
    ------
    PlatformError
        If a host of the collective is not a host of the platform.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> com = com_matrix(p, cs.AllToAll(senders=["h1", "h3"], size=2.0))
    >>> com.src.tolist(), com.dst.tolist(), com.row_ptr.tolist()
    ([1, 3], [3, 1], [0, 0, 1, 1, 2])
    """
    hosts = tuple(platform.hosts)
    msgs = collective.messages()
    index = {h: i for i, h in enumerate(hosts)}
    for h in collective.hosts:
        if h not in index:
            platform.host_index(h)  # raises the platform's one-line error
    src = np.array([index[s] for s, _, _ in msgs], dtype=np.int64)
    dst = np.array([index[d] for _, d, _ in msgs], dtype=np.int64)
    size = np.array([b for _, _, b in msgs], dtype=np.float64)
    order = np.lexsort((dst, src))
    src, dst, size = src[order], dst[order], size[order]
    row_ptr = np.zeros(len(hosts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=len(hosts)), out=row_ptr[1:])
    return Com(len(hosts), hosts, src, dst, size, row_ptr)


def route_resources(platform, com: Com) -> tuple[np.ndarray, np.ndarray, int]:
    """The exclusive resources of each message's route, as the Circuit model holds them.

    A full-duplex link gives one resource per direction, a shared (or
    directed) link one resource, a fatpipe link none (see
    :mod:`collsched.platform.routes`).

    Returns
    -------
    path_ptr, path : int arrays
        Resources of message ``m``: ``path[path_ptr[m]:path_ptr[m + 1]]``.
    n_resources : int
        ``2 * len(platform.links)``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.hypercube(2)
    >>> com = com_matrix(p, cs.AllToMany({("h0", "h3"): 1, ("h3", "h0"): 1}))
    >>> ptr, path, r = route_resources(p, com)
    >>> ptr.tolist(), r
    ([0, 2, 4], 8)
    """
    from ...platform.routes import channels, pair_routes, sharing_codes

    routes = pair_routes(platform, com.hosts, com.src, com.dst)
    chan = channels(platform, routes.hop_link, routes.hop_fwd)
    keep = sharing_codes(platform)[routes.hop_link] != 2
    per_pair = np.add.reduceat(keep.astype(np.int64), routes.hop_ptr[:-1]) if len(keep) else np.zeros(len(com.src), np.int64)
    per_pair = np.where(np.diff(routes.hop_ptr) == 0, 0, per_pair)
    path_ptr = np.zeros(len(com.src) + 1, dtype=np.int64)
    np.cumsum(per_pair, out=path_ptr[1:])
    return path_ptr, chan[keep].astype(np.int64), 2 * len(platform.links)


def steps_from_pieces(com: Com, msg, phase, start, end, *, denominator: int, algorithm: str,
                      params: dict) -> StepSchedule:
    """A step schedule from the pieces of a decomposition (``phase[p]`` sends ``start[p]:end[p]`` of ``msg[p]``).

    Whole messages (``0:denominator``) get no ``part``.

    Examples
    --------
    >>> import collsched as cs
    >>> com = com_matrix(cs.topologies.star(3), cs.AllToMany({("h0", "h1"): 4}))
    >>> s = steps_from_pieces(com, [0, 0], [0, 1], [0, 1], [1, 2], denominator=2, algorithm="x", params={})
    >>> s.steps[1]
    (Transfer(src='h0', dst='h1', inst=0, part=(1, 2), values=None),)
    """
    n_phases = int(max(phase)) + 1 if len(phase) else 0
    steps: list[list[Transfer]] = [[] for _ in range(n_phases)]
    h = com.hosts
    for m, k, a, b in zip(np.asarray(msg).tolist(), np.asarray(phase).tolist(), np.asarray(start).tolist(),
                          np.asarray(end).tolist()):
        part = None if (a, b) == (0, denominator) else (a, b)
        steps[k].append(Transfer(h[com.src[m]], h[com.dst[m]], part=part))
    return StepSchedule(steps=steps, denominator=denominator, algorithm=algorithm, params=params)


def with_bound(schedule: StepSchedule, platform, collective) -> StepSchedule:
    """The schedule with its bound: :func:`collsched.bounds.exchange_bound` under ``Circuit()``.

    Seed 002's machines are circuit-switched, so the Circuit model is the one
    the decompositions are judged under; the gap of a simulated makespan is
    ``schedule.bound.gap(makespan)``.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.hypercube(2, bandwidth=1e6, latency=0.0)
    >>> c = cs.AllToMany({("h0", "h1"): 1e6, ("h0", "h2"): 1e6})
    >>> s = with_bound(StepSchedule.from_pairs([[("h0", "h1")], [("h0", "h2")]]), p, c)
    >>> s.bound.value, s.bound.metric     # the two messages use different links: 1 s each, in parallel
    (1.0, 'makespan')
    """
    from ..orderings.exchange_bound import exchange_bound
    from ...simulation.models import Circuit

    return dataclasses.replace(schedule, bound=exchange_bound(platform, collective, model=Circuit()))
