"""One work, one paper, every key kept: duplicates across files and formats are merged, and every citekey
a source ever gave a paper keeps resolving in show, remove, export, drafts and MCP."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.formats import bibtex_entry, csl_item
from rag.records import Paper
from rag.services import Context
from rag.services import ingest as ingest_service
from rag.services import read as read_service

runner = CliRunner()
ABSTRACT = "We study how emergent languages generalize when agents must communicate about compositional inputs."
# The same Zotero library exported twice: BibTeX (straight quotes) and CSL JSON (typographic ones).
BIB = f"""@inproceedings{{kharitonov_emergent_2020,
  title = {{Emergent Language Generalization and Acquisition Speed are not tied to Compositionality}},
  author = {{Kharitonov, Eugene and Baroni, Marco}},
  year = {{2020}},
  booktitle = {{Proceedings of the Third BlackboxNLP Workshop}},
  pages = {{11--20}},
  publisher = {{Association for Computational Linguistics}},
  doi = {{10.18653/v1/2020.blackboxnlp-1.2}},
  abstract = {{{ABSTRACT} It's the agents' choice.}}
}}

@inproceedings{{kharitonov_emergent_2020-1,
  title = {{Emergent Language Generalization and Acquisition Speed are not tied to Compositionality}},
  author = {{Kharitonov, Eugene and Baroni, Marco}},
  year = {{2020}},
  abstract = {{{ABSTRACT} It's the agents' choice.}}
}}

