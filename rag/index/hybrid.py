"""Hybrid retrieval: dense (Chroma) and lexical (BM25) scores, normalized and fused.

Fusion is a convex combination of per-query normalized scores (Bruch et al.,
"An Analysis of Fusion Functions for Hybrid Retrieval", 2023): unlike
reciprocal-rank fusion it keeps how far apart the scores are, and it measured
better on both the seed questions and SciFact (benchmarks/retrieval.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from rag.index.bm25 import LexicalIndex
from rag.index.units import PASSAGE_MARK, Unit, all_units, split_unit_id
from rag.records import Hit, Method, Paper, Passage

# (query, n) -> the n nearest units (papers or passages) as (id, cosine similarity), best first.
DenseSearch = Callable[[str, int], list[tuple[str, float]]]
# When filters drop most candidates, look this much deeper before filtering.
FILTERED_DEPTH_FACTOR = 10
# With full-text passages several top units can share a paper: rank this many units per paper wanted.
UNITS_PER_HIT = 4


class UnitSource(Protocol):
    """The indexed units (rag.index.units) by position: their ids, and their papers and passages,
    which a server library fetches only when read."""

    @property
    def ids(self) -> Sequence[str]: ...

    def paper(self, index: int) -> Paper: ...

    def passage(self, index: int) -> Passage | None: ...

    def prefetch(self, indexes: Sequence[int]) -> None: ...


class LocalUnits:
    """Units of papers held in memory."""

    def __init__(self, units: Sequence[Unit]) -> None:
        self.units = units
        self.ids = [u.id for u in units]

    @classmethod
    def of(cls, papers: Sequence[Paper]) -> LocalUnits:
        return cls(all_units(papers))

    def texts(self) -> list[str]:
        return [u.text for u in self.units]

    def paper(self, index: int) -> Paper:
        return self.units[index].paper

    def passage(self, index: int) -> Passage | None:
        return self.units[index].passage

    def prefetch(self, indexes: Sequence[int]) -> None:
        return None


@dataclass(frozen=True)
class Filters:
    year_min: int | None = None
    year_max: int | None = None
    lists: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        return self.year_min is not None or self.year_max is not None or bool(self.lists)

    def described(self, names: Sequence[str]) -> str:
        """The filters as the user gave them ('--since 2030 --list 002')."""
        parts = [f"--since {self.year_min}"] if self.year_min is not None else []
        parts += [f"--until {self.year_max}"] if self.year_max is not None else []
        parts += [f"--list {name}" for name in names] if self.lists else []
        return " ".join(parts)

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
        units: UnitSource,
        dense: DenseSearch | None,
        dense_weight: float,
        depth: int,
        lexical: LexicalIndex | None = None,
    ) -> None:
        """Search ``units`` (``LocalUnits.of(papers)`` for a list); hits are papers, each once.
        A source other than ``LocalUnits`` comes with its saved ``lexical`` index."""
        self.units = units
        ids = units.ids
        self.position = {unit_id: i for i, unit_id in enumerate(ids)}
        self.owner = _owners(ids)
        self.paper_count = int(self.owner.max(initial=-1)) + 1
        self._paper_units: npt.NDArray[np.bool_] | None = None
        if lexical is None:
            if not isinstance(units, LocalUnits):
                raise TypeError("a unit source that fetches lazily needs its lexical index")
            lexical = LexicalIndex.build(units.texts())
        self.lexical = lexical
        self.dense = dense
        self.dense_weight = dense_weight
        self.depth = depth

    def paper_share(self, term: str) -> float:
        """The share of the papers whose own unit (title and abstract, not a passage) holds ``term`` (a word as
        rag.text.tokenize makes it)."""
        if self.paper_count == 0:
            return 0.0
        if self._paper_units is None:
            self._paper_units = np.array([split_unit_id(i)[0] == i for i in self.units.ids], dtype=bool)
        return float(self._paper_units[self.lexical.holding(term)].sum()) / self.paper_count

    @property
    def has_dense(self) -> bool:
        return self.dense is not None

    def search(self, query: str, k: int, filters: Filters = Filters(), method: Method = Method.HYBRID) -> list[Hit]:
        size = len(self.units.ids)
        if not size:
            return []
        if method is not Method.LEXICAL and self.dense is None:
            method = Method.LEXICAL
        per_hit = UNITS_PER_HIT if self.paper_count < size else 1  # units to rank per paper wanted
        depth = max(self.depth, k) * (FILTERED_DEPTH_FACTOR if filters.active else 1) * per_hit
        lexical = self.lexical.scores(query)
        dense = np.full(size, np.nan, dtype=np.float32)
        if method is not Method.LEXICAL and self.dense is not None:
            for unit_id, similarity in self.dense(query, depth):
                if unit_id in self.position:
                    dense[self.position[unit_id]] = similarity
        fused = self._fuse(method, dense, lexical, depth)
        # Only scored units can rank; lexical-only ranks units sharing a term with the query.
        ranked = np.flatnonzero(fused > 0.0) if method is Method.LEXICAL else np.flatnonzero(~np.isnan(fused))
        wanted = len(ranked) if filters.active else k * per_hit
        while True:
            order = _best_first(ranked, fused, wanted)
            self.units.prefetch([int(i) for i in order])  # one round trip for what is about to be read
            hits = self._collapse(order, k, filters, fused, dense, lexical)
            if len(hits) == k or len(order) == len(ranked):
                return hits
            wanted *= UNITS_PER_HIT  # passages of the same papers filled the window: look deeper

    def _collapse(
        self,
        order: npt.NDArray[np.intp],
        k: int,
        filters: Filters,
        fused: npt.NDArray[np.float32],
        dense: npt.NDArray[np.float32],
        lexical: npt.NDArray[np.float32],
    ) -> list[Hit]:
        """Units best first -> papers best first, each at the score of its best unit."""
        hits: list[Hit] = []
        seen: set[int] = set()
        for i in order:
            owner = int(self.owner[i])
            if owner in seen:
                continue
            seen.add(owner)
            paper = self.units.paper(int(i))
            if filters.active and not filters.accepts(paper):
                continue
            hits.append(
                Hit(
                    paper=paper,
                    rank=len(hits) + 1,
                    score=round(float(fused[i]), 4),
                    dense=None if np.isnan(dense[i]) else round(float(dense[i]), 4),
                    lexical=round(float(lexical[i]), 4),
                    passage=self.units.passage(int(i)),
                )
            )
            if len(hits) == k:
                break
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


def _best_first(ranked: npt.NDArray[np.intp], scores: npt.NDArray[np.float32], n: int) -> npt.NDArray[np.intp]:
    """The ``n`` best of ``ranked``, best first; ties by position, as a stable sort would."""
    if len(ranked) > n:
        ranked = ranked[np.argpartition(-scores[ranked], n - 1)[:n]]  # top n without sorting everything
    return ranked[np.lexsort((ranked, -scores[ranked]))]


def _owners(unit_ids: Sequence[str]) -> npt.NDArray[np.intp]:
    """For each unit, the position of its paper among the papers (in order of first appearance)."""
    if not any(PASSAGE_MARK in unit_id for unit_id in unit_ids):
        return np.arange(len(unit_ids), dtype=np.intp)
    papers: dict[str, int] = {}
    return np.array([papers.setdefault(split_unit_id(unit_id)[0], len(papers)) for unit_id in unit_ids], dtype=np.intp)
