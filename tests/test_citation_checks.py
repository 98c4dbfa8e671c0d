"""The citation promise whatever the model does: every shown sentence is cited and checked, or marked.

Replies are hand-written here on purpose: each test needs one exact misbehaviour
(no citations, loops, invented numbers, prose citations, invented institutions,
refused or ignored schemas), replayed through the real openai SDK.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION, needs_model
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.check import AnswerMode, Support
from rag.cli import app
from rag.config import load_settings
from rag.services import Context, SearchRequest, WritingOptions, ask

# The replies cite sources by their number in the real model's ranking of the heterogeneous-GPU question.
pytestmark = needs_model
runner = CliRunner()
NO_CACHE = WritingOptions(cache=False)
# Sources for the heterogeneous-GPU question, in retrieval order: [1] Dünner, [2] Yuan, [3] Holmes, [4] HexiSeq.
DUNNER = (
    "A generic algorithmic building block accelerates training on heterogeneous compute systems with GPUs and FPGAs"
)
HOLMES = "Holmes trains large language models across clusters with heterogeneous NIC environments"
HEXISEQ = (
    "HexiSeq extends Context Parallelism and Head Parallelism to heterogeneous GPU meshes for long-context training"
)
INVENTED = "The work is a collaboration between the University of Tokyo and the University of California"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


def _ask(fake: FakeOpenAI, options: WritingOptions = NO_CACHE, **settings: object):  # type: ignore[no-untyped-def]
    ctx = Context(load_settings(llm_model="test-model", llm_base_url=fake.url, **settings))
    return ask(ctx, SearchRequest(HETEROGENEOUS_QUESTION, 5), options)


def _numbers(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"\[(\d+)\]", text)}


def test_uncited_sentences_are_attributed_to_the_source_that_backs_them(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES}. {HEXISEQ}."))
    answer = _ask(fake)
    assert answer.mode is AnswerMode.LLM
    assert [s.attributed for s in answer.sentences] == [True, True]
    assert [c.paper.citekey for c in answer.citations] == ["yang2023holmes", "liang2026hexiseq"]
    assert answer.text == f"{HOLMES} [1]. {HEXISEQ} [2]."
    assert all(s.support is Support.EVIDENCE and s.evidence is not None for s in answer.sentences)


def test_a_sentence_no_source_backs_is_never_shown(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES} [3]. Quantum annealers cure insomnia in mice [3]. {INVENTED}."))
    answer = _ask(fake)
    assert answer.text == f"{HOLMES} [1]."
    assert [d.text for d in answer.dropped] == [
        "Quantum annealers cure insomnia in mice [3].",
        f"{INVENTED}.",
    ]


def test_an_answer_with_nothing_supported_falls_back_to_quotes(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{INVENTED} [1]. {INVENTED} [2]. Quantum annealers cure insomnia [3]."))
    answer = _ask(fake)
    assert answer.mode is AnswerMode.EXTRACTIVE and answer.citations, "quotes from the papers instead"
    assert answer.model_text and "University of Tokyo" in answer.model_text
    assert any("no sentence its sources support" in note for note in answer.notes)
    result = runner.invoke(app, ["ask", HETEROGENEOUS_QUESTION, "--model", "test-model", "--base-url", fake.url])
    assert "University of Tokyo" not in result.stdout


def test_a_looping_model_is_cut_off_and_its_repeats_dropped(seeded: Path, fake: FakeOpenAI) -> None:
    loop = f"{HOLMES} [3]. " * 40
    fake.play(Reply(text=f"{HEXISEQ} [4]. {loop}"))
    answer = _ask(fake)
    assert answer.text == f"{HEXISEQ} [1]. {HOLMES} [2]."
    assert any("stopped reading" in note for note in answer.notes)
    assert answer.model_text is not None and answer.model_text.count(HOLMES) < 40, "the stream was stopped early"
    assert {d.reason for d in answer.dropped} == {
        "repeated an earlier sentence",
        "cut off when rag stopped the looping model",
    }


@pytest.mark.parametrize(
    ("reply", "removed"),
    [
        (f"{HOLMES} [0]. {HEXISEQ} [4].", [0]),
        (f"{HOLMES} [-1]. {HEXISEQ} [4].", [0]),
        (f"{HOLMES} [12]. {HEXISEQ} [4].", [12]),
        (f"{HOLMES} [1-3]. {HEXISEQ} [4].", []),
        (f"As source 3 reports, {HOLMES[0].lower()}{HOLMES[1:]}. {HEXISEQ} [4].", []),
    ],
)
def test_citation_numbers_the_model_was_not_given(
    seeded: Path, fake: FakeOpenAI, reply: str, removed: list[int]
) -> None:
    fake.play(Reply(text=reply))
    answer = _ask(fake)
    assert answer.removed_citations == removed
    assert answer.mode is AnswerMode.LLM
    assert _numbers(answer.text) == {c.n for c in answer.citations}, "every [n] shown is in the references"
    holmes = next(s for s in answer.sentences if "NIC" in s.text)
    assert [answer.citations[n - 1].paper.citekey for n in holmes.citations][-1:] == ["yang2023holmes"]
    assert "[0]" not in answer.text and "[-1]" not in answer.text and "[12]" not in answer.text


def test_a_sentence_naming_an_institution_its_source_never_mentions_is_not_shown(
    seeded: Path, fake: FakeOpenAI
) -> None:
    fake.play(Reply(text=f"{HEXISEQ} [4]. {HOLMES} at the University of Tokyo [3]."))
    answer = _ask(fake)
    assert [s.text for s in answer.sentences] == [f"{HEXISEQ} [1]."]
    (dropped,) = answer.dropped
    assert dropped.reason == "states a number or name its sources do not"
    assert dropped.detail == "University of Tokyo is not in [3]"
    fake.play(Reply(text=f"{HEXISEQ} [4]. {HOLMES} at the University of Tokyo [3]."))
    result = runner.invoke(app, ["ask", HETEROGENEOUS_QUESTION, "--model", "test-model", "--base-url", fake.url])
    assert "University of Tokyo" not in result.stdout.split("References")[0]
    assert "dropped 1 sentences the reader should not see (1 states a number or name its sources do not)" in (
        " ".join(result.stdout.split())
    )


def test_structured_reply_becomes_cited_text(seeded: Path, fake: FakeOpenAI) -> None:
    sentences = [{"text": f"{HEXISEQ}.", "sources": [4]}, {"text": f"{DUNNER}.", "sources": [1]}]
    fake.play(Reply(text=json.dumps({"sentences": sentences})))
    answer = _ask(fake)
    request = fake.requests[0]
    schema = request["response_format"]["json_schema"]["schema"]
    sources = schema["properties"]["sentences"]["items"]["properties"]["sources"]["items"]
    assert sources["enum"] == [1, 2, 3, 4], "only the numbers of the sources given"
    assert "JSON" in request["messages"][1]["content"]
    assert answer.text == f"{HEXISEQ} [1]. {DUNNER} [2]."
    assert [c.paper.citekey for c in answer.citations] == ["liang2026hexiseq", "dunner2017efficient"]


def test_json_that_ignores_the_schema_is_read_as_text(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES} [3]."))  # a server that accepted response_format but wrote prose
    answer = _ask(fake)
    assert answer.text == f"{HOLMES} [1]."


def test_json_of_another_shape_is_not_shown(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text='{"answer": "whatever", "refs": [9]}'))
    answer = _ask(fake)
    assert answer.mode is AnswerMode.EXTRACTIVE


def test_a_server_that_refuses_schemas_is_asked_in_text_and_remembered(seeded: Path, fake: FakeOpenAI) -> None:
    refused = Reply(status=400, body={"error": {"message": "response_format json_schema is not supported"}})
    fake.play(refused, Reply(text=f"{HOLMES} [3]."), Reply(text=f"{HEXISEQ} [4]."))
    first = _ask(fake)
    assert first.text == f"{HOLMES} [1]." and any("refused structured output" in n for n in first.notes)
    assert "response_format" in fake.requests[0] and "response_format" not in fake.requests[1]
    assert "[2]" in fake.requests[1]["messages"][1]["content"], "the text protocol's format line"
    second = _ask(fake)
    assert second.text == f"{HEXISEQ} [1]."
    assert "response_format" not in fake.requests[2], "the refusal is remembered for this endpoint"


def test_text_protocol_by_setting(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES} [3]."))
    _ask(fake, llm_citations="text")
    assert "response_format" not in fake.requests[0]


def test_the_judge_can_say_contradicted(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(
        Reply(text=f"{HEXISEQ} [4]. {HOLMES} [3]."),
        Reply(text='{"verdict": "SUPPORTED"}'),
        Reply(text='{"verdict": "CONTRADICTED"}'),
    )
    answer = _ask(fake, WritingOptions(cache=False, verify_llm=True))
    assert [s.support for s in answer.sentences] == [Support.SUPPORTED, Support.CONTRADICTED]
    assert fake.requests[1]["response_format"]["json_schema"]["schema"]["properties"]["verdict"]["enum"] == [
        "SUPPORTED",
        "CONTRADICTED",
        "NOT ENOUGH INFO",
    ]


def test_terminal_marks_attributed_and_shows_evidence(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES}."))
    args = ["ask", HETEROGENEOUS_QUESTION, "--model", "test-model", "--base-url", fake.url, "--no-cache"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert "†" in result.stdout and "citation added by rag" in result.stdout
    fake.play(Reply(text=f"{HOLMES}."))
    with_evidence = runner.invoke(app, [*args, "--evidence"])
    assert "Evidence" in with_evidence.stdout and "“" in with_evidence.stdout


def test_json_carries_checks_and_evidence(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(text=f"{HOLMES}. {HOLMES}. Quantum annealers grow tomatoes [2]."))
    args = ["ask", HETEROGENEOUS_QUESTION, "--json", "--model", "test-model", "--base-url", fake.url, "--no-cache"]
    payload = json.loads(runner.invoke(app, args).stdout)
    sentence = payload["sentences"][0]
    assert sentence["attributed"] is True and sentence["support"] == "evidence_found"
    assert sentence["evidence"]["id"] == payload["citations"][0]["id"] and sentence["evidence"]["text"]
    assert {d["reason"] for d in payload["dropped_sentences"]} == {
        "repeated an earlier sentence",
        "no given source supports it",
    }
    assert payload["model_text"].startswith(HOLMES)
