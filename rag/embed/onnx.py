"""all-MiniLM-L6-v2 (the model behind Chroma's default embedding function), run directly with onnxruntime.

Inputs are sorted by length and padded per batch instead of to 256 tokens,
which gives the same vectors (mean pooling ignores padding) several times faster.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from rag.config import DEFAULT_EMBED_MODEL
from rag.embed.lanes import Lanes, lane_count
from rag.embed.types import Vectors
from rag.errors import ModelUnavailableError
from rag.records import ProgressFn

if TYPE_CHECKING:
    import onnxruntime

TokenIds = npt.NDArray[np.int64]

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
VECTOR_SIZE = 384
# Many texts are embedded by one-thread sessions side by side (rag.embed.lanes): on 2 cores two such sessions
# embed an abstract in 8.8 ms where one session on both cores takes 11.2 (int8, one text a batch; the vectors
# are identical). A query, or a few texts, still runs on one session with every core: making the one-thread
# sessions (0.12 s each int8, 0.19 s fp32) pays from about a hundred texts.
LANES_FROM_TEXTS = 128


def model_files_dir(folder: Path) -> Path | None:
    """The folder holding the six model files: ``folder/onnx`` (Chroma's layout) or ``folder``."""
    for candidate in (folder / "onnx", folder):
        if all((candidate / name).is_file() for name in MODEL_FILES):
            return candidate
    return None


class OnnxMiniLM:
    """all-MiniLM-L6-v2 from a folder of ONNX files, loaded on first use."""

    def __init__(
        self,
        files_dir: Path,
        batch_size: int = EMBED_BATCH_SIZE,
        *,
        model_file: Callable[[], Path] | None = None,
        name: str = DEFAULT_EMBED_MODEL,
        max_tokens: int = MAX_TOKENS,
    ) -> None:
        """``model_file`` gives another ONNX file of the same model (rag.embed.builds: made on first use),
        whose vectors are tagged ``name``; the tokenizer always comes from ``files_dir``."""
        self.name = name
        self.files_dir = files_dir
        self.model_file = model_file or (lambda: files_dir / "model.onnx")
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Any = None
        self._bulk: Lanes | None = None
        self._lanes_made = threading.Lock()

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
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        session = onnxruntime.InferenceSession(
            str(self.model_file()), sess_options=self.session_options(), providers=["CPUExecutionProvider"]
        )
        return session, tokenizer

    def session_options(self) -> onnxruntime.SessionOptions:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = os.cpu_count() or 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        return options

    def _lanes(self) -> Lanes | None:
        """One-thread sessions, one per core, made on first bulk use (the main session stays for queries)."""
        count = lane_count()
        with self._lanes_made:
            if self._bulk is None and count > 1:
                self._bulk = Lanes.open(self.model_file(), self.session_options(), count)
        return self._bulk

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        session, tokenizer = self._load()
        # Length-sorted batches keep per-batch padding short.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        out = np.zeros((len(texts), VECTOR_SIZE), dtype=np.float32)

        def run(on: onnxruntime.InferenceSession, batch: list[int]) -> Vectors:
            encoded = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            return self.run_batch(on, ids, mask)

        lanes = self._lanes() if len(texts) >= LANES_FROM_TEXTS else None
        embedded = lanes.map(run, batches) if lanes is not None else (run(session, batch) for batch in batches)
        done = 0
        for batch, vectors in zip(batches, embedded, strict=True):
            out[batch] = vectors
            done += len(batch)
            if progress:
                progress("embedding", done, len(texts))
        return out

    def run_batch(self, session: onnxruntime.InferenceSession, ids: TokenIds, mask: TokenIds) -> Vectors:
        """Unit vectors of one padded batch: the model's token states, mean-pooled over real tokens."""
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        norms[norms == 0] = 1e-12
        unit: Vectors = (pooled / norms).astype(np.float32)
        return unit
