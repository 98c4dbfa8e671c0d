"""What a long-lived process (the MCP server, a script) keeps between calls that a one-shot command would not:
embeddings of texts seen.

Extractive answers and their checks embed every sentence of the papers found; the
same abstracts come back question after question, so their vectors are kept
(measured on the bundled corpus: the ONNX runs were most of a later ``ask``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from rag.embed.types import Embedder, Vectors
from rag.records import ProgressFn

# Texts whose vectors are kept, least recently used dropped first: 384-dim float32 MiniLM vectors make
# this about 12 MB, several libraries' worth of abstract sentences.
MAX_CACHED_TEXTS = 8_192


class CachedEmbedder:
    """An Embedder that embeds each distinct text once (up to MAX_CACHED_TEXTS kept), in one batch per call."""

    def __init__(self, inner: Embedder, capacity: int = MAX_CACHED_TEXTS) -> None:
        self.inner = inner
        self.name = inner.name
        self.capacity = capacity
        self._vectors: OrderedDict[str, Vectors] = OrderedDict()

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, self.inner.embed(missing, progress), strict=True):
                self._vectors[text] = vector
        rows = []
        for text in texts:
            self._vectors.move_to_end(text)
            rows.append(self._vectors[text])
        while len(self._vectors) > self.capacity:
            self._vectors.popitem(last=False)
        if not rows:
            return self.inner.embed([], progress)
        return np.stack(rows).astype(np.float32, copy=False)
