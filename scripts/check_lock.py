"""Check that the environment running this holds exactly the versions of the lock (constraints.txt) it installed.

`make install` and `make dev` run it after pip: a package installed at a
version the lock does not name (the lock ignored, or edited without
reinstalling) stops the build with one line per package and how to fix it.
Lines whose environment marker does not hold here (another Python) are
skipped; packages the lock does not name (pip, collsched itself) are not
checked.

Run: ``.venv/bin/python scripts/check_lock.py constraints.txt``.
"""

from __future__ import annotations

import sys
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def locked(path: str) -> dict[str, str]:
    """``name -> version`` of every line of the lock whose marker holds in this environment."""
    pins = {}
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            pins[canonicalize_name(req.name)] = next(iter(req.specifier)).version
    return pins


def main(path: str) -> int:
    pins = locked(path)
    wrong = []
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name in pins and dist.version != pins[name]:
            wrong.append(f"{name} {dist.version} installed, {pins[name]} locked")
    for w in wrong:
        print(f"{path}: {w}: run `make clean` then make again (or `make lock` to move the lock)", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
