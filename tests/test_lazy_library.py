"""A query on an embedded library reads only what it shows while the store matches the papers file."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import needs_model
from watched_backends import UNFLUSHED, NoWholeRead, Unflushed

from rag.config import load_settings
from rag.errors import StoreError
from rag.index import CATALOG_FILE
from rag.services import Context, SearchRequest, manage
from rag.services import read as read_service

pytestmark = needs_model
QUESTION = "which works target heterogeneous GPUs?"


def _never_reading_whole() -> Context:
    settings = load_settings()
    return Context(settings, backend=NoWholeRead(settings))


def test_a_fresh_search_reads_only_the_papers_it_shows(seeded: Path) -> None:
    whole = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 5)).hits
    with _never_reading_whole().reader() as library:
        assert library.fetches_as_needed
    lazy = read_service.search(_never_reading_whole(), SearchRequest(QUESTION, 5)).hits
    assert [h.paper.citekey for h in lazy] == [h.paper.citekey for h in whole]
    assert [h.paper.title for h in lazy] == [h.paper.title for h in whole]
    assert all(h.dense is not None for h in lazy)


def test_a_papers_file_changed_behind_the_store_is_read_whole(seeded: Path) -> None:
    papers_file = next(seeded.rglob(CATALOG_FILE))
    stat = papers_file.stat()
    os.utime(papers_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    with Context(load_settings()).reader() as library:
        assert not library.fetches_as_needed, "a papers file the store was not written with is the truth"


def test_a_removal_leaves_the_library_in_sync(seeded: Path) -> None:
    removed = read_service.search(Context(load_settings()), SearchRequest(QUESTION, 1)).hits[0].paper
    manage.remove(Context(load_settings()), [removed.citekey])
    hits = read_service.search(_never_reading_whole(), SearchRequest(QUESTION, 10)).hits
    assert removed.id not in {h.paper.id for h in hits}


def test_vectors_unreadable_while_another_process_writes_fall_back_to_words(seeded: Path) -> None:
    settings = load_settings()
    with pytest.raises(StoreError, match=re.escape(UNFLUSHED)):
        read_service.search(Context(settings, backend=Unflushed(settings, busy=False)), SearchRequest(QUESTION, 3))

    said: list[str] = []
    writing = Context(settings, notify=said.append, backend=Unflushed(settings, busy=True))
    hits = read_service.search(writing, SearchRequest(QUESTION, 3)).hits
    assert hits and all(h.dense is None for h in hits)
    assert sum("answered by words" in line for line in said) == 1, said
