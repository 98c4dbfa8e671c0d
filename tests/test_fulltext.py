"""PDF full text: passages indexed beside their paper, found by search, quoted by answers, cited as the paper."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_model
from fake_openai import FakeOpenAI, Reply
from pdf_fixture import write_pdf
from typer.testing import CliRunner

from rag.check import Support
from rag.cli import app
from rag.config import load_settings
from rag.corpus import load_paths
from rag.index import HybridRetriever, LocalUnits, split_unit_id, units_of
from rag.records import Method, Paper, Passage
from rag.services import Context, SearchRequest, WritingOptions, ask
from rag.services import ingest as ingest_service
from rag.services import read as read_service

runner = CliRunner()
TITLE = "Placing Pipelines on Mixed GPUs"
FIRST_PAGE = [
    TITLE,
    "Ann Roe",
    "Abstract",
    "We place pipeline stages of large model training on clusters with mixed accelerators.",
    "1 Introduction",
    "Large models need many accelerators and a real cluster is rarely uniform, so the stages",
    "of a training pipeline have to be matched to devices of different speed and memory size.",
]
METHOD_PAGE = [
    "2 Method",
    "Our planner solves an integer linear program that assigns layers to devices. It weighs the",
    "compute time of every stage against the bandwidth of the links between stages, and it re-plans",
    "within seconds when a device fails, keeping the through-",
    "put loss under five percent.",
]
RESULTS_PAGE = [
    "3 Results",
    "On sixty-four machines the plans reach ninety percent of the ideal throughput, and the solver",
    "finishes in under a minute for models with one hundred layers on every cluster we tried.",
    "References",
    "[1] Some Author. A cited paper about integer linear program solvers and failures. 2020.",
]
BODY_ONLY_QUESTION = "which planner re-plans when a device fails using an integer linear program?"


def _pdf(folder: Path, *pages: list[str], author: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return write_pdf(folder / "pipelines.pdf", FIRST_PAGE, title=TITLE, more_pages=pages, author=author)


def test_pdf_body_becomes_passages_with_their_pages(tmp_path: Path) -> None:
    path = _pdf(tmp_path, METHOD_PAGE, RESULTS_PAGE)
    paper = next(iter(load_paths([path]).papers.values()))
    assert paper.text.startswith("We place pipeline stages") and "Introduction" not in paper.text
    assert [p.n for p in paper.passages] == list(range(1, len(paper.passages) + 1))
    by_page = {p.page: p.text for p in paper.passages}
    assert set(by_page) == {1, 2, 3}, "the rest of page 1 after the abstract, then pages 2 and 3"
    assert "We place pipeline stages" not in by_page[1], "the abstract is not indexed twice"
    assert "the throughput loss" in by_page[2], "a word hyphenated across lines is joined again"
    assert "Some Author" not in " ".join(by_page.values()), "the reference list is not indexed"
    only_abstract = next(iter(load_paths([path], full_text=False).papers.values()))
    assert only_abstract.passages == [] and only_abstract.id == paper.id


def test_search_finds_a_paper_by_its_body_and_lists_it_once(tmp_path: Path) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    settings = load_settings(collection="mine")
    report = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert (report.added, report.passages_found) == (1, 3)
    hits = read_service.search(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 5)).hits
    assert [h.paper.title for h in hits] == [TITLE], "one paper, however many of its passages matched"
    assert hits[0].passage is not None and hits[0].passage.page == 2
    listing = read_service.papers(Context(settings)).papers
    assert len(listing) == 1 and len(listing[0].passages) == 3
    exported = runner.invoke(app, ["--collection", "mine", "export", "--format", "jsonl"])
    assert exported.exit_code == 0 and len(exported.stdout.splitlines()) == 1
    assert "passages" not in json.loads(exported.stdout)
    searched = json.loads(runner.invoke(app, ["--collection", "mine", "search", BODY_ONLY_QUESTION, "--json"]).stdout)
    assert searched["hits"][0]["passage"]["page"] == 2
    human = runner.invoke(app, ["--collection", "mine", "search", BODY_ONLY_QUESTION])
    assert "p. 2: Our planner" in human.stdout  # the heading "2 Method" is not glued onto the passage
    shown = runner.invoke(app, ["--collection", "mine", "show", listing[0].citekey])
    assert "3 passages from 3 pages" in shown.stdout
    listed = json.loads(runner.invoke(app, ["--collection", "mine", "papers", "--json"]).stdout)["papers"]
    assert [p["passages"] for p in listed] == [3], "a listing counts passages instead of printing them"
    full = json.loads(runner.invoke(app, ["--collection", "mine", "show", listing[0].citekey, "--json"]).stdout)
    assert [p["page"] for p in full["passages"]] == [1, 2, 3]


def test_extractive_answer_quotes_the_passage_with_its_page(tmp_path: Path) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    runner.invoke(app, ["--collection", "mine", "ingest", str(tmp_path / "pdfs")])
    result = runner.invoke(app, ["--collection", "mine", "ask", BODY_ONLY_QUESTION, "--no-llm", "--json"])
    assert result.exit_code == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["mode"] == "extractive"
    assert "integer linear program" in answer["answer"] and "(p. 2) [1]" in answer["answer"]
    assert [c["title"] for c in answer["citations"]] == [TITLE]


def test_the_model_sees_the_matched_passage_and_cites_the_paper(tmp_path: Path) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    ingest_service.ingest(Context(load_settings(collection="mine")), [tmp_path / "pdfs"])
    with FakeOpenAI() as fake:
        fake.play(Reply(text="The planner re-plans within seconds when a device fails [1]."))
        settings = load_settings(collection="mine", llm_model="test-model", llm_base_url=fake.url)
        answer = ask(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 3), WritingOptions(cache=False))
        prompt = json.dumps(fake.requests[0]["messages"])
    assert "From the full text (p. 2): Our planner" in prompt
    assert [c.paper.title for c in answer.citations] == [TITLE]
    assert answer.sentences[0].support is Support.EVIDENCE, "checked against the passage, not the abstract only"
    assert answer.sentences[0].evidence is not None and "re-plans within seconds" in answer.sentences[0].evidence.text


def test_passages_of_one_paper_do_not_crowd_out_other_papers() -> None:
    crowded = Paper(
        "crowded",
        "An abstract on scheduling.",
        title="Crowded",
        passages=[Passage(n, f"GPU scheduling passage {n} about GPU clusters.", n) for n in range(1, 11)],
    )
    others = [Paper(f"other{i}", f"A paper on GPU work number {i}.", title=f"Other {i}") for i in range(3)]
    retriever = HybridRetriever(LocalUnits.of([crowded, *others]), None, 0.4, 100)
    hits = retriever.search("GPU scheduling clusters", 3, method=Method.LEXICAL)
    assert hits[0].paper.id == "crowded"
    assert len({h.paper.id for h in hits}) == 3 and [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].passage is not None and all(h.passage is None for h in hits[1:])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_unit_ids_name_their_paper() -> None:
    paper = Paper("p-1234#x", "abstract", passages=[Passage(1, "one"), Passage(2, "two")])
    assert [split_unit_id(u.id) for u in units_of(paper)] == [("p-1234#x", 0), ("p-1234#x", 1), ("p-1234#x", 2)]
    assert split_unit_id("plain#pages") == ("plain#pages", 0)


@needs_model
def test_a_shorter_new_version_leaves_no_stale_passages(tmp_path: Path) -> None:

    settings = load_settings(collection="mine")
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    _pdf(tmp_path / "pdfs", METHOD_PAGE)  # the same paper, its last page gone
    report = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert (report.added, report.updated) == (0, 1)
    with Context(settings).reader() as library:
        assert library.store is not None
        assert library.store.ids() == {u.id for u in units_of(next(iter(library.catalog.papers.values())))}
        assert library.store.count() == 3
    assert runner.invoke(app, ["--collection", "mine", "remove", "pipelines.pdf#1"]).exit_code == 0
    with Context(settings).reader() as library:
        assert library.store is not None and library.store.count() == 0


@pytest.mark.parametrize("flag", ["--abstract-only"])
def test_abstract_only_ingest_indexes_no_passages(tmp_path: Path, flag: str) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    result = runner.invoke(app, ["--collection", "mine", "ingest", flag, str(tmp_path / "pdfs")])
    assert result.exit_code == 0 and "passages" not in result.stdout
    assert read_service.papers(Context(load_settings(collection="mine"))).papers[0].passages == []


def test_a_page_that_fails_to_extract_loses_its_passages_not_the_paper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pypdf import PageObject

    original = PageObject.extract_text

    def fragile(page: PageObject, *args: object, **kwargs: object) -> str:
        text = original(page, *args, **kwargs)  # type: ignore[arg-type]
        if "3 Results" in text:
            raise KeyError("/Font")  # what pypdf raises on a page with a broken resource dictionary
        return text

    monkeypatch.setattr(PageObject, "extract_text", fragile)
    paper = next(iter(load_paths([_pdf(tmp_path, METHOD_PAGE, RESULTS_PAGE)]).papers.values()))
    assert paper.title == TITLE and {p.page for p in paper.passages} == {1, 2}


def test_reading_a_pdf_again_abstract_only_drops_its_passages(tmp_path: Path) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    report = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"], full_text=False)
    assert report.updated == 1 and read_service.papers(Context(settings)).papers[0].passages == []
    hits = read_service.search(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 5)).hits
    assert all(h.passage is None for h in hits), "no passage of the old version is still searched"


def test_an_abstract_sentence_starting_with_introduction_does_not_end_it(tmp_path: Path) -> None:
    lines = [
        "Lamin Assembly",
        "Abstract",
        "We study nuclear lamins in living cells.",
        "Introduction of wild-type lamin A protein restores the nuclear shape.",
        "Introduction",
        "Lamins are intermediate filament proteins that line the nucleus.",
    ]
    paper = next(iter(load_paths([write_pdf(tmp_path / "lamin.pdf", lines)]).papers.values()))
    assert paper.text.endswith("restores the nuclear shape.")


def test_without_an_end_heading_the_body_starts_after_the_abstract(tmp_path: Path) -> None:
    import re

    sentences = [f"Sentence  number {i} is about  pipelines   and devices in clusters." for i in range(60)]
    paper = next(
        iter(
            load_paths(
                [write_pdf(tmp_path / "long.pdf", ["Long Abstract Paper", "Abstract", *sentences])]
            ).papers.values()
        )
    )
    whole = re.compile(r"Sentence number (\d+) is about pipelines and devices in clusters\.")
    in_abstract = {int(n) for n in whole.findall(paper.text)}
    in_passages = {int(n) for p in paper.passages for n in whole.findall(p.text)}
    assert in_abstract and in_passages, "what does not fit in the abstract is kept as passages"
    assert not in_abstract & in_passages, "no sentence is indexed twice"
    assert len(in_abstract | in_passages) >= len(sentences) - 1, "at most the sentence cut at the boundary is lost"


BIB_ENTRY = """@article{roe2023placing,
  title = {Placing Pipelines on Mixed {GPUs}},
  author = {Roe, Ann and Li, Bo},
  year = {2023},
  doi = {10.1000/pipelines},
  abstract = {We place the pipeline stages of large model training on clusters with mixed accelerators.},
}
"""


@pytest.mark.parametrize("pdf_first", [True, False])
def test_a_pdf_and_its_bibtex_entry_are_one_paper(tmp_path: Path, pdf_first: bool) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE, author="Ann Roe")  # the entry says 'Roe, Ann
    (tmp_path / "refs.bib").write_text(BIB_ENTRY, encoding="utf-8")
    settings = load_settings(collection="mine")
    order = [tmp_path / "pdfs", tmp_path / "refs.bib"]
    for path in order if pdf_first else order[::-1]:
        ingest_service.ingest(Context(settings), [path])
    (paper,) = read_service.papers(Context(settings)).papers
    assert (paper.citekey, paper.year, paper.doi) == ("roe2023placing", 2023, "10.1000/pipelines")
    assert paper.text.startswith("We place the pipeline stages of large model training")
    assert len(paper.passages) == 3 and sorted(paper.sources) == ["pipelines.pdf#1", "refs.bib#roe2023placing"]
    again = ingest_service.ingest(Context(settings), [tmp_path / "pdfs", tmp_path / "refs.bib"])
    assert (again.added, again.updated, again.unchanged, again.total_papers) == (0, 0, 1, 1)
    (hit,) = read_service.search(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 3)).hits
    assert hit.paper.citekey == "roe2023placing" and hit.passage is not None and hit.passage.page == 2


def test_a_pdf_is_not_merged_with_a_different_paper_of_the_same_title(tmp_path: Path) -> None:
    _pdf(tmp_path / "pdfs", METHOD_PAGE, author="Ann Roe")
    other_author = BIB_ENTRY.replace("author = {Roe, Ann and Li, Bo}", "author = {Wu, Cy}")
    (tmp_path / "refs.bib").write_text(other_author, encoding="utf-8")
    report = ingest_service.ingest(
        Context(load_settings(collection="mine")), [tmp_path / "pdfs", tmp_path / "refs.bib"]
    )
    assert report.added == 2, "same title, another first author: two papers"


@needs_model
def test_reindex_rebuilds_the_passages_too(tmp_path: Path) -> None:

    _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert ingest_service.reindex(Context(settings)).papers == 1
    with Context(settings).reader() as library:
        assert library.store is not None and library.store.count() == 4
    (hit,) = read_service.search(Context(settings), SearchRequest(BODY_ONLY_QUESTION, 3)).hits
    assert hit.passage is not None and hit.passage.page == 2 and hit.dense is not None


def test_a_fake_pdf_is_one_line_without_the_pdf_librarys_own_warnings(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from rag.cli import app

    (tmp_path / "fake.pdf").write_bytes(b"not really a pdf %PDF-1.4 garbage")
    result = CliRunner().invoke(app, ["--collection", "mine", "ingest", str(tmp_path / "fake.pdf")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "error: nothing to ingest: skipped fake.pdf: unreadable PDF (PdfStreamError: Stream has ended unexpectedly)"
    ]


def test_a_pdf_folder_read_again_parses_only_the_pdfs_that_changed(tmp_path: Path) -> None:
    path = _pdf(tmp_path / "pdfs", METHOD_PAGE, RESULTS_PAGE)
    (tmp_path / "pdfs" / "fake.pdf").write_bytes(b"not really a pdf %PDF-1.4 garbage")
    settings = load_settings(collection="mine")
    first = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert (first.pdfs_parsed, first.pdfs_reused, first.added) == (2, 0, 1)
    again = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert (again.pdfs_parsed, again.pdfs_reused, again.unchanged, again.passages_found) == (0, 2, 1, 3)
    assert [w for w in again.warnings if "fake.pdf" in w] == [w for w in first.warnings if "fake.pdf" in w], (
        "a PDF that could not be read is said the same way, without reading it again"
    )
    short = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"], full_text=False)
    assert (short.pdfs_parsed, short.passages_found) == (0, 0), "--abstract-only from the full parse"
    write_pdf(path, FIRST_PAGE, title="Placing Pipelines on Mixed GPUs, revised", more_pages=[METHOD_PAGE])
    changed = ingest_service.ingest(Context(settings), [tmp_path / "pdfs"])
    assert (changed.pdfs_parsed, changed.pdfs_reused, changed.passages_found) == (1, 1, 2), "a changed PDF is parsed"
