"""Which embedder a library uses: the local MiniLM files, Chroma's download of them, an endpoint, or none.

Built from settings in one place (``choose_embedder``); with no model anywhere,
retrieval falls back to BM25 with a one-line notice.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rag.config import DEFAULT_EMBED_MODEL, EmbedVariant, Settings
from rag.embed.builds import (
    INT8_BATCH_SIZE,
    INT8_MAX_TOKENS,
    NEW_LIBRARY_VARIANT,
    build_name,
    int8_model,
    is_local_build,
)
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
    # The local model's builds by the name that tags their vectors, when a library keeps the build that made
    # its vectors (RAG_EMBED_VARIANT=auto); empty: every library uses ``embedder``.
    builds: Mapping[str, Embedder] = field(default_factory=dict)

    def for_vectors(self, built_with: str | None) -> Embedder | None:
        """The embedder for a library whose vectors are tagged ``built_with`` (None: a new library)."""
        return self.builds.get(built_with or "", self.embedder)

    def wrapped(self, wrap: Callable[[Embedder], Embedder]) -> EmbedderChoice:
        """The same choice with each embedder wrapped (rag.embed.cached)."""
        if self.embedder is None:
            return self
        builds = {name: wrap(embedder) for name, embedder in self.builds.items()}
        chosen = builds.get(self.embedder.name) or wrap(self.embedder)
        return EmbedderChoice(chosen, self.notice, builds)


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
    """Chroma collection for one library and one embedding model: vectors of two models never mix. The local
    model's builds share one collection, which records the build of its vectors (a mix is refused there)."""
    if is_local_build(embedder_name):
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
    fetches the model when it is neither configured nor cached (rag.index.chroma_setup.download_default_model);
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
        return _local_builds(settings, files)
    files = model_files_dir(cache_dir or chroma_cache_dir())
    if files is None and download is not None:
        files = _download_unless_failed_recently(settings.data_dir, download)
    if files is None:
        return EmbedderChoice(
            None,
            f"embedding model {DEFAULT_EMBED_MODEL} is not cached and could not be downloaded; "
            "using lexical search only (set RAG_EMBED_MODEL_DIR to a folder with the model files)",
        )
    return _local_builds(settings, files)


def _local_builds(settings: Settings, files: Path) -> EmbedderChoice:
    """The configured build of the local model; with ``auto``, both, so each library can keep its own."""
    builds: dict[EmbedVariant, Embedder] = {
        EmbedVariant.FP32: OnnxMiniLM(files),
        EmbedVariant.INT8: OnnxMiniLM(
            files,
            INT8_BATCH_SIZE,
            model_file=lambda: int8_model(files / "model.onnx"),
            name=build_name(EmbedVariant.INT8),
            max_tokens=INT8_MAX_TOKENS,
        ),
    }
    if settings.embed_variant is EmbedVariant.AUTO:
        return EmbedderChoice(builds[NEW_LIBRARY_VARIANT], builds={e.name: e for e in builds.values()})
    return EmbedderChoice(builds[settings.embed_variant])
