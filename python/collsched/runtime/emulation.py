"""A platform's network, emulated on one Linux machine: network namespaces, bridges, veth pairs, ``tc htb``.

Every node of the platform that may run a rank (the hosts, then the routers,
through which some schedules relay) gets a network namespace of its own
(``<prefix>n<i>`` for node ``i``) with one interface ``eth0`` on the subnet
``10.197.0.0/16``; a job starts a rank in the namespaces of the nodes its
programs use. A namespace
``<prefix>br`` holds the switches. Two ways to shape the traffic, chosen
from the platform:

* ``mode="links"`` (the routers form a tree and every host has one link):
  every router is a Linux bridge; every link is a veth pair (a host's end is
  its ``eth0``, a router's end is a port of its bridge) whose two ends are
  each limited by an ``htb`` class at the link's bandwidth. Traffic crosses
  the same links as the platform's routes, and flows through one link share
  it (TCP's fairness, close to the ``Fluid`` model's max-min sharing). A
  router's own rank hangs off its bridge by an unshaped veth.
* ``mode="pairs"`` (any platform): one bridge; on each sender's ``eth0`` one
  ``htb`` class per destination, selected by a ``u32`` filter on the
  destination address, at the bottleneck bandwidth of the route (the
  platform's bandwidth matrix). Flows of different pairs do not share.

The rates are those of the messages (the bytes an MPI rank sends, as the
simulators count them). ``htb`` counts whole Ethernet frames: a full TCP
segment carries 1448 bytes of payload in a 1514-byte frame (14 Ethernet + 20
IP + 32 TCP bytes with timestamps, the Linux default), so a class at the
link's bandwidth would let through only 1448/1514 = 95.6% of it; every class
is set to ``bandwidth × 1514/1448`` (:func:`htb_rate`). And ``htb`` lets a
packet go whole whenever its tokens are not negative, however large, and
pays the debt afterwards, while the link idles; with the veth's offloads TCP
hands it super-packets of up to 64 kB (GSO), so ping-pong messages of 16–64
kB crossed 50 MB/s and 5 MB/s links at 2.2–3× their rate. Every veth
therefore takes at most :data:`GSO_SEGMENTS` segments per packet
(``gso_max_segs``): with lumps of 12 kB at most, a 16 kB message crosses at
1.0–1.5× the rate, 50 kB at up to 1.1×, 200 kB and more within 4% of it
(timed TCP transfers between namespaces of ``round_robin_switches(2)``,
2-core machine loaded).
Disabling GSO altogether (one segment per packet) made the 2-core machine
too slow to fill 50 MB/s under load (41–45 MB/s where 47.8 was due).

Latency: the kernel of the machines this was written for has no ``netem``,
so the runtime waits the route's latency before posting each send
(:mod:`.execute`); MPI's own collectives get no added latency, so compare
with them on platforms whose latency is negligible.

Open MPI is started in the switches' namespace (so its process manager,
PMIx, listens on the emulated subnet: ``PMIX_MCA_ptl_tcp_remote_connections``
and ``ptl_tcp_if_include``), uses TCP only (``--mca btl tcp,self``; shared
memory would bypass the emulation) on the emulated subnet, and each rank
enters its namespace through ``ip netns exec`` before Python starts.

Names are unique per emulation and carry the id of the process that made
them; every namespace is removed when the emulation ends (``with``-block
exit, error, ``SIGTERM``, interpreter exit), and those of a process killed
outright are removed by the next emulation (:func:`remove_stale`); traffic
stays inside these namespaces.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.two_switches(2, trunk_bandwidth="1MBps")
>>> plan_mode(p)
'links'
>>> plan_mode(cs.topologies.fully_connected(3))
'pairs'
>>> why = emulation_unavailable()
>>> why is None or "root" in why or "Linux" in why or "ip" in why
True
"""

from __future__ import annotations

import atexit
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
from typing import Sequence

from ..errors import CollschedError
from .launch import mpirun_command

__all__ = ["Emulation", "EmulationError", "emulation_unavailable", "plan_mode", "remove_stale", "htb_rate", "SUBNET",
           "GSO_SEGMENTS"]

SUBNET = "10.197.0.0/16"
_BRIDGE_IP = "10.197.255.254"

#: Segments per packet on every veth of an emulation (``ip link ... gso_max_segs``): see the module docstring.
GSO_SEGMENTS = 8

_FRAME, _PAYLOAD = 1514, 1448  # a full TCP segment at MTU 1500: the frame htb counts, the message bytes it carries


