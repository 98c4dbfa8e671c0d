"""Hybrid retrieval: dense (Chroma) and lexical (BM25) scores, normalized and fused.

Fusion is a convex combination of per-query normalized scores (Bruch et al.,
"An Analysis of Fusion Functions for Hybrid Retrieval", 2023): unlike
reciprocal-rank fusion it keeps how far apart the scores are, and it measured
better on both the seed questions and SciFact (benchmarks/retrieval.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from rag.lexical import LexicalIndex
from rag.models import Hit, Paper

# (query, n) -> the n nearest papers as (id, cosine similarity), best first.
DenseSearch = Callable[[str, int], list[tuple[str, float]]]
# When filters drop most candidates, look this much deeper before filtering.
FILTERED_DEPTH_FACTOR = 10


class PaperSequence(Protocol):
    """Papers by position: a list, or a view that fetches them on demand."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int) -> Paper: ...


@runtime_checkable
class Prefetching(Protocol):
    def prefetch(self, indexes: Sequence[int]) -> None: ...


class Method(StrEnum):
    HYBRID = "hybrid"
    DENSE = "dense"
    LEXICAL = "lexical"


@dataclass(frozen=True)
class Filters:
    year_min: int | None = None
    year_max: int | None = None
    lists: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        return self.year_min is not None or self.year_max is not None or bool(self.lists)

    def accepts(self, paper: Paper) -> bool:
        if self.year_min is not None and (paper.year is None or paper.year < self.year_min):
            return False
        if self.year_max is not None and (paper.year is None or paper.year > self.year_max):
            return False
        return not self.lists or any(name in self.lists for name in paper.lists)


def _scaled(values: npt.NDArray[np.float32], floor: float) -> npt.NDArray[np.float32]:
    """Map [floor, max] to [0, 1]; all-equal scores carry no ranking signal and become 0."""
    top = float(values.max(initial=floor))
    if top <= floor:
        return np.zeros_like(values)
    scaled: npt.NDArray[np.float32] = np.clip((values - floor) / (top - floor), 0.0, 1.0).astype(np.float32)
    return scaled


class HybridRetriever:
    def __init__(
        self,
        papers: PaperSequence,
        dense: DenseSearch | None,
        dense_weight: float,
        depth: int,
        lexical: LexicalIndex | None = None,
        ids: Sequence[str] | None = None,
    ) -> None:
        """``papers`` may fetch lazily (a server's library); then pass ``ids`` and ``lexical``."""
        self.papers = papers
        order = ids if ids is not None else [papers[i].id for i in range(len(papers))]
        self.position = {paper_id: i for i, paper_id in enumerate(order)}
        self.lexical = lexical or LexicalIndex.build([papers[i].searchable_text() for i in range(len(papers))])
        self.dense = dense
        self.dense_weight = dense_weight
        self.depth = depth

    @property
    def has_dense(self) -> bool:
        return self.dense is not None

    def search(self, query: str, k: int, filters: Filters = Filters(), method: Method = Method.HYBRID) -> list[Hit]:
        if not len(self.papers):
            return []
        if method is not Method.LEXICAL and self.dense is None:
            method = Method.LEXICAL
        depth = max(self.depth, k) * (FILTERED_DEPTH_FACTOR if filters.active else 1)
        lexical = self.lexical.scores(query)
        dense = np.full(len(self.papers), np.nan, dtype=np.float32)
        if method is not Method.LEXICAL and self.dense is not None:
            for paper_id, similarity in self.dense(query, depth):
                if paper_id in self.position:
                    dense[self.position[paper_id]] = similarity
        fused = self._fuse(method, dense, lexical, depth)
        # Only scored papers can rank; lexical-only ranks papers sharing a term with the query.
        ranked = np.flatnonzero(fused > 0.0) if method is Method.LEXICAL else np.flatnonzero(~np.isnan(fused))
        if not filters.active and len(ranked) > k:
            ranked = ranked[np.argpartition(-fused[ranked], k - 1)[:k]]  # top k without sorting everything
        order = ranked[np.lexsort((ranked, -fused[ranked]))]  # best first; ties by position, as a stable sort
        if isinstance(self.papers, Prefetching):  # one round trip for the papers about to be read
            self.papers.prefetch([int(i) for i in (order if filters.active else order[:k])])
        hits: list[Hit] = []
        for i in order:
            if len(hits) == k:
                break
            if filters.active and not filters.accepts(self.papers[i]):
                continue
            hits.append(
                Hit(
                    paper=self.papers[i],
                    rank=len(hits) + 1,
                    score=round(float(fused[i]), 4),
                    dense=None if np.isnan(dense[i]) else round(float(dense[i]), 4),
                    lexical=round(float(lexical[i]), 4),
                )
            )
        return hits

    def _fuse(
        self,
        method: Method,
        dense: npt.NDArray[np.float32],
        lexical: npt.NDArray[np.float32],
        depth: int,
    ) -> npt.NDArray[np.float32]:
        if method is Method.LEXICAL:
            return _scaled(lexical, 0.0)
        seen = ~np.isnan(dense)
        if method is Method.DENSE:
            return np.where(seen, dense, np.nan).astype(np.float32)
        # Candidates: the dense top-``depth`` plus the lexical top-``depth``.
        candidates = seen.copy()
        if len(lexical) > depth:
            candidates[np.argpartition(-lexical, depth - 1)[:depth]] = True
        else:
            candidates[:] = True
        dense_floor = float(np.nanmin(dense)) if seen.any() else 0.0
        dense_filled = np.where(seen, dense, dense_floor).astype(np.float32)
        fused = self.dense_weight * _scaled(dense_filled, dense_floor) + (1 - self.dense_weight) * _scaled(lexical, 0.0)
        return np.where(candidates, fused, np.nan).astype(np.float32)
