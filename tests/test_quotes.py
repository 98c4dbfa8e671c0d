"""Quotes that answer the question, from clean text: whole sentences that stand alone, one bullet per paper
whose quote answers, the same sentence never twice. Made-up abstracts; the real embedding model where marked."""

from __future__ import annotations

import pytest
from conftest import MODEL_DIR, needs_model

from rag.check import AnswerMode
from rag.embed import OnnxMiniLM, model_files_dir
from rag.records import Hit, Paper, Passage
from rag.writing import extractive_answer, leans_back, self_standing
from rag.writing.evidence_sentences import (
    HitSentences,
    _sentences_of,
    names_the_opposite,
    sentence_table,
)
from rag.writing.extractive import choose_quotes, quoted_answer
from rag.writing.standing_alone import points_back_inside

MAPREDUCE = Paper(
    "mr",
    "MapReduce is a programming model for processing large data sets. The master pings every worker "
    "periodically. If no response is received from a worker, the master marks the worker as failed and "
    "re-executes its tasks on other workers.",
    title="MapReduce: Simplified Data Processing on Large Clusters",
    authors=["Dean, Jeffrey"],
    year=2004,
)
GFS = Paper(
    "gfs",
    "We have designed and implemented the Google File System, a scalable distributed file system. "
    "The file system uses a Linux reader-writer lock to serialise namespace mutations.",
    title="The Google File System",
    authors=["Ghemawat, Sanjay"],
    year=2003,
)
FOERSTER = Paper(
    "foerster",
    "We propose two approaches for learning communication protocols, RIAL and DIAL. The former uses deep "
    "Q-learning, while the latter exploits the fact that agents can backpropagate error derivatives through "
    "noisy communication channels.",
    title="Learning to Communicate with Deep Multi-Agent Reinforcement Learning",
    authors=["Foerster, Jakob"],
    year=2016,
)


def test_a_sentence_whose_subject_is_in_the_one_before_is_quoted_with_it() -> None:
    assert leans_back("The former uses deep Q-learning, while the latter does not.")
    assert leans_back("This approach reduces memory.") and leans_back("However, it fails on long inputs.")
    assert not leans_back("Transformers scale well.") and not leans_back("Here we show that X holds.")
    assert leans_back("Moreover, accuracy was also above chance.") and leans_back("In addition, FCA is developed.")
    assert not leans_back("In addition to classical methods, the text covers state-space models.")
    assert leans_back("After that, the final treatment was carried out using a special kit.")
    assert leans_back("Subsequently, the teeth were restored.") and not leans_back("After surgery, pain fell.")
    sentences = ["We propose RIAL and DIAL.", "The former uses deep Q-learning.", "Unrelated."]
    assert self_standing(sentences, [1], abstract=3) == [0, 1]
    # A quote that leaves a bracket open takes the next sentence; never across abstract and passage.
    assert self_standing(["As shown [Ghemawat et al. (p. 6).", "] it holds.", "Passage."], [0], 2) == [0, 1]
    assert self_standing(["Abstract.", "This passage (p. 3)"], [1], 1) == [1]
    # A chain of leaning sentences takes what it leans on; one with nothing before it is left out.
    chain = ["Labels cost.", "This phenomenon hurts EEG.", "Consequently, models stay shallow.", "Other."]
    assert self_standing(chain, [2], abstract=4) == [0, 1, 2]
    assert self_standing(["Such erosion is common.", "Mosses help soil."], [0, 1], abstract=2) == [1]


