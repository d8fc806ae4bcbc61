"""Every public function, class and public method has a docstring with an Examples section (STYLE.md rule 2).

The examples themselves run under ``pytest --doctest-modules``; this test only
checks that each public item has one, so that a new function cannot land
without it.
"""

import importlib
import inspect
import pkgutil
import re

import collsched

# Items that need no Examples section of their own, as "module.qualname": reason.
# Keep it short and give a real reason per entry; today every public item has
# an example (each exception class shows an input that raises it).
ALLOWED: dict[str, str] = {}

_EXAMPLES = re.compile(r"^\s*Examples\n\s*-{8,}\s*$", re.MULTILINE)


def _public_modules():
    yield collsched
    for info in pkgutil.walk_packages(collsched.__path__, prefix="collsched."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        yield importlib.import_module(info.name)


def _public_items():
    """Yield ``(qualified name, object)`` for every item the rule covers."""
    for module in _public_modules():
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            yield f"{module.__name__}.{obj.__qualname__}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and inspect.isfunction(member):
                        yield f"{module.__name__}.{obj.__qualname__}.{attr}", getattr(obj, attr)


def test_public_items_are_found():
    names = {name for name, _ in _public_items()}
    assert "collsched.planner.plan" in names
    assert "collsched.collectives.base.Collective.pairs" in names
    assert "collsched.platform.model.Platform.route" in names
    assert set(ALLOWED) <= names, f"allow-list names unknown items: {sorted(set(ALLOWED) - names)}"
    assert all(reason.strip() for reason in ALLOWED.values()), "every allow-list entry needs a reason"


def test_every_public_item_has_examples():
    offenders = [name for name, obj in _public_items()
                 if name not in ALLOWED and not _EXAMPLES.search(inspect.getdoc(obj) or "")]
    assert not offenders, (f"{len(offenders)} public items without an Examples section (STYLE.md rule 2; "
                           f"add one, or an ALLOWED entry with its reason):\n  " + "\n  ".join(offenders))
