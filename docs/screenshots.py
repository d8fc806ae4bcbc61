"""Screenshots of the demo's HTML report in headless Chromium: the whole page and each figure, as PNGs.

Reading the figures in a real browser is the test that matters for a
report: the inline SVGs are laid out by the browser's fonts and CSS, not
matplotlib's. This script writes the demo report (or takes one), asks
headless Chromium for the page's size and the box of every ``<figure>``
(and of every table of a figure, such as the reduction tasks), screenshots
the whole page and crops one PNG per box (``s<section>-<k>.png``), and says whether the page is wider than the
window (it must not be).

Run: ``PYTHONPATH=python .venv/bin/python docs/screenshots.py [--quick] [--report R.html] [OUT_DIR]``
(default ``OUT_DIR``: ``/tmp/collsched-screenshots``). Needs the Debian
package ``chromium`` (``apt-get install chromium``) and Pillow (which
matplotlib brings).

Examples
--------
>>> page = "<html><body><figure>x</figure></body></html>"
>>> with_probe(page).count("<script>"), with_probe(page).index("<script>") > page.index("</figure>")
(1, True)
>>> parse_probe('<body data-probe="{&quot;width&quot;: 10}"></body>')
{'width': 10}
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["chromium", "with_probe", "parse_probe", "measure", "screenshot", "shoot_report", "main"]

WIDTH = 1280         # CSS pixels of the window: a laptop screen
MAX_HEIGHT = 30000   # Chromium's screenshots stop being reliable beyond a few tens of thousands of pixels

# Runs in the page after load: the document's size against the window, and every figure's box (CSS pixels).
_PROBE = """<script>
window.addEventListener("load", () => {
  const de = document.documentElement;
  const figs = [...document.querySelectorAll("figure, .figures > details:not(:has(figure))")].map((f) => {
    const r = f.getBoundingClientRect(), s = f.closest("section");
    const svg = f.querySelector("svg"), b = svg ? svg.getBoundingClientRect() : r;
    return {kind: f.tagName.toLowerCase(), section: s ? s.id : "", x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height,
            svg_width: b.width, svg_right: b.right, caption: (f.querySelector("figcaption, summary") || {}).textContent || ""};
  });
  document.body.setAttribute("data-probe", JSON.stringify({
    width: de.scrollWidth, height: de.scrollHeight, window: window.innerWidth, figures: figs}));
});
</script>"""


def chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None when none is installed."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    exe = chromium()
    if exe is None:
        raise RuntimeError("no Chromium: install the Debian package chromium (apt-get install chromium)")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
             "--no-first-run", "--disable-dev-shm-usage", "--force-device-scale-factor=1",
             "--virtual-time-budget=5000"]
    with tempfile.TemporaryDirectory(prefix="collsched-chromium-") as profile:
        return subprocess.run([exe, *flags, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                              timeout=timeout, check=True, env={**os.environ, "HOME": profile})


def with_probe(page: str) -> str:
    """``page`` with the measuring script inserted before ``</body>`` (the report itself has no script)."""
    at = page.rfind("</body>")
    return page[:at] + _PROBE + page[at:] if at >= 0 else page + _PROBE


def parse_probe(dom: str) -> dict:
    """The measures the probe left on ``<body data-probe=...>`` in a DOM dump."""
    m = re.search(r'<body[^>]*\sdata-probe="([^"]*)"', dom)
    if m is None:
        raise RuntimeError("the page did not report its size (did its script run?)")
    return json.loads(html.unescape(m.group(1)))


def measure(report: Path, width: int = WIDTH) -> dict:
    """Lay the page out in headless Chromium at ``width`` CSS pixels and return its measures.

    Returns
    -------
    dict
        ``width`` and ``height`` of the document (``scrollWidth``, ``scrollHeight``), ``window`` (its inner
        width), and ``figures``: per ``<figure>`` its ``section`` id, box (``x``, ``y``, ``width``,
        ``height``), the width and right edge of its ``<svg>``, and its caption; also every ``<details>``
        beside the figures that holds no figure (a table), with ``kind`` ``"details"``.
    """
    with tempfile.TemporaryDirectory(prefix="collsched-probe-") as tmp:
        probe = Path(tmp) / "probe.html"
        probe.write_text(with_probe(Path(report).read_text(encoding="utf-8")), encoding="utf-8")
        out = _run([f"--window-size={width},900", "--dump-dom", probe.as_uri()])
    return parse_probe(out.stdout)


def screenshot(report: Path, png: Path, width: int = WIDTH, height: int = 900) -> Path:
    """Screenshot the page at ``width`` x ``height`` CSS pixels (one device pixel each) into ``png``."""
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    _run([f"--window-size={width},{height}", f"--screenshot={png}", Path(report).resolve().as_uri()])
    if not png.exists():
        raise RuntimeError(f"Chromium wrote no screenshot {png}")
    return png


def shoot_report(report: Path, out_dir: Path, width: int = WIDTH) -> dict:
    """The whole page (``page.png``) and one crop per figure (``<section>-<k>.png``) in ``out_dir``.

    Returns
    -------
    dict
        The measures of :func:`measure`, plus ``files``: the PNGs written.
    """
    from PIL import Image

    out_dir = Path(out_dir)
    info = measure(report, width)
    height = min(int(info["height"]) + 1, MAX_HEIGHT)
    page = screenshot(report, out_dir / "page.png", width, height)
    files = [page]
    seen: dict[str, int] = {}
    with Image.open(page) as img:
        for f in info["figures"]:
            k = seen[f["section"]] = seen.get(f["section"], 0) + 1
            box = (int(f["x"]), int(f["y"]), int(f["x"] + f["width"] + 0.999), int(f["y"] + f["height"] + 0.999))
            if box[3] <= img.height:
                crop = out_dir / f"{f['section'] or 'page'}-{k}.png"
                img.crop(box).save(crop)
                files.append(crop)
    info["files"] = [str(p) for p in files]
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", default="/tmp/collsched-screenshots", type=Path)
    ap.add_argument("--report", type=Path, help="an HTML report to shoot (default: make the demo's)")
    ap.add_argument("--quick", action="store_true", help="the demo with series of 8 operations instead of 400")
    ap.add_argument("--width", type=int, default=WIDTH)
    args = ap.parse_args(argv)
    report = args.report
    if report is None:
        from collsched.demo import demo
        from collsched.report.html import write_report

        args.out_dir.mkdir(parents=True, exist_ok=True)
        report = write_report(args.out_dir / "report.html", demo(1, quick=args.quick), title="collsched demo")
    info = shoot_report(report, args.out_dir, args.width)
    print(f"page {info['width']} x {info['height']} CSS px in a window {info['window']} px wide"
          + (" (OVERFLOWS)" if info["width"] > info["window"] else ""))
    for f in info["figures"]:
        svg = f", svg {f['svg_width']:.0f} wide" if f["kind"] == "figure" else ""
        print(f"  {f['section']}: {f['kind']} {f['width']:.0f} x {f['height']:.0f}{svg}; {f['caption'][:90]}")
    print("\n".join(info["files"]))
    return 1 if info["width"] > info["window"] else 0


if __name__ == "__main__":
    sys.exit(main())
