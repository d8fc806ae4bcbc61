"""``calibrate(comm)``: measure the machine an MPI job runs on, from inside the job, and cluster its hosts.

Every rank of ``comm`` takes part in the ping-pong of
:mod:`collsched.runtime.calibrate` (one pair at a time, the other ranks
idle; one-way times over a size sweep give each pair's latency α and
bandwidth β, bursts give the pLogP gaps). The hosts are then grouped by seed
003's rule (Lowekamp's greedy clustering, :func:`collsched.platform.clustering.lowekamp`,
tolerance ``rho``) applied to the measured **time per byte** ``1/β`` of
each pair: on networks whose latencies are all alike (switched Ethernet, the
emulated networks of :mod:`collsched.runtime.emulation`), bandwidth is what
tells a slow link between switches from the fast ones.

The result is a platform (one directed link per ordered pair, α and β as
measured) whose ``clusters`` are the groups found, ready for ``plan-suite``.

Examples
--------
>>> import numpy as np
>>> bandwidth = np.array([[0, 10, 1, 1], [10, 0, 1, 1], [1, 1, 0, 10], [1, 1, 10, 0]]) * 1e8
>>> clusters_by_bandwidth(bandwidth, ["a", "b", "c", "d"])
(('a', 'b'), ('c', 'd'))
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..platform.clustering import lowekamp, with_clusters
from ..runtime.calibrate import (BURST, MAX_TIME, REPEAT, SIZES, TIME_PER_SIZE, Calibration, calibration_of,
                                 pingpong_task)
from ..runtime.pingpong import pingpong_rank

__all__ = ["calibrate", "clusters_by_bandwidth", "measured_platform", "calibrate_hosts", "read_hostfile", "SIZES"]



def clusters_by_bandwidth(bandwidth: np.ndarray, hosts: Sequence[str], *, rho: float = 0.3):
    """Groups of hosts by seed 003's rule over the time per byte ``1 / bandwidth`` of each pair.

    Parameters
    ----------
    bandwidth : numpy.ndarray
        ``(N, N)`` bytes/s; a pair measured one way counts both ways; the diagonal is ignored.
    hosts : sequence of str
    rho : float
        Lowekamp's tolerance rate.

    Returns
    -------
    tuple of tuple of str

    Examples
    --------
    See the module docstring.
    """
    bw = np.array(bandwidth, dtype=float)
    bw = np.where(np.isnan(bw), bw.T, bw)
    off = ~np.eye(len(hosts), dtype=bool)
    per_byte = np.zeros_like(bw)
    per_byte[off] = 1.0 / bw[off]
    return tuple(tuple(hosts[i] for i in group) for group in lowekamp(per_byte, rho=rho))


def measured_platform(cal: Calibration, *, rho: float = 0.3, name: str = "measured"):
    """A calibration's platform (:meth:`Calibration.platform`) with the clusters :func:`clusters_by_bandwidth` finds.

    Examples
    --------
    >>> c = Calibration(("a", "b"), (8, 1008), ((0, 1),), one_way=np.array([[1e-5, 2e-5]]),
    ...                 gap=np.zeros((1, 2)), send_overhead=np.zeros((1, 2)), recv_overhead=np.zeros((1, 2)))
    >>> measured_platform(c).clusters
    (('a', 'b'),)
    """
    return with_clusters(cal.platform(name=name), clusters_by_bandwidth(cal.bandwidth, cal.hosts, rho=rho))


def calibrate(comm, *, hosts: Sequence[str] | None = None, sizes: Sequence[int] = SIZES, repeat: int = REPEAT,
              burst: int = BURST, time_per_size: float = TIME_PER_SIZE, max_time: float = MAX_TIME, rho: float = 0.3,
              name: str = "measured"):
    """Measure every pair of ranks of ``comm`` by ping-pong and return the measured platform, on every rank.

    Collective: every rank of ``comm`` calls it.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    hosts : sequence of str, optional
        The host name of each rank (default ``h0``, ``h1``, ...).
    sizes, repeat, burst, time_per_size, max_time
        As for :func:`collsched.runtime.calibrate.calibrate` (the same defaults).
    rho : float
        Tolerance of the clustering.
    name : str
        The platform's name.

    Returns
    -------
    (Platform, Calibration)
        The platform (measured links, clusters) and the raw measurements.

    Raises
    ------
    ValueError
        Bad options (on every rank alike).

    Examples
    --------
    Inside an mpi4py program (``mpirun -n 8 python measure.py``)::

        platform, cal = csmpi.calibrate(comm)
        if comm.rank == 0:
            cs.save_platform(platform, "platform.json")

    >>> callable(calibrate)
    True
    """
    hosts = tuple(hosts) if hosts is not None else tuple(f"h{i}" for i in range(comm.Get_size()))
    if len(hosts) != comm.Get_size():
        raise ValueError(f"calibrate: {len(hosts)} host names for {comm.Get_size()} ranks")
    task = pingpong_task(hosts, sizes=sizes, repeat=repeat, burst=burst, time_per_size=time_per_size,
                         max_time=max_time)
    private = comm.Dup()
    try:
        answer = private.bcast(pingpong_rank(private, task, list(hosts)), root=0)
    finally:
        private.Free()
    cal = calibration_of(hosts, task, answer)
    return measured_platform(cal, rho=rho, name=name), cal


def read_hostfile(path) -> list[str]:
    """The rank names of an Open MPI hostfile: one rank per host line (``slots=`` ignored), made unique.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "hosts"
    >>> _ = f.write_text("# two nodes\\nnode1 slots=4\\nnode2\\nnode2\\n")
    >>> read_hostfile(f)
    ['node1', 'node2', 'node2-1']
    """
    from ..fileformat import read_text

    names: list[str] = []
    for line in read_text(path).splitlines():
        host = line.split("#", 1)[0].split()
        if not host:
            continue
        name, k = host[0], 1
        while name in names:
            name, k = f"{host[0]}-{k}", k + 1
        names.append(name)
    if not names:
        raise ValueError(f"hostfile {path} names no host")
    return names


def calibrate_hosts(hostfile, output, *, sizes: Sequence[int] = SIZES, repeat: int = REPEAT,
                    timeout: float = 600.0):
    """``collsched calibrate --hosts HOSTFILE -o platform.json``: one rank per host line, measured and clustered.

    Parameters
    ----------
    hostfile : path-like
        An Open MPI hostfile (:func:`read_hostfile`).
    output : path-like
        The platform file to write (``.json``).
    sizes, repeat
        As for :func:`calibrate`.
    timeout : float
        Seconds the MPI job may take.

    Returns
    -------
    Platform
        What was written.

    Examples
    --------
    See ``tests/runtime/test_mpi_api_calibrate.py`` (it needs MPI).

    >>> callable(calibrate_hosts)
    True
    """
    import os

    from ..platform.io import load_platform
    from .emulated import run_script

    names = read_hostfile(hostfile)
    args = ["-m", "collsched.mpi.calibrate", os.fspath(output), ",".join(names), ",".join(map(str, sizes)),
            str(repeat)]
    run_script(names, args[0], args[1:], timeout=timeout, hostfile=os.fspath(hostfile))
    return load_platform(output)


if __name__ == "__main__":  # the ranks of calibrate_hosts
    import sys

    from mpi4py import MPI

    from ..platform.io import save_platform

    out, hosts, sizes, repeat = sys.argv[1:5]
    measured, _ = calibrate(MPI.COMM_WORLD, hosts=hosts.split(","), sizes=[int(x) for x in sizes.split(",")],
                            repeat=int(repeat))
    if MPI.COMM_WORLD.rank == 0:
        save_platform(measured, out)
