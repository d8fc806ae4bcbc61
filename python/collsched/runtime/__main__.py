"""``python -m collsched.runtime JOB.json``: what every MPI rank runs (:func:`collsched.runtime.worker.main`).

An entry point of its own, so that the package (imported first by ``-m``)
has not already imported the module being run as ``__main__``.
"""

import sys

from .worker import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
