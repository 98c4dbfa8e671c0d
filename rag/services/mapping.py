"""`rag map`: the library as a 2D picture, papers coloured by theme, for planning a related-work section.

Papers are placed from their stored vectors (read from Chroma a page at a time;
TF-IDF vectors of their words when there is no embedding model), grouped into
themes as the outline does (rag.writing.outline), and laid out in 2D: t-SNE
from ``TSNE_MIN_PAPERS`` papers on, PCA below that (measured: see the constant).
Both are deterministic for one seed. The renderers
(rag.writing.map_png, rag.writing.map_html) draw the resulting ``LibraryMap``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from rag.errors import InputError
from rag.index.chroma import chroma_errors
from rag.index.units import split_unit_id
from rag.records import Paper
from rag.services.context import Context
from rag.services.requests import SearchRequest
from rag.text import split_sentences, tokenize
from rag.writing.map_layout import THEME_COLOURS, LibraryMap, MapPoint, MapTheme
from rag.writing.outline import THEMES_PER_SQRT_HALF, group_papers, theme_name

if TYPE_CHECKING:
    from rag.index.session import LibrarySession

DEFAULT_SEED = 0
FORMATS = (".png", ".html")
# Below this many papers PCA shows the themes better (bundled 39 papers: theme silhouette 0.29 with PCA,
# -0.01 with t-SNE, for nearly the same neighbour trustworthiness, 0.84 vs 0.86); t-SNE from here on.
TSNE_MIN_PAPERS = 100
# sklearn's default perplexity; t-SNE needs perplexity < papers, so small libraries get (papers - 1) / 3.
TSNE_PERPLEXITY = 30.0
TSNE_PERPLEXITY_SHARE = 1 / 3
# t-SNE on 384-dim vectors is much slower than on their first principal components, and looks the same.
TSNE_INPUT_DIMENSIONS = 50
# Lexical vectors (no model): TF-IDF reduced to this many dimensions, which keeps 5,000 papers in memory.
LEXICAL_DIMENSIONS = 100
# Up to this many papers every citekey stays readable at A4; beyond, only marked papers are labelled.
LABEL_ALL_MAX = 150
FIRST_SENTENCE_CHARS = 240
ELLIPSIS = "…"


@dataclass(frozen=True)
class MapRequest:
    output: Path
    query: str | None = None
    cite: Sequence[str] = ()
    seed: int = DEFAULT_SEED
    k: int | None = None  # hits of --query to highlight; None: the configured top-k, as `rag search`

    def validate(self) -> str:
        """The output format ('.png' or '.html'); fails before any work when the file cannot be written."""
        suffix = self.output.suffix.lower()
        if suffix not in FORMATS:
            raise InputError(f"cannot draw a map as '{self.output.name}': the output must end in .png or .html")
        folder = self.output.parent
        if not folder.is_dir():
            raise InputError(f"cannot write {self.output}: folder {folder} does not exist")
        if self.output.is_dir():
            raise InputError(f"cannot write {self.output}: it is a folder")
        writable = os.access(self.output, os.W_OK) if self.output.exists() else os.access(folder, os.W_OK)
        if not writable:
            raise InputError(f"cannot write {self.output}: permission denied")
        if self.query is not None:
            SearchRequest(self.query, self.k).validate()
        return suffix


@dataclass(frozen=True)
class MapResult:
    map: LibraryMap
    output: Path
    size: int  # bytes written


def draw_map(ctx: Context, request: MapRequest) -> MapResult:
    """Build the map of the library and write it where ``request.output`` says, as PNG or HTML."""
    request.validate()
    library_map = build_map(ctx, request)
    return MapResult(library_map, request.output, write_map(library_map, request.output))


def build_map(ctx: Context, request: MapRequest) -> LibraryMap:
    with ctx.reader() as library:
        papers = library.catalog.ordered()
        if not papers:
            raise InputError(
                f"library '{ctx.settings.collection}' has no papers to map; add some with `rag ingest PATH`"
            )
        vectors, source = _vectors(library, papers)
        hits = _query_hits(library, request)
        must_cite = {library.paper(ref).id for ref in request.cite}
    notes = [] if library.embedder is not None else ["no embedding model: papers placed by their words (TF-IDF)"]
    for note in notes:
        ctx.notify(note)
    return layout(papers, vectors, source, request.seed, hits, must_cite, request.query, notes)


def layout(
    papers: Sequence[Paper],
    vectors: npt.NDArray[np.float32],
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
    themes = [
        MapTheme(
            name=theme_name([papers[i] for i in group], papers),
            size=len(group),
            colour=THEME_COLOURS[number],
            x=float(coords[group, 0].mean()),
            y=float(coords[group, 1].mean()),
        )
        for number, group in enumerate(groups)
    ]
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


def write_map(library_map: LibraryMap, output: Path) -> int:
    """Render and write in one go (no half-written file on a failed render); returns the bytes written."""
    if output.suffix.lower() == ".png":
        from rag.writing.map_png import render_png

        data = render_png(library_map)
    else:
        from rag.writing.map_html import render_html

        data = render_html(library_map).encode("utf-8")
    try:
        output.write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write {output}: {exc.strerror or exc}") from None
    return len(data)


def first_sentence(paper: Paper) -> str:
    if paper.no_abstract:
        return ""
    sentences = split_sentences(paper.text)
    text = sentences[0] if sentences else ""
    return text if len(text) <= FIRST_SENTENCE_CHARS else text[: FIRST_SENTENCE_CHARS - 1].rstrip() + ELLIPSIS


def _vectors(library: LibrarySession, papers: Sequence[Paper]) -> tuple[npt.NDArray[np.float32], str]:
    """One unit vector per paper, and what they are, for the legend."""
    if library.store is None or library.embedder is None:
        return lexical_vectors(papers), "TF-IDF word vectors (no embedding model)"
    store, found = library.store, {}
    offset = 0
    while True:  # a page at a time: one huge get() overflows SQLite's variable limit
        with chroma_errors("read vectors"):
            page = store.collection.get(include=["embeddings"], limit=store.page_size, offset=offset)
        ids = page["ids"]
        if not ids:
            break
        embeddings = page["embeddings"]
        assert embeddings is not None
        for record_id, vector in zip(ids, embeddings, strict=True):
            if split_unit_id(record_id)[1] == 0:  # the paper's own vector, not one of its passages'
                found[record_id] = vector
        offset += len(ids)
    missing = [p for p in papers if p.id not in found]
    if missing:  # opening the library completes vectors, so only a racing writer leaves some out
        for paper, vector in zip(missing, library.embedder.embed([p.searchable_text() for p in missing]), strict=True):
            found[paper.id] = vector
    matrix = np.asarray([found[p.id] for p in papers], dtype=np.float32)
    return _unit_rows(matrix), f"{library.embedder.name} vectors"


def lexical_vectors(papers: Sequence[Paper]) -> npt.NDArray[np.float32]:
    """TF-IDF over rag's own tokens (as BM25 sees them), sparse, then reduced by SVD: a dense
    vocabulary-wide matrix would not fit 5,000 papers in memory."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(tokenizer=tokenize, lowercase=False, token_pattern=None, sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([p.searchable_text() for p in papers])
    except ValueError:  # no paper has a single word that is not a stop word: nothing tells them apart
        return _unit_rows(np.ones((len(papers), 1), dtype=np.float32))
    dimensions = min(LEXICAL_DIMENSIONS, matrix.shape[1] - 1, len(papers) - 1)
    if dimensions < 2:
        return _unit_rows(np.asarray(matrix.toarray(), dtype=np.float32))
    reduced = TruncatedSVD(n_components=dimensions, random_state=DEFAULT_SEED).fit_transform(matrix)
    return _unit_rows(np.asarray(reduced, dtype=np.float32))


def project(vectors: npt.NDArray[np.float32], seed: int) -> tuple[npt.NDArray[np.float64], str]:
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
        from sklearn.manifold import TSNE

        if dimensions > TSNE_INPUT_DIMENSIONS:
            vectors = PCA(n_components=min(TSNE_INPUT_DIMENSIONS, count), random_state=seed).fit_transform(vectors)
        perplexity = min(TSNE_PERPLEXITY, (count - 1) * TSNE_PERPLEXITY_SHARE)
        coords = TSNE(n_components=2, perplexity=perplexity, init="pca", random_state=seed).fit_transform(vectors)
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


def _unit_rows(matrix: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    normalized: npt.NDArray[np.float32] = (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)
    return normalized


def _query_hits(library: LibrarySession, request: MapRequest) -> set[str]:
    """The papers `rag search QUERY` would list (same retriever, same k)."""
    if request.query is None:
        return set()
    search = SearchRequest(request.query, request.k)
    search.validate()
    return {hit.paper.id for hit in library.search(search)}
