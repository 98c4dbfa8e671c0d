"""The store end to end: real Chroma, real catalog file, locks and recovery."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import MODEL_DIR, SEEDS, needs_model

from rag import api
from rag.api import SearchRequest
from rag.catalog import CATALOG_FILE
from rag.config import load_settings
from rag.embeddings import OnnxMiniLM
from rag.errors import EmbeddingMismatchError, InputError, StoreBusyError, StoreError
from rag.library import open_library
from rag.lock import data_dir_lock
from rag.store import CHROMA_SUBDIR, EMBED_MODEL_KEY, VectorStore, connect


@pytest.fixture
def embedded_texts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the real model is asked to embed during the test."""
    seen: list[str] = []
    original = OnnxMiniLM.embed

    def counting(self: OnnxMiniLM, texts, progress=None):  # type: ignore[no-untyped-def]
        seen.extend(texts)
        return original(self, texts, progress)

    monkeypatch.setattr(OnnxMiniLM, "embed", counting)
    return seen


@needs_model
def test_ingest_is_idempotent(tmp_path: Path, embedded_texts: list[str]) -> None:
    settings = load_settings(collection="mine")
    first = api.ingest(settings, [SEEDS])
    assert (first.added, first.unchanged, first.total_papers) == (39, 0, 39)
    assert len(embedded_texts) == 39
    second = api.ingest(settings, [SEEDS])
    assert (second.added, second.updated, second.unchanged, second.total_papers) == (0, 0, 39, 39)
    assert len(embedded_texts) == 39, "re-ingesting unchanged files must embed nothing"
    with open_library(settings, bootstrap=False) as library:
        assert library.store is not None and library.store.count() == 39


def test_second_source_updates_without_reembedding(tmp_path: Path, no_model: Path) -> None:
    settings = load_settings(collection="mine")
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt"])
    report = api.ingest(settings, [SEEDS / "002_1079d4b498cf8dd9.txt", SEEDS / "papers.tsv"])
    assert (report.added, report.updated) == (19, 1)
    holmes = api.show(settings, "yang2023holmes")[0]
    assert holmes.sources == ["000_e22c73655386b99b.txt#12", "002_1079d4b498cf8dd9.txt#1"]


def test_first_command_indexes_bundled_corpus(tmp_path: Path) -> None:
    notices: list[str] = []
    listing = api.papers(load_settings(), notify=notices.append)
    assert len(listing.papers) == 39
    assert any("indexing the bundled corpus (39 papers)" in n for n in notices)
    notices.clear()
    api.papers(load_settings(), notify=notices.append)
    assert not any("bundled" in n for n in notices)


def test_other_collections_start_empty(tmp_path: Path) -> None:
    assert api.papers(load_settings(collection="empty-one")).papers == []


def test_lexical_fallback_then_upgrade_to_hybrid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_model: Path
) -> None:
    notices: list[str] = []
    result = api.search(load_settings(), SearchRequest("heterogeneous GPUs", 5), notify=notices.append)
    assert result.mode == "lexical"
    assert result.hits and all(h.dense is None for h in result.hits)
    assert any("using lexical search only" in n for n in notices)
    if MODEL_DIR is None:
        pytest.skip("no model to upgrade with")
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(MODEL_DIR))
    notices.clear()
    upgraded = api.search(load_settings(), SearchRequest("heterogeneous GPUs", 5), notify=notices.append)
    assert upgraded.mode == "hybrid"
    assert all(h.dense is not None for h in upgraded.hits)
    assert any("added vectors for 39 papers" in n for n in notices)


@needs_model
def test_other_model_in_collection_is_refused_then_reindexed(seeded: Path) -> None:
    store = VectorStore(connect(seeded, None), "papers", "all-MiniLM-L6-v2")
    store.collection.modify(metadata={EMBED_MODEL_KEY: "other-model"})
    request = SearchRequest("tensor parallel strategies", 3)
    with pytest.raises(EmbeddingMismatchError, match=r"built with embedding model 'other-model'.*rag reindex"):
        api.search(load_settings(), request)
    assert api.reindex(load_settings()) == 39
    assert api.search(load_settings(), request).hits[0].paper.citekey == "shi2023tapas"


@needs_model
def test_reindex_rebuilds_from_saved_papers(seeded: Path) -> None:
    shutil.rmtree(seeded / CHROMA_SUBDIR)
    assert api.reindex(load_settings()) == 39
    hits = api.search(load_settings(), SearchRequest("tensor parallel strategies", 3)).hits
    assert hits[0].paper.citekey == "shi2023tapas"
    assert hits[0].dense is not None


def test_busy_data_dir_fails_fast(seeded: Path) -> None:
    settings = load_settings(lock_timeout=0.2)
    with data_dir_lock(seeded, timeout=1), pytest.raises(StoreBusyError, match="another rag process"):
        api.papers(settings)


