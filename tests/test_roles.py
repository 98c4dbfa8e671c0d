"""Sentence roles (issue 39): a structured abstract's labels decide and never reach a reader; the shipped model reads
the others; a question about findings is answered with the paper's result, not its aim."""

from __future__ import annotations

import json

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.corpus.roles import (
    MODEL_FILE,
    Role,
    findings_share,
    section_label,
    sentence_roles,
    strip_label,
    tells_of_the_work,
)
from rag.records import Hit, Paper
from rag.text import unglue
from rag.writing.evidence_sentences import asks_for_findings, sentence_table, states_nothing

runner = CliRunner()
# The shipped weights stay small: a wheel carries them.
MAX_MODEL_BYTES = 400_000

MCR_ABSTRACT = (
    "Motoric cognitive risk syndrome (MCR) is a pre-dementia syndrome that combines slow gait and subjective "
    "cognitive complaints. To systematically review the prevalence of motoric cognitive risk syndrome among older "
    "adults. We searched PubMed, Embase and Web of Science for population-based studies of adults aged 60 and over. "
    "Pooled prevalence of MCR was found to be 10% (95% CI 8%-12%) across 15 studies. Prevalence was higher in "
    "low-income countries. Motoric cognitive risk syndrome is common among older adults and should be screened for."
)
STRUCTURED = (
    "BACKGROUND AND PURPOSE: Gait speed predicts dementia. METHODS: We followed 1,200 older adults for five years. "
    "RESULTS: Slow gait doubled the risk of dementia (HR 2.1, 95% CI 1.6-2.8). CONCLUSIONS: Gait speed should be "
    "measured in clinics."
)


def test_labels_are_read_and_stripped() -> None:
    assert section_label("RESULTS: Slow gait doubled the risk.") == ("RESULTS: ", Role.RESULT)
    assert section_label("Materials and methods: We followed them.") == ("Materials and methods: ", Role.METHOD)
    found = section_label("BACKGROUND AND PURPOSE: Gait speed predicts dementia.")
    assert found is not None and found[1] is None  # two roles: the model decides
    assert strip_label("BACKGROUND AND PURPOSE: Gait speed predicts dementia.") == "Gait speed predicts dementia."
    assert strip_label("Design, setting, and participants: A cohort.") == "A cohort."
    assert section_label("(2) Methods: We present X.") == ("(2) Methods: ", Role.METHOD)
    assert section_label("ConclusionsEndodontically treated teeth ...") == ("Conclusions", Role.CONCLUSION)
    assert strip_label("MethodsThis study was a trial.") == "This study was a trial."
    assert strip_label("Significance/implications:Lorenz et al. provide evidence.") == "Lorenz et al. provide evidence."
    assert strip_label("Ratio:The value") == "Ratio:The value"  # no label's words
    assert strip_label("Resultsoriented care helps.") == "Resultsoriented care helps."  # a word, not a label
    assert strip_label("(3) Results and conclusion: X is faster.") == "X is faster."
    for plain in ("Note: this is not a label.", "We found: nothing.", "Results showed a gain.", "p: 0.5 was used"):
        assert strip_label(plain) == plain


def test_a_structured_abstract_takes_its_roles_from_its_labels() -> None:
    sentences = [s for s in STRUCTURED.replace(": ", ":\u0000").split(". ") if s]
    sentences = [s.replace("\u0000", " ") for s in sentences]
    roles = sentence_roles(sentences)
    assert roles[1:] == [Role.METHOD, Role.RESULT, Role.CONCLUSION]


def test_the_model_reads_an_unlabelled_abstract() -> None:
    sentences = [
        "Dementia is a leading cause of disability worldwide.",
        "We aimed to investigate whether gait speed predicts dementia.",
        "We recruited 1,200 adults and measured their gait speed at baseline.",
        "Slow gait was associated with a higher risk of dementia (HR 2.1, 95% CI 1.6-2.8, p < 0.001).",
        "These findings suggest that gait speed should be measured in clinics.",
    ]
    roles = sentence_roles(sentences)
    assert roles[0] is Role.BACKGROUND
    assert roles[3] is Role.RESULT
    assert roles[4] in (Role.CONCLUSION, Role.RESULT)
    assert sentence_roles([]) == []


