"""The reference engine's pieces, and the differential test: the Rust core against the reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sim_programs import MODELS, programs

import collsched as cs
from collsched import _core
from collsched.simulation import models, reference
from collsched.simulation.compile import Context
from collsched.simulation.reference import max_min_rates

def test_max_min_by_hand():
    # three flows on a 9-capacity channel, one also on a 1-capacity channel
    assert max_min_rates([([0], math.inf), ([0], math.inf), ([0, 1], math.inf)], [9.0, 1.0]) == \
        pytest.approx([4.0, 4.0, 1.0])
    # a cap frees bandwidth for the others
    assert max_min_rates([([0], 1.0), ([0], math.inf)], [10.0]) == pytest.approx([1.0, 9.0])
    # a parking lot: the long flow crosses both channels
    assert max_min_rates([([0, 1], math.inf), ([0], math.inf), ([1], math.inf)], [2.0, 4.0]) == \
        pytest.approx([1.0, 1.0, 3.0])
    assert max_min_rates([], [1.0]) == []


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 3), min_size=0, max_size=3, unique=True),
                          st.sampled_from([math.inf, 0.5, 2.0])), min_size=1, max_size=6),
       st.lists(st.floats(0.5, 10.0), min_size=4, max_size=4))
def test_max_min_is_feasible_and_every_flow_has_a_bottleneck(flows, caps):
    rates = max_min_rates(flows, caps)
    load = np.zeros(4)
    for (ch, _), r in zip(flows, rates):
        if ch:
            load[ch] += r
    assert np.all(load <= np.array(caps) * (1 + 1e-9))
    for (ch, cap), r in zip(flows, rates):
        if not ch and math.isinf(cap):
            assert math.isinf(r)
            continue
        # max-min: capped, or on a full channel where it has the largest rate
        at_cap = r >= cap * (1 - 1e-9)
        full = [c for c in ch if load[c] >= caps[c] * (1 - 1e-9)]
        assert at_cap or any(all(r >= r2 * (1 - 1e-9) for (ch2, _), r2 in zip(flows, rates) if c in ch2)
                             for c in full)


def test_random_priorities_are_a_seeded_splitmix():
    assert reference.splitmix64(1) != reference.splitmix64(2)
    assert reference.splitmix64(12345) == reference.splitmix64(12345)


def _engines(platform, program, model, seed=0):
    ref = cs.simulate(platform, program, model=model, engine="reference", seed=seed)
    core = cs.simulate(platform, program, model=model, engine="core", seed=seed)
    return ref, core


@settings(max_examples=25, deadline=None)
@given(programs(max_messages=9, max_computes=3), st.sampled_from(MODELS))
def test_rust_core_agrees_with_the_reference(case, model):
    platform, program = case
    ref, core = _engines(platform, program, model)
    assert np.allclose(core.trace.start, ref.trace.start, rtol=1e-9, atol=1e-12)
    assert np.allclose(core.trace.end, ref.trace.end, rtol=1e-9, atol=1e-12)
    assert math.isclose(core.makespan, ref.makespan, rel_tol=1e-9, abs_tol=1e-12)
    assert np.allclose(core.send_busy, ref.send_busy, rtol=1e-9, atol=1e-12)
    assert np.allclose(core.recv_busy, ref.recv_busy, rtol=1e-9, atol=1e-12)
    assert np.allclose(core.cpu_busy, ref.cpu_busy, rtol=1e-9, atol=1e-12)
    assert core.events == ref.events


@settings(max_examples=25, deadline=None)
@given(programs(max_messages=9, max_computes=2), st.integers(0, 1000))
def test_rust_core_with_random_ties_stays_within_the_same_bounds(case, seed):
    """The engines draw random priorities differently: compare what must not depend on them."""
    platform, program = case
    model = models.OnePort(ties="random")
    ref, core = _engines(platform, program, model, seed)
    assert np.allclose(np.sort(core.send_busy), np.sort(ref.send_busy), rtol=1e-9, atol=1e-12)
    assert core.makespan >= max(core.send_busy.max(), core.recv_busy.max()) * (1 - 1e-9)
    again = cs.simulate(platform, program, model=model, engine="core", seed=seed)
    assert again.trace.end.tolist() == core.trace.end.tolist()


def test_rust_core_fluid_channel_busy_is_the_link_load():
    p = cs.topologies.star(4, bandwidth=(1e6, 2e6), latency=1e-4, seed=2)
    c = cs.AllToAll(senders=p.hosts, size=1e5)
    prog = cs.plan(p, c, algorithm="caterpillar").lower(p, c)
    ctx = Context(prog, p)
    table = models.Fluid()._compile(ctx)
    out = _core.simulate(len(prog.ranks), prog.op_rank, prog.op_kind, prog.op_peer, prog.op_msg, prog.dep_ptr,
                         prog.dep_idx, *table.arrays(), table.n_resources, table.capacities, tie="fixed")
    per_link = out[3].reshape(-1, 2).max(axis=1)
    assert np.allclose(per_link, cs.simulate(p, prog).link_busy, rtol=1e-9)


def test_rust_core_errors_are_simulation_failed():
    i = lambda *x: np.array(x, dtype=np.int64)   # noqa: E731
    with pytest.raises(_core.SimulationFailed) as err:
        _core.simulate(2, i(0, 1), i(1, 1), i(1, 0), i(0, 1), i(0, 0, 0), i(), i(0, 1, 2), i(1, 1),
                       np.zeros(2), i(0, 0, 0), i(), i(0, 0, 0), i(), np.full(2, np.inf),
                       np.zeros(2, np.uint8), i(0, 0), i(0, 0), 6, np.zeros(0))
    assert err.value.args[0] == "unmatched_message"
    with pytest.raises(ValueError, match="tie"):
        _core.simulate(1, i(), i(), i(), i(), i(0), i(), i(0), i(), np.zeros(0), i(0), i(), i(0), i(),
                       np.zeros(0), np.zeros(0, np.uint8), i(), i(), 3, np.zeros(0), tie="coin")


def test_reference_reports_structure_and_stage_problems():
    i = lambda *x: np.array(x, dtype=np.int64)   # noqa: E731
    with pytest.raises(reference.SimulationFailed) as err:
        reference.simulate(1, i(0), i(2), i(-1), i(-1), i(0, 1), i(0), i(0, 1), i(0), np.zeros(1), i(0, 0), i(),
                           i(0, 0), i(), np.full(1, np.inf), np.zeros(1, np.uint8), i(), i(), 3, np.zeros(0))
    assert err.value.args == ("bad_dependency", {"op": 0, "dep": 0})
    with pytest.raises(reference.SimulationFailed) as err:
        reference.simulate(1, i(0), i(2), i(-1), i(-1), i(0, 0), i(), i(0, 1), i(0), np.zeros(1), i(0, 1), i(7),
                           i(0, 0), i(), np.full(1, np.inf), np.zeros(1, np.uint8), i(), i(), 3, np.zeros(0))
    assert err.value.args[0] == "bad_stages" and "res names an index" in err.value.args[1]["reason"]


def test_core_stub_declares_simulate_with_its_real_parameters():
    import ast
    import inspect
    from pathlib import Path

    stub = ast.parse((Path(cs.__file__).parent / "_core.pyi").read_text())
    fn = next(n for n in stub.body if isinstance(n, ast.FunctionDef) and n.name == "simulate")
    assert [a.arg for a in fn.args.args] + [a.arg for a in fn.args.kwonlyargs] == \
        list(inspect.signature(_core.simulate).parameters)
