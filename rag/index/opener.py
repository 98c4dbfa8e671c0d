"""Opening a library by intent (``Opener.reader``, ``writer``, ``rebuilder``), each a short function over
the backend (rag.index.backend), which knows where the library lives. Readers take no lock; writers hold
the backend's write guard. The first command to use the default library fills it with the bundled corpus.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass

from rag.config import DEFAULT_COLLECTION, Settings
from rag.corpus.cleaning import CLEANER_VERSION
from rag.corpus.loader import load_paths
from rag.embed.choice import EmbedderChoice, vector_collection
from rag.errors import NotFoundError, StoreError
from rag.index.backend import Backend
from rag.index.chroma import VectorStore
from rag.index.notices import tell_once
from rag.index.session import LibrarySession
from rag.records import Notify, ProgressFn, silent
from rag.resources import seeds_dir
from rag.text import plural

# A reader embeds missing vectors itself only when they take seconds, not minutes (or when the library has none:
# it was made without the model, and only embedding it returns it to hybrid search).
READER_SYNC_LIMIT = 64


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
    elif missing <= READER_SYNC_LIMIT or _words_only(library):
        if missing > READER_SYNC_LIMIT:
            library.notify(f"the library was indexed without the embedding model: adding vectors for {missing} papers")
        with library.backend.optional_write() as free:
            added = library.sync_vectors() if free else 0
        if not free:
            _say_missing(library, missing)
    else:
        _say_missing(library, missing)
        return
    if added:
        library.notify(
            f"added vectors for {plural(added, 'paper')} that had none (an interrupted ingest, or no model then)"
        )


def _words_only(library: LibrarySession) -> bool:
    """No vector at all: the library was made while the model could not be found (not an interrupted ingest,
    which a reader leaves to `rag ingest`). The first command that finds the model embeds it, as the README says."""
    return library.store is not None and library.store.count() == 0


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
        self._tell_if_cleaned_by_an_older_rag(library)
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
            self._tell_if_cleaned_by_an_older_rag(library)
            yield library

    @contextmanager
    def rebuilder(self) -> Iterator[LibrarySession]:
        """For `rag reindex`: the write guard, a collection built with another model accepted (to be replaced),
        every paper read, and no automatic change."""
        self._prepare()
        with self.backend.write_guard(self.settings.lock_timeout):
            store = self._store(check_model=False)
            yield self._session(store, whole=True)

    def _tell_if_cleaned_by_an_older_rag(self, library: LibrarySession) -> None:
        """Once per library: its text predates today's cleaning, and `rag reindex` cleans it."""
        cleaner = library.cleaner()
        if cleaner is None or cleaner >= CLEANER_VERSION:
            return
        message = (
            f"library '{library.name}' was saved by an older rag, before its text was cleaned of PDF and export "
            "debris (ligatures, words broken at line ends, line numbers, copyright notices, glued headings): "
            "`rag reindex` cleans it (said once)"
        )
        tell_once(self.backend.said_file(library.name), f"cleaner-{CLEANER_VERSION}", message, self.notify)

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