def test_an_open_question_or_earlier_work_is_no_finding_wherever_it_sits() -> None:
    sentences = [
        "Signalling networks in the mammalian cell are complex systems.",
        "We combine hybrid Petri net modelling and simulation.",
        "In neurons, prolonged activation of these proteins is needed to support protein synthesis.",
        "However, biologists wonder how two brief calcium influxes of 1 s can lead to this long activation downstream.",
        "Simulation results indicate instead that a feedforward motif acts as a coincidence detector.",
    ]
    roles = sentence_roles(sentences)
    assert roles[3] is Role.BACKGROUND and roles[4] in (Role.RESULT, Role.CONCLUSION)
    reported = [*sentences[:3], "We found that Akt was needed (p < 0.01), although why remains unclear."]
    assert sentence_roles(reported)[3] is not Role.BACKGROUND, "a result beside the open question stays a result"
    earlier = [*sentences[:3], "We have previously demonstrated that this approach identifies network models."]
    assert sentence_roles(earlier)[3] is Role.BACKGROUND, "what earlier work found is background"


def test_what_a_paper_sets_out_to_explore_is_its_aim_wherever_it_sits() -> None:
    sentences = [
        "Signalling networks in the mammalian cell are complex systems.",
        "We combine hybrid Petri net modelling and simulation.",
        "We use this methodology on the regulatory network of the proteins mTOR and p70S6K.",
        "With our new model of the network, we explore the current biological hypothesis for the response of mTOR.",
        "Simulation results indicate instead that a feedforward motif acts as a coincidence detector.",
    ]
    roles = sentence_roles(sentences)
    assert roles[3] is Role.AIM and roles[4] in (Role.RESULT, Role.CONCLUSION)
    reporting = [*sentences[:3], "We investigate the toxic effect of glucose and demonstrate that GLP-1 protects."]
    assert sentence_roles(reporting)[3] is not Role.AIM, "a sentence that also reports stays the model's to read"


def test_what_a_paper_did_to_find_something_is_its_method() -> None:
    sentences = [
        "Aquatic fecal contamination poses human health risks.",
        "Identifying the factors that affect contaminant transport is essential.",
        "We visited streams in the Finger Lakes region between April and October.",
        "We then applied generalized linear mixed models and conditional inference trees to identify factors that "
        "were significantly associated with human markers.",
        "We found that human contaminants were more likely to be identified when the developed area was larger.",
    ]
    assert sentence_roles(sentences)[3] is Role.METHOD
    found = [*sentences[:3], "We then applied mixed models to identify factors and found that rain mattered."]
    assert sentence_roles(found)[3] in (Role.RESULT, Role.CONCLUSION), "a sentence that also reports stays a finding"
    used = [*sentences[:3], "Finally, a pre-trained network is utilized for face detection and cropping."]
    assert sentence_roles(used)[3] is Role.METHOD, "what was used, said in the passive, wherever it sits"


def test_what_the_work_will_do_is_a_plan_wherever_it_sits() -> None:
    background = [
        "At least 1.8 billion people use a source of drinking water that is faecally contaminated.",
        "Diseases related to contaminated drinking water place a major burden on human health.",
    ]
    for plan in (
        "The project will provide information about how well the different filters are working in households.",
        "A total of 120 participants will be included in the study.",
        "In this review, we will discuss newer therapies targeting liver disease.",
        "This trial will yield valuable information on the benefits of home-based interventions.",
    ):
        assert sentence_roles([*background, plan])[2] is Role.METHOD, plan
    for finding in (
        "Most patients believe that they will never be free of the infection.",
        "Models project that mean temperatures will rise by 2 degrees by 2100.",
    ):
        assert sentence_roles([*background, finding])[2] is not Role.METHOD, finding
    labelled = [*background, "CONCLUSIONS: The results of the trial will be used to assess generalizability."]
    assert sentence_roles(labelled)[2] is Role.CONCLUSION, "a structured abstract's label still decides"


def test_the_shipped_model_is_small_and_says_what_it_was_fitted_on() -> None:
    assert MODEL_FILE.stat().st_size < MAX_MODEL_BYTES
    fitted_on = json.loads(MODEL_FILE.read_text())["fitted_on"]
    assert not [name for name in fitted_on if any(h in name for h in ("AIML", "chrisjbillington", "fatihserta"))]


def test_findings_questions() -> None:
    assert asks_for_findings("What is the prevalence of motoric cognitive risk syndrome among older adults?")
    assert asks_for_findings("Does gait speed predict dementia?")
    assert asks_for_findings("which works target heterogeneous GPUs?")
    assert not asks_for_findings("Riemannian geometry for EEG classification")  # a draft's topic
    assert not asks_for_findings("How do studies measure gait speed?")
    assert not asks_for_findings("Which methods are used to screen for dementia?")


def _hit(text: str, title: str) -> Hit:
    return Hit(Paper(id="p1", text=text, title=title, citekey="doe2020"), rank=1, score=1.0)


