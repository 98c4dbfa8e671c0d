"""The library's keys ranked for a sentence being written: each paper's stored vector against the sentence's,
embedded with the library's own model (cosine), or (a library without vectors) the sentence's words found in
the paper's title and abstract. Kept warm for the server's life: a completion embeds one sentence."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rag.records import Paper
from rag.text import tokenize

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
Matrix = npt.NDArray[np.float32]
# The items a completion list holds at most: the client filters them as the user types and asks again.
MAX_ITEMS = 100


@dataclass
class Ranker:
    papers: Sequence[Paper]
    vectors: Matrix | None = None  # unit rows, in ``papers`` order
    embed: Embed | None = None

    def scores(self, sentence: str) -> npt.NDArray[np.float64]:
        if self.vectors is not None and self.embed is not None and sentence.strip():
            vector = np.asarray(self.embed([sentence])[0], dtype=np.float32)
            norm = float(np.linalg.norm(vector)) or 1.0
            return (self.vectors @ (vector / norm)).astype(np.float64)
        words = set(tokenize(sentence))
        return np.asarray(
            [len(words & set(tokenize(f"{p.title or ''} {p.text}"))) / (len(words) or 1) for p in self.papers],
            dtype=np.float64,
        )

    def rank(self, sentence: str, prefix: str = "", limit: int = MAX_ITEMS) -> list[tuple[Paper, float]]:
        """The papers whose key (or an alias) holds ``prefix`` (any case), best fit first, at most ``limit``."""
        wanted = prefix.lower()
        candidates = [j for j, p in enumerate(self.papers) if not wanted or any(wanted in k.lower() for k in p.keys)]
        if not candidates:
            return []
        scores = self.scores(sentence)
        ordered = sorted(candidates, key=lambda j: -scores[j])[:limit]
        return [(self.papers[j], float(scores[j])) for j in ordered]
