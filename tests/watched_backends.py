"""Storage backends for tests, given to a Context as any backend is (its ``backend`` seam): the real store,
watched or made to fail where a test needs it, never a method patched on the class."""

from __future__ import annotations

from typing import Any

from rag.config import Settings
from rag.errors import StoreError
from rag.index import Catalog, DataDir, EmbeddedBackend, ServerBackend, VectorStore

UNFLUSHED = "Chroma failed to search (InternalError: Nothing found on disk)"


class CountingStore(VectorStore):
    """Counts the reads of a whole library (``papers``) in ``full_reads``."""

    def __init__(self, *args: Any, full_reads: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_reads = full_reads

    def papers(self) -> list[Any]:
        self.full_reads.append(1)
        return super().papers()


class CountingServer(ServerBackend):
    """The Chroma server the settings name, counting every whole-library read of every command given it."""

    def __init__(self, settings: Settings) -> None:
        assert settings.chroma_url
        super().__init__(DataDir(settings.data_dir), settings.chroma_url)
        self.full_reads: list[int] = []

    def vector_store(self, collection: str, model: str, check_model: bool = True) -> VectorStore:
        return CountingStore(self.client(), collection, model, check_model=check_model, full_reads=self.full_reads)


class NoWholeRead(EmbeddedBackend):
    """The data dir, refusing to read a library's papers file whole."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(DataDir(settings.data_dir))

    def load_catalog(self, *_: Any, **__: Any) -> Catalog:
        raise AssertionError("the papers file was read whole")


class UnflushedStore(VectorStore):
    """Vectors another process has not flushed yet: Chroma finds nothing on disk."""

    def query(self, *_: Any, **__: Any) -> list[tuple[str, float]]:
        raise StoreError(UNFLUSHED)

    def vectors(self, *_: Any, **__: Any) -> dict[str, Any]:
        raise StoreError(UNFLUSHED)


class Unflushed(EmbeddedBackend):
    """The data dir while another process writes its vectors (``busy``: it holds the write lock)."""

    def __init__(self, settings: Settings, busy: bool) -> None:
        super().__init__(DataDir(settings.data_dir))
        self.busy = busy

    def vector_store(self, collection: str, model: str, check_model: bool = True) -> VectorStore:
        return UnflushedStore(self.client(), collection, model, check_model=check_model)

    def writer_busy(self) -> bool:
        return self.busy
