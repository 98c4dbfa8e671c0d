"""A library saved by an older rag (before its text was cleaned) is told so once, and `rag reindex` cleans
it: the saved papers go through today's cleaner and get the ids a fresh ingest would give them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.corpus import CLEANER_VERSION, clean_again, content_id
from rag.index import CLEANER_MARK, cleaner_of
from rag.records import Paper, Passage
from rag.services import Context

runner = CliRunner()
CLEAN = "We study the communication of flows in networks. The results are good."
DIRTY = "We study the communi- cation of \ufb02ows in networks. The results are good. © 2013 Elsevier B.V."
BIB = "@article{doe2020, title={Efficient Flows}, author={Doe, Jane}, year={2020}, abstract={%s}}\n"


def _rag(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["--collection", "mine", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def old_library(tmp_path: Path, no_model: Path) -> Path:
    """A library as an older rag saved it: the abstract as it came, no cleaner noted."""
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB % CLEAN, encoding="utf-8")
    assert _rag("ingest", str(bib))[0] == 0
    papers_file = tmp_path / "data" / "mine" / "papers.json"
    saved = json.loads(papers_file.read_text(encoding="utf-8"))
    del saved["cleaner"]
    saved["papers"][0].update(id=content_id(DIRTY), text=DIRTY)
    papers_file.write_text(json.dumps(saved), encoding="utf-8")
    return bib


def test_an_old_library_is_told_once_and_reindex_cleans_it(old_library: Path, tmp_path: Path) -> None:
    code, _, err = _rag("search", "flows")
    assert code == 0 and "saved by an older rag" in err and "`rag reindex` cleans it" in err
    assert "older rag" not in _rag("search", "flows")[2], "said once"

    code, _, err = _rag("reindex")
    assert code == 0 and "cleaned the text of 1 paper" in err
    saved = json.loads((tmp_path / "data" / "mine" / "papers.json").read_text(encoding="utf-8"))
    assert saved["cleaner"] == CLEANER_VERSION
    assert [(p["id"], p["text"]) for p in saved["papers"]] == [(content_id(CLEAN), CLEAN)]

    code, out, err = _rag("ingest", str(old_library), "--json")
    assert code == 0 and json.loads(out)["unchanged"] == 1 and "merged" not in err, "the same paper, unchanged"
    assert "older rag" not in _rag("search", "flows")[2]


def test_a_new_library_is_never_told(tmp_path: Path, no_model: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB % DIRTY, encoding="utf-8")
    code, _, err = _rag("ingest", str(bib))
    assert code == 0 and "older rag" not in err
    assert "older rag" not in _rag("search", "flows")[2]
    saved = json.loads((tmp_path / "data" / "mine" / "papers.json").read_text(encoding="utf-8"))
    assert saved["cleaner"] == CLEANER_VERSION and saved["papers"][0]["text"] == CLEAN


def test_clean_again_follows_the_id_only_where_the_text_made_it() -> None:
    titled = Paper(id=content_id("E\ufb03cient\nDoe, J"), text="E\ufb03cient", title="E\ufb03cient", no_abstract=True)
    titled.authors = ["Doe, J"]
    assert clean_again(titled) and (titled.title, titled.text) == ("Efficient", "Efficient")
    assert titled.id == content_id("Efficient\nDoe, J")
    pdf = Paper(id="p-from-the-first-page", text=DIRTY, passages=[Passage(1, "the communi- cation layer", 3)])
    assert clean_again(pdf) and pdf.id == "p-from-the-first-page", "an id not made from the text stays"
    assert pdf.passages[0].text == "the communication layer"
    assert not clean_again(pdf), "clean text stays as it is"


class _Store:
    def __init__(self, marks: dict[str, str]) -> None:
        self.marks = marks

    def mark(self, key: str) -> str | None:
        return self.marks.get(key)


def test_a_store_written_before_rag_noted_its_cleaner_counts_as_cleaner_0() -> None:
    assert cleaner_of(_Store({})) == 0
    assert cleaner_of(_Store({CLEANER_MARK: str(CLEANER_VERSION)})) == CLEANER_VERSION


@needs_model
def test_the_store_notes_the_cleaner_for_readers_that_do_not_read_every_paper(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB % DIRTY, encoding="utf-8")
    assert _rag("ingest", str(bib))[0] == 0
    with Context(load_settings(collection="mine")).reader() as library:
        assert library.fetches_as_needed and library.cleaner() == CLEANER_VERSION
        assert library.store is not None and library.store.mark(CLEANER_MARK) == str(CLEANER_VERSION)
