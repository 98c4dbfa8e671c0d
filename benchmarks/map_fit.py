"""Does the map fit? The PNG and the HTML page of libraries of several sizes, with their labels counted: those
reaching outside the plot and those covering another (goal: 0 and 0), the HTML measured in headless Chromium.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/map_fit.py --data-dir DIR \\
        --collection sci500 [--collection sci5k ...] [--query "gene expression in cancer cells"] [--out FOLDER]

Each collection must exist in DIR (ingest it first: `rag --collection sci500 ingest first-500.jsonl`). Writes
map-NAME.png, map-NAME.html and the screenshots map-NAME-WxH.png into --out, and prints one line per map.
Needs the `browser` extra (Playwright) and Chromium for the HTML part; without them only the PNG is measured.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from browser import browser, missing  # noqa: E402

from rag.config import load_settings  # noqa: E402
from rag.mapping.png import box_of, figure  # noqa: E402
from rag.services.context import Context  # noqa: E402
from rag.services.mapping import draw_map  # noqa: E402
from rag.services.requests import MapRequest  # noqa: E402

WINDOWS = [(1280, 800), (1920, 1080)]


def png_labels(library_map: object) -> tuple[int, int, int, float]:
    """Labels drawn, labels reaching outside the map, overlapping pairs, and the share of the map's height the
    points span."""
    page = figure(library_map)  # type: ignore[arg-type]
    page.canvas.draw()
    renderer = page.canvas.get_renderer()  # type: ignore[attr-defined]
    axes = page.axes[0]
    inside = axes.get_window_extent(renderer)
    boxes = [box_of(text, renderer) for text in axes.texts]
    clipped = sum(
        1 for b in boxes if b.x0 < inside.x0 - 1 or b.y0 < inside.y0 - 1 or b.x1 > inside.x1 + 1 or b.y1 > inside.y1 + 1
    )
    overlapping = sum(1 for a in range(len(boxes)) for b in range(a) if boxes[a].overlaps(boxes[b]))
    ys = [axes.transData.transform((p.x, p.y))[1] for p in library_map.points]  # type: ignore[attr-defined]
    return len(boxes), clipped, overlapping, (max(ys) - min(ys)) / inside.height


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--collection", action="append", required=True)
    parser.add_argument("--query", default="gene expression in cancer cells")
    parser.add_argument("--out", type=Path, default=Path("map-fit"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    drawn = {}
    for name in args.collection:
        ctx = Context(load_settings(data_dir=args.data_dir, collection=name))
        for suffix in (".png", ".html"):
            started = time.perf_counter()
            result = draw_map(ctx, MapRequest(args.out / f"map-{name}{suffix}", args.query, [], 0, None))
            seconds = time.perf_counter() - started
            drawn[name] = result.map
            print(f"{name}{suffix}: {len(result.map.points)} papers, {len(result.map.themes)} themes, {seconds:.1f} s")
        labels, clipped, overlapping, height = png_labels(drawn[name])
        print(
            f"  PNG: {labels} labels, {clipped} reaching outside the map, {overlapping} overlapping pairs; "
            f"points span {height:.0%} of the map's height"
        )
    if (why := missing()) is not None:
        print(f"HTML not measured: {why}")
        return
    with browser() as window:
        for name in args.collection:
            for width, height in WINDOWS:
                fit = window.open(args.out / f"map-{name}.html", width, height)
                window.screenshot(args.out / f"map-{name}-{width}x{height}.png")
                print(
                    f"  HTML {width}x{height}: plot {fit.plot[2] - fit.plot[0]:.0f}x{fit.plot[3] - fit.plot[1]:.0f} px"
                    f"{' OUTSIDE the window' if fit.plot_outside_window() else ' inside the window'}, "
                    f"{len(fit.labels)} labels shown, {len(fit.clipped())} clipped, "
                    f"{len(fit.overlapping())} overlapping pairs, {fit.hidden} left out"
                )


if __name__ == "__main__":
    main()
