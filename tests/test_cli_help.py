"""``--version``, and flags shown as flags (no ``<bool>``) in every command's ``--help``."""

import pytest

import collsched as cs
from collsched.cli import _command

from test_cli import run


def test_version(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out == f"collsched {cs.__version__}\n"


def command_paths(command, prefix=()):
    yield prefix
    for name, sub in getattr(command, "commands", {}).items():
        yield from command_paths(sub, prefix + (name,))


@pytest.mark.parametrize("path", list(command_paths(_command())), ids=lambda p: " ".join(p) or "collsched")
def test_help_shows_flags_without_a_type(path, capsys):
    code, out, err = run([*path, "--help"], capsys)
    assert code == 0, err
    assert "--help" in out and "<bool>" not in out
