"""Which embedder a library uses: the local MiniLM files, Chroma's download of them, an endpoint, or none.

Built from settings in one place (``choose_embedder``); with no model anywhere,
retrieval falls back to BM25 with a one-line notice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rag.config import DEFAULT_EMBED_MODEL, Settings
from rag.embed.endpoint import ENDPOINT_MODEL_PREFIX, EndpointEmbedder
from rag.embed.onnx import OnnxMiniLM, model_files_dir
from rag.embed.types import Embedder
from rag.errors import InputError

MAX_COLLECTION_NAME = 63
# A library's vectors from a model other than the default live in '<library>--<model>'.
MODEL_SUFFIX = "--"
# After a failed download, wait this long before trying again.
DOWNLOAD_RETRY_SECONDS = 600
DOWNLOAD_FAILED_MARKER = ".model-download-failed"
# Fetches the model files into Chroma's cache; None when that fails (offline).
Downloader = Callable[[], Path | None]


def chroma_cache_dir() -> Path:
    """Where Chroma's default embedding function keeps its download (read at each call: HOME may change)."""
    return Path.home() / ".cache" / "chroma" / "onnx_models" / DEFAULT_EMBED_MODEL


@dataclass
class EmbedderChoice:
    """The embedder to use, or None with the reason (shown once as a notice)."""

    embedder: Embedder | None
    notice: str | None = None


def _download_unless_failed_recently(data_dir: Path, download: Downloader) -> Path | None:
    """Try the download, but not on every command while offline (each try can take seconds)."""
    marker = data_dir / DOWNLOAD_FAILED_MARKER
    try:
        if time.time() - marker.stat().st_mtime < DOWNLOAD_RETRY_SECONDS:
            return None
    except OSError:
        pass  # no marker: never failed (or cannot tell), so try
    files = download()
    try:
        if files is None:
            data_dir.mkdir(parents=True, exist_ok=True)
            marker.touch()
        else:
            marker.unlink(missing_ok=True)
    except OSError:
        pass  # the memo is only an optimisation
    return files


def vector_collection(collection: str, embedder_name: str) -> str:
    """Chroma collection for one library and one embedding model: vectors of two models never mix."""
    if embedder_name == DEFAULT_EMBED_MODEL:
        return collection
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", embedder_name.removeprefix(ENDPOINT_MODEL_PREFIX)).strip("-_") or "model"
    return f"{collection}{MODEL_SUFFIX}{slug}"[:MAX_COLLECTION_NAME].rstrip("-_")


def choose_embedder(
    settings: Settings,
    *,
    cache_dir: Path | None = None,
    download: Downloader | None = None,
) -> EmbedderChoice:
    """The configured model, or None and a notice saying how to get it.

    ``cache_dir`` is Chroma's download folder (default: ``chroma_cache_dir()``); ``download``
    fetches the model when it is neither configured nor cached (rag.index.chroma.download_default_model);
    ``None`` never downloads and never writes (``rag doctor``).
    """
    if not settings.dense_enabled:
        return EmbedderChoice(None)
    if settings.embed_base_url:
        return EmbedderChoice(EndpointEmbedder(settings))
    if settings.embed_model != DEFAULT_EMBED_MODEL:
        raise InputError(
            f"unknown embedding model '{settings.embed_model}'; use '{DEFAULT_EMBED_MODEL}' or 'none' (RAG_EMBED_MODEL)"
        )
    if settings.embed_model_dir is not None:
        files = model_files_dir(settings.embed_model_dir)
        if files is None:
            return EmbedderChoice(
                None,
                f"no {DEFAULT_EMBED_MODEL} model files in {settings.embed_model_dir} "
                f"(RAG_EMBED_MODEL_DIR); using lexical search only",
            )
        return EmbedderChoice(OnnxMiniLM(files))
    files = model_files_dir(cache_dir or chroma_cache_dir())
    if files is None and download is not None:
        files = _download_unless_failed_recently(settings.data_dir, download)
    if files is None:
        return EmbedderChoice(
            None,
            f"embedding model {DEFAULT_EMBED_MODEL} is not cached and could not be downloaded; "
            "using lexical search only (set RAG_EMBED_MODEL_DIR to a folder with the model files)",
        )
    return EmbedderChoice(OnnxMiniLM(files))
