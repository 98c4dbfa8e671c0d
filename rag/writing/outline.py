"""Themes of papers, and the themed outline: what summarize and draft show when not even the paragraphs
written from the papers' own sentences (rag.writing.extractive_draft) pass the check.

Papers are grouped by similarity (bisecting k-means of their embeddings, or of
TF-IDF vectors when there is no embedding model); each group is named by its
most distinctive words, and every paper is cited. The drafts and the map group
papers the same way.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from rag.check.claims import split_cited_sentences
from rag.check.screen import no_news_terms
from rag.check.sentences import Answer, AnswerMode, Citation
from rag.embed.types import Embedder
from rag.records import Paper
from rag.text import plural, stopwords, tokenize

THEME_NAME_WORDS = 3
KMEANS_ITERATIONS = 50
# Two-centre starts tried for each split; the most cohesive split wins.
SPLIT_TRIES = 4
# Grouping is the same for the same papers: a fixed seed, not the map's --seed (that varies the layout only).
GROUPING_SEED = 0
# Title words say more about a paper's theme than abstract words.
TITLE_WORD_WEIGHT = 2
# Roughly sqrt(n / 2) themes: 8 papers -> 2, 39 -> 4, 100 -> 7.
THEMES_PER_SQRT_HALF = 1.0
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
OUTLINE_LABEL = "Outline (no language model configured; set RAG_LLM_MODEL or pass --model for prose)"


def _tfidf(papers: Sequence[Paper]) -> npt.NDArray[np.float32]:
    docs = [Counter(tokenize(p.searchable_text())) for p in papers]
    vocab = {term: i for i, term in enumerate(sorted({t for d in docs for t in d}))}
    df = Counter(t for d in docs for t in d)
    matrix = np.zeros((len(papers), max(1, len(vocab))), dtype=np.float32)
    for row, doc in enumerate(docs):
        for term, count in doc.items():
            matrix[row, vocab[term]] = (1 + math.log(count)) * math.log(1 + len(papers) / df[term])
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: npt.NDArray[np.float32] = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
    return normalized


def themes_of(papers: Sequence[Paper], embedder: Embedder | None) -> list[list[int]]:
    """The papers grouped into about sqrt(n / 2) themes (indexes into ``papers``), largest first: by their
    embeddings, or by TF-IDF vectors without an embedding model."""
    vectors = embedder.embed([p.searchable_text() for p in papers]) if embedder else _tfidf(papers)
    return group_papers(vectors, theme_count(len(papers)))


def theme_count(papers: int) -> int:
    return max(1, round(THEMES_PER_SQRT_HALF * math.sqrt(papers / 2)))


def group_papers(vectors: npt.NDArray[np.float32], themes: int) -> list[list[int]]:
    """Bisecting spherical k-means: the largest group is split in two until there are ``themes``, so no theme
    swallows a one-field library (a farthest-point start made outliers themes of their own and left one
    theme 149 of a thesis's 172 papers). Deterministic; largest group first."""
    count = len(vectors)
    themes = max(1, min(themes, count))
    rng = np.random.default_rng(GROUPING_SEED)
    groups: list[npt.NDArray[np.intp]] = [np.arange(count)]
    splittable = [True]
    while len(groups) < themes and any(splittable):
        largest = max((g for g in range(len(groups)) if splittable[g]), key=lambda g: len(groups[g]))
        halves = _split_in_two(vectors[groups[largest]], rng)
        if halves is None:  # identical papers: nothing tells them apart
            splittable[largest] = False
            continue
        members = groups[largest]
        groups[largest : largest + 1] = [members[halves], members[~halves]]
        splittable[largest : largest + 1] = [True, True]
    return sorted(([int(i) for i in g] for g in groups), key=len, reverse=True)


def _split_in_two(vectors: npt.NDArray[np.float32], rng: np.random.Generator) -> npt.NDArray[np.bool_] | None:
    """The best of a few two-centre spherical k-means runs (k-means++ starts): which rows go to the first half;
    None when no run separates the rows."""
    best: tuple[float, npt.NDArray[np.bool_]] | None = None
    for _ in range(SPLIT_TRIES):
        first = vectors[rng.integers(len(vectors))]
        distance = np.clip(1.0 - vectors @ first, 0.0, None)
        if distance.sum() <= 0:
            return None
        second = vectors[rng.choice(len(vectors), p=distance / distance.sum())]
        centres = np.stack([first, second]).astype(np.float64)
        for _ in range(KMEANS_ITERATIONS):
            side = (vectors @ centres.T).argmax(axis=1) == 0
            if side.all() or not side.any():
                break
            updated = np.stack([vectors[side].sum(axis=0), vectors[~side].sum(axis=0)])
            updated /= np.linalg.norm(updated, axis=1, keepdims=True).clip(min=1e-12)
            if np.allclose(updated, centres):
                break
            centres = updated
        side = (vectors @ centres.T).argmax(axis=1) == 0
        if side.all() or not side.any():
            continue
        cohesion = float((vectors @ centres.T).max(axis=1).sum())
        if best is None or cohesion > best[0]:
            best = (cohesion, side)
    return None if best is None else best[1]


def _theme_words(paper: Paper, stop: frozenset[str]) -> Counter[str]:
    weights: Counter[str] = Counter()
    for text, weight in ((paper.text, 1), (paper.title or "", TITLE_WORD_WEIGHT)):
        for word in {w.lower() for w in _WORD.findall(text)} - stop:
            weights[word] = max(weights[word], weight)
    return weights


# A stem at least this long that starts another stem is the same word in another form.
SAME_WORD_MIN_STEM = 5
# A word names a theme when at least this many of its papers hold it (one paper's word names no group).
MIN_NAME_PAPERS = 2


def theme_names(groups: Sequence[Sequence[int]], papers: Sequence[Paper]) -> list[str]:
    """Each group's most distinctive words: held by a larger share of its papers than of the other groups'
    (c-TF-IDF style: a one-field library's own words, in every theme, name none of them), and no word (in any
    of its forms) in two themes' names. Larger themes choose first. A theme nothing sets apart is named by its
    most frequent words the other names leave free. Every paper's words are counted once."""
    stop = stopwords()
    words = [_theme_words(paper, stop) for paper in papers]
    overall = Counter(w for paper_words in words for w in paper_words)
    vague = {w for w in overall if set(tokenize(w)) <= no_news_terms()}  # "study", "approach": any paper's
    taken: list[str] = []  # stems of the words chosen so far, by any theme
    names = []
    for group in groups:
        inside: Counter[str] = Counter()
        count: Counter[str] = Counter()
        for index in group:
            inside.update(words[index])
            count.update(words[index].keys())
        rest = max(1, len(papers) - len(group))
        share = {w: inside[w] / (TITLE_WORD_WEIGHT * len(group)) for w in inside}
        outside = {w: (overall[w] - count[w]) / rest for w in inside}
        enough = min(MIN_NAME_PAPERS, len(group))
        distinctive = [w for w in inside if share[w] > outside[w] and count[w] >= enough and w not in vague]
        ranked = sorted(distinctive, key=lambda w: (-share[w] * (share[w] - outside[w]), w))
        frequent = sorted(inside, key=lambda w: (-inside[w] * math.log(1 + len(papers) / overall[w]), w))
        chosen = _distinct_forms(ranked or frequent, THEME_NAME_WORDS, taken)
        names.append(", ".join(chosen) or "other")
    return names


def _distinct_forms(words: Iterable[str], count: int, taken: list[str] | None = None) -> list[str]:
    """The first ``count`` of ``words``, leaving out a word in another form of one already chosen ('cell' after
    'cells', 'immunity' after 'immune', 'inflammation' after 'inflammatory'): one name says each thing once.
    ``taken``: stems other names chose (left out too), extended with this name's. A compound's parts count
    each: 'computer' is taken by 'brain-computer'."""
    chosen: list[str] = []
    stems: list[str] = [] if taken is None else taken
    for word in words:
        parts = tokenize(word) or [word]
        if not any(_same_word(part, other) for part in parts for other in stems):
            stems.extend(parts)
            chosen.append(word)
        if len(chosen) == count:
            break
    return chosen


def _same_word(stem: str, other: str) -> bool:
    """One stem, or one the start of the other (Snowball stems 'inflammation' 'inflamm', 'inflammatory'
    'inflammatori')."""
    shorter, longer = sorted((stem, other), key=len)
    return shorter == longer or (len(shorter) >= SAME_WORD_MIN_STEM and longer.startswith(shorter))


def outline(topic: str, papers: Sequence[Paper], embedder: Embedder | None, label: str = OUTLINE_LABEL) -> Answer:
    if not papers:
        return Answer(topic, "No papers to outline.", AnswerMode.INSUFFICIENT)
    order: list[Paper] = []
    lines: list[str] = []
    groups = themes_of(papers, embedder)
    for number, (group, name) in enumerate(zip(groups, theme_names(groups, papers), strict=True), start=1):
        members = [papers[i] for i in group]
        lines.append(f"{number}. {name} ({plural(len(members), 'paper')})")
        for paper in members:
            order.append(paper)
            year = f" ({paper.year})" if paper.year else ""
            lines.append(f"   - {paper.display_title}{year} [{len(order)}]")
    text = "\n".join(lines)
    citations = [Citation(n, p) for n, p in enumerate(order, start=1)]
    # The label is a note, not part of the text: LaTeX and Pandoc output must be pure document on stdout.
    note = f"{label}: {plural(len(papers), 'paper')} in {plural(len(groups), 'theme')}."
    return Answer(topic, text, AnswerMode.OUTLINE, citations, sentences=split_cited_sentences(text), notes=[note])
