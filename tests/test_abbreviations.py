"""Abbreviations an abstract defines, spelled out for matching: the finding that names its subject by the short
form ("The prevalence of RLS was 21%") answers a question that names it in full. Made-up abstracts; the real
embedding model where marked."""

from __future__ import annotations

from conftest import MODEL_DIR, needs_model

from rag.corpus.abbreviations import definitions, spelled_out
from rag.embed import OnnxMiniLM, model_files_dir
from rag.records import Hit, Paper
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


def test_a_sentence_gets_the_form_it_lacks_and_keeps_its_own_words() -> None:
    sentences = [
        "Restless legs syndrome (RLS) disturbs sleep.",
        "The prevalence of RLS was 21%.",
        "Restless legs syndrome was rarer in the first trimester.",
        "Women slept less.",
    ]
    assert spelled_out(sentences) == [
        "Restless legs syndrome (RLS) disturbs sleep.",
        "The prevalence of RLS was 21%. (Restless legs syndrome)",
        "Restless legs syndrome was rarer in the first trimester. (RLS)",
        "Women slept less.",
    ]
    assert spelled_out(["No definitions here.", "RLS alone."]) == ["No definitions here.", "RLS alone."]


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
