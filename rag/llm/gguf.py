"""One GGUF model run in-process by llama.cpp (xllamacpp), behind llama.cpp's own OpenAI-compatible HTTP API.

The rest of rag talks to it exactly as to any local server (``OpenAICompatibleChat``
against the returned base URL), so streaming, retries, the cache and the citation
checks need no second code path. xllamacpp is optional (extra ``local``) and
imported only when a model is started.

Facts measured with xllamacpp 2026.10.11549 (and 0.2.13, the oldest that takes a set of aliases):
``xllamacpp.Server(params)`` blocks until the model is loaded and the HTTP server
listens, raising a bare ``RuntimeError`` when either fails; ``port = 0`` lets the OS
pick a free port (no probe-then-bind race); ``verbosity = -1`` silences llama.cpp
on stderr entirely (its default, 3, prints ~20 lines per run, and its errors are
several lines per failure); dropping the last reference to the ``Server`` stops
the HTTP server and the inference loop and frees the model.
"""

from __future__ import annotations

import atexit
import json
import re
import secrets
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.config import AUTO_THREADS
from rag.errors import InputError, LLMError
from rag.llm.threads import Threads, choose
from rag.records import Notify, silent

# Every GGUF file starts with these four bytes (the format's magic number).
GGUF_MAGIC = b"GGUF"
# Context window of the one slot, prompt and answer together: our largest prompts
# (summaries in parts, drafts) fit, and the KV cache of a small model stays small.
N_CTX = 4096
# One request at a time: with more slots llama.cpp splits N_CTX between them.
SLOTS = 1
LOOPBACK = "127.0.0.1"
# Port 0: the OS picks a free one when llama.cpp binds, so no other process can take it first.
ANY_FREE_PORT = 0
# llama.cpp's log threshold below its error level: nothing reaches stderr; rag reports failures itself.
QUIET_VERBOSITY = -1
# Seconds to wait for /health after the model loaded; it normally answers at once.
HEALTH_TIMEOUT = 30.0
HEALTH_POLL_SECONDS = 0.1
HEALTH_REQUEST_SECONDS = 1.0
# Tokens kept free in the window for the system prompt, instructions and question around the sources.
PROMPT_RESERVE_TOKENS = 700
# rag estimates source tokens as characters / 4; real tokenizers can need more on names and acronyms.
ESTIMATE_MARGIN = 0.8
# The least source budget worth a prompt, whatever RAG_LLM_MAX_TOKENS leaves.
MIN_SOURCE_TOKENS = 256
BYTES_PER_MB = 1024 * 1024
INSTALL_HINT = "pip install xllamacpp (rag's `local` extra: pip install -e '.[local]' in rag's folder)"


@dataclass(frozen=True)
class LocalModel:
    """A running in-process server: talk to it with any OpenAI client at ``base_url``."""

    path: Path
    base_url: str
    model: str
    # A random key the server demands, so other local users and web pages (llama.cpp allows
    # any CORS origin) cannot use the model while rag runs.
    api_key: str
    threads: Threads


# One server per process and per GGUF file; the xllamacpp Server object lives as long as its entry.
_servers: dict[Path, tuple[LocalModel, Any]] = {}
_lock = threading.Lock()


def check_gguf(path: Path) -> Path:
    """The resolved path of a readable GGUF file, or an InputError saying what is wrong with it."""
    resolved = path.expanduser().resolve()
    if not resolved.exists():
        raise InputError(f"GGUF file {path} does not exist; check RAG_LLM_GGUF or --gguf")
    if not resolved.is_file():
        raise InputError(f"{path} is not a file; point RAG_LLM_GGUF or --gguf at a .gguf model file")
    try:
        with resolved.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic != GGUF_MAGIC:
        raise InputError(
            f"{path} is not a GGUF model (it does not start with 'GGUF'); "
            "download a .gguf file, e.g. a Q4_K_M quantization from Hugging Face"
        )
    return resolved


def model_name(path: Path) -> str:
    """The name the server answers to (its alias): the file's name without ``.gguf``."""
    return path.expanduser().resolve().stem


# "SmolLM2-135M-Instruct", "llama3.2:1b", "Qwen2.5-0.5B": a parameter count in a model's name.
_SIZE_IN_NAME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([mb])(?![a-z])", re.IGNORECASE)
_UNITS = {"m": 1e6, "b": 1e9}


def parameters_in_name(name: str) -> float | None:
    """The parameter count a model's name states ("135M", "1.7B"), or None."""
    found = _SIZE_IN_NAME.findall(name)
    return float(found[-1][0]) * _UNITS[found[-1][1].lower()] if found else None


def parameter_count(path: Path) -> float | None:
    """How many parameters a GGUF model has: its metadata's size label or tensor sizes (read with llama.cpp's
    ``gguf`` package, when installed), else what its file name says; None when neither tells."""
    try:
        from gguf import GGUFReader
    except ImportError:
        return parameters_in_name(path.name)
    try:
        reader = GGUFReader(path)
    except Exception:  # a file the reader cannot parse: llama.cpp reports it when it loads the model
        return parameters_in_name(path.name)
    label = reader.fields.get("general.size_label")
    if label is not None and (from_label := parameters_in_name(str(label.contents()))):
        return from_label
    return float(sum(int(tensor.n_elements) for tensor in reader.tensors)) or parameters_in_name(path.name)


