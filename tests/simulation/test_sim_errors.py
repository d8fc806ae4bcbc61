"""Bad programs and bad options end with one clear line, never a hang or a traceback from deep inside."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from programs import build, rows

import collsched as cs
from collsched.simulation import SimulationError, models
from collsched.simulation.models import Circuit, Fluid, OnePort, Piecewise, PLogP, PLogPParams

ENGINES = ["reference", "core"]


def cycle_program():
    """h0 receives from h1 then sends to h1; h1 receives from h0 then sends to h0."""
    ops = [dict(rank=0, kind=1, peer=1, msg=1, size=8.0, deps=[], pieces=[]),
           dict(rank=0, kind=0, peer=1, msg=0, size=8.0, deps=[0], pieces=[]),
           dict(rank=1, kind=1, peer=0, msg=0, size=8.0, deps=[], pieces=[]),
           dict(rank=1, kind=0, peer=0, msg=1, size=8.0, deps=[2], pieces=[])]
    return build(("h0", "h1"), ops, name="cycle")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("model", [Fluid(), OnePort(), OnePort(sync=False), Circuit()], ids=repr)
def test_a_dependency_cycle_is_a_deadlock_naming_the_stuck_ops(engine, model):
    p = cs.topologies.star(2)
    with pytest.raises(SimulationError) as err:
        cs.simulate(p, cycle_program(), model=model, engine=engine)
    text = str(err.value)
    assert "\n" not in text
    assert text.startswith(f"program 'cycle' under {model!r}: deadlock: ")
    assert "rank h0 op 0 (recv msg 1 from h1)" in text and "rank h1 op 0 (recv msg 0 from h0)" in text


@pytest.mark.parametrize("engine", ENGINES)
def test_synchronous_sends_that_wait_for_each_other_deadlock(engine):
    """Both ranks send first, then receive: fine if sends are buffered, a deadlock if they are synchronous."""
    p = cs.topologies.star(2)
    ops = [dict(rank=0, kind=0, peer=1, msg=0, size=8.0, deps=[], pieces=[]),
           dict(rank=0, kind=1, peer=1, msg=1, size=8.0, deps=[0], pieces=[]),
           dict(rank=1, kind=0, peer=0, msg=1, size=8.0, deps=[], pieces=[]),
           dict(rank=1, kind=1, peer=0, msg=0, size=8.0, deps=[2], pieces=[])]
    prog = build(("h0", "h1"), ops, name="exchange")
    assert cs.simulate(p, prog, model=OnePort(sync=False), engine=engine).makespan > 0
    assert cs.simulate(p, prog, model=Fluid(), engine=engine).makespan > 0
    with pytest.raises(SimulationError, match=r"deadlock: rank h0 op 0 \(send msg 0 to h1\), rank h1 op 0 "
                                              r"\(send msg 1 to h0\) never complete"):
        cs.simulate(p, prog, model=OnePort(), engine=engine)


def test_an_unmatched_receive_names_its_message():
    p = cs.topologies.star(2)
    ops = [dict(rank=1, kind=1, peer=0, msg=4, size=8.0, deps=[], pieces=[])]
    with pytest.raises(SimulationError, match=r"message 4 has 0 send\(s\) and 1 receive\(s\), not one of each "
                                              r"\(at rank h1 op 0 \(recv msg 4 from h0\)\)"):
        cs.simulate(p, build(("h0", "h1"), ops))


def test_an_op_on_an_unknown_rank_and_a_rank_not_on_the_platform():
    p = cs.topologies.star(2)
    ops = [dict(rank=5, kind=2, peer=-1, msg=-1, size=8.0, deps=[], pieces=[])]
    with pytest.raises(SimulationError, match="op id 0 has a rank, peer, kind or message id out of range"):
        cs.simulate(p, build(("h0", "h1"), ops))
    b = cs.ProgramBuilder(["h0", "zz"])
    b.send("h0", "zz", [], size=1)
    with pytest.raises(SimulationError, match="has rank 'zz', which is not a node of platform 'star-2'"):
        cs.simulate(p, b.build())


def test_mismatched_and_bad_dependencies_and_sizes():
    p = cs.topologies.star(3)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=10)
    ops = rows(b.build())
    ops[1]["rank"] = 2
    with pytest.raises(SimulationError, match="do not name each other"):
        cs.simulate(p, build(p.hosts, ops))
    ops = rows(b.build())
    ops[0]["deps"] = [1]
    with pytest.raises(SimulationError, match="depends on op id 1, which is not an earlier op of its rank"):
        cs.simulate(p, build(p.hosts, ops))
    prog = b.build()
    with pytest.raises(SimulationError, match="has size -1.0"):
        cs.simulate(p, dataclasses.replace(prog, op_size=np.array([-1.0, 10.0])))


def test_unreachable_destination():
    from collsched.errors import PlatformError
    from collsched.platform import Link, Node, Platform

    p = Platform([Node("a"), Node("b"), Node("c")], [Link("ab", 1e9, ends=("a", "b"))], name="split")
    b = cs.ProgramBuilder(p.hosts)
    b.send("a", "c", [], size=1)
    with pytest.raises(PlatformError, match="unreachable"):
        cs.simulate(p, b.build())


def test_bad_options_name_the_option():
    p = cs.topologies.star(2)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1)
    prog = b.build()
    for kwargs, pattern in [(dict(seed=-1), "simulate option seed=-1"), (dict(seed=True), "seed=True"),
                            (dict(backend="ns3"), "backend='ns3'"), (dict(engine="fast"), "engine='fast'"),
                            (dict(model=models.Fluid), "model=<class")]:
        with pytest.raises(ValueError, match=pattern):
            cs.simulate(p, prog, **kwargs)
    with pytest.raises(ValueError, match="OnePort option sync=1 is not True or False"):
        OnePort(sync=1)
    with pytest.raises(ValueError, match="OnePort option ties='coin' is not one of 'fixed', 'random'"):
        OnePort(ties="coin")
    with pytest.raises(ValueError, match=r"Circuit has no option 'sync' \(its options: one_port, ties\)"):
        Circuit(sync=True)
    with pytest.raises(TypeError):
        OnePort(True)      # keyword-only
    with pytest.raises(ValueError, match="PLogP option params=3 is not a PLogPParams"):
        PLogP(3)
    with pytest.raises(ValueError, match="pairs has key 'x'"):
        PLogP(PLogPParams(L=0, g=0), pairs={"x": PLogPParams(L=0, g=0)})
    with pytest.raises(ValueError, match="PLogPParams option g='fast'"):
        PLogPParams(L=0, g="fast")
    with pytest.raises(ValueError, match="at least one"):
        Piecewise([], [])


def test_models_are_frozen_hashable_values():
    assert OnePort() == OnePort(sync=True, cost="linear", ties="fixed")
    assert hash(Fluid()) == hash(Fluid())
    assert len({OnePort(), OnePort(sync=False), OnePort()}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        OnePort().sync = False
    params = PLogPParams(L=1e-3, g=([0, 10], [1, 2]))
    assert PLogP(params, pairs={(1, 0): params}) == PLogP(params, pairs={(1, 0): params})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_bad_stage_table_is_reported_not_run(engine, monkeypatch):
    p = cs.topologies.star(2)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1)

    original = OnePort._messages

    def broken(self, ctx):   # (Fluid compiles in the core where it can: a Python model's compile is patched)
        part, sd, rb, n, cap = original(self, ctx)
        part.amount[:] = -1.0
        return part, sd, rb, n, cap

    monkeypatch.setattr(OnePort, "_messages", broken)
    with pytest.raises(SimulationError, match="compiled a bad stage table"):
        cs.simulate(p, b.build(), model=OnePort(), engine=engine)


def test_program_columns_of_other_integer_types_are_accepted():
    p = cs.topologies.star(2)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=1e6)
    prog = b.build()
    narrow = dataclasses.replace(prog, **{name: getattr(prog, name).astype(np.int32)
                                          for name in ("op_rank", "op_kind", "op_peer", "op_msg", "dep_ptr", "dep_idx")})
    assert cs.simulate(p, narrow).makespan == cs.simulate(p, prog).makespan


def _corruptions(prog):
    """The program, and every copy with one field of one op changed to a value near its range's edges."""
    yield "as built", prog
    for name, values in (("op_rank", (-1, 3)), ("op_kind", (-1, 0, 1, 2, 3)), ("op_peer", (-1, 0, 2, 3)),
                         ("op_msg", (-1, 0, 1, 2, 5, 99)), ("op_size", (-1.0, np.inf, np.nan, 0.0)),
                         ("dep_idx", (-1, 0, 1, 2, 4))):
        for i in range(getattr(prog, name).shape[0]):
            for v in values:
                col = getattr(prog, name).copy()
                col[i] = v
                yield f"{name}[{i}] = {v}", dataclasses.replace(prog, **{name: col})


