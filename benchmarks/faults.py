"""Every injected model fault and what a user sees: attempts, seconds, exit code, message.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/faults.py

Same scenarios as tests/test_faults.py, with the default backoff (the tests
shorten it), RAG_LLM_ATTEMPTS=3 and RAG_LLM_TIMEOUT=2 so the table finishes
in about a minute. Seconds are the whole `rag ask` in-process, retrieval included.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fake_openai import FakeOpenAI, Reply
from test_faults import ATTEMPTS, FAULTS
from typer.testing import CliRunner

from rag.cli import app

QUESTION = "which works target heterogeneous GPUs?"
TIMEOUT_SECONDS = "2"


def main() -> None:
    runner = CliRunner()
    with tempfile.TemporaryDirectory() as data_dir:
        env = {
            "RAG_DATA_DIR": data_dir,
            "RAG_LLM_ATTEMPTS": str(ATTEMPTS),
            "RAG_LLM_TIMEOUT": TIMEOUT_SECONDS,
            "RAG_LLM_CACHE": "false",
        }
        runner.invoke(app, ["papers"], env=env)  # index once, outside the timings
        print("| fault | requests | seconds | exit | message |")
        print("|---|---|---|---|---|")
        scenarios: dict[str, list[Reply]] = {name: replies for name, (replies, *_rest) in FAULTS.items()}
        scenarios["timeout every time"] = [Reply(delay=2.5, text="late")] * ATTEMPTS
        for name, replies in [*scenarios.items(), ("connection refused", [])]:
            with FakeOpenAI() as fake:
                fake.play(*replies)
                url = "http://127.0.0.1:9/v1" if name == "connection refused" else fake.url
                started = time.perf_counter()
                result = runner.invoke(app, ["ask", QUESTION, "--model", "m", "--base-url", url], env=env)
                seconds = time.perf_counter() - started
                errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
                message = errors[0].replace("|", "/") if errors else "answer with checked citations"
                message = message.replace(fake.url, "URL")
                attempts = len(fake.requests) if name != "connection refused" else ATTEMPTS
                print(f"| {name} | {attempts} | {seconds:.1f} | {result.exit_code} | {message} |")


if __name__ == "__main__":
    main()
