"""The column-wise periodic lowering pauses Python's garbage collector while it reads a pattern, and only then."""

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
