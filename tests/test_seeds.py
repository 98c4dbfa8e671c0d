"""The bundled seed corpus: 40 snippets, 39 papers, metadata joined from papers.tsv."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SEEDS

from rag.corpus import content_id, load_paths, parse_metadata, parse_seed_list
from rag.errors import InputError
from rag.index import Catalog
from rag.resources import seeds_dir


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    loaded = load_paths([seeds_dir()])
    catalog = Catalog()
    catalog.upsert(list(loaded.papers.values()), loaded.lists)
    return catalog


def test_counts(catalog: Catalog) -> None:
    assert len(catalog.papers) == 39
    assert sum(len(p.sources) for p in catalog.papers.values()) == 40


def test_duplicate_abstract_is_one_paper_with_two_sources(catalog: Catalog) -> None:
    shared = [p for p in catalog.papers.values() if len(p.sources) == 2]
    assert len(shared) == 1
    paper = shared[0]
    assert paper.title == "Holmes: Towards Distributed Training Across Clusters with Heterogeneous NIC Environment"
    assert sorted(paper.lists) == ["000_e22c73655386b99b.txt", "002_1079d4b498cf8dd9.txt"]


def test_metadata_joined(catalog: Catalog) -> None:
    paper = next(p for p in catalog.papers.values() if "000_e22c73655386b99b.txt#7" in p.sources)
    assert paper.title == "Decentralized Training of Foundation Models in Heterogeneous Environments"
    assert paper.authors == ["Yuan, Binhang"]
    assert (paper.year, paper.arxiv, paper.citekey) == (2022, "2206.01288", "yuan2022decentralized")
    assert paper.truncated and paper.text.endswith("…")


def test_unidentified_entry_stays_untitled(catalog: Catalog) -> None:
    paper = next(p for p in catalog.papers.values() if "000_e22c73655386b99b.txt#2" in p.sources)
    assert paper.title is None and paper.year is None and paper.authors == []
    assert paper.citekey.startswith("anon")


def test_list_subjects(catalog: Catalog) -> None:
    subjects = {s.file: s.subject for s in catalog.lists.values()}
    assert (
        subjects["000_e22c73655386b99b.txt"] == "An Efficient 2D Method for Training Super-Large Deep Learning Models"
    )
    assert subjects["002_1079d4b498cf8dd9.txt"].startswith("Pretraining A Large Language Model")


def test_citekeys_unique_and_readable(catalog: Catalog) -> None:
    keys = [p.citekey for p in catalog.papers.values()]
    assert len(set(keys)) == len(keys)
    assert all(key.isascii() and key == key.lower() for key in keys)
    assert "dunner2017efficient" in keys  # Dünner, ascii-folded
    assert "ince2025sample" in keys  # İnce


def test_ids_are_content_hashes(catalog: Catalog) -> None:
    for paper in catalog.papers.values():
        assert paper.id == content_id(paper.text)
    assert content_id("a  b\n c") == content_id("a b c")


def test_citekey_collisions_get_suffixes() -> None:
    text = "Related papers: X\n\nFirst abstract.\n\nSecond abstract.\n"
    meta = parse_metadata(
        "file\tentry\ttitle\tfirst_author\tyear\tarxiv\n"
        "l.txt\t1\tSame Title\tDoe (Jane)\t2020\t\n"
        "l.txt\t2\tSame Title\tDoe (Jane)\t2020\t\n",
        "papers.tsv",
    )
    _, papers = parse_seed_list(text, "l.txt", meta)
    catalog = Catalog()
    catalog.upsert(papers)
    assert sorted(p.citekey for p in catalog.papers.values()) == ["doe2020same", "doe2020sameb"]


def test_malformed_metadata_names_line() -> None:
    bad = "file\tentry\ttitle\tfirst_author\tyear\tarxiv\nl.txt\tone\tT\tA\t2020\t\n"
    with pytest.raises(InputError, match=r"papers.tsv:2"):
        parse_metadata(bad, "papers.tsv")


def test_bundled_seeds_match_shared_copy() -> None:
    shared = SEEDS.parent.parent / "shared" / "seeds"
    if not shared.is_dir():
        pytest.skip("../shared/seeds not present")
    for path in shared.iterdir():
        assert (SEEDS / path.name).read_bytes() == path.read_bytes()


def test_seeds_dir_is_found(tmp_path: Path) -> None:
    assert (seeds_dir() / "papers.tsv").is_file()
