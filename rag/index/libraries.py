"""Every library in a data dir or on a server: our papers files (embedded mode) and Chroma's collections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.config import Settings
from rag.index.catalog import CATALOG_FILE, CatalogFile
from rag.index.chroma import CHROMA_SUBDIR, EMBED_MODEL_KEY, chroma_errors, connect
from rag.records import LibraryInfo

if TYPE_CHECKING:
    from chromadb.api import ClientAPI


# A library's vectors from another embedding model live in '<library>--<model>' (rag.embed.choice).
MODEL_SUFFIX = "--"


def delete_collections(settings: Settings, names: list[str], client: ClientAPI | None = None) -> None:
    """Remove these libraries: their Chroma collections and (embedded mode) their folders. The caller holds the lock."""
    import shutil

    if settings.chroma_url or (settings.data_dir / CHROMA_SUBDIR).exists():
        with chroma_errors("delete a collection"):
            client = client or connect(settings.data_dir, settings.chroma_url)
            existing = {c.name for c in client.list_collections()}
            for name in names:
                if name in existing:
                    client.delete_collection(name)
    if not settings.chroma_url:
        for name in names:
            shutil.rmtree(settings.data_dir / name, ignore_errors=True)


def list_libraries(settings: Settings, client: ClientAPI | None = None) -> list[LibraryInfo]:
    """By name: papers in each papers file, vectors and embedding model of each Chroma collection."""
    found: dict[str, LibraryInfo] = {}
    if not settings.chroma_url:
        for path in sorted(settings.data_dir.glob(f"*/{CATALOG_FILE}")):
            count = len(CatalogFile(path).load().papers)
            found[path.parent.name] = LibraryInfo(path.parent.name, count, None, None)
    if client is not None or settings.chroma_url or (settings.data_dir / CHROMA_SUBDIR).exists():
        with chroma_errors("list collections"):
            client = client or connect(settings.data_dir, settings.chroma_url)
            for collection in client.list_collections():
                model = (collection.metadata or {}).get(EMBED_MODEL_KEY)
                info = found.setdefault(collection.name, LibraryInfo(collection.name, None, None, None))
                info.vectors, info.model = collection.count(), str(model) if model else None
    return sorted(found.values(), key=lambda c: c.name)
