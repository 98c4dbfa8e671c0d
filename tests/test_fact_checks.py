"""Checked means checked: numbers, names, direction and negation of a model's sentence held to its cited source.

The library here is a made-up pair of epidemiology abstracts written like a PubMed export (a Chinese cohort
reporting a hazard ratio, and a second study whose confidence interval a small model borrowed), replaying
what a small local model wrote about a real one: invented participants, a design and a country no source
states, a number taken from the other source.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.check import REVERSED, UNSTATED, Support, check_reply
from rag.check.rules import (
    NumberTable,
    SourceFacts,
    best_aligned,
    changes,
    missing_facts,
    name_mentions,
    numbers_in,
    windows,
)
from rag.cli import app
from rag.llm import Completion, Usage
from rag.records import Paper

runner = CliRunner()
COHORT = Paper(
    "cohort",
    "In a prospective cohort of 5,021 Chinese adults followed for ten years, hearing impairment was associated "
    "with a higher risk of dementia (HR 1.461, 95% CI 1.196-1.783). The association was stronger in women.",
    title="Hearing impairment and incident dementia in a Chinese cohort",
    authors=["Liang, Wei"],
    year=2024,
    citekey="liang2024hearing",
)
AIDS = Paper(
    "aids",
    "Among 2,040 older adults, hearing aid use was associated with slower cognitive decline "
    "(OR 1.71, 95% CI 1.46-1.98).",
    title="Hearing aids and cognitive decline",
    authors=["Smith, Ann"],
    year=2021,
    citekey="smith2021aids",
)
FAITHFUL = "Hearing impairment was associated with a higher risk of dementia (HR 1.46) [1]."


def _check(text: str) -> tuple[list[str], dict[str, tuple[str, str]]]:
    answer = check_reply("hearing and dementia", Completion(text), [COHORT, AIDS], Usage())
    return [s.text for s in answer.sentences], {d.text: (d.reason, d.detail) for d in answer.dropped}


def test_the_small_models_answer_about_a_real_library_keeps_only_what_its_source_states() -> None:
    shown, dropped = _check(
        "The study (Liang, 2024) involved 100 participants with hearing impairment (HR: 1.76, 95% CI: 1.46-1.98) "
        "and the study was a meta-analysis [1]. The study was conducted in Germany [1]. " + FAITHFUL
    )
    assert shown == [FAITHFUL]
    first, second = dropped.values()
    assert first == (UNSTATED, "100 is not in [1]; 1.76 is not in [1]; 1.46-1.98 is from [2], not [1]; "
                     "meta-analysis is not in [1]")  # fmt: skip
    assert second == (UNSTATED, "Germany is not in [1]")


@pytest.mark.parametrize(
    ("sentence", "detail"),
    [
        (
            "Hearing impairment was associated with a lower risk of dementia [1].",
            "says 'lower' where [1] says 'higher'",
        ),
        ("Hearing impairment was not associated with a higher risk of dementia [1].", "adds 'not' to what [1] says"),
        ("The association was stronger in men [1].", "says men where [1] says women"),
        ("Hearing impairment was associated with a higher risk of dementia (HR 1.76) [1].", "1.76 is not in [1]"),
        # a cause where the source only reports an association, in other words than its sentence
        (
            "In Chinese adults, losing one's hearing causes dementia over a decade [1].",
            "says 'causes' where [1] states no such cause",
        ),
    ],
)
def test_a_changed_finding_is_never_shown(sentence: str, detail: str) -> None:
    shown, dropped = _check(sentence)
    assert shown == []
    reason, found = dropped[sentence]
    assert found.startswith(detail)
    assert reason in (REVERSED, UNSTATED)


def test_a_copy_or_a_rewording_of_the_source_passes() -> None:
    copy = "In a prospective cohort of 5,021 Chinese adults followed for ten years, hearing impairment was " \
        "associated with a higher risk of dementia (HR 1.461, 95% CI 1.196-1.783) [1]."  # fmt: skip
    reworded = "The authors found hearing impairment linked to a higher dementia risk in Chinese adults [1]."
    answer = check_reply("q", Completion(f"{copy} {reworded}"), [COHORT, AIDS], Usage())
    assert answer.dropped == []
    assert [s.support for s in answer.sentences] == [Support.EVIDENCE, Support.EVIDENCE]


def test_numbers_are_read_as_values_with_rounding_and_separators() -> None:
    assert numbers_in("HR 1.76 (95% CI 1.46-1.98), n = 32,441; P = .004; 4.8x faster; 10 mg") == [
        "1.76", "95", "1.46", "1.98", "32,441", ".004", "4.8", "10",
    ]  # fmt: skip
    assert numbers_in("IL-18, GPT-3, 3T3 cells and 2D images in step (1)") == []
    table = NumberTable.of("HR 1.461 (1.196-1.783) in 19 999 women, seven cohorts; the Lancet's 1·75")
    assert [table.has(n) for n in ("1.46", "1.5", "1.2", "19999", "7", "1.75")] == [True] * 6
    assert [table.has(n) for n in ("1.76", "2", "1.47")] == [False] * 3  # "2" is too short to be a rounding


def test_names_identifiers_and_populations_must_be_in_the_cited_source() -> None:
    assert name_mentions("Reduction of Rpl38 in Aire-expressing cells at the University of Tokyo (95% CI).") == [
        ("Reduction of Rpl38", "Rpl38"),
        ("Aire-expressing", "Aire"),
        ("University of Tokyo",),
    ]
    source = [SourceFacts.of("Rpl38 reduction in Aire+ cells of mice; IFN-gamma; a randomised trial.")]
    said = [f.said for f in missing_facts("IFN-γ in mice, a randomized trial of Rpl38 in Aire-expressing rats", source)]
    assert said == ["rats"]
    assert [f.code for f in missing_facts("Yeast cells were observed.", source)] == ["unstated-kind"]


def test_reversals_are_read_where_the_sentence_restates_its_evidence() -> None:
    evidence = "Women with high FSH did not have a significantly different probability of conceiving."
    assert [f.source_says for f in changes("Women with high FSH did have a significantly different probability "
                                           "of conceiving.", evidence)] == ["not"]  # fmt: skip
    # A clause left out is not a denial dropped; a rewording is not a reversal.
    assert changes("X increased Y.", "X increased Y, but did not change Z.") == []
    assert changes("Y rose with X.", "Y was increased by X.") == []
    # Two flips cancel out: left to the fitted check.
    assert changes("X did not increase Y.", "X decreased Y.") == []
    # A sentence written from two of the source's sentences is aligned with both.
    two = ["The cohort had 5,021 adults.", "Risk was higher with impairment.", "Other text."]
    assert best_aligned("The cohort had 5,021 adults and risk was higher with impairment.", windows(two))[
        0
    ] == " ".join(two[:2])


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


BIB = """@article{liang2024hearing,
  title = {Hearing impairment and incident dementia in a Chinese cohort},
  author = {Liang, Wei}, year = {2024},
  abstract = {In a prospective cohort of 5,021 Chinese adults followed for ten years, hearing impairment was
    associated with a higher risk of dementia (HR 1.461, 95% CI 1.196-1.783). The association was stronger
    in women.}
}
"""


def test_ask_drops_an_invented_country_and_says_why(tmp_path: Path, fake: FakeOpenAI) -> None:
    bib = tmp_path / "hearing.bib"
    bib.write_text(BIB, encoding="utf-8")
    assert runner.invoke(app, ["--collection", "hearing", "ingest", str(bib)]).exit_code == 0
    fake.play(Reply(text=f"The study was conducted in Germany [1]. {FAITHFUL}"))
    question = "is hearing impairment associated with dementia?"
    model = ["--model", "test-model", "--base-url", fake.url, "--no-cache"]
    result = runner.invoke(app, ["--collection", "hearing", "ask", question, *model, "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert [s["text"] for s in answer["sentences"]] == [FAITHFUL]
    assert answer["dropped_sentences"] == [
        {"text": "The study was conducted in Germany [1].", "reason": UNSTATED, "detail": "Germany is not in [1]"}
    ]
