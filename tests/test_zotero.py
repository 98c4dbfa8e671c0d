"""Zotero read directly: a data directory or its zotero.sqlite, never changed, through `rag ingest`.

Fixture databases are built by tests/zotero_fixture.py; the real ones in ../shared/real/zotero are
read when that folder is there (skipped with the reason otherwise).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner
from zotero_fixture import ZoteroFixture, better_bibtex_legacy, better_bibtex_sqlite, lokijs_entries

from rag.cli import app
from rag.config import load_settings
from rag.corpus import READ_COLUMNS, ReadOptions, load_paths
from rag.errors import InputError, OptionError, RagError
from rag.records import Paper
from rag.services import Context
from rag.services import ingest as ingest_service

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "real"
needs_real = pytest.mark.skipif(not (REAL / "zotero").is_dir(), reason="../shared/real/zotero not present")
runner = CliRunner()

ABSTRACT = "We propose a graph network that predicts the properties of molecules from their bonds alone."
PDF_ABSTRACT = "Scaling the model and the data together lowers the loss as a power law in compute."
BODY = [
    "2 Method",
    "The network passes messages along every bond of the molecule, and each atom sums what its",
    "neighbours send before a readout layer pools all atoms into one vector for the whole molecule.",
]


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _pdf_first_page(title: str, abstract: str) -> list[str]:
    return [title, "Abstract", abstract, "1 Introduction", "Molecules are graphs, and graphs are everywhere today."]


@pytest.fixture
def library(tmp_path: Path) -> Iterator[ZoteroFixture]:
    """A small library: five regular items (one with a PDF), a note, a trashed item, nested collections."""
    z = ZoteroFixture(tmp_path / "Zotero")
    article = z.item(
        "AAAA1111",
        creators=[("Ann", "Roe"), ("Bo", "Li"), ("Cy", "Wu", "editor")],
        title="Graph <i>neural</i> networks for molecules",
        abstractNote=ABSTRACT,
        date="2021-05-00 5/2021",
        DOI="https://doi.org/10.1000/xyz",
        url="https://example.org/a",
        volume="12",
        issue="3",
        pages="1-10",
        publicationTitle="Journal of Things",
        publisher="ACM",
    )
    z.pdf(article, "PPPP1111", _pdf_first_page("Graph networks", "An abstract the item already has."), [BODY])
    paper = z.item(
        "BBBB2222",
        "conferencePaper",
        creators=[("Dan", "Poe"), "OpenAI Team"],
        title="Scaling laws",
        proceedingsTitle="Proceedings of NeurIPS",
        date="2020-00-00 2020",
        extra="arXiv: 2001.08361\nCitation Key: poe2020scaling",
    )
    z.pdf(paper, "PPPP2222", _pdf_first_page("Scaling laws", PDF_ABSTRACT), [BODY])
    chapter = z.item(
        "CCCC3333",
        "bookSection",
        creators=[("Eve", "Ng", "editor")],
        title="A chapter on graphs",
        bookTitle="The Graph Book",
    )
    thesis = z.item(
        "DDDD4444",
        "thesis",
        creators=[("Fay", "Ox")],
        title="A thesis",
        university="MIT",
        date="0000-00-00 Spring 2019",
    )
    z.item("EEEE5555", "videoRecording", creators=[("Gus", "Ray")], title="A talk on graphs", extra="DOI: 10.5555/talk")
    z.note(article, "NNNN0001")
    z.note(None, "NNNN0002")
    z.trash(z.item("TTTT0000", title="A trashed paper", abstractNote="It should never be read."))
    top = z.collection("Machine Learning", None, article)
    z.collection("GNN", top, paper, chapter)
    z.collection("Other", None, thesis)
    z.trash_collection(z.collection("Old stuff", None, thesis))
    yield z
    z.close()


def _by_key(papers: dict[str, Paper]) -> dict[str, Paper]:
    return {p.sources[0].rpartition("#")[2]: p for p in papers.values()}


def _read(folder: Path, *collections: str, full_text: bool = True) -> tuple[dict[str, Paper], list[str]]:
    result = load_paths([folder], options=ReadOptions(full_text=full_text, zotero_collections=collections))
    return _by_key(result.papers), result.warnings


def test_items_with_their_fields(library: ZoteroFixture) -> None:
    papers, warnings = _read(library.folder)
    assert set(papers) == {"AAAA1111", "BBBB2222", "CCCC3333", "DDDD4444", "EEEE5555"}, "no notes, attachments, trash"
    article = papers["AAAA1111"]
    assert article.title == "Graph neural networks for molecules", "Zotero's rich text becomes plain text"
    assert article.authors == ["Roe, Ann", "Li, Bo"], "authors in order; the editor is not an author"
    assert (article.year, article.doi, article.url) == (2021, "10.1000/xyz", "https://example.org/a")
    assert (article.venue, article.volume, article.issue, article.pages) == ("Journal of Things", "12", "3", "1-10")
    assert (article.publisher, article.item_type, article.text) == ("ACM", "article-journal", ABSTRACT)
    assert article.sources == ["zotero.sqlite#AAAA1111"] and article.lists == ["zotero.sqlite"]
    paper = papers["BBBB2222"]
    assert paper.authors == ["Poe, Dan", "OpenAI Team"], "a single-field name stays whole"
    assert (paper.venue, paper.item_type, paper.year, paper.arxiv) == (
        "Proceedings of NeurIPS",
        "paper-conference",
        2020,
        "2001.08361",
    )
    chapter = papers["CCCC3333"]
    assert (chapter.venue, chapter.item_type, chapter.authors) == ("The Graph Book", "chapter", ["Ng, Eve"])
    assert chapter.no_abstract and chapter.text == "A chapter on graphs", "no abstract: searched by its title"
    thesis = papers["DDDD4444"]
    assert (thesis.publisher, thesis.year, thesis.item_type) == ("MIT", 2019, "thesis")
    video = papers["EEEE5555"]
    assert (video.authors, video.item_type, video.doi) == (["Ray, Gus"], "motion_picture", "10.5555/talk")
    assert "zotero.sqlite: 3 entries have no abstract and are searched by title only" in warnings


def test_collections_are_kept_with_their_paths(library: ZoteroFixture) -> None:
    papers, _ = _read(library.folder)
    assert papers["AAAA1111"].collections == ["Machine Learning"]
    assert papers["BBBB2222"].collections == ["Machine Learning/GNN"]
    assert papers["DDDD4444"].collections == ["Other"], "a collection in the trash is not named"
    assert papers["EEEE5555"].collections == []


def test_zotero_collection_limits_the_ingest_with_sub_collections(library: ZoteroFixture) -> None:
    papers, _ = _read(library.folder, "machine learning")
    assert set(papers) == {"AAAA1111", "BBBB2222", "CCCC3333"}, "the collection, in any case, with GNN below it"
    assert set(_read(library.folder, "Machine Learning/GNN")[0]) == {"BBBB2222", "CCCC3333"}
    assert set(_read(library.folder, "gnn", "OTHER")[0]) == {"BBBB2222", "CCCC3333", "DDDD4444"}
    with pytest.raises(OptionError) as error:
        _read(library.folder, "Deep Learning", "other")
    assert str(error.value) == (
        "zotero.sqlite: no collection named 'Deep Learning'; its collections are: Machine Learning, "
        "Machine Learning/GNN, Other"
    )


def test_zotero_collection_through_the_cli(library: ZoteroFixture, tmp_path: Path) -> None:
    assert invoke("ingest", str(library.folder))[0] == 0
    code, out, _ = invoke("ingest", str(library.folder), "--zotero-collection", "GNN", "--json")
    result = json.loads(out)
    assert code == 0 and (result["papers_found"], result["removed"], result["total_papers"]) == (2, 3, 2), (
        "the library then holds just the collection's items of this Zotero library"
    )
    code, _, err = invoke("ingest", str(library.folder), "--zotero-collection", "nope")
    assert code == 1 and err.startswith("error: zotero.sqlite: no collection named 'nope'; its collections are:")
    assert len(err.strip().splitlines()) == 1
    (tmp_path / "refs.bib").write_text("@article{k, title={T}, abstract={A}}\n", encoding="utf-8")
    code, _, err = invoke("ingest", str(tmp_path / "refs.bib"), "--zotero-collection", "GNN")
    assert code == 1 and "--zotero-collection applies to Zotero databases" in err
    code, out, _ = invoke("papers", "--json")
    assert len(json.loads(out)["papers"]) == 2, "the failed ingests changed nothing"


def test_a_storage_pdf_gives_passages_and_an_abstract_only_when_the_item_has_none(library: ZoteroFixture) -> None:
    papers, _ = _read(library.folder)
    article, paper = papers["AAAA1111"], papers["BBBB2222"]
    assert article.text == ABSTRACT, "the item's own abstract wins over the PDF's"
    assert article.passages and "passes messages along every bond" in article.passages[0].text
    assert (paper.text, paper.no_abstract) == (PDF_ABSTRACT, False), "no abstract in Zotero: the PDF's"
    assert paper.title == "Scaling laws", "the paper is the Zotero item: its title, not the PDF's"
    short, _ = _read(library.folder, full_text=False)
    assert short["AAAA1111"].passages == [] and short["BBBB2222"].text == PDF_ABSTRACT, "--abstract-only"


def test_a_missing_or_unreadable_pdf_is_one_warning_and_the_item_is_kept(library: ZoteroFixture) -> None:
    shutil.rmtree(library.folder / "storage" / "PPPP1111")
    (library.folder / "storage" / "PPPP2222" / "paper.pdf").write_bytes(b"%PDF-1.4 not really")
    linked = library.item("LLLL0001", title="Linked elsewhere", abstractNote="An abstract of the linked one.")
    library.pdf(linked, "PPPP3333", path="attachments:Papers/linked.pdf", link_mode=2)
    papers, warnings = _read(library.folder)
    assert {"AAAA1111", "BBBB2222", "LLLL0001"} <= set(papers)
    assert papers["AAAA1111"].passages == [] and papers["BBBB2222"].no_abstract
    pdf_lines = [w for w in warnings if "PDF" in w]
    assert len(pdf_lines) == 3, pdf_lines
    assert "zotero.sqlite#AAAA1111: PDF storage/PPPP1111/paper.pdf is missing; the item is kept" in pdf_lines[-1]
    assert pdf_lines[0].startswith("zotero.sqlite#BBBB2222: storage/PPPP2222/paper.pdf: unreadable PDF")
    assert "zotero.sqlite#LLLL0001: PDF attachments:Papers/linked.pdf is linked relative to" in pdf_lines[1]


def _bbt_keys() -> dict[str, str]:
    return {"AAAA1111": "roe2021graph", "CCCC3333": "ngChapterGraphs", "GONE0000": "deletedItemKey"}


@pytest.mark.parametrize("layout", ["citationkey", "legacy", "lokijs-file"])
def test_citekeys_from_better_bibtex_then_extra_then_rag(library: ZoteroFixture, layout: str) -> None:
    if layout == "citationkey":
        better_bibtex_sqlite(library.folder, _bbt_keys())
    elif layout == "legacy":
        better_bibtex_legacy(library.folder, _bbt_keys())
    else:
        payload = {"collections": [{"name": "citekey", "data": lokijs_entries(_bbt_keys())}]}
        (library.folder / "better-bibtex.db").write_text(json.dumps(payload), encoding="utf-8")
    library.set_field(library.ids["DDDD4444"], "citationKey", "oxThesis")  # Zotero 7.0.31's own field
    library.db.commit()
    before = (library.folder / "zotero.sqlite").read_bytes()
    papers, warnings = _read(library.folder)
    keys = {key: paper.citekey for key, paper in papers.items()}
    assert keys["AAAA1111"] == "roe2021graph" and keys["CCCC3333"] == "ngChapterGraphs", "Better BibTeX's"
    assert keys["BBBB2222"] == "poe2020scaling", "a Citation Key: line in Extra"
    assert keys["DDDD4444"] == "oxThesis", "Zotero's own citationKey field"
    assert keys["EEEE5555"] == "", "none given: rag.corpus.identity assigns one at ingest"
    assert not [w for w in warnings if "bibtex" in w.lower()]
    assert (library.folder / "zotero.sqlite").read_bytes() == before


def test_a_damaged_better_bibtex_database_is_one_warning(library: ZoteroFixture) -> None:
    (library.folder / "better-bibtex.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x07" * 2000)
    papers, warnings = _read(library.folder)
    assert papers["BBBB2222"].citekey == "poe2020scaling", "Extra still gives its key"
    bbt = [w for w in warnings if w.startswith("better-bibtex.sqlite:")]
    assert len(bbt) == 1 and "its citation keys are not used" in bbt[0]


def test_cli_reads_a_data_directory_as_one_library_and_changes_nothing(library: ZoteroFixture) -> None:
    better_bibtex_sqlite(library.folder, _bbt_keys())
    library.close()
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in library.folder.rglob("*") if p.is_file()}
    code, out, err = invoke("ingest", str(library.folder), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["files_read"], result["papers_found"]) == (1, 5), "storage PDFs and BBT are not files of their own"
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in library.folder.rglob("*") if p.is_file()}
    assert after == before, "no byte, no mtime changed, no file (journal, WAL, copy) written beside it"
    code, out, _ = invoke("show", "zotero.sqlite#BBBB2222", "--json")
    assert code == 0 and json.loads(out)["citekey"] == "poe2020scaling"
    code, out, _ = invoke("papers", "--json")
    for paper in json.loads(out)["papers"]:
        assert invoke("show", paper["citekey"])[0] == 0
    code, out, _ = invoke("ingest", str(library.path), "--json")
    assert code == 0 and json.loads(out)["unchanged"] == 5, "the database file itself is the same library"


def test_a_second_ingest_parses_only_what_changed(library: ZoteroFixture) -> None:
    ctx = Context(load_settings())
    first = ingest_service.ingest(ctx, [library.folder])
    assert (first.pdfs_parsed, first.pdfs_reused, first.added) == (2, 0, 5)
    library.touch(library.ids["BBBB2222"], title="Scaling laws for language models")
    second = ingest_service.ingest(ctx, [library.folder])
    assert (second.pdfs_parsed, second.pdfs_reused) == (0, 2), "no unchanged PDF is parsed again"
    assert (second.updated, second.unchanged, second.added, second.removed) == (1, 4, 0, 0)
    pdf = library.folder / "storage" / "PPPP1111" / "paper.pdf"
    os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 10**9))
    third = ingest_service.ingest(ctx, [library.folder])
    assert (third.pdfs_parsed, third.pdfs_reused, third.unchanged) == (1, 1, 5), "a touched PDF is parsed again"


def test_a_write_lock_held_by_zotero_does_not_stop_the_read(library: ZoteroFixture) -> None:
    zotero = sqlite3.connect(library.path, isolation_level=None)
    zotero.execute("PRAGMA locking_mode = EXCLUSIVE")
    zotero.execute("BEGIN EXCLUSIVE")
    zotero.execute("UPDATE items SET version = version + 1")  # a transaction Zotero has not committed
    try:
        papers, warnings = _read(library.folder)
    finally:
        zotero.execute("ROLLBACK")
        zotero.close()
    assert len(papers) == 5
    assert any("zotero.sqlite-journal beside it holds changes Zotero had not finished writing" in w for w in warnings)


def test_a_leftover_journal_with_nothing_in_it_says_nothing(library: ZoteroFixture) -> None:
    (library.folder / "zotero.sqlite-journal").write_bytes(b"\x00" * 512)  # what a persistent journal leaves
    _, warnings = _read(library.folder)
    assert not [w for w in warnings if "journal" in w]
    (library.folder / "zotero.sqlite-journal").write_bytes(bytes.fromhex("d9d505f920a163d7") + b"\x00" * 504)
    _, warnings = _read(library.folder)
    assert [w for w in warnings if "journal" in w] == [
        "zotero.sqlite: zotero.sqlite-journal beside it holds changes Zotero had not finished writing; they are not "
        "read (run `rag ingest` again once Zotero is idle, or after closing it)"
    ]


def _error(path: Path) -> str:
    code, _, err = invoke("ingest", str(path))
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[Path]:
    """A library holding one paper already: no bad database may lose it."""
    (tmp_path / "refs.bib").write_text("@article{kept2020, title={Kept}, abstract={Still here.}}\n", encoding="utf-8")
    assert invoke("ingest", str(tmp_path / "refs.bib"))[0] == 0
    yield tmp_path
    code, out, _ = invoke("show", "kept2020", "--json")
    assert code == 0 and json.loads(out)["text"] == "Still here."


def test_a_corrupt_database_is_one_line(kept: Path, library: ZoteroFixture) -> None:
    library.close()
    data = library.path.read_bytes()
    library.path.write_bytes(data[:100] + b"\xff" * 4096 + data[4196:])  # page 1 and the tables' roots overwritten
    assert "zotero.sqlite: damaged" in _error(library.folder)
    library.path.write_bytes(b"this is no database at all\n" * 10)
    err = _error(library.path)
    assert "zotero.sqlite: not an SQLite database" in err and "zotero.sqlite.bak" in err


def test_not_a_zotero_database_is_one_line(kept: Path, tmp_path: Path) -> None:
    other = tmp_path / "other" / "places.sqlite"
    other.parent.mkdir()
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    assert "places.sqlite: an SQLite database but not a Zotero library" in _error(other)
    bbt = better_bibtex_sqlite(tmp_path / "other", {"AAAA1111": "k"})
    assert "ingest the zotero.sqlite of its Zotero data directory" in _error(bbt)


def test_a_newer_schema_is_said_and_read_when_what_rag_reads_is_there(kept: Path, tmp_path: Path) -> None:
    z = ZoteroFixture(tmp_path / "new", userdata=140)
    z.item("AAAA1111", title="From a future Zotero", abstractNote="Read all the same.")
    z.close()
    code, _, err = invoke("ingest", str(z.folder))
    assert code == 0 and "Zotero schema userdata 140 is newer than rag was tested with (up to 123)" in err
    z.db = sqlite3.connect(z.path)
    z.db.execute("ALTER TABLE itemAttachments RENAME COLUMN path TO location")
    z.db.commit()
    z.close()
    err = _error(z.folder)
    assert "userdata 140 is newer than rag supports (up to 123)" in err and "itemAttachments.path missing" in err


def test_a_zotero4_database_is_read_from_the_tables_it_shares_with_todays(tmp_path: Path) -> None:
    z = ZoteroFixture(tmp_path / "old")
    item = z.item(
        "AAAA1111", creators=[("Ada", "Lovelace"), "The Engine Society"], title="Notes", abstractNote="On engines."
    )
    z.pdf(item, "PDF11111", _pdf_first_page("Notes", "On engines."), [BODY])
    z.item("BBBB2222", title="Trashed", abstractNote="Gone.")
    z.trash(z.ids["BBBB2222"])
    z.as_zotero4(userdata=77)
    papers, warnings = _read(z.close())
    assert set(papers) == {"AAAA1111"}
    paper = papers["AAAA1111"]
    assert paper.authors == ["Lovelace, Ada", "The Engine Society"] and paper.passages
    schema = [w for w in warnings if "schema" in w]
    assert len(schema) == 1 and "userdata 77 (Zotero 4 era)" in schema[0] and "shares with today's" in schema[0]


def test_a_zotero5_database_is_read_with_one_warning(tmp_path: Path) -> None:
    z = ZoteroFixture(tmp_path / "z5", userdata=100)
    z.item("AAAA1111", title="Notes", abstractNote="On engines.")
    papers, warnings = _read(z.close())
    assert set(papers) == {"AAAA1111"}
    assert [w for w in warnings if "schema" in w] == [
        "zotero.sqlite: Zotero schema userdata 100 (Zotero 5 era) is older than rag was tested with (120 to 123); "
        "read from the tables it shares with today's schema: if anything looks wrong, open the library once in "
        "a current Zotero, which upgrades it"
    ]


def test_an_old_database_lacking_what_rag_reads_is_refused(kept: Path, tmp_path: Path) -> None:
    z = ZoteroFixture(tmp_path / "old")
    z.item("AAAA1111", title="Notes", abstractNote="On engines.")
    z.as_zotero4(userdata=60)
    z.db.execute("DROP TABLE creatorData")
    z.db.commit()
    err = _error(z.close())
    assert "userdata 60 is older than rag can read" in err and "creators.firstName" in err


def test_a_folder_holding_a_data_directory_reads_its_database_alone(library: ZoteroFixture, tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@article{k, title={A bib entry}, abstract={Its abstract.}}\n", encoding="utf-8")
    shutil.copy(library.path, library.folder / "zotero.sqlite.bak")  # Zotero's backup: not a second library
    library.pdf(None, "SSSS0001", _pdf_first_page("A loose PDF", "Dropped into the library alone."))
    library.item("XXXX0000", "journalArticle")  # neither title nor abstract
    result = load_paths([tmp_path])
    assert result.files_read == 2 and len(result.papers) == 6, "refs.bib and zotero.sqlite, not storage/ or the backup"
    assert "zotero.sqlite: 1 PDF is not attached to an item, so not read" in " ".join(result.warnings)
    assert "zotero.sqlite#XXXX0000: item has neither title nor abstract, skipped" in result.warnings
    assert not [w for w in result.warnings if ".bak" in w or "storage" in w]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small database, for damaging."""
    z = ZoteroFixture(tmp_path_factory.mktemp("pristine") / "Zotero")
    article = z.item("AAAA1111", creators=[("Ann", "Roe")], title="T", abstractNote="An abstract.", date="2020")
    z.pdf(article, "PPPP1111", path="storage:missing.pdf")
    z.collection("C", z.collection("P", None, article), article)
    return z.close() / "zotero.sqlite"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 2**16), st.binary(min_size=1, max_size=64)), min_size=1, max_size=6))
