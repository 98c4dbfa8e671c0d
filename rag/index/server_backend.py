"""A library on a Chroma server (``RAG_CHROMA_URL``): the collection is the truth, shared by every client."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from rag.errors import StoreError
from rag.index.backend import SAID_FILE, Backend
from rag.index.catalog import Catalog, CatalogFile, cleaner_of
from rag.index.chroma import VectorStore, connect
from rag.index.layout import DataDir
from rag.index.server_citekeys import settle_citekeys
from rag.records import Notify, Paper, silent

if TYPE_CHECKING:
    from chromadb.api import ClientAPI


class ServerBackend(Backend):
    """A Chroma server (``RAG_CHROMA_URL``): its collections hold the papers; our data dir only caches."""

    needs_embedder = True
    keeps_papers_file = False

    def __init__(self, layout: DataDir, url: str, client: ClientAPI | None = None) -> None:
        super().__init__(layout, client)
        self.url = url

    @property
    def where(self) -> str:
        return self.url

    @property
    def repair_hint(self) -> str:
        return "start the server (chroma run --path DIR) or unset RAG_CHROMA_URL"

    def _connect(self) -> ClientAPI:
        return connect(self.layout.root, self.url)

    def prepare(self) -> None:
        return None  # nothing local is needed before connecting

    def write_guard(self, timeout: float) -> AbstractContextManager[None]:
        return nullcontext()  # the server serialises writes; citekeys are settled after writing

    def first_use_guard(self) -> AbstractContextManager[None]:
        return nullcontext()

    @contextmanager
    def _always(self) -> Iterator[bool]:
        yield True  # upserting the same vectors twice from two clients is harmless

    def optional_write(self) -> AbstractContextManager[bool]:
        return self._always()

    def load_catalog(self, library: str, store: VectorStore | None, notify: Notify = silent) -> Catalog:
        if store is None:
            raise StoreError("a Chroma server library needs its vector store")
        papers, lists, source = store.papers(), store.lists(), store
        base = self._base(library, store)
        if not papers and base is not None:
            papers, lists, source = base.papers(), base.lists(), base  # first use of another embedding model
        catalog = Catalog({p.id: p for p in papers}, {s.file: s for s in lists})
        if papers:
            catalog.cleaner = cleaner_of(source)
        return catalog

    def save_catalog(self, library: str, catalog: Catalog) -> None:
        return None  # the collection is the truth, written with the vectors

    def in_sync(self, library: str, store: VectorStore) -> bool:
        return store.count() > 0  # the records are the papers (an empty collection may be a new model's)

    def exists(self, library: str, store: VectorStore | None) -> bool:
        if store is None:
            return False
        return store.exists() or self._base(library, store) is not None

    def _base(self, library: str, store: VectorStore) -> VectorStore | None:
        """The library's collection of the default model, where a collection of another model is new."""
        if store.name == library:
            return None
        base = VectorStore(store.client, library, store.model, check_model=False)
        return base if base.exists() else None

    def lexical_dir(self, library: str) -> Path:
        return self.layout.server_lexical(self.url, library)

    def settle_new_keys(self, store: VectorStore, added: Sequence[Paper], known_keys: set[str]) -> list[str]:
        return settle_citekeys(store, added, known_keys)

    def said_file(self, library: str) -> Path:
        return self.lexical_dir(library) / SAID_FILE

    def keep_copy(self, library: str, catalog: Catalog) -> str | None:
        """The collection is the only copy of a server library: keep one locally before dropping it."""
        snapshot = CatalogFile(self.layout.snapshot(library))
        snapshot.save(catalog)
        return f"saved a copy of the {len(catalog.papers)} papers to {snapshot.path} before rebuilding"
