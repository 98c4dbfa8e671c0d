"""Where a library lives: an embedded Chroma folder beside our papers files, or a Chroma server.

The variant is one class, chosen once (``rag.index.storage.backend_for``) the way httpx picks a
transport; the session and the services ask it, never ``settings.chroma_url``.
What differs between the two:

- the truth: our papers file (embedded; Chroma can always be rebuilt from it) or
  the server's collection itself (shared by every client);
- writers: the data dir's file lock (embedded Chroma is single-process) or none
  (the server serialises writes; concurrent citekeys are settled after writing);
- what a long-lived reader must notice: another process writing the embedded
  folder (Chroma keeps its vector index in memory), nothing on a server.
"""

from __future__ import annotations

import shutil
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreBusyError, StoreError
from rag.index.catalog import Catalog, CatalogFile
from rag.index.chroma import EMBED_MODEL_KEY, VectorStore, chroma_errors, connect
from rag.index.chroma_files import FileStamp, file_stamp, read_collections
from rag.index.chroma_setup import wipe_embedded_index
from rag.index.layout import DataDir
from rag.index.lock import data_dir_lock, ensure_data_dir, is_locked, lock_if_free
from rag.records import LibraryInfo, Notify, Paper, silent

if TYPE_CHECKING:
    from chromadb.api import ClientAPI

# The papers file's size and mtime when the store last matched it (rag.index.backend.EmbeddedBackend.in_sync).
CATALOG_STAMP_KEY = "rag_papers_file"
# Which one-time notices a library's user has been given (rag.index.notices).
SAID_FILE = ".said"
# The first run indexes the bundled corpus under the lock; a second process starting at once waits this long.
FIRST_USE_LOCK_TIMEOUT = 120.0
# Seconds a process keeps trying to open an embedded store that another one is creating, and between tries.
CONNECT_RETRY_SECONDS = 10.0
CONNECT_RETRY_PAUSE = 0.2