def test_a_damaged_database_gives_a_rag_error_or_papers(
    pristine: Path, tmp_path: Path, damage: list[tuple[int, bytes]]
) -> None:
    data = bytearray(pristine.read_bytes())
    for offset, junk in damage:
        start = offset % len(data)
        data[start : start + len(junk)] = junk
    folder = tmp_path / "damaged"
    folder.mkdir(exist_ok=True)
    (folder / "zotero.sqlite").write_bytes(bytes(data))
    try:
        result = load_paths([folder])
    except RagError as exc:
        assert str(exc).strip() and "\n" not in str(exc)
        return
    assert result.papers


def test_a_long_first_read_shows_its_progress_item_by_item(library: ZoteroFixture) -> None:
    seen: list[tuple[str, int, int]] = []
    load_paths([library.folder], progress=lambda what, done, total: seen.append((what, done, total)))
    assert [entry for entry in seen if entry[0] == "reading Zotero items"] == [
        ("reading Zotero items", n, 5) for n in range(6)
    ]


def test_an_item_type_rag_does_not_know_is_a_document(library: ZoteroFixture) -> None:
    library.item("FFFF6666", "someFutureType", title="Something new", abstractNote="Of a new kind.")
    assert _read(library.folder)[0]["FFFF6666"].item_type == "document"


