"""BM25 tokenization and the saved lexical index."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.index import FINGERPRINT_FILE, MIN_CACHED_DOCUMENTS, LexicalIndex, load_or_build
from rag.text import tokenize

WORDS = [
    "gpu",
    "cluster",
    "heterogeneous",
    "training",
    "pipeline",
    "tensor",
    "expert",
    "memory",
    "network",
    "sparse",
    "dense",
    "model",
]


def _corpus(size: int) -> tuple[list[str], list[str]]:
    texts = [f"{WORDS[i % len(WORDS)]} {WORDS[(i * 7) % len(WORDS)]} paper {i}" for i in range(size)]
    return [f"id{i}" for i in range(size)], texts


def test_tokenize_stems_drops_question_words_and_acronym_plurals() -> None:
    assert tokenize("Which works target heterogeneous GPUs?") == ["work", "target", "heterogen", "gpu"]
    assert tokenize("LLMs and DNNs") == ["llm", "dnn"]


def test_saved_index_matches_a_fresh_one(tmp_path: Path) -> None:
    keys, texts = _corpus(MIN_CACHED_DOCUMENTS)
    built = load_or_build(tmp_path, keys, lambda: texts)
    assert (tmp_path / FINGERPRINT_FILE).exists()
    loaded = load_or_build(tmp_path, keys, lambda: texts)
    assert loaded._bm25 is not built._bm25
    for query in ("heterogeneous gpu", "sparse expert memory", "nothing-matches"):
        assert np.allclose(loaded.scores(query), LexicalIndex.build(texts).scores(query))
    holding = [i for i, text in enumerate(texts) if "sparse" in text.split()]
    assert sorted(loaded.holding("spars")) == holding == sorted(built.holding("spars"))


def test_changed_library_rebuilds(tmp_path: Path) -> None:
    keys, texts = _corpus(MIN_CACHED_DOCUMENTS)
    load_or_build(tmp_path, keys, lambda: texts)
    texts[0] = "completely different words about robots"
    keys[0] = "changed"
    index = load_or_build(tmp_path, keys, lambda: texts)
    assert index.scores("robots")[0] > 0


@pytest.mark.parametrize(
    "content",
    [
        b"garbage",
        # Readers started together on a new library: one may find the stamp of a finished save and a file another
        # is writing. An empty file (np.load raises EOFError) is read as no saved index, never an error.
        b"",
    ],
)
def test_corrupt_saved_index_is_rebuilt(tmp_path: Path, content: bytes) -> None:
    keys, texts = _corpus(MIN_CACHED_DOCUMENTS)
    load_or_build(tmp_path, keys, lambda: texts)
    for file in tmp_path.glob("*.npy"):
        file.write_bytes(content)
    index = load_or_build(tmp_path, keys, lambda: texts)
    assert index.scores("heterogeneous").max() > 0
    assert not list(tmp_path.parent.glob(".bm25-*")), "the save's scratch folder is gone"


def test_small_libraries_are_not_saved(tmp_path: Path) -> None:
    keys, texts = _corpus(10)
    load_or_build(tmp_path / "small", keys, lambda: texts)
    assert not (tmp_path / "small").exists()


def test_the_documents_holding_a_word() -> None:
    index = LexicalIndex.build(["Petri nets of a signalling cascade", "A stochastic Petri net", "Gene networks"])
    assert sorted(index.holding("petri")) == [0, 1]
    assert sorted(index.holding("network")) == [2]  # words as tokenize makes them: "nets" is "net"
    assert len(index.holding("zebra")) == 0
    assert len(LexicalIndex.build([]).holding("petri")) == 0


def test_empty_and_unknown_queries_score_zero() -> None:
    index = LexicalIndex.build(["gpu cluster", ""])
    assert not index.scores("the of and").any()
    assert not index.scores("zebra").any()
