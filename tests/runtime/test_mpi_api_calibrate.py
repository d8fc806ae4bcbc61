"""collsched.mpi.calibrate from inside an MPI job on the emulated round-robin network: clusters and bandwidths."""

import numpy as np
import pytest

import collsched as cs
from collsched.mpi.emulated import run_script
from collsched.runtime.emulation import Emulation
from collsched.runtime.platforms import round_robin_switches
from conftest import namespaces, needs_emulation
from test_cli import run as cli

FAST, SLOW = 50e6, 5e6

SCRIPT = """
import sys
from mpi4py import MPI
import collsched as cs
from collsched import mpi as csmpi
platform, cal = csmpi.calibrate(MPI.COMM_WORLD, hosts=sys.argv[2].split(","))
if MPI.COMM_WORLD.rank == 0:
    cs.save_platform(platform, sys.argv[1])
"""


@needs_emulation
def test_calibrate_recovers_the_switches_and_the_slow_trunk(tmp_path):
    p = round_robin_switches(2, bandwidth=FAST, trunk_bandwidth=SLOW)  # h0, h2 on sw0; h1, h3 on sw1
    script = tmp_path / "measure.py"
    script.write_text(SCRIPT)
    with Emulation(p) as net:
        run_script(p.hosts, str(script), [str(tmp_path / "measured.json"), ",".join(p.hosts)], emulation=net,
                   timeout=240)
    assert not {n for n in namespaces() if n.startswith(net.prefix)}
    measured = cs.load_platform(tmp_path / "measured.json")
    assert measured.clusters == (("h0", "h2"), ("h1", "h3"))  # exactly the two switches
    bw = np.array([[measured.bandwidth(a, b) if a != b else np.nan for b in p.hosts] for a in p.hosts])
    same = np.array([[i % 2 == j % 2 and i != j for j in range(4)] for i in range(4)])
    across = np.array([[i % 2 != j % 2 for j in range(4)] for i in range(4)])
    # issue 19's 10%: the emulation shapes message bytes, sizes to 4 MB past the eager limit, a robust slope
    # (measured 0.95-1.05 of the rate within a switch, 0.985-1.02 across, 2-core machine loaded: docs/mpi.md)
    assert np.all((bw[across] > 0.9 * SLOW) & (bw[across] < 1.1 * SLOW)), bw / SLOW
    assert np.all((bw[same] > 0.9 * FAST) & (bw[same] < 1.1 * FAST)), bw / FAST


@pytest.mark.mpi
def test_calibrate_hosts_cli_measures_a_hostfile(tmp_path, capsys):
    """One rank per hostfile line (here three on this machine, named apart); a platform with clusters is written."""
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost slots=1\nlocalhost\n# a comment\nlocalhost\n")
    code, out, err = cli(["calibrate", "--hosts", str(hostfile), "-o", str(tmp_path / "m.json"), "--repeat", "2"],
                         capsys)
    assert code == 0, err
    measured = cs.load_platform(tmp_path / "m.json")
    assert measured.hosts == ("localhost", "localhost-1", "localhost-2")
    assert sorted(h for c in measured.clusters for h in c) == sorted(measured.hosts)
    assert all(measured.bandwidth(a, b) > 0 for a in measured.hosts for b in measured.hosts if a != b)
    assert out.startswith(f"wrote {tmp_path / 'm.json'}: 3 hosts measured, clusters ")
