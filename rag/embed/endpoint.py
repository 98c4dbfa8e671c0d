"""Embeddings from an OpenAI-compatible ``/embeddings`` endpoint (Ollama, vLLM, OpenAI), shared retry policy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rag.config import Settings
from rag.embed.types import Vectors
from rag.endpoints import PLACEHOLDER_KEY, explain, retry_policy
from rag.records import ProgressFn

# Vectors from an endpoint are tagged "endpoint:<model>" so they never mix with local ones.
ENDPOINT_MODEL_PREFIX = "endpoint:"
ENDPOINT_BATCH_SIZE = 64


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
        if self._client is None:
            import openai

            key = self.settings.embed_api_key
            self._client = openai.OpenAI(
                base_url=self.base_url,
                api_key=key.get_secret_value() if key else PLACEHOLDER_KEY,
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
