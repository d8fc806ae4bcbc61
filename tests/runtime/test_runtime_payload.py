"""The data the runtime moves: deterministic, non-commutative, every corruption detected (no MPI needed)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from collsched.runtime import payload
from collsched.runtime.execute import RankPlan, _compute, check_finals, check_received
from collsched.schedules.program import ProgramBuilder
from collsched.schedules.values import Piece, block, partial


def test_partials_are_products_in_operand_order():
    v = payload.content(partial(2, 1, 3), 0)
    ops = [payload.operand(2, k, 0) for k in (1, 2, 3)]
    assert np.array_equal(v, payload.matmul(payload.matmul(ops[0], ops[1]), ops[2]))
    assert not np.array_equal(v, payload.matmul(payload.matmul(ops[2], ops[1]), ops[0]))
    assert np.all((v >= 0) & (v < payload.PRIME))


def test_matmul_is_exact_modulo_the_prime():
    rng = np.random.default_rng(0)
    a, b = (rng.integers(0, payload.PRIME, size=(2, 2)) for _ in range(2))
    exact = [[sum(int(a[i, k]) * int(b[k, j]) for k in range(2)) % payload.PRIME for j in range(2)] for i in range(2)]
    assert payload.matmul(a, b).tolist() == exact


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 3), st.integers(1, 4)), min_size=1, max_size=5))
def test_header_round_trip(spec):
    pieces = [Piece(partial(0, k, k + 1) if is_partial else block(0, k, k + 1), 0, n) for is_partial, k, n in spec]
    store = {(p.value, s): payload.content(p.value, s) for p in pieces for s in range(p.start, p.end)}
    words = payload.header(pieces, store)
    assert words.shape[0] == payload.header_words(pieces)
    for key, got in payload.split_header(words, pieces):
        assert np.array_equal(got, store[key])


def test_a_computation_combines_segment_by_segment():
    store = {(partial(0, k, k), s): payload.operand(0, k, s) for k in (0, 1) for s in (0, 1)}
    _compute([Piece(partial(0, 0, 0), 0, 2), Piece(partial(0, 1, 1), 0, 2), Piece(partial(0, 0, 1), 0, 2)], store)
    assert check_finals([partial(0, 0, 1)], store, 2) == []


def test_every_flipped_byte_is_found():
    b = ProgramBuilder(["a", "b"])
    b.send("a", "b", [Piece(partial(0, 0, 1), 0, 1)], size=100)
    plan = RankPlan(b.build(), 1)
    good = np.concatenate([payload.content(partial(0, 0, 1), 0).reshape(-1).view(np.uint8), payload.filler(68, 0, 3)])
    assert check_received(plan, [(1, good)], 3) == []
    assert check_received(plan, [(1, good)], 4) != []  # another repetition's filler
    for i in (0, 31, 32, 99):
        bad = good.copy()
        bad[i] ^= 0x10
        expected = f"op 1 (recv msg 0 from a): byte {i} of 100 differs from what a sent"
        assert check_received(plan, [(1, bad)], 3) == [expected]
