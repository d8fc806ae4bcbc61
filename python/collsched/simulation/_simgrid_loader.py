"""Find and import SimGrid's Python bindings without the rest of a system's dist-packages.

Debian's ``python3-simgrid`` package installs one extension module,
``/usr/lib/python3/dist-packages/simgrid.cpython-311-x86_64-linux-gnu.so``,
built for Debian's CPython 3.11. Our interpreter (any CPython 3.11 on the
same platform) can load that file, since the ABI of an extension module is
fixed by its tag (``cpython-311-x86_64-linux-gnu``), but putting the whole
directory on ``sys.path`` would shadow the project's own packages (numpy,
scipy, ...) with Debian's. So :func:`load` imports exactly that one file,
after checking that its tag is one this interpreter accepts.

Where the module is looked for, in order:

1. ``$COLLSCHED_SIMGRID_SO``, the path of a ``simgrid*.so`` file;
2. a ``simgrid`` module on ``sys.path`` (e.g. ``pip install simgrid``);
3. the files of the Debian package (``dpkg -L python3-simgrid``);
4. ``/usr/lib/python3/dist-packages/simgrid*.so``.

Importing the module starts nothing: SimGrid's engine is created by the
caller (:mod:`collsched.simulation.simgrid` does it in a child process).

Examples
--------
>>> reason = unavailable_reason()
>>> reason is None or isinstance(reason, str)
True
"""

from __future__ import annotations

import glob
import importlib.machinery
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["SimgridUnavailable", "find_extension", "load", "unavailable_reason", "ENV_VAR", "DEBIAN_PACKAGE"]

ENV_VAR = "COLLSCHED_SIMGRID_SO"
DEBIAN_PACKAGE = "python3-simgrid"
_DIST_PACKAGES = "/usr/lib/python3/dist-packages"
_INSTALL_HINT = f"install it with 'apt-get install {DEBIAN_PACKAGE}' or set {ENV_VAR} to a simgrid*.so file"


class SimgridUnavailable(RuntimeError):
    """SimGrid's Python bindings cannot be imported; the message says why and how to fix it."""


def _abi_ok(path: str) -> bool:
    """True if the file's tag (``simgrid.<tag>.so``) is one this interpreter loads.

    Examples
    --------
    >>> import sysconfig
    >>> _abi_ok("/x/simgrid" + sysconfig.get_config_var("EXT_SUFFIX")), _abi_ok("/x/simgrid.cpython-39-x.so")
    (True, False)
    """
    name = os.path.basename(path)
    suffix = name[name.index("."):] if "." in name else ""
    return suffix in importlib.machinery.EXTENSION_SUFFIXES


def _debian_files() -> list[str]:
    if shutil.which("dpkg") is None:
        return []
    try:
        out = subprocess.run(["dpkg", "-L", DEBIAN_PACKAGE], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line for line in out.stdout.splitlines() if os.path.basename(line).startswith("simgrid")
            and line.endswith(".so")]


def find_extension() -> str | None:
    """The path of the SimGrid extension module to load, or None if a ``simgrid`` module is on ``sys.path``.

    Returns
    -------
    str or None

    Raises
    ------
    SimgridUnavailable
        If no file is found, or the one found was built for another Python.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        if not os.path.isfile(env):
            raise SimgridUnavailable(f"{ENV_VAR}={env!r} is not a file ({_INSTALL_HINT})")
        candidates = [env]
    elif importlib.util.find_spec("simgrid") is not None:
        return None
    else:
        candidates = _debian_files() or sorted(glob.glob(os.path.join(_DIST_PACKAGES, "simgrid*.so")))
    if not candidates:
        raise SimgridUnavailable(f"SimGrid's Python bindings are not installed ({_INSTALL_HINT})")
    for path in candidates:
        if _abi_ok(path):
            return path
    tags = ", ".join(importlib.machinery.EXTENSION_SUFFIXES)
    raise SimgridUnavailable(f"SimGrid's Python bindings {', '.join(map(repr, candidates))} were built for another "
                             f"Python than CPython {sys.version_info[0]}.{sys.version_info[1]} (it loads {tags}); "
                             f"run collsched with the Python the package was built for")


def load():
    """Import SimGrid's Python bindings as the module ``simgrid`` and return it.

    Returns
    -------
    module

    Raises
    ------
    SimgridUnavailable
        If the bindings are missing, built for another Python, or fail to load.
    """
    if "simgrid" in sys.modules:
        return sys.modules["simgrid"]
    path = find_extension()
    try:
        if path is None:
            import simgrid  # noqa: PLC0415
            return simgrid
        loader = importlib.machinery.ExtensionFileLoader("simgrid", path)
        spec = importlib.util.spec_from_file_location("simgrid", path, loader=loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules["simgrid"] = module
        try:
            loader.exec_module(module)
        except BaseException:
            del sys.modules["simgrid"]
            raise
        return module
    except ImportError as exc:
        where = path or "the simgrid module on sys.path"
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise SimgridUnavailable(f"cannot import SimGrid's Python bindings from {where}: {first}") from None


def unavailable_reason() -> str | None:
    """Why SimGrid cannot be used here (one line), or None if its bindings can be found.

    Only looks for the file and checks its ABI tag; it does not load it (the
    child process that runs a simulation does).

    Examples
    --------
    >>> unavailable_reason() is None or "SimGrid" in unavailable_reason()
    True
    """
    try:
        find_extension()
    except SimgridUnavailable as exc:
        return str(exc)
    return None


if __name__ == "__main__":  # pragma: no cover - a manual check: python -m collsched.simulation._simgrid_loader
    print(Path(getattr(load(), "__file__", "?")))
