"""Drafts grouped by finding (issue 39 item 4): which papers share a sentence, which are contrasted, when a
connective is written; themes named by distinct words; the map's highlighted citekeys clear of the points.

Made-up sentences with made-up vectors: what is tested is the grouping's rules, not the embedding model.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_map import fake_papers, one_field_library

from rag.mapping import LABEL_ALL_MAX, figure
from rag.mapping import layout as mapping
from rag.mapping.layout import layout
from rag.mapping.png import _point_boxes
from rag.records import Paper
from rag.text import tokenize
from rag.writing import Said, slots, theme_names, turn

TOPIC = "soil carbon under vegetation restoration"
PAPERS = [
    Paper(id="a", text="x", title="t", authors=["Li, Wei", "Chen, Bo", "Wu, Yi"], year=2020, citekey="a"),
    Paper(id="b", text="x", title="t", authors=["Smith, Ann"], year=2019, citekey="b"),
    Paper(id="c", text="x", title="t", authors=["Kim, Jae", "Park, Min"], year=2021, citekey="c"),
]
SAME_A = "We find that afforestation increased soil organic carbon stocks in the topsoil within ten years."
SAME_B = "We find that afforestation increased soil organic carbon stocks in the topsoil of terraces."
OPPOSITE = "We find that afforestation decreased soil organic carbon stocks in the topsoil of dry slopes."
OTHER = "We map land ownership of restored parcels."


def said(sentences: list[str]) -> list[Said]:
    found = []
    for i, sentence in enumerate(sentences):
        turned = turn(sentence, PAPERS[i])
        found.append(Said(i, sentence, turned, turned.text))
    return found


def vectors(cosines: list[list[float]]) -> np.ndarray:
    """Unit vectors with the given pairwise cosines (a Cholesky factor of the Gram matrix)."""
    return np.linalg.cholesky(np.asarray(cosines, dtype=np.float64)).astype(np.float32)


def test_the_same_finding_is_one_sentence_citing_both() -> None:
    found = slots(said([SAME_A, SAME_B]), vectors([[1, 0.9], [0.9, 1]]), PAPERS, TOPIC)
    assert len(found) == 1, "one slot for the two papers"
    shared = found[0][0]
    assert shared.kind == "shared" and shared.papers == [0, 1]
    assert shared.text.startswith("Li et al. (2020) and Smith (2019) both find that afforestation increased")
    assert shared.also == [(shared.text.split(" that ", 1)[1][:1].upper() + shared.text.split(" that ", 1)[1][1:], 1)]
    assert found[0][-1].kind == "apart", "the last resort: each paper alone"


def test_opposite_findings_are_contrasted_with_whereas() -> None:
    found = slots(said([SAME_A, OPPOSITE]), vectors([[1, 0.8], [0.8, 1]]), PAPERS, TOPIC)
    assert [o.kind for o in found[0]] == ["contrast", "apart"]
    assert ", whereas Smith (2019) finds that afforestation decreased" in found[0][0].text


def test_connectives_only_where_the_sentences_bear_them_out() -> None:
    # Near in meaning and words, but too long to share a sentence: "Similarly," opens the second.
    near = "We report soil organic carbon stocks in the topsoil after afforestation on " + "slopes and " * 25 + "hills."
    found = slots(said([SAME_A, near]), vectors([[1, 0.7], [0.7, 1]]), PAPERS, TOPIC)
    assert [options[0].text[:30] for options in found] == [
        turn(SAME_A, PAPERS[0]).text[:30],
        "Similarly, Smith (2019) report",
    ]
    assert found[1][1].text.startswith("Smith (2019)"), "the same sentence without it, if that one fails the check"
    # As near in meaning, but sharing no word beyond the topic's: no connective, and no shared sentence.
    found = slots(said([SAME_A, OTHER]), vectors([[1, 0.7], [0.7, 1]]), PAPERS, TOPIC)
    assert [len(options) for options in found] == [1, 1] and found[1][0].text.startswith("Smith (2019) maps")
    # Far in meaning: none.
    found = slots(said([SAME_A, near]), vectors([[1, 0.2], [0.2, 1]]), PAPERS, TOPIC)
    assert not found[1][0].text.startswith(("Similarly", "In contrast"))


def test_a_one_topic_library_names_its_themes_by_what_sets_them_apart() -> None:
    topic = "cognitive motoric risk in older adults"
    extra = ["gait speed dual task walking", "falls balance fear", "dementia memory screening"]
    # The topic's words in every title, each theme's own words in the abstracts of half its papers.
    papers = [
        Paper(id=f"p{g}{k}", text=f"{topic}. {extra[g] if k < 2 else ''} {k}.", title=topic, citekey=f"p{g}{k}")
        for g in range(3)
        for k in range(4)
    ]
    names = theme_names([list(range(g * 4, g * 4 + 4)) for g in range(3)], papers)
    stems = [set(tokenize(name)) for name in names]
    assert not any(stems[i] & stems[j] for i in range(3) for j in range(i)), names
    assert not any(stem & set(tokenize(topic)) for stem in stems), f"the topic's words name no theme: {names}"


def test_highlighted_citekeys_sit_clear_of_the_points(monkeypatch: pytest.MonkeyPatch) -> None:
    count = 60
    monkeypatch.setattr(mapping, "TSNE_MIN_PAPERS", count + 1)
    papers = fake_papers(count)
    marked = {p.id for p in papers[::7]}
    drawn = layout(papers, one_field_library(count, 0), "vectors", 3, highlighted=marked)
    page = figure(drawn)
    page.canvas.draw()
    renderer = page.canvas.get_renderer()  # type: ignore[attr-defined]
    axes = page.axes[0]
    points = _point_boxes(axes, drawn)
    labels = {t.get_text(): t.get_window_extent(renderer) for t in axes.texts}
    assert len(labels) == count
    covering = [p.citekey for p in drawn.points if p.marked and any(labels[p.citekey].overlaps(b) for b in points)]
    assert not covering, f"highlighted citekeys covering a point: {covering}"
    assert count <= LABEL_ALL_MAX
