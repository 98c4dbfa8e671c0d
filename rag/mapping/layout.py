"""Papers and their vectors -> a LibraryMap: grouped into themes as the outline does (rag.writing.outline)
and laid out in 2D, t-SNE from ``TSNE_MIN_PAPERS`` papers on, PCA below (measured: see the constant).
Both are deterministic for one seed. Without an embedding model, TF-IDF vectors of the papers' words.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import numpy as np
import numpy.typing as npt

from rag.mapping.picture import THEME_COLOURS, LibraryMap, MapPoint, MapTheme
from rag.records import Paper
from rag.text import split_sentences, tokenize
from rag.writing.outline import THEMES_PER_SQRT_HALF, group_papers, theme_names

# The TF-IDF reduction is fixed: the --seed of a map varies its layout only.
LEXICAL_SEED = 0
# Below this many papers PCA shows the themes better (bundled 39 papers: theme silhouette 0.29 with PCA,
# -0.01 with t-SNE, for nearly the same neighbour trustworthiness, 0.84 vs 0.86); t-SNE from here on.
TSNE_MIN_PAPERS = 100
# sklearn's default perplexity; t-SNE needs perplexity < papers, so small libraries get (papers - 1) / 3.
TSNE_PERPLEXITY = 30.0
TSNE_PERPLEXITY_SHARE = 1 / 3
# t-SNE on 384-dim vectors is much slower than on their first principal components, and looks the same.
TSNE_INPUT_DIMENSIONS = 50
# Barnes-Hut t-SNE, coarser than openTSNE's 0.5 and with 300 iterations after the early exaggeration, not
# 500: SciFact's 5,183 abstracts lay out in 8.6 s instead of 15.8 s, neighbour trustworthiness 0.928 vs 0.937
# at 10 neighbours (theta 0.8 with 500 iterations: 11.0 s, 0.931; benchmarks/map_speed.py). Barnes-Hut beat
# the FFT method at this size on one thread (16 vs 34 s).
TSNE_THETA = 0.8
TSNE_ITERATIONS = 300
# Lexical vectors (no model): TF-IDF reduced to this many dimensions, which keeps 5,000 papers in memory.
LEXICAL_DIMENSIONS = 100
# Up to this many papers every citekey stays readable at A4; beyond, only marked papers are labelled.
LABEL_ALL_MAX = 150
FIRST_SENTENCE_CHARS = 240
ELLIPSIS = "…"

Matrix = npt.NDArray[np.float32]


def layout(
    papers: Sequence[Paper],
    vectors: Matrix,
    source: str,
    seed: int,
    highlighted: AbstractSet[str] = frozenset(),
    must_cite: AbstractSet[str] = frozenset(),
    query: str | None = None,
    notes: Sequence[str] = (),
) -> LibraryMap:
    """Group, project and describe ``papers`` (one unit vector per paper, in order)."""
    count = len(papers)
    wanted = max(1, round(THEMES_PER_SQRT_HALF * math.sqrt(count / 2)))
    groups = group_papers(vectors, min(wanted, len(THEME_COLOURS)))
    coords, projection = project(vectors, seed)
    theme_of = {index: number for number, group in enumerate(groups) for index in group}
    themes = []
    for number, (group, name) in enumerate(zip(groups, theme_names(groups, papers), strict=True)):
        anchor = group[_most_central(coords[group])]  # a theme's name sits on one of its own papers
        themes.append(
            MapTheme(
                name=name,
                size=len(group),
                colour=THEME_COLOURS[number],
                x=float(coords[anchor, 0]),
                y=float(coords[anchor, 1]),
            )
        )
    points = [
        MapPoint(
            id=paper.id,
            citekey=paper.citekey,
            title=paper.display_title,
            year=paper.year,
            first_sentence=first_sentence(paper),
            theme=theme_of[index],
            x=float(coords[index, 0]),
            y=float(coords[index, 1]),
            highlighted=paper.id in highlighted,
            must_cite=paper.id in must_cite,
        )
        for index, paper in enumerate(papers)
    ]
    method = f"{projection} of {source}, seed {seed}"
    return LibraryMap(points, themes, method, query, label_all=count <= LABEL_ALL_MAX, notes=list(notes))


def _most_central(points: npt.NDArray[np.float64]) -> int:
    """The point of a theme nearest its middle (the mean can fall between its clusters, on another theme)."""
    middle = np.median(points, axis=0)
    return int(np.argmin(((points - middle) ** 2).sum(axis=1)))


def first_sentence(paper: Paper) -> str:
    if paper.no_abstract:
        return ""
    sentences = split_sentences(paper.text)
    text = sentences[0] if sentences else ""
    return text if len(text) <= FIRST_SENTENCE_CHARS else text[: FIRST_SENTENCE_CHARS - 1].rstrip() + ELLIPSIS


def lexical_vectors(papers: Sequence[Paper]) -> Matrix:
    """TF-IDF over rag's own tokens (as BM25 sees them), sparse, then reduced by SVD: a dense
    vocabulary-wide matrix would not fit 5,000 papers in memory."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None, sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([p.searchable_text() for p in papers])
    except ValueError:  # no paper has a single word that is not a stop word: nothing tells them apart
        return unit_rows(np.ones((len(papers), 1), dtype=np.float32))
    dimensions = min(LEXICAL_DIMENSIONS, matrix.shape[1] - 1, len(papers) - 1)
    if dimensions < 2:
        return unit_rows(np.asarray(matrix.toarray(), dtype=np.float32))
    reduced = TruncatedSVD(n_components=dimensions, random_state=LEXICAL_SEED).fit_transform(matrix)
    return unit_rows(np.asarray(reduced, dtype=np.float32))


