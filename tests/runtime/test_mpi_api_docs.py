"""docs/mpi.md's Python examples run (plan-suite on a round-robin platform, and what a call looks up)."""

import doctest
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "mpi.md"


def test_docs_mpi_examples_run():
    result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10 and result.failed == 0
