"""MSCCL XML algorithm files: read, check, simulate and write them.

* :func:`read` — a file into a :class:`~collsched.schedules.program.Program`
  and the collective it claims (:mod:`.xml_read`, :mod:`.layout`, :mod:`.program`);
* :func:`check` — validated, deadlock-free (:mod:`.deadlock`), and linted
  for what makes the runtime fall back silently (:mod:`.lint`);
* :func:`write` — a collsched schedule or program as a file the runtime
  loads, and :func:`write_registration` the ``<msccl_algos>`` file listing
  several (:mod:`.export`); :func:`ready` — the schedule made ready for
  MSCCL first (a forest that does not fit fitted, a step schedule's parts
  of messages rounded onto a chunk grid, :mod:`.parts`, messages merged or cut),
  with the Program the file runs and its time, which the file takes
  exactly (:mod:`.ready`); :func:`plan` — a schedule planned in MSCCL's
  model (the forest's shares on the chunk grid, a baseline without
  signals), whose planned time the file takes exactly (:mod:`.planning`).

Examples
--------
>>> import collsched as cs, pathlib, tempfile
>>> from collsched.interop import msccl
>>> g = cs.topologies.star(4)
>>> c = cs.AllGather(participants=g.hosts, size=2**20)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "ring.xml"
>>> _ = msccl.write(path, g, c, cs.plan(g, c, algorithm="ring"))
>>> msccl.check(path, g).summary()
'valid allgather on 4 gpus (in place): 8 thread blocks, 24 steps, 1.049MB per chunk per rank (4 chunks per loop), 0 warnings'
"""

from .check import Checked, check, check_text, read
from .export import call_bytes, fit_chunks, to_xml, write, write_registration
from .fit import round_shares
from .parts import grid_for, round_parts
from .lint import Finding, lint
from .planning import GridShares, Planned, exported, fastest_forest, grid_shares, plan
from .ready import Ready, ready
from .program import Imported, to_program
from .xml_read import parse, parse_text

__all__ = ["read", "check", "check_text", "ready", "Ready", "plan", "Planned", "fastest_forest", "exported", "grid_shares", "GridShares", "write", "to_xml", "fit_chunks",
           "round_shares", "round_parts", "grid_for", "call_bytes", "write_registration", "parse", "parse_text", "to_program", "lint", "Checked",
           "Imported", "Finding"]
