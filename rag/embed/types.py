"""The ``Embedder`` protocol: what retrieval, extractive answers and verification need from a model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from rag.records import ProgressFn

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Text -> unit vectors; similar text must land closer together."""

    name: str

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors: ...
