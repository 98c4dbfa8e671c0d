"""A LibraryMap as a static PNG, readable printed at A4 (landscape, 200 dpi): matplotlib's Agg canvas,
no display and no pyplot state."""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from rag.mapping.picture import HIGHLIGHT_COLOUR, MUST_CITE_COLOUR, LibraryMap, MapPoint
from rag.text import plural

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

A4_LANDSCAPE_INCHES = (11.69, 8.27)
DPI = 200  # 2338 x 1654 px: print quality at A4
# The map on the left, the legend in the column on its right (figure fractions).
MAP_AXES = (0.02, 0.06, 0.66, 0.84)
LEGEND_ANCHOR = (0.70, 0.90)
NOTE_POSITION = (0.70, 0.06)
TITLE_POSITION = (0.02, 0.965)
SUBTITLE_POSITION = (0.02, 0.925)
# Points shrink as the library grows (area ~ 1 / sqrt(papers)), within readable bounds.
POINT_AREA_SCALE = 300.0
POINT_AREA_MIN = 5.0
POINT_AREA_MAX = 45.0
MARKED_AREA = 70.0
MUST_CITE_AREA = 150.0
POINT_ALPHA = 0.85
EDGE_WIDTH = 1.2
LABEL_SIZE_ALL = 5.5  # every paper labelled: small, so neighbours overlap less
LABEL_SIZE_MARKED = 7.0
THEME_LABEL_SIZE = 8.0
TITLE_SIZE = 14.0
SUBTITLE_SIZE = 9.0
LEGEND_SIZE = 8.0
NOTE_SIZE = 7.5
# How much room adjustText leaves around each label, and how far (pixels per step) it moves one.
LABEL_EXPAND = (1.05, 1.25)
LABEL_MAX_MOVE = 10
# adjustText stops after a set number of steps, never by the clock: its default stops after one second, so on a
# map whose labels cannot all be set apart (the seed library placed by its words never settles) where they ended,
# and whether two still touched, hung on the machine's speed and load (a test failed one run in four). Each step
# weighs every pair of labels, so the steps fall with their square: 197 for the seed map's 39 labels (0.64 s on a
# 2-core machine), 13 for LABEL_ALL_MAX (about 2 s when crowded; the one second used to allow 6).
LABEL_PAIR_STEPS = 300_000
LABEL_STEPS_MIN, LABEL_STEPS_MAX = 5, 500
# Keep points off the frame: a share of the points' extent (at least MIN_SPAN, for one paper alone).
MARGIN = 0.03
MIN_SPAN = 0.5
# Papers of a theme (the most central first) tried as the spot of its name before one is free of other names;
# then spots on rings around its most central paper (as many per ring, rings this far apart in points).
THEME_LABEL_SPOTS = 200
RING_SPOTS = 12
RING_STEP = 9.0
RINGS = 12
# A highlighted or must-cite citekey sits beside its paper, clear of every point: tried on rings around it
# (this far apart in points), the nearest free spot first, and joined to its paper by a line when it is away.
MARKED_RING_STEP = 5.0
MARKED_RINGS = 16
LEADER_WIDTH = 0.4
LEADER_MIN = 8.0  # points: a label nearer its paper needs no line
# See-through enough that the points under a name still show.
THEME_BOX = {"boxstyle": "round,pad=0.25", "facecolor": "white", "alpha": 0.6, "linewidth": 0.5}
NOTE_WIDTH_CHARS = 60


def _plain(text: str) -> str:
    """Text shown as written: matplotlib would read a pair of '$' as mathematics."""
    return text.replace("$", r"\$")


def render_png(library_map: LibraryMap) -> bytes:
    buffer = io.BytesIO()
    figure(library_map).savefig(buffer, format="png", dpi=DPI, facecolor="white")
    return buffer.getvalue()