# --- the real databases in ../shared/real/zotero --------------------------------------------------------------

REAL_DATABASES = {
    "hsteinshiromoto__bibliography": {"userdata": 120, "items": 38, "abstracts": 13, "pdfs": 8, "missing": 9},
    "arreme__ProgrammingAndMathsZoteroResources": {"userdata": 123, "items": 204, "abstracts": 87, "pdfs": 0},
}


@needs_real
@pytest.mark.parametrize("name", sorted(REAL_DATABASES))
def test_every_table_and_column_rag_reads_is_in_the_real_databases(name: str) -> None:
    from zotero_fixture import SCHEMA

    uri = (REAL / "zotero" / name / "zotero.sqlite").resolve().as_uri() + "?immutable=1"
    real = sqlite3.connect(uri, uri=True)
    fixture = sqlite3.connect(":memory:")
    fixture.executescript(SCHEMA)
    try:
        assert real.execute("SELECT version FROM version WHERE schema = 'userdata'").fetchone() == (
            REAL_DATABASES[name]["userdata"],
        )
        for table, columns in READ_COLUMNS.items():
            have = {row[1] for row in real.execute(f'PRAGMA table_info("{table}")')}
            assert set(columns) <= have, (table, set(columns) - have)
            built = {row[1] for row in fixture.execute(f'PRAGMA table_info("{table}")')}
            assert set(columns) <= built and built <= have, f"the fixture's {table} has columns the real one lacks"
    finally:
        real.close()
        fixture.close()


