"""`rag table` (issue 39): a row per paper that answers, its finding word for word, in four formats; a question the
library cannot answer gets no rows and says so. A real library (JSONL ingest, Chroma, the embedding model)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.errors import InputError
from rag.services.table import TableFormat, table_format
from rag.writing.table import COLUMNS, numbers_in, studied

pytestmark = needs_model
runner = CliRunner()
QUESTION = "What is the prevalence of motoric cognitive risk syndrome among older adults?"

PAPERS = [
    {
        "key": "meiner2020",
        "title": "Prevalence of motoric cognitive risk syndrome: a systematic review and meta-analysis",
        "authors": ["Meiner, Z."],
        "year": 2020,
        "abstract": "BACKGROUND: Motoric cognitive risk syndrome (MCR) combines slow gait and cognitive complaints. "
        "OBJECTIVE: To systematically review the prevalence of motoric cognitive risk syndrome among older adults. "
        "METHODS: We searched PubMed and Embase for population-based studies. RESULTS: Pooled prevalence of MCR was "
        "found to be 10% (95% CI 8%-12%) across 15 studies & 40,000 participants. CONCLUSIONS: MCR is common.",
    },
    {
        "key": "verghese2014",
        "title": "Motoric cognitive risk syndrome in older adults of 17 countries",
        "authors": ["Verghese, Joe", "Annweiler, C."],
        "year": 2014,
        "abstract": "Motoric cognitive risk syndrome is a predementia syndrome. We aimed to estimate its prevalence "
        "in a cross-sectional study of 26,802 older adults from 17 countries. The prevalence of motoric cognitive "
        "risk syndrome was 9.0% (95% CI 8.3-9.8) among older adults. Prevalence increased with age.",
    },
    {
        "key": "chen2022",
        "title": "Motoric cognitive risk syndrome among Chinese older adults",
        "authors": ["Chen, L."],
        "year": 2022,
        "abstract": "Little is known about motoric cognitive risk syndrome in China. This cohort study followed "
        "3,000 community-dwelling older adults. The prevalence of motoric cognitive risk syndrome was 7.29% in "
        "older adults. Motoric cognitive risk syndrome predicted incident dementia.",
    },
    {
        "key": "ring2019",
        "title": "Coral reef restoration after bleaching",
        "authors": ["Ring, A."],
        "year": 2019,
        "abstract": "Coral reefs are declining worldwide. We transplanted coral fragments on 12 reefs. Survival of "
        "transplanted fragments was 65% after two years.",
    },
]


@pytest.fixture
def library(tmp_path: Path) -> Path:
    source = tmp_path / "mcr.jsonl"
    source.write_text("".join(json.dumps(p) + "\n" for p in PAPERS))
    done = runner.invoke(app, ["ingest", str(source)])
    assert done.exit_code == 0, done.output
    return source


def _table(*args: str) -> dict[str, object]:
    shown = runner.invoke(app, ["table", *args])
    assert shown.exit_code == 0, shown.output
    return dict(json.loads(shown.output))


def test_json_rows_quote_each_finding_word_for_word(library: Path) -> None:
    table = _table(QUESTION, "--json")
    assert table["question"] == QUESTION and table["mode"] == "extractive"
    assert table["columns"] == list(COLUMNS)
    rows = table["rows"]
    assert isinstance(rows, list) and len(rows) >= 2
    abstracts = {p["key"]: str(p["abstract"]) for p in PAPERS}
    for row in rows:
        assert {"citekey", "title", "year", "finding", "studied", "numbers", "author_year"} <= set(row)
        assert row["finding"] in abstracts[row["citekey"]]  # verbatim, one stretch of the abstract
        assert not row["finding"].startswith(("RESULTS", "OBJECTIVE"))
    findings = " ".join(row["finding"] for row in rows)
    assert "Pooled prevalence of MCR was found to be 10%" in findings
    assert "To systematically review" not in findings  # the result, not the aim
    assert "ring2019" not in {row["citekey"] for row in rows}
    assert _table(QUESTION, "--format", "json") == table


def test_markdown_is_a_table(library: Path) -> None:
    shown = runner.invoke(app, ["table", QUESTION])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0].startswith("| Paper | Author, year |") and lines[1].startswith("|---|")
    assert any("Meiner, 2020" in line for line in lines[2:])


def test_csv_parses_and_latex_escapes(library: Path) -> None:
    shown = runner.invoke(app, ["table", QUESTION, "--format", "csv"])
    rows = list(csv.reader(io.StringIO(shown.output)))
    assert rows[0] == list(COLUMNS) and len(rows) >= 3
    assert all(len(row) == len(COLUMNS) for row in rows)
    latex = runner.invoke(app, ["table", QUESTION, "--format", "latex"]).output
    assert "\\begin{tabular}" in latex and "\\end{tabular}" in latex
    assert "10\\%" in latex and "\\&" in latex and " 10% " not in latex
    keys = [row[0] for row in rows[1:]]
    assert all(f"\\cite{{{key}}} & " in latex for key in keys)  # linked to the manuscript's bibliography
    natbib = runner.invoke(app, ["table", QUESTION, "--format", "latex"], env={"RAG_LATEX_CITATIONS": "natbib"})
    assert all(f"\\citep{{{key}}} & " in natbib.output for key in keys)


def test_k_is_a_ceiling(library: Path) -> None:
    rows = _table(QUESTION, "--json", "-k", "1")["rows"]
    assert isinstance(rows, list) and len(rows) == 1


def test_a_question_the_library_cannot_answer_gets_no_rows(library: Path) -> None:
    question = "What is the efficacy of lithium for bipolar disorder in adolescents?"
    table = _table(question, "--json")
    assert table["rows"] == [] and table["mode"] == "insufficient_evidence"
    assert "Insufficient evidence" in str(table["message"])
    shown = runner.invoke(app, ["table", question])
    assert shown.exit_code == 0 and "Insufficient evidence" in shown.output
    as_csv = runner.invoke(app, ["table", question, "--format", "csv"])
    assert list(csv.reader(io.StringIO(as_csv.stdout))) == [list(COLUMNS)]


def test_bad_input_is_one_clear_line(library: Path) -> None:
    empty = runner.invoke(app, ["table", "  "])
    assert empty.exit_code == 1 and "question is empty" in empty.output
    unknown = runner.invoke(app, ["table", QUESTION, "--format", "docx"])
    assert unknown.exit_code == 1 and "unknown table format 'docx'" in unknown.output
    assert "Traceback" not in unknown.output
    with pytest.raises(InputError):
        table_format("html")
    assert table_format(" LaTeX ") is TableFormat.LATEX
    zero = runner.invoke(app, ["table", QUESTION, "-k", "0"])
    assert zero.exit_code == 1 and "-k must be at least 1" in zero.output


def test_the_help_names_the_default_ceiling() -> None:
    from rag.cli import table_command
    from rag.writing import table as writing_table

    assert table_command.DEFAULT_ROWS == writing_table.DEFAULT_ROWS


def test_studied_and_numbers_are_the_abstracts_words() -> None:
    text = str(PAPERS[1]["abstract"])
    assert studied(text) == "cross-sectional study; 26,802 older adults"
    assert studied("We like cats.") == ""
    searched = "We searched the Cochrane Central Register of Controlled Trials; a meta-analysis pooled 167 studies."
    assert studied(searched) == "meta-analysis; 167 studies", "a database searched is no design"
    counted_later = "Diarrhea fell among children under 5 in a randomized trial. We enrolled 720 households."
    assert studied(counted_later) == "randomized trial; 720 households", "a counted sample before a group named"
    assert studied("Diarrhea fell among preschool children.") == "among preschool children"
    assert studied("In 2013, 30 patients (n = 139,8 visits) were seen.") == "30 patients", "a year is no count"
    assert studied("Stage 1 Participants were 28 weeks pregnant.") == "", "a heading, a duration"
    for says_nothing_of_who in (
        "In some cases the pair was primed.",
        "Growth rose in countries.",
        "ARI fell in the control households.",
    ):
        assert studied(says_nothing_of_who) == "", says_nothing_of_who
    assert numbers_in("The prevalence was 9.0% (95% CI 8.3-9.8) in 2019, p < 0.001.") == [
        "9.0%",
        "95% CI 8.3-9.8",
        "p < 0.001",
    ]
    named = "In 24 sewersheds SARS-CoV-2 RNA preceded COVID-19 cases by 7 days; IL-6 fell by 10-20%."
    assert numbers_in(named) == ["24", "7", "10-20%"], "a number in a name is no finding's number"
    listed = "This review will (1) summarize and 2) compare trials; 23% (n = 12) improved (p = 0.04)."
    assert numbers_in(listed) == ["23%", "12", "p = 0.04"], "a list's markers are no finding's numbers"
    aged = "Among children under the age of 5 years, aged 6-59 months or 5-year-olds, diarrhea fell by 23%."
    assert numbers_in(aged) == ["23%"], "an age says who was studied, not what was found"