def figure(library_map: LibraryMap) -> Figure:
    """The drawn page; its map axes come first (``figure.axes[0]``), their texts are the labels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    page = Figure(figsize=A4_LANDSCAPE_INCHES, dpi=DPI)
    FigureCanvasAgg(page)
    axes = page.add_axes(MAP_AXES)
    _frame(axes, library_map)
    axes.set_axis_off()  # t-SNE/PCA axes have no units worth reading
    _draw_points(axes, library_map)
    _draw_labels(axes, library_map)
    _draw_titles(page, library_map)
    _draw_legend(page, library_map)
    return page


def _frame(axes: Axes, library_map: LibraryMap) -> None:
    """The points' own extent, one scale for both axes, widened along one of them to the map's box: a wide
    library fills the width and a tall one the height (a unit square left two thirds of the height empty)."""
    xs, ys = [p.x for p in library_map.points], [p.y for p in library_map.points]
    margin = MARGIN * max(max(xs) - min(xs), max(ys) - min(ys), MIN_SPAN)
    width, height = max(xs) - min(xs) + 2 * margin, max(ys) - min(ys) + 2 * margin
    box_width, box_height = axes.get_window_extent().size
    width, height = max(width, height * box_width / box_height), max(height, width * box_height / box_width)
    middle_x, middle_y = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    axes.set_xlim(middle_x - width / 2, middle_x + width / 2)
    axes.set_ylim(middle_y - height / 2, middle_y + height / 2)
    axes.set_aspect("equal", adjustable="box")


def _draw_points(axes: Axes, library_map: LibraryMap) -> None:
    """Every paper in its theme's colour; hits ringed, must-cite papers starred, on top."""
    points, themes = library_map.points, library_map.themes
    area = min(POINT_AREA_MAX, max(POINT_AREA_MIN, POINT_AREA_SCALE / math.sqrt(len(points))))
    for number, theme in enumerate(themes):
        members = [p for p in points if p.theme == number]
        axes.scatter(
            [p.x for p in members], [p.y for p in members], s=area, c=theme.colour, alpha=POINT_ALPHA, linewidths=0
        )
    highlighted = [p for p in points if p.highlighted]
    _mark(axes, library_map, highlighted, MARKED_AREA, "o", HIGHLIGHT_COLOUR, layer=3)
    _mark(axes, library_map, [p for p in points if p.must_cite], MUST_CITE_AREA, "*", MUST_CITE_COLOUR, layer=4)


def _mark(
    axes: Axes, library_map: LibraryMap, chosen: list[MapPoint], area: float, marker: str, edge: str, layer: int
) -> None:
    """``chosen`` points drawn again, larger and outlined in ``edge``, above the others."""
    if not chosen:
        return
    colours = [library_map.themes[p.theme].colour for p in chosen]
    axes.scatter(
        [p.x for p in chosen],
        [p.y for p in chosen],
        s=area,
        marker=marker,
        c=colours,
        edgecolors=edge,
        linewidths=EDGE_WIDTH,
        zorder=layer,
    )


