"""The HTML map in a real browser (headless Chromium): it fills the window at 1280x800 and 1920x1080 and follows
a resize, and no label is clipped by the plot's edge or covers another. Measured from the page's DOM; the
screenshots are kept in the test's folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from browser import Window, browser, missing

from rag.mapping import LABEL_ALL_MAX, render_html
from rag.mapping import layout as mapping
from rag.mapping.layout import layout
from rag.records import Paper

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")
WINDOWS = [(1280, 800), (1920, 1080)]
# The plot takes the window's height but for the header: at least this share of it.
MIN_HEIGHT_SHARE = 0.7


def _papers(count: int) -> list[Paper]:
    """Long citekeys, as real libraries have them (JabRef writes 40-character keys)."""
    return [
        Paper(id=f"p{i}", text=f"Paper {i}.", title=f"Title {i}", citekey=f"author{i}_distributed_training_{2000 + i}")
        for i in range(count)
    ]


def _clusters(count: int, seed: int = 4) -> np.ndarray:
    """Vectors in a few tight groups (as a library's topics are), so labels crowd and reach the plot's edges."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(5, 64))
    vectors = centres[np.arange(count) % 5] + 0.15 * rng.normal(size=(count, 64))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def window() -> Iterator[Window]:
    with browser() as opened:
        yield opened


@pytest.fixture
def maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A 40-paper map with every citekey, and a 500-paper one with theme names and marked papers (PCA: quick)."""
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", 10_000)
    small = layout(_papers(40), _clusters(40), "test vectors", 0, highlighted={"p3", "p17"})
    large_papers = _papers(500)
    large = layout(
        large_papers, _clusters(500), "test vectors", 0, {p.id for p in large_papers[::60]}, {"p7"}, "a query"
    )
    assert small.label_all and not large.label_all and len(large.points) > LABEL_ALL_MAX
    written = {}
    for name, drawn in (("40", small), ("500", large)):
        written[name] = tmp_path / f"map-{name}.html"
        written[name].write_text(render_html(drawn), encoding="utf-8")
    return written


@pytest.mark.parametrize(("width", "height"), WINDOWS)
def test_the_map_fits_the_window_and_every_label_the_plot(
    window: Window, maps: dict[str, Path], tmp_path: Path, width: int, height: int
) -> None:
    for name, html in maps.items():
        fit = window.open(html, width, height)
        window.screenshot(tmp_path / f"map-{name}-{width}x{height}.png")
        assert not fit.plot_outside_window(), (name, fit.plot, fit.viewport, fit.page)
        assert fit.plot[3] - fit.plot[1] >= MIN_HEIGHT_SHARE * height or fit.plot[2] - fit.plot[0] >= 0.6 * width
        assert fit.labels, "labels are drawn"
        assert not fit.clipped(), (name, fit.clipped())
        assert not fit.overlapping(), (name, fit.overlapping()[:5])
        if name == "500":
            shown = {label[0] for label in fit.labels}
            assert "author7_distributed_training_2007" in shown, "a must-cite paper is always labelled"
            assert fit.marked and not fit.marked_over_points(), fit.marked_over_points()
            assert sum(1 for text in shown if ". " in text) >= 3, "theme names are shown"


def test_the_plot_follows_the_window(window: Window, maps: dict[str, Path]) -> None:
    small = window.open(maps["40"], 1280, 800)
    large = window.resize(1920, 1080)
    assert large.plot_side() > small.plot_side() * 1.2, (small.plot, large.plot)
    assert not large.plot_outside_window() and not large.clipped() and not large.overlapping()
    narrow = window.resize(700, 900)  # portrait: the legend goes below the plot
    assert not narrow.plot_outside_window() and narrow.plot_side() > 0.6 * 700 - 40


def test_a_crowded_label_is_left_out_and_said(window: Window, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", 10_000)
    papers = _papers(120)
    same = np.tile(_clusters(1), (120, 1))  # every paper on one spot: most labels have nowhere to go
    html = tmp_path / "crowded.html"
    html.write_text(render_html(layout(papers, same, "test vectors", 0)), encoding="utf-8")
    fit = window.open(html, 1280, 800)
    assert fit.hidden > 0 and f"{fit.hidden} labels left out" in fit.note
    assert not fit.clipped() and not fit.overlapping()
