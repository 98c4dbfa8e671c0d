"""The index: the papers file (catalog), Chroma (vectors), BM25, hybrid retrieval, the write
lock, server mode, and the per-command session that ties them together.

May import: rag.records, rag.errors, rag.config, rag.text, rag.resources, rag.corpus, rag.embed.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "EmbeddedBackend": "rag.index.backend",
    "FINGERPRINT_FILE": "rag.index.bm25",
    "LexicalIndex": "rag.index.bm25",
    "MIN_CACHED_DOCUMENTS": "rag.index.bm25",
    "load_or_build": "rag.index.bm25",
    "CLEANER_MARK": "rag.index.catalog",
    "Catalog": "rag.index.catalog",
    "cleaner_of": "rag.index.catalog",
    "EMBED_MODEL_KEY": "rag.index.chroma",
    "VectorStore": "rag.index.chroma",
    "connect": "rag.index.chroma",
    "History": "rag.index.history",
    "HybridRetriever": "rag.index.hybrid",
    "LocalUnits": "rag.index.hybrid",
    "CATALOG_FILE": "rag.index.layout",
    "CHROMA_SUBDIR": "rag.index.layout",
    "DataDir": "rag.index.layout",
    "LLM_CACHE_DIR": "rag.index.layout",
    "data_dir_lock": "rag.index.lock",
    "READER_SYNC_LIMIT": "rag.index.opener",
    "ServerBackend": "rag.index.server_backend",
    "SYNC_CHUNK": "rag.index.session",
    "split_unit_id": "rag.index.units",
    "units_of": "rag.index.units",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