def size_mb(path: Path) -> float:
    return path.stat().st_size / BYTES_PER_MB


def xllamacpp_available() -> bool:
    """Whether the optional engine is installed, without importing it (it loads llama.cpp)."""
    import importlib.util

    return importlib.util.find_spec("xllamacpp") is not None


def source_budget(max_tokens: int) -> int:
    """Estimated tokens of sources that fit one prompt in the window, beside an answer of ``max_tokens``."""
    room = N_CTX - max_tokens - PROMPT_RESERVE_TOKENS
    return max(MIN_SOURCE_TOKENS, int(room * ESTIMATE_MARGIN))


def start(
    path: Path, threads: Threads | None = None, notify: Notify = silent, timeout: float = HEALTH_TIMEOUT
) -> LocalModel:
    """Serve ``path`` on loopback (or return the server already serving it) and wait until it answers.

    ``threads``: what the machine offers when not given (rag.llm.threads). ``notify`` hears one line before a
    model is loaded (a large one takes a while).
    """
    resolved = check_gguf(path)  # before importing or starting anything
    with _lock:
        if resolved in _servers:
            return _servers[resolved][0]
        try:
            import xllamacpp
        except ImportError:
            raise LLMError(f"running a GGUF model needs xllamacpp: {INSTALL_HINT}") from None
        threads = threads or choose(AUTO_THREADS)
        notify(f"llama.cpp: loading {resolved.name} ({size_mb(resolved):.0f} MB, {threads.describe()})")
        alias = model_name(resolved)
        key = secrets.token_urlsafe()
        params = xllamacpp.CommonParams()
        params.model.path = str(resolved)
        params.model_alias = {alias}
        if hasattr(params, "hostnames"):  # a list in 2026.10; a single name in 2026.4 and before
            params.hostnames = [LOOPBACK]
        else:
            params.hostname = LOOPBACK
        params.port = ANY_FREE_PORT
        params.n_ctx = N_CTX
        params.n_parallel = SLOTS
        params.cpuparams.n_threads = threads.writing
        params.cpuparams_batch.n_threads = threads.reading
        params.api_keys = [key]
        params.verbosity = QUIET_VERBOSITY
        try:
            server = xllamacpp.Server(params)
        except RuntimeError:
            raise LLMError(
                f"llama.cpp could not load {path} ({size_mb(resolved):.0f} MB): the file may be incomplete, "
                "corrupt or a model architecture this llama.cpp does not know; download it again, "
                "try another GGUF, or upgrade xllamacpp (pip install --upgrade xllamacpp)"
            ) from None
        address = str(server.listening_address).rstrip("/")
        if not _healthy(address, timeout):
            del server  # stops it
            raise LLMError(
                f"llama.cpp loaded {path} but its server did not answer on {address} within {timeout:.0f} s; "
                "check that nothing blocks loopback connections, then run the command again"
            )
        local = LocalModel(resolved, f"{address}/v1", alias, key, threads)
        _servers[resolved] = (local, server)
        return local


def _healthy(address: str, timeout: float) -> bool:
    """Poll /health (public: no key needed) until it says ok or ``timeout`` seconds pass."""
    # No proxy: an HTTP_PROXY without NO_PROXY for loopback would send the probe elsewhere.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout
    while True:
        try:
            with opener.open(f"{address}/health", timeout=HEALTH_REQUEST_SECONDS) as response:
                if response.status == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass  # 503 while loading, or not listening yet
        if time.monotonic() >= deadline:
            return False
        time.sleep(HEALTH_POLL_SECONDS)


def close(path: Path | None = None) -> None:
    """Stop the server of ``path``, or every server this process started."""
    with _lock:
        if path is None:
            targets = list(_servers)
        else:
            resolved = path.expanduser().resolve()
            targets = [resolved] if resolved in _servers else []
        for target in targets:
            _wait_idle(_servers[target][0])
            # Dropping the last reference runs the Server's destructor, which ends its loop and frees the model.
            del _servers[target]


def _wait_idle(local: LocalModel) -> None:
    """Wait until the server has finished what it generates: a stream rag closed early (a looping model) goes on
    to its max_tokens in llama.cpp, and stopping the server meanwhile blocks for 30 s (measured with
    xllamacpp 2026.10); a one-token request waits for the one slot, which is seconds at most."""
    body = json.dumps({"prompt": "", "max_tokens": 1}).encode()
    request = urllib.request.Request(
        f"{local.base_url}/completions",
        data=body,
        headers={"Authorization": f"Bearer {local.api_key}", "Content-Type": "application/json"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=HEALTH_TIMEOUT):
            pass
    except (urllib.error.URLError, OSError):
        pass  # a server that does not answer is stopped as it is


def running() -> bool:
    """Whether this process serves a model (then stopping it at exit waits on llama.cpp: see close)."""
    with _lock:
        return bool(_servers)


def serving(path: Path) -> LocalModel | None:
    """The server this process runs for ``path``, if any."""
    with _lock:
        entry = _servers.get(path.expanduser().resolve())
        return entry[0] if entry else None


atexit.register(close)
