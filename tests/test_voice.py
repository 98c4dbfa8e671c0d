"""The citing voice of drafts without a model: a paper's own sentence with the paper as its subject ("We show X"
-> "Hazra et al. (2021) show X"), kept as written, or quoted and attributed; an aim with no clause of its own
never written as a sentence."""

from __future__ import annotations

import re

import pytest

from rag.check import name_vague_subject
from rag.corpus.types import trial_registration
from rag.records import Paper
from rag.writing import Voice, in_text_label, third_person, turn
from rag.writing.extractive_draft import prose_or_outline
from rag.writing.voice import aim_fragment

_QUOTATION = re.compile(r"“[^”]*”")


def _paper(key: str, authors: list[str], year: int | None = 2020) -> Paper:
    return Paper(id=key, text="An abstract.", title="A title", authors=authors, year=year, citekey=key)


TWO = _paper("kharitonov2020", ["Kharitonov, Eugene", "Baroni, Marco"])
MANY = _paper("hazra2021", ["Hazra, Rishi", "Dixit, Sonu", "Sen, Sayambhu"], 2021)
ONE = _paper("scotton2019", ["Scotton, Michele"], 2019)


@pytest.mark.parametrize(
    ("sentence", "paper", "expected"),
    [
        ("We show that X holds in all cases.", TWO, "Kharitonov and Baroni (2020) show that X holds in all cases."),
        (
            "In this paper, we propose a new framework for Y.",
            MANY,
            "Hazra et al. (2021) propose a new framework for Y.",
        ),
        ("Our results suggest that Z is common.", MANY, "The results of Hazra et al. (2021) suggest that Z is common."),
        ("We show that X holds.", ONE, "Scotton (2019) shows that X holds."),
        ("We also study the effect of Y.", ONE, "Scotton (2019) also studies the effect of Y."),
        (
            "We propose a model and evaluate it on two datasets.",
            ONE,
            "Scotton (2019) proposes a model and evaluates it on two datasets.",
        ),
        ("This paper presents a framework for BCI.", MANY, "Hazra et al. (2021) present a framework for BCI."),
        (
            "This paper provides an overview of X, presents Y.",
            MANY,
            "Hazra et al. (2021) provide an overview of X, present Y.",
        ),
        ("This study investigated the effect of fire.", ONE, "Scotton (2019) investigated the effect of fire."),
        (
            "This method is evaluated on 12 subjects.",
            MANY,
            "The method of Hazra et al. (2021) is evaluated on 12 subjects.",
        ),
        ("In this work, a Riemannian framework is used.", ONE, "In Scotton (2019), a Riemannian framework is used."),
        (
            "However, we found no difference between groups.",
            MANY,
            "Hazra et al. (2021) found no difference between groups.",
        ),
        (
            "RESULTS: We found that type I diabetes was rare.",
            ONE,
            "Scotton (2019) found that type I diabetes was rare.",
        ),
        (
            "Here we show that X emerges, and our method is robust.",
            MANY,
            "Hazra et al. (2021) show that X emerges, and their method is robust.",
        ),
        (
            "To this end, we ran a survey, which allowed us to compare.",
            MANY,
            "To this end, Hazra et al. (2021) ran a survey, which allowed them to compare.",
        ),
        (
            "The results of this study improve understanding of X.",
            MANY,
            "The results of the study by Hazra et al. (2021) improve understanding of X.",
        ),
        (  # what the authors can do, measured: their result, not what anyone can
            "With eye tracking, we can predict task difficulty with 64.99% precision.",
            MANY,
            "With eye tracking, Hazra et al. (2021) can predict task difficulty with 64.99% precision.",
        ),
        (
            "OBJECTIVE: To evaluate the wear of posterior restorations.",
            ONE,
            "Scotton (2019) aimed to evaluate the wear of posterior restorations.",
        ),
    ],
)
def test_the_papers_voice_becomes_the_citing_voice(sentence: str, paper: Paper, expected: str) -> None:
    turned = turn(sentence, paper)
    assert turned.voice is Voice.CITING and turned.text == expected
    assert turned.label == in_text_label(paper) and turned.label in turned.text
    assert turned.changes, "what was rewritten is reported"


