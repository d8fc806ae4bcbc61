"""Fuzzing MSCCL files: random byte-level and attribute mutants of the reference files raise one-line errors only."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from collsched.errors import CollschedError
from collsched.interop import msccl

DATA = Path(__file__).parent / "data"
TEXTS = [(DATA / n).read_text() for n in ("allgather_ring_4_2_1.xml", "allgather_allpairs.xml", "allreduce_a100_ring.xml",
                                          "alltoall_allpairs.xml")]
TOKENS = ['"-1"', '"0"', '"1"', '"7"', '"8"', '"99"', '"x"', '""', '"s"', '"i"', '"o"', '"nop"', '"re"', "<", ">", "/>",
          "</tb>", "", '"rrc"', '"2"', '"1000000000"', '"65536"', '"-5"', '"64"']


def mutate(text: str, at: int, choice: int, cut: int) -> str:
    """One mutant: an attribute value replaced, or the text cut, or a slice deleted."""
    kind = choice % 3
    if kind == 0:
        quotes = [k for k, ch in enumerate(text) if ch == '"']
        if len(quotes) >= 2:
            q = quotes[(at % (len(quotes) // 2)) * 2]
            end = text.index('"', q + 1)
            return text[:q] + TOKENS[choice % len(TOKENS)] + text[end + 1:]
    if kind == 1:
        return text[:at % (len(text) + 1)]
    a = at % (len(text) + 1)
    return text[:a] + text[a + cut % 40:]


def run_one(text: str) -> str:
    """``ok`` or ``error``; anything but a CollschedError propagates (a crash)."""
    try:
        msccl.check_text(text)
    except CollschedError as exc:
        assert "\n" not in str(exc)
        return "error"
    return "ok"


@seed(20261124)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(TEXTS) - 1), st.integers(0, 10 ** 6), st.integers(0, 10 ** 6), st.integers(0, 200))
def test_mutants_raise_one_line_errors(which, at, choice, cut):
    assert run_one(mutate(TEXTS[which], at, choice, cut)) in ("ok", "error")
