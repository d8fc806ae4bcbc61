"""Check that the environment running this holds exactly the versions of the lock (constraints.txt) it installed.

`make install` and `make dev` run it after pip: a package installed at a
version the lock does not name (the lock ignored, or edited without
reinstalling) stops the build with one line per package and how to fix it.
Lines whose environment marker does not hold here (another Python) are
skipped; packages the lock does not name (pip, collsched itself) are not
checked. With ``--against uv.lock`` it also checks that uv's own lock (which
``make lock`` writes at the same instant) names, for every package both
files name, the version constraints.txt names.

Run: ``.venv/bin/python scripts/check_lock.py constraints.txt [--against uv.lock]``.
"""

from __future__ import annotations

import sys
import tomllib
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


def disagreements(pins: dict[str, str], uv_lock: str) -> list[str]:
    """The packages whose version in ``pins`` is not one ``uv_lock`` names for them."""
    versions: dict[str, set[str]] = {}
    for package in tomllib.load(open(uv_lock, "rb"))["package"]:
        versions.setdefault(canonicalize_name(package["name"]), set()).add(package.get("version"))
    return [f"{name} {version} here, {' or '.join(sorted(versions[name]))} in {uv_lock}"
            for name, version in sorted(pins.items()) if name in versions and version not in versions[name]]


def main(path: str, uv_lock: str | None = None) -> int:
    pins = locked(path)
    wrong = [f"{w}: the two locks differ, run `make lock` to write both" for w in
             (disagreements(pins, uv_lock) if uv_lock else [])]
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name in pins and dist.version != pins[name]:
            wrong.append(f"{name} {dist.version} installed, {pins[name]} locked: run `make clean` then make again "
                         "(or `make lock` to move the lock)")
    for w in wrong:
        print(f"{path}: {w}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) not in (1, 3) or (len(args) == 3 and args[1] != "--against"):
        sys.exit("usage: check_lock.py constraints.txt [--against uv.lock]")
    sys.exit(main(args[0], args[2] if len(args) == 3 else None))
