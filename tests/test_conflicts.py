"""The fitted check's sight of a negation counts against a sentence only in the stretch of the source the sentence
restates or the judge read as stating it: a conclusion's "no difference" beside the result a sentence restates is
about something else (rag.check.policy.conflict_of)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.check.policy import MANUSCRIPT, answer_label, conflict_of
from rag.check.reading import CitedText, Reading, describe, read_against
from rag.check.scoring import SourceScore
from rag.check.sentences import Support
from rag.corpus.loader import load_paths
from rag.records import Paper

RESULT = "Splinted restorations had higher survival rates than nonsplinted restorations."
CONCLUSION = "There was no difference in marginal bone loss between splinted and nonsplinted restorations."


def _score(sentence: str, passage: str, fitted_only: bool) -> SourceScore:
    return SourceScore(
        0.7, Support.EVIDENCE, 1, sentence, True, 0.9, 0.05, 0.4, passage=passage, fitted_conflict_only=fitted_only
    )


def test_a_fitted_conflict_in_another_sentence_than_the_one_restated_does_not_count() -> None:
    reading = Reading(restates=RESULT, aligned=0.8, source=0)
    assert not conflict_of(_score(CONCLUSION, RESULT, fitted_only=True), reading, RESULT)


def test_a_fitted_conflict_in_the_sentence_restated_or_read_by_the_judge_counts() -> None:
    assert conflict_of(_score(RESULT, "", fitted_only=True), Reading(restates=RESULT, aligned=0.8, source=0), RESULT)
    assert conflict_of(_score(CONCLUSION, f"{RESULT} {CONCLUSION}", fitted_only=True), Reading(), RESULT)


def test_a_negation_the_claim_shares_with_the_stretch_it_restates_is_left_to_the_rules() -> None:
    restated = "There were no significant changes in methane fluxes during the study period."
    claim = "Methane fluxes showed no significant change over the study period."
    reading = Reading(restates=restated, aligned=0.9, source=0)
    assert not conflict_of(_score(restated, restated, fitted_only=True), reading, claim)
    assert conflict_of(_score(restated, restated, fitted_only=True), reading, "Methane fluxes changed over the period.")


def test_a_contradiction_the_judge_read_always_counts() -> None:
    assert conflict_of(_score(CONCLUSION, RESULT, fitted_only=False), Reading(restates=RESULT), RESULT)
    assert not conflict_of(None, Reading(), RESULT)


PUBMED = (
    Path(__file__).resolve().parents[2] / "shared" / "real" / "exports" / "mjwestgate__revtools" / "examples"
    / "restoration_pubmed.nbib"
)  # fmt: skip


@pytest.mark.parametrize(
    ("title", "sentence"),
    [
        (
            "Should the restoration of adjacent implants",
            "A meta-analysis of 19 studies with 4215 implants in 2185 patients found higher survival for splinted "
            "than for nonsplinted implant restorations.",
        ),
        (
            "Ganoderma lucidum Polysaccharides Prevent",
            "Ganoderma lucidum polysaccharides blocked palmitic acid-induced cytotoxicity and apoptosis in the porcine "
            "intestinal epithelial cell line IPEC-J2.",
        ),
    ],
)
def test_faithful_sentences_over_real_abstracts_get_the_top_label(title: str, sentence: str) -> None:
    """Sentences written (for this test) over two abstracts of a real PubMed export: before, both were only weak,
    the fitted check having seen a negation in another sentence of the abstract."""
    if not PUBMED.is_file():
        pytest.skip("../shared/real is not here")
    paper = next(p for p in load_paths([PUBMED]).papers.values() if (p.title or "").startswith(title))
    assert answer_label(sentence, paper)[0].is_top


def cited_abstract(abstract: str, title: str) -> list[CitedText]:
    """One paper's abstract as a manuscript's sentence cites it."""
    return [CitedText.of(Paper(id="p1", text=abstract, title=title))]


def test_a_short_sentence_reversing_the_result_it_restates_is_a_contradiction_in_a_manuscript() -> None:
    """A sentence ("MKP2 decreases apoptosis") restating two thirds of the result it turns around: enough, for a
    manuscript, for its reversal to count (half of its content words); the right way round it is no reversal."""
    abstract = (
        "Apoptosis resistance limits chemotherapy in breast cancer. We screened phosphatases in twelve cell lines. "
        "MKP2 overexpression increased chemotherapy-induced apoptosis, whereas MKP2 depletion dampened the response."
    )
    cited = cited_abstract(abstract, "Phosphatases and apoptosis")
    reversed_reading = read_against("MKP2 decreases apoptosis.", cited)
    assert reversed_reading.aligned < 0.75 and MANUSCRIPT.reversals(reversed_reading)
    assert MANUSCRIPT.label(Support.EVIDENCE, reversed_reading) is Support.CONTRADICTED
    assert not MANUSCRIPT.reversals(read_against("MKP2 increases apoptosis.", cited))


def test_a_risk_its_ratio_turns_the_other_way_is_a_contradiction_in_a_manuscript() -> None:
    """No word of direction turned: the ratio's interval, wholly above 1, says the sentence's "decreases" is the
    other way round; the same sentence with "increases", or a ratio whose interval spans 1, is no reversal."""
    abstract = (
        "Helicobacter pylori infection is common worldwide. We followed 5,000 adults for 15 years. "
        "The estimated odds ratio for the risk of gastric cancer in those with a history of infection with "
        "Helicobacter pylori was 2.77 (95% confidence interval 1.04 to 7.97)."
    )
    cited = cited_abstract(abstract, "Helicobacter pylori and gastric cancer")
    reading = read_against("Infection with Helicobacter pylori decreases the risk of gastric cancer.", cited)
    assert [f.code for f in MANUSCRIPT.reversals(reading)] == ["reversed-ratio"]
    assert (
        describe(reading.findings, "[1]")
        == "says 'decreases the risk' where [1] reports a ratio of 2.77 (1.04-7.97), wholly above 1"
    )
    assert MANUSCRIPT.label(Support.EVIDENCE, reading) is Support.CONTRADICTED
    assert not MANUSCRIPT.reversals(
        read_against("Infection with Helicobacter pylori increases the risk of gastric cancer.", cited)
    )
    spanning = [CitedText.of(Paper(id="p2", text=abstract.replace("1.04 to", "0.94 to"), title="H. pylori"))]
    assert not MANUSCRIPT.reversals(
        read_against("Infection with Helicobacter pylori decreases the risk of gastric cancer.", spanning)
    )


def test_a_number_put_in_place_of_the_one_restated_says_otherwise_in_a_manuscript() -> None:
    """ "One in two" where the result restated says "one in five": the abstract says otherwise, a problem for a
    manuscript as a reversal is; the right number, or a number the sentence adds to a loose paraphrase, is not."""
    abstract = (
        "Trial discontinuation wastes resources. We followed 395 surgical trials registered between 2008 and 2010. "
        "One in five surgical randomised controlled trials are discontinued early, and one in three completed "
        "trials remain unpublished."
    )
    cited = cited_abstract(abstract, "Discontinued surgical trials")
    reading = read_against("One in two surgical randomised controlled trials are discontinued early.", cited)
    assert [f.code for f in MANUSCRIPT.reversals(reading)] == ["swapped"]
    assert describe(MANUSCRIPT.reversals(reading), "the abstract") == "says two where the abstract says five"
    assert MANUSCRIPT.label(Support.EVIDENCE, reading) is Support.CONTRADICTED
    assert not MANUSCRIPT.reversals(
        read_against("One in five surgical randomised controlled trials are discontinued early.", cited)
    )
    assert not MANUSCRIPT.reversals(read_against("Two thirds of surgical trials in 2009 were never published.", cited))
