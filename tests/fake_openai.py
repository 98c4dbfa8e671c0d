"""A loopback OpenAI-compatible server that plays back scripted or recorded responses.

Requests reach it through the real openai SDK (and llama-index over it), so the
whole HTTP path is exercised: streaming (SSE), status codes, Retry-After,
connections cut mid-stream. It keeps each request's JSON body for assertions
and whether a key was sent, never the key itself.
"""

from __future__ import annotations

import json
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

CASSETTES = Path(__file__).resolve().parent / "cassettes"


@dataclass
class Reply:
    """One scripted response."""

    status: int = 200
    text: str | None = None  # streamed as chunks when set
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # a plain JSON body (errors, non-streamed)
    events: list[str] | None = None  # raw SSE data payloads (recorded cassettes)
    cut_after: int | None = None  # drop the connection after this many chunks
    usage: tuple[int, int] | None = (321, 45)
    raw: bytes | None = None  # exact bytes, e.g. malformed JSON
    delay: float = 0.0  # seconds before answering (timeouts)


def text_chunks(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def word_vector(text: str, size: int = 64) -> list[float]:
    """A fake embedding that keeps meaning: texts sharing words get closer vectors."""
    vector = [0.0] * size
    for word in text.lower().split():
        vector[zlib.crc32(word.strip(".,;:?!()").encode()) % size] += 1.0
    return vector


def chunk_event(model: str, delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


def load_cassette(name: str) -> list[Reply]:
    """Every recorded model call of a scenario, in order (see tests/record_cassettes.py)."""
    data = json.loads((CASSETTES / f"{name}.json").read_text(encoding="utf-8"))
    return [Reply(status=call["status"], events=call["events"]) for call in data["calls"]]


class FakeOpenAI:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[dict[str, Any]] = []
        self.bearers: list[str] = []
        self.embedding_requests: list[dict[str, Any]] = []  # in memory only, for the never-leak-the-key tests
        self.default: Reply | None = None
        self.hung_up = 0  # streams the client closed before their end
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        # A client that gave up (timeout) breaks the pipe: expected here, not worth a traceback.
        self._server.handle_error = lambda request, address: None  # type: ignore[method-assign]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def play(self, *replies: Reply) -> FakeOpenAI:
        self.replies.extend(replies)
        return self

    def _next(self) -> Reply:
        if self.replies:
            return self.replies.pop(0)
        if self.default is not None:
            return self.default
        return Reply(status=500, body={"error": {"message": "no scripted reply left", "type": "server_error"}})

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def do_GET(self) -> None:  # /v1/models
                fake.bearers.append(self.headers.get("authorization", ""))
                self._json(200, {"object": "list", "data": [{"id": "test-model", "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                fake.bearers.append(self.headers.get("authorization", ""))
                if self.path.endswith("/embeddings"):
                    fake.embedding_requests.append(payload)
                    texts = payload["input"] if isinstance(payload["input"], list) else [payload["input"]]
                    data = [
                        {"object": "embedding", "index": i, "embedding": word_vector(t)} for i, t in enumerate(texts)
                    ]
                    self._json(200, {"object": "list", "data": data, "model": payload.get("model")})
                    return
                fake.requests.append(payload)
                reply = fake._next()
                time.sleep(reply.delay)
                if reply.raw is not None:
                    self._send(reply.status, reply.raw, "application/json", reply.headers)
                elif reply.body is not None or reply.status != 200:
                    self._json(reply.status, reply.body or {"error": {"message": "error"}}, reply.headers)
                else:
                    self._stream(reply, payload.get("model", "test-model"))

            def _json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
                self._send(status, json.dumps(body).encode(), "application/json", headers or {})

            def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _events(self, reply: Reply, model: str) -> Iterator[str]:
                if reply.events is not None:
                    yield from reply.events
                    return
                yield chunk_event(model, {"role": "assistant", "content": ""})
                for piece in text_chunks(reply.text or ""):
                    yield chunk_event(model, {"content": piece})
                yield chunk_event(model, {}, "stop")
                if reply.usage:
                    prompt, completion = reply.usage
                    usage = {
                        "prompt_tokens": prompt,
                        "completion_tokens": completion,
                        "total_tokens": prompt + completion,
                    }
                    yield json.dumps({"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                                      "model": model, "choices": [], "usage": usage})  # fmt: skip
                yield "[DONE]"

            def _stream(self, reply: Reply, model: str) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                try:
                    for count, event in enumerate(self._events(reply, model)):
                        if reply.cut_after is not None and count >= reply.cut_after:
                            self.wfile.flush()
                            self.connection.shutdown(2)  # mid-stream: no terminating chunk
                            return
                        data = f"data: {event}\n\n".encode()
                        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        time.sleep(0.001)
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    fake.hung_up += 1

        return Handler
