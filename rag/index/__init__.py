"""The index: the papers file (catalog), Chroma (vectors), BM25, hybrid retrieval, the write
lock, server mode, and the per-command session that ties them together.

May import: rag.records, rag.errors, rag.config, rag.text, rag.resources, rag.corpus, rag.embed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.index.backend import Backend as Backend
    from rag.index.backend import EmbeddedBackend as EmbeddedBackend
    from rag.index.bm25 import FINGERPRINT_FILE as FINGERPRINT_FILE
    from rag.index.bm25 import MIN_CACHED_DOCUMENTS as MIN_CACHED_DOCUMENTS
    from rag.index.bm25 import LexicalIndex as LexicalIndex
    from rag.index.bm25 import load_or_build as load_or_build
    from rag.index.catalog import CLEANER_MARK as CLEANER_MARK
    from rag.index.catalog import Catalog as Catalog
    from rag.index.catalog import CatalogFile as CatalogFile
    from rag.index.catalog import cleaner_of as cleaner_of
    from rag.index.chroma import EMBED_MODEL_KEY as EMBED_MODEL_KEY
    from rag.index.chroma import VectorStore as VectorStore
    from rag.index.chroma import connect as connect
    from rag.index.chroma_setup import download_default_model as download_default_model
    from rag.index.history import History as History
    from rag.index.hybrid import HybridRetriever as HybridRetriever
    from rag.index.hybrid import LocalUnits as LocalUnits
    from rag.index.layout import CATALOG_FILE as CATALOG_FILE
    from rag.index.layout import CHROMA_SUBDIR as CHROMA_SUBDIR
    from rag.index.layout import LLM_CACHE_DIR as LLM_CACHE_DIR
    from rag.index.layout import DataDir as DataDir
    from rag.index.lock import data_dir_lock as data_dir_lock
    from rag.index.lock import is_locked as is_locked
    from rag.index.opener import READER_SYNC_LIMIT as READER_SYNC_LIMIT
    from rag.index.opener import Opener as Opener
    from rag.index.paper_scores import score_sentences as score_sentences
    from rag.index.server_backend import ServerBackend as ServerBackend
    from rag.index.session import SYNC_CHUNK as SYNC_CHUNK
    from rag.index.session import LibrarySession as LibrarySession
    from rag.index.storage import backend_for as backend_for
    from rag.index.units import all_units as all_units
    from rag.index.units import split_unit_id as split_unit_id
    from rag.index.units import unit_count as unit_count
    from rag.index.units import units_of as units_of

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