def project(vectors: Matrix, seed: int) -> tuple[npt.NDArray[np.float64], str]:
    """2D coordinates in [0, 1] (one scale for both axes, so distances keep their meaning), and the method."""
    from sklearn.decomposition import PCA

    count, dimensions = vectors.shape
    if count == 1:
        return np.full((1, 2), 0.5), "one paper"
    if count < TSNE_MIN_PAPERS:
        components = min(2, count, dimensions)
        coords = PCA(n_components=components, random_state=seed).fit_transform(vectors)
        name = "PCA"
    else:
        from openTSNE import TSNE

        if dimensions > TSNE_INPUT_DIMENSIONS:
            vectors = PCA(n_components=min(TSNE_INPUT_DIMENSIONS, count), random_state=seed).fit_transform(vectors)
        perplexity = min(TSNE_PERPLEXITY, (count - 1) * TSNE_PERPLEXITY_SHARE)
        # One thread is deterministic for a seed (and fast enough).
        tsne = TSNE(
            n_components=2,
            perplexity=perplexity,
            initialization="pca",
            random_state=seed,
            n_jobs=1,
            verbose=False,
            theta=TSNE_THETA,
            n_iter=TSNE_ITERATIONS,
        )
        coords = np.asarray(tsne.fit(np.asarray(vectors, dtype=np.float64)))
        name = "t-SNE"
    coords = np.asarray(coords, dtype=np.float64)
    if coords.shape[1] < 2:  # one principal component (papers on a line): put them on the middle row
        coords = np.hstack([coords, np.zeros((count, 2 - coords.shape[1]))])
    return _unit_square(coords), name


def _unit_square(coords: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    low, high = coords.min(axis=0), coords.max(axis=0)
    span = float((high - low).max())
    if span == 0:  # identical papers: all in the middle
        return np.full_like(coords, 0.5)
    centred: npt.NDArray[np.float64] = (coords - (low + high) / 2) / span + 0.5
    return centred


def unit_rows(matrix: Matrix) -> Matrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: Matrix = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
    return normalized
