"""Collectives: what must be communicated, as pure data.

Each collective names the hosts it involves and the sizes it moves, and says
what every host holds before (:meth:`~Collective.initial_values`) and must hold
after (:meth:`~Collective.final_values`) as symbolic values
(:class:`collsched.schedules.values.Value`), which is what
:func:`collsched.validate` checks programs against.

* :class:`Scatter` — the source sends a distinct message to every target;
* :class:`Gather` — every source sends a distinct message to the target;
* :class:`Broadcast` — the source sends the same message to every target;
* :class:`Reduce` — participants ``P_0 .. P_{n-1}`` (ordered) hold ``v_0 ..
  v_{n-1}``; the target must get ``v_0 ⊕ v_1 ⊕ ... ⊕ v_{n-1}`` for a
  non-commutative, associative ``⊕``; ``v[k..m]`` is a partial result;
* :class:`AllToAll` — every sender sends a distinct message to every receiver
  (a receiver subset gives all-to-some; a size matrix gives non-uniform sizes);
* :class:`AllToMany` — a sparse personalized exchange (COM matrix);
* :class:`AllGather` — every participant contributes a block and ends with
  every participant's block, in participant order (as N broadcasts);
* :class:`ReduceScatter` — participant ``j`` ends with block ``j`` of the
  reduction of every participant's vector (commutative or ordered operator);
* :class:`AllReduce` — every participant ends with the reduction of every
  participant's vector;
* :class:`Series` — ``count`` independent instances of a collective, pipelined.

Examples
--------
>>> from collsched import topologies
>>> p = topologies.star(4)
>>> c = Scatter(source="h0", targets=["h1", "h2", "h3"], size=1e6)
>>> c.validate(p)
>>> c.total_bytes
3000000.0
>>> Series(c, count=10).total_bytes
30000000.0
"""

from __future__ import annotations

from .base import Collective
from .broadcast import Broadcast
from .gpu import AllGather
from .personalized import AllToAll, AllToMany, Gather, Scatter
from .reduce import Reduce
from .reductions import AllReduce, ReduceScatter
from .series import Series

__all__ = ["Collective", "Scatter", "Gather", "Broadcast", "Reduce", "AllToAll", "AllToMany", "AllGather",
           "ReduceScatter", "AllReduce", "Series", "COLLECTIVE_KINDS"]

#: Every collective class by its ``kind``.
COLLECTIVE_KINDS = {c.kind: c for c in (Scatter, Gather, Broadcast, Reduce, AllToAll, AllToMany, AllGather,
                                        ReduceScatter, AllReduce, Series)}
