"""Imports run one way: platform → collectives → schedules → algorithms/simulation → planner → report/runtime/studies → CLI.

Every module under ``python/collsched`` is parsed (ast, nothing imported but
``collsched`` itself, to see where a name taken from the top-level package
comes from) and each ``import`` it makes, at module level or inside a
function (a lazy import is still a dependency), is checked against
:data:`LAYERS`. Imports under ``if TYPE_CHECKING:`` do not run and are not
counted. A module may import its own layer or a lower one, never a higher
one; the packages of the table import one another without circles, and so
do the modules (a module reading its own package's ``__init__`` aside).
"""

from __future__ import annotations

import ast
import types
from pathlib import Path

import collsched

SRC = Path(__file__).resolve().parents[1] / "python"

# Lowest first. A module belongs to the longest prefix listed; every module must have one.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("collsched._core", "collsched._highs", "collsched.errors", "collsched.units",
                    "collsched.fileformat", "collsched.__version__")),
    ("platform", ("collsched.platform", "collsched.topologies")),
    # the symbolic values (m[k], v[k..m]@t) that collectives are stated in and programs carry
    ("collectives", ("collsched.collectives", "collsched.collective_io", "collsched.schedules.values")),
    ("schedules", ("collsched.schedules",)),
    ("algorithms/simulation", ("collsched.algorithms", "collsched.simulation")),
    ("planner", ("collsched.bounds", "collsched.compare", "collsched.planner", "collsched.sync_modes")),
    ("report/runtime/studies", ("collsched.report", "collsched.runtime", "collsched.studies", "collsched.demo",
                                "collsched.interop", "collsched.mpi")),
    ("CLI", ("collsched.cli", "collsched.cli_common", "collsched.cli_collective", "collsched.cli_platform",
             "collsched.cli_msccl", "collsched.cli_mpi",
             "collsched")),
]

# Known exceptions, each an (importer, imported) pair with its reason; none may be added lightly.
KNOWN: dict[tuple[str, str], str] = {}

_PREFIXES = sorted(((p, rank, name) for rank, (name, ps) in enumerate(LAYERS) for p in ps),
                   key=lambda t: -len(t[0]))


def unit(module: str) -> tuple[str, int, str] | None:
    """(table prefix, layer rank, layer name) of ``module``, or None."""
    for prefix, rank, name in _PREFIXES:
        if module == prefix or module.startswith(prefix + "."):
            return prefix, rank, name
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = SRC / name.replace(".", "/")
    return base.with_suffix(".py").exists() or base.with_suffix(".pyi").exists() or (base / "__init__.py").exists()


def _origin(name: str) -> str:
    """The module that defines ``collsched.<name>`` (the top-level package re-exports from below)."""
    obj = getattr(collsched, name, None)
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, (str, int, float)):  # metadata such as __version__
        return f"collsched.{name}"
    return getattr(obj, "__module__", None) or "collsched"


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def imports() -> dict[str, list[tuple[str, int]]]:
    """Per module of collsched: (imported collsched module, line) for every import that runs."""
    found: dict[str, list[tuple[str, int]]] = {}
    for path in sorted((SRC / "collsched").rglob("*.py")):
        me = _module_name(path)
        package = me if path.name == "__init__.py" else me.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = _type_checking_nodes(tree)
        out = found.setdefault(me, [])
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "collsched"]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(base + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                if base.split(".")[0] != "collsched":
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if _is_module(sub):
                        out.append((sub, node.lineno))
                    elif base == "collsched":
                        out.append((_origin(a.name), node.lineno))
                    else:
                        out.append((base, node.lineno))
    return found


IMPORTS = imports()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_table_places_every_module():
    assert len(IMPORTS) > 50
    missing = sorted(m for m in IMPORTS if unit(m) is None)
    assert not missing, f"modules with no layer in LAYERS (add them to the table): {missing}"


def test_every_known_exception_still_exists():
    present = {(m, unit(t)[0]) for m, targets in IMPORTS.items() for t, _ in targets if unit(t)}
    gone = [pair for pair in KNOWN if pair not in present]
    assert not gone, f"these exceptions are fixed: remove them from KNOWN: {gone}"


def test_no_module_imports_a_higher_layer():
    bad = []
    for me, targets in sorted(IMPORTS.items()):
        _, mine, my_layer = unit(me)
        for target, line in targets:
            prefix, theirs, their_layer = unit(target)
            if theirs > mine and (me, prefix) not in KNOWN:
                bad.append(f"{me} ({my_layer}) imports {target} ({their_layer}) at line {line}")
    assert not bad, "imports that reach up a layer:\n" + "\n".join(bad)


def test_no_import_cycles_between_packages():
    graph: dict[str, set[str]] = {}
    for me, targets in IMPORTS.items():
        mine = unit(me)[0]
        for target, _ in targets:
            theirs = unit(target)[0]
            if theirs != mine and (me, theirs) not in KNOWN:
                graph.setdefault(mine, set()).add(theirs)
    cycles = _cycles(graph)
    assert not cycles, "packages that import one another: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_no_import_cycles_between_modules():
    """A module may read its own package's ``__init__`` (the package imports it first); nothing else circles."""
    graph = {me: {t for t, _ in targets if not me.startswith(t + ".") and (me, unit(t)[0]) not in KNOWN}
             for me, targets in IMPORTS.items()}
    cycles = _cycles(graph)
    assert not cycles, "modules that import one another: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_two_old_circles_are_gone():
    """platform.model used to import simulation.routes; runtime.calibrate → launch → worker → calibrate."""
    assert not any(t.startswith("collsched.simulation") for t, _ in IMPORTS["collsched.platform.model"])
    assert "collsched.runtime.calibrate" not in {t for t, _ in IMPORTS["collsched.runtime.worker"]}
