"""A server library read without loading it: papers fetched by id, BM25 saved per collection version."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rag.lexical import LexicalIndex, load_saved, save
from rag.models import Paper
from rag.store import VectorStore

VERSION_SUBDIR = "by-version"


class RemotePapers:
    """The papers of a server collection by position, fetched only when read (and kept)."""

    def __init__(self, ids: Sequence[str], store: VectorStore) -> None:
        self.ids = ids
        self.store = store
        self._fetched: dict[str, Paper] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, index: int) -> Paper:
        paper_id = self.ids[index]
        if paper_id not in self._fetched:
            self.prefetch([index])
        return self._fetched[paper_id]

    def prefetch(self, indexes: Sequence[int]) -> None:
        missing = [self.ids[i] for i in indexes if self.ids[i] not in self._fetched]
        self._fetched.update(self.store.get_papers(missing))


def remote_index(store: VectorStore, folder: Path) -> tuple[LexicalIndex, Sequence[str], RemotePapers | list[Paper]]:
    """BM25 over a server collection: loaded from ``folder`` when the collection has not changed
    since it was saved; otherwise built from one full read and saved under the new version."""
    version = store.version()
    cache = folder / VERSION_SUBDIR
    saved = load_saved(cache, version) if version else None
    if saved is not None:
        index, ids = saved
        return index, ids, RemotePapers(ids, store)
    papers = store.papers()
    ids = [p.id for p in papers]
    index = LexicalIndex.build([p.searchable_text() for p in papers])
    if version:
        save(cache, version, index, ids)
    return index, ids, papers
