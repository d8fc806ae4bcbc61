"""Benchmark of the HTML report: the demo's comparisons (:func:`collsched.demo.demo`) drawn into one page.

Run: ``PYTHONPATH=python python benchmarks/bench_report.py [OUTPUT.html]``.
Prints, per section, the wall time (s) of rendering it alone (table, bars,
platform with flows, Gantt charts; the first one also pays for importing
matplotlib), the operations of its best schedule and how its Gantt chart
draws them (``ops``: one by one; ``busy``: busy bands), then the time to write the whole page, its size, and the
total against a 10 s budget (issue 9: the whole demo, comparisons
included, under a minute).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from collsched.demo import demo, demo_platform
from collsched.report.gantt import choose_mode
from collsched.report.html import render_report, write_report

from _cli import parser, run

TARGET = 10.0


def main(out: Path) -> None:
    p = demo_platform()
    t = time.perf_counter()
    sections = {s.label: s.comparison for s in demo()}
    print(f"collsched.demo.demo(), {len(sections)} comparisons on {p.name}: {time.perf_counter() - t:.2f} s"
          " (not the report's)")
    print(f"{'section':>15} {'candidates':>10} {'best ops':>9} {'Gantt':>9} {'render s':>9}")
    for label, cmp in sections.items():
        t = time.perf_counter()
        render_report({label: cmp})
        n = cmp.best.result.trace.n_ops
        print(f"{label:>15} {len(cmp.candidates):>10} {n:>9} {choose_mode(cmp.best.result):>9} {time.perf_counter() - t:>9.2f}")
    t = time.perf_counter()
    write_report(out, sections, title="collsched demo")
    total = time.perf_counter() - t
    print(f"write_report, {len(sections)} sections: {total:.2f} s, {out.stat().st_size / 1e6:.2f} MB -> {out}")
    print(f"target < {TARGET:.0f} s: {'met' if total < TARGET else 'MISSED'}")


if __name__ == "__main__":
    ap = parser(__doc__)
    ap.add_argument("output", nargs="?", type=Path, help="the page to write (default: in a temporary folder)")
    run(main, ap.parse_args().output or Path(tempfile.mkdtemp()) / "report.html")
