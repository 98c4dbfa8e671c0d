"""Abbreviations an abstract defines, spelled out for matching: the finding that names its subject by the short
form ("The prevalence of RLS was 21%") answers a question that names it in full. Made-up abstracts; the real
embedding model where marked."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import MODEL_DIR, needs_model
from typer.testing import CliRunner

from rag.abbreviations import definitions, spelled_out, with_long_forms, written_out
from rag.check.reading import CitedText, read_against
from rag.cli import app
from rag.embed import OnnxMiniLM, model_files_dir
from rag.manuscripts import Manuscript, ManuscriptFormat, read_path, read_text
from rag.records import Hit, Paper
from rag.text import split_sentences
from rag.writing.evidence_sentences import sentence_table


def test_definitions_are_a_short_form_after_the_words_its_letters_start() -> None:
    text = (
        "Acute respiratory infections (ARI) are common. Ecosystem services (ESs) rose. Interleukin-6 (IL-6) fell. "
        "We measured body mass index (BMI) and messenger RNA (mRNA) levels. Groups. Restless legs syndrome (RLS) "
        "was frequent."
    )
    assert definitions(text) == {
        "ARI": "Acute respiratory infections",
        "ESs": "Ecosystem services",
        "ES": "Ecosystem services",
        "IL-6": "Interleukin-6",
        "BMI": "body mass index",
        "mRNA": "messenger RNA",
        "RLS": "Restless legs syndrome",
    }


def test_parentheses_that_define_nothing_are_not_definitions() -> None:
    text = (
        "Cases rose (n = 12) in 2003 (Table 1) while weight (kg) fell (p < 0.05). The trial (NCT01590095) was "
        "registered (2019). A new method (ours) and a cohort study (UK) ran. The drug (CBD) helped (ref. 2)."
    )
    assert definitions(text) == {}


def test_a_sentence_gets_the_form_it_lacks_where_the_reader_names_it_the_other_way() -> None:
    sentences = [
        "Restless legs syndrome (RLS) disturbs sleep.",
        "The prevalence of RLS was 21%.",
        "Restless legs syndrome was rarer in the first trimester.",
        "Women slept less.",
    ]
    in_full = spelled_out(sentences, "How common is restless legs syndrome?")
    assert in_full == [sentences[0], "The prevalence of RLS was 21%. (Restless legs syndrome)", *sentences[2:]]
    by_short_form = spelled_out(sentences, "How common is RLS?")
    assert by_short_form == [
        *sentences[:2],
        "Restless legs syndrome was rarer in the first trimester. (RLS)",
        sentences[3],
    ]
    # Named both ways, or neither: the sentences as they are (a copy still matches word for word).
    assert spelled_out(sentences, "Is RLS (restless legs syndrome) common?") == sentences
    assert spelled_out(sentences, "Do women sleep less?") == sentences
    assert spelled_out(["No definitions here.", "RLS alone."], "restless legs") == [
        "No definitions here.",
        "RLS alone.",
    ]


SURVEY = Paper(
    "rls",
    "Restless legs syndrome (RLS) is a common sensorimotor disorder that disturbs sleep. We aimed to estimate how "
    "common restless legs syndrome is among pregnant women. We surveyed 1,200 pregnant women attending three "
    "antenatal clinics. The prevalence of RLS was 21% (95% CI 18%-24%) in the third trimester. Women with RLS "
    "slept less.",
    title="Restless legs in pregnancy: a clinic survey",
    authors=["Doe, Jane"],
    year=2020,
)
QUESTION = "How common is restless legs syndrome in pregnant women?"
FINDING = "The prevalence of RLS was 21% (95% CI 18%-24%) in the third trimester."


def test_the_finding_that_names_its_subject_by_the_short_form_is_quoted() -> None:
    (row,) = sentence_table(QUESTION, [Hit(SURVEY, 1, 1.0)], None)
    assert FINDING in [row.sentences[i] for i in row.quoted]
    assert all("(Restless legs syndrome)" not in row.sentences[i] for i in row.quoted)  # shown as written


@needs_model
def test_with_the_embedding_model_the_finding_is_quoted_alone() -> None:
    embedder = OnnxMiniLM(model_files_dir(MODEL_DIR))
    (row,) = sentence_table(QUESTION, [Hit(SURVEY, 1, 1.0)], embedder)
    assert [row.sentences[i] for i in row.quoted] == [FINDING]


def test_a_manuscript_reads_its_short_forms_as_defined_anywhere_in_it(tmp_path: Path) -> None:
    (tmp_path / "intro.tex").write_text("Motoric cognitive risk syndrome (MCR) combines slow gait with complaints.\n")
    (tmp_path / "results.tex").write_text("The prevalence of MCR was 9.7\\% \\cite{verghese2014}.\n")
    main = tmp_path / "thesis.tex"
    main.write_text("\\documentclass{report}\n\\begin{document}\n\\input{intro}\n\\input{results}\n\\end{document}\n")
    (sentence,) = read_path(main).sentences
    assert sentence.text == "The prevalence of MCR was 9.7%."
    assert sentence.reading == "The prevalence of MCR was 9.7%. (Motoric cognitive risk syndrome)"
    chapters = Manuscript()  # chapters read one by one (a Quarto book): a definition in one serves the next
    chapters.extend(read_text("Motoric cognitive risk syndrome (MCR) is common.\n", ManuscriptFormat.MARKDOWN, "a.md"))
    chapters.extend(read_text("MCR rose with age [@verghese2014].\n", ManuscriptFormat.MARKDOWN, "b.md"))
    assert [s.reading for s in chapters.sentences] == ["MCR rose with age. (Motoric cognitive risk syndrome)"]
    assert with_long_forms("MCR and the MCR (motoric cognitive risk syndrome) rose.", chapters.abbreviations) == (
        "MCR and the MCR (motoric cognitive risk syndrome) rose."
    ), "a sentence naming it in full stays as it is"


@needs_model
def test_rag_check_matches_the_spelled_out_sentence_and_shows_it_as_written(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{verghese2014, title = {Motoric cognitive risk syndrome: a multicountry study}, author = "
        "{Verghese, Joe}, year = {2014}, abstract = {Motoric cognitive risk syndrome is a predementia syndrome. "
        "We pooled 22 cohorts in 17 countries. The pooled prevalence of motoric cognitive risk syndrome was 9.7% "
        "among adults aged 60 years and older.}}\n",
        encoding="utf-8",
    )
    paper = tmp_path / "paper.md"
    paper.write_text(
        "Motoric cognitive risk syndrome (MCR) combines slow gait with cognitive complaints.\n\n"
        "Across 17 countries, the pooled prevalence of MCR was 9.7% in older adults [@verghese2014].\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["check", str(paper), "--bib", str(bib), "--all", "--json"])
    (citation,) = json.loads(result.stdout)["citations"]
    assert citation["verdict"] == "fits_stated"
    assert citation["sentence"] == "Across 17 countries, the pooled prevalence of MCR was 9.7% in older adults."


CSI = (
    "A form of the critical success index (CSI) is used by the National Weather Service to indicate the value of "
    "warnings. This verification statistic assumes that the times when an event was neither expected nor observed "
    "are of no consequence. It can be shown that the CSI is not an unbiased indicator of forecast skill but is "
    "proportional to the frequency of the event being forecast."
)


def test_a_sentence_using_a_defined_short_form_is_also_read_written_out() -> None:
    sentences = split_sentences(CSI)
    assert written_out(sentences) == [
        "It can be shown that the critical success index is not an unbiased indicator of forecast skill but is "
        "proportional to the frequency of the event being forecast."
    ]  # the defining sentence names it in full already
    assert written_out(["No short form here.", "Nor (here) either."]) == []


def test_a_sentence_naming_in_full_what_its_source_abbreviates_is_read_word_for_word_against_it() -> None:
    paper = Paper(id="s", title="The Critical Success Index as an Indicator of Warning Skill", year=1990, text=CSI)
    dropped = read_against("Schaefer (1990) showed that the critical success index is an unbiased indicator of "
                           "forecast skill.", [CitedText.of(paper)])  # fmt: skip
    kept = read_against(
        "The critical success index is not an unbiased indicator of forecast skill.", [CitedText.of(paper)]
    )
    assert [f.source_says for f in dropped.reversals] == ["not"]  # read only with "CSI" written out
    assert not kept.findings