def label_steps(labels: int) -> int:
    """How many steps adjustText takes at most to set ``labels`` labels apart (LABEL_PAIR_STEPS)."""
    return min(LABEL_STEPS_MAX, max(LABEL_STEPS_MIN, LABEL_PAIR_STEPS // max(labels, 1) ** 2))


def _draw_labels(axes: Axes, library_map: LibraryMap) -> None:
    """Citekeys beside their points, moved apart until none covers another (adjustText); above LABEL_ALL_MAX
    papers, then the theme names, each on a paper of its theme where it covers no label."""
    from adjustText import adjust_text

    labels = [
        axes.text(
            point.x,
            point.y,
            _plain(point.citekey),
            fontsize=LABEL_SIZE_MARKED if point.marked else LABEL_SIZE_ALL,
            fontweight="bold" if point.marked else "normal",
            color=MUST_CITE_COLOUR if point.must_cite else HIGHLIGHT_COLOUR,
            zorder=5,
        )
        for point in library_map.labelled()
    ]
    if labels:
        adjust_text(labels, ax=axes, expand=LABEL_EXPAND, max_move=LABEL_MAX_MOVE, iter_lim=label_steps(len(labels)))
    renderer = axes.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    marked = [(label, point) for label, point in zip(labels, library_map.labelled(), strict=True) if point.marked]
    taken = [label.get_window_extent(renderer) for label in labels if not any(label is m for m, _ in marked)]
    _clear_of_points(axes, library_map, marked, taken)
    if not library_map.label_all:
        _theme_labels(axes, library_map, taken)


def _point_boxes(axes: Axes, library_map: LibraryMap) -> list[Bbox]:
    """What each drawn point covers on the page (its mark's radius around its centre), in display pixels."""
    from matplotlib.transforms import Bbox

    area = min(POINT_AREA_MAX, max(POINT_AREA_MIN, POINT_AREA_SCALE / math.sqrt(len(library_map.points))))
    to_pixels = axes.figure.dpi / 72
    boxes = []
    for point in library_map.points:
        size = MUST_CITE_AREA if point.must_cite else MARKED_AREA if point.highlighted else area
        radius = math.sqrt(size) / 2 * to_pixels
        x, y = axes.transData.transform((point.x, point.y))
        boxes.append(Bbox.from_extents(x - radius, y - radius, x + radius, y + radius))
    return boxes


def _ring(step: float, rings: int, per_ring: int = 8) -> list[tuple[float, float]]:
    """Offsets (in points) around a spot, nearest first: ``per_ring`` directions on each of ``rings`` rings."""
    return [
        (ring * step * math.cos(2 * math.pi * k / per_ring), ring * step * math.sin(2 * math.pi * k / per_ring))
        for ring in range(1, rings + 1)
        for k in range(per_ring)
    ]


def _clear_of_points(
    axes: Axes, library_map: LibraryMap, marked: list[tuple[Text, MapPoint]], taken: list[Bbox]
) -> None:
    """Each marked citekey moved beside its paper where it covers no point and no label ``taken`` (which it
    joins), inside the map: the nearest such spot on rings around the paper; where there is none, the spot
    covering fewest points. A label away from its paper gets a thin line to it."""
    renderer = axes.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    inside = axes.get_window_extent(renderer)
    points = _point_boxes(axes, library_map)
    to_pixels = axes.figure.dpi / 72
    for label, point in marked:
        x, y = axes.transData.transform((point.x, point.y))
        label.set_horizontalalignment("center")
        label.set_verticalalignment("center")
        best: tuple[int, tuple[float, float]] | None = None
        for dx, dy in _ring(MARKED_RING_STEP, MARKED_RINGS):
            spot = axes.transData.inverted().transform((x + dx * to_pixels, y + dy * to_pixels))
            label.set_position((float(spot[0]), float(spot[1])))
            box = label.get_window_extent(renderer)
            if not _within_box(box, inside) or any(box.overlaps(other) for other in taken):
                continue
            covered = sum(box.overlaps(other) for other in points)
            if best is None or covered < best[0]:
                best = (covered, (float(spot[0]), float(spot[1])))
            if covered == 0:
                break
        if best is not None:
            label.set_position(best[1])
        taken.append(label.get_window_extent(renderer))
        shown_x, shown_y = axes.transData.transform(label.get_position())
        if math.hypot(shown_x - x, shown_y - y) > LEADER_MIN * to_pixels:
            colour = MUST_CITE_COLOUR if point.must_cite else HIGHLIGHT_COLOUR
            axes.plot([point.x, label.get_position()[0]], [point.y, label.get_position()[1]], color=colour,
                      linewidth=LEADER_WIDTH, zorder=2)  # fmt: skip


def _within_box(box: Bbox, inside: Bbox) -> bool:
    return bool(box.x0 >= inside.x0 and box.y0 >= inside.y0 and box.x1 <= inside.x1 and box.y1 <= inside.y1)


def _theme_labels(axes: Axes, library_map: LibraryMap, taken: list[Bbox]) -> None:
    """Each theme's name, in its box, on one of its own papers: the most central one where the box stays inside
    the map and covers nothing ``taken`` nor a box placed before it (larger themes first), else the most central
    one inside the map."""
    renderer = axes.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    inside = axes.get_window_extent(renderer)
    for number, theme in enumerate(library_map.themes):
        label = axes.text(
            theme.x,
            theme.y,
            f"{number + 1}. {theme.name}",
            fontsize=THEME_LABEL_SIZE,
            fontweight="bold",
            ha="center",
            va="center",
            bbox={**THEME_BOX, "edgecolor": theme.colour},
            zorder=6,
        )
        members = [(p.x, p.y) for p in library_map.points if p.theme == number]
        members.sort(key=lambda xy: (xy[0] - theme.x) ** 2 + (xy[1] - theme.y) ** 2)
        centre = axes.transData.transform((theme.x, theme.y))
        to_pixels = axes.figure.dpi / 72
        around = [
            tuple(axes.transData.inverted().transform((centre[0] + dx * to_pixels, centre[1] + dy * to_pixels)))
            for dx, dy in _ring(RING_STEP, RINGS, RING_SPOTS)
        ]
        spots = [*members[:THEME_LABEL_SPOTS], *around, (theme.x, theme.y)]
        fitting = [spot for spot in spots if _fits(label, spot, inside, renderer)] or spots[:1]
        for spot in fitting:
            label.set_position(spot)
            box = box_of(label, renderer)
            if not any(box.overlaps(other) for other in taken):
                break
        else:
            label.set_position(fitting[0])
            box = box_of(label, renderer)
        taken.append(box)


def box_of(label: Text, renderer: RendererBase) -> Bbox:
    """What a label covers: its box when it has one (a theme's name), else its text."""
    patch = label.get_bbox_patch()
    if patch is None:
        return label.get_window_extent(renderer)
    label.update_bbox_position_size(renderer)
    return patch.get_window_extent(renderer)


def _fits(label: Text, spot: tuple[float, float], inside: Bbox, renderer: RendererBase) -> bool:
    label.set_position(spot)
    return _within_box(box_of(label, renderer), inside)


def _draw_titles(figure: Figure, library_map: LibraryMap) -> None:
    papers, themes = len(library_map.points), len(library_map.themes)
    title = f"Library map: {plural(papers, 'paper')}, {plural(themes, 'theme')}"
    figure.text(*TITLE_POSITION, title, fontsize=TITLE_SIZE, fontweight="bold", va="top")
    figure.text(*SUBTITLE_POSITION, _plain(library_map.method), fontsize=SUBTITLE_SIZE, va="top")


def _draw_legend(figure: Figure, library_map: LibraryMap) -> None:
    """The themes with their sizes, what the marks mean, and the notes, in the column right of the map."""
    import textwrap

    from matplotlib.lines import Line2D

    handles: list[Line2D] = [
        Line2D([], [], marker="o", linestyle="", color=theme.colour, label=f"{n}. {theme.name} ({theme.size})")
        for n, theme in enumerate(library_map.themes, start=1)
    ]
    if library_map.query is not None:
        hits = sum(1 for p in library_map.points if p.highlighted)
        label = f"hits for “{_plain(library_map.query)}” ({hits})"
        handles.append(
            Line2D([], [], marker="o", linestyle="", color="white", markeredgecolor=HIGHLIGHT_COLOUR, label=label)
        )
    if must_cite := sum(1 for p in library_map.points if p.must_cite):
        handles.append(
            Line2D(
                [], [], marker="*", linestyle="", markersize=10, color="white", markeredgecolor=MUST_CITE_COLOUR,
                label=f"must cite ({must_cite})",
            )
        )  # fmt: skip
    figure.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=LEGEND_ANCHOR,
        fontsize=LEGEND_SIZE,
        title="Themes (their most distinctive words)",
        title_fontsize=LEGEND_SIZE,
        frameon=False,
    )
    notes = [library_map.label_note(), *library_map.notes]
    wrapped = "\n".join(textwrap.fill(_plain(note), NOTE_WIDTH_CHARS) for note in notes)
    figure.text(*NOTE_POSITION, wrapped, fontsize=NOTE_SIZE, va="bottom", color="#444444")
