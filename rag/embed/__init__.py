"""Embedding models: the ``Embedder`` protocol, all-MiniLM-L6-v2 on onnxruntime, an
OpenAI-compatible endpoint, and the choice between them made from settings.

May import: rag.records, rag.errors, rag.config, rag.endpoints (the one retry policy for model endpoints).
Never rag.llm: embeddings and chat models are independent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.embed.builds import NEW_LIBRARY_VARIANT as NEW_LIBRARY_VARIANT
    from rag.embed.builds import build_name as build_name
    from rag.embed.builds import int8_cache_dir as int8_cache_dir
    from rag.embed.builds import int8_model as int8_model
    from rag.embed.builds import variant_of as variant_of
    from rag.embed.cached import CachedEmbedder as CachedEmbedder
    from rag.embed.choice import MODEL_SUFFIX as MODEL_SUFFIX
    from rag.embed.choice import EmbedderChoice as EmbedderChoice
    from rag.embed.choice import choose_embedder as choose_embedder
    from rag.embed.choice import chroma_cache_dir as chroma_cache_dir
    from rag.embed.choice import vector_collection as vector_collection
    from rag.embed.disk_cache import DiskCachedEmbedder as DiskCachedEmbedder
    from rag.embed.endpoint import ENDPOINT_MODEL_PREFIX as ENDPOINT_MODEL_PREFIX
    from rag.embed.onnx import EMBED_BATCH_SIZE as EMBED_BATCH_SIZE
    from rag.embed.onnx import MAX_TOKENS as MAX_TOKENS
    from rag.embed.onnx import MODEL_FILES as MODEL_FILES
    from rag.embed.onnx import OnnxMiniLM as OnnxMiniLM
    from rag.embed.onnx import model_files_dir as model_files_dir
    from rag.embed.types import Embedder as Embedder
    from rag.embed.types import Vectors as Vectors

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
