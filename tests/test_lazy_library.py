"""A query on an embedded library reads only what it shows while the store matches the papers file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import needs_model

from rag.config import load_settings
from rag.errors import StoreError
from rag.index.backend import EmbeddedBackend
from rag.index.chroma import VectorStore
from rag.index.layout import CATALOG_FILE
from rag.services import manage
from rag.services import read as read_service
from rag.services.context import Context
from rag.services.requests import SearchRequest

pytestmark = needs_model
QUESTION = "which works target heterogeneous GPUs?"


def _never_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("the papers file was read whole")

    monkeypatch.setattr(EmbeddedBackend, "load_catalog", refuse)


def test_a_fresh_search_reads_only_the_papers_it_shows(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 5)).hits
    _never_read_whole(monkeypatch)
    with Context(load_settings()).reader() as library:
        assert library.fetches_as_needed
    lazy = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 5)).hits
    assert [h.paper.citekey for h in lazy] == [h.paper.citekey for h in whole]
    assert [h.paper.title for h in lazy] == [h.paper.title for h in whole]
    assert all(h.dense is not None for h in lazy)


def test_a_papers_file_changed_behind_the_store_is_read_whole(seeded: Path) -> None:
    papers_file = next(seeded.rglob(CATALOG_FILE))
    stat = papers_file.stat()
    os.utime(papers_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with Context(load_settings()).reader() as library:
        assert not library.fetches_as_needed, "a papers file the store was not written with is the truth"


def test_a_removal_leaves_the_library_in_sync(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    removed = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 1)).hits[0].paper
    manage.remove(Context(load_settings()), [removed.citekey])
    _never_read_whole(monkeypatch)
    hits = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 10)).hits
    assert removed.id not in {h.paper.id for h in hits}


def test_vectors_unreadable_while_another_process_writes_fall_back_to_words(
    seeded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unflushed(*_: object, **__: object) -> None:
        raise StoreError("Chroma failed to search (InternalError: Nothing found on disk)")

    monkeypatch.setattr(VectorStore, "query", unflushed)
    monkeypatch.setattr(VectorStore, "vectors", unflushed)
    with pytest.raises(StoreError, match="Nothing found on disk"):
        read_service.search(Context(load_settings()), SearchRequest(QUESTION, 3))

    monkeypatch.setattr(EmbeddedBackend, "writer_busy", lambda self: True)
    said: list[str] = []
    hits = read_service.search(Context(load_settings(), notify=said.append), SearchRequest(QUESTION, 3)).hits
    assert hits and all(h.dense is None for h in hits)
    assert sum("answered by words" in line for line in said) == 1, said
