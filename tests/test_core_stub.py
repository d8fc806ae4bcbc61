"""The .pyi stub of the Rust extension names exactly what the extension exports."""

import ast
import inspect
from pathlib import Path

import collsched
from collsched import _core


def test_stub_matches_extension():
    stub = ast.parse((Path(collsched.__file__).parent / "_core.pyi").read_text())
    names = {node.name for node in stub.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.target.id for t in stub.body if isinstance(t, ast.AnnAssign)}
    exported = {n for n in dir(_core) if not n.startswith("_") or n == "__version__"}
    assert names == exported


def test_stub_signature_matches():
    stub = ast.parse((Path(collsched.__file__).parent / "_core.pyi").read_text())
    fn = next(n for n in stub.body if isinstance(n, ast.FunctionDef) and n.name == "validate_program")
    stub_params = [a.arg for a in fn.args.args] + [a.arg for a in fn.args.kwonlyargs]
    real = list(inspect.signature(_core.validate_program).parameters)
    assert stub_params == real
