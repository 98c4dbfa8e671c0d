"""Chroma outside a collection: fetching its default embedding model, and wiping the embedded folder."""

from __future__ import annotations

from pathlib import Path

from rag.embed.choice import chroma_cache_dir
from rag.embed.onnx import model_files_dir
from rag.index.layout import DataDir


def download_default_model() -> Path | None:
    """Let Chroma fetch its default model (the one rag.embed.onnx runs) into Chroma's cache; None when that
    fails (offline)."""
    try:
        from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

        ONNXMiniLM_L6_V2()._download_model_if_not_exists()
    except Exception:  # any failure here means "not available"; the caller explains
        return None
    return model_files_dir(chroma_cache_dir())


def wipe_embedded_index(data_dir: Path) -> None:
    """Delete the embedded Chroma folder (all its collections); the caller holds the lock."""
    import shutil

    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # forget clients opened on the damaged folder
    shutil.rmtree(DataDir(data_dir).chroma, ignore_errors=True)