def htb_rate(bandwidth: float) -> str:
    """The ``htb`` rate that gives TCP messages ``bandwidth`` bytes/s: frames counted whole (see the module docstring).

    Parameters
    ----------
    bandwidth : float
        Bytes of messages per second.

    Returns
    -------
    str
        A ``tc`` rate in bits per second, ``bandwidth × 8 × 1514/1448``.

    Examples
    --------
    >>> htb_rate(5e6)
    '41823204bit'
    >>> htb_rate(0.0)
    '8bit'
    """
    return f"{max(8, int(bandwidth * 8 * _FRAME / _PAYLOAD))}bit"


class EmulationError(CollschedError):
    """The network emulation could not be set up (not Linux, not root, ``ip``/``tc`` missing, a command failed).

    Examples
    --------
    >>> str(EmulationError("ip netns add failed"))
    'ip netns add failed'
    """


def emulation_unavailable() -> str | None:
    """Why network emulation cannot run here (None if it can: Linux, root, ``ip`` and ``tc``).

    Examples
    --------
    >>> emulation_unavailable() is None or isinstance(emulation_unavailable(), str)
    True
    """
    if not sys.platform.startswith("linux"):
        return "network emulation needs Linux (network namespaces and tc)"
    if os.geteuid() != 0:
        return "network emulation needs root (it creates network namespaces)"
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            return f"network emulation needs '{tool}' (apt-get install iproute2)"
    return None


def _address(i: int) -> str:
    return f"10.197.{i // 200}.{i % 200 + 10}"


def plan_mode(platform) -> str:
    """``"links"`` if the platform's switches form a tree with one link per host, else ``"pairs"``.

    Examples
    --------
    >>> import collsched as cs
    >>> plan_mode(cs.topologies.star(3)), plan_mode(cs.topologies.hypercube(2))
    ('links', 'pairs')
    """
    import networkx as nx

    hosts = set(platform.hosts)
    g = nx.MultiGraph()
    g.add_nodes_from(platform.nodes)
    for link in platform.links.values():
        if link.ends is None or link.directed:
            return "pairs"
        g.add_edge(*link.ends)
    if any(g.degree(h) != 1 or next(iter(g.neighbors(h))) in hosts for h in hosts):
        return "pairs"
    if not platform.routers or g.number_of_edges() != g.number_of_nodes() - 1 or not nx.is_connected(g):
        return "pairs"
    return "links"


_LIVE: set[str] = set()
_NAME = re.compile(r"^cs([0-9a-f]{6})[0-9a-f]{2}(?:n\d+|br|\d+[ab])$")


def _cleanup_all() -> None:
    for ns in sorted(_LIVE):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    _LIVE.clear()


atexit.register(_cleanup_all)


def remove_stale() -> list[str]:
    """Remove the namespaces (and stray veths) of emulations whose process is gone (killed by SIGKILL).

    Every name of an emulation carries the id of the process that made it
    (``cs<pid:06x><2 hex>...``); a name whose process no longer exists is
    removed. :class:`Emulation` calls this when it starts.

    Returns
    -------
    list of str
        The names removed.

    Examples
    --------
    >>> emulation_unavailable() is not None or isinstance(remove_stale(), list)
    True
    """
    removed = []
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout.split("\n")
    names = [("netns", line.split()[0]) for line in listed if line.strip()]
    names += [("link", line.split(":")[1].strip().split("@")[0]) for line in links if line.count(":") >= 2]
    for kind, name in names:
        m = _NAME.match(name)
        if m is None or os.path.exists(f"/proc/{int(m.group(1), 16)}"):
            continue
        cmd = ["ip", "netns", "del", name] if kind == "netns" else ["ip", "link", "del", name]
        if subprocess.run(cmd, capture_output=True).returncode == 0:
            removed.append(name)
    return removed


def _terminate(signum, frame):
    raise SystemExit(128 + signum)


