"""A question about a population, organism or condition is answered only from papers that name it (issue 39: a
near-topic question, "face-swap detectors on videos of children", answered from papers on adults' faces)."""

from __future__ import annotations

from test_key_concepts import hits

from rag.check.sentences import AnswerMode
from rag.records import Paper
from rag.writing.extractive import about_its_subjects, extractive_answer
from rag.writing.table import evidence_table

ADULT_FACES = Paper(
    id="a",
    title="Detecting face-swap deepfake videos with a two-stream network",
    text=(
        "We detect face-swap deepfake videos of adult speakers with a two-stream network. "
        "The detector reached 94% accuracy on face-swap videos from three public benchmarks."
    ),
)
CHILD_FACES = Paper(
    id="c",
    title="Face-swap detection on paediatric video",
    text="Face-swap detectors lost 20 points of accuracy on videos of young children compared with adults.",
)
DENGUE = Paper(
    id="d",
    title="Climate and dengue",
    text="Adding temperature and rainfall improved the prediction of dengue incidence by 12%.",
)


def test_a_paper_that_never_names_the_population_asked_about_does_not_answer() -> None:
    question = "How well do face-swap detectors perform on videos of children?"
    assert [h.paper.id for h in about_its_subjects(question, hits(ADULT_FACES, CHILD_FACES))] == ["c"]
    assert about_its_subjects(question, hits(ADULT_FACES)) == []
    # "paediatric" names children, as in the check's own words for a population
    assert about_its_subjects("Which detectors work for kids?", hits(CHILD_FACES))


def test_a_question_naming_no_population_or_one_among_alternatives_keeps_every_paper() -> None:
    assert len(about_its_subjects("How accurate are face-swap detectors?", hits(ADULT_FACES, CHILD_FACES))) == 2
    # "dengue or malaria": a paper on dengue answers, though it never names malaria
    assert about_its_subjects("Do climate variables improve the prediction of dengue or malaria risk?", hits(DENGUE))
    listed = "Do expression signatures tell schizophrenia, bipolar disorder or major depression from controls?"
    assert about_its_subjects(listed, hits(DENGUE))


def test_ask_and_table_refuse_a_question_on_a_population_no_paper_names() -> None:
    question = "How well do face-swap detectors perform on videos of children?"
    refused = extractive_answer(question, hits(ADULT_FACES), None, 0.0)
    assert refused.mode is AnswerMode.INSUFFICIENT
    assert evidence_table(question, hits(ADULT_FACES), None, 0.0).rows == []
    answered = extractive_answer(question, hits(ADULT_FACES, CHILD_FACES), None, 0.0)
    assert answered.mode is AnswerMode.EXTRACTIVE
    assert [c.paper.id for c in answered.citations] == ["c"]


MOUSE_TUMOURS = Paper(
    id="m",
    title="Drug X in a xenograft model",
    text="Drug X slowed tumour growth by 40% in mice bearing human-derived xenografts of B cells.",
)
PATIENT_TUMOURS = Paper(
    id="p",
    title="A phase II trial of drug X",
    text="In 120 patients with lymphoma, drug X slowed tumour growth over six months.",
)
SIMULATED_TUMOURS = Paper(
    id="s",
    title="Modelling tumour growth under drug X",
    text="An agent-based model predicted that drug X slows tumour growth when given early.",
)


def test_humans_are_asked_of_papers_on_another_organism_and_cells_of_every_paper() -> None:
    question = "Does drug X slow tumour growth in humans?"
    kept = about_its_subjects(question, hits(MOUSE_TUMOURS, PATIENT_TUMOURS, SIMULATED_TUMOURS))
    # a mouse study is no finding in humans; patients are humans; a model of no organism is not ruled out
    assert [h.paper.id for h in kept] == ["p", "s"]
    # the cells asked about must be named: a paper on B cells does not answer a question on T cells
    assert about_its_subjects("Does drug X activate T cells?", hits(MOUSE_TUMOURS)) == []
    assert about_its_subjects("Does drug X act on B-cell tumours?", hits(MOUSE_TUMOURS))
