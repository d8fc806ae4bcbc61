"""The validator's array path for exchanges against its path through Python values: the same rows, weights, errors.

An all-to-all's or all-to-many's values are whole blocks; the validator
builds their rows and weighs their pieces with arrays. Here every such
collective (sizes uniform, a matrix with holes, all-to-some, sparse, a
series) gives the rows the generic path builds from
:meth:`Collective.values`, the weights its sizer gives, and the same
verdicts and messages on programs that are right, that miss a rank, or
that carry a block the exchange does not have.
"""

from __future__ import annotations

import numpy as np
import pytest

import collsched as cs
from collsched.schedules import ProgramBuilder, block
from collsched.schedules.validate import _rows, _value_rows, _whole_weights

P = cs.topologies.star(5)
H = P.hosts
EXCHANGES = [
    cs.AllToAll(senders=H, size=1e3),
    cs.AllToAll(senders=["h3", "h0", "h4"], size=[[0, 2, 0], [5, 0, 7], [1, 0, 0]]),
    cs.AllToAll(senders=H, receivers=["h1", "h4"], size=3.5),
    cs.AllToMany({("h4", "h0"): 10.0, ("h0", "h2"): 20.0, ("h2", "h4"): 1.5}),
    cs.Series(cs.AllToAll(senders=["h1", "h2", "h3"], size=8.0), count=3),
]


def generic_rows(program, collective):
    rank_of = {name: i for i, name in enumerate(program.ranks)}
    initial, final = collective.values(P)
    sets = list(program.operand_sets)
    return (_rows(program, initial, rank_of, "starts with", sets, P),
            _rows(program, final, rank_of, "must end with", sets, P))


def direct_program(collective, *, ranks=H, denominator: int = 1):
    """Every block sent directly, at once, in message order."""
    b = ProgramBuilder(ranks, denominator=denominator)
    for t in range(collective.count):
        for s, r, m in collective.base.messages():
            b.send(s, r, [block(t, P.host_index(s), P.host_index(r))], size=m)
    return b.build()


@pytest.mark.parametrize("collective", EXCHANGES, ids=lambda c: f"{c.kind}-{c.count}")
@pytest.mark.parametrize("denominator", [1, 4])
def test_rows_and_weights_are_those_of_the_values(collective, denominator):
    program = direct_program(collective, denominator=denominator)
    rank_of = {name: i for i, name in enumerate(program.ranks)}
    fast = _value_rows(program, collective, rank_of, list(program.operand_sets), P)
    slow = generic_rows(program, collective)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(fast, slow))
    sizer = collective.sizer(P)
    expected = [sizer(program.value_of(row)) for row in program.pieces]
    assert _whole_weights(P, collective, program).tolist() == expected
    cs.validate(P, collective, program)


@pytest.mark.parametrize("collective", EXCHANGES, ids=lambda c: f"{c.kind}-{c.count}")
def test_a_missing_rank_is_named_as_the_values_name_it(collective):
    hosts = collective.base.hosts
    for dropped in (hosts[0], hosts[-1]):
        program = ProgramBuilder([h for h in H if h != dropped]).build()
        with pytest.raises(cs.ValidationError) as fast:
            cs.validate(P, collective, program)
        with pytest.raises(cs.ValidationError) as slow:
            generic_rows(program, collective)
        assert str(fast.value) == str(slow.value)
        assert f"has no rank for host {dropped!r}" in str(fast.value)


def test_a_block_the_exchange_lacks_is_weighed_by_the_sizer():
    c = cs.AllToMany({("h0", "h1"): 4.0})
    b = ProgramBuilder(H)
    b.send("h0", "h1", [block(0, 0, 1)], size=4.0)
    b.send("h2", "h3", [block(0, 2, 3)], size=4.0)
    with pytest.raises(KeyError):   # the sizer's answer, as before the array path
        _whole_weights(P, c, b.build())
