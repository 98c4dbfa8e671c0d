"""One core function per command. The CLI parses, calls one of these, renders."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rag.catalog import CATALOG_FILE, CatalogFile
from rag.config import Settings
from rag.corpus.beir import beir_ids, is_beir_folder, load_beir
from rag.corpus.loader import load_paths
from rag.corpus.records import parse_mapping
from rag.errors import InputError, NotFoundError, StoreBusyError, StoreError
from rag.evaluate import EvalReport, LabelledQuestion, evaluate, load_questions
from rag.library import Library, Notify, open_library, silent
from rag.lock import data_dir_lock
from rag.models import Hit, Paper, ProgressFn, SeedList
from rag.retrieve import Filters, Method
from rag.store import wipe_embedded_index
from rag.units import all_units

DEFAULT_BEIR_SPLIT = "test"
SERVER_SNAPSHOTS = "server-snapshots"
# Rankings are kept this deep: recall@100 is the deepest reported metric.
EVAL_DEPTH = 100
MAX_COLLECTION_NAME = 63


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
    with open_library(settings, notify, progress, remote=True) as library:
        filters = Filters(request.year_min, request.year_max, library.resolve_lists(request.lists))
        hits = library.retriever().search(request.query.strip(), request.k, filters)
        return SearchResult(request.query.strip(), hits, library.mode)


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
    with open_library(settings, notify, progress, remote=True) as library:
        paper = library.paper(ref)
        return paper, [library.catalog.lists[name] for name in paper.lists if name in library.catalog.lists]


@dataclass
class IngestResult:
    files_read: int
    papers_found: int
    added: int
    updated: int
    unchanged: int
    removed: int
    warnings: list[str]
    total_papers: int
    # Full-text passages in the papers read (PDF bodies), each indexed beside its paper.
    passages_found: int = 0


def ingest(
    settings: Settings,
    paths: Sequence[Path],
    notify: Notify = silent,
    progress: ProgressFn | None = None,
    fields: Sequence[str] = (),
    full_text: bool = True,
) -> IngestResult:
    """Add files and folders to the library; re-ingesting unchanged files changes nothing."""
    loaded = load_paths(paths, parse_mapping(list(fields)), full_text, progress)  # all parsed before any write
    for warning in loaded.warnings:
        notify(warning)
    with open_library(settings, notify, progress, bootstrap=False) as library:
        report = library.add(list(loaded.papers.values()), loaded.lists, [s.file for s in loaded.lists])
        for warning in report.warnings:
            notify(warning)
        return IngestResult(
            files_read=loaded.files_read,
            papers_found=len(loaded.papers),
            added=len(report.added),
            updated=len(report.updated),
            unchanged=len(report.unchanged),
            removed=len(report.removed),
            warnings=loaded.warnings,
            total_papers=len(library.catalog.papers),
            passages_found=sum(len(p.passages) for p in loaded.papers.values()),
        )


def reindex(settings: Settings, notify: Notify = silent, progress: ProgressFn | None = None) -> int:
    """Rebuild the vector index from the saved papers; returns how many were indexed.

    An embedded index too damaged to open is removed and built again: the papers
    file, not Chroma, is the source of truth.
    """
    try:
        return _rebuild(settings, notify, progress)
    except StoreBusyError:
        raise
    except StoreError as exc:
        if settings.chroma_url or not (settings.data_dir / settings.collection / CATALOG_FILE).exists():
            raise
        notify(f"the vector index cannot be opened ({exc}); removing it and building it again")
        with data_dir_lock(settings.data_dir, settings.lock_timeout):
            wipe_embedded_index(settings.data_dir)
        return _rebuild(settings, notify, progress)


def _rebuild(settings: Settings, notify: Notify, progress: ProgressFn | None) -> int:
    with open_library(settings, notify, progress, rebuild=True) as library:
        if not library.catalog.papers:
            raise StoreError("the library is empty: nothing to rebuild; add papers with `rag ingest`")
        if library.catalog_file is not None:
            library.catalog_file.save(library.catalog)  # also a safety copy before dropping
        else:  # a server's collection is the only copy: keep one locally before dropping it
            snapshot = CatalogFile(settings.data_dir / SERVER_SNAPSHOTS / f"{settings.collection}.json")
            snapshot.save(library.catalog)
            notify(f"saved a copy of the {len(library.catalog.papers)} papers to {snapshot.path} before rebuilding")
        if library.embedder is None or library.store is None:
            notify("no embedding model: the lexical index is rebuilt on every command; nothing else to do")
            return len(library.catalog.papers)
        units = all_units(library.catalog.ordered())
        vectors = library.embedder.embed([u.text for u in units], progress)
        library.store.drop()
        library.store.upsert(units, vectors, progress)
        library.store.save_lists(list(library.catalog.lists.values()))
        return len(library.catalog.papers)


@dataclass
class EvalRequest:
    path: Path
    methods: Sequence[Method] = (Method.HYBRID,)
    split: str = DEFAULT_BEIR_SPLIT


@dataclass
class EvalRun:
    dataset: str
    collection: str
    documents: int
    reports: dict[str, EvalReport]


def _eval_collection(name: str) -> str:
    """'scifact' -> 'eval-scifact': a benchmark never mixes with the user's own library."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._") or "beir"
    return f"eval-{cleaned}"[:MAX_COLLECTION_NAME]


def _resolve_labels(library: Library, questions: Sequence[LabelledQuestion], path: Path) -> None:
    """Turn each label key (id, citekey or source reference) into a paper id."""
    for question in questions:
        grades: dict[str, int] = {}
        for key, grade in question.relevant.items():
            try:
                paper_id = library.paper(key).id
            except NotFoundError:
                raise InputError(
                    f"{path}: question {question.query_id}: '{key}' is not in collection "
                    f"'{library.settings.collection}' (labels are ids, citekeys or file#n sources)"
                ) from None
            grades[paper_id] = max(grade, grades.get(paper_id, 0))
        question.relevant = grades


def evaluate_retrieval(
    settings: Settings, request: EvalRequest, notify: Notify = silent, progress: ProgressFn | None = None
) -> EvalRun:
    """Retrieval metrics for a labelled question file or a BEIR folder, one report per method."""
    if not request.path.exists():
        raise InputError(f"no such file or folder: {request.path}")
    beir = load_beir(request.path, request.split) if is_beir_folder(request.path) else None
    if beir is not None:
        settings = settings.model_copy(update={"collection": _eval_collection(beir.name)})
    questions = beir.questions if beir is not None else load_questions(request.path)
    with open_library(settings, notify, progress, bootstrap=beir is None) as library:
        if beir is not None:
            library.add(beir.papers, [])
        else:
            _resolve_labels(library, questions, request.path)
        if library.embedder is None and any(m is not Method.LEXICAL for m in request.methods):
            raise InputError("dense and hybrid evaluation need the embedding model; use --method lexical")
        retriever = library.retriever()

        def ranking(method: Method) -> Callable[[str], list[str]]:
            def rank(question: str) -> list[str]:
                hits = retriever.search(question, EVAL_DEPTH, method=method)
                if beir is None:
                    return [h.paper.id for h in hits]
                return [doc for h in hits for doc in beir_ids(h.paper)][:EVAL_DEPTH]

            return rank

        reports = {m.value: evaluate(questions, ranking(m)) for m in request.methods}
        return EvalRun(beir.name if beir else request.path.name, settings.collection, retriever.paper_count, reports)