@pytest.mark.parametrize(
    "sentence",
    [
        "It is shown that the method works.",
        "This allows us to estimate Q.",
        "While the theory is technical, our aim here is to show its appeal.",
        "These models are typically trained in clusters.",  # anyone's models, not the paper's own
        "Sleep is an important component of how our memories are formed.",  # everyone's memories
        "These results improve our understanding of category learning.",
        # what anyone can or must do, not what the authors did ("Hazra et al. (2021) can achieve ...")
        "By integrating food and water security in interventions, we can achieve WASH security.",
        "To curb resistance, we must urgently rethink antibiotic use.",
        "We therefore need better measures of exposure.",
    ],
)
def test_what_cannot_be_turned_safely_is_quoted_and_attributed(sentence: str) -> None:
    turned = turn(sentence, MANY)
    assert turned.voice is Voice.QUOTED
    assert turned.text.startswith("Hazra et al. (2021) write that “") and turned.text.endswith("”.")
    inside = _QUOTATION.search(turned.text)
    assert inside is not None and inside.group(0)[1:-1].lower() == sentence[:-1].lower()


def test_a_sentence_that_stands_alone_is_kept_as_written_and_one_author_writes() -> None:
    plain = turn("Overall survival was improved in 40% of patients.", MANY)
    assert plain.voice is Voice.VERBATIM and plain.text == "Overall survival was improved in 40% of patients."
    assert turn("Thus, mosses can stabilise soils.", MANY).text == "Mosses can stabilise soils."
    assert turn("It is unclear.", ONE).text == "Scotton (2019) writes that “it is unclear”."
    nested = turn("This is a “relaxed” state.", MANY).text
    assert "‘relaxed’" in nested and nested.count("“") == 1, "a quotation inside a quotation"


@pytest.mark.parametrize(
    ("sentence", "fragment"),
    [
        ("To compare outcomes of patients treated with X.", True),
        ("Aims: To systematically review the prevalence of MCR.", True),
        ("To evaluate X, 90 teeth were randomly assigned to 3 groups.", False),  # a clause of its own
        ("To date, no study has examined X.", False),
        ("To this end, we ran a survey.", False),
        ("To start with, you'll quickly run through the essential building blocks.", False),  # a book's blurb
    ],
)
def test_an_aim_with_no_clause_of_its_own_is_told_apart(sentence: str, fragment: bool) -> None:
    assert aim_fragment(sentence) is fragment
    if not fragment:
        assert "aimed to" not in turn(sentence, MANY).text


def test_a_draft_never_writes_an_aim_as_a_sentence_without_its_paper() -> None:
    """Without authors the aim cannot be given a subject: the paper's other sentence is written instead."""
    text = "To evaluate the wear of posterior restorations. Wear of posterior restorations was lower with Z."
    nobody = Paper(id="anon", text=text, title="Posterior restorations", authors=[], year=2020, citekey="anon")
    answer = prose_or_outline("wear of posterior restorations", [nobody], None)
    assert "lower with Z" in answer.text and "To evaluate" not in answer.text


@pytest.mark.parametrize(
    "glued",
    [
        "Lower forces were found for group D (p<0.034) except group DP.ConclusionsTreated incisors may be restored.",
        "Lower forces were found for group D (p<0.034) except DP; (2) Conclusions: Treated incisors may be restored.",
    ],
)
def test_a_draft_never_shows_a_label_an_export_glued_or_numbered(glued: str) -> None:
    paper = Paper(id="x", text=glued, title="Restored incisors", authors=["Stein, Manja"], year=2019, citekey="x")
    answer = prose_or_outline("restoration of treated incisors", [paper], None)
    assert "Treated incisors may be restored" in answer.text
    assert "Conclusions" not in answer.text and "(2)" not in answer.text


def test_a_draft_writes_what_a_paper_found_before_what_it_set_out_to_do() -> None:
    text = (
        "We investigate the wear of posterior composite restorations in adults. Forty patients received two "
        "restorations each. After 14 years, wear of the posterior composite restorations was lower with the "
        "microhybrid than with the packable composites."
    )
    paper = Paper(id="x", text=text, title="Wear of posterior composites", authors=["Castro, Luis"], year=2019)
    answer = prose_or_outline("wear of posterior composite restorations", [paper], None)
    assert "was lower with the microhybrid" in answer.text and "investigates" not in answer.text


def test_a_draft_never_writes_a_question_or_a_link() -> None:
    text = (
        "We studied 1,000 open-source C and C++ projects on GitHub. Is project popularity related to CI/CD adoption "
        "rate? Popular projects adopted continuous integration more often than others."
    )
    paper = Paper(id="x", text=text, title="Build systems in C++", authors=["Veloso, M"], year=2019, citekey="x")
    answer = prose_or_outline("CI/CD adoption rate and project popularity", [paper], None)
    assert "adopted continuous integration more often" in answer.text and "?" not in answer.text
    linked = "Follow our CI/CD adoption work at https://linktr.ee/ci now. Popular projects adopt CI/CD more."
    paper = Paper(id="y", text=linked, title="CI/CD", authors=["Veloso, M"], year=2019, citekey="y")
    assert "http" not in prose_or_outline("CI/CD adoption", [paper], None).text


