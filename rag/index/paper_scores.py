"""Sentences scored against every paper of an open library at once: what `rag check` weighs a cited paper
against (is it the one the sentence is about, compared with the rest of the library?).

BM25 comes from the library's own lexical index (a paper scores as its best unit: abstract or passage);
vectors from the store (the papers' own, never their passages'), the sentences embedded in one batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.index.session import LibrarySession
from rag.records import Paper

Matrix = npt.NDArray[np.float32]


@dataclass
class LibraryScores:
    """``papers`` in retriever order; ``lexical[i, j]`` BM25 of sentence ``i`` for paper ``j``; unit-length
    ``sentence_vectors`` and ``paper_vectors`` when the library has an embedding model."""

    papers: list[Paper]
    lexical: Matrix
    sentence_vectors: Matrix | None = None
    paper_vectors: Matrix | None = None


def _unit_rows(matrix: Matrix) -> Matrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms == 0, 1, norms)).astype(np.float32)


def score_sentences(library: LibrarySession, sentences: Sequence[str]) -> LibraryScores:
    """Every sentence against every paper of ``library`` (sentences embedded in one batch)."""
    retriever = library.retriever()
    owners = retriever.owner
    count = retriever.paper_count
    first_unit = np.full(count, -1, dtype=np.intp)
    for unit in range(len(owners) - 1, -1, -1):
        first_unit[owners[unit]] = unit
    papers = [retriever.units.paper(int(unit)) for unit in first_unit]
    lexical = np.zeros((len(sentences), count), dtype=np.float32)
    for row, sentence in enumerate(sentences):
        scores = retriever.lexical.scores(sentence)
        if len(scores):
            np.maximum.at(lexical[row], owners, scores)
    result = LibraryScores(papers, lexical)
    if library.embedder is None or library.store is None or not sentences:
        return result
    result.paper_vectors = paper_vectors(library, papers)
    result.sentence_vectors = _unit_rows(np.asarray(library.embedder.embed(list(sentences)), dtype=np.float32))
    return result


def paper_vectors(library: LibrarySession, papers: Sequence[Paper]) -> Matrix:
    """Each paper's own vector from the store, unit length, in ``papers`` order (the library must have a store
    and an embedder); one the store lacks is embedded."""
    assert library.store is not None and library.embedder is not None
    stored = library.store.paper_vectors()
    missing = [p for p in papers if p.id not in stored]
    if missing:  # opening the library completes vectors: only a racing writer leaves some out
        for paper, vector in zip(missing, library.embedder.embed([p.searchable_text() for p in missing]), strict=True):
            stored[paper.id] = vector
    return _unit_rows(np.asarray([stored[p.id] for p in papers], dtype=np.float32))
