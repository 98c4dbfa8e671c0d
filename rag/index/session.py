"""An open library for one command: its papers, their vectors and the lexical index.

A library is opened by intent (``Opener.reader``, ``writer``, ``rebuilder``),
each a short function over the backend (rag.index.backend), which knows where
the library lives. Readers take no lock; writers hold the backend's write
guard. The first command to use the default library fills it with the bundled
corpus. The services use a session and never print: notices go through
``notify``, long work reports through ``progress``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import numpy as np

from rag.config import DEFAULT_COLLECTION, Settings
from rag.corpus.loader import load_paths
from rag.embed.choice import EmbedderChoice, vector_collection
from rag.embed.types import Embedder, Vectors
from rag.errors import InputError, NotFoundError, StoreError
from rag.index.backend import Backend
from rag.index.bm25 import load_or_build
from rag.index.catalog import Catalog, UpsertReport
from rag.index.chroma import VectorStore
from rag.index.hybrid import Filters, HybridRetriever, LocalUnits, UnitSource
from rag.index.units import all_units, passage_id, unit_count
from rag.records import Hit, Notify, Paper, ProgressFn, SeedList, silent
from rag.resources import seeds_dir

T = TypeVar("T")

# Papers embedded and stored per step while indexing: Ctrl-C or a kill loses at most this many vectors.
SYNC_CHUNK = 64
# A reader embeds missing vectors itself only when they take seconds, not minutes.
READER_SYNC_LIMIT = 64


class SearchSpec(Protocol):
    """What a search asks for (rag.services.requests.SearchRequest): ``k`` None means the configured top-k."""

    query: str
    k: int | None
    year_min: int | None
    year_max: int | None
    lists: Sequence[str]


@dataclass
class LibrarySession:
    """An open library: its papers, and the vector store when dense retrieval is on.

    A library whose store holds exactly its papers (always on a server; embedded, when the store was last
    written with the papers file as it is) is not read whole until something needs every paper: searches
    and lookups by id or citekey fetch only the records they show.
    """

    settings: Settings
    backend: Backend
    embedder: Embedder | None
    store: VectorStore | None
    notify: Notify = silent
    progress: ProgressFn | None = None
    _catalog: Catalog | None = None
    _retriever: HybridRetriever | None = field(default=None, init=False)
    _refs: dict[str, Paper] | None = field(default=None, init=False)
    _query: tuple[str, Vectors] | None = field(default=None, init=False)
    _said_busy: bool = field(default=False, init=False)

    @property
    def name(self) -> str:
        return self.settings.collection

    @property
    def catalog(self) -> Catalog:
        """Every paper of the library (read now if it was not yet)."""
        if self._catalog is None:
            self._catalog = self.backend.load_catalog(self.name, self.store, self.notify)
            self._retriever = self._refs = None
        return self._catalog

    @property
    def fetches_as_needed(self) -> bool:
        """Whether papers are still on the server, fetched a record at a time as they are read."""
        return self._catalog is None

    @property
    def lists(self) -> dict[str, SeedList]:
        """The seed lists, by file (without reading every paper of a server library)."""
        if self._catalog is None and self.store is not None:
            return {s.file: s for s in self.store.lists()}
        return self.catalog.lists

    @property
    def mode(self) -> str:
        return "hybrid" if self.embedder is not None and self.store is not None else "lexical"

    def query_vector(self, query: str) -> Vectors:
        """The query's vector, embedded once per query (search and the relevance of its hits share it)."""
        assert self.embedder is not None
        if self._query is None or self._query[0] != query:
            self._query = (query, np.asarray(self.embedder.embed([query])[0], dtype=np.float32))
        return self._query[1]

    def retriever(self) -> HybridRetriever:
        if self._retriever is None:
            dense = None
            if self.embedder is not None and self.store is not None:
                store = self.store

                def dense(query: str, n: int) -> list[tuple[str, float]]:
                    nothing: list[tuple[str, float]] = []
                    return self._unless_being_written(lambda: store.query(self.query_vector(query), n), nothing)

            folder = self.backend.lexical_dir(self.name)
            units: UnitSource
            if self._catalog is None and self.store is not None:
                from rag.index.server_view import remote_index

                lexical, units = remote_index(self.store, folder)
            else:
                local = LocalUnits.of(self.catalog.ordered())
                lexical = load_or_build(folder, [f"{u.id}\t{u.paper.title or ''}" for u in local.units], local.texts)
                units = local
            self._retriever = HybridRetriever(
                units, dense, self.settings.dense_weight, self.settings.fusion_depth, lexical
            )
        return self._retriever

    def search(self, spec: SearchSpec) -> list[Hit]:
        """The papers ``spec`` asks for, best first, its year and list filters applied."""
        filters = Filters(spec.year_min, spec.year_max, self.resolve_lists(spec.lists))
        k = self.settings.top_k if spec.k is None else spec.k
        query = spec.query.strip()
        hits = self.retriever().search(query, k, filters)
        if not hits and filters.active and self.retriever().search(query, 1):
            raise InputError(f"no paper here matches {filters.described(spec.lists)}: drop or widen the filter")
        self._fill_relevance(query, hits)
        return hits

    def _unless_being_written(self, read: Callable[[], T], words_only: T) -> T:
        """A vector read; while another process writes the embedded store, Chroma may fail to read segments it
        has not flushed yet: the query then goes on by words (said once) instead of failing."""
        try:
            return read()
        except StoreError:
            if not self.backend.writer_busy():
                raise
            if not self._said_busy:
                self.notify("another rag process is writing this library's vectors: this query is answered by words")
                self._said_busy = True
            return words_only

    def _fill_relevance(self, query: str, hits: Sequence[Hit]) -> None:
        """Every hit gets its cosine to the query (``Hit.dense``), the one score that means the same whatever
        found it: a hit BM25 alone ranked gets its stored vector fetched (never re-embedded), so the absolute
        relevance floor (rag.writing.extractive.is_evidence) applies to it too."""
        missing = {_unit_id(h): h for h in hits if h.dense is None}
        if not missing or self.embedder is None or self.store is None:
            return
        store = self.store
        nothing: dict[str, Vectors] = {}
        stored = self._unless_being_written(lambda: store.vectors(list(missing)), nothing)
        query_vector = self.query_vector(query)
        for unit_id, vector in stored.items():
            row = np.asarray(vector, dtype=np.float32)
            norms = float(np.linalg.norm(row) * np.linalg.norm(query_vector)) or 1.0
            missing[unit_id].dense = round(float(row @ query_vector) / norms, 4)

    def add(
        self, papers: Sequence[Paper], lists: Sequence[SeedList], replace_files: Sequence[str] = ()
    ) -> UpsertReport:
        """Upsert papers: saved to the catalog first, then vectors for new text only."""
        catalog = self.catalog
        report = catalog.upsert(papers, lists, replace_files)
        self.backend.save_catalog(self.name, catalog)
        if self.store is not None and self.embedder is not None:
            gone = [*report.updated, *report.removed]
            if gone:  # an updated paper may have fewer passages now: its old units go first
                self.store.delete(gone)
        self.sync_vectors()
        if self.store is not None:
            added = [catalog.papers[i] for i in report.added]
            known = {p.citekey for p in catalog.papers.values()} - {p.citekey for p in added}
            report.warnings += self.backend.settle_new_keys(self.store, added, known)
            # Last: it marks the new version, and that the store matches the library again.
            self.store.save_lists(list(catalog.lists.values()), self.backend.sync_marks(self.name))
        self._retriever = self._refs = None
        return report

    def remove(self, ids: Sequence[str]) -> None:
        """Forget papers: from the papers file first, then their vectors."""
        if self._catalog is not None:  # a server library read as needed holds nothing here to forget
            for paper_id in ids:
                self._catalog.papers.pop(paper_id, None)
            self.backend.save_catalog(self.name, self._catalog)
        if self.store is not None:
            self.store.delete(list(ids))
            self.store.save_lists(list(self.lists.values()), self.backend.sync_marks(self.name))
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
        if self._catalog is None and self.store is not None:
            found = self.store.find_paper(ref)  # by id or citekey, without reading the library
            if found is not None:
                return found
            # A source reference is inside a list field Chroma cannot filter on: the library is read once.
        if self._refs is None:
            refs: dict[str, Paper] = {}
            for paper in self.catalog.papers.values():
                for key in (paper.id, *paper.keys, *paper.sources):
                    refs.setdefault(key, paper)
            self._refs = refs
        if ref in self._refs:
            return self._refs[ref]
        raise NotFoundError(f"no paper with id, citekey or source '{ref}'; `rag papers` lists them")

    def resolve_lists(self, names: Sequence[str]) -> frozenset[str]:
        """Seed-list files from names given by the user: file name, its prefix, or subject words."""
        known = self.lists
        chosen: set[str] = set()
        for name in names:
            wanted = name.strip().lower()
            matches = [
                s.file
                for s in known.values()
                if s.file.lower().startswith(wanted) or (len(wanted) > 3 and wanted in s.subject.lower())
            ]
            if not matches:
                listed = ", ".join(sorted(known)) or "none"
                raise InputError(f"no seed list matches '{name}' (known lists: {listed})")
            chosen.update(matches)
        return frozenset(chosen)


