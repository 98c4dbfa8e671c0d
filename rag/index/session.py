"""An open library for one command: its papers, their vectors and the lexical index.

``open_library`` locks the data dir (embedded mode), fills an empty default
library with the bundled corpus, and completes vectors a previous run did not
store. The services use it and never print: notices go through ``notify``,
long work reports through ``progress``. The embedder and the Chroma client are
given to it (rag.services.context builds them from settings).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rag.config import DEFAULT_COLLECTION, Settings
from rag.corpus.loader import load_paths
from rag.embed.choice import EmbedderChoice, vector_collection
from rag.embed.types import Embedder
from rag.errors import InputError, NotFoundError, StoreError
from rag.index.bm25 import load_or_build
from rag.index.catalog import CATALOG_FILE, Catalog, CatalogFile, UpsertReport
from rag.index.chroma import VectorStore, connect
from rag.index.hybrid import HybridRetriever, LocalUnits, UnitSource
from rag.index.lock import data_dir_lock, ensure_data_dir, lock_if_free
from rag.index.server_citekeys import settle_citekeys
from rag.index.units import all_units, unit_count
from rag.records import Notify, Paper, ProgressFn, SeedList, silent
from rag.resources import seeds_dir

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

LEXICAL_DIR = "lexical"
# Papers embedded and stored per step while indexing.
SYNC_CHUNK = 256
# A reader embeds missing vectors itself only when they take seconds, not minutes.
READER_SYNC_LIMIT = 64
# The first run indexes the bundled corpus under the lock; a second process starting at once waits this long.
BOOTSTRAP_LOCK_TIMEOUT = 120.0
SERVER_KEY_CHARS = 12


@dataclass
class LibrarySession:
    """An open library: its papers, and the vector store when dense retrieval is on."""

    settings: Settings
    catalog: Catalog
    embedder: Embedder | None
    store: VectorStore | None
    catalog_file: CatalogFile | None
    notify: Notify = silent
    progress: ProgressFn | None = None
    # A server library opened for a query: papers stay on the server until read (see rag.index.server_view).
    remote: bool = False
    _retriever: HybridRetriever | None = field(default=None, init=False)
    _refs: dict[str, Paper] | None = field(default=None, init=False)

    @property
    def mode(self) -> str:
        return "hybrid" if self.embedder is not None and self.store is not None else "lexical"

    def retriever(self) -> HybridRetriever:
        if self._retriever is None:
            dense = None
            if self.embedder is not None and self.store is not None:
                embedder, store = self.embedder, self.store
                dense = lambda query, n: store.query(embedder.embed([query])[0], n)  # noqa: E731
            units: UnitSource
            if self.remote and self.store is not None:
                from rag.index.server_view import remote_index

                lexical, units = remote_index(self.store, lexical_cache_dir(self.settings))
            else:
                local = LocalUnits.of(self.catalog.ordered())
                lexical = load_or_build(
                    lexical_cache_dir(self.settings),
                    [f"{u.id}\t{u.paper.title or ''}" for u in local.units],
                    local.texts,
                )
                units = local
            self._retriever = HybridRetriever(
                units, dense, self.settings.dense_weight, self.settings.fusion_depth, lexical
            )
        return self._retriever

    def add(
        self, papers: Sequence[Paper], lists: Sequence[SeedList], replace_files: Sequence[str] = ()
    ) -> UpsertReport:
        """Upsert papers: saved to the catalog first, then vectors for new text only."""
        report = self.catalog.upsert(papers, lists, replace_files)
        if self.catalog_file is not None:
            self.catalog_file.save(self.catalog)
        if self.store is not None and self.embedder is not None:
            gone = [*report.updated, *report.removed]
            if gone:  # an updated paper may have fewer passages now: its old units go first
                self.store.delete(gone)
        self.sync_vectors()
        if self.store is not None:
            if self.settings.chroma_url:  # another client may have given one of these keys at the same time
                new = set(report.added)
                known = {p.citekey for p in self.catalog.papers.values() if p.id not in new}
                report.warnings += settle_citekeys(self.store, [self.catalog.papers[i] for i in report.added], known)
            self.store.save_lists(list(self.catalog.lists.values()))  # last: it also marks the new version
        self._retriever = self._refs = None
        return report

    def remove(self, ids: Sequence[str]) -> None:
        """Forget papers: from the papers file first, then their vectors."""
        for paper_id in ids:
            self.catalog.papers.pop(paper_id, None)
        if self.catalog_file is not None:
            self.catalog_file.save(self.catalog)
        if self.store is not None:
            self.store.delete(list(ids))
        self._retriever = self._refs = None

    def missing_units(self) -> int:
        """Papers and passages saved without a vector (an interrupted ingest, or no model then)."""
        if self.embedder is None or self.store is None:
            return 0
        return max(0, unit_count(self.catalog.papers.values()) - self.store.count())

    def sync_vectors(self) -> int:
        """Embed papers and passages that have no vector yet (new, changed, or indexed while
        the model was missing); returns how many papers were completed."""
        if self.embedder is None or self.store is None:
            return 0
        if self.store.count() == unit_count(self.catalog.papers.values()):
            return 0
        stored = self.store.ids()
        missing = [u for u in all_units(self.catalog.ordered()) if u.id not in stored]
        # Stored chunk by chunk: a run killed halfway keeps what it embedded, a re-run does the rest.
        for start in range(0, len(missing), SYNC_CHUNK):
            chunk = missing[start : start + SYNC_CHUNK]
            vectors = self.embedder.embed([u.text for u in chunk], self._progress_from(start, len(missing)))
            self.store.upsert(chunk, vectors)
        return len({u.paper.id for u in missing})

    def _progress_from(self, offset: int, total: int) -> ProgressFn | None:
        """The progress callback, counting a chunk's items from ``offset`` out of ``total``."""
        report = self.progress
        if report is None:
            return None
        return lambda what, done, _chunk_total: report(what, offset + done, total)

    def paper(self, ref: str) -> Paper:
        """A paper by id, citekey or source reference ``file#n``."""
        ref = ref.strip()
        if not ref:
            raise InputError("give a paper id, citekey or source reference (file#n)")
        if self.remote:
            assert self.store is not None
            found = self.store.find_paper(ref)  # by id or citekey, without reading the library
            if found is not None:
                return found
            # A source reference is inside a list field Chroma cannot filter on: read the library once.
            self.catalog = Catalog({p.id: p for p in self.store.papers()}, self.catalog.lists)
            self.remote, self._retriever = False, None
        if self._refs is None:
            self._refs = {}
            for paper in self.catalog.papers.values():
                for key in (paper.id, paper.citekey, *paper.sources):
                    self._refs.setdefault(key, paper)
        if ref in self._refs:
            return self._refs[ref]
        raise NotFoundError(f"no paper with id, citekey or source '{ref}'; `rag papers` lists them")

    def resolve_lists(self, names: Sequence[str]) -> frozenset[str]:
        """Seed-list files from names given by the user: file name, its prefix, or subject words."""
        chosen: set[str] = set()
        for name in names:
            wanted = name.strip().lower()
            matches = [
                s.file
                for s in self.catalog.lists.values()
                if s.file.lower().startswith(wanted) or (len(wanted) > 3 and wanted in s.subject.lower())
            ]
            if not matches:
                known = ", ".join(sorted(self.catalog.lists)) or "none"
                raise InputError(f"no seed list matches '{name}' (known lists: {known})")
            chosen.update(matches)
        return frozenset(chosen)