def test_unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot create data directory"):
        api.papers(load_settings(data_dir=blocker / "data"))


def test_corrupt_catalog_falls_back_to_backup(seeded: Path, no_model: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    api.ingest(load_settings(), [SEEDS])  # writes the file again, keeping a backup
    catalog.write_text("{not json")
    assert len(api.papers(load_settings()).papers) == 39


def test_corrupt_catalog_without_backup_is_explained(seeded: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    catalog.write_text(json.dumps({"format": 99}))
    catalog.with_name(CATALOG_FILE + ".bak").unlink(missing_ok=True)
    with pytest.raises(StoreError, match="is corrupt"):
        api.papers(load_settings())


def test_bad_input_leaves_library_intact(seeded: Path, tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(InputError):
        api.ingest(load_settings(), [tmp_path / "empty.txt"])
    with pytest.raises(InputError):
        api.ingest(load_settings(), [tmp_path / "missing"])
    assert len(api.papers(load_settings()).papers) == 39


def test_unknown_show_reference(seeded: Path) -> None:
    from rag.errors import NotFoundError

    with pytest.raises(NotFoundError, match="no paper with id, citekey or source 'nope'"):
        api.show(load_settings(), "nope")
    paper, lists = api.show(load_settings(), "000_e22c73655386b99b.txt#7")
    assert paper.citekey == "yuan2022decentralized" and lists[0].subject.startswith("An Efficient 2D")
    assert api.show(load_settings(), paper.id)[0] == paper


@needs_model
def test_known_paper_from_a_second_list_is_updated_with_vectors(tmp_path: Path, embedded_texts: list[str]) -> None:
    settings = load_settings(collection="mine")
    api.ingest(settings, [SEEDS / "000_e22c73655386b99b.txt"])
    report = api.ingest(settings, [SEEDS / "002_1079d4b498cf8dd9.txt", SEEDS / "papers.tsv"])
    assert (report.added, report.updated) == (19, 1), "Holmes is in both lists: updated, with its vector"
    with open_library(settings, bootstrap=False) as library:
        assert library.store is not None and library.store.count() == 39
    hits = api.search(settings, SearchRequest("heterogeneous NIC environment clusters", 1)).hits
    assert hits[0].paper.citekey.startswith("yang2023") and len(hits[0].paper.sources) == 2


def test_edited_file_replaces_the_old_version(tmp_path: Path) -> None:
    settings = load_settings(collection="mine")
    seed = tmp_path / "mine.txt"
    seed.write_text("Related papers: X\n\nFirst abstract about GPUs.\n\nSecond abstract about robots.\n")
    api.ingest(settings, [seed])
    seed.write_text("Related papers: X\n\nFirst abstract about GPUs, corrected.\n\nSecond abstract about robots.\n")
    report = api.ingest(settings, [seed])
    assert (report.added, report.removed, report.unchanged) == (1, 1, 1)
    papers = api.papers(settings).papers
    assert len(papers) == 2
    assert api.show(settings, "mine.txt#1")[0].text == "First abstract about GPUs, corrected."
    hits = api.search(settings, SearchRequest("GPUs", 5)).hits
    assert [h.paper.text for h in hits if "GPUs" in h.paper.text] == ["First abstract about GPUs, corrected."]


def test_damaged_catalog_is_restored_with_a_notice(seeded: Path, no_model: Path) -> None:
    catalog = seeded / "papers" / CATALOG_FILE
    api.ingest(load_settings(), [SEEDS])  # leaves a good backup
    catalog.write_text("{truncated")
    notices: list[str] = []
    assert len(api.papers(load_settings(), notify=notices.append).papers) == 39
    assert any("was damaged; restored the previous version" in n for n in notices)
    assert catalog.with_name(CATALOG_FILE + ".corrupt").read_text() == "{truncated"
    api.ingest(load_settings(), [SEEDS])
    assert json.loads(catalog.with_name(CATALOG_FILE + ".bak").read_text())["format"] == 1


def test_invalid_model_files_are_one_clear_error(seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag.embeddings import MODEL_FILES
    from rag.errors import ModelUnavailableError

    broken = tmp_path / "broken-model"
    broken.mkdir()
    for name in MODEL_FILES:
        (broken / name).write_text("not a model")
    monkeypatch.setenv("RAG_EMBED_MODEL_DIR", str(broken))
    with pytest.raises(ModelUnavailableError, match="cannot load the embedding model"):
        api.search(load_settings(), SearchRequest("gpu", 3))


@needs_model
def test_reads_are_paged(seeded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rag import store as store_module

    monkeypatch.setattr(store_module, "READ_PAGE", 7)  # 39 papers: six pages
    store = VectorStore(connect(seeded, None), "papers", "all-MiniLM-L6-v2")
    assert len(store.ids()) == 39
    papers = store.papers()
    assert len({p.id for p in papers}) == 39 and all(p.citekey for p in papers)
