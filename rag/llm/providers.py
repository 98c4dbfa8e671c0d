"""Where a chat model runs, in one place: the providers rag knows, how each builds its model from the settings,
and what each tells `rag doctor` (``probe``: plain values, nothing loaded, nothing downloaded).

- ``LocalGGUF``: a GGUF file (RAG_LLM_GGUF) served in-process by llama.cpp, started by the first request;
- ``OpenAICompatible``: OpenAI, or any OpenAI-compatible server (RAG_LLM_BASE_URL: Ollama, llama.cpp, vLLM).

``chat_model`` builds the configured one and wraps it with the response cache (rag.llm.cached), as
rag.embed.choice builds the embedder. A provider that is not OpenAI-compatible is one more class here with
``applies``, ``build`` and ``probe``, its model any ``ChatModel``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from rag.config import Settings, setting_sources, source_of
from rag.endpoints import OPENAI_BASE_URL, Level, ProbeLine, endpoint_lines
from rag.errors import InputError
from rag.llm import gguf as local
from rag.llm.cache import ResponseCache
from rag.llm.cached import CachedChat
from rag.llm.capabilities import EndpointMemory
from rag.llm.chat import Endpoint, OpenAICompatibleChat
from rag.llm.threads import busy_hint, choose
from rag.llm.types import Activity, ChatModel
from rag.records import Notify, silent
from rag.redaction import mask

# Below this many parameters a model rarely writes a sentence its sources back (measured with SmolLM2-135M:
# benchmarks/local_model.py); from about 3B on, answers read as prose.
USABLE_PARAMETERS = 3e9
SMALL_MODEL_NOTE = "expect most answers to fall back to quotes; a 3B+ model writes usable prose"


@dataclass(frozen=True)
class ChatPlaces:
    """Where the chat layer keeps what it learns, in the data dir: answers (None: not kept, as with --no-cache
    or RAG_LLM_CACHE=false) and what each endpoint accepts."""

    answers: Path | None
    capabilities: Path


class ChatProvider(Protocol):
    def applies(self, settings: Settings) -> bool:
        """Whether the settings name this provider's kind of model."""
        ...

    def build(
        self, settings: Settings, memory: EndpointMemory, activity: Activity | None, notify: Notify
    ) -> tuple[ChatModel, str]:
        """The model, and its identity for the cache and the capability memory (what stays the same between
        runs: an endpoint's URL, a GGUF file's path)."""
        ...

    def probe(self, settings: Settings) -> list[ProbeLine]: ...


def model_size_lines(parameters: float | None) -> list[ProbeLine]:
    """A warning when the model is small: its answers will mostly be quotes."""
    if parameters is None or parameters >= USABLE_PARAMETERS:
        return []
    size = f"{parameters / 1e9:.1f}B" if parameters >= 1e9 else f"{parameters / 1e6:.0f}M"
    return [ProbeLine("model size", Level.WARN, f"{size} parameters: {SMALL_MODEL_NOTE}")]


