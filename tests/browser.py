"""An HTML map opened in a real browser (the system's Chromium, headless, driven by Playwright), measured from
its DOM: where the plot is in the window and where each label is in the plot. For tests and benchmarks.

Playwright's own browser downloads are never used: only a Chromium already installed (Debian's `chromium`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Chromium's flags for a quiet, offline, throwaway run (no sandbox: CI runs as root).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Rounding of the layout engine's sub-pixel boxes.
TOLERANCE = 0.5
MEASURE = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = [...document.querySelectorAll('#map text')].filter(t => getComputedStyle(t).display !== 'none');
  return {
    viewport: [innerWidth, innerHeight],
    page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
    plot: box(document.getElementById('frame')),
    labels: shown.map(t => [t.textContent, ...box(t)]),
    marked: shown.filter(t => t.dataset.marked === '1').map(t => [t.textContent, ...box(t)]),
    points: [...document.querySelectorAll('#map circle')].map(box),
    hidden: document.querySelectorAll('#map text.crowded').length,
    note: document.getElementById('crowded').textContent,
  };
}"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why the browser checks cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[browser]'; .ci/run does)"
    if chromium() is None:
        return "no Chromium on PATH (apt-get install -y chromium; .ci/run installs it)"
    return None


@dataclass
class Fit:
    """One map in one window: the plot's box and the labels shown, in CSS pixels."""

    viewport: tuple[int, int]
    page: tuple[int, int]
    plot: tuple[float, float, float, float]
    labels: list[tuple[str, float, float, float, float]]
    hidden: int
    note: str
    marked: list[tuple[str, float, float, float, float]]
    points: list[tuple[float, float, float, float]]

    def plot_outside_window(self) -> bool:
        left, top, right, bottom = self.plot
        width, height = self.viewport
        scrolls = self.page[0] > width or self.page[1] > height
        return scrolls or left < 0 or top < 0 or right > width + TOLERANCE or bottom > height + TOLERANCE

    def clipped(self) -> list[str]:
        """Labels reaching outside the plot."""
        left, top, right, bottom = self.plot
        return [
            text
            for text, x0, y0, x1, y1 in self.labels
            if x0 < left - TOLERANCE or y0 < top - TOLERANCE or x1 > right + TOLERANCE or y1 > bottom + TOLERANCE
        ]

    def overlapping(self) -> list[tuple[str, str]]:
        """Pairs of labels covering each other."""
        pairs = []
        for n, (a, ax0, ay0, ax1, ay1) in enumerate(self.labels):
            for b, bx0, by0, bx1, by1 in self.labels[:n]:
                if min(ax1, bx1) - max(ax0, bx0) > TOLERANCE and min(ay1, by1) - max(ay0, by0) > TOLERANCE:
                    pairs.append((a, b))
        return pairs

    def marked_over_points(self) -> list[str]:
        """Marked papers' citekeys that cover a point."""
        return [
            text
            for text, x0, y0, x1, y1 in self.marked
            if any(
                min(x1, px1) - max(x0, px0) > TOLERANCE and min(y1, py1) - max(y0, py0) > TOLERANCE
                for px0, py0, px1, py1 in self.points
            )
        ]

    def plot_side(self) -> float:
        return min(self.plot[2] - self.plot[0], self.plot[3] - self.plot[1])


class Window:
    """A page holding one HTML file, resizable."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def open(self, html: Path, width: int, height: int) -> Fit:
        self.page.set_viewport_size({"width": width, "height": height})
        self.page.goto(html.resolve().as_uri())
        return self.measure()

    def resize(self, width: int, height: int) -> Fit:
        self.page.set_viewport_size({"width": width, "height": height})
        return self.measure()

    def measure(self) -> Fit:
        found = self.page.evaluate(MEASURE)
        return Fit(
            tuple(found["viewport"]),
            tuple(found["page"]),
            tuple(found["plot"]),
            [tuple(label) for label in found["labels"]],
            found["hidden"],
            found["note"],
            [tuple(label) for label in found["marked"]],
            [tuple(point) for point in found["points"]],
        )

    def screenshot(self, path: Path) -> Path:
        self.page.screenshot(path=str(path))
        return path


@contextmanager
def browser() -> Iterator[Window]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium(), args=FLAGS)
        try:
            yield Window(launched.new_page())
        finally:
            launched.close()
