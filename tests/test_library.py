"""The store end to end: real Chroma, real catalog file, locks and recovery."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import MODEL_DIR, NEW_VECTORS, SEEDS, needs_model

from rag.config import load_settings
from rag.embed import MODEL_FILES, EmbedderChoice, OnnxMiniLM, Vectors, model_files_dir
from rag.errors import EmbeddingMismatchError, InputError, NotFoundError, StoreBusyError, StoreError
from rag.index import CATALOG_FILE, CHROMA_SUBDIR, EMBED_MODEL_KEY, VectorStore, connect, data_dir_lock
from rag.records import ProgressFn
from rag.services import Context, SearchRequest
from rag.services import ingest as ingest_service
from rag.services import read as read_service


class CountingEmbedder:
    """The real model, counting every text it is asked to embed."""

    def __init__(self) -> None:
        files = model_files_dir(MODEL_DIR) if MODEL_DIR else None
        assert files is not None
        self.inner = OnnxMiniLM(files)
        self.name = self.inner.name
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str], progress: ProgressFn | None = None) -> Vectors:
        self.texts.extend(texts)
        return self.inner.embed(texts, progress)


@needs_model
def test_ingest_is_idempotent(tmp_path: Path) -> None:
    settings = load_settings(collection="mine")
    embedder = CountingEmbedder()
    first = ingest_service.ingest(Context(settings, embedder=EmbedderChoice(embedder)), [SEEDS])
    assert (first.added, first.unchanged, first.total_papers) == (39, 0, 39)
    assert len(embedder.texts) == 39
    second = ingest_service.ingest(Context(settings, embedder=EmbedderChoice(embedder)), [SEEDS])
    assert (second.added, second.updated, second.unchanged, second.total_papers) == (0, 0, 39, 39)
    assert len(embedder.texts) == 39, "re-ingesting unchanged files must embed nothing"
    with Context(settings).reader() as library:
        assert library.store is not None and library.store.count() == 39


def test_second_source_updates_without_reembedding(tmp_path: Path, no_model: Path) -> None:
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt"])
    report = ingest_service.ingest(Context(settings), [SEEDS / "002_1079d4b498cf8dd9.txt", SEEDS / "papers.tsv"])
    assert (report.added, report.updated) == (19, 1)
    holmes = read_service.show(Context(settings), "yang2023holmes").paper
    assert holmes.sources == ["000_e22c73655386b99b.txt#12", "002_1079d4b498cf8dd9.txt#1"]


def test_first_command_indexes_bundled_corpus(tmp_path: Path) -> None:
    notices: list[str] = []
    listing = read_service.papers(Context(load_settings(), notify=notices.append))
    assert len(listing.papers) == 39
    assert any("indexing the bundled corpus (39 papers)" in n for n in notices)
    notices.clear()
    read_service.papers(Context(load_settings(), notify=notices.append))
    assert not any("bundled" in n for n in notices)


def test_other_collections_exist_only_once_ingested(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="there is no library 'empty-one'"):
        read_service.papers(Context(load_settings(collection="empty-one")))


def test_lexical_fallback_then_upgrade_to_hybrid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_model: Path
) -> None:
    notices: list[str] = []
    result = read_service.search(
        Context(load_settings(), notify=notices.append), SearchRequest("heterogeneous GPUs", 5)
    )
    assert result.mode == "lexical"
    assert result.hits and all(h.dense is None for h in result.hits)
    assert any("using lexical search only" in n for n in notices)
    if MODEL_DIR is None:
        pytest.skip("no model to upgrade with")
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(MODEL_DIR))
    notices.clear()
    upgraded = read_service.search(
        Context(load_settings(), notify=notices.append), SearchRequest("heterogeneous GPUs", 5)
    )
    assert upgraded.mode == "hybrid"
    assert all(h.dense is not None for h in upgraded.hits)
    assert any("added vectors for 39 papers" in n for n in notices)


@needs_model
def test_other_model_in_collection_is_refused_then_reindexed(seeded: Path) -> None:
    store = VectorStore(connect(seeded, None), "papers", NEW_VECTORS)
    store.collection.modify(metadata={EMBED_MODEL_KEY: "other-model"})
    request = SearchRequest("tensor parallel strategies", 3)
    with pytest.raises(EmbeddingMismatchError, match=r"built with embedding model 'other-model'.*rag reindex"):
        read_service.search(Context(load_settings()), request)
    assert ingest_service.reindex(Context(load_settings())).papers == 39
    assert read_service.search(Context(load_settings()), request).hits[0].paper.citekey == "shi2023tapas"


@needs_model
def test_reindex_rebuilds_from_saved_papers(seeded: Path) -> None:
    shutil.rmtree(seeded / CHROMA_SUBDIR)
    assert ingest_service.reindex(Context(load_settings())).papers == 39
    hits = read_service.search(Context(load_settings()), SearchRequest("tensor parallel strategies", 3)).hits
    assert hits[0].paper.citekey == "shi2023tapas"
    assert hits[0].dense is not None


def test_a_busy_data_dir_refuses_a_writer_fast_and_lets_readers_read(seeded: Path) -> None:
    settings = load_settings(lock_timeout=0.2)
    with data_dir_lock(seeded, timeout=1):
        assert len(read_service.papers(Context(settings)).papers) == 39, "readers take no lock"
        with pytest.raises(StoreBusyError, match="another rag process"):
            ingest_service.ingest(Context(settings), [SEEDS])


def test_unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create data directory"):
        read_service.papers(Context(load_settings(data_dir=blocker / "data")))


def test_corrupt_catalog_falls_back_to_backup(seeded: Path, no_model: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    ingest_service.ingest(Context(load_settings()), [SEEDS])  # writes the file again, keeping a backup
    catalog.write_text("{not json")
    assert len(read_service.papers(Context(load_settings())).papers) == 39


def test_corrupt_catalog_without_backup_is_explained(seeded: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    catalog.write_text(json.dumps({"format": 99}))
    catalog.with_name(CATALOG_FILE + ".bak").unlink(missing_ok=True)
    with pytest.raises(StoreError, match="is corrupt"):
        read_service.papers(Context(load_settings()))


def test_bad_input_leaves_library_intact(seeded: Path, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(InputError):
        ingest_service.ingest(Context(load_settings()), [tmp_path / "empty.txt"])
    with pytest.raises(InputError):
        ingest_service.ingest(Context(load_settings()), [tmp_path / "missing"])
    assert len(read_service.papers(Context(load_settings())).papers) == 39


def test_unknown_show_reference(seeded: Path) -> None:
    from rag.errors import NotFoundError

    with pytest.raises(NotFoundError, match="no paper with id, citekey or source 'nope'"):
        read_service.show(Context(load_settings()), "nope")
    view = read_service.show(Context(load_settings()), "000_e22c73655386b99b.txt#7")
    paper, lists = view.paper, view.lists
    assert paper.citekey == "yuan2022decentralized" and lists[0].subject.startswith("An Efficient 2D")
    assert read_service.show(Context(load_settings()), paper.id).paper == paper


@needs_model
def test_known_paper_from_a_second_list_is_updated_with_vectors(tmp_path: Path) -> None:
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [SEEDS / "000_e22c73655386b99b.txt"])
    report = ingest_service.ingest(Context(settings), [SEEDS / "002_1079d4b498cf8dd9.txt", SEEDS / "papers.tsv"])
    assert (report.added, report.updated) == (19, 1), "Holmes is in both lists: updated, with its vector"
    with Context(settings).reader() as library:
        assert library.store is not None and library.store.count() == 39
    hits = read_service.search(Context(settings), SearchRequest("heterogeneous NIC environment clusters", 1)).hits
    assert hits[0].paper.citekey.startswith("yang2023") and len(hits[0].paper.sources) == 2


def test_edited_file_replaces_the_old_version(tmp_path: Path) -> None:
    settings = load_settings(collection="mine")
    seed = tmp_path / "mine.txt"
    seed.write_text("Related papers: X\n\nFirst abstract about GPUs.\n\nSecond abstract about robots.\n")
    ingest_service.ingest(Context(settings), [seed])
    seed.write_text("Related papers: X\n\nFirst abstract about GPUs, corrected.\n\nSecond abstract about robots.\n")
    report = ingest_service.ingest(Context(settings), [seed])
    assert (report.added, report.removed, report.unchanged) == (1, 1, 1)
    papers = read_service.papers(Context(settings)).papers
    assert len(papers) == 2
    assert read_service.show(Context(settings), "mine.txt#1").paper.text == "First abstract about GPUs, corrected."
    hits = read_service.search(Context(settings), SearchRequest("GPUs", 5)).hits
    assert [h.paper.text for h in hits if "GPUs" in h.paper.text] == ["First abstract about GPUs, corrected."]


def test_damaged_catalog_is_restored_with_a_notice(seeded: Path, no_model: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    ingest_service.ingest(Context(load_settings()), [SEEDS])  # leaves a good backup
    catalog.write_text("{truncated")
    notices: list[str] = []
    assert len(read_service.papers(Context(load_settings(), notify=notices.append)).papers) == 39
    assert any("was damaged; restored the previous version" in n for n in notices)
    assert catalog.with_name(CATALOG_FILE + ".corrupt").read_text() == "{truncated"
    ingest_service.ingest(Context(load_settings()), [SEEDS])
    assert json.loads(catalog.with_name(CATALOG_FILE + ".bak").read_text())["format"] == 1


def test_invalid_model_files_are_one_clear_error(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.errors import ModelUnavailableError

    broken = tmp_path / "broken-model"
    broken.mkdir()
    for name in MODEL_FILES:
        (broken / name).write_text("not a model")
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(broken))
    with pytest.raises(ModelUnavailableError, match="cannot load the embedding model"):
        read_service.search(Context(load_settings()), SearchRequest("gpu", 3))


@needs_model
def test_reads_are_paged(seeded: Path) -> None:
    store = VectorStore(connect(seeded, None), "papers", NEW_VECTORS, page_size=7)  # 39 papers: six pages
    assert len(store.ids()) == 39
    papers = store.papers()
    assert len({p.id for p in papers}) == 39 and all(p.citekey for p in papers)
