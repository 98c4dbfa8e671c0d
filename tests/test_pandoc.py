"""Pandoc/Quarto output: [@key] citations, CSL JSON bibliographies, CSL JSON in and out of the library."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.check import Answer, AnswerMode, Citation
from rag.cli import app
from rag.corpus import load_paths, parse_csl_json
from rag.errors import InputError
from rag.formats import csl_item, csl_json, csl_name, to_pandoc
from rag.records import Paper

runner = CliRunner()
PANDOC = shutil.which("pandoc")
needs_pandoc = pytest.mark.skipif(
    PANDOC is None, reason="pandoc is not installed (apt-get install -y pandoc; .ci/run installs it when missing)"
)
PANDOC_TIMEOUT_SECONDS = 60
# A reply whose sentences the sources back (quoted closely), so rag keeps it as the draft.
SWARM_REPLY = (
    "Many deep learning applications benefit from large models with billions of parameters, "
    "whose training is notoriously expensive due to the need for specialized HPC clusters [1]. "
    "Training foundation models such as GPT-3 can involve tens of thousands of GPUs running for months [3]."
)
DRAFT_ARGS = ["draft", "decentralized training over slow networks", "--cite", "ryabinin2023swarm", "--format", "pandoc"]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")  # keep backoff short in tests
    with FakeOpenAI() as server:
        yield server


def _paper(key: str, **fields: object) -> Paper:
    defaults: dict[str, object] = {"id": key, "text": f"The abstract of {key}.", "title": f"Title of {key}"}
    return Paper(citekey=key, **{**defaults, **fields})  # type: ignore[arg-type]


def _answer(text: str, *papers: Paper) -> Answer:
    return Answer("q", text, AnswerMode.LLM, [Citation(n, p) for n, p in enumerate(papers, start=1)])


def _pandoc(document: str, bibliography: Path) -> subprocess.CompletedProcess[str]:
    assert PANDOC is not None
    return subprocess.run(
        [PANDOC, "--citeproc", "--bibliography", str(bibliography), "-f", "markdown", "-t", "plain", "--wrap=none"],
        input=document,
        capture_output=True,
        text=True,
        timeout=PANDOC_TIMEOUT_SECONDS,
        check=False,
    )


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold()


# --- [@key] citations -------------------------------------------------------------------------------------


def test_runs_of_citations_become_one_pandoc_group() -> None:
    a, b, c = _paper("yuan2022decentralized"), _paper("ryabinin2023swarm"), _paper("dunner2017efficient")
    text = "One [1]. Two [1][2]. Three [1, 3]. Range [1-3]. Spaced [2] [3]. Again [2][2]. Invented [9]."
    assert to_pandoc(_answer(text, a, b, c)) == (
        "One [@yuan2022decentralized]. Two [@yuan2022decentralized; @ryabinin2023swarm]. "
        "Three [@yuan2022decentralized; @dunner2017efficient]. "
        "Range [@yuan2022decentralized; @ryabinin2023swarm; @dunner2017efficient]. "
        "Spaced [@ryabinin2023swarm; @dunner2017efficient]. Again [@ryabinin2023swarm]. Invented ."
    )


def test_keys_pandoc_would_cut_short_are_braced() -> None:
    answer = _answer("A [1][2][3].", _paper("Smith:2020/x.y"), _paper("a--b"), _paper("key."))
    assert to_pandoc(answer) == "A [@Smith:2020/x.y; @{a--b}; @{key.}]."


def test_text_pandoc_would_misread_is_escaped_and_markdown_kept() -> None:
    def pandoc(text: str) -> str:
        return to_pandoc(_answer(text, _paper("a")))

    assert pandoc("mail me@example.org, see [note] or \\emph{x} [1].") == (
        "mail me\\@example.org, see \\[note\\] or \\\\emph{x} [@a]."
    )
    # Math and code are verbatim to Pandoc: an escape there would show, so they stay as written.
    assert (
        pandoc("bounds $[0, 1]$ and $O(\\log n)$, `a[i]@b` [1].") == "bounds $[0, 1]$ and $O(\\log n)$, `a[i]@b` [@a]."
    )
    assert pandoc("costs $5 and @alice [1].") == "costs $5 and \\@alice [@a]."
    # Markdown emphasis and lists are left alone; a list gets the blank line Pandoc needs before it.
    outline = "Outline: 2 papers in 1 themes.\n1. training (2 papers)\n   - *First* [1]\n   - Second [2]"
    assert to_pandoc(_answer(outline, _paper("a"), _paper("b"))) == (
        "Outline: 2 papers in 1 themes.\n\n1. training (2 papers)\n   - *First* [@a]\n   - Second [@b]"
    )


@needs_pandoc
def test_pandoc_renders_escapes_literally_and_resolves_groups(tmp_path: Path) -> None:
    a = _paper("yuan2022decentralized", title="Decentralized Training of Foundation Models", year=2022)
    b = _paper("ryabinin2023swarm", title="SWARM Parallelism", year=2023, authors=["Ryabinin, Max"])
    text = "Write to team@example.org [1][2]. A literal [see 3] and [@fake] stay text [2]."
    bibliography = tmp_path / "refs.json"
    bibliography.write_text(csl_json([a, b]), encoding="utf-8")
    rendered = _pandoc(to_pandoc(_answer(text, a, b)), bibliography)
    assert rendered.returncode == 0 and "not found" not in rendered.stderr, rendered.stderr
    assert "team@example.org" in rendered.stdout and "[see 3]" in rendered.stdout and "[@fake]" in rendered.stdout
    assert "(Ryabinin 2023)" in rendered.stdout and "2022; Ryabinin 2023)" in rendered.stdout, rendered.stdout


# --- CSL JSON out ----------------------------------------------------------------------------------------


def test_csl_items_carry_the_fields_citeproc_reads() -> None:
    arxiv = _paper(
        "yuan2022decentralized",
        title="Decentralized Training",
        authors=["Yuan, Binhang", "Ce Zhang", "Jan van der Berg", "OpenAI", "others"],
        year=2022,
        arxiv="2206.01288",
        doi="10.48550/arXiv.2206.01288",
    )
    assert csl_item(arxiv) == {
        "id": "yuan2022decentralized",
        "type": "article",
        "title": "Decentralized Training",
        "author": [
            {"family": "Yuan", "given": "Binhang"},
            {"family": "Zhang", "given": "Ce"},
            {"family": "van der Berg", "given": "Jan"},
            {"literal": "OpenAI"},
        ],
        "issued": {"date-parts": [[2022]]},
        "DOI": "10.48550/arXiv.2206.01288",
        "URL": "https://arxiv.org/abs/2206.01288",
        "publisher": "arXiv",
        "number": "arXiv:2206.01288",
        "abstract": "The abstract of yuan2022decentralized.",
    }
    assert csl_name("Smith, Jr., John") == {"family": "Smith", "given": "John", "suffix": "Jr."}
    journal = _paper("doe2020", bibtex="@article{doe2020,\n  title = {X}\n}", no_abstract=True)
    assert csl_item(journal)["type"] == "article-journal" and "abstract" not in csl_item(journal)
    untitled = csl_item(_paper("anon2021", title=None, text="An abstract with no title known."))
    assert "title" not in untitled and untitled["note"] == "An abstract with no title known."
    assert json.loads(csl_json([arxiv, journal]))[1]["id"] == "doe2020"


# --- CSL JSON in -----------------------------------------------------------------------------------------

ZOTERO_ITEMS: list[object] = [
    {
        "id": "yuan2022decentralized",
        "type": "article",
        "title": "Decentralized Training of <i>Foundation</i> Models in Heterogeneous Environments",
        "author": [
            {"family": "Yuan", "given": "Binhang"},
            {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
        ],
        "issued": {"date-parts": [["2022", 6, 2]]},
        "abstract": "Training foundation models is expensive; we schedule it over slow heterogeneous networks.",
        "publisher": "arXiv",
        "number": "arXiv:2206.01288",
        "URL": "http://arxiv.org/abs/2206.01288",
    },
    {
        "id": "doe2020power",
        "type": "paper-conference",
        "title": "Power-Aware Serving of Mixture-of-Experts Models",
        "author": [{"literal": "The MoE Consortium"}],
        "issued": {"raw": "Spring 2020"},
        "DOI": "https://doi.org/10.1000/XYZ",
    },
    {"id": "notitle", "type": "article", "issued": {"date-parts": [[2021]]}},
    "not an item",
    {"id": "doe2020power", "type": "article", "title": "A Duplicate Id"},
    {"id": "has space", "type": "report", "title": "An Id That Cannot Be a Citekey"},
]


def test_csl_json_ingest_keeps_good_items_and_warns_about_bad_ones(tmp_path: Path) -> None:
    path = tmp_path / "zotero.json"
    path.write_text(json.dumps(ZOTERO_ITEMS), encoding="utf-8")
    result = load_paths([path])
    papers = {p.citekey: p for p in result.papers.values()}
    assert set(papers) == {"yuan2022decentralized", "doe2020power", ""}
    yuan = papers["yuan2022decentralized"]
    assert yuan.title == "Decentralized Training of Foundation Models in Heterogeneous Environments"
    assert yuan.authors == ["Yuan, Binhang", "van der Berg, Jan"] and yuan.year == 2022
    assert yuan.arxiv == "2206.01288" and yuan.sources == ["zotero.json#yuan2022decentralized"]
    doe = papers["doe2020power"]
    assert doe.doi == "10.1000/XYZ" and doe.year == 2020 and doe.authors == ["The MoE Consortium"]
    assert doe.no_abstract and doe.text == doe.title
    assert papers[""].title == "An Id That Cannot Be a Citekey", "rag gives it a citekey when it is indexed"
    assert result.warnings == [
        "zotero.json:item 3: item 'notitle' has neither title nor abstract, skipped",
        "zotero.json:item 4: not a JSON object, skipped",
        "zotero.json:item 5: duplicate id 'doe2020power', kept the first",
        "zotero.json:item 6: id 'has space' cannot be a citekey (spaces or ,{}()\"#%'=\\), rag gives it one",
        "zotero.json: 2 entries have no abstract and are searched by title only",
    ]


def test_only_csl_looking_json_goes_to_the_csl_reader(tmp_path: Path) -> None:
    openalex = tmp_path / "openalex.json"
    openalex.write_text(
        json.dumps([{"id": "https://openalex.org/W4", "type": "article", "title": "T", "display_name": "Imitating"}]),
        encoding="utf-8",
    )
    assert [p.title for p in load_paths([openalex]).papers.values()] == ["T"]
    assert [p.citekey for p in load_paths([openalex]).papers.values()] == [""], "read as an export: no citekey"
    single = tmp_path / "single.json"
    single.write_text(json.dumps(ZOTERO_ITEMS[0]), encoding="utf-8")
    result = load_paths([single])
    assert [p.citekey for p in result.papers.values()] == ["yuan2022decentralized"]
    assert result.warnings == ["single.json: the top level is one CSL item, not a list of them; read as one item"]
    with pytest.raises(InputError, match="top level must be a list"):
        parse_csl_json({"items": []}, "bad.json")
    with pytest.raises(InputError, match="no usable CSL JSON item"):
        parse_csl_json([{"id": "x", "type": "article"}], "empty.json")


def test_csl_ids_become_citekeys_in_the_library(tmp_path: Path) -> None:
    path = tmp_path / "zotero.json"
    path.write_text(json.dumps(ZOTERO_ITEMS), encoding="utf-8")
    result = runner.invoke(app, ["--collection", "mine", "ingest", str(path)])
    assert result.exit_code == 0, result.stderr
    assert "zotero.json:item 5: duplicate id 'doe2020power'" in result.stderr + result.stdout
    shown = runner.invoke(app, ["--collection", "mine", "show", "doe2020power", "--json"])
    assert shown.exit_code == 0 and "Power-Aware Serving" in shown.stdout


def test_exported_csl_json_ingests_back_with_the_same_citekeys(seeded: Path, tmp_path: Path) -> None:
    out = tmp_path / "library.json"
    assert runner.invoke(app, ["export", "--format", "csljson", "-o", str(out)]).exit_code == 0
    items = json.loads(out.read_text(encoding="utf-8"))
    assert len(items) == 39 and all({"id", "type"} <= set(item) for item in items)
    result = runner.invoke(app, ["--collection", "copy", "ingest", str(out)])
    assert result.exit_code == 0, result.stderr
    copy = json.loads(runner.invoke(app, ["--collection", "copy", "papers", "--json"]).stdout)["papers"]
    original = json.loads(runner.invoke(app, ["papers", "--json"]).stdout)["papers"]
    assert {(p["citekey"], p["title"]) for p in copy} == {(p["citekey"], p["title"]) for p in original}
    assert {p["id"] for p in copy} == {p["id"] for p in original}, "the same abstracts, so the same papers"
    snippet = json.loads(runner.invoke(app, ["--collection", "copy", "show", "ryabinin2023swarm", "--json"]).stdout)
    assert snippet["truncated"] is True, "a seed snippet cut short is still marked so"
    assert "csljson" in runner.invoke(app, ["export", "--help"]).stdout


# --- draft --format pandoc --bib refs.json, through pandoc ------------------------------------------------


def test_draft_bib_with_an_unknown_extension_is_one_clear_error(seeded: Path, fake: FakeOpenAI, tmp_path: Path) -> None:
    result = runner.invoke(app, [*DRAFT_ARGS, "--bib", str(tmp_path / "refs.txt"), "--base-url", fake.url])
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0 and "'.txt'" in result.stderr and ".json (CSL JSON)" in result.stderr
    assert not fake.requests, "refused before any model call"


@needs_pandoc
@pytest.mark.parametrize("bib_name", ["refs.json", "refs.bib"])
def test_pandoc_draft_round_trip(seeded: Path, fake: FakeOpenAI, tmp_path: Path, bib_name: str) -> None:
    fake.play(Reply(text=SWARM_REPLY))
    bib = tmp_path / bib_name
    model = ["--model", "test-model", "--base-url", fake.url]
    as_json = runner.invoke(app, [*DRAFT_ARGS, "--bib", str(bib), *model, "--json"])
    assert as_json.exit_code == 0, as_json.stderr
    payload = json.loads(as_json.stdout)
    assert payload["mode"] == "llm", payload.get("notes")
    document, cited = payload["pandoc"], {c["citekey"]: c["title"] for c in payload["citations"]}
    assert "[@ryabinin2023swarm" in document and not re.search(r"\[\d+\]", document)
    assert set(re.findall(r"@([\w:./-]+)", document)) == set(cited)
    # Without --json, stdout is the document alone (the cached answer: no second model call).
    plain = runner.invoke(app, [*DRAFT_ARGS, *model])
    assert plain.exit_code == 0 and plain.stdout.strip() == document.strip()
    assert "relevant but not cited" in plain.stderr and "relevant" not in plain.stdout

    rendered = _pandoc(document, bib)
    assert rendered.returncode == 0, rendered.stderr
    assert "not found" not in rendered.stderr and "???" not in rendered.stdout, rendered.stderr
    assert not any(f"{key}?" in rendered.stdout for key in cited), "pandoc marks an unknown key as 'key?'"
    assert "@" not in rendered.stdout, "every citation became a reference"
    for title in cited.values():
        assert _flat(title) in _flat(rendered.stdout), f"{title!r} is not in the rendered references"


def test_latex_and_pandoc_read_citation_runs_alike() -> None:
    """One walk over citation runs serves both writers: a range is every number in it, each once."""
    from rag.formats import to_latex

    papers = [Paper(id=f"p{i}", text="t", citekey=f"k{i}") for i in range(1, 4)]
    answer = Answer("q", "A & B [1-3]. C [2][3][2].", AnswerMode.LLM, [Citation(i, p) for i, p in enumerate(papers, 1)])
    assert to_latex(answer) == "A \\& B~\\cite{k1,k2,k3}. C~\\cite{k2,k3}."
    assert to_pandoc(answer) == "A & B [@k1; @k2; @k3]. C [@k2; @k3]."
