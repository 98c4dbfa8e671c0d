"""Re-record the cassettes in tests/cassettes from a real model (every model call of each scenario).

From the real local model of the test suite (SmolLM2-135M run by llama.cpp in-process):

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 UPSTREAM_GGUF=/path/SmolLM2-135M-Instruct.Q4_1.gguf \\
    python tests/record_cassettes.py

or from any OpenAI-compatible endpoint:

    UPSTREAM_BASE_URL=https://api.openai.com/v1 UPSTREAM_API_KEY=sk-... UPSTREAM_MODEL=gpt-4o-mini \\
    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 python tests/record_cassettes.py

rag runs each scenario for real, through a recording proxy on loopback that
forwards to the upstream endpoint and saves the streamed SSE events (and the
status of each call). Only the events are saved: no request headers, so no
Authorization header, ever. The replay tests then carry a real model's output,
flaws included.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from rag.check import Answer
from rag.config import Settings, load_settings
from rag.services import Context, DraftRequest, SearchRequest, SummaryRequest, WritingOptions, ask, draft, summarize

CASSETTES = Path(__file__).resolve().parent / "cassettes"
RECORDING_MAX_TOKENS = 300  # the real model loops until the limit; a shorter limit keeps cassettes small
Scenario = Callable[[Settings, WritingOptions], Answer]
SCENARIOS: dict[str, Scenario] = {
    "ask_heterogeneous": lambda s, o: ask(Context(s), SearchRequest("which works target heterogeneous GPUs?", 5), o),
    "summarize_moe": lambda s, o: summarize(
        Context(s), SummaryRequest("mixture-of-experts training and inference", (), 8), o
    ),
    "draft_decentralized": lambda s, o: draft(Context(s), DraftRequest("decentralized training over slow networks"), o),
}


def _upstream() -> tuple[str, str, str]:
    """(base URL, key, model) of the endpoint to record from."""
    if gguf := os.environ.get("UPSTREAM_GGUF"):
        from rag.llm import start

        local = start(Path(gguf))
        return local.base_url, local.api_key, local.model
    return os.environ["UPSTREAM_BASE_URL"].rstrip("/"), os.environ["UPSTREAM_API_KEY"], os.environ["UPSTREAM_MODEL"]


def main() -> None:
    upstream, key, model = _upstream()
    calls: list[dict[str, Any]] = []

    class Proxy(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            events: list[str] = []
            headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
            url = f"{upstream}{self.path[3:]}"
            structured = "response_format" in json.loads(body or b"{}")
            with httpx.stream("POST", url, content=body, headers=headers, timeout=300, trust_env=False) as r:
                call = {"status": r.status_code, "structured": structured, "events": events}
                calls.append(call)
                self.send_response(r.status_code)
                self.send_header("content-type", r.headers.get("content-type", "text/event-stream"))
                self.end_headers()
                try:
                    for line in r.iter_lines():
                        if line.startswith("data: "):
                            events.append(line[len("data: ") :])
                        self.wfile.write((line + "\n").encode())
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    call["cut_by_client"] = True  # rag stopped reading (a looping model): replayed the same way

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings(
            data_dir=Path(data_dir), llm_model=model, llm_base_url=proxy, llm_max_tokens=RECORDING_MAX_TOKENS
        )
        for name, scenario in SCENARIOS.items():
            calls.clear()
            answer = scenario(settings, WritingOptions(cache=False))
            cassette = {"scenario": name, "model": model, "mode": answer.mode.value, "calls": list(calls)}
            (CASSETTES / f"{name}.json").write_text(json.dumps(cassette, indent=1) + "\n", encoding="utf-8")
            print(f"recorded {name}: {len(calls)} calls, shown as {answer.mode.value}")
    server.shutdown()


if __name__ == "__main__":
    main()
