"""The papers' experiments, one module each, registered by name (``collsched study NAME``).

See :mod:`collsched.studies.base` for what a study is and
:mod:`collsched.studies.runner` for running one.
"""

from .base import Report, StudyOptions, Table, get_study, study, study_names
from .runner import run_study

__all__ = ["Report", "StudyOptions", "Table", "get_study", "study", "study_names", "run_study"]