@article{{lewis_deal_2017,
  title = {{Deal or No Deal? End-to-End Learning for Negotiation Dialogues}},
  author = {{Lewis, Mike and Yarats, Denis}},
  year = {{2017}},
  abstract = {{Much of human dialogue occurs in semi-cooperative settings where agents with other goals ...}}
}}
"""
CSL = [
    {
        "id": "lewis_deal_2017",
        "type": "article-journal",
        "title": "Deal or No Deal? End-to-End Learning for Negotiation Dialogues",
        "author": [{"family": "Lewis", "given": "Mike"}, {"family": "Yarats", "given": "Denis"}],
        "issued": {"date-parts": [[2017]]},
        "abstract": "Much of human dialogue occurs in semi\u2011cooperative settings where agents with other goals ...",
    },
    {
        "id": "kharitonov2020emergent",
        "type": "paper-conference",
        "title": "Emergent language generalization and acquisition speed are not tied to compositionality",
        "author": [{"family": "Kharitonov", "given": "Eugene"}],
        "issued": {"date-parts": [[2020]]},
        "abstract": f"{ABSTRACT} It\u2019s the agents\u2019 choice.",
    },
]


def _ingest(*paths: Path, collection: str = "thesis") -> tuple[ingest_service.IngestResult, list[str]]:
    notices: list[str] = []
    ctx = Context(load_settings(collection=collection), notify=notices.append)
    return ingest_service.ingest(ctx, list(paths)), notices


@pytest.fixture
def library_files(tmp_path: Path, no_model: Path) -> tuple[Path, Path]:
    bib, csl = tmp_path / "zotero.bib", tmp_path / "zotero.json"
    bib.write_text(BIB, encoding="utf-8")
    csl.write_text(json.dumps(CSL), encoding="utf-8")
    return bib, csl


def test_zotero_duplicates_become_one_paper_under_the_first_key(library_files: tuple[Path, Path]) -> None:
    bib, _ = library_files
    result, notices = _ingest(bib)
    assert result.total_papers == 2
    assert result.merged == {"kharitonov_emergent_2020-1": "kharitonov_emergent_2020"}
    assert "1 duplicate entry merged: kharitonov_emergent_2020-1 -> kharitonov_emergent_2020" in " ".join(notices)
    for key in ("kharitonov_emergent_2020", "kharitonov_emergent_2020-1"):
        shown = runner.invoke(app, ["--collection", "thesis", "show", key, "--json"])
        assert shown.exit_code == 0, shown.stderr
        paper = json.loads(shown.stdout)
        assert paper["citekey"] == "kharitonov_emergent_2020" and paper["aliases"] == ["kharitonov_emergent_2020-1"]
        assert paper["doi"] == "10.18653/v1/2020.blackboxnlp-1.2", "the richer of the two entries leads"
        assert paper["venue"] == "Proceedings of the Third BlackboxNLP Workshop" and paper["pages"] == "11-20"


def test_the_same_library_in_two_formats_is_not_doubled(library_files: tuple[Path, Path]) -> None:
    bib, csl = library_files
    _ingest(bib)
    result, notices = _ingest(csl)
    assert (result.added, result.total_papers) == (0, 2), "same title, authors and year: the same two papers"
    assert result.merged == {"kharitonov2020emergent": "kharitonov_emergent_2020"}
    assert not any("already used" in n for n in notices), "lewis_deal_2017 is one paper, not a key clash"
    again, _ = _ingest(csl)
    assert (again.added, again.updated, again.merged) == (0, 0, {}), "reading it again changes nothing"
    exported = runner.invoke(app, ["--collection", "thesis", "export"]).stdout
    entries = re.findall(r"^@(?!comment)\w+\{([^,]+),", exported, flags=re.M)  # rag's records are comments
    assert sorted(entries) == ["kharitonov_emergent_2020", "lewis_deal_2017"]
    assert "ids = {kharitonov_emergent_2020-1, kharitonov2020emergent}" in exported


def test_every_key_resolves_in_remove_drafts_and_mcp_lookups(library_files: tuple[Path, Path]) -> None:
    bib, csl = library_files
    _ingest(bib, csl)
    draft = runner.invoke(
        app, ["--collection", "thesis", "draft", "emergent language", "--cite", "kharitonov2020emergent", "--json"]
    )
    assert draft.exit_code == 0, draft.stderr
    assert "kharitonov_emergent_2020" in {c["citekey"] for c in json.loads(draft.stdout)["citations"]}
    dry = runner.invoke(app, ["--collection", "thesis", "remove", "--dry-run", "kharitonov_emergent_2020-1", "--json"])
    assert [p["citekey"] for p in json.loads(dry.stdout)["would_remove"]] == ["kharitonov_emergent_2020"]


def test_one_doi_on_two_different_titles_keeps_them_apart_and_says_so(tmp_path: Path, no_model: Path) -> None:
    (tmp_path / "a.bib").write_text(
        "@article{a, title={Sparse experts on small GPUs}, doi={10.1000/xyz123}, abstract={Routing tokens.}}\n"
        "@article{b, title={Pipelines for long contexts in chat}, doi={10.1000/XYZ123}, abstract={Long inputs.}}\n"
    )
    result, notices = _ingest(tmp_path / "a.bib")
    assert result.total_papers == 2
    assert any("2 papers share doi 10.1000/xyz123 but their titles differ, kept apart" in n for n in notices)


def test_one_bogus_identifier_on_six_entries_is_one_warning_not_one_per_pair(tmp_path: Path, no_model: Path) -> None:
    titles = ["Sparse experts", "Long pipelines", "Quantised adapters", "Tiny routers", "Cache eviction", "Beam search"]
    (tmp_path / "a.bib").write_text(
        "".join(
            f"@article{{k{n}, title={{{t}}}, eprint={{2101.00001}}, archiveprefix={{arXiv}}, abstract={{Text {n}.}}}}\n"
            for n, t in enumerate(titles)
        )
    )
    result, notices = _ingest(tmp_path / "a.bib")
    assert result.total_papers == 6
    shared = [n for n in notices if "share arxiv 2101.00001" in n]
    assert (
        len(shared) == 1
        and shared[0].startswith("6 papers share arxiv 2101.00001")
        and all(t in shared[0] for t in titles)
    )


def test_two_files_giving_one_key_to_two_papers_keep_both(tmp_path: Path, no_model: Path) -> None:
    (tmp_path / "a.bib").write_text("@article{smith2020, title={Sparse experts on small GPUs}, abstract={A.}}\n")
    (tmp_path / "b.bib").write_text("@article{smith2020, title={Pipelines for long contexts}, abstract={B.}}\n")
    _ingest(tmp_path / "a.bib")
    result, notices = _ingest(tmp_path / "b.bib")
    assert result.total_papers == 2
    (line,) = [n for n in notices if "already used" in n]
    assert "'smith2020' is already used by another paper ('Sparse experts on small GPUs')" in line
    assert "('Pipelines for long contexts') is 'smith2020b'" in line
    shown = read_service.show(Context(load_settings(collection="thesis")), "smith2020").paper
    assert shown.title == "Sparse experts on small GPUs", "the key seen first keeps naming its paper"


def test_bibliographies_carry_venue_pages_publisher_and_aliases() -> None:
    paper = Paper(
        id="p1",
        text="t",
        title="Emergent Language Generalization",
        authors=["Kharitonov, Eugene"],
        year=2020,
        citekey="kharitonov_emergent_2020",
        aliases=["kharitonov_emergent_2020-1"],
        venue="Proceedings of the Third BlackboxNLP Workshop",
        pages="11-20",
        publisher="Association for Computational Linguistics",
        doi="10.18653/v1/2020.blackboxnlp-1.2",
        url="https://aclanthology.org/2020.blackboxnlp-1.2",
        item_type="paper-conference",
        arxiv="2004.03420",
    )
    entry = bibtex_entry(paper)
    assert entry.startswith("@inproceedings{kharitonov_emergent_2020,\n  ids = {kharitonov_emergent_2020-1},")
    assert "booktitle = {Proceedings of the Third BlackboxNLP Workshop}" in entry and "pages = {11--20}" in entry
    assert "url = {https://aclanthology.org/2020.blackboxnlp-1.2}" in entry
    item = csl_item(paper)
    assert item["type"] == "paper-conference" and item["container-title"] == paper.venue
    assert item["publisher"] == "Association for Computational Linguistics", "not 'arXiv': it has a venue"
    assert item["page"] == "11-20" and item["URL"] == paper.url and item["number"] == "arXiv:2004.03420"
    own = Paper(id="p2", text="t", citekey="k", aliases=["k-1"], bibtex="@article{k,\n  title = {T},\n}")
    # The user's entry as written, with the other key and what the library knows that it lacks (the abstract).
    assert bibtex_entry(own) == "@article{k,\n  ids = {k-1},\n  title = {T},\n  abstract = {t}\n}"


@pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed (.ci/run installs it)")
def test_pandoc_renders_the_venue_of_a_drafted_bibliography(library_files: tuple[Path, Path], tmp_path: Path) -> None:
    bib, _ = library_files
    _ingest(bib)
    refs = tmp_path / "refs.json"
    args = ["--collection", "thesis", "draft", "emergent language", "--format", "pandoc", "--bib", str(refs)]
    result = runner.invoke(app, [*args, "--cite", "kharitonov_emergent_2020"])
    assert result.exit_code == 0, result.stderr
    rendered = subprocess.run(
        ["pandoc", "--citeproc", "--bibliography", str(refs), "-f", "markdown", "-t", "plain", "--wrap=none"],
        input=result.stdout,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Proceedings of the Third BlackboxNLP Workshop" in rendered.stdout, rendered.stdout
    assert "Association for Computational Linguistics" in rendered.stdout and "arXiv" not in rendered.stdout


def test_show_prints_the_doi_venue_and_every_key(library_files: tuple[Path, Path]) -> None:
    bib, _ = library_files
    _ingest(bib)
    shown = runner.invoke(app, ["--collection", "thesis", "show", "kharitonov_emergent_2020"], env={"COLUMNS": "200"})
    assert "DOI" in shown.stdout and "10.18653/v1/2020.blackboxnlp-1.2" in shown.stdout
    assert "Proceedings of the Third BlackboxNLP Workshop, 11-20" in shown.stdout
    assert "also cited as" in shown.stdout and "kharitonov_emergent_2020-1" in shown.stdout


def test_one_doi_on_a_title_written_with_and_without_its_symbol_is_one_paper(tmp_path: Path, no_model: Path) -> None:
    """Exports write a Greek letter or a symbol in a title their own way ("β", "beta", or dropped): with one DOI
    those records are one work, not a shared-identifier warning."""
    (tmp_path / "a.bib").write_text(
        "@article{wos, title={Restoring miR-148a curbs invasion through the Wnt/-catenin pathway in pancreatic "
        "cancer}, doi={10.1000/mir148}, abstract={miR-148a restored. Wnt/-catenin signalling fell.}}\n"
        "@article{pubmed, title={Restoring miR-148a curbs invasion through the Wnt/beta-catenin pathway in "
        "pancreatic cancer.}, doi={10.1000/MIR148}, abstract={miR-148a restored. Wnt/beta-catenin signalling fell.}}\n"
    )
    result, notices = _ingest(tmp_path / "a.bib")
    assert result.total_papers == 1
    assert not any("titles differ" in n for n in notices)
