"""Faults injected by a loopback OpenAI-compatible server, through the real openai SDK.

Each either recovers within the attempt budget or ends in one clear line and exit 1.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION
from fake_openai import FakeOpenAI, Reply, chunk_event, load_cassette
from typer.testing import CliRunner

from rag.cli import app
from rag.endpoints import is_retryable, retry_after_seconds

runner = CliRunner()
ATTEMPTS = 3
RATE_LIMITED = {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
OK = "ok"


def _recorded() -> Reply:
    """The real model's recorded answer (tests/cassettes): these tests are about the transport around it."""
    return load_cassette("ask_heterogeneous")[0]


def _empty_choices() -> Reply:
    return Reply(events=[json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                     "choices": []}), "[DONE]"])  # fmt: skip


def _malformed() -> Reply:
    return Reply(events=[chunk_event("m", {"content": "Hel"}), "{not json", "[DONE]"])


FAULTS: dict[str, tuple[list[Reply], int, int, str]] = {
    # name: (replies, expected requests, exit code, message or OK)
    "429 with Retry-After": ([Reply(429, body=RATE_LIMITED, headers={"retry-after": "0"}), _recorded()], 2, 0, OK),
    "429 without Retry-After": ([Reply(429, body=RATE_LIMITED), _recorded()], 2, 0, OK),
    "500 then success": ([Reply(500), _recorded()], 2, 0, OK),
    "502 then success": ([Reply(502), _recorded()], 2, 0, OK),
    "503 every time": ([Reply(503)] * ATTEMPTS, ATTEMPTS, 1, f"failed with HTTP 503 after {ATTEMPTS} attempts"),
    "timeout every time": ([Reply(delay=1.5, text="late")] * ATTEMPTS, ATTEMPTS, 1, "did not answer within 0.5 s"),
    "stream cut mid-answer": ([Reply(text="An answer that stops [1]" * 5, cut_after=4)], 1, 1, "was cut after"),
    "malformed JSON in stream": ([_malformed()], 1, 1, "sent a malformed chunk"),
    "empty choice list": ([_empty_choices()], 1, 1, "returned no text"),
    "malformed JSON body": ([Reply(status=500, raw=b"{oops")] * ATTEMPTS, ATTEMPTS, 1, "HTTP 500"),
}  # fmt: skip


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv("RAG_LLM_BACKOFF_SECONDS", "0.01")
    with FakeOpenAI() as server:
        yield server


def run_ask(url: str, *extra: str) -> tuple[int, str]:
    env = {"RAG_LLM_ATTEMPTS": str(ATTEMPTS), "RAG_LLM_TIMEOUT": "0.5", "RAG_LLM_CACHE": "false"}
    result = runner.invoke(app, ["ask", HETEROGENEOUS_QUESTION, "--model", "m", "--base-url", url, *extra], env=env)
    return result.exit_code, result.stderr


@pytest.mark.parametrize("name", list(FAULTS))
def test_fault(seeded: Path, fake: FakeOpenAI, name: str) -> None:
    replies, requests, exit_code, message = FAULTS[name]
    fake.play(*replies)
    code, err = run_ask(fake.url)
    assert code == exit_code, err
    assert len(fake.requests) == requests
    if message != OK:
        errors = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and message in errors[0] and "Traceback" not in err


def test_connection_refused(seeded: Path) -> None:
    code, err = run_ask("http://127.0.0.1:9/v1")
    assert code == 1 and f"cannot reach http://127.0.0.1:9/v1 after {ATTEMPTS} attempts" in err


def test_retry_after_is_honoured() -> None:
    import httpx
    import openai

    response = httpx.Response(429, headers={"retry-after": "7"}, request=httpx.Request("POST", "http://x"))
    error = openai.RateLimitError("slow", response=response, body=None)
    assert retry_after_seconds(error) == 7.0
    assert is_retryable(error)
    response_ms = httpx.Response(429, headers={"retry-after-ms": "250"}, request=httpx.Request("POST", "http://x"))
    assert retry_after_seconds(openai.RateLimitError("slow", response=response_ms, body=None)) == 0.25


def test_long_retry_after_stops_with_its_reason(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(429, body=RATE_LIMITED, headers={"retry-after": "120"}))
    code, err = run_ask(fake.url)
    assert code == 1 and "asks to wait 120 s" in err
    assert len(fake.requests) == 1, "no hammering when the server asked for a long pause"


def test_unreadable_retry_after_falls_back_to_backoff(seeded: Path, fake: FakeOpenAI) -> None:
    fake.play(Reply(429, body=RATE_LIMITED, headers={"retry-after": "soon"}), _recorded())
    code, err = run_ask(fake.url)
    assert code == 0, err
    assert len(fake.requests) == 2


def test_error_messages_never_show_keys(seeded: Path, fake: FakeOpenAI) -> None:
    secret = "sk-live-VERY-SECRET-0123456789"
    fake.play(Reply(400, body={"error": {"message": f"bad request for key {secret}"}}))
    env = {"RAG_LLM_API_KEY": secret, "RAG_LLM_CACHE": "false"}
    result = runner.invoke(app, ["ask", HETEROGENEOUS_QUESTION, "--model", "m", "--base-url", fake.url], env=env)
    assert result.exit_code == 1
    assert secret not in result.stderr and "sk-…6789" in result.stderr
    assert fake.bearers == [f"Bearer {secret}"], "the key still reaches the endpoint it is meant for"
