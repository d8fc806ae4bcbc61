"""The column-wise periodic lowering reads a pattern once per schedule and ranks, with the garbage collector paused."""

import gc

import pytest

from collsched.schedules import periodic_columns


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after(enabled):
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with periodic_columns._collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(KeyError):
            with periodic_columns._collector_paused():
                raise KeyError("a slot names a node that is not a rank")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def _relay():
    from fractions import Fraction

    from collsched.schedules.periodic import PeriodicSchedule, PeriodicTransfer, Slot
    from collsched.schedules.values import block

    hop1 = PeriodicTransfer("h0", "h1", [block(0, 0, 2)], 1e3)
    hop2 = PeriodicTransfer("h1", "h2", [block(-1, 0, 2)], 1e3)
    return PeriodicSchedule(throughput=1000, period=Fraction(1, 1000), slots=[Slot(Fraction(1, 1000), [hop1, hop2])])


@pytest.mark.parametrize("count", [1, 5, 12])
def test_the_pattern_is_read_once_per_ranks_and_the_programs_stay_the_builders(count, monkeypatch):
    import collsched as cs
    from collsched.schedules.periodic import lower_with_builder

    s = _relay()
    reads = []
    original = periodic_columns._Pattern

    def counted(*args):
        reads.append(args[1])
        return original(*args)

    monkeypatch.setattr(periodic_columns, "_Pattern", counted)
    star, other = cs.topologies.star(3), cs.topologies.star(4)
    first = periodic_columns.periodic_program(s, s.ranks(star), count)
    assert periodic_columns.periodic_program(s, s.ranks(star), count) == first == lower_with_builder(s, star, count)
    assert len(reads) == 1
    assert periodic_columns.periodic_program(s, s.ranks(other), count) == lower_with_builder(s, other, count)
    assert len(reads) == 1 + (s.ranks(other) != s.ranks(star))
    assert periodic_columns.periodic_program(s, ["h0"], count) is None  # a node that is not a rank, as before


def test_the_rust_reader_reads_a_pattern_as_python_does():
    """``_core.pattern_columns`` against the Python reading it replaces, on a seeded pattern of pieces and whole
    values (blocks, partial results, reductions of up to 62 operands); a node that is not a rank is a KeyError."""
    import random
    from fractions import Fraction

    import numpy as np

    from collsched import _core
    from collsched.schedules.periodic import PeriodicTask, PeriodicTransfer
    from collsched.schedules.values import Piece, Value

    rng = random.Random(7)
    index = {f"h{i}": i for i in range(5)}

    def item():
        v = Value(rng.randrange(3), rng.randrange(-50, 50), rng.randrange(-1, 2 ** 62), rng.randrange(-1, 64))
        return Piece(v, rng.randrange(4), 4 + rng.randrange(4)) if rng.random() < 0.7 else v

    host = lambda: f"h{rng.randrange(5)}"  # noqa: E731
    trs = [PeriodicTransfer(host(), host(), [item() for _ in range(rng.randrange(4))], 1.0) for _ in range(300)]
    tks = [PeriodicTask(host(), [item() for _ in range(rng.randrange(1, 4))], item(), Fraction(rng.randrange(9), 7))
           for _ in range(200)]
    fast = _core.pattern_columns(trs, tks, index, 8)
    reader = periodic_columns._Pattern.__new__(periodic_columns._Pattern)
    slow = reader._read_python(trs, tks, index, 8)
    for got, name in zip(fast[:6], ("tr_src", "tr_dst", "tr_count", "tk_node", "tk_count", "tk_cost")):
        assert got.tolist() == getattr(reader, name).tolist(), name
    rows = fast[6].reshape(-1, 6)
    others = [0, 1, 3, 4, 5]  # kind, instance, b, start, end
    assert rows.dtype == np.int64 and rows[:, others].tolist() == np.stack(slow, axis=1)[:, others].tolist()
    masks = reader._big_masks  # Python numbers every reduction's mask; the reader keeps the masks themselves
    assert rows[:, 2].tolist() == [masks[a] if k == 2 else a for k, a in zip(slow[0].tolist(), slow[2].tolist())]
    with pytest.raises(KeyError):
        _core.pattern_columns([PeriodicTransfer("h0", "nowhere", [Value(0, 0, 0, 1)], 1.0)], [], index, 8)
    with pytest.raises(OverflowError):
        _core.pattern_columns([PeriodicTransfer("h0", "h1", [Value(2, 0, 1 << 70, 0)], 1.0)], [], index, 8)


