"""What a model is shown for a short answer: a model behind an endpoint sees every paper close to the best match
(ENDPOINT_SHORT_SOURCE_TOKENS), a GGUF model in-process the shorter prompt it reads in seconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_openai import FakeOpenAI, Reply
from typer.testing import CliRunner

from rag.cli import app
from rag.config import load_settings
from rag.services import Context, SearchRequest, WritingOptions, ask
from rag.services.requests import DEFAULT_WRITING
from rag.services.writing import composer
from rag.writing.focus import ENDPOINT_SHORT_SOURCE_TOKENS, SHORT_SOURCE_TOKENS

runner = CliRunner()
QUESTION = "How accurate is graph neural network traffic forecasting on highway sensor data?"
# Long sentences, each on the question: five papers that all answer it, more than 500 tokens of them.
FINDING = (
    "In our experiments on {n} weeks of loop detector readings from {n}00 highway sensors, the graph neural "
    "network traffic forecasting model reduced the mean absolute error of 60-minute speed predictions by {n}% "
    "compared with recurrent and autoregressive baselines, with the largest gains during congestion onsets."
)
SETUP = (
    "Graph neural network traffic forecasting treats highway sensor data as signals on a road graph, so that "
    "spatial dependencies between {n} upstream and downstream detectors are learned jointly with their dynamics."
)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def five_answers(tmp_path: Path) -> Path:
    records = [
        {
            "id": f"traffic{n}",
            "title": f"Graph neural networks for highway traffic forecasting, study {n}",
            "abstract": f"{SETUP.format(n=n)} {FINDING.format(n=n + 10)}",
            "year": 2020 + n,
        }
        for n in range(1, 6)
    ]
    library = tmp_path / "traffic.jsonl"
    library.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    assert runner.invoke(app, ["ingest", str(library)]).exit_code == 0
    return library


def test_a_model_behind_an_endpoint_is_shown_every_paper_close_to_the_best(
    five_answers: Path, fake: FakeOpenAI
) -> None:
    fake.play(Reply(text="Graph neural networks reduced the error of speed predictions [1]."))
    settings = load_settings(llm_model="test-model", llm_base_url=fake.url)
    ask(Context(settings), SearchRequest(QUESTION, 5), WritingOptions(cache=False))
    prompt = fake.requests[0]["messages"][1]["content"]
    assert prompt.count("<source n=") == 5, "all five papers that answer, not the first two or three"
    assert "reduced the mean absolute error" in prompt


def test_the_source_budget_depends_on_where_the_model_runs(tmp_path: Path) -> None:
    endpoint = Context(load_settings(llm_model="test-model", llm_base_url="http://127.0.0.1:9"))
    in_process = Context(load_settings(llm_gguf=tmp_path / "small.gguf"))
    shown = {
        name: composer(ctx, object(), None, DEFAULT_WRITING, None, None).options.short_source_tokens  # type: ignore[arg-type]
        for name, ctx in (("endpoint", endpoint), ("gguf", in_process))
    }
    assert shown == {"endpoint": ENDPOINT_SHORT_SOURCE_TOKENS, "gguf": SHORT_SOURCE_TOKENS}