def _unit_id(hit: Hit) -> str:
    """The indexed unit a hit was found by: its paper, or the passage that matched."""
    return passage_id(hit.paper.id, hit.passage.n) if hit.passage is not None else hit.paper.id


def _complete_vectors(library: LibrarySession, write: bool) -> None:
    """Writers complete missing vectors; a reader only when they are few and no writer is busy
    (reads never spend surprise minutes embedding: they search what is indexed and say so)."""
    if library.fetches_as_needed:
        return  # the store's records are the papers: none can lack a vector
    missing = library.missing_units()
    if not missing:
        return
    if write:
        added = library.sync_vectors()
    elif library.backend.writer_busy():
        library.notify(
            f"another rag process is indexing this library: {missing} papers and passages are not searchable "
            "by meaning yet (found by their words meanwhile)"
        )
        return
    elif missing <= READER_SYNC_LIMIT:
        with library.backend.optional_write() as free:
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


@dataclass
class Opener:
    """Opens the configured library for one command, by what the command will do with it."""

    settings: Settings
    backend: Backend
    embedding: EmbedderChoice
    notify: Notify = silent
    progress: ProgressFn | None = None

    @contextmanager
    def reader(self) -> Iterator[LibrarySession]:
        """For commands that only read: no lock, and they never fail because a writer is busy (they see the
        last complete state). The default library is filled with the bundled corpus the first time."""
        self._prepare()
        store = self._store()
        if not self.backend.exists(self.settings.collection, store):
            self._first_use(store, held=False)
        elif self.backend.wait_for_seeding() and store is not None:
            store.forget_count()  # the seeding process stored vectors while this one waited
        library = self._session(store)
        _complete_vectors(library, write=False)
        yield library

    @contextmanager
    def writer(self, *, create: bool = False) -> Iterator[LibrarySession]:
        """For commands that change the library: they hold the write guard and complete missing vectors.
        Only a ``create`` command (ingest) makes a library that does not exist yet."""
        self._prepare()
        with self.backend.write_guard(self.settings.lock_timeout):
            store = self._store()
            if not create and not self.backend.exists(self.settings.collection, store):
                self._first_use(store, held=True)
            library = self._session(store, whole=self.backend.keeps_papers_file)
            _complete_vectors(library, write=True)
            yield library

    @contextmanager
    def rebuilder(self) -> Iterator[LibrarySession]:
        """For `rag reindex`: the write guard, a collection built with another model accepted (to be replaced),
        every paper read, and no automatic change."""
        self._prepare()
        with self.backend.write_guard(self.settings.lock_timeout):
            store = self._store(check_model=False)
            yield self._session(store, whole=True)

    def _prepare(self) -> None:
        if self.embedding.notice:
            self.notify(self.embedding.notice)
        if self.backend.needs_embedder and self.embedding.embedder is None:
            raise StoreError(
                "a Chroma server needs an embedding model to store papers; "
                "set RAG_EMBED_MODEL_DIR to a folder with its files, or RAG_EMBED_BASE_URL to an embeddings endpoint"
            )
        self.backend.prepare()

    def _store(self, check_model: bool = True) -> VectorStore | None:
        """The library's vectors. Where it may keep the build of the model that made them (RAG_EMBED_VARIANT=auto),
        the store expects that build; otherwise the configured one, and a collection of another is refused.
        A rebuild (``check_model`` False) makes them again with the configured build."""
        embedder = self.embedding.embedder
        if embedder is None:
            return None
        name = vector_collection(self.settings.collection, embedder.name)
        store = self.backend.vector_store(name, embedder.name, check_model)
        if check_model and self.embedding.builds:
            built_with = store.built_with()
            if built_with is not None and built_with in self.embedding.builds and built_with != embedder.name:
                store = self.backend.vector_store(name, built_with, check_model)
        return store

    def _session(self, store: VectorStore | None, whole: bool = False) -> LibrarySession:
        """A session; the papers are read now unless the store holds them and can give them one at a time.
        Queries and new papers are embedded by the build the store expects."""
        name = self.settings.collection
        lazy = not whole and store is not None and self.backend.in_sync(name, store)
        catalog = None if lazy else self.backend.load_catalog(name, store, self.notify)
        embedder = self.embedding.for_vectors(store.model) if store is not None else self.embedding.embedder
        return LibrarySession(self.settings, self.backend, embedder, store, self.notify, self.progress, catalog)

    def _first_use(self, store: VectorStore | None, held: bool) -> None:
        """The library does not exist: the default one is filled with the bundled corpus (under the guard, so
        another process starting at the same moment waits for it, then finds the library there); any other
        is an error naming the libraries there are."""
        name = self.settings.collection
        if name != DEFAULT_COLLECTION:
            raise self._missing_library()
        with nullcontext() if held else self.backend.first_use_guard():
            if self.backend.exists(name, store):
                return  # another process seeded it while this one waited
            library = self._session(store, whole=True)
            bundled = load_paths([seeds_dir()])
            self.notify(f"first run: indexing the bundled corpus ({len(bundled.papers)} papers) into {name}")
            with self.backend.seeding():
                library.add(list(bundled.papers.values()), bundled.lists)

    def _missing_library(self) -> NotFoundError:
        name = self.settings.collection
        names = [info.name for info in self.backend.list_libraries() if info.name != name]
        known = ", ".join(names) or "none yet"
        return NotFoundError(
            f"there is no library '{name}' (libraries: {known}); `rag --collection {name} ingest FILES` creates it"
        )