def lexical_cache_dir(settings: Settings) -> Path:
    """Saved BM25 index: per collection, and per server when the papers live on one."""
    if settings.chroma_url:
        server = hashlib.sha256(settings.chroma_url.encode()).hexdigest()[:SERVER_KEY_CHARS]
        return settings.data_dir / LEXICAL_DIR / f"server-{server}" / settings.collection
    return settings.data_dir / settings.collection / LEXICAL_DIR


def _load_catalog(settings: Settings, store: VectorStore | None) -> tuple[Catalog, CatalogFile | None]:
    if settings.chroma_url:
        # A server is shared: its collection, not a local file, is the truth.
        assert store is not None
        papers, lists = store.papers(), store.lists()
        if not papers and store.name != settings.collection:
            # First use of another embedding model: the library's papers are in its base collection.
            base = VectorStore(store.client, settings.collection, store.model, check_model=False)
            if base.exists():
                papers, lists = base.papers(), base.lists()
        return Catalog({p.id: p for p in papers}, {s.file: s for s in lists}), None
    catalog_file = _catalog_file(settings)
    assert catalog_file is not None  # embedded mode: the papers file is the truth
    return catalog_file.load(), catalog_file


def _complete_vectors(library: LibrarySession, settings: Settings, write: bool) -> None:
    """Writers complete missing vectors; a reader only when they are few and no writer is busy
    (reads never spend surprise minutes embedding: they search what is indexed and say so)."""
    missing = library.missing_units()
    if not missing:
        return
    if write or (missing <= READER_SYNC_LIMIT and settings.chroma_url):
        # On a server no lock is needed: upserting the same vectors twice from two clients is harmless.
        added = library.sync_vectors()
    elif missing <= READER_SYNC_LIMIT:
        with lock_if_free(settings.data_dir) as free:
            added = library.sync_vectors() if free else 0
        if not free:
            _say_missing(library, missing)
    else:
        _say_missing(library, missing)
        return
    if added:
        library.notify(f"added vectors for {added} papers that had none (an interrupted ingest, or no model then)")


def _say_missing(library: LibrarySession, missing: int) -> None:
    library.notify(
        f"{missing} papers and passages have no vector yet (an interrupted ingest, or no model then): "
        "they are found by their words only; `rag reindex` (or `rag ingest` again) finishes them"
    )


