"""The Fluid model's stage table compiled in the Rust core, from routes cached per platform.

:func:`fluid_stages` is what :func:`collsched.simulation.simulate` does
first under :class:`~collsched.simulation.models.Fluid`: the routes of
every ordered pair of hosts, as the flows' channel sets, latencies and
caps (:class:`HostPairs`), are computed once per platform and kept on it
(a platform is sealed: its routes never change), in the Rust core too
(:func:`~collsched.platform.routes.host_routes`, then
``collsched._core.fluid_pair_table``: one pass over the hops, no Python
object per pair); the core
(``collsched._core.fluid_stages``, ``crates/core/src/compile.rs``) then
reads the program's columns once and writes the stage table and the bytes
crossing each channel, without a Python object per message. The table is
the one :meth:`Fluid.stages <collsched.simulation.models.Model.stages>`
compiles, array for array, and the links' busy times those of
:func:`~collsched.simulation.routes.link_busy`, to the last bit.

It answers None, and the caller compiles the slow way, when a rank is not
a host, the platform has more than :data:`MAX_HOSTS` hosts or a host pair
without a route, the program is not well formed (the slow way names the
fault), or the table is not built yet and the program's messages are
fewer than a quarter of the host pairs (routing every pair would cost more
than routing the program's).

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(3, bandwidth=1e6, latency=1e-3)
>>> b = cs.ProgramBuilder(p.hosts)
>>> _ = b.send("h0", "h2", [], size=1e6)
>>> _ = b.send("h1", "h2", [], size=1e6)
>>> table, busy = fluid_stages(p, b.build(), cs.models.Fluid(), build=True)
>>> table.chan.tolist(), table.amount.tolist(), busy.tolist()
([0, 5, 2, 5], [0.002, 1000000.0, 0.0, 0.002, 1000000.0, 0.0], [1.0, 1.0, 2.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..platform.routes import host_routes
from .routes import link_numbers, sharing_codes
from .stages import StageTable

if TYPE_CHECKING:  # pragma: no cover
    from ..platform import Platform
    from ..schedules.program import Program
    from .models import Fluid

__all__ = ["HostPairs", "host_pairs", "fluid_stages", "MAX_HOSTS"]

MAX_HOSTS = 2048   # the table of every host pair: at most 4 M pairs
_I = np.int64
_CACHE = "_fluid_host_pairs"


@dataclass(frozen=True, eq=False)
class HostPairs:
    """The Fluid quantities of every ordered pair of hosts ``(a, b)``, pair ``a * n_hosts + b``.

    Attributes
    ----------
    n_hosts : int
    ptr, chan : int64 arrays
        CSR: the distinct channels of each pair's route, fatpipe hops left out (what a flow crosses).
    latency, cap : float64 arrays
        Route latency sum; the least bandwidth of the route's fatpipe hops (``inf`` without any).
    busy_ptr, busy_chan : int64 arrays
        CSR: the channel of every hop of each pair's route (what the links' busy times count).
    capacities : float64 array
        Bytes/s of every channel (two per link).
    speed : float64 array
        Flop/s of every host.

    Examples
    --------
    >>> import collsched as cs
    >>> t = host_pairs(cs.topologies.star(2, latency=1e-3))
    >>> t.ptr.tolist(), t.chan.tolist(), t.latency.tolist()
    ([0, 0, 2, 4, 4], [0, 3, 2, 1], [0.0, 0.002, 0.002, 0.0])
    """

    n_hosts: int
    ptr: np.ndarray
    chan: np.ndarray
    latency: np.ndarray
    cap: np.ndarray
    busy_ptr: np.ndarray
    busy_chan: np.ndarray
    capacities: np.ndarray
    speed: np.ndarray


def host_pairs(platform: Platform, *, build: bool = True) -> HostPairs | None:
    """The platform's :class:`HostPairs`, computed on first use and kept on the platform (None if impossible).

    Parameters
    ----------
    platform : Platform
    build : bool
        If False, only a table already computed is returned (else None).

    Returns
    -------
    HostPairs or None
        None beyond :data:`MAX_HOSTS` hosts or when a pair of hosts has no route.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(4)
    >>> host_pairs(p, build=False) is None, host_pairs(p) is host_pairs(p, build=False)
    (True, True)
    """
    found = platform.__dict__.get(_CACHE, False)
    if found is not False or not build:
        return found or None
    n = len(platform.hosts)
    table = None
    found = host_routes(platform) if n <= MAX_HOSTS else None
    if found is not None:
        from .. import _core

        hop_ptr, arcs = found
        latency, bandwidth = link_numbers(platform)
        ptr, chan, pair_latency, cap, busy_chan = _core.fluid_pair_table(hop_ptr, arcs, sharing_codes(platform),
                                                                         latency, bandwidth)
        table = HostPairs(n, ptr, chan, pair_latency, cap, hop_ptr, busy_chan, np.repeat(bandwidth, 2),
                          np.array([platform.nodes[h].speed for h in platform.hosts], dtype=np.float64))
    platform.__dict__[_CACHE] = table
    return table


def fluid_stages(platform: Platform, program: Program, model: Fluid, *,
                 build: bool | None = None) -> tuple[StageTable, np.ndarray] | None:
    """The stage table of ``program`` under ``model`` and the busy time of every link, or None (see the module doc).

    Parameters
    ----------
    platform : Platform
    program : Program
    model : Fluid
    build : bool, optional
        Whether to compute the platform's :class:`HostPairs` if it has none
        yet; by default, when the program has at least a quarter as many
        messages as there are host pairs.

    Returns
    -------
    (StageTable, numpy float64 array) or None
        The table (as ``model.stages(program, platform)``) and
        :func:`~collsched.simulation.routes.link_busy`.

    Examples
    --------
    >>> import collsched as cs
    >>> p = cs.topologies.star(2)
    >>> b = cs.ProgramBuilder(p.hosts)
    >>> _ = b.send("h0", "h1", [], size=1)
    >>> fluid_stages(p, b.build(), cs.models.Fluid(), build=False) is None   # no table yet
    True
    >>> fluid_stages(p, b.build(), cs.models.Fluid())[0].kind.tolist()
    [1, 2, 1]
    """
    where = platform._host_index
    if not all(r in where for r in program.ranks):
        return None
    n = len(platform.hosts)
    table = host_pairs(platform, build=False)
    if table is None and (build or (build is None and 4 * program.n_messages >= n * (n - 1))):
        table = host_pairs(platform)
    if table is None:
        return None
    from .. import _core

    rank_host = np.fromiter((where[r] for r in program.ranks), dtype=_I, count=len(program.ranks))
    cols = [np.ascontiguousarray(getattr(program, c), dtype=_I) for c in ("op_rank", "op_kind", "op_peer", "op_msg")]
    out = _core.fluid_stages(len(program.ranks), *cols, np.ascontiguousarray(program.op_size, dtype=np.float64),
                             rank_host, table.speed[rank_host], n, table.ptr, table.chan, table.latency, table.cap,
                             table.busy_ptr, table.busy_chan, table.capacities.shape[0], one_port=model.one_port)
    if out is None:
        return None
    (act_ptr, kind, res_ptr, res, chan_ptr, chan, sender_done, recv_begins), amount, cap, needs_recv, per_channel = out
    stages = StageTable(act_ptr=act_ptr, kind=kind, amount=amount, res_ptr=res_ptr, res=res, chan_ptr=chan_ptr,
                        chan=chan, cap=cap, needs_recv=needs_recv, sender_done=sender_done, recv_begins=recv_begins,
                        n_resources=3 * len(program.ranks), capacities=table.capacities)
    bandwidth = table.capacities[0::2]   # the links' (capacities: each twice)
    return stages, per_channel.reshape(-1, 2).max(axis=1) / bandwidth if bandwidth.shape[0] else np.zeros(0)