def test_a_prevalence_question_quotes_the_prevalence_not_the_aim() -> None:
    question = "What is the prevalence of motoric cognitive risk syndrome among older adults?"
    title = "Prevalence of motoric cognitive risk syndrome: a meta-analysis"
    row = sentence_table(question, [_hit(MCR_ABSTRACT, title)], None)[0]
    assert "Pooled prevalence of MCR was found to be 10% (95% CI 8%-12%)" in row.quote_text
    assert all(sentence in MCR_ABSTRACT for sentence in (row.sentences[i] for i in row.quoted))  # verbatim


def test_a_statistic_that_does_not_answer_gives_way_to_the_next_finding() -> None:
    """'risk' makes it a question about a quantity, so the AUC sentence is the closest finding, but it says nothing
    of what is asked: the finding that does is quoted, not the method alone."""
    question = "Do gene set risk scores improve prediction over standard scores?"
    text = (
        "BACKGROUND: Risk scores are widely used in psychiatry. METHODS: We added gene set scores to the standard "
        "scores as inputs to a random forest. RESULTS: The random forest had an AUC of 0.72 (95% CI 0.70-0.74) in "
        "the test subset. CONCLUSIONS: Gene set scores improved the prediction."
    )
    row = sentence_table(question, [_hit(text, "Gene set risk scores for prediction")], None)[0]
    assert "Gene set scores improved the prediction." in row.quote_text


def test_a_question_or_a_link_is_never_quoted_when_the_paper_states_something() -> None:
    text = (
        "We studied 1,000 open-source C and C++ projects on GitHub. Is project popularity related to CI/CD adoption "
        "rate? Popular projects adopted continuous integration more often than others."
    )
    row = sentence_table("how to measure CI/CD adoption rate and popularity", [_hit(text, "Build systems")], None)[0]
    assert row.quote_text == "Popular projects adopted continuous integration more often than others."
    linked = "Our CI/CD adoption rate tool is at https://example.org/ci for all. Popular projects adopt CI/CD more."
    row = sentence_table("how to measure CI/CD adoption rate", [_hit(linked, "Build systems")], None)[0]
    assert "https" not in row.quote_text
    alone = sentence_table("Is CI/CD popular?", [_hit("Is CI/CD popular?", "CI/CD")], None)[0]
    assert alone.quote_text == "Is CI/CD popular?", "a paper that only asks is quoted asking"


def test_a_question_asking_whether_quotes_the_finding_that_says_so_not_any_number() -> None:
    question = "Does obesity increase COVID-19 mortality?"
    text = (
        "BACKGROUND: Obesity affects critical illness. METHODS: We pooled 167 studies. RESULTS: Obesity was "
        "associated with an increased risk of severe disease (RR=1.52, 95% CI 1.41-1.63). Mortality was higher in "
        "obese patients (RR=1.09, 95% CI 1.02-1.16). CONCLUSIONS: Obesity is associated with increased severity "
        "and higher mortality in COVID-19."
    )
    row = sentence_table(question, [_hit(text, "Obesity and COVID-19 severity and mortality")], None)[0]
    assert "severe disease (RR=1.52" not in row.quote_text and "mortality" in row.quote_text.lower()


def test_a_quote_never_shows_a_section_label() -> None:
    row = sentence_table("Does slow gait predict dementia?", [_hit(STRUCTURED, "Gait and dementia")], None)[0]
    assert not any(":" in row.sentences[i][:25] for i in range(len(row.sentences)))
    assert "Slow gait doubled the risk of dementia" in row.quote_text


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("five years.Conclusions: Slow gait", ["five years.", "Conclusions: Slow gait"]),
        (
            "functional pathways.120 pathways led to survival.",
            ["functional pathways.", "120 pathways led to survival."],
        ),
        ("see vol.3 of the series.", ["see vol.3 of the series."]),  # an abbreviation
        ("The value was 0.120 mg in 3 of them.", ["The value was 0.120 mg in 3 of them."]),  # a number
        ("The U.S.Army trial ended", ["The U.S.Army trial ended"]),  # letters with stops
        (  # MDPI's numbered sections, run on after a semicolon or a full stop
            "costs massive resources; (2) Methods: We present X. (3) Results and conclusion: X is faster.",
            ["costs massive resources;", "(2) Methods: We present X.", "(3) Results and conclusion: X is faster."],
        ),
        ("doses (see (2) below); the rest", ["doses (see (2) below); the rest"]),  # a numbered aside, no label
        ("except group DP.ConclusionsThe teeth", ["except group DP.", "ConclusionsThe teeth"]),  # after capitals
    ],
)
def test_sentences_run_together_are_cut_apart_as_the_text_has_them(text: str, pieces: list[str]) -> None:
    assert unglue(text) == pieces