class Backend(ABC):
    """One data dir's or one server's libraries: their Chroma client, papers, locks and caches."""

    # The store's records are the only copy of the papers (a server): it cannot work without an embedder.
    needs_embedder: bool = False
    # Our papers file is the truth, so a writer reads it whole (a server library is written a record at a time).
    keeps_papers_file: bool = True

    def __init__(self, layout: DataDir, client: ClientAPI | None = None) -> None:
        self.layout = layout
        self._client = client

    @property
    @abstractmethod
    def where(self) -> str:
        """The store, as the user would name it (a folder or a URL)."""

    @property
    @abstractmethod
    def repair_hint(self) -> str:
        """What to do when the store cannot be opened."""

    def client(self) -> ClientAPI:
        if self._client is None:
            self._client = self._connect()
        return self._client

    @abstractmethod
    def _connect(self) -> ClientAPI: ...

    def vector_store(self, collection: str, model: str, check_model: bool = True) -> VectorStore:
        return VectorStore(self.client(), collection, model, check_model=check_model)

    @abstractmethod
    def prepare(self) -> None:
        """Make what a command needs before it opens anything (the data dir, in embedded mode)."""

    @abstractmethod
    def write_guard(self, timeout: float) -> AbstractContextManager[None]:
        """Held by a command that changes a library, for as long as it does."""

    @abstractmethod
    def first_use_guard(self) -> AbstractContextManager[None]:
        """Held while the default library is filled with the bundled corpus (others starting at once wait)."""

    @abstractmethod
    def optional_write(self) -> AbstractContextManager[bool]:
        """For writes a reader may do when nobody else is writing: True inside if it may."""

    @abstractmethod
    def load_catalog(self, library: str, store: VectorStore | None, notify: Notify = silent) -> Catalog:
        """Every paper of ``library``, from where the truth is kept."""

    @abstractmethod
    def save_catalog(self, library: str, catalog: Catalog) -> None:
        """Keep the papers where the truth is kept, before their vectors are written (a no-op where the
        store itself holds the papers)."""

    @abstractmethod
    def exists(self, library: str, store: VectorStore | None) -> bool: ...

    def peek_catalog(self, library: str) -> Catalog | None:
        """Our papers file as saved, read without restoring anything; None where the store holds the papers."""
        return None

    @abstractmethod
    def lexical_dir(self, library: str) -> Path:
        """Where the library's BM25 index is saved between commands."""

    @abstractmethod
    def said_file(self, library: str) -> Path:
        """Where the one-time notices given about ``library`` are noted (on this machine)."""

    @abstractmethod
    def in_sync(self, library: str, store: VectorStore) -> bool:
        """Whether the store holds exactly the library's papers, so a query may read them a record at a time
        (papers, BM25 and vectors from the store) instead of loading every paper first."""

    def sync_marks(self, library: str) -> dict[str, str]:
        """What a writer notes in the store once the store matches the library again (see ``in_sync``)."""
        return {}

    def settle_new_keys(self, store: VectorStore, added: Sequence[Paper], known_keys: set[str]) -> list[str]:
        """After writing ``added``: warnings for keys another writer gave at the same moment (none by default)."""
        return []

    @abstractmethod
    def keep_copy(self, library: str, catalog: Catalog) -> str | None:
        """Save the papers before a rebuild drops the vectors; a notice when the copy is news to the user."""

    def wipe_damaged_index(self, library: str) -> bool:
        """Delete an index too damaged to open when the papers themselves are safe elsewhere; False if not."""
        return False

    def refresh(self, library: str) -> None:
        """Forget in-process copies of the store that another process may have made stale (long-lived readers)."""
        return None

    def writer_busy(self) -> bool:
        """Whether another process is writing right now (as far as this backend can tell)."""
        return False

    @contextmanager
    def seeding(self) -> Iterator[None]:
        """Held while the bundled corpus fills the default library, so that readers can wait for it."""
        yield

    def wait_for_seeding(self) -> bool:
        """When another process is filling the default library on first use, wait for it (bounded):
        True once it is done. False when nobody is seeding."""
        return False

    @property
    def has_index(self) -> bool:
        """Whether a vector store is there to ask (without creating one)."""
        return True

    def list_libraries(self) -> list[LibraryInfo]:
        """By name: papers in each papers file, vectors and embedding model of each Chroma collection."""
        return _libraries(self._saved_counts(), self._collections())

    def inspect(self) -> list[LibraryInfo]:
        """``list_libraries`` without writing anything (``rag doctor``)."""
        return self.list_libraries()

    def delete_libraries(self, names: Sequence[str]) -> None:
        """Remove these libraries whole: their collections (of every model) and their files. Caller holds the guard."""
        if self.has_index:
            with chroma_errors("delete a collection"):
                existing = {c.name for c in self.client().list_collections()}
                for name in names:
                    if name in existing:
                        self.client().delete_collection(name)
        for name in names:
            self._delete_files(name)

    def _collections(self) -> dict[str, tuple[int, str | None]]:
        """Each Chroma collection's vectors and embedding model, by name."""
        if not self.has_index:
            return {}
        with chroma_errors("list collections"):
            found = {}
            for collection in self.client().list_collections():
                model = (collection.metadata or {}).get(EMBED_MODEL_KEY)
                found[collection.name] = (collection.count(), str(model) if model else None)
            return found

    def _saved_counts(self) -> dict[str, int | None]:
        """Papers in each of our papers files, by library (None: unreadable); none where the store holds them."""
        return {}

    def _delete_files(self, name: str) -> None:
        return None


