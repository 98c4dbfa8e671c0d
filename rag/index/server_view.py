"""A server library read without loading it: records fetched by id, BM25 saved per collection version."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.index.bm25 import LexicalIndex, load_saved, save
from rag.index.chroma import VectorStore
from rag.index.hybrid import LocalUnits, UnitSource
from rag.index.units import all_units, split_unit_id
from rag.records import Paper, Passage

VERSION_SUBDIR = "by-version"


class RemoteUnits:
    """The units of a server collection by position; a paper or passage is fetched when first read."""

    def __init__(self, ids: Sequence[str], store: VectorStore) -> None:
        self.ids = ids
        self.store = store
        self._fetched: dict[str, Paper | Passage] = {}

    def paper(self, index: int) -> Paper:
        record = self._record(split_unit_id(self.ids[index])[0], index)
        assert isinstance(record, Paper)
        return record

    def passage(self, index: int) -> Passage | None:
        if not split_unit_id(self.ids[index])[1]:
            return None
        record = self._record(self.ids[index], index)
        assert isinstance(record, Passage)
        return record

    def _record(self, record_id: str, index: int) -> Paper | Passage:
        """``record_id`` (the unit at ``index``, or its paper), fetched with the rest of that unit if new."""
        if record_id not in self._fetched:
            self.prefetch([index])
        return self._fetched[record_id]

    def prefetch(self, indexes: Sequence[int]) -> None:
        wanted: set[str] = set()
        for i in indexes:
            paper_id, n = split_unit_id(self.ids[i])
            wanted.update((paper_id, self.ids[i]) if n else (paper_id,))
        self._fetched.update(self.store.get_records(sorted(wanted - self._fetched.keys())))


def remote_index(store: VectorStore, folder: Path) -> tuple[LexicalIndex, UnitSource]:
    """BM25 over a server collection: loaded from ``folder`` when the collection has not changed
    since it was saved; otherwise built from one full read and saved under the new version."""
    version = store.version()
    cache = folder / VERSION_SUBDIR
    saved = load_saved(cache, version) if version else None
    if saved is not None:
        index, ids = saved
        return index, RemoteUnits(ids, store)
    units = LocalUnits(all_units(store.papers()))
    index = LexicalIndex.build(units.texts())
    if version:
        save(cache, version, index, units.ids)
    return index, units
