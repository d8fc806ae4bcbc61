"""Launching and emulation set-up, without running MPI: commands, options, clear refusals."""

import pytest

import collsched as cs
from collsched.runtime import emulation as emu
from collsched.runtime.launch import RunError, launch, mpirun_command


def test_mpirun_command_oversubscribes_and_takes_overrides():
    cmd = mpirun_command(8, ["prog"], mca=[("btl", "tcp,self")])
    assert cmd[1:4] == ["-n", "8", "--oversubscribe"]
    assert cmd[cmd.index("btl") + 1] == "tcp,self" and cmd[-1] == "prog"


def test_without_root_emulation_says_why(monkeypatch):
    monkeypatch.setattr(emu.os, "geteuid", lambda: 1000)
    assert emu.emulation_unavailable() == "network emulation needs root (it creates network namespaces)"
    with pytest.raises(emu.EmulationError, match="needs root"):
        with emu.Emulation(cs.topologies.star(2)):
            pass


def test_modes_follow_the_topology():
    assert emu.plan_mode(cs.topologies.two_switches(3)) == "links"
    assert emu.plan_mode(cs.topologies.hypercube(2)) == "pairs"  # hosts joined directly, in a cycle
    with pytest.raises(emu.EmulationError, match="cannot be emulated link by link"):
        emu.Emulation(cs.topologies.hypercube(2), mode="links")
    with pytest.raises(ValueError, match="mode='wires'"):
        emu.Emulation(cs.topologies.star(2), mode="wires")


def test_a_job_without_mpirun_is_refused(monkeypatch):
    monkeypatch.setattr("collsched.runtime.launch.shutil.which", lambda name: None)
    with pytest.raises(RunError, match="mpirun was not found"):
        launch(["h0"], [{"kind": "program"}])
