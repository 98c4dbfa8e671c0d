"""Choosing and running the embedding model.

The default is the model behind Chroma's default embedding function
(all-MiniLM-L6-v2, ONNX), run here directly: inputs are sorted by length and
padded per batch instead of to 256 tokens, which gives the same vectors (mean
pooling ignores padding) several times faster.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from rag.config import DEFAULT_EMBED_MODEL, Settings
from rag.errors import InputError, ModelUnavailableError
from rag.models import ProgressFn

if TYPE_CHECKING:
    import onnxruntime

Vectors = npt.NDArray[np.float32]

MODEL_FILES = (
    "config.json",
    "model.onnx",
    "special_tokens_map.json",
    "tokenizer_config.json",
    "tokenizer.json",
    "vocab.txt",
)
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2, which Chroma keeps.
MAX_TOKENS = 256
# Small batches measured fastest on 2 cores (benchmarks/ingest_speed.py).
EMBED_BATCH_SIZE = 8
# Vectors from an endpoint are tagged "endpoint:<model>" so they never mix with local ones.
ENDPOINT_MODEL_PREFIX = "endpoint:"
ENDPOINT_BATCH_SIZE = 64
MAX_COLLECTION_NAME = 63
# After a failed download, wait this long before trying again.
DOWNLOAD_RETRY_SECONDS = 600
DOWNLOAD_FAILED_MARKER = ".model-download-failed"
CHROMA_CACHE_DIR = Path.home() / ".cache" / "chroma" / "onnx_models" / DEFAULT_EMBED_MODEL


class Embedder(Protocol):
    """Text -> unit vectors; similar text must land closer together."""

    name: str

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors: ...


def model_files_dir(folder: Path) -> Path | None:
    """The folder holding the six model files: ``folder/onnx`` (Chroma's layout) or ``folder``."""
    for candidate in (folder / "onnx", folder):
        if all((candidate / name).is_file() for name in MODEL_FILES):
            return candidate
    return None


class OnnxMiniLM:
    """all-MiniLM-L6-v2 from a folder of ONNX files, loaded on first use."""

    def __init__(self, files_dir: Path, batch_size: int = EMBED_BATCH_SIZE) -> None:
        self.name = DEFAULT_EMBED_MODEL
        self.files_dir = files_dir
        self.batch_size = batch_size
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Any = None

    def _load(self) -> tuple[onnxruntime.InferenceSession, Any]:
        if self._session is None:
            try:
                self._session, self._tokenizer = self._open()
            except Exception as exc:  # onnxruntime and tokenizers raise their own types
                raise ModelUnavailableError(
                    f"cannot load the embedding model from {self.files_dir} ({type(exc).__name__}: {exc}); "
                    "fix RAG_EMBED_MODEL_DIR, or set RAG_EMBED_MODEL=none for lexical search only"
                ) from None
        return self._session, self._tokenizer

    def _open(self) -> tuple[onnxruntime.InferenceSession, Any]:
        import onnxruntime
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.files_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = os.cpu_count() or 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = onnxruntime.InferenceSession(
            str(self.files_dir / "model.onnx"),
            sess_options=options,
            providers=["CPUExecutionProvider"],
        )
        return session, tokenizer

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        session, tokenizer = self._load()
        # Length-sorted batches keep per-batch padding short.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), 384), dtype=np.float32)
        done = 0
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            encoded = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            hidden = session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            norms[norms == 0] = 1e-12
            out[batch] = pooled / norms
            done += len(batch)
            if progress:
                progress("embedding", done, len(texts))
        return out


@dataclass
class EmbedderChoice:
    """The embedder to use, or None with the reason (shown once as a notice)."""

    embedder: Embedder | None
    notice: str | None = None


def _download_to_chroma_cache() -> Path | None:
    """Let Chroma fetch its default model into its cache; None when that fails (offline)."""
    try:
        from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

        ONNXMiniLM_L6_V2()._download_model_if_not_exists()
    except Exception:  # any failure here means "not available"; the caller explains
        return None
    return model_files_dir(CHROMA_CACHE_DIR)


def _download_unless_failed_recently(data_dir: Path) -> Path | None:
    """Try the download, but not on every command while offline (each try can take seconds)."""
    marker = data_dir / DOWNLOAD_FAILED_MARKER
    try:
        if time.time() - marker.stat().st_mtime < DOWNLOAD_RETRY_SECONDS:
            return None
    except OSError:
        pass  # no marker: never failed (or cannot tell), so try
    files = _download_to_chroma_cache()
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
    return f"{collection}--{slug}"[:MAX_COLLECTION_NAME].rstrip("-_")


def choose_embedder(settings: Settings) -> EmbedderChoice:
    """The configured model, or None and a notice saying how to get it."""
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
    files = model_files_dir(CHROMA_CACHE_DIR) or _download_unless_failed_recently(settings.data_dir)
    if files is None:
        return EmbedderChoice(
            None,
            f"embedding model {DEFAULT_EMBED_MODEL} is not cached and could not be downloaded; "
            "using lexical search only (set RAG_EMBED_MODEL_DIR to a folder with the model files)",
        )
    return EmbedderChoice(OnnxMiniLM(files))


class EndpointEmbedder:
    """Embeddings from an OpenAI-compatible ``/embeddings`` endpoint (Ollama, vLLM, OpenAI)."""

    def __init__(self, settings: Settings) -> None:
        assert settings.embed_base_url is not None
        self.settings = settings
        self.model = settings.embed_model
        self.base_url = settings.embed_base_url
        self.name = f"{ENDPOINT_MODEL_PREFIX}{self.model}"
        self._client: Any = None

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        from rag.llm import explain, retry_policy

        if self._client is None:
            import openai

            key = self.settings.embed_api_key
            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=key.get_secret_value() if key else "not-needed",
                max_retries=0,
                timeout=self.settings.llm_timeout,
            )
        vectors: list[list[float]] = []
        for start in range(0, len(texts), ENDPOINT_BATCH_SIZE):
            batch = list(texts[start : start + ENDPOINT_BATCH_SIZE])
            attempts = 0
            try:
                for attempt in retry_policy(self.settings):
                    with attempt:
                        attempts += 1
                        response = self._client.embeddings.create(model=self.model, input=batch)
            except Exception as exc:
                raise explain(exc, self.settings, attempts, self.base_url, self.model) from None
            vectors.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
            if progress:
                progress("embedding", len(vectors), len(texts))
        out = np.asarray(vectors, dtype=np.float32)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        normalized: Vectors = (out / np.where(norms == 0, 1, norms)).astype(np.float32)
        return normalized
