"""LLM answers: prompt size and cost per `ask`, citation support, time to first token.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python benchmarks/llm_answers.py

Runs against the loopback OpenAI-compatible server of the test suite, replaying
the recorded answers in tests/cassettes, so the model's own time is excluded:
time to first token is rag's overhead (retrieval, prompt, HTTP, SDK).
Prompt tokens are estimated (characters / 4): the GPT tokenizer's files are
not available offline.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fake_openai import FakeOpenAI, load_cassette

from rag.config import DEFAULT_OPENAI_MODEL, DEFAULT_TOP_K, load_settings
from rag.llm.pricing import OPENAI_PRICES
from rag.llm.types import CHARS_PER_TOKEN
from rag.services.context import Context
from rag.services.drafting import draft
from rag.services.requests import DraftRequest, SearchRequest, SummaryRequest, WritingOptions
from rag.services.writing import ask, summarize

QUESTIONS = [
    "which works target heterogeneous GPUs?",
    "Which works address MoE training at scale?",
    "What work exists on tensor parallelism?",
    "Which papers study communication-efficient training?",
    "Which works study training with long sequences?",
]
RUNS = 10
NO_CACHE = WritingOptions(cache=False)


def main() -> None:
    with tempfile.TemporaryDirectory() as data_dir, FakeOpenAI() as fake:
        fake.default = load_cassette("ask_heterogeneous")[0]
        settings = load_settings(data_dir=Path(data_dir), llm_model="test-model", llm_base_url=fake.url)
        ask(Context(settings), SearchRequest(QUESTIONS[0], DEFAULT_TOP_K), NO_CACHE)  # index, imports, model load

        prompt_tokens = []
        for question in QUESTIONS:
            before = len(fake.requests)
            ask(Context(settings), SearchRequest(question, DEFAULT_TOP_K), NO_CACHE)
            for request in fake.requests[before:]:
                chars = sum(len(m["content"]) for m in request["messages"])
                prompt_tokens.append(chars / CHARS_PER_TOKEN)
        mean_prompt = statistics.mean(prompt_tokens)
        price_in, price_out = OPENAI_PRICES[DEFAULT_OPENAI_MODEL]
        answer_tokens = 150
        cost = (mean_prompt * price_in + answer_tokens * price_out) / 1_000_000
        largest = max(prompt_tokens)
        print(f"prompt tokens per ask at k={DEFAULT_TOP_K} (estimated): mean {mean_prompt:.0f}, max {largest:.0f}")
        print(f"cost per ask with {DEFAULT_OPENAI_MODEL} ({answer_tokens}-token answer): ${cost:.5f}")

        first_token = []
        for _ in range(RUNS):
            started = time.perf_counter()
            seen: list[float] = []
            ask(
                settings,
                SearchRequest(QUESTIONS[0], DEFAULT_TOP_K),
                NO_CACHE,
                on_token=lambda _t, s=seen: s.append(time.perf_counter()) if not s else None,
            )
            first_token.append((seen[0] - started) * 1000)
        print(
            f"time to first streamed token (loopback, model excluded): "
            f"median {statistics.median(first_token):.0f} ms, max {max(first_token):.0f} ms over {RUNS} asks"
        )

        labels: list[str] = []
        fake.default = None
        fake.play(
            *load_cassette("ask_heterogeneous"), *load_cassette("summarize_moe"), *load_cassette("draft_decentralized")
        )
        answers = [
            ask(Context(settings), SearchRequest(QUESTIONS[0], DEFAULT_TOP_K), NO_CACHE),
            summarize(Context(settings), SummaryRequest("mixture-of-experts training and inference", (), 8), NO_CACHE),
            draft(Context(settings), DraftRequest("decentralized training over slow networks"), NO_CACHE),
        ]
        for answer in answers:
            labels += [str(s.support) for s in answer.sentences if s.citations]
        counts = {label: labels.count(label) for label in ("supported", "weak", "unsupported")}
        share = counts["supported"] / len(labels)
        print(f"citation check on the recorded answers: {len(labels)} cited sentences, {counts}, supported {share:.0%}")


if __name__ == "__main__":
    main()