@pytest.fixture(scope="module")
def real_ingests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, object], Path]]:
    """Each real database ingested once with `rag ingest`, by words only: what is read and which keys resolve
    does not depend on the vectors, and embedding 283 PDF passages took most of a minute of the suite."""
    results: dict[str, tuple[dict[str, object], Path]] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAG_EMBED_MODEL", "none")
        for name in REAL_DATABASES:
            data = tmp_path_factory.mktemp(name) / "data"
            patch.setenv("RAG_DATA_DIR", str(data))
            before = _files(REAL / "zotero" / name)
            result = runner.invoke(app, ["ingest", str(REAL / "zotero" / name), "--json"])
            assert result.exit_code == 0, result.stderr
            results[name] = ({**json.loads(result.stdout), "stderr": result.stderr, "files_before": before}, data)
    return results


def _files(folder: Path) -> dict[str, tuple[str, int]]:
    """Each file beside a database (not its storage/ PDFs): its sha256 and modification time."""
    import hashlib

    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in folder.iterdir()
        if p.is_file()
    }


@needs_real
@pytest.mark.parametrize("name", sorted(REAL_DATABASES))
def test_real_databases_through_rag_ingest(
    name: str, real_ingests: dict[str, tuple[dict[str, object], Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = REAL_DATABASES[name]
    result, data = real_ingests[name]
    monkeypatch.setenv("RAG_DATA_DIR", str(data))
    assert (result["files_read"], result["papers_found"]) == (1, expected["items"])
    code, out, _ = invoke("papers", "--json")
    papers = json.loads(out)["papers"]
    assert len(papers) == expected["items"]
    catalog = json.loads((data / "papers" / "papers.json").read_text(encoding="utf-8"))["papers"]
    with_pdf_text = [p for p in catalog if p["passages"]]
    assert len(with_pdf_text) == expected["pdfs"], "passages from every PDF that is present"
    assert sum(not p["no_abstract"] for p in catalog) >= expected["abstracts"], "Zotero's abstracts, and PDFs'"
    missing = [w for w in str(result["stderr"]).splitlines() if "is missing; the item is kept" in w]
    assert len(missing) == expected.get("missing", 0)
    for paper in papers:
        code, out, _ = invoke("show", paper["citekey"], "--json")
        assert code == 0 and json.loads(out)["citekey"] == paper["citekey"]


@needs_real
def test_real_better_bibtex_keys_and_collections(real_ingests: dict[str, tuple[dict[str, object], Path]]) -> None:
    name = "arreme__ProgrammingAndMathsZoteroResources"
    folder = REAL / "zotero" / name
    uri = (folder / "better-bibtex.sqlite").resolve().as_uri() + "?immutable=1"
    with sqlite3.connect(uri, uri=True) as bbt:
        expected = dict(bbt.execute("SELECT itemKey, citationKey FROM citationkey").fetchall())
    catalog = json.loads((real_ingests[name][1] / "papers" / "papers.json").read_text(encoding="utf-8"))["papers"]
    got = {p["sources"][0].rpartition("#")[2]: p["citekey"] for p in catalog}
    assert got == expected, "every item keeps its Better BibTeX key"
    stderr = str(real_ingests[name][0]["stderr"])
    assert "journal" not in stderr, "the leftover journal's header is zeroed: it holds no unfinished change"
    hstein = json.loads(
        (real_ingests["hsteinshiromoto__bibliography"][1] / "papers" / "papers.json").read_text(encoding="utf-8")
    )["papers"]
    assert sum(p["collections"] == ["MachineLearning"] for p in hstein) == 20


@needs_real
def test_real_legacy_better_bibtex_database() -> None:
    """The LokiJS-in-SQLite layout (its zotero.sqlite was too big for the snapshot): 122 keys."""
    from rag.corpus import better_bibtex_keys

    keys, warnings = better_bibtex_keys(REAL / "bibtex" / "AhmedThahir__Zotero_Database")
    assert (len(keys), warnings) == (122, [])
    assert keys[(1, "JSX7YEKF")] == "hoegeInterdisciplinaryApproachSports2020"


@needs_real
def test_real_databases_are_unchanged_by_a_read(real_ingests: dict[str, tuple[dict[str, object], Path]]) -> None:
    """After the ingests above: every file beside each database as it was (bytes, mtime), and none added."""
    for name in REAL_DATABASES:
        assert _files(REAL / "zotero" / name) == real_ingests[name][0]["files_before"]


def test_an_unreadable_pdf_cache_entry_is_parsed_again(library: ZoteroFixture, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    options = ReadOptions(pdf_cache=cache)
    load_paths([library.folder], options=options)
    for entry in cache.iterdir():
        entry.write_text("{not json", encoding="utf-8")
    again = ReadOptions(pdf_cache=cache)
    papers = _by_key(load_paths([library.folder], options=again).papers)
    assert (again.pdfs.parsed, again.pdfs.reused) == (2, 0) and papers["AAAA1111"].passages


def test_errors_are_input_errors_for_the_loader(tmp_path: Path) -> None:
    (tmp_path / "zotero.sqlite").write_bytes(b"")
    with pytest.raises(InputError, match=r"nothing to ingest: skipped zotero\.sqlite: not an SQLite database"):
        load_paths([tmp_path])


def test_a_damaged_schema_quoted_by_sqlite_is_still_one_line() -> None:
    from rag.corpus.zotero.sqlite_files import _reason

    reason = _reason("zotero.sqlite", sqlite3.DatabaseError("malformed database schema (\nversion)"), "restore it")
    assert "\n" not in reason and "malformed database schema ( version)" in reason