def test_a_sentence_pointing_back_inside_is_quoted_with_what_it_points_to() -> None:
    region = [
        "We sampled seep fields on the US Atlantic margin.",
        "Gas hydrates exist only at water depths greater than ~550 m in this region, suggesting another source.",
    ]
    assert points_back_inside(region[1]) and not leans_back(region[1])
    assert self_standing(region, [1], abstract=2) == [0, 1]
    # What the sentence named itself, the paper, set phrases and an opening phrase point nowhere.
    for alone in (
        "We built a model of the Psp response and fitted this model to sparse data.",
        "In this study, mosses protected the soil.",
        "To this end, we sampled 40 sites.",
        "Heights were greater than those of AgiSoft, and those without drones were lower.",
        "Reconstructing the evolution of this dome field, we find that warm water forced dissociation.",
    ):
        assert not points_back_inside(alone), alone
    # Taken only when what it would be quoted with opens on a sentence that stands alone.
    chain = ["Wetlands were drained.", "However, rewetting failed.", "Wetlands recovered in this region."]
    assert self_standing(chain, [2], abstract=3) == [0, 1, 2]
    pointing = ["Intro.", "We have shown that this approach works.", "We review this approach."]
    assert self_standing(pointing, [2], abstract=3) == [2]
    dangling = ["However, it failed.", "Gas hydrates exist only below 550 m in this region."]
    assert self_standing(dangling, [1], abstract=2) == [1]


def test_papers_whose_quotes_say_the_same_share_one_bullet() -> None:
    said = "Summing risk at the gene set level improved the accuracy of predicting ADHD."
    reworded = "Summing risk at the gene-set level improved the accuracy of predicting ADHD in children."
    first = Paper("a", f"We studied 4,000 children. {said}", title="Gene sets A", authors=["Faraone, S"], year=2021)
    second = Paper(
        "b", f"We studied 5,000 children. {reworded}", title="Gene sets B", authors=["Barnett, E"], year=2023
    )
    other = Paper("c", "Polygenic scores alone did not improve prediction of ADHD.", title="Scores", year=2020)
    table = [_row(first, 1, [1]), _row(second, 2, [1]), _row(other, 3, [0])]
    quotes = choose_quotes(table, limit=2)
    assert [[p.id for p in q.papers] for q in quotes] == [["a", "b"], ["c"]], "a twin takes no place of its own"
    assert quotes[0].line(1, 2).endswith(f"{said} [1][2]") and "Gene sets A (Faraone, 2021); Gene sets B" in quotes[
        0
    ].line(1, 2)
    rows = choose_quotes(table, limit=2, twins=False)  # a table: a row per paper, only the very same sentence once
    assert [[p.id for p in q.papers] for q in rows] == [["a"], ["b"]]
    copy = Paper("a2", first.text, title="Gene sets A (duplicate record)", year=2021)
    rows = choose_quotes([_row(first, 1, [1]), _row(copy, 2, [1]), _row(other, 3, [0])], limit=2, twins=False)
    assert [[p.id for p in q.papers] for q in rows] == [["a"], ["c"]]
    assert quoted_answer("q?", [], quotes).citations[1].paper.id == "b"


def test_a_refusal_names_the_closest_papers_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import rag.writing.extractive as extractive

    monkeypatch.setattr(extractive, "unanswered", lambda *_: True)
    papers = [
        Paper(f"p{i}", f"Caffeine changed theta power in study {i}.", title=f"Caffeine {i}", year=2020)
        for i in range(5)
    ]
    answer = extractive_answer(
        "does caffeine change theta power?", [Hit(p, i + 1, 1.0) for i, p in enumerate(papers)], None, 0.3
    )
    assert answer.mode is AnswerMode.INSUFFICIENT and "Closest: Caffeine 0; Caffeine 1; Caffeine 2." in answer.text
    assert [p.id for p in answer.uncited] == ["p3", "p4"], "the papers the refusal names are not listed again"


def _row(paper: Paper, rank: int, quoted: list[int]) -> HitSentences:
    sentences = _sentences_of(paper.text)
    match = [1.0 / rank] * len(sentences)
    return HitSentences(
        Hit(paper, rank, 1.0), sentences, len(sentences), quoted, quoted, match, None, [1.0] * len(sentences)
    )


