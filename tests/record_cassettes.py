"""Re-record the cassettes in tests/cassettes against a live OpenAI-compatible endpoint.

    RAG_EMBED_MODEL_DIR=../shared/models/all-MiniLM-L6-v2 \\
    UPSTREAM_BASE_URL=https://api.openai.com/v1 UPSTREAM_API_KEY=sk-... UPSTREAM_MODEL=gpt-4o-mini \\
    python tests/record_cassettes.py

rag runs each scenario for real, through a recording proxy on loopback that
forwards to the upstream endpoint and saves the streamed SSE events. Only the
events are saved: no request headers, so no Authorization header, ever.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from rag.config import load_settings
from rag.services.context import Context
from rag.services.requests import DraftRequest, SearchRequest, SummaryRequest, WritingOptions
from rag.services.writing import ask, draft, summarize

CASSETTES = Path(__file__).resolve().parent / "cassettes"
SCENARIOS = {
    "ask_heterogeneous": lambda s, o: ask(Context(s), SearchRequest("which works target heterogeneous GPUs?", 5), o),
    "summarize_moe": lambda s, o: summarize(
        Context(s), SummaryRequest("mixture-of-experts training and inference", (), 8), o
    ),
    "draft_decentralized": lambda s, o: draft(Context(s), DraftRequest("decentralized training over slow networks"), o),
}


def main() -> None:
    upstream, key = os.environ["UPSTREAM_BASE_URL"].rstrip("/"), os.environ["UPSTREAM_API_KEY"]
    recorded: list[list[str]] = []

    class Proxy(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            events: list[str] = []
            headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
            with httpx.stream("POST", f"{upstream}{self.path[3:]}", content=body, headers=headers, timeout=120) as r:
                self.send_response(r.status_code)
                self.send_header("content-type", r.headers.get("content-type", "text/event-stream"))
                self.end_headers()
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        events.append(line[len("data: ") :])
                    self.wfile.write((line + "\n").encode())
                    self.wfile.flush()
            recorded.append(events)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    proxy = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as data_dir:
        settings = load_settings(data_dir=Path(data_dir), llm_model=os.environ["UPSTREAM_MODEL"], llm_base_url=proxy)
        for name, scenario in SCENARIOS.items():
            recorded.clear()
            scenario(settings, WritingOptions(cache=False))
            cassette: dict[str, Any] = {"status": 200, "scenario": name, "events": recorded[-1]}
            (CASSETTES / f"{name}.json").write_text(json.dumps(cassette, indent=1) + "\n", encoding="utf-8")
            print(f"recorded {name}: {len(recorded[-1])} events")
    server.shutdown()


if __name__ == "__main__":
    main()
