"""Without a language model, summarize and draft still work: a themed outline.

Papers are grouped by similarity (average-linkage clustering of their
embeddings, or of TF-IDF vectors when there is no embedding model); each group
is named by its most distinctive words, and every paper is cited.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from rag.embed.types import Embedder
from rag.records import Paper
from rag.text import plural, stopwords, tokenize
from rag.writing.answer import Answer, AnswerMode, Citation
from rag.writing.citations import split_cited_sentences

THEME_NAME_WORDS = 3
KMEANS_ITERATIONS = 50
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


def group_papers(vectors: npt.NDArray[np.float32], themes: int) -> list[list[int]]:
    """Spherical k-means, deterministic (farthest-point start), largest group first."""
    count = len(vectors)
    themes = max(1, min(themes, count))
    centres = [int(np.argmax(vectors @ vectors.mean(axis=0)))]
    while len(centres) < themes:
        closest = (vectors @ vectors[centres].T).max(axis=1)
        centres.append(int(np.argmin(closest)))
    centroids = vectors[centres].astype(np.float64)
    labels = np.zeros(count, dtype=int)
    for _ in range(KMEANS_ITERATIONS):
        labels = np.argmax(vectors @ centroids.T, axis=1)
        updated = np.array(
            [vectors[labels == c].sum(axis=0) if (labels == c).any() else centroids[c] for c in range(themes)]
        )
        norms = np.linalg.norm(updated, axis=1, keepdims=True)
        updated = updated / np.where(norms == 0, 1, norms)
        if np.allclose(updated, centroids):
            break
        centroids = updated
    groups = [[i for i in range(count) if labels[i] == c] for c in range(themes)]
    return sorted((g for g in groups if g), key=len, reverse=True)


def theme_name(group: Sequence[Paper], everyone: Sequence[Paper]) -> str:
    """The group's most distinctive words (frequent inside it, rare outside)."""
    stop = stopwords()

    def words(paper: Paper) -> Counter[str]:
        weights: Counter[str] = Counter()
        for text, weight in ((paper.text, 1), (paper.title or "", TITLE_WORD_WEIGHT)):
            for word in {w.lower() for w in _WORD.findall(text)} - stop:
                weights[word] = max(weights[word], weight)
        return weights

    inside: Counter[str] = Counter()
    for paper in group:
        inside.update(words(paper))
    overall = Counter(w for p in everyone for w in words(p))
    scored = sorted(inside, key=lambda w: (-inside[w] * math.log(1 + len(everyone) / overall[w]), w))
    return ", ".join(scored[:THEME_NAME_WORDS]) or "other"


def outline(topic: str, papers: Sequence[Paper], embedder: Embedder | None, label: str = OUTLINE_LABEL) -> Answer:
    if not papers:
        return Answer(topic, "No papers to outline.", AnswerMode.INSUFFICIENT)
    vectors = embedder.embed([p.searchable_text() for p in papers]) if embedder else _tfidf(papers)
    themes = max(1, round(THEMES_PER_SQRT_HALF * math.sqrt(len(papers) / 2)))
    order: list[Paper] = []
    lines: list[str] = []
    groups = group_papers(vectors, themes)
    for number, group in enumerate(groups, start=1):
        members = [papers[i] for i in group]
        lines.append(f"{number}. {theme_name(members, papers)} ({plural(len(members), 'paper')})")
        for paper in members:
            order.append(paper)
            year = f" ({paper.year})" if paper.year else ""
            lines.append(f"   - {paper.display_title}{year} [{len(order)}]")
    text = "\n".join(lines)
    citations = [Citation(n, p) for n, p in enumerate(order, start=1)]
    # The label is a note, not part of the text: LaTeX and Pandoc output must be pure document on stdout.
    note = f"{label}: {plural(len(papers), 'paper')} in {plural(len(groups), 'theme')}."
    return Answer(topic, text, AnswerMode.OUTLINE, citations, sentences=split_cited_sentences(text), notes=[note])
