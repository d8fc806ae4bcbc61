"""The command line every benchmark shares: ``--help`` from its docstring, bad arguments in one line, Ctrl-C.

A benchmark builds its parser from its module docstring (first paragraph
the description, the rest shown under the options), and runs its ``main``
through :func:`run`, so that Ctrl-C stops it with exit status 130 and one
line instead of a traceback. argparse itself answers bad arguments with
the usage and one line, exit status 2.

>>> p = parser('''Time something.
...
... Run: ``python benchmarks/bench_x.py [N ...]``.''')
>>> _ = p.add_argument("sizes", nargs="*", type=int, default=[64])
>>> p.parse_args(["128"]).sizes, p.parse_args([]).sizes
([128], [64])
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable


def parser(doc: str) -> argparse.ArgumentParser:
    """An argument parser whose help is the benchmark's docstring ``doc``."""
    description, _, rest = doc.strip().partition("\n\n")
    return argparse.ArgumentParser(description=description, epilog=rest or None,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def run(main: Callable[..., object], *args, **kwargs) -> None:
    """``main(*args, **kwargs)``; Ctrl-C ends the process with one line and exit status 130."""
    try:
        main(*args, **kwargs)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


def fabric(spec: str) -> str:
    """A ``name:param`` fabric argument (``dgx2:2``), checked for argparse: a bad one is one line, exit 2."""
    from collsched import topologies

    name, sep, param = spec.partition(":")
    if not sep or not param.isdigit() or not callable(getattr(topologies, name, None)) or name.startswith("_"):
        raise argparse.ArgumentTypeError(f"{spec!r} is not a fabric: write name:count, e.g. dgx2:2 or mi250:4")
    return spec