class EmbeddedBackend(Backend):
    """Chroma's embedded store in ``DATA_DIR/chroma``; our papers files are the truth."""

    def __init__(self, layout: DataDir, client: ClientAPI | None = None) -> None:
        super().__init__(layout, client)
        # The library a long-lived reader watches, and how its files looked when the client was made.
        self._watching: str | None = None
        self._stamp: tuple[FileStamp, ...] = ()

    @property
    def where(self) -> str:
        return str(self.layout.chroma)

    @property
    def repair_hint(self) -> str:
        return "run `rag reindex` to rebuild it from the saved papers"

    def _connect(self) -> ClientAPI:
        client = self._connect_while_created()
        self._stamp = self._stamp_of(self._watching)  # after connecting: opening the store writes its database
        return client

    def _connect_while_created(self) -> ClientAPI:
        """Open the store; while another process is creating it or writing to it (several first runs at once),
        opening can fail for a moment: try again, for a bounded time, rather than call the index damaged."""
        new = not self.layout.chroma_db.exists()
        deadline = time.monotonic() + CONNECT_RETRY_SECONDS
        while True:
            try:
                return connect(self.layout.root, None)
            except StoreError:
                if time.monotonic() > deadline or not (new or self.writer_busy()):
                    raise
                time.sleep(CONNECT_RETRY_PAUSE)

    def prepare(self) -> None:
        ensure_data_dir(self.layout.root)

    def write_guard(self, timeout: float) -> AbstractContextManager[None]:
        return data_dir_lock(self.layout.root, timeout)

    def first_use_guard(self) -> AbstractContextManager[None]:
        return data_dir_lock(self.layout.root, FIRST_USE_LOCK_TIMEOUT)

    def optional_write(self) -> AbstractContextManager[bool]:
        return lock_if_free(self.layout.root)

    def writer_busy(self) -> bool:
        return is_locked(self.layout.lock)

    @contextmanager
    def seeding(self) -> Iterator[None]:
        marker = self.layout.seeding
        marker.touch()
        try:
            yield
        finally:
            marker.unlink(missing_ok=True)

    def wait_for_seeding(self) -> bool:
        if not (self.layout.seeding.exists() and self.writer_busy()):
            return False  # a marker left by a killed process has no lock holder: nothing to wait for
        try:
            with self.first_use_guard():
                return True
        except StoreBusyError:
            return False  # still not done: read what is there, and say so

    def catalog_file(self, library: str) -> CatalogFile:
        return CatalogFile(self.layout.catalog(library))

    def in_sync(self, library: str, store: VectorStore) -> bool:
        """The store was last written when the papers file was what it is now (its size and time noted then)."""
        stamp = self._papers_file_stamp(library)
        return stamp is not None and store.count() > 0 and store.mark(CATALOG_STAMP_KEY) == stamp

    def sync_marks(self, library: str) -> dict[str, str]:
        stamp = self._papers_file_stamp(library)
        return {CATALOG_STAMP_KEY: stamp} if stamp is not None else {}

    def _papers_file_stamp(self, library: str) -> str | None:
        found = file_stamp(self.layout.catalog(library))
        return None if found is None else f"{found[2]}:{found[1]}"  # size and mtime: any save changes them

    def load_catalog(self, library: str, store: VectorStore | None, notify: Notify = silent) -> Catalog:
        catalog_file = self.catalog_file(library)
        catalog = catalog_file.load()
        if catalog_file.recovery_notice:
            notify(catalog_file.recovery_notice)
        return catalog

    def save_catalog(self, library: str, catalog: Catalog) -> None:
        self.catalog_file(library).save(catalog)

    def exists(self, library: str, store: VectorStore | None) -> bool:
        return self.layout.catalog(library).exists()

    def peek_catalog(self, library: str) -> Catalog:
        return self.catalog_file(library).peek()

    def lexical_dir(self, library: str) -> Path:
        return self.layout.lexical(library)

    def said_file(self, library: str) -> Path:
        return self.layout.library(library) / SAID_FILE

    def keep_copy(self, library: str, catalog: Catalog) -> str | None:
        self.save_catalog(library, catalog)  # the papers file is the copy; saved afresh, its backup kept
        return None

    def wipe_damaged_index(self, library: str) -> bool:
        if not self.exists(library, None):
            return False
        self._client = None
        wipe_embedded_index(self.layout.root)
        return True

    def refresh(self, library: str) -> None:
        """Embedded Chroma keeps each folder's vector index in memory for the life of the process: after another
        rag process adds or removes papers this one would go on searching the old vectors (measured: a paper
        added by `rag ingest` stayed invisible to dense search). Dropping the client makes the next call load the
        store afresh. It is never ``close()``d: stopping it writes its stale index over the newer one on disk
        (measured: the added paper's vector was lost for every process until `rag reindex`)."""
        self._watching = library
        if self._client is not None and self._stamp_of(library) != self._stamp:
            from chromadb.api.shared_system_client import SharedSystemClient

            SharedSystemClient.clear_system_cache()
            self._client = None

    def _stamp_of(self, library: str | None) -> tuple[FileStamp, ...]:
        """What changes when any rag process writes ``library``: its papers file and Chroma's database."""
        papers = (self.layout.catalog(library),) if library else ()
        return tuple(file_stamp(path) for path in (*papers, self.layout.chroma_db, self.layout.chroma_wal))

    @property
    def has_index(self) -> bool:
        return self._client is not None or self.layout.chroma.exists()

    def inspect(self) -> list[LibraryInfo]:
        return _libraries(self._saved_counts(), read_collections(self.layout.chroma_db))

    def _saved_counts(self) -> dict[str, int | None]:
        counts: dict[str, int | None] = {}
        for name in self.layout.library_names():
            try:
                counts[name] = len(self.peek_catalog(name).papers)
            except StoreError:
                counts[name] = None  # damaged: doctor says so; the next writer restores the backup
        return counts

    def _delete_files(self, name: str) -> None:
        shutil.rmtree(self.layout.library(name), ignore_errors=True)


def _libraries(saved: dict[str, int | None], collections: dict[str, tuple[int, str | None]]) -> list[LibraryInfo]:
    found = {name: LibraryInfo(name, count, None, None) for name, count in saved.items()}
    for name, (vectors, model) in collections.items():
        info = found.setdefault(name, LibraryInfo(name, None, None, None))
        info.vectors, info.model = vectors, model
    return sorted(found.values(), key=lambda info: info.name)
