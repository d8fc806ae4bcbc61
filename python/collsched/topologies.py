"""Topology generators, re-exported from :mod:`collsched.platform.topologies`.

Examples
--------
>>> import collsched as cs
>>> p = cs.topologies.star(4)
>>> len(p.hosts), p.routers
(4, ('sw',))
>>> cs.topologies.hypercube(3).route("h0", "h7")
('e0-1', 'e1-3', 'e3-7')
"""

from .platform.topologies import *  # noqa: F401,F403
from .platform.topologies import __all__  # noqa: F401
