"""Our ONNX runner gives Chroma's default embedding function's vectors, without its padding."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from conftest import MODEL_DIR, SEEDS, needs_model

from rag.config import load_settings
from rag.corpus import load_paths
from rag.embed import OnnxMiniLM, choose_embedder, model_files_dir

PARITY_COSINE = 0.9999


@needs_model
def test_same_vectors_as_chromas_default_function() -> None:
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    assert MODEL_DIR is not None
    files = model_files_dir(MODEL_DIR)
    assert files is not None

    class LocalChromaDefault(ONNXMiniLM_L6_V2):
        DOWNLOAD_PATH = files.parent

    texts = [*(p.searchable_text() for p in load_paths([SEEDS]).papers.values()), "GPUs", "a " * 400][-14:]
    ours = OnnxMiniLM(files, batch_size=5).embed(texts)
    theirs = np.array(LocalChromaDefault()(texts))
    cosines = (ours * theirs).sum(axis=1) / (np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1))
    assert cosines.min() >= PARITY_COSINE
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@needs_model
def test_many_texts_embedded_side_by_side_get_the_vectors_each_gets_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.embed.onnx as onnx

    assert MODEL_DIR is not None
    files = model_files_dir(MODEL_DIR)
    assert files is not None
    papers = [p.searchable_text() for p in load_paths([SEEDS]).papers.values()]
    texts = [f"{text} ({n})" for n in range(4) for text in papers]  # more than LANES_FROM_TEXTS, in no order
    monkeypatch.setattr(onnx, "lane_count", lambda: 2)
    embedder = OnnxMiniLM(files, batch_size=1)
    assert len(texts) >= onnx.LANES_FROM_TEXTS
    together = embedder.embed(texts)
    assert embedder._bulk is not None and embedder._bulk.count == 2, "embedded on one-thread sessions side by side"
    alone = np.stack([embedder.embed([text])[0] for text in texts[::15]])
    assert np.array_equal(together[::15], alone)


def test_missing_model_folder_means_lexical_with_notice(tmp_path: Path) -> None:
    choice = choose_embedder(load_settings(embed_model_dir=tmp_path))
    assert choice.embedder is None
    assert choice.notice is not None and str(tmp_path) in choice.notice


def test_model_can_be_switched_off() -> None:
    choice = choose_embedder(load_settings(embed_model="none"))
    assert choice.embedder is None and choice.notice is None


def test_unknown_model_name_is_an_error() -> None:
    import pytest

    from rag.errors import InputError

    with pytest.raises(InputError, match="unknown embedding model"):
        choose_embedder(load_settings(embed_model="bge-huge"))


def test_failed_download_is_not_retried_on_every_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def offline_download() -> Path | None:
        calls.append(1)
        return None

    monkeypatch.delenv("RAG_EMBED_MODEL_DIR")
    settings = load_settings(data_dir=tmp_path / "data")
    for _ in range(3):
        choice = choose_embedder(settings, cache_dir=tmp_path / "empty-cache", download=offline_download)
        assert choice.embedder is None and choice.notice and "could not be downloaded" in choice.notice
    assert calls == [1]


def test_without_a_downloader_nothing_is_fetched_or_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAG_EMBED_MODEL_DIR")
    data_dir = tmp_path / "data"
    choice = choose_embedder(load_settings(data_dir=data_dir), cache_dir=tmp_path / "empty-cache", download=None)
    assert choice.embedder is None and choice.notice
    assert not data_dir.exists(), "a read-only probe creates no folder and no download marker"


@needs_model
def test_a_words_only_library_gets_its_vectors_from_the_first_command_that_finds_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More papers than a reader embeds after an interrupted ingest: a library made without the model has no
    vector at all, and the README promises the next command that finds the model adds them."""
    import json

    from typer.testing import CliRunner

    from rag.cli import app
    from rag.index import READER_SYNC_LIMIT

    runner = CliRunner()
    count = READER_SYNC_LIMIT + 6
    source = tmp_path / "many.jsonl"
    records = (
        {"title": f"Paper {n} on topic {n % 7}", "abstract": f"We study case {n} of topic {n % 7}."}
        for n in range(count)
    )
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    monkeypatch.setenv("RAG_COLLECTION", "later")
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(tmp_path / "nowhere"))
    assert runner.invoke(app, ["ingest", str(source)]).exit_code == 0
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(MODEL_DIR))
    found = runner.invoke(app, ["search", "case 3 of topic 3", "--json"])
    assert found.exit_code == 0, found.stderr
    assert f"adding vectors for {count} papers" in found.stderr
    listed = json.loads(runner.invoke(app, ["collections", "--json"]).stdout)["collections"]
    assert [(c["papers"], c["vectors"]) for c in listed if c["name"] == "later"] == [(count, count)]
    assert "adding vectors" not in runner.invoke(app, ["search", "topic 2"]).stderr, "once"


def test_vectors_kept_on_disk_are_reused_and_a_damaged_cache_is_done_without(tmp_path: Path) -> None:
    from rag.embed import DiskCachedEmbedder

    class Counting:
        name = "words"

        def __init__(self) -> None:
            self.seen: list[str] = []

        def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
            self.seen += texts
            return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

    inner = Counting()
    cache = tmp_path / "vectors.sqlite"
    first = DiskCachedEmbedder(inner, cache, capacity=3).embed(["a", "bb", "a"])
    again = DiskCachedEmbedder(inner, cache, capacity=3).embed(["bb", "ccc"])  # another process, later
    assert inner.seen == ["a", "bb", "ccc"]  # each text embedded once, across runs
    assert first.tolist() == [[1, 1], [2, 1], [1, 1]] and again.tolist() == [[2, 1], [3, 1]]
    DiskCachedEmbedder(inner, cache, capacity=3).embed(["dddd"])
    DiskCachedEmbedder(inner, cache, capacity=3).embed(["a"])  # only the newest 3 kept: "a" is gone
    assert inner.seen[-1] == "a"
    cache.write_bytes(b"not a database" * 10)
    assert DiskCachedEmbedder(inner, cache).embed(["e"]).tolist() == [[1, 1]]  # a damaged file: embedded anyway