def test_a_sentence_about_the_opposite_of_what_is_asked_is_not_quoted() -> None:
    question = "what controls aerobic methane oxidation in the water column?"
    anaerobic = "ANME-1 organisms are responsible for anaerobic methane oxidation below 600 m water depth."
    assert names_the_opposite(question, anaerobic)
    assert not names_the_opposite(question, "Aerobic and anaerobic methane oxidation both occur.")
    assert not names_the_opposite(question, "Inactive cells and information settle to deeper waters.")
    smokers = "Do smokers have a higher risk?"
    assert names_the_opposite(smokers, "Non-smokers had a lower risk.")
    assert not names_the_opposite(smokers, "Smokers and non-smokers differ.")
    assert not names_the_opposite("Do smokers or non-smokers have a higher risk?", "Non-smokers had a lower risk.")
    in_the_column = anaerobic.replace("water depth", "in the water column")
    paper = Paper(
        "s",
        f"We sampled the Black Sea. {in_the_column} Oxygen supply limited aerobic methanotrophs above the interface.",
        title="Methanotrophs in the Black Sea",
        year=2006,
    )
    (row,) = sentence_table("what controls aerobic methane oxidation in the water column?", [Hit(paper, 1, 1.0)], None)
    assert [row.sentences[i] for i in row.quoted] == [row.sentences[2]]


def test_a_table_of_contents_in_a_books_abstract_is_never_quoted() -> None:
    blurb = "R code was updated. # Table of Contents Statistical Learning Linear Regression Classification"
    assert _sentences_of(blurb) == ["R code was updated."]


@needs_model
@pytest.mark.model
def test_a_bullet_only_for_a_paper_whose_quote_answers_and_the_same_sentence_quoted_once() -> None:
    files = model_files_dir(MODEL_DIR)
    assert files is not None
    embedder = OnnxMiniLM(files)
    copy = Paper("mr-copy", MAPREDUCE.text, title="MapReduce (duplicate record)", authors=["Dean, J."], year=2004)
    hits = [Hit(MAPREDUCE, 1, 1.0, 0.5), Hit(GFS, 2, 0.9, 0.45), Hit(copy, 3, 0.8, 0.5)]
    answer = extractive_answer("how does MapReduce handle worker failures?", hits, embedder, 0.3)
    assert answer.mode is AnswerMode.EXTRACTIVE
    # The duplicate's same sentence is not quoted again: one bullet cites both records.
    assert [c.paper.id for c in answer.citations] == ["mr", "mr-copy"]
    assert answer.text.count("marks the worker as failed") == 1 and answer.text.count("\n- ") == 0
    assert answer.text.rstrip().endswith("[1][2]") and "MapReduce (duplicate record) (Dean" in answer.text
    assert "reader-writer lock" not in answer.text
    assert {p.id for p in answer.uncited} == {"gfs"}  # still found, named under the answer
    pixels = extractive_answer("what does DIAL exploit?", [Hit(FOERSTER, 1, 1.0, 0.5)], embedder, 0.3)
    assert "We propose two approaches" in pixels.text and "The former uses" in pixels.text
    nothing = extractive_answer("what is the boiling point of water?", [Hit(GFS, 1, 1.0, 0.31)], embedder, 0.3)
    assert nothing.mode is AnswerMode.INSUFFICIENT


def test_an_experiment_or_supplement_abbreviation_does_not_end_a_sentence() -> None:
    text = "We ran two experiments. Decoding failed in Exp. 2, which probed memory implicitly. See Suppl. Fig. 3."
    assert _sentences_of(text) == [
        "We ran two experiments.",
        "Decoding failed in Exp. 2, which probed memory implicitly.",
        "See Suppl. Fig. 3.",
    ]