@pytest.mark.parametrize("count", [1, 4, 9])
def test_masks_beyond_64_bits_are_read_as_python_ints_and_the_program_stays_the_builders(count):
    """A commutative reduction of more than 63 operands: its masks do not fit an int64, so the pattern's values are
    read in Python (the Rust reader raises OverflowError); the program and its operand sets are the builder's."""
    from fractions import Fraction

    import collsched as cs
    from collsched.schedules.periodic import PeriodicSchedule, PeriodicTask, PeriodicTransfer, Slot, lower_with_builder
    from collsched.schedules.values import Piece, block, reduced

    big, other, joint = reduced(0, [0, 70]), reduced(0, [3]), reduced(0, [0, 3, 70])
    slots = [Slot(Fraction(1), [PeriodicTransfer("h0", "h1", [big], 8.0),
                                PeriodicTransfer("h1", "h2", [Piece(block(-1, 1, 2), 0, 1)], 4.0)],
                  [PeriodicTask("h1", [Piece(big, 0, 2), Piece(other, 0, 2)], Piece(joint, 0, 2), 1.0)]),
             Slot(Fraction(1), [PeriodicTransfer("h1", "h0", [Piece(joint, 1, 2)], 4.0)])]
    s = PeriodicSchedule(throughput=1, period=2, slots=slots, denominator=2, algorithm="hand")
    p = cs.topologies.star(3)
    fast = periodic_columns.periodic_program(s, s.ranks(p), count)
    slow = lower_with_builder(s, p, count)
    assert fast == slow and fast.operand_sets == slow.operand_sets
    assert fast.operand_sets == ((1 << 70) | 1, 0b1000, (1 << 70) | 0b1001)
    assert s.__dict__["_pattern"][1]._big_masks == [(1 << 70) | 1, (1 << 70) | 0b1001, 0b1000]  # read in Python


def test_an_extension_without_the_reader_reads_in_python_the_same_program(monkeypatch):
    """An extension built before ``pattern_columns`` (a worktree's stale copy) lowers through the Python reader."""
    import collsched as cs
    from collsched import _core
    from collsched.schedules.periodic import lower_with_builder

    monkeypatch.delattr(_core, "pattern_columns")
    s = _relay()
    star = cs.topologies.star(3)
    assert periodic_columns.periodic_program(s, s.ranks(star), 7) == lower_with_builder(s, star, 7)


@pytest.mark.parametrize("seed", range(4))
def test_values_numbered_in_rust_as_by_the_integer_sort(seed):
    """``_core.number_values`` numbers values by first appearance as ``_first_of_each`` and a stable sort do."""
    import numpy as np

    from collsched import _core

    rng = np.random.default_rng(seed)
    kind, a, b = (rng.integers(-3, 4, 5000), rng.integers(-(2 ** 40), 2 ** 40, 5000) // 2 ** 37,
                  rng.integers(0, 5, 5000))
    first, inverse = periodic_columns._first_of_each(kind, a, b)
    by_first = np.argsort(first, kind="stable")
    rank = np.empty(len(first), np.int64)
    rank[by_first] = np.arange(len(first))
    vid, at = _core.number_values(kind, a, b)
    assert vid.tolist() == rank[inverse].tolist() and at.tolist() == first[by_first].tolist()
    with pytest.raises(ValueError, match="differ in length"):
        _core.number_values(kind, a[:3], b)


def test_without_the_rust_numbering_the_program_stays_the_builders(monkeypatch):
    """An extension built before ``number_values`` numbers values by the integer sort: the same program."""
    import collsched as cs
    from collsched import _core
    from collsched.schedules.periodic import lower_with_builder

    monkeypatch.delattr(_core, "number_values")
    s, star = _relay(), cs.topologies.star(3)
    assert periodic_columns.periodic_program(s, s.ranks(star), 7) == lower_with_builder(s, star, 7)
