"""One core function per command. The CLI parses, calls one of these, renders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.answer import Answer, extractive_answer
from rag.config import Settings
from rag.corpus.loader import load_paths
from rag.errors import InputError, StoreError
from rag.library import Notify, open_library, silent
from rag.models import Hit, Paper, ProgressFn, SeedList
from rag.retrieve import Filters


@dataclass
class SearchRequest:
    query: str
    k: int
    year_min: int | None = None
    year_max: int | None = None
    lists: Sequence[str] = ()

    def validate(self) -> None:
        if not self.query.strip():
            raise InputError('the question is empty; try e.g. rag ask "which works target heterogeneous GPUs?"')
        if self.k < 1:
            raise InputError(f"-k must be at least 1 (got {self.k})")
        if self.year_min is not None and self.year_max is not None and self.year_min > self.year_max:
            raise InputError(f"--since {self.year_min} is after --until {self.year_max}")


@dataclass
class SearchResult:
    query: str
    hits: list[Hit]
    mode: str


def search(
    settings: Settings, request: SearchRequest, notify: Notify = silent, progress: ProgressFn | None = None
) -> SearchResult:
    request.validate()
    with open_library(settings, notify, progress) as library:
        filters = Filters(request.year_min, request.year_max, library.resolve_lists(request.lists))
        hits = library.retriever().search(request.query.strip(), request.k, filters)
        return SearchResult(request.query.strip(), hits, library.mode)


def ask(
    settings: Settings, request: SearchRequest, notify: Notify = silent, progress: ProgressFn | None = None
) -> Answer:
    """Extractive answer (no LLM): cited sentences from the retrieved abstracts."""
    request.validate()
    with open_library(settings, notify, progress) as library:
        filters = Filters(request.year_min, request.year_max, library.resolve_lists(request.lists))
        question = request.query.strip()
        hits = library.retriever().search(question, request.k, filters)
        return extractive_answer(question, hits, library.embedder, settings.min_relevance)


@dataclass
class Listing:
    papers: list[Paper]
    lists: list[SeedList]


def papers(settings: Settings, notify: Notify = silent, progress: ProgressFn | None = None) -> Listing:
    with open_library(settings, notify, progress) as library:
        return Listing(library.catalog.ordered(), list(library.catalog.lists.values()))


def show(
    settings: Settings, ref: str, notify: Notify = silent, progress: ProgressFn | None = None
) -> tuple[Paper, list[SeedList]]:
    with open_library(settings, notify, progress) as library:
        paper = library.paper(ref)
        return paper, [library.catalog.lists[name] for name in paper.lists if name in library.catalog.lists]


@dataclass
class IngestResult:
    files_read: int
    papers_found: int
    added: int
    updated: int
    unchanged: int
    warnings: list[str]
    total_papers: int


def ingest(
    settings: Settings, paths: Sequence[Path], notify: Notify = silent, progress: ProgressFn | None = None
) -> IngestResult:
    """Add files and folders to the library; re-ingesting unchanged files changes nothing."""
    loaded = load_paths(paths)  # parse everything before touching the index
    for warning in loaded.warnings:
        notify(warning)
    with open_library(settings, notify, progress, bootstrap=False) as library:
        report = library.add(list(loaded.papers.values()), loaded.lists)
        return IngestResult(
            files_read=loaded.files_read,
            papers_found=len(loaded.papers),
            added=len(report.added),
            updated=len(report.updated),
            unchanged=len(report.unchanged),
            warnings=loaded.warnings,
            total_papers=len(library.catalog.papers),
        )


def reindex(settings: Settings, notify: Notify = silent, progress: ProgressFn | None = None) -> int:
    """Rebuild the vector index from the saved papers; returns how many were indexed."""
    with open_library(settings, notify, progress, rebuild=True) as library:
        if not library.catalog.papers:
            raise StoreError("the library is empty: nothing to rebuild; add papers with `rag ingest`")
        if library.catalog_file is not None:
            library.catalog_file.save(library.catalog)  # also a safety copy before dropping
        if library.embedder is None or library.store is None:
            notify("no embedding model: the lexical index is rebuilt on every command; nothing else to do")
            return len(library.catalog.papers)
        papers = library.catalog.ordered()
        vectors = library.embedder.embed([p.searchable_text() for p in papers], progress)
        library.store.drop()
        library.store.upsert(papers, vectors, progress)
        library.store.save_lists(list(library.catalog.lists.values()))
        return len(papers)
