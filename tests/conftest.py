"""Shared by every test: the Hypothesis profiles, and the test groups that need something outside Python.

**Hypothesis profiles.** ``ci`` (derandomized: the same examples on every
run, no example database written, the failing example's blob printed) and
``dev`` (random examples, replayed from ``.hypothesis/`` once they failed,
blob printed). ``HYPOTHESIS_PROFILE`` chooses; without it, ``CI=true`` means
``ci`` and anything else ``dev``. ``make test`` runs ``ci``. A test's own
``@settings(...)`` changes only what it names (``max_examples``,
``deadline``) and inherits the rest from the profile.

**Test groups.** A test that needs a system package is marked with its
group (``@pytest.mark.mpi``, ``simgrid``, ``netns``, ``dask``); a doctest
example that runs MPI carries ``# doctest: +MPI``. When the group's
requirement is missing, its tests are skipped with a reason that names the
package to install, and at the end of the run one line per group says
whether it ran or why not, so that no capability goes untested unnoticed::

    test groups:
      MPI runtime: ran (38 tests, 3 doctest examples)
      SimGrid cross-check: skipped (12 tests): SimGrid's Python bindings are not installed (install ...)
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

# --- Hypothesis ---------------------------------------------------------------------------

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)
settings.register_profile("dev", deadline=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
settings.load_profile(PROFILE)

# --- test groups --------------------------------------------------------------------------

MPI_FLAG = doctest.register_optionflag("MPI")  # `>>> cs.run(...)  # doctest: +MPI`: runs only where MPI is


def _mpi() -> str | None:
    from collsched.runtime import mpi_available

    return mpi_available()


def _netns() -> str | None:
    from collsched.runtime.emulation import emulation_unavailable

    return emulation_unavailable() or _mpi()


def _simgrid() -> str | None:
    from collsched.simulation import simgrid

    return simgrid.unavailable_reason()


def _dask() -> str | None:
    if importlib.util.find_spec("distributed") is None:
        return "dask.distributed is not installed (pip install 'dask[distributed]', in pyproject's dependencies)"
    return None


# marker, title, why it cannot run here (None: it can); a test in several groups counts in the first
GROUPS = [
    ("netns", "network emulation", _netns),
    ("mpi", "MPI runtime", _mpi),
    ("simgrid", "SimGrid cross-check", _simgrid),
    ("dask", "Dask cluster", _dask),
]
_REASONS: dict[str, str | None] = {}


def missing(marker: str) -> str | None:
    """Why the tests of group ``marker`` cannot run here (checked once), or None."""
    if marker not in _REASONS:
        _REASONS[marker] = dict((m, check) for m, _, check in GROUPS)[marker]()
    return _REASONS[marker]


def pytest_configure(config):
    for marker, title, _ in GROUPS:
        config.addinivalue_line("markers", f"{marker}: {title} (skipped, naming the package, where it cannot run)")
    config.stash[_GROUP_OF] = {}
    config.stash[_EXAMPLES] = {m: [0, 0] for m, _, _ in GROUPS}


_GROUP_OF = pytest.StashKey[dict]()
_EXAMPLES = pytest.StashKey[dict]()


def pytest_collection_modifyitems(config, items):
    group_of = config.stash[_GROUP_OF]
    for item in items:
        dtest = getattr(item, "dtest", None)
        if dtest is not None:  # a doctest: its MPI examples run only where MPI is
            flagged = [ex for ex in dtest.examples if ex.options.get(MPI_FLAG)]
            if flagged:
                skip = missing("mpi") is not None
                for ex in flagged:
                    ex.options[doctest.SKIP] = skip
                config.stash[_EXAMPLES]["mpi"][1 if skip else 0] += len(flagged)
            continue
        for marker, title, _ in GROUPS:
            if item.get_closest_marker(marker) is not None:
                group_of[item.nodeid] = marker
                why = missing(marker)
                if why is not None:
                    item.add_marker(pytest.mark.skip(reason=f"{title}: {why}"))
                break


def _outcomes(terminalreporter) -> dict[str, str]:
    """Per test id: failed, skipped or passed (the worst of its setup, call and teardown)."""
    worst = {"passed": 0, "skipped": 1, "failed": 2}
    out: dict[str, str] = {}
    for reports in terminalreporter.stats.values():
        for r in reports:
            nodeid, outcome = getattr(r, "nodeid", None), getattr(r, "outcome", None)
            if nodeid and outcome in worst:
                out[nodeid] = max(out.get(nodeid, "passed"), outcome, key=worst.get)
    return out


def _n(k: int, what: str) -> str:
    return f"{k} {what}{'' if k == 1 else 's'}"


@pytest.hookimpl(wrapper=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """After the short test summary, just before pytest's closing line: one line per group."""
    result = yield
    group_of = config.stash.get(_GROUP_OF, None)
    if group_of is None:
        return result
    outcomes = _outcomes(terminalreporter)
    lines = []
    for marker, title, _ in GROUPS:
        ids = [i for i, g in group_of.items() if g == marker and i in outcomes]
        ran_examples, skipped_examples = config.stash[_EXAMPLES][marker]
        if not ids and not ran_examples + skipped_examples:
            continue
        ran = [i for i in ids if outcomes[i] != "skipped"]
        failing = [i for i in ran if outcomes[i] == "failed"]
        skipped = len(ids) - len(ran)
        counts = [_n(len(ran), "test")] + ([_n(ran_examples, "doctest example")] if ran_examples else [])
        if failing:
            counts.append(f"{len(failing)} failing")
        if ran or ran_examples:
            text = f"ran ({', '.join(counts)})"
            if skipped or skipped_examples:
                text += f"; {skipped + skipped_examples} skipped"
        else:
            text = f"skipped ({_n(skipped, 'test')}" + (f", {_n(skipped_examples, 'doctest example')}"
                                                         if skipped_examples else "") + ")"
        why = _REASONS.get(marker)
        if why is not None and (skipped or skipped_examples):
            text += f": {why}"
        lines.append(f"  {title}: {text}")
    if lines:
        terminalreporter.write_line("test groups:")
        for line in lines:
            terminalreporter.write_line(line)
    return result
