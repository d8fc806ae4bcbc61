"""Stage tables as the models build them: the vectorised interleaving and joining against obvious loops."""

from __future__ import annotations

import numpy as np
import pytest

from collsched.simulation.stages import DELAY, FLOW, HOLD, Part, Slot, _interleave


def _interleave_by_loops(csrs, n):
    """Stage ``a*k + j`` gets row ``a`` of ``csrs[j]``: the obvious construction."""
    ptr, out = [0], []
    for a in range(n):
        for p, idx in csrs:
            out += idx[p[a]:p[a + 1]].tolist()
            ptr.append(len(out))
    return ptr, out


def _random_csr(rng, n, empty):
    counts = np.zeros(n, np.int64) if empty else rng.integers(0, 4, n)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return ptr, rng.integers(0, 50, int(ptr[-1])).astype(np.int64)


@pytest.mark.parametrize("filled", [(), (0,), (1,), (2,), (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("n", [0, 1, 7])
def test_interleave_matches_the_loops(filled, n):
    rng = np.random.default_rng(sum(filled) * 10 + n)
    csrs = [_random_csr(rng, n, empty=j not in filled) for j in range(3)]
    ptr, out = _interleave(csrs, n)
    want_ptr, want = _interleave_by_loops(csrs, n)
    assert (ptr.tolist(), out.tolist()) == (want_ptr, want)


def _fields(part: Part) -> dict:
    return {name: getattr(part, name).tolist() for name in
            ("act_ptr", "kind", "amount", "res_ptr", "res", "chan_ptr", "chan", "cap", "needs_recv")}


def test_join_skips_empty_parts_and_keeps_a_lone_part():
    flows = Part.uniform(2, [Slot(DELAY, np.array([1.0, 2.0])),
                             Slot(FLOW, np.array([5.0, 6.0]), chan=np.array([[0, 1], [2, 3]]))])
    holds = Part.uniform(1, [Slot(HOLD, np.array([3.0]), res=np.array([[4]]))])
    empty = Part.uniform(0, [Slot(HOLD, np.zeros(0))])
    assert Part.join([flows, empty]) is flows
    assert _fields(Part.join([empty, flows, empty, holds])) == _fields(Part.join([flows, holds]))
    joined = Part.join([flows, holds])
    assert joined.act_ptr.tolist() == [0, 2, 4, 5]
    assert joined.res_ptr.tolist() == [0, 0, 0, 0, 0, 1] and joined.res.tolist() == [4]
    assert joined.chan_ptr.tolist() == [0, 0, 2, 2, 4, 4] and joined.chan.tolist() == [0, 1, 2, 3]
    assert _fields(Part.join([empty])) == _fields(empty)
