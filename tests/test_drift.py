"""Near-topic questions are refused (issue 39): quotes that answer a question only without the words their papers
lack ("nicotine" asked of papers on caffeine and the EEG) do not answer it; a question in other words than its
papers ("coffee" for caffeine) is answered. Read with the real embedding model, whose cosines the rule is set on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.records import Hit, Paper
from rag.services import Context, SearchRequest, WritingOptions, ask
from rag.services.table import table
from rag.writing.extractive import Quote, drifts_from_quotes

runner = CliRunner()
PAPERS = [
    ("caffeine2019", "Caffeine and the resting EEG", "Caffeine reduced alpha and theta power in the resting EEG of "
     "healthy adults. The effect lasted two hours after a 200 mg dose."),
    ("caffeine2021", "Caffeine withdrawal and EEG power", "Caffeine withdrawal increased resting EEG theta power "
     "in habitual coffee drinkers. Alpha power returned to baseline within a week."),
    ("alpha2020", "Alpha oscillations at rest", "Resting EEG alpha power rose with eyes closed and fell with "
     "mental arithmetic in 40 students."),
]  # fmt: skip
NEAR_TOPIC = "How does nicotine from smoking change resting EEG alpha and theta power?"
IN_OTHER_WORDS = "Does a daily cup of coffee change alpha and theta power in the resting EEG?"


@pytest.fixture
def library(tmp_path: Path) -> Path:
    records = [{"id": key, "title": title, "abstract": text, "year": 2020} for key, title, text in PAPERS]
    path = tmp_path / "eeg.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(path)]).exit_code == 0
    return path


@needs_model
def test_a_near_topic_question_is_refused_and_one_in_other_words_answered(library: Path) -> None:
    ctx = Context(load_settings())
    options = WritingOptions(use_llm=False, cache=False, log=False)
    near = ask(ctx, SearchRequest(NEAR_TOPIC), options)
    assert near.text.startswith("Insufficient evidence"), near.text
    assert not table(ctx, SearchRequest(NEAR_TOPIC)).rows, "a table refuses it too"
    other = ask(ctx, SearchRequest(IN_OTHER_WORDS), options)
    assert not other.text.startswith("Insufficient evidence") and other.citations, other.text


def test_without_vectors_or_lacked_words_nothing_drifts() -> None:
    paper = Paper(id="a", title="Caffeine and the resting EEG", text=PAPERS[0][2])
    quote = Quote(Hit(paper, 1, 1.0), [PAPERS[0][2]], 1.0)
    assert not drifts_from_quotes(NEAR_TOPIC, [quote], None), "no embedding model: the word rules decide"
    assert not drifts_from_quotes("Does caffeine reduce alpha power in the resting EEG?", [quote], _Unused())
    assert not drifts_from_quotes(NEAR_TOPIC, [], _Unused())


class _Unused:
    """An embedder that must not be asked: every word is held, or there is no quote."""

    name = "unused"

    def embed(self, texts: object, progress: object = None) -> object:
        raise AssertionError("embedded although nothing was lacking")
