"""pytest's plugin for the whole repository (tests/, the modules' doctests, README.md, docs/): the test groups.

A test that needs a system package is marked with its group
(``@pytest.mark.mpi``, ``netns``, ``simgrid``, ``dask``); a doctest example
that runs MPI carries ``# doctest: +MPI`` (README.md). Where the group's
requirement is missing, its tests are skipped with a reason that names the
package to install, and pytest's last lines, just before its closing line,
say for each group whether it ran or why not, so that no capability goes
untested unnoticed::

    test groups:
      MPI runtime: ran (20 tests, 3 doctest examples)
      SimGrid cross-check: skipped (42 tests): SimGrid's Python bindings are not installed (install it with ...)

It lives at the top so that ``pytest README.md`` alone knows ``+MPI`` too.
"""

from __future__ import annotations

import doctest
import importlib.util

import pytest

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


def _browser() -> str | None:
    import shutil

    if any(shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome", "chrome")):
        return None
    return "no headless browser (install the Debian package chromium: apt-get install chromium)"


# marker, title, why it cannot run here (None: it can); a test in several groups counts in the first
GROUPS = [
    ("netns", "network emulation", _netns),
    ("mpi", "MPI runtime", _mpi),
    ("simgrid", "SimGrid cross-check", _simgrid),
    ("dask", "Dask cluster", _dask),
    ("browser", "report in a browser", _browser),
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


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: after the short test summary too
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
        counts = ([_n(len(ran), "test")] if ran or not ran_examples else []) + \
            ([_n(ran_examples, "doctest example")] if ran_examples else [])
        if failing:
            counts.append(f"{len(failing)} failing")
        if ran or ran_examples:
            text = f"ran ({', '.join(counts)})"
            if skipped or skipped_examples:
                text += f"; {skipped + skipped_examples} skipped"
        else:
            what = ([_n(skipped, "test")] if skipped else []) + \
                ([_n(skipped_examples, "doctest example")] if skipped_examples else [])
            text = f"skipped ({', '.join(what)})"
        why = _REASONS.get(marker)
        if why is not None and (skipped or skipped_examples):
            text += f": {why}"
        lines.append(f"  {title}: {text}")
    if lines:
        terminalreporter.write_line("test groups:")
        for line in lines:
            terminalreporter.write_line(line)
    return result