def test_sentences_an_export_ran_together_are_quoted_apart_without_their_label() -> None:
    glued = (
        "We followed 1,200 older adults for five years.Conclusions: Slow gait doubled the risk of dementia. "
        "Gait speed should be measured in clinics."
    )
    row = sentence_table("Does slow gait predict dementia?", [_hit(glued, "Gait and dementia")], None)[0]
    assert "Slow gait doubled the risk of dementia." in row.sentences
    assert "Conclusions" not in row.quote_text and "five years" not in row.quote_text


@needs_model
def test_ask_quotes_results_without_their_labels(tmp_path: pytest.TempPathFactory) -> None:
    library = tmp_path / "structured.jsonl"  # type: ignore[operator]
    rows = [
        {"key": "gait2020", "title": "Gait speed and dementia", "abstract": STRUCTURED, "year": 2020},
        {"key": "mcr2021", "title": "Motoric cognitive risk syndrome prevalence", "abstract": MCR_ABSTRACT},
    ]
    library.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert runner.invoke(app, ["ingest", str(library)]).exit_code == 0
    shown = runner.invoke(app, ["ask", "--no-llm", "--json", "Does slow gait predict dementia?"])
    answer = json.loads(shown.output)["answer"]
    assert "RESULTS:" not in answer and "BACKGROUND" not in answer
    assert "Slow gait doubled the risk of dementia" in answer


def test_an_abstract_cut_short_keeps_its_quote() -> None:
    """The seeds hold abstracts' openings ('…'): their last sentence sits where findings do, but is none."""
    cut = (
        "Training large models on heterogeneous GPUs is hard. We present Hexa, a scheduler for heterogeneous GPU "
        "clusters. Earlier designs allow multiple…"
    )
    question = "which works target heterogeneous GPUs?"
    row = sentence_table(question, [_hit(cut, "Hexa: scheduling on heterogeneous GPUs")], None)[0]
    assert row.finding is not None
    assert "Earlier designs" not in row.quote_text


def test_what_a_sentence_says_of_the_work_is_no_finding_and_what_its_analysis_showed_is_one() -> None:
    opening = [
        "Lawyers are disciplined by state bars.",
        "Whether bar exam scores predict discipline is debated.",
        "We collected disciplinary records of licensed attorneys.",
    ]
    about_the_work = [
        "The methods applied in the study could be used for reference in other polluted rivers.",
        "These findings shed light on vulnerabilities to legal misconduct, and have implications for education.",
        "This book will be of relevance not only to law teachers but to university teachers generally.",
        "The work done in this direction will be further extended in the future to build transformer models.",
        "The Petri net models used can be accessed via http://example.org/models/.",
        "All possible pathways, which reflect the complex net behaviour, are discussed.",
        "We conclude by reporting details on the construction of data points.",
        "The resulting model serves as basis for a better understanding of pathological processes.",
        "Petri nets have been proposed as an effective formalism for systems biology.",
        "Deep networks have been applied to EEG classification.",
        "Our findings suggest the need to collect data across seasons and report seasonally stratified results.",
        "These results highlight an urgent need for better surveillance of water quality.",
        "Further high-quality research is needed to confirm these effects.",
    ]
    for sentence in about_the_work:  # a quote may hold one beside its finding; a draft's sentence may not
        assert tells_of_the_work(sentence), sentence
    assert not tells_of_the_work("The results show that this approach could help reduce misconduct.")
    assert not tells_of_the_work("Households in need of water treatment reported more diarrhoea.")
    shown = "Using a large dataset of bar records, our analysis shows that bar exam score is related to discipline."
    assert sentence_roles([opening[0], shown, *opening[1:]])[1] is Role.RESULT
    earlier = "Previous results showed that bar exam score is related to discipline."
    assert sentence_roles([opening[0], earlier, *opening[1:]])[1] is not Role.RESULT, "what earlier work showed"
    assert sentence_roles([*opening, "In this paper, we propose new measures of compositionality."])[-1] is Role.AIM
    reported = [*opening, "The results show that this approach could help reduce misconduct."]
    assert findings_share(reported)[-1] >= 0.5, "a finding about what could help is still a finding"


def test_a_keyword_list_an_export_left_in_brackets_states_nothing() -> None:
    assert states_nothing("[law, education, professions, neoliberalism, race, markets, United States]")
    assert not states_nothing("Discipline rose with lower scores [12].")