def test_a_taxon_abbreviation_does_not_end_a_sentence() -> None:
    # A quote began "(27%)) while reported 7-day diarrhoea prevalence was 6%": cut after "Shigella spp.".
    text = (
        "Enteric pathogen prevalence was high (88% had one, most commonly Giardia spp. (40%) and Shigella spp. "
        "(27%)) while diarrhoea prevalence was 6%. Many children were stunted (26%)."
    )
    assert _sentences_of(text) == [
        "Enteric pathogen prevalence was high (88% had one, most commonly Giardia spp. (40%) and Shigella spp. "
        "(27%)) while diarrhoea prevalence was 6%.",
        "Many children were stunted (26%).",
    ]


def test_asked_what_is_known_a_trial_registration_comes_after_papers_that_report() -> None:
    protocol = Paper(
        "r", "Chlorination will be tested in 40 villages to reduce diarrhoea.", title="Chlorination trial",
        authors=["NCT04736615"], year=2021, venue="https://clinicaltrials.gov/show/NCT04736615",
    )  # fmt: skip
    trial = Paper("t", "Chlorination reduced diarrhoea by 23% in children.", title="Chlorination", year=2020)
    rows = [_row(protocol, 1, [0]), _row(trial, 2, [0])]
    assert [q.hit.paper.id for q in choose_quotes(rows)] == ["r", "t"], "by match alone the protocol leads"
    for row in rows:
        row.finding = [0.9]  # the question asks for findings
    assert [q.hit.paper.id for q in choose_quotes(rows)] == ["t", "r"]


def test_asked_what_was_found_a_registration_or_a_plan_does_not_answer() -> None:
    protocol = Paper(
        "r", "Chlorination will be tested in 40 villages to reduce diarrhoea.", title="Chlorination trial",
        authors=["NCT04736615"], year=2021, venue="https://clinicaltrials.gov/show/NCT04736615",
    )  # fmt: skip
    plan = Paper(
        "p", "The trial will install chlorinators at shared taps to reduce diarrhoea.", title="Taps", year=2022
    )
    trial = Paper("t", "Chlorination reduced diarrhoea by 23% in children.", title="Chlorination", year=2020)
    rows = [_row(protocol, 1, [0]), _row(plan, 2, [0]), _row(trial, 3, [0])]
    for row in rows:
        row.finding, row.needs_finding = [0.9], True  # read as a finding, as the model reads a last sentence
    assert [q.hit.paper.id for q in choose_quotes(rows)] == ["t"]
    for row in rows:
        row.needs_finding = False  # "Which trials test chlorination?": any work answers
    assert [q.hit.paper.id for q in choose_quotes(rows)] == ["p", "t", "r"]


def test_asked_what_was_found_a_paper_is_quoted_by_what_it_found_not_by_what_it_will_do() -> None:
    # The full text's "we will consider ..." matched best; the abstract states the result.
    paper = Paper(
        "b",
        "Backstepping is a recursive design for nonlinear systems. We show that a locally optimal LQ controller is "
        "the value function of an inverse optimal problem.",
        title="Uniting local and global controllers",
    )
    passage = Passage(
        2,
        "In a second part of this paper, we will consider the case in which the prescribed local behaviour is a "
        "locally optimal LQ controller related to inverse optimality.",
        page=2,
    )
    row = sentence_table(
        "How is a locally optimal LQ controller related to inverse optimality?",
        [Hit(paper, 1, 1.0, passage=passage)],
        None,
    )[0]
    assert row.ranked[0] == 2, "the plan matches best"
    assert [row.sentences[i] for i in row.quoted] == [
        "We show that a locally optimal LQ controller is the value function of an inverse optimal problem."
    ]


def test_only_a_question_on_what_was_found_needs_a_finding() -> None:
    hit = Hit(Paper("t", "Chlorination reduced diarrhoea by 23% in children.", title="Chlorination"), 1, 1.0)
    asked = {
        "What share of households treat their drinking water?": True,
        "Does chlorination reduce diarrhoea?": True,
        "Which trials test chlorination in schools?": False,
        "Which works study household water treatment?": False,
        "How do chlorinators work?": False,
    }
    for question, needs in asked.items():
        assert sentence_table(question, [hit], None)[0].needs_finding is needs, question