def test_the_core_structure_check_agrees_with_the_python_one():
    """``_checked`` takes the core's check as the fast path: every program it lets through must be one the
    vectorised check finds no fault in, with dense ids (so nothing is renumbered), and every program it does not
    must end exactly as the vectorised check and renumbering say."""
    from collsched import _core
    from collsched import simulation as sim

    p = cs.topologies.star(3)
    b = cs.ProgramBuilder(p.hosts)
    b.send("h0", "h1", [], size=10)
    b.send("h0", "h2", [], size=20)
    b.send("h1", "h2", [], size=30)
    b.compute("h2", [], None, cost=5)
    model = Fluid()
    seen = {True: 0, False: 0}
    for what, prog in _corruptions(b.build()):
        fast = bool(np.all(prog.op_size >= 0) and np.isfinite(prog.op_size.max())
                    and _core.program_well_formed(len(prog.ranks), *sim._columns(prog)))
        seen[fast] += 1
        problem = sim._structure(prog)
        if fast:
            assert problem is None and sim._dense(prog) is prog, what
            assert sim._checked(prog, model) is prog, what
        elif problem is not None:
            with pytest.raises(SimulationError) as err:
                sim._checked(prog, model)
            assert str(err.value).startswith(sim._explain(prog, model, *problem)[0]), what
        else:  # well formed, sparse ids: renumbered
            dense = sim._checked(prog, model)
            assert dense.op_msg.tolist() == sim._dense(prog).op_msg.tolist(), what
    assert seen[True] > 1 and seen[False] > 1, seen
