"""ForestSchedule: lowering hand-made forests (ring, star, chain and split trees) to programs, checked by the validator.

What is claimed and checked here, independently of the tree packing:
every lowered program (all-gather, reduce-scatter, all-reduce; one
instance or a series; 1 to 4 chunks; commutative or not) validates; each
tree carries exactly its share of its root's block (bytes sent add up);
the sends of a rank to different peers wait for nothing but their data, the
messages of their own pair (multi-port) and, for a series' own data, the
receives of the round ``window`` rounds before (pacing); and on a fabric without
latency the simulated steady-state rate under ``Fluid`` equals the rate the
schedule claims, up to float noise.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F

import pytest

import collsched as cs
from collsched.errors import FormatError, ScheduleError
from collsched.schedules import ForestSchedule, ForestTree
from collsched.schedules.io import schedule_from_json, schedule_to_json
from collsched.schedules.values import operands
from collsched.simulation.steady import steady_rate


def ring_trees(hosts, weight=1):
    """Root ``P_i`` sends down the ring ``P_i → P_{i+1} → ...`` (out-trees)."""
    n = len(hosts)
    out = []
    for i, r in enumerate(hosts):
        order = [hosts[(i + k) % n] for k in range(n)]
        out.append(ForestTree(r, weight, tuple(zip(order, order[1:]))))
    return out


def star_trees(hosts, weight=1):
    """Root ``P_i`` sends to every other participant directly (out-trees)."""
    return [ForestTree(r, weight, tuple((r, v) for v in hosts if v != r)) for r in hosts]


def split_trees(hosts):
    """Two trees per root, weights 1/3 and 2/3: a star and a ring."""
    return [ForestTree(t.root, F(1, 3), t.arcs) for t in star_trees(hosts)] + \
        [ForestTree(t.root, F(2, 3), t.arcs) for t in ring_trees(hosts)]


def chain_in_trees(hosts):
    """In-trees whose subtrees are consecutive participants: ``P_0 → P_1 → ... → P_r ← ... ← P_{N-1}``."""
    out = []
    for i, r in enumerate(hosts):
        left = [(hosts[k], hosts[k + 1]) for k in range(i - 1, -1, -1)]
        right = [(hosts[k], hosts[k - 1]) for k in range(i + 1, len(hosts))]
        out.append(ForestTree(r, 1, tuple(left + right)))
    return out


def reversed_trees(trees):
    return [ForestTree(t.root, t.weight, tuple((b, a) for a, b in t.arcs)) for t in trees]


def forest(kind, hosts, trees, chunks=1, window=1, messages="round"):
    rate = min(sum((t.weight for t in trees if t.root == r), F(0)) for r in hosts)
    return ForestSchedule(kind=kind, participants=tuple(hosts), trees=tuple(trees), throughput=rate,
                          rate_bound=rate, chunks=chunks, window=window, algorithm="forest", messages=messages)


def instances(c, count):
    return c if count == 1 else cs.Series(c, count=count)


P = cs.topologies.star(4)
HOSTS = ["h2", "h0", "h3", "h1"]  # not the platform's order: positions and host indices differ


@pytest.mark.parametrize("messages", ["round", "unit"])
@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
@pytest.mark.parametrize("trees", [ring_trees, star_trees, split_trees])
def test_allgather_programs_validate_and_carry_each_block_once_per_arc(trees, chunks, count, messages):
    c = instances(cs.AllGather(participants=HOSTS, size=12.0), count)
    f = forest("allgather", HOSTS, trees(HOSTS), chunks, messages=messages)
    prog = f.lower(P, c)
    cs.validate(P, c, prog)
    # every tree spans N participants with N-1 arcs, and a root's shares add up to its whole block
    assert prog.bytes_sent == pytest.approx(count * 4 * 3 * 12.0, rel=1e-12)
    units = 3 if trees is split_trees else 1  # shares 1/3 and 2/3: units of 1/3, one and two messages
    assert f.units() == ([1] * 4 + [2] * 4, True) if trees is split_trees else f.units() == ([1] * 4, True)
    if messages == "unit":
        assert prog.n_messages == count * chunks * 3 * 4 * units
    else:  # one message per pair that has a piece to send in a round: round k sends stage g's arcs of item k - g
        items, arcs = count * chunks, f.stage_arcs()
        last = max(g for g, *_ in arcs)
        assert prog.n_messages == sum(len({(u, v) for g, _, u, v in arcs if 0 <= k - g < items})
                                      for k in range(items + last))


@pytest.mark.parametrize("commutative", [True, False])
@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
def test_reducescatter_programs_validate(commutative, count, chunks):
    c = instances(cs.ReduceScatter(participants=HOSTS, size=6.0, task_cost=10.0, commutative=commutative), count)
    for trees in (chain_in_trees(HOSTS), reversed_trees(star_trees(HOSTS))):
        prog = forest("reducescatter", HOSTS, trees, chunks).lower(P, c)
        cs.validate(P, c, prog)
        # each block of 6 bytes leaves each of the three other participants once per instance
        assert prog.bytes_sent == pytest.approx(count * 4 * 3 * 6.0, rel=1e-12)


@pytest.mark.parametrize("commutative", [True, False])
@pytest.mark.parametrize("count", [1, 3])
@pytest.mark.parametrize("chunks", [1, 2, 3, 4])
def test_allreduce_programs_validate(commutative, count, chunks):
    c = instances(cs.AllReduce(participants=HOSTS, size=24.0, task_cost=10.0, commutative=commutative), count)
    for trees in (reversed_trees(chain_in_trees(HOSTS)), star_trees(HOSTS)):
        prog = forest("allreduce", HOSTS, trees, chunks).lower(P, c)
        cs.validate(P, c, prog)
        # reduce-scatter then all-gather of the 6-byte fragments: twice N (N - 1) fragments
        assert prog.bytes_sent == pytest.approx(count * 2 * 4 * 3 * 6.0, rel=1e-12)


@pytest.mark.parametrize("commutative", [True, False])
@pytest.mark.parametrize("chunks", [1, 3])
def test_allreduce_with_its_own_in_trees_validates(commutative, chunks):
    """The reduce-scatter phase on chain in-trees, the all-gather phase on star out-trees."""
    c = cs.Series(cs.AllReduce(participants=HOSTS, size=24.0, commutative=commutative), count=2)
    trees = [ForestTree(t.root, 1, t.arcs, up.arcs) for t, up in zip(star_trees(HOSTS), chain_in_trees(HOSTS))]
    f = forest("allreduce", HOSTS, trees, chunks)
    assert f.depth() == 1 + 3
    cs.validate(P, c, f.lower(P, c))


def test_combinations_cost_task_cost_pro_rata_of_the_piece():
    c = cs.ReduceScatter(participants=HOSTS, size=6.0, task_cost=100.0)
    prog = forest("reducescatter", HOSTS, reversed_trees(star_trees(HOSTS)), chunks=2).lower(P, c)
    computes = [op for op in prog if op.kind == "compute"]
    # each root combines its own piece with the three others in one computation, per chunk: a piece is 1/8 of the
    # vector, and three operands are combined into it
    assert len(computes) == 4 * 2 and {op.size for op in computes} == {3 * 100.0 / 8}
    assert {len(op.pieces) for op in computes} == {5}  # four inputs and the output


def test_non_commutative_in_trees_must_join_adjacent_operands():
    c = cs.ReduceScatter(participants=HOSTS, size=6.0, commutative=False)
    tangled = [ForestTree(t.root, 1, t.arcs) for t in chain_in_trees(HOSTS)]
    tangled[0] = ForestTree("h2", 1, (("h3", "h2"), ("h0", "h3"), ("h1", "h0")))  # P_3 below P_1
    with pytest.raises(ScheduleError, match=r"^forest in-tree at 'h0' joins operands 1\.\.1 and 3\.\.3, which are not "
                                            r"adjacent, for a non-commutative reduction \(use commutative=True"):
        forest("reducescatter", HOSTS, tangled).lower(P, c)
    commutative = dataclasses.replace(c, commutative=True)
    cs.validate(P, commutative, forest("reducescatter", HOSTS, tangled).lower(P, commutative))


def message_rounds(f, prog):
    """Per send of a one-chunk series: its round, ``first + m`` for the pair's ``m``-th message (a pair sends in
    every round from its least stage on); and per (rank, round) the receives of the messages sent to it."""
    first: dict = {}
    for g, _, u, v in f.stage_arcs():
        first[(u, v)] = min(g, first.get((u, v), g))
    recv_of = {op.msg: op.index for op in prog if op.kind == "recv"}
    sent: dict = {}
    rounds, received = {}, {}
    for op in prog:
        if op.kind == "send":
            ids = sent.setdefault((op.rank, op.peer), [])
            rounds[op.index] = (first[(op.rank, op.peer)] + len(ids), ids[-f.window] if len(ids) >= f.window else None)
            received.setdefault((op.peer, rounds[op.index][0]), set()).add(recv_of[op.msg])
            ids.append(op.index)
    return rounds, received


@pytest.mark.parametrize("kind, trees", [("allgather", star_trees), ("allgather", ring_trees),
                                         ("reducescatter", chain_in_trees)])
@pytest.mark.parametrize("window", [1, 2, 3])
def test_a_series_paces_its_own_data_by_what_its_sender_received_window_rounds_before(kind, trees, window):
    """The pacing rule (series in rounds): a message of round ``k`` that carries only its sender's own data (a
    root's block, a leaf's operand) waits for its pair's message ``window`` rounds before and for the receives, on
    its sender, of the messages sent to it in round ``k - window``; any other message waits for its pair's message
    and for the receives or computations that gave its sender its pieces. Nothing else: never for the sender's sends
    to other peers (multi-port). Was: an own-data message waited for its pair alone, and the roots ran ahead of the
    relays sharing their links (``test_random_platform_191802_allgather_runs_at_its_claim``)."""
    c = cs.Series(cs.AllGather(participants=HOSTS, size=12.0) if kind == "allgather" else
                  cs.ReduceScatter(participants=HOSTS, size=12.0), count=6)
    f = forest(kind, HOSTS, trees(HOSTS), window=window)
    prog = f.lower(P, c)
    rounds, received = message_rounds(f, prog)
    position = {h: i for i, h in enumerate(HOSTS)}
    carried = {op.msg: op.pieces for op in prog if op.kind == "send"}
    gave = {op.index: carried[op.msg] if op.kind == "recv" else op.pieces for op in prog}  # pieces a recv brought

    def own(rank, x):
        return operands(x.value) == (position[rank],) if kind == "reducescatter" else x.value.a == P.host_index(rank)

    paced = 0
    for i, (k, pair) in rounds.items():
        op = prog.op(i)
        assert pair is None or pair in op.after
        waits = set(op.after) - {pair}
        assert all(prog.op(d).kind != "send" for d in waits)
        if all(own(op.rank, x) for x in op.pieces):
            assert waits == received.get((op.rank, k - window), set())
            paced += bool(waits)
        else:  # each wait brought or made one of its pieces
            assert waits and all(any(x in gave[d] for x in op.pieces) for d in waits)
    # star trees: every message but the first window rounds'; chains: the leaves'; rings: only the first rounds' (
    # then each message carries relayed pieces too)
    assert (paced > 0) == (trees is not ring_trees)


def test_one_collective_does_not_pace_its_roots():
    """One collective in rounds (here 5 chunks): a root's sends wait only for its pair's message ``window`` rounds
    before (its claim is a makespan; the roots run ahead by its chunks at most)."""
    c = cs.AllGather(participants=HOSTS, size=12.0)
    for window in (1, 2, 3):
        prog = forest("allgather", HOSTS, star_trees(HOSTS), chunks=5, window=window).lower(P, c)
        by_pair: dict = {}
        for op in prog:
            if op.kind == "send":
                by_pair.setdefault((op.rank, op.peer), []).append(op.index)
        for ids in by_pair.values():
            for k, i in enumerate(ids):
                assert prog.op(i).after == (() if k < window else (ids[k - window],))


def test_a_relay_forwards_a_piece_after_the_receive_that_brought_it():
    c = cs.AllGather(participants=HOSTS, size=12.0)
    prog = forest("allgather", HOSTS, ring_trees(HOSTS)).lower(P, c)
    for op in prog:
        if op.kind == "send" and op.pieces[0].value.a != P.host_index(op.rank):
            (dep,) = [d for d in op.after if prog.op(d).kind == "recv"]
            sender = [s for s in prog if s.kind == "send" and s.msg == prog.op(dep).msg][0]
            assert sender.pieces == op.pieces


def test_shares_and_denominator():
    f = forest("allgather", HOSTS, split_trees(HOSTS), chunks=3)
    assert f.shares() == [F(1, 3)] * 4 + [F(2, 3)] * 4
    assert f.denominator() == 9 and f.depth() == 3
    assert forest("allreduce", HOSTS, split_trees(HOSTS), chunks=3).denominator() == 36
    assert forest("allreduce", HOSTS, split_trees(HOSTS)).depth() == 6


def test_a_series_sends_exact_units_where_one_collective_rounds_them():
    """Shares 1/40 and 39/40: 40 units a root, more than MAX_UNITS (32). One collective cuts the trees into 1 and
    round(39/40 · 32) = 31 messages; a series keeps the 1 and 39 exact units, in proportion to the weights."""
    trees = [ForestTree(t.root, F(1, 40), t.arcs) for t in star_trees(HOSTS)] + \
        [ForestTree(t.root, F(39, 40), t.arcs) for t in ring_trees(HOSTS)]
    f = forest("allgather", HOSTS, trees, messages="unit")
    assert f.units() == ([1] * 4 + [31] * 4, False) and f.units(series=True) == ([1] * 4 + [39] * 4, True)
    assert f.denominator() == 40 * 32 and f.denominator(series=True) == 40
    one = cs.AllGather(participants=HOSTS, size=12.0)
    c = cs.Series(one, count=2)
    prog = f.lower(P, c)
    cs.validate(P, c, prog)
    assert prog.denominator == 40 and prog.n_messages == 2 * 4 * 3 * (1 + 39)
    assert f.lower(P, one).n_messages == 4 * 3 * (1 + 31)


def test_operations_per_second():
    f = forest("allgather", HOSTS, star_trees(HOSTS, weight=F(300)))
    assert f.operations_per_second(cs.AllGather(participants=HOSTS, size=12.0)) == 25
    ar = forest("allreduce", HOSTS, star_trees(HOSTS, weight=F(300)))
    assert ar.operations_per_second(cs.AllReduce(participants=HOSTS, size=48.0)) == 25


def test_lowering_checks_the_collective():
    f = forest("allgather", HOSTS, star_trees(HOSTS))
    with pytest.raises(ScheduleError, match="^a forest schedule of allgather cannot carry an allreduce"):
        f.lower(P, cs.AllReduce(participants=HOSTS, size=8.0))
    with pytest.raises(ScheduleError, match="^the forest's participants are"):
        f.lower(P, cs.AllGather(participants=sorted(HOSTS), size=8.0))


@pytest.mark.parametrize("change, message", [
    (dict(kind="gather"), "forest kind 'gather' is not one of allgather, reducescatter, allreduce"),
    (dict(chunks=0), r"forest chunks is 0 \(give an integer >= 1\)"),
    (dict(window=True), r"forest window is True \(give an integer >= 1\)"),
    (dict(throughput=2), r"forest trees of root 'h2' carry 1 bytes/s, less than the throughput 2"),
    (dict(rate_bound=F(1, 2)), "forest throughput 1 is above its bound 1/2"),
    (dict(trees=[ForestTree("h2", 0, (("h2", "h0"), ("h2", "h3"), ("h2", "h1")))]),
     r"forest tree 0 \(root 'h2'\) has weight 0"),
    (dict(trees=[ForestTree("h2", 1, (("h0", "h3"),))]),
     r"forest tree 0 \(root 'h2'\): arc \('h0', 'h3'\) comes before its parent 'h0' is reached"),
    (dict(trees=[ForestTree("h2", 1, (("h2", "h0"), ("h2", "h3"), ("h2", "h1"), ("h0", "h1")))]),
     r"forest tree 0 \(root 'h2'\): node 'h1' has two parents"),
    (dict(trees=[ForestTree("h2", 1, (("h2", "h0"), ("h2", "h3"), ("h2", "h1"), ("h1", "sw")))]),
     r"forest tree 0 \(root 'h2'\) names 'sw', which is not a participant"),
    (dict(trees=[ForestTree("h9", 1, ())]), r"forest tree 0 \(root 'h9'\) is rooted at a non-participant"),
    (dict(trees=[ForestTree("h2", 1, (("h2", "h0"), ("h2", "h3"), ("h2", "h1")), ())]),
     r"forest tree 0 \(root 'h2'\) has an up tree, which only an allreduce uses"),
    (dict(kind="allreduce", trees=[ForestTree("h2", 1, (("h2", "h0"), ("h2", "h3"), ("h2", "h1")), (("h0", "h2"),))]),
     r"forest tree 0 \(root 'h2'\) up does not reach participant 'h3'"),
])
def test_bad_forests_raise_one_line(change, message):
    trees = star_trees(HOSTS)
    if "trees" in change:
        change = {**change, "trees": change["trees"] + trees[1:]}
    kwargs = dict(kind="allgather", participants=tuple(HOSTS), trees=trees, throughput=1, rate_bound=1)
    with pytest.raises(ScheduleError, match="^" + message):
        ForestSchedule(**{**kwargs, **change})


def test_json_round_trip():
    c = cs.Series(cs.AllGather(participants=HOSTS, size=24.0), count=2)
    f = dataclasses.replace(forest("allgather", HOSTS, split_trees(HOSTS), chunks=3, window=1),
                            params={"chunks": 3}, bound=cs.Bound(F(7, 3), "throughput", "cut"), collective=c)
    back = schedule_from_json(schedule_to_json(f))
    assert back == f and back.collective == c
    assert back.lower(P) == f.lower(P)
    up = [ForestTree(t.root, 1, t.arcs, u.arcs) for t, u in zip(star_trees(HOSTS), chain_in_trees(HOSTS))]
    g = forest("allreduce", HOSTS, up + reversed_trees(chain_in_trees(HOSTS)))
    assert schedule_from_json(schedule_to_json(g)) == g and '"up": [["h0", "h2"]' in schedule_to_json(g)
    text = schedule_to_json(f).replace('"arcs": [["h2", "h0"]', '"arcs": [["h2", "h2"]', 1)
    with pytest.raises(FormatError, match=r"^x\.json: schedule\.trees: forest tree 0 \(root 'h2'\): node 'h2' has two"):
        schedule_from_json(text, where="x.json")


@pytest.mark.parametrize("trees", [ring_trees, star_trees, split_trees])
def test_fluid_rate_equals_the_claimed_rate_without_latency(trees):
    p = cs.topologies.dgx2(1, nvswitch_latency=0)
    hosts = list(p.hosts)
    x = F(125 * 10**9, 15)
    f = forest("allgather", hosts, [ForestTree(t.root, t.weight * x, t.arcs) for t in trees(hosts)])
    c = cs.Series(cs.AllGather(participants=hosts, size=1e6), count=10)
    r = steady_rate(p, f, c, model=cs.models.Fluid(), counts=(80, 160))  # ring trees settle after 40 instances
    assert abs(r.rate / f.operations_per_second(c) - 1) < 1e-9
