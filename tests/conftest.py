"""Shared by every test: the Hypothesis profiles (the test groups are in the repository's conftest.py).

``ci`` (derandomized: the same examples on every run, no example database
written, the failing example's blob printed) and ``dev`` (random examples,
replayed from ``.hypothesis/`` once they failed, blob printed).
``HYPOTHESIS_PROFILE`` chooses; without it, ``CI=true`` means ``ci`` and
anything else ``dev``. ``make test`` runs ``ci``. A test's own
``@settings(...)`` changes only what it names (``max_examples``,
``deadline``) and inherits the rest from the profile.
"""

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True, database=None)
settings.register_profile("dev", deadline=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
settings.load_profile(PROFILE)