class Emulation:
    """The emulated network of ``platform``, while inside a ``with`` block.

    Parameters
    ----------
    platform : Platform
    mode : {"auto", "links", "pairs"}
        See the module docstring; ``"auto"`` picks :func:`plan_mode`.

    Attributes
    ----------
    world : tuple of str
        The nodes that may run a rank: the hosts, then the routers.
    addresses : dict
        Node id -> IPv4 address of its namespace.
    prefix : str
        Prefix of this emulation's namespace names (unique).

    Raises
    ------
    EmulationError
        When entered, if emulation is unavailable (:func:`emulation_unavailable`) or a command fails.

    Examples
    --------
    >>> import collsched as cs
    >>> from collsched.runtime import mpi_available, run
    >>> p = cs.topologies.two_switches(2, bandwidth="50MBps", trunk_bandwidth="5MBps", latency=0.0)
    >>> c = cs.Broadcast(source="h0", targets=p.hosts, size=1e4)
    >>> if emulation_unavailable() is None and mpi_available() is None:
    ...     with Emulation(p) as net:
    ...         assert run(p, cs.plan(p, c, algorithm="binomial"), c, emulation=net).verified
    """

    def __init__(self, platform, *, mode: str = "auto"):
        if mode not in ("auto", "links", "pairs"):
            raise ValueError(f"Emulation option mode={mode!r} is not one of 'auto', 'links', 'pairs'")
        self.platform = platform
        self.mode = plan_mode(platform) if mode == "auto" else mode
        if self.mode == "links" and plan_mode(platform) != "links":
            raise EmulationError(f"platform {platform.name!r} cannot be emulated link by link",
                                 fix="its switches must form a tree with one link per host; use mode='pairs'")
        self.world = tuple(platform.hosts) + tuple(platform.routers)
        self.addresses = {n: _address(i) for i, n in enumerate(self.world)}
        self.prefix = f"cs{os.getpid() % 0x1000000:06x}{secrets.token_hex(1)}"  # the pid: see remove_stale
        self._namespaces: list[str] = []
        self._veths = 0

    # --- set-up ---------------------------------------------------------------------------

    def _sh(self, *args: str, ns: str | None = None) -> None:
        cmd = (["ip", "netns", "exec", ns] if ns else []) + list(args)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise EmulationError(f"'{' '.join(cmd)}' failed: {done.stderr.strip() or done.returncode}",
                                 fix="network emulation needs root and a kernel with veth, bridge and htb")

    def _netns(self, name: str) -> str:
        self._sh("ip", "netns", "add", name)
        _LIVE.add(name)
        self._namespaces.append(name)
        self._sh("ip", "link", "set", "lo", "up", ns=name)
        return name

    def _veth(self, ns_a: str, ns_b: str) -> tuple[str, str]:
        """A veth pair with one end in each namespace; returns the two interface names."""
        self._veths += 1
        a, b = f"{self.prefix}{self._veths}a", f"{self.prefix}{self._veths}b"
        segs = ("gso_max_segs", str(GSO_SEGMENTS))
        self._sh("ip", "link", "add", a, *segs, "type", "veth", "peer", "name", b, *segs)
        self._sh("ip", "link", "set", a, "netns", ns_a)
        self._sh("ip", "link", "set", b, "netns", ns_b)
        return a, b

    def _shape(self, ns: str, dev: str, rate: float) -> None:
        """Limit ``dev``'s egress to ``rate`` bytes/s of messages (one htb class)."""
        bits = htb_rate(rate)
        self._sh("tc", "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "1", "r2q", "100000",
                 ns=ns)
        self._sh("tc", "class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", bits, "ceil", bits,
                 "quantum", "1514", ns=ns)

    def _up(self, ns: str, dev: str, *, name: str | None = None, address: str | None = None,
            bridge: str | None = None) -> str:
        if name:
            self._sh("ip", "link", "set", dev, "name", name, ns=ns)
            dev = name
        if address:
            self._sh("ip", "addr", "add", f"{address}/16", "dev", dev, ns=ns)
        if bridge:
            self._sh("ip", "link", "set", dev, "master", bridge, ns=ns)
        self._sh("ip", "link", "set", dev, "up", ns=ns)
        return dev

    def rank_namespace(self, node: str) -> str:
        """The namespace of ``node``'s rank.

        Examples
        --------
        >>> import collsched as cs
        >>> e = Emulation(cs.topologies.star(2))
        >>> e.rank_namespace("h1") == e.prefix + "n1"
        True
        """
        return f"{self.prefix}n{self.world.index(node)}"

    def __enter__(self) -> Emulation:
        why = emulation_unavailable()
        if why is not None:
            raise EmulationError(why)
        remove_stale()
        # SIGTERM would end the process without running ``finally`` blocks or atexit: make it an exception
        self._sigterm = None
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            self._sigterm = signal.signal(signal.SIGTERM, _terminate)
        try:
            self._build()
        except BaseException:
            self.close()
            raise
        return self

    def _build(self) -> None:
        p = self.platform
        br = self._netns(f"{self.prefix}br")
        ranks = {n: self._netns(self.rank_namespace(n)) for n in self.world}
        bridges = {r: f"b{i}" for i, r in enumerate(p.routers)} if self.mode == "links" else {"*": "b0"}
        for name in bridges.values():
            self._sh("ip", "link", "add", name, "type", "bridge", ns=br)
            self._sh("ip", "link", "set", name, "up", ns=br)
        # the process manager (mpirun, in the bridge namespace) listens on this address
        self._sh("ip", "addr", "add", f"{_BRIDGE_IP}/16", "dev", next(iter(bridges.values())), ns=br)
        if self.mode == "links":
            for link in p.links.values():
                u, v = link.ends
                ends = []
                for node in (u, v):
                    ends.append((ranks[node], None) if node in p.hosts else (br, bridges[node]))
                a, b = self._veth(ends[0][0], ends[1][0])
                for (ns, bridge), dev, node in ((ends[0], a, u), (ends[1], b, v)):
                    if bridge is None:
                        dev = self._up(ns, dev, name="eth0", address=self.addresses[node])
                    else:
                        self._up(ns, dev, bridge=bridge)
                    self._shape(ns, dev, link.bandwidth)
            for r in p.routers:  # a router's own rank: an unshaped port of its bridge
                a, b = self._veth(ranks[r], br)
                self._up(ranks[r], a, name="eth0", address=self.addresses[r])
                self._up(br, b, bridge=bridges[r])
        else:
            for n in self.world:
                a, b = self._veth(ranks[n], br)
                self._up(ranks[n], a, name="eth0", address=self.addresses[n])
                self._up(br, b, bridge="b0")
            for i, src in enumerate(p.hosts):
                self._pairs(ranks[src], src)

    def _pairs(self, ns: str, src: str) -> None:
        """One htb class per destination host on ``src``'s eth0, selected by destination address."""
        self._sh("tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "r2q", "100000", ns=ns)
        for j, dst in enumerate(self.platform.hosts):
            if dst == src:
                continue
            bits = htb_rate(self.platform.bandwidth(src, dst))
            cls = f"1:{j + 1:x}"
            self._sh("tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", cls, "htb", "rate", bits,
                     "ceil", bits, "quantum", "1514", ns=ns)
            self._sh("tc", "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                     "match", "ip", "dst", f"{self.addresses[dst]}/32", "flowid", cls, ns=ns)

    # --- use ---------------------------------------------------------------------------------

    def command(self, world: Sequence[str], program: Sequence[str]) -> list[str]:
        """The command that starts ``program`` on one rank per node of ``world``, each in its namespace.

        Parameters
        ----------
        world : sequence of str
            Node id of each MPI rank (nodes of the emulated platform, in any order).
        program : sequence of str
            What every rank runs.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import collsched as cs
        >>> e = Emulation(cs.topologies.star(3))
        >>> cmd = e.command(["h2", "h0"], ["python"])
        >>> cmd[:4] == ["ip", "netns", "exec", e.prefix + "br"], cmd[cmd.index("btl") + 1]
        (True, 'tcp,self')
        >>> cmd[-4:] == ["sh", e.rank_namespace("h2"), e.rank_namespace("h0"), "python"]
        True
        """
        # rank i enters the namespace of world[i]: the (i + 1)-th argument of the shell
        enter = ["sh", "-c", f'eval "ns=\\${{$((OMPI_COMM_WORLD_RANK + 1))}}"; shift {len(world)}; '
                             'exec ip netns exec "$ns" "$@"', "sh"] + [self.rank_namespace(n) for n in world]
        mca = [("btl", "tcp,self"), ("btl_tcp_if_include", SUBNET), ("oob_tcp_if_include", SUBNET)]
        return ["ip", "netns", "exec", f"{self.prefix}br"] + mpirun_command(len(world), enter + list(program), mca=mca)

    def environment(self) -> dict[str, str]:
        """Environment variables of the launch (PMIx reachable on the emulated subnet).

        Examples
        --------
        >>> import collsched as cs
        >>> Emulation(cs.topologies.star(2)).environment()["PMIX_MCA_ptl_tcp_remote_connections"]
        '1'
        """
        return {"PMIX_MCA_ptl_tcp_remote_connections": "1", "PMIX_MCA_ptl_tcp_if_include": SUBNET}

    def close(self) -> None:
        """Remove every namespace of the emulation (and with them its interfaces and queues).

        Examples
        --------
        >>> import collsched as cs
        >>> Emulation(cs.topologies.star(2)).close()
        """
        for ns in reversed(self._namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
            _LIVE.discard(ns)
        self._namespaces.clear()
        if getattr(self, "_sigterm", None) is not None:
            signal.signal(signal.SIGTERM, self._sigterm)
            self._sigterm = None

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Emulation of {self.platform.name!r}: {len(self.world)} ranks, mode {self.mode!r}, {self.prefix}*>"
