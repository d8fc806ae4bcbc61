"""The code blocks of docs/report.md run (prose that runs, STYLE.md rule 12)."""

import doctest
from pathlib import Path

GUIDE = Path(__file__).parent.parent.parent / "docs" / "report.md"


def test_report_guide_runs():
    result = doctest.testfile(str(GUIDE), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0
