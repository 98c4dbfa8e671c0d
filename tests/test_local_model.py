"""A real local model end to end: SmolLM2-135M (GGUF) run in-process by llama.cpp, through the openai SDK.

A 135M model writes poor text, so these tests assert only what must hold whatever it
says: the commands succeed, the --json contract holds (every [n] in the answer is a
citation), LaTeX has no [n] left. Bad GGUF input is checked without any model.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import HETEROGENEOUS_QUESTION
from typer.testing import CliRunner

from rag.cli import app
from rag.llm import LocalModel, gguf

runner = CliRunner()
ASK_MODES = {"llm", "extractive", "insufficient_evidence"}
# summarize and draft fall back to paragraphs of the papers' own sentences when the model's text is unusable
# (to a themed outline when none of those passes the check either).
WRITING_MODES = {*ASK_MODES, "extractive_prose", "outline"}
CITATION = re.compile(r"\[(\d+)\]")
# Short answers keep the file well under a few minutes on 2 cores (the model writes ~60 tokens/s).
MAX_TOKENS = "200"
# Few papers per summary/draft: prompt tokens dominate the time (~170 tokens/s on one thread).
FEW_PAPERS = "4"
# What llama.cpp's own log lines look like ("0.00.011.561 I srv init: ...", "llama_model_load: ...").
LLAMA_CPP_LOG = re.compile(r"^\d+\.\d+\.\d+\.\d+ [IWED] |\b(llama|ggml|gguf|common)_\w+: ")
# Seconds for a whole `rag ask` in a new process: imports, model load and one answer.
SUBPROCESS_TIMEOUT = 120


@pytest.fixture(autouse=True)
def short_answers(isolated_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RAG_LLM_MAX_TOKENS", MAX_TOKENS)
    yield


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def assert_answer_contract(payload: dict[str, object], modes: set[str] = ASK_MODES) -> None:
    assert payload["mode"] in modes
    answer = payload["answer"]
    citations = payload["citations"]
    assert isinstance(answer, str) and isinstance(citations, list)
    numbers = {c["n"] for c in citations}
    assert {int(n) for n in CITATION.findall(answer)} <= numbers, "an [n] in the answer is not a citation"
    assert all({"n", "id", "title", "citekey"} <= set(c) for c in citations)


def said(err: str) -> list[str]:
    """stderr's lines but the notice that rag searches by words, which it gives first without the embedding model
    (a checkout without ../shared): the lines these tests are about come after it."""
    return [line for line in err.splitlines() if line.strip() and "using lexical search only" not in line]


def assert_one_error_line(code: int, out: str, err: str, *expected: str) -> None:
    assert code == 1
    lines = said(err)
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err + out
    for words in expected:
        assert words in lines[0]


# --- with the real model ---------------------------------------------------------------------


@pytest.mark.local_model
def test_server_is_one_per_file_and_needs_its_key(local_model: LocalModel) -> None:
    assert gguf.start(local_model.path) is local_model  # asked again: the same server
    assert local_model.base_url.startswith(f"http://{gguf.LOOPBACK}:")
    request = urllib.request.Request(f"{local_model.base_url}/models")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 401  # other local users and web pages cannot use it
    request.add_header("Authorization", f"Bearer {local_model.api_key}")
    with urllib.request.urlopen(request, timeout=5) as response:
        assert local_model.model in {m["id"] for m in json.load(response)["data"]}


@pytest.mark.local_model
def test_ask_cli_json(local_model: LocalModel, seeded: Path) -> None:
    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(local_model.path), "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert_answer_contract(payload)
    assert payload["question"] == HETEROGENEOUS_QUESTION


@pytest.mark.local_model
def test_ask_in_a_fresh_process_says_one_line(local_model: LocalModel, seeded: Path) -> None:
    """Only RAG_LLM_GGUF set: the model is used, and stderr has our one line, none of llama.cpp's logs."""
    env = {**os.environ, "RAG_LLM_GGUF": str(local_model.path), "RAG_LLM_THREADS": "1"}  # the suite's pinned count
    done = subprocess.run(
        [sys.executable, "-m", "rag", "ask", HETEROGENEOUS_QUESTION, "-k", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=SUBPROCESS_TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    lines = said(done.stderr)
    assert lines and lines[0].startswith("llama.cpp: loading ") and local_model.path.name in lines[0]
    assert not [line for line in lines if LLAMA_CPP_LOG.search(line)], done.stderr


@pytest.mark.local_model
def test_ask_through_context(local_model: LocalModel, seeded: Path) -> None:
    from rag.config import load_settings
    from rag.services import Context, SearchRequest, WritingOptions, answer_json, ask

    ctx = Context(load_settings(llm_gguf=local_model.path))
    options = WritingOptions(use_llm=True, long=False, verify_llm=False, cache=False)
    assert ctx.chat_model(options) is not None  # the GGUF alone counts as a configured model
    answer = ask(ctx, SearchRequest(HETEROGENEOUS_QUESTION, 3, None, None, []), options)
    assert_answer_contract(answer_json(answer))


@pytest.mark.local_model
def test_ask_verify_llm(local_model: LocalModel, seeded: Path) -> None:
    code, out, err = invoke(
        "ask", HETEROGENEOUS_QUESTION, "-k", "3", "--gguf", str(local_model.path), "--verify", "llm", "--json"
    )
    assert code == 0, err
    assert_answer_contract(json.loads(out))


@pytest.mark.local_model
def test_summarize(local_model: LocalModel, seeded: Path) -> None:
    code, out, err = invoke(
        "summarize", "heterogeneous GPUs", "--max", FEW_PAPERS, "--gguf", str(local_model.path), "--json"
    )
    assert code == 0, err
    assert_answer_contract(json.loads(out), WRITING_MODES)


@pytest.mark.local_model
def test_draft_markdown(local_model: LocalModel, seeded: Path) -> None:
    args = ["decentralized training on heterogeneous GPUs", "--max", FEW_PAPERS, "--gguf", str(local_model.path)]
    code, out, err = invoke("draft", *args)
    assert code == 0, err
    assert out.strip()
    code, out, err = invoke("draft", *args, "--json")
    assert code == 0, err
    assert_answer_contract(json.loads(out), WRITING_MODES)


@pytest.mark.local_model
def test_draft_latex(local_model: LocalModel, seeded: Path, tmp_path: Path) -> None:
    bib = tmp_path / "related.bib"
    args = ["decentralized training on heterogeneous GPUs", "--max", FEW_PAPERS, "--gguf", str(local_model.path)]
    code, out, err = invoke("draft", *args, "--format", "latex", "--bib", str(bib), "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert_answer_contract(payload, WRITING_MODES)
    assert not CITATION.search(payload["latex"]), "LaTeX output still has [n] markers"
    assert bool(payload["citations"]) == bib.exists()


@pytest.mark.local_model
def test_doctor_reports_the_gguf(local_model: LocalModel, seeded: Path) -> None:
    code, out, err = invoke("doctor", "--json", env={"RAG_LLM_GGUF": str(local_model.path)})
    assert code == 0, out + err
    (llm,) = [c for c in json.loads(out)["checks"] if c["name"] == "llm"]
    assert llm["status"] == "ok" and "MB" in llm["detail"] and "xllamacpp installed" in llm["detail"]


# --- bad input: no model needed ----------------------------------------------------------------


def test_gguf_that_does_not_exist(seeded: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.gguf"
    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(missing))
    assert_one_error_line(code, out, err, str(missing), "does not exist")


def test_file_that_is_not_a_gguf(seeded: Path, tmp_path: Path) -> None:
    text = tmp_path / "model.gguf"
    text.write_text("not a model, just text\n", encoding="utf-8")
    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(text))
    assert_one_error_line(code, out, err, "is not a GGUF model")
    assert gguf.serving(text) is None


def test_gguf_together_with_a_base_url(seeded: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(gguf.GGUF_MAGIC + bytes(16))
    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(fake), "--base-url", "http://127.0.0.1:9/v1")
    assert_one_error_line(code, out, err, "pick one")
    assert gguf.serving(fake) is None


def test_doctor_checks_the_file_without_starting_it(seeded: Path, tmp_path: Path) -> None:
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(gguf.GGUF_MAGIC + bytes(16))
    code, out, _ = invoke("doctor", "--json", env={"RAG_LLM_GGUF": str(fake)})
    (llm,) = [c for c in json.loads(out)["checks"] if c["name"] == "llm"]
    if gguf.xllamacpp_available():
        assert code == 0 and llm["status"] == "ok"
    else:
        assert code == 1 and llm["status"] == "fail" and "pip install xllamacpp" in llm["fix"]
    assert gguf.serving(fake) is None  # read-only: nothing was loaded

    not_gguf = tmp_path / "notes.txt"
    not_gguf.write_text("hello\n", encoding="utf-8")
    code, out, _ = invoke("doctor", "--json", env={"RAG_LLM_GGUF": str(not_gguf)})
    (llm,) = [c for c in json.loads(out)["checks"] if c["name"] == "llm"]
    assert code == 1 and llm["status"] == "fail" and llm["fix"]


def test_gguf_that_llama_cpp_cannot_load(seeded: Path, tmp_path: Path) -> None:
    if not gguf.xllamacpp_available():
        pytest.skip("xllamacpp not installed: pip install -e '.[local]'")
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(gguf.GGUF_MAGIC + bytes(16))  # the magic, then no valid header
    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(broken))
    assert code == 1 and "Traceback" not in out + err
    loading, error = said(err)  # our notice, then the one error line
    assert loading.startswith("llama.cpp: loading broken.gguf")
    assert error.startswith("error: llama.cpp could not load") and str(broken) in error
    assert gguf.serving(broken) is None


@pytest.mark.local_model
def test_shown_sentences_are_whole_new_and_about_the_question(local_model: LocalModel, seeded: Path) -> None:
    """Whatever SmolLM2 writes, what is shown as its answer is whole sentences, no title, no near-repeat."""
    from rag.check import first_occurrences, fragment_reason, restates_title

    code, out, err = invoke("ask", HETEROGENEOUS_QUESTION, "--gguf", str(local_model.path), "--json", "--no-cache")
    assert code == 0, err
    payload = json.loads(out)
    assert_answer_contract(payload)
    if payload["mode"] == "llm":
        texts = [s["text"] for s in payload["sentences"]]
        titles = [c["title"] for c in payload["citations"] if c["title"]]
        assert all(fragment_reason(t) is None and not restates_title(t, titles) for t in texts)
        assert first_occurrences(texts)[1] == []
    else:
        assert payload["notes"], "a fallback says why"


@pytest.mark.local_model
def test_one_process_reuses_its_server_across_questions(local_model: LocalModel, seeded: Path) -> None:
    """The Python API and the MCP server ask many questions in one process: the model is loaded once."""
    from rag.config import load_settings
    from rag.services import Context, SearchRequest, WritingOptions, ask

    heard: list[str] = []
    for question in (HETEROGENEOUS_QUESTION, "Which works address MoE training at scale?"):
        ctx = Context(load_settings(llm_gguf=local_model.path), notify=heard.append)
        ask(ctx, SearchRequest(question, 3), WritingOptions(cache=False))
    assert not [line for line in heard if line.startswith("llama.cpp: loading")], "the running server was reused"
    assert gguf.serving(local_model.path) is local_model