def _vector_store(
    settings: Settings, choice: EmbedderChoice, client: ClientAPI | None, check_model: bool
) -> VectorStore | None:
    if choice.embedder is None:
        return None
    client = client or connect(settings.data_dir, settings.chroma_url)
    name = vector_collection(settings.collection, choice.embedder.name)
    return VectorStore(client, name, choice.embedder.name, check_model=check_model)


def _catalog_file(settings: Settings) -> CatalogFile | None:
    """Our papers file (embedded mode); on a server the collection itself holds the papers."""
    return None if settings.chroma_url else CatalogFile(settings.data_dir / settings.collection / CATALOG_FILE)


def _exists(settings: Settings, store: VectorStore | None, catalog_file: CatalogFile | None) -> bool:
    if catalog_file is not None:
        return catalog_file.exists()
    if store is None:
        return False
    # A library read with another embedding model for the first time lives in its base collection.
    return store.exists() or VectorStore(store.client, settings.collection, store.model, check_model=False).exists()


def _missing_library(settings: Settings, client: ClientAPI | None) -> NotFoundError:
    from rag.index.libraries import list_libraries

    names = [info.name for info in list_libraries(settings, client) if info.name != settings.collection]
    known = ", ".join(names) or "none yet"
    return NotFoundError(
        f"there is no library '{settings.collection}' (libraries: {known}); "
        f"`rag --collection {settings.collection} ingest FILES` creates it"
    )


@contextmanager
def open_library(
    settings: Settings,
    embedding: EmbedderChoice,
    notify: Notify = silent,
    progress: ProgressFn | None = None,
    bootstrap: bool = True,
    rebuild: bool = False,
    remote: bool = False,
    client: ClientAPI | None = None,
    write: bool = False,
    create: bool = False,
) -> Iterator[LibrarySession]:
    """Open the configured library for one command.

    ``write``: the command changes the library, so it holds the data dir's lock (embedded mode)
    and completes missing vectors; readers take no lock and never fail because a writer is busy
    (they see the last complete state). Only a ``create`` command (ingest) makes a new library;
    with ``bootstrap``, the default library is filled with the bundled corpus the first time it
    is used, once (a library the user emptied stays empty). ``rebuild`` opens a collection built
    with another model (to replace it) and skips every automatic change. ``client`` is the Chroma
    client to use (default: connect as the settings say).
    """
    choice = embedding
    if choice.notice:
        notify(choice.notice)
    if settings.chroma_url and choice.embedder is None:
        raise StoreError(
            "a Chroma server needs an embedding model to store papers; "
            "set RAG_EMBED_MODEL_DIR to a folder with its files, or RAG_EMBED_BASE_URL to an embeddings endpoint"
        )
    if not settings.chroma_url:
        ensure_data_dir(settings.data_dir)
    guard = data_dir_lock(settings.data_dir, settings.lock_timeout) if write and not settings.chroma_url else None
    with guard or nullcontext():
        if choice.embedder is not None:
            client = client or connect(settings.data_dir, settings.chroma_url)
        store = _vector_store(settings, choice, client, check_model=not rebuild)
        catalog_file = _catalog_file(settings)
        if not rebuild and not create and not _exists(settings, store, catalog_file):
            if not (bootstrap and settings.collection == DEFAULT_COLLECTION):
                raise _missing_library(settings, client)
            _seed_bundled_corpus(settings, choice, notify, progress, client, held=guard is not None)
        remote = remote and bool(settings.chroma_url) and store is not None and store.count() > 0
        if remote:
            assert store is not None
            catalog, catalog_file = Catalog({}, {s.file: s for s in store.lists()}), None
        else:
            catalog, catalog_file = _load_catalog(settings, store)
        if catalog_file is not None and catalog_file.recovery_notice:
            notify(catalog_file.recovery_notice)
        library = LibrarySession(settings, catalog, choice.embedder, store, catalog_file, notify, progress, remote)
        if not (rebuild or remote):
            _complete_vectors(library, settings, write)
        yield library


def _seed_bundled_corpus(
    settings: Settings,
    choice: EmbedderChoice,
    notify: Notify,
    progress: ProgressFn | None,
    client: ClientAPI | None,
    held: bool,
) -> None:
    """First use of the default library: index the bundled corpus, under the lock (another process starting
    at the same moment waits for it, then finds the library there)."""
    lock = nullcontext() if held or settings.chroma_url else data_dir_lock(settings.data_dir, BOOTSTRAP_LOCK_TIMEOUT)
    with lock:
        store = _vector_store(settings, choice, client, check_model=True)
        if _exists(settings, store, _catalog_file(settings)):
            return  # another process seeded it while this one waited
        catalog, catalog_file = _load_catalog(settings, store)
        library = LibrarySession(settings, catalog, choice.embedder, store, catalog_file, notify, progress)
        bundled = load_paths([seeds_dir()])
        notify(f"first run: indexing the bundled corpus ({len(bundled.papers)} papers) into {settings.collection}")
        library.add(list(bundled.papers.values()), bundled.lists)
