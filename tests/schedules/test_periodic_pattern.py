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
