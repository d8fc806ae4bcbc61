"""Fuzz the MSCCL reader and checker: N seeded mutants of the 7 reference files, no exception but one-line errors.

Run: ``PYTHONPATH=python python scripts/fuzz_msccl.py [N]`` (default 3000); prints the counts.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "interop"))
from test_msccl_fuzz import DATA, mutate, run_one  # noqa: E402

TEXTS = [p.read_text() for p in sorted(DATA.glob("*.xml"))]


def main(n: int = 3000) -> None:
    rng = random.Random(20261124)
    counts = {"ok": 0, "error": 0}
    start = time.perf_counter()
    for _ in range(n):
        text = TEXTS[rng.randrange(len(TEXTS))]
        counts[run_one(mutate(text, rng.randrange(10 ** 6), rng.randrange(10 ** 6), rng.randrange(200)))] += 1
    print(f"{n} mutants in {time.perf_counter() - start:.1f} s: {counts['error']} rejected with one line, "
          f"{counts['ok']} still valid, 0 crashes")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3000)
