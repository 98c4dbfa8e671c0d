"""Embedding models: the ``Embedder`` protocol, all-MiniLM-L6-v2 on onnxruntime, an
OpenAI-compatible endpoint, and the choice between them made from settings.

May import: rag.records, rag.errors, rag.config, rag.endpoints (the one retry policy for model endpoints).
Never rag.llm: embeddings and chat models are independent.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "NEW_LIBRARY_VARIANT": "rag.embed.builds",
    "build_name": "rag.embed.builds",
    "int8_cache_dir": "rag.embed.builds",
    "int8_model": "rag.embed.builds",
    "EmbedderChoice": "rag.embed.choice",
    "choose_embedder": "rag.embed.choice",
    "chroma_cache_dir": "rag.embed.choice",
    "DiskCachedEmbedder": "rag.embed.disk_cache",
    "MODEL_FILES": "rag.embed.onnx",
    "OnnxMiniLM": "rag.embed.onnx",
    "model_files_dir": "rag.embed.onnx",
    "Vectors": "rag.embed.types",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
