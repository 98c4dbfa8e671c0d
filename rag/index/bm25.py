"""BM25 over titles and abstracts (bm25s), with stemming and stop words.

Chroma's embedded mode has no sparse index, so the lexical half of hybrid
retrieval lives here, rebuilt from the catalog (it takes milliseconds for the
bundled corpus and well under a second for thousands of abstracts).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rag.text import TOKENIZER_VERSION, tokenize

# Lucene's defaults; SciFact and the seed questions were measured with these.
BM25_K1 = 1.2
BM25_B = 0.75
FINGERPRINT_FILE = "fingerprint.txt"
IDS_FILE = "ids.json"
# Below this many documents building is faster than reading files back.
MIN_CACHED_DOCUMENTS = 500


class LexicalIndex:
    """BM25 scores over a fixed list of documents, in list order."""

    def __init__(self, bm25: Any, size: int) -> None:
        self._bm25 = bm25
        self.size = size

    @classmethod
    def build(cls, texts: Sequence[str]) -> LexicalIndex:
        import bm25s

        bm25 = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        if not texts:
            return cls(None, 0)  # bm25s cannot index nothing; an empty library scores nothing
        corpus = [tokenize(t) or ["\u2205"] for t in texts]  # bm25s rejects empty documents
        bm25.index(corpus, show_progress=False)
        return cls(bm25, len(texts))

    def holding(self, term: str) -> npt.NDArray[np.intp]:
        """The documents (index positions) whose words include ``term``, a word as ``tokenize`` makes it."""
        column = self._bm25.vocab_dict.get(term) if self.size else None
        if column is None:
            return np.zeros(0, dtype=np.intp)
        # bm25s keeps a column of scores per word: its rows are exactly the documents holding the word
        start, end = self._bm25.scores["indptr"][column : column + 2]
        return np.asarray(self._bm25.scores["indices"][start:end], dtype=np.intp)

    def scores(self, query: str) -> npt.NDArray[np.float32]:
        """BM25 score of every document, in index order (zeros when no term is known)."""
        if self.size == 0:
            return np.zeros(0, dtype=np.float32)
        known = [t for t in tokenize(query) if t in self._bm25.vocab_dict]
        if not known:
            return np.zeros(self.size, dtype=np.float32)
        return np.asarray(self._bm25.get_scores(known), dtype=np.float32)


def fingerprint(keys: Sequence[str]) -> str:
    """Identifies an index: the tokenizer version and the documents, in order."""
    digest = hashlib.sha256(TOKENIZER_VERSION.encode())
    for key in keys:
        digest.update(key.encode("utf-8", "surrogatepass") + b"\x00")
    return digest.hexdigest()


def load_or_build(folder: Path, keys: Sequence[str], texts: Callable[[], Sequence[str]]) -> LexicalIndex:
    """The saved index in ``folder`` when it matches ``keys``, else a new one over ``texts()``
    (saved for next time). The texts are only made when needed: at 100k papers that takes a while.

    Rebuilding BM25 over thousands of abstracts takes seconds; loading it, milliseconds.
    Any failure to read or write the cache just means building in memory.
    """
    stamp = fingerprint(keys)
    saved = load_saved(folder, stamp)
    if saved is not None:
        return saved[0]
    index = LexicalIndex.build(texts())
    if len(keys) >= MIN_CACHED_DOCUMENTS:
        save(folder, stamp, index, keys)
    return index


def load_saved(folder: Path, stamp: str) -> tuple[LexicalIndex, list[str]] | None:
    """A saved index and its document ids, if it was saved under ``stamp``; else None."""
    import bm25s

    with contextlib.suppress(OSError, ValueError, KeyError, EOFError):
        if (folder / FINGERPRINT_FILE).read_text(encoding="utf-8") == stamp:
            ids = json.loads((folder / IDS_FILE).read_text(encoding="utf-8"))
            return LexicalIndex(bm25s.BM25.load(str(folder), mmap=True, show_progress=False), len(ids)), ids
    return None


def save(folder: Path, stamp: str, index: LexicalIndex, ids: Sequence[str]) -> None:
    """Keep ``index`` (over documents ``ids``, in order) for the next command; failures are ignored."""
    if index.size == 0:
        return
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / FINGERPRINT_FILE).unlink(missing_ok=True)  # never a stamp beside a half-written index
        # Written aside, then each file moved in whole: another process reading (or memory-mapping) the index
        # the first command of a library saved meanwhile never meets a file half rewritten.
        with tempfile.TemporaryDirectory(prefix=".bm25-", dir=folder.parent) as scratch:
            index._bm25.save(scratch, show_progress=False)
            (Path(scratch) / IDS_FILE).write_text(json.dumps(list(ids)), encoding="utf-8")
            for part in Path(scratch).iterdir():
                os.replace(part, folder / part.name)
        (folder / FINGERPRINT_FILE).write_text(stamp, encoding="utf-8")
