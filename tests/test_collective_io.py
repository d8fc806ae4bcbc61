"""Tests of collectives as JSON documents (collsched.collective_io)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collsched import topologies
from collsched.collective_io import (collective_from_json, collective_to_dict, collective_to_json, load_collective,
                                     save_collective)
from collsched.collectives import AllToAll, AllToMany, Broadcast, Gather, Reduce, Scatter, Series
from collsched.errors import CollectiveError, FormatError

FAST = settings(max_examples=30, deadline=None)
HOSTS = ["h0", "h1", "h2", "h3", "h4", "n\u00e9", "a b"]


def document(collective: dict) -> str:
    return json.dumps({"format": "collsched", "version": 1, "kind": "collective", "collective": collective})


def error_of(text: str, where: str = "coll.json") -> str:
    with pytest.raises(FormatError) as info:
        collective_from_json(text, where=where)
    message = str(info.value)
    assert "\n" not in message
    return message


# --- random collectives ---------------------------------------------------------------

sizes = st.floats(min_value=1e-3, max_value=1e12, allow_nan=False, allow_infinity=False)
host_lists = st.lists(st.sampled_from(HOSTS), min_size=1, max_size=5, unique=True)


@st.composite
def reduces(draw):
    participants = draw(host_lists)
    n = len(participants)
    ranges = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).map(sorted).map(tuple)
    tasks = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(0, n - 1)).map(sorted).map(tuple) \
        .filter(lambda t: t[1] < t[2])
    return Reduce(participants=participants, target=draw(st.sampled_from(HOSTS)), size=draw(sizes),
                  task_cost=draw(st.one_of(st.just(0.0), sizes)),
                  partial_sizes=draw(st.dictionaries(ranges, sizes, max_size=3)),
                  task_costs=draw(st.dictionaries(tasks, sizes, max_size=3) if n > 1 else st.just({})))


@st.composite
def alltoalls(draw):
    senders = draw(host_lists)
    receivers = draw(st.one_of(st.none(), host_lists))
    cols = len(receivers if receivers is not None else senders)
    matrix = st.lists(st.lists(st.one_of(st.just(0.0), sizes), min_size=cols, max_size=cols),
                      min_size=len(senders), max_size=len(senders))
    size = draw(st.one_of(sizes, matrix))
    try:
        return AllToAll(senders=senders, receivers=receivers, size=size)
    except CollectiveError:  # no message at all (one host, or an all-zero matrix)
        return AllToAll(senders=["h0", "h1"], size=1.0)


pairs = st.tuples(st.sampled_from(HOSTS), st.sampled_from(HOSTS)).filter(lambda p: p[0] != p[1])
bases = st.one_of(
    st.builds(Scatter, source=st.sampled_from(HOSTS), targets=host_lists, size=sizes),
    st.builds(Gather, sources=host_lists, target=st.sampled_from(HOSTS), size=sizes),
    st.builds(Broadcast, source=st.sampled_from(HOSTS), targets=host_lists, size=sizes),
    reduces(), alltoalls(),
    st.builds(AllToMany, st.dictionaries(pairs, sizes, min_size=1, max_size=6)),
)
collectives = st.one_of(bases, st.builds(Series, bases, count=st.integers(1, 1000)))


@FAST
@given(collectives)
def test_round_trip_is_exact(c):
    text = collective_to_json(c)
    back = collective_from_json(text)
    assert back == c and type(back) is type(c)
    assert collective_to_json(back) == text  # the same data gives the same text


def test_files_round_trip(tmp_path):
    p = topologies.star(4)
    c = Series(AllToAll(senders=p.hosts, receivers=p.hosts[:2], size=np.arange(8.0).reshape(4, 2) + 1), count=3)
    save_collective(c, tmp_path / "c.json")
    back = load_collective(tmp_path / "c.json")
    assert back == c
    back.validate(p)


def test_layout():
    r = Reduce(participants=["h0", "h1", "h2"], target="h2", size=8, task_cost=100,
               partial_sizes={(0, 1): 16}, task_costs={(0, 1, 2): 50})
    assert collective_to_dict(Series(r, count=2)) == {
        "type": "series", "count": 2, "of": {
            "type": "reduce", "participants": ["h0", "h1", "h2"], "target": "h2", "size": 8.0, "task_cost": 100.0,
            "partial_sizes": [{"k": 0, "m": 1, "size": 16.0}], "task_costs": [{"k": 0, "l": 1, "m": 2, "cost": 50.0}]}}
    assert collective_to_dict(AllToMany({("a", "b"): 3})) == {
        "type": "alltomany", "messages": [{"src": "a", "dst": "b", "size": 3.0}]}
    assert collective_to_dict(AllToAll(senders=["a", "b"], size=[[0, 1], [2, 0]]))["size"] == [[0.0, 1.0], [2.0, 0.0]]


def test_units_and_defaults():
    c = collective_from_json(document({"type": "reduce", "participants": ["a", "b"], "target": "a",
                                       "size": "1KiB", "task_cost": "2Gf",
                                       "partial_sizes": [{"k": 0, "m": 1, "size": "1MB"}]}))
    assert c == Reduce(participants=["a", "b"], target="a", size=1024, task_cost=2e9, partial_sizes={(0, 1): 1e6})
    a = collective_from_json(document({"type": "alltoall", "senders": ["a", "b"], "size": [[0, "1kB"], [2, 0]]}))
    assert a.receivers == ("a", "b") and a.messages() == [("a", "b", 1000.0), ("b", "a", 2.0)]


# --- bad input: one line, naming the file and the field ---------------------------------

SCATTER = {"type": "scatter", "source": "h0", "targets": ["h1"], "size": 8}


@pytest.mark.parametrize("collective, expected", [
    ({**SCATTER, "size": -1}, "coll.json: collective.size: expected a positive size, found -1"),
    ({**SCATTER, "size": "12 parsecs"}, "coll.json: collective.size: cannot read '12 parsecs' as a size"),
    ({**SCATTER, "targets": ["h1", "h1"]}, "coll.json: collective.targets: scatter targets lists 'h1' twice"),
    ({**SCATTER, "targets": ["h1", 3]}, "coll.json: collective.targets[1]: expected a string, found 3"),
    ({**SCATTER, "type": "scater"}, "coll.json: collective.type: 'scater' is not one of"),
    ({**SCATTER, "sise": 3}, "coll.json: collective.sise: unknown field (did you mean 'size'?)"),
    ({"type": "reduce", "participants": [], "target": "h0", "size": 8},
     "coll.json: collective.participants: reduce participants is empty"),
    ({"type": "reduce", "participants": ["a"], "target": "a", "size": 8,
      "partial_sizes": [{"k": 0, "m": 3, "size": 1}]},
     "coll.json: collective.partial_sizes: reduce partial_sizes names v[0..3] outside 0..0"),
    ({"type": "reduce", "participants": ["a", "b"], "target": "a", "size": 8,
      "task_costs": [{"k": 0, "l": 0, "m": 1, "cost": 1}, {"k": 0, "l": 0, "m": 1, "cost": 2}]},
     "coll.json: collective.task_costs[1]: k=0, l=0, m=1 is given twice"),
    ({"type": "alltoall", "senders": ["a", "b"], "size": [[0, 1]]},
     "coll.json: collective.size: alltoall size matrix has shape (1, 2)"),
    ({"type": "alltoall", "senders": ["a", "b"], "size": [[0, 1], [-2, 0]]},
     "coll.json: collective.size[1][0]: expected a size >= 0, found -2"),
    ({"type": "alltomany", "messages": [{"src": "a", "dst": "b", "size": 1}, {"src": "c", "dst": "c", "size": 1}]},
     "coll.json: collective.messages[1]: alltomany pair lists 'c' twice"),
    ({"type": "alltomany", "messages": []}, "coll.json: collective: alltomany has no message"),
    ({"type": "series", "count": 0, "of": SCATTER}, "coll.json: collective.count: expected an integer >= 1, found 0"),
    ({"type": "series", "count": 2, "of": {"type": "series", "count": 2, "of": SCATTER}},
     "coll.json: collective.of: a series of series"),
    ({"type": "series", "count": 2, "of": {**SCATTER, "size": 0}},
     "coll.json: collective.of.size: expected a positive size, found 0"),
])
def test_bad_fields(collective, expected):
    assert error_of(document(collective)).startswith(expected)


def test_bad_documents(tmp_path):
    text = collective_to_json(Scatter(source="h0", targets=["h1"], size=8))
    assert error_of(text[:-20]).startswith("coll.json:5:")  # truncated inside a string
    assert error_of(text[:text.index('"size"')]).endswith("(the file ends too early: it may be truncated)")
    platform = text.replace('"kind": "collective"', '"kind": "platform"')
    assert error_of(platform) == ("coll.json: kind: this is a 'platform' document, expected a 'collective' document "
                                  "(load it with the reader for platforms)")
    assert error_of(text.replace('"collective": {', '"colective": {')).startswith("coll.json: colective: unknown field")
    with pytest.raises(FormatError, match="no such file"):
        load_collective(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"format": "collsched", "version": 1, "kind": "collective", "collective": 3}')
    with pytest.raises(FormatError, match=r"bad.json: collective: expected an object, found 3$"):
        load_collective(tmp_path / "bad.json")
