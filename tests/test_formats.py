"""Bring your own library: BibTeX, JSONL/CSV exports, PDF and Markdown, with their bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdf_fixture import write_pdf
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.corpus import load_paths
from rag.errors import InputError
from rag.services import Context
from rag.services import ingest as ingest_service
from rag.services import read as read_service

runner = CliRunner()

BIB = r"""@article{yuan2022decentralized,
  title = {Decentralized Training of {Foundation} Models in Heterogeneous Environments},
  author = {Yuan, Binhang and Zhang, Ce},
  year = {2022},
  eprint = {2206.01288},
  archivePrefix = {arXiv},
  abstract = {Training foundation models is expensive.
              We schedule training over slow, \emph{heterogeneous} networks of GPUs.}
}

@inproceedings{broken2021,
  title = {A Broken Entry,
  year = 2021

@misc{titleonly2020,
  title = {Power-Aware Serving of Mixture-of-Experts Models},
  author = {Doe, Jane},
  year = {2020},
  doi = {10.1000/xyz}
}

@misc{titleonly2020,
  title = {A Duplicate Key},
}
"""

ARXIV = {
    "id": "2312.03549",
    "title": "Holmes: Towards Distributed Training Across Clusters with Heterogeneous NIC Environment",
    "abstract": "  Large language models are trained across clusters whose network interfaces differ.\n",
    "authors": "Fei Yang, Shuang Peng and Ning Sun",
    "authors_parsed": [["Yang", "Fei", ""], ["Peng", "Shuang", ""]],
    "update_date": "2023-12-06",
}
OPENALEX = {
    "id": "https://openalex.org/W4",
    "display_name": "Imitating Task and Motion Planning with Visuomotor Transformers",
    "abstract_inverted_index": {"Robots": [0], "imitate": [1], "planners.": [2]},
    "authorships": [{"author": {"display_name": "Murtaza Dalal"}}],
    "publication_year": 2023,
    "doi": "https://doi.org/10.1000/robots",
}
SEMANTIC_SCHOLAR = {
    "paperId": "c0ffee",
    "title": "HexiSeq: Long Context Training over Heterogeneous Hardware",
    "abstract": None,
    "authors": [{"name": "Yan Liang"}],
    "year": 2026,
    "externalIds": {"ArXiv": "2605.07569", "DOI": "10.1000/hexi"},
}


def test_bibtex_keys_become_citekeys_and_bad_entries_are_reported(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB)
    result = load_paths([tmp_path / "refs.bib"])
    papers = {p.citekey: p for p in result.papers.values()}
    assert set(papers) == {"yuan2022decentralized", "titleonly2020"}
    yuan = papers["yuan2022decentralized"]
    assert yuan.title == "Decentralized Training of Foundation Models in Heterogeneous Environments"
    assert (yuan.authors, yuan.year, yuan.arxiv) == (["Yuan, Binhang", "Zhang, Ce"], 2022, "2206.01288")
    assert "\\emph" not in yuan.text and "heterogeneous" in yuan.text
    assert yuan.bibtex is not None and yuan.bibtex.startswith("@article{yuan2022decentralized,")
    title_only = papers["titleonly2020"]
    assert title_only.no_abstract and title_only.doi == "10.1000/xyz" and title_only.text == title_only.title
    assert any(w.startswith("refs.bib:11: syntax error") for w in result.warnings)
    assert any(w.startswith("refs.bib:22: duplicate key") for w in result.warnings)


def test_jsonl_exports_of_arxiv_openalex_and_semantic_scholar(tmp_path: Path) -> None:
    rows = [ARXIV, OPENALEX, SEMANTIC_SCHOLAR, {"id": "nothing"}]
    (tmp_path / "export.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    result = load_paths([tmp_path / "export.jsonl"])
    by_source = {p.sources[0]: p for p in result.papers.values()}
    holmes, robots, hexi = by_source["export.jsonl#1"], by_source["export.jsonl#2"], by_source["export.jsonl#3"]
    assert (holmes.arxiv, holmes.year, holmes.authors) == ("2312.03549", 2023, ["Yang, Fei", "Peng, Shuang"])
    assert holmes.text == "Large language models are trained across clusters whose network interfaces differ."
    assert (robots.text, robots.doi, robots.authors) == (
        "Robots imitate planners.",
        "10.1000/robots",
        ["Murtaza Dalal"],
    )
    assert hexi.no_abstract and hexi.arxiv == "2605.07569"
    assert result.warnings == [
        "export.jsonl:4: no title or abstract, skipped",
        "export.jsonl: 1 entry has no abstract and is searched by title only",
    ]


def test_csv_with_a_field_mapping_and_a_missing_column(tmp_path: Path) -> None:
    csv_file = tmp_path / "scholar.csv"
    csv_file.write_text('name,summary,authors,year\n"GPU Things","We study GPUs, at scale.","Roe, Ann; Poe, Bo",2024\n')
    paper = next(iter(load_paths([csv_file], {"title": "name", "abstract": "summary"}).papers.values()))
    assert (paper.title, paper.text, paper.authors, paper.year) == (
        "GPU Things",
        "We study GPUs, at scale.",
        ["Roe, Ann", "Poe, Bo"],
        2024,
    )
    with pytest.raises(InputError, match=r"no column for --field abstract=abstract_text"):
        load_paths([csv_file], {"abstract": "abstract_text"})
    (tmp_path / "bare.csv").write_text("foo,bar\n1,2\n")
    with pytest.raises(InputError, match=r"no row with a title or abstract \(columns: bar, foo\)"):
        load_paths([tmp_path / "bare.csv"])


def test_pdf_title_and_abstract(tmp_path: Path) -> None:
    lines = [
        "Scheduling Jobs on Heterogeneous GPU Clusters",
        "Ann Roe",
        "Abstract",
        "We schedule training jobs across heterogeneous GPUs.",
        "1 Introduction",
        "Body text that is not the abstract.",
    ]
    write_pdf(tmp_path / "paper.pdf", lines, title="Scheduling Jobs on Heterogeneous GPU Clusters")
    paper = next(iter(load_paths([tmp_path / "paper.pdf"]).papers.values()))
    assert paper.title == "Scheduling Jobs on Heterogeneous GPU Clusters"
    assert paper.text == "We schedule training jobs across heterogeneous GPUs."


def test_encrypted_and_image_only_pdfs_are_one_clear_line(tmp_path: Path) -> None:
    from pypdf import PdfReader, PdfWriter

    source = write_pdf(tmp_path / "source.pdf", ["Abstract", "Secret text."])
    writer = PdfWriter(clone_from=PdfReader(str(source)))
    writer.encrypt("password", algorithm="RC4-128")
    with open(tmp_path / "locked.pdf", "wb") as handle:
        writer.write(handle)
    blank = PdfWriter()
    blank.add_blank_page(width=612, height=792)
    with open(tmp_path / "scan.pdf", "wb") as handle:
        blank.write(handle)
    source.unlink()
    with pytest.raises(InputError) as caught:
        load_paths([tmp_path])
    message = str(caught.value)
    assert "locked.pdf: encrypted PDF" in message and "scan.pdf: no text layer" in message


def test_markdown_document(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Sparse Experts at Scale\n\n## Abstract\n\nWe train sparse *experts*.\n")
    paper = next(iter(load_paths([tmp_path / "note.md"]).papers.values()))
    assert (paper.title, paper.text) == ("Sparse Experts at Scale", "We train sparse *experts*.")


def test_ingest_bibtex_then_draft_writes_the_users_entries(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(BIB)
    result = runner.invoke(app, ["--collection", "mine", "ingest", str(tmp_path / "refs.bib")])
    assert result.exit_code == 0, result.stderr
    assert "refs.bib:11: syntax error" in result.stderr
    bib = tmp_path / "out.bib"
    draft = runner.invoke(app, ["--collection", "mine", "draft", "training on heterogeneous GPUs", "--bib", str(bib)])
    assert draft.exit_code == 0, draft.stderr
    assert "archivePrefix = {arXiv}" in bib.read_text() and "@article{yuan2022decentralized," in bib.read_text()
    show = runner.invoke(app, ["--collection", "mine", "show", "yuan2022decentralized"])
    assert "Decentralized Training" in show.stdout


def test_user_key_clash_gets_a_suffix_and_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.bib").write_text("@misc{same, title={First Paper}, abstract={About GPUs.}}\n")
    (tmp_path / "b.bib").write_text("@misc{same, title={Second Paper}, abstract={About robots.}}\n")
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [tmp_path / "a.bib"])
    notices: list[str] = []
    ingest_service.ingest(Context(settings, notify=notices.append), [tmp_path / "b.bib"])
    keys = sorted(p.citekey for p in read_service.papers(Context(settings)).papers)
    assert keys == ["same", "sameb"]
    assert any("citekey 'same' is already used" in n for n in notices)


def test_reingesting_a_changed_bib_entry_updates_only_it(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{a, title={A}, abstract={Alpha text.}}\n@misc{b, title={B}, abstract={Beta text.}}\n")
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [bib])
    bib.write_text("@misc{a, title={A}, abstract={Alpha text.}}\n@misc{b, title={B}, abstract={Beta, revised.}}\n")
    report = ingest_service.ingest(Context(settings), [bib])
    assert (report.added, report.removed, report.unchanged) == (1, 1, 1)
    assert sorted(p.text for p in read_service.papers(Context(settings)).papers) == ["Alpha text.", "Beta, revised."]


@pytest.mark.parametrize(
    ("field", "names"),
    [
        ("Ann Roe and Bo Li", ["Ann Roe", "Bo Li"]),
        ("Roe, Ann; Li, Bo", ["Roe, Ann", "Li, Bo"]),
        ("Roe, A.", ["Roe, A."]),
        ("Ann Roe, Bo Li & Cy Wu", ["Ann Roe", "Bo Li", "Cy Wu"]),
        ("  ", []),
    ],
)
def test_pdf_author_field_becomes_names(field: str, names: list[str]) -> None:
    from rag.corpus.names import split_names as split_authors

    assert split_authors(field) == names


def test_pdf_author_metadata_gives_the_citekey(tmp_path: Path) -> None:
    lines = ["Placing Pipelines", "Abstract", "We place pipeline stages on mixed GPUs.", "1 Introduction"]
    write_pdf(tmp_path / "p.pdf", lines, title="Placing Pipelines", author="Ann Roe and Bo Li")
    settings = load_settings(collection="mine")
    ingest_service.ingest(Context(settings), [tmp_path / "p.pdf"])
    paper = read_service.papers(Context(settings)).papers[0]
    assert paper.authors == ["Ann Roe", "Bo Li"] and paper.citekey == "roeplacing"


def test_a_bad_jsonl_line_is_a_warning_and_the_rest_is_kept(tmp_path: Path) -> None:
    good = {"title": "Sparse experts on small GPUs", "abstract": "We route tokens to experts that fit in memory."}
    other = {"title": "Pipelines for long contexts", "abstract": "Long sequences are cut into chunks."}
    lines = [json.dumps(good), "{broken", "[1, 2]", json.dumps(other)]
    (tmp_path / "export.jsonl").write_text("\n".join(lines) + "\n")
    result = load_paths([tmp_path / "export.jsonl"])
    assert sorted(p.title or "" for p in result.papers.values()) == [other["title"], good["title"]]
    assert result.warnings[0].startswith("export.jsonl:2: malformed JSON line, skipped")
    assert result.warnings[1] == "export.jsonl:3: not a JSON object, skipped"


def test_a_csv_without_abstracts_says_so(tmp_path: Path) -> None:
    (tmp_path / "titles.csv").write_text("title,year\nSparse experts on small GPUs,2024\nLong contexts,2023\n")
    result = load_paths([tmp_path / "titles.csv"])
    assert len(result.papers) == 2
    assert result.warnings == [
        "titles.csv: no abstract column (columns: title, year); map one with --field abstract=COLUMN",
        "titles.csv: none of its 2 entries has an abstract; they are searched by title only",
    ]


def test_latex_drafts_build_with_pdflatex_symbols_in_math_and_other_scripts_named() -> None:
    from rag.check.sentences import Answer, AnswerMode, Citation
    from rag.formats import to_latex
    from rag.records import Paper

    paper = Paper(id="p", text="t", citekey="lee2020", authors=["Lee, Ana"], year=2020)
    answer = Answer("q", "Risk rose (p ≤ 0.05) by 5 µg of IFN-γ at 37 °C [1].", AnswerMode.LLM, [Citation(1, paper)])
    latex = to_latex(answer)
    assert latex == (
        "Risk rose (p \\ensuremath{\\leq} 0.05) by 5 \\ensuremath{\\mu}g of IFN-\\ensuremath{\\gamma} at 37 "
        "\\ensuremath{^\\circ}C~\\cite{lee2020}."
    )
    other = to_latex(Answer("q", "Tested in 北京 [1].", AnswerMode.LLM, [Citation(1, paper)]))
    assert other.splitlines()[0] == "% needs XeLaTeX or LuaLaTeX for 京北"
    # Text punctuation pdflatex's UTF-8 input lacks (CENTRAL's U+2010 hyphen, thin spaces) is written in ASCII;
    # "<" and ">" in text would print as "¡" and "¿" in its default fonts.
    exports = to_latex(
        Answer("q", "A cluster\u2010randomized trial: 10\u2009mg, p>0.05 [1].", AnswerMode.LLM, [Citation(1, paper)])
    )
    assert exports == "A cluster-randomized trial: 10\\,mg, p\\textgreater{}0.05~\\cite{lee2020}."
    assert to_latex(Answer("q", "Dashes – and “quotes” are set [1].", AnswerMode.LLM, [Citation(1, paper)])).startswith(
        "Dashes"
    )
    unknown = to_latex(Answer("q", "Angles \u27e8x\u27e9 [1].", AnswerMode.LLM, [Citation(1, paper)]))
    assert unknown.splitlines()[0] == "% needs XeLaTeX or LuaLaTeX for \u27e8\u27e9"