class LocalGGUF:
    """A GGUF file run in this process by llama.cpp (xllamacpp), behind the usual OpenAI-compatible client."""

    def applies(self, settings: Settings) -> bool:
        return settings.llm_gguf is not None

    def build(
        self, settings: Settings, memory: EndpointMemory, activity: Activity | None, notify: Notify
    ) -> tuple[ChatModel, str]:
        """The file is checked now; the model is loaded by the first request (an answer from the cache never
        loads it; a process that asks again reuses the server it started: rag.llm.gguf keeps one per file)."""
        gguf = settings.llm_gguf
        assert gguf is not None  # applies() said so
        if settings.llm_base_url:
            raise InputError(
                f"both a GGUF file ({gguf}) and a base URL ({settings.llm_base_url}) are set: pick one "
                "(unset RAG_LLM_BASE_URL / drop --base-url, or unset RAG_LLM_GGUF / drop --gguf)"
            )
        path = local.check_gguf(gguf)
        threads = choose(settings.llm_threads)

        def connect() -> Endpoint:
            server = local.start(path, threads=threads, notify=notify)
            return server.base_url, server.api_key

        # The file is the model, whatever RAG_LLM_MODEL names; the key is the server's own, never a user's.
        budget = min(settings.llm_context_tokens, local.source_budget(settings.llm_max_tokens))
        served = settings.model_copy(
            update={"llm_model": local.model_name(path), "llm_api_key": None, "llm_context_tokens": budget}
        )
        identity = f"gguf:{gguf.resolve()}"
        return OpenAICompatibleChat(served, memory, identity, connect, activity), identity

    def probe(self, settings: Settings) -> list[ProbeLine]:
        """The GGUF file and the engine that would run it; never loads the model (doctor stays quick)."""
        gguf = settings.llm_gguf
        assert gguf is not None
        if settings.llm_base_url:
            detail = f"both RAG_LLM_GGUF ({gguf}) and RAG_LLM_BASE_URL ({settings.llm_base_url}) are set"
            return [ProbeLine("llm", Level.FAIL, detail, "pick one: unset RAG_LLM_BASE_URL or RAG_LLM_GGUF")]
        try:
            path = local.check_gguf(gguf)
        except InputError as exc:
            return [ProbeLine("llm", Level.FAIL, str(exc), "point RAG_LLM_GGUF at a .gguf model file")]
        detail = f"GGUF {path} ({local.size_mb(path):.0f} MB), run in-process by llama.cpp"
        if not local.xllamacpp_available():
            return [ProbeLine("llm", Level.FAIL, f"{detail}, but xllamacpp is not installed", local.INSTALL_HINT)]
        return [
            ProbeLine("llm", Level.OK, f"{detail}; xllamacpp installed"),
            self._threads(settings),
            *model_size_lines(local.parameter_count(path)),
            ProbeLine("keys", Level.INFO, "no key is sent: the model runs in this process"),
        ]

    @staticmethod
    def _threads(settings: Settings) -> ProbeLine:
        """How many CPU threads the model gets, why, and which setting said so (RAG_LLM_THREADS, or the default)."""
        threads = choose(settings.llm_threads)
        source = source_of("llm_threads", setting_sources({}))
        why = f" ({threads.why})" if threads.why != "set" else ""
        origin = source if source.startswith(".") else f"the {source}"  # the default, the environment, .env (PATH)
        detail = f"{threads.describe()}{why}; RAG_LLM_THREADS={settings.llm_threads} from {origin}"
        return ProbeLine("threads", Level.INFO, detail, busy_hint(threads) or "")


class OpenAICompatible:
    """OpenAI, or a server that speaks its API (RAG_LLM_BASE_URL), via llama-index over the openai SDK."""

    def applies(self, settings: Settings) -> bool:
        return True  # the default: whatever the settings name is reached over OpenAI's API

    def build(
        self, settings: Settings, memory: EndpointMemory, activity: Activity | None, notify: Notify
    ) -> tuple[ChatModel, str]:
        model = OpenAICompatibleChat(settings, memory, activity=activity)
        return model, model.identity

    def probe(self, settings: Settings) -> list[ProbeLine]:
        base_url, key = settings.llm_credentials()
        lines: list[ProbeLine] = []
        if not settings.llm_enabled:
            lines.append(ProbeLine("llm", Level.INFO, "none configured: ask, summarize and draft are extractive"))
        elif key is None and base_url is None:
            detail = f"model '{settings.llm_model}' but no key"
            lines.append(ProbeLine("llm", Level.FAIL, detail, "set OPENAI_API_KEY or RAG_LLM_BASE_URL"))
        else:
            lines += endpoint_lines("llm", base_url or OPENAI_BASE_URL, settings.llm_model, key)
            lines += model_size_lines(local.parameters_in_name(settings.llm_model or ""))
        verb = "is" if settings.llm_enabled else "would be (once a model is configured)"
        sent = f"{mask(key)} {verb} sent to {base_url or OPENAI_BASE_URL}" if key else "no key is sent"
        openai_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        if openai_key and base_url and key != openai_key:
            sent += "; OPENAI_API_KEY is set but never sent to a custom base URL"
        return [*lines, ProbeLine("keys", Level.INFO, sent)]


# Tried in order; the first that applies is the configured one.
PROVIDERS: tuple[ChatProvider, ...] = (LocalGGUF(), OpenAICompatible())


def provider_for(settings: Settings, providers: Sequence[ChatProvider] = PROVIDERS) -> ChatProvider:
    return next(provider for provider in providers if provider.applies(settings))


def chat_model(
    settings: Settings,
    places: ChatPlaces,
    activity: Activity | None = None,
    notify: Notify = silent,
    providers: Sequence[ChatProvider] = PROVIDERS,
) -> ChatModel:
    """The configured model, its answers kept on disk unless ``places`` says not to; ``notify`` hears what a
    provider tells the user (a GGUF model being loaded), ``activity`` what the model is doing."""
    provider = provider_for(settings, providers)
    model, identity = provider.build(settings, EndpointMemory(places.capabilities), activity, notify)
    if places.answers is None:
        return model
    return CachedChat(model, ResponseCache(places.answers), identity, settings)
