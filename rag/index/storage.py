"""The one place the settings choose where libraries live (see rag.index.backend)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.config import Settings
from rag.index.backend import Backend, EmbeddedBackend
from rag.index.layout import DataDir
from rag.index.server_backend import ServerBackend

if TYPE_CHECKING:
    from chromadb.api import ClientAPI


def backend_for(settings: Settings, client: ClientAPI | None = None) -> Backend:
    """The backend the settings name: a Chroma server when RAG_CHROMA_URL is set, else the data dir."""
    layout = DataDir(settings.data_dir)
    if settings.chroma_url:
        return ServerBackend(layout, settings.chroma_url, client)
    return EmbeddedBackend(layout, client)