def test_a_draft_writes_a_sentence_that_stands_alone_before_one_that_points_back() -> None:
    text = (
        "Sparse priors are widely used for images. They improve image denoising with sparse priors by 20% over the "
        "baselines. Sparse priors helped on all benchmark datasets."
    )
    paper = Paper(id="x", text=text, title="Sparse priors for images", authors=["Roe, Ann"], year=2019, citekey="x")
    answer = prose_or_outline("image denoising with sparse priors", [paper], None)
    assert "helped on all benchmark datasets" in answer.text and "they improve" not in answer.text


def test_a_draft_leaves_out_a_videos_description_unless_asked_for() -> None:
    video = Paper(
        id="v", text="Unity game architecture explained. Follow the channel for game architecture tips.",
        title="Unity game architecture", authors=["Amend, Git"], year=2023, citekey="v", item_type="motion_picture",
    )  # fmt: skip
    book = Paper(
        id="b", text="Game architecture in Unity separates systems into services and events.",
        title="Unity game architecture patterns", authors=["Palacios, Jorge"], year=2018, citekey="b", item_type="book",
    )  # fmt: skip
    answer = prose_or_outline("Unity game architecture", [video, book], None)
    assert [c.paper.id for c in answer.citations] == ["b"] and "1 video, web page or post" in " ".join(answer.notes)
    asked = prose_or_outline("Unity game architecture", [video, book], None, keep=frozenset({"v"}))
    assert {c.paper.id for c in asked.citations} == {"v", "b"}
    alone = prose_or_outline("Unity game architecture", [video], None)
    assert [c.paper.id for c in alone.citations] == ["v"], "videos only: drafted from all the same"


def test_labels_and_verbs() -> None:
    assert in_text_label(TWO) == "Kharitonov and Baroni (2020)"
    assert in_text_label(_paper("x", ["Smith, A", "others"], None)) == "Smith et al."
    assert in_text_label(_paper("x", [])) is None
    assert [third_person(v) for v in ("show", "have", "study", "focus", "found", "can", "Bold")] == [
        "shows", "has", "studies", "focuses", "found", "can", None,
    ]  # fmt: skip


def test_a_paper_with_no_author_is_never_named() -> None:
    nobody = _paper("x", [])
    assert turn("We show X.", nobody).text == "“We show X”."
    assert turn("Mosses stabilise soils.", nobody).voice is Voice.VERBATIM


def test_a_sentence_naming_its_paper_or_a_quotation_has_no_vague_subject_to_name() -> None:
    assert name_vague_subject("The paper also explores X.", MANY)[1] == " (Hazra, 2021)"
    assert name_vague_subject("Hazra et al. (2021) extend their work to X.", MANY) == (
        "Hazra et al. (2021) extend their work to X.",
        None,
    )
    assert name_vague_subject("Hazra et al. (2021) write that “this study shows X”.", MANY)[1] is None


def test_a_draft_leaves_out_a_trial_registration_its_protocol_is_not_a_finding() -> None:
    registration = Paper(
        id="r", text="Household chlorination will be tested in 40 villages. INCLUSION CRITERIA: children under five.",
        title="Chlorination trial in Bangladesh", authors=["NCT04736615"], year=2021, citekey="r",
        venue="https://clinicaltrials.gov/show/NCT04736615", item_type="dataset",
    )  # fmt: skip
    trial = Paper(
        id="t", text="Household chlorination reduced diarrhoea in children under five by 23% in Bangladesh.",
        title="Chlorination and diarrhoea", authors=["Luby, Stephen"], year=2020, citekey="t",
    )  # fmt: skip
    answer = prose_or_outline("household chlorination and child diarrhoea", [registration, trial], None)
    assert [c.paper.id for c in answer.citations] == ["t"] and "1 trial registration" in " ".join(answer.notes)
    assert not trial_registration(Paper(id="s", text="t", authors=["Roe, Ann"], venue="ISRCTN registry"))
    assert trial_registration(Paper(id="c", text="t", authors=["CTRI/2024/06/068620"]))
    assert trial_registration(Paper(id="i", text="t", venue="https://www.isrctn.com/ISRCTN77643815"))
