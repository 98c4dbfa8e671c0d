"""`rag map`: the PNG and HTML files themselves, the layout's determinism, highlights, and bad input."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import HETEROGENEOUS_QUESTION
from matplotlib.transforms import Bbox
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.mapping import LABEL_ALL_MAX, SCRIPT, LibraryMap, box_of, figure, project, render_html, render_png
from rag.mapping import layout as mapping
from rag.mapping.layout import layout
from rag.records import Paper
from rag.services import Context, MapRequest, SearchRequest, build_map, search
from rag.services.read import papers as list_papers
from rag.writing import group_papers, outline, theme_names

runner = CliRunner()
A4_MIN_WIDTH = 1500  # A4 at 150+ dpi
# A drawn map covers far more than this share of its pixels with points, labels and legend.
MIN_INK_SHARE = 0.002
DATA_BLOCK = re.compile(r'<script type="application/json" id="map-data">(.*?)</script>', re.S)
TSNE_TEST_PAPERS = 40
NASTY_TITLE = '</script><script>alert("t")</script><img src=x onerror=alert(1)> & \u2028'


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def ink_share(path: Path) -> tuple[int, int, float]:
    from PIL import Image

    with Image.open(path) as image:
        pixels = np.asarray(image.convert("RGB"))
    height, width, _ = pixels.shape
    return width, height, float((pixels < 250).any(axis=2).mean())


def fake_papers(count: int) -> list[Paper]:
    return [
        Paper(id=f"id{i}", text=f"Paper {i} studies topic {i % 3}. More.", title=f"Title {i}", citekey=f"key{i}")
        for i in range(count)
    ]


def random_unit_vectors(count: int, dimensions: int = 384, seed: int = 1) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(count, dimensions)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_png_is_a4_sized_and_drawn(seeded: Path, tmp_path: Path) -> None:
    output = tmp_path / "map.png"
    code, out, err = invoke("map", "-o", str(output), "--query", HETEROGENEOUS_QUESTION)
    assert code == 0, err
    assert "39 papers" in out
    width, height, ink = ink_share(output)
    assert width >= A4_MIN_WIDTH and height >= A4_MIN_WIDTH * 0.7
    assert ink > MIN_INK_SHARE


def test_html_names_every_paper_and_needs_no_network(seeded: Path, tmp_path: Path) -> None:
    output = tmp_path / "map.html"
    code, _, err = invoke("map", "-o", str(output), "--cite", "yuan2022decentralized")
    assert code == 0, err
    html = output.read_text(encoding="utf-8")
    keys = [p.citekey for p in list_papers(Context(load_settings())).papers]
    assert len(keys) == 39 and all(key in html for key in keys)
    assert not re.search(r"https?://|<script[^>]+src|<link|@import", html)
    assert html.count('class="t') >= 39 and "cite" in html
    data = json.loads(DATA_BLOCK.search(html).group(1))  # type: ignore[union-attr]
    assert sorted(p[0] for p in data["points"]) == sorted(keys)


def test_same_seed_same_layout_and_query_highlights_search_hits(seeded: Path, tmp_path: Path) -> None:
    ctx = Context(load_settings())
    request = MapRequest(tmp_path / "map.png", query=HETEROGENEOUS_QUESTION, cite=["yuan2022decentralized"], seed=7)
    first, second = build_map(ctx, request), build_map(ctx, request)
    assert [(p.x, p.y) for p in first.points] == [(p.x, p.y) for p in second.points]
    hits = search(ctx, SearchRequest(HETEROGENEOUS_QUESTION, ctx.settings.top_k)).hits
    assert {p.id for p in first.points if p.highlighted} == {h.paper.id for h in hits}
    assert [p.citekey for p in first.points if p.must_cite] == ["yuan2022decentralized"]
    assert all(0 <= p.x <= 1 and 0 <= p.y <= 1 for p in first.points)


def one_field_library(bulk: int, outliers: int) -> np.ndarray:
    """Papers of one field (vectors near one direction) and a few unlike any other."""
    rng = np.random.default_rng(5)
    field = rng.normal(size=384)
    near = field + rng.normal(scale=0.6, size=(bulk, 384)) * np.linalg.norm(field) / np.sqrt(384)
    vectors = np.vstack([near, rng.normal(size=(outliers, 384))]).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_one_field_library_shows_its_sub_topics_not_its_outliers() -> None:
    vectors = one_field_library(bulk=150, outliers=5)
    groups = group_papers(vectors, themes=9)
    sizes = [len(g) for g in groups]
    assert len(groups) == 9 and sum(sizes) == 155 and sorted(i for g in groups for i in g) == list(range(155))
    assert max(sizes) <= 0.4 * 155, sizes
    assert group_papers(vectors, themes=9) == groups, "the same papers, the same themes"


def test_identical_papers_are_one_theme_however_many_are_asked_for() -> None:
    assert group_papers(np.tile(random_unit_vectors(1), (6, 1)), themes=3) == [list(range(6))]


def test_theme_names_read_each_paper_once(monkeypatch: pytest.MonkeyPatch) -> None:
    papers = fake_papers(60)
    read: list[str] = []
    words = outline._theme_words
    monkeypatch.setattr(outline, "_theme_words", lambda paper, stop: read.append(paper.id) or words(paper, stop))
    names = theme_names([list(range(i, 60, 6)) for i in range(6)], papers)
    assert len(names) == 6 and all(names) and sorted(read) == sorted(p.id for p in papers)


def test_a_theme_name_says_each_word_once_in_one_form() -> None:
    texts = ["Stem cells and the cell cycle of immune cells.", "Immune cell therapy; immunity of stem cells."]
    papers = [Paper(id=f"c{i}", text=texts[i % 2], title=f"Cells {i}", citekey=f"c{i}") for i in range(8)]
    others = [Paper(id=f"o{i}", text="Graph networks on GPUs.", title="GPUs", citekey=f"o{i}") for i in range(8)]
    (name, _) = theme_names([list(range(8)), list(range(8, 16))], [*papers, *others])
    words = name.split(", ")
    assert "cells" in words and "cell" not in words and not {"immune", "immunity"} <= set(words), name
    assert len(words) == len(set(words)) and len(words) == outline.THEME_NAME_WORDS
    forms = ["inflammatory", "immune", "inflammation", "cells", "cell", "immunity", "stem"]
    assert outline._distinct_forms(forms, 3) == ["inflammatory", "immune", "cells"]


def test_a_compounds_parts_are_taken_by_it() -> None:
    """'computer' after 'brain-computer' names the same thing twice (a draft on brain-computer interfaces named
    two themes 'geometry, riemannian, brain-computer' and 'computer, analysis, deep')."""
    taken: list[str] = []
    assert outline._distinct_forms(["brain-computer", "riemannian"], 2, taken) == ["brain-computer", "riemannian"]
    assert outline._distinct_forms(["computer", "analysis", "brain", "deep"], 2, taken) == ["analysis", "deep"]


def test_theme_names_sit_on_their_own_papers(monkeypatch: pytest.MonkeyPatch) -> None:
    count = LABEL_ALL_MAX + 10
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", count + 1)
    drawn = layout(fake_papers(count), one_field_library(count - 4, 4), "vectors", 3)
    for number, theme in enumerate(drawn.themes):
        assert (theme.x, theme.y) in {(p.x, p.y) for p in drawn.points if p.theme == number}


def covered_labels(drawn: LibraryMap) -> tuple[int, list[tuple[str, str]]]:
    """How many labels the PNG draws on its map, and the pairs of them that overlap (a theme's name with its box);
    none may reach outside the map."""
    page = figure(drawn)
    page.canvas.draw()
    renderer = page.canvas.get_renderer()  # type: ignore[attr-defined]
    texts = page.axes[0].texts
    boxes = [box_of(text, renderer) for text in texts]
    inside = page.axes[0].get_window_extent(renderer)
    clipped = [t.get_text() for t, b in zip(texts, boxes, strict=True) if not _within(b, inside)]
    assert not clipped, f"labels reaching outside the map: {clipped}"
    covered = [(texts[a].get_text(), texts[b].get_text()) for a in range(len(boxes)) for b in range(a)]
    return len(texts), [
        pair for pair, (a, b) in zip(covered, _pairs(len(boxes)), strict=True) if boxes[a].overlaps(boxes[b])
    ]


def _within(box: Bbox, inside: Bbox) -> bool:
    return bool(
        box.x0 >= inside.x0 - 1 and box.y0 >= inside.y0 - 1 and box.x1 <= inside.x1 + 1 and box.y1 <= inside.y1 + 1
    )


def _pairs(count: int) -> list[tuple[int, int]]:
    return [(a, b) for a in range(count) for b in range(a)]


def test_citekey_labels_do_not_cover_each_other(seeded: Path, tmp_path: Path) -> None:
    drawn = build_map(Context(load_settings()), MapRequest(tmp_path / "map.png"))
    assert drawn.label_all
    count, covered = covered_labels(drawn)
    assert count == len(drawn.points) == 39 and not covered, covered


def test_marked_citekeys_keep_off_the_theme_names(monkeypatch: pytest.MonkeyPatch) -> None:
    count = LABEL_ALL_MAX + 50
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", count + 1)
    papers = fake_papers(count)
    drawn = layout(papers, one_field_library(count, 0), "vectors", 3, highlighted={p.id for p in papers[::15]})
    labels, covered = covered_labels(drawn)
    assert labels == len(drawn.themes) + len(papers[::15]) and not covered, covered


def test_tsne_layout_is_deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", TSNE_TEST_PAPERS)  # t-SNE, on few papers to stay quick
    vectors = random_unit_vectors(TSNE_TEST_PAPERS)
    first, method = project(vectors, seed=3)
    assert method == "t-SNE"
    assert np.array_equal(first, project(vectors, seed=3)[0])


def test_large_maps_label_only_marked_papers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    count = LABEL_ALL_MAX + 10
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", count + 1)  # PCA: labels are the point here, not t-SNE
    drawn = layout(fake_papers(count), random_unit_vectors(count), "random vectors", 3, highlighted={"id5"})
    assert not drawn.label_all and [p.citekey for p in drawn.labelled()] == ["key5"]
    assert "only highlighted" in drawn.label_note()
    assert ink_share(_write(tmp_path / "big.png", render_png(drawn)))[2] > MIN_INK_SHARE
    html = render_html(drawn)
    assert "key5</text>" in html and "key6</text>" not in html and '"key6"' in html


def test_untrusted_titles_cannot_break_out_of_the_page() -> None:
    papers = fake_papers(3)
    papers[0].title = NASTY_TITLE
    papers[1].citekey = 'k"><script>x</script>'
    papers[2].text = "</script> starts the abstract."
    html = render_html(layout(papers, random_unit_vectors(3), "test", 0, query="</script>"))
    assert html.count("<script") == 2 and html.count("</script>") == 2
    assert "<img" not in html and "onerror=alert(1)>" not in html
    data = json.loads(DATA_BLOCK.search(html).group(1))  # type: ignore[union-attr]
    assert data["points"][0][1] == NASTY_TITLE and data["points"][2][3] == "</script> starts the abstract."
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html and f"<script>{SCRIPT}</script>" in html


def test_one_paper_and_no_vectors_still_draw(tmp_path: Path) -> None:
    alone = layout(fake_papers(1), random_unit_vectors(1), "test", 0)
    assert (alone.points[0].x, alone.points[0].y) == (0.5, 0.5) and len(alone.themes) == 1
    assert ink_share(_write(tmp_path / "one.png", render_png(alone)))[2] > MIN_INK_SHARE
    assert "key0" in render_html(alone)
    two = layout(fake_papers(2), random_unit_vectors(2), "test", 0)
    assert {(p.x, p.y) for p in two.points} != {(0.5, 0.5)}


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_a_map_whose_labels_never_settle_is_drawn_the_same_on_every_run(
    seeded: Path, no_model: Path, tmp_path: Path
) -> None:
    """Placed by their words, the seed library's 39 citekeys never all settle apart: adjustText stops after a set
    number of steps, not after a second of the clock, so the picture does not hang on the machine's speed (it
    did: one run in four left two labels touching)."""

    def label_positions() -> list[tuple[float, float]]:
        drawn = build_map(Context(load_settings()), MapRequest(tmp_path / "map.png"))
        page = figure(drawn)
        page.canvas.draw()
        return [text.get_position() for text in page.axes[0].texts]

    assert label_positions() == label_positions()


def test_lexical_library_is_mapped_by_its_words(seeded: Path, no_model: Path, tmp_path: Path) -> None:
    output = tmp_path / "map.html"
    code, out, err = invoke("map", "-o", str(output), "--query", "pipeline parallelism")
    assert code == 0, err
    assert "TF-IDF" in out and "TF-IDF" in output.read_text(encoding="utf-8")


def test_one_paper_library_then_empty_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_COLLECTION", "solo")  # only the default library fills itself
    code, _, err = invoke("map", "-o", str(tmp_path / "map.png"))
    assert code == 1 and "solo" in err and _one_error_line(err)  # no such library yet
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps({"title": "A lone paper", "abstract": "It is alone. Quite."}) + "\n")
    assert invoke("ingest", str(source))[0] == 0
    code, out, err = invoke("map", "-o", str(tmp_path / "map.html"))
    assert code == 0 and "1 paper in 1 theme," in out, err
    key = list_papers(Context(load_settings())).papers[0].citekey
    assert key in (tmp_path / "map.html").read_text(encoding="utf-8")
    assert invoke("remove", key)[0] == 0
    code, _, err = invoke("map", "-o", str(tmp_path / "map.png"))
    assert code == 1 and "no papers to map" in err and _one_error_line(err)
    assert not (tmp_path / "map.png").exists()


@pytest.mark.parametrize(
    ("name", "message"),
    [("map.pdf", "must end in .png or .html"), ("missing/map.png", "does not exist"), ("folder.png", "is a folder")],
)
def test_bad_output_path_is_one_clear_line(tmp_path: Path, name: str, message: str) -> None:
    (tmp_path / "folder.png").mkdir()
    code, _, err = invoke("map", "-o", str(tmp_path / name))
    assert code == 1 and message in err and _one_error_line(err)


def test_map_help_says_what_k_does_there() -> None:
    code, out, _ = invoke("map", "--help")
    assert code == 0 and "How many hits of --query to highlight" in " ".join(out.split())
    assert "Number of papers to retrieve" not in out


def test_unknown_cite_and_empty_query_are_one_clear_line(seeded: Path, tmp_path: Path) -> None:
    code, _, err = invoke("map", "-o", str(tmp_path / "map.png"), "--cite", "nobody1999")
    assert code == 1 and "nobody1999" in err and _one_error_line(err)
    code, _, err = invoke("map", "-o", str(tmp_path / "map.png"), "--query", "  ")
    assert code == 1 and "empty" in err


def _one_error_line(err: str) -> bool:
    """One error line (a lexical-only run also prints its one-line notice about the missing model first)."""
    lines = [line for line in err.strip().splitlines() if "using lexical search only" not in line]
    return len(lines) == 1
