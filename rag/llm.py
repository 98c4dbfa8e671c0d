"""The language model: llama-index's OpenAI-compatible client over the openai SDK.

One visible retry policy (tenacity; the SDK's own retries are off), streaming,
an on-disk response cache, and token/cost accounting. Works the same against
OpenAI and any OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio).
"""

from __future__ import annotations

import contextlib
import email.utils
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from rag.config import Settings
from rag.errors import RagError
from rag.llm_cache import ResponseCache, cache_key

if TYPE_CHECKING:
    from tenacity import RetryCallState, Retrying

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers accept any key; the SDK insists on one.
PLACEHOLDER_KEY = "not-needed"
# USD per million tokens (input, output), list prices; RAG_LLM_PRICES overrides or adds.
OPENAI_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
}
# A rough count when a server reports no usage (no tokenizer download offline).
CHARS_PER_TOKEN = 4
# Backoff when the server gives no Retry-After: exponential from this, with jitter.
RETRY_INITIAL_SECONDS = 1.0
RETRY_MAX_WAIT_SECONDS = 20.0
# A Retry-After longer than this is not waited for: the attempt budget would run out anyway.
MAX_RETRY_AFTER_SECONDS = 60.0


class LLMError(RagError):
    """The model call failed in a way the user must act on."""


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    estimated: bool = False
    cost_usd: float | None = 0.0

    def add(self, other: Usage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.cached_calls += other.cached_calls
        self.estimated = self.estimated or other.estimated
        self.cost_usd = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd


@dataclass
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    cached: bool = False
    attempts: int = 1


OnToken = Callable[[str], None]


class ChatModel(Protocol):
    """What the generation layer needs from a model; tests may substitute their own."""

    name: str

    def complete(self, system: str, user: str, on_token: OnToken | None = None) -> Completion: ...


def price_per_million(settings: Settings) -> tuple[float, float] | None:
    """(input, output) USD per million tokens; local endpoints are free unless priced."""
    model = settings.llm_model or ""
    if model in settings.llm_prices:
        return settings.llm_prices[model]
    if settings.llm_base_url:
        return (0.0, 0.0)
    return OPENAI_PRICES.get(model)


def cost(settings: Settings, prompt_tokens: int, completion_tokens: int) -> float | None:
    prices = price_per_million(settings)
    if prices is None:
        return None
    return (prompt_tokens * prices[0] + completion_tokens * prices[1]) / 1_000_000


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's Retry-After (seconds or HTTP date, or retry-after-ms), if it sent one."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    if (ms := headers.get("retry-after-ms")) is not None:
        with contextlib.suppress(ValueError):
            return max(0.0, float(ms) / 1000)
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None  # unreadable: fall back to our own backoff


def is_retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.RateLimitError):
        return getattr(exc, "code", None) != "insufficient_quota"  # billing: retrying cannot help
    if isinstance(exc, openai.APIConnectionError | openai.APITimeoutError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409) or exc.status_code >= 500
    return False


def _wait(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome else None
    told = retry_after_seconds(exc) if exc else None
    if told is not None:
        return told  # the server knows best; _out_of_budget stops when it is too long
    backoff = RETRY_INITIAL_SECONDS * float(2 ** (state.attempt_number - 1))
    return min(RETRY_MAX_WAIT_SECONDS, backoff + random.uniform(0, RETRY_INITIAL_SECONDS))


def _out_of_budget(attempts: int, budget_seconds: float) -> Callable[[RetryCallState], bool]:
    """Stop after ``attempts``, or when waiting for the next one would overrun the time budget."""

    def stop(state: RetryCallState) -> bool:
        if state.attempt_number >= attempts:
            return True
        next_wait = _wait(state)
        return next_wait > MAX_RETRY_AFTER_SECONDS or (state.seconds_since_start or 0.0) + next_wait > budget_seconds

    return stop


def retry_policy(settings: Settings) -> Retrying:
    """The one retry policy for calls to model endpoints (the SDK's own retries are off)."""
    from tenacity import Retrying, retry_if_exception

    return Retrying(
        retry=retry_if_exception(is_retryable),
        stop=_out_of_budget(settings.llm_attempts, settings.llm_retry_seconds),
        wait=_wait,
        reraise=True,
    )


def explain(
    exc: BaseException, settings: Settings, attempts: int, where: str | None = None, model: str | None = None
) -> LLMError:
    """One line saying what went wrong with the model call and what to do."""
    import openai

    where = where or settings.llm_base_url or OPENAI_BASE_URL
    model = model or settings.llm_model
    tries = f" after {attempts} attempts" if attempts > 1 else ""
    if isinstance(exc, openai.AuthenticationError):
        return LLMError(f"{where} rejected the API key (401); check RAG_LLM_API_KEY (or OPENAI_API_KEY for OpenAI)")
    if isinstance(exc, openai.PermissionDeniedError):
        return LLMError(f"{where} refused access to model '{model}' (403); check the key's permissions")
    if isinstance(exc, openai.NotFoundError):
        return LLMError(f"model '{model}' not found at {where} (404); check RAG_LLM_MODEL / --model and the base URL")
    if isinstance(exc, openai.RateLimitError):
        if getattr(exc, "code", None) == "insufficient_quota":
            return LLMError(f"{where}: quota exhausted (insufficient_quota); check your plan and billing")
        told = retry_after_seconds(exc)
        if told is not None and told > MAX_RETRY_AFTER_SECONDS:
            return LLMError(f"{where} is rate-limiting (429) and asks to wait {told:.0f} s; try again later")
        return LLMError(f"{where} kept rate-limiting (429){tries}; wait a minute or lower -k")
    if isinstance(exc, openai.BadRequestError):
        text = str(exc)
        if "context" in text.lower() and ("length" in text.lower() or "window" in text.lower()):
            return LLMError(f"the prompt is too long for '{model}''s context window; use a smaller -k")
        return LLMError(f"{where} rejected the request (400): {_short(text)}")
    if isinstance(exc, openai.APITimeoutError):
        return LLMError(f"{where} did not answer within {settings.llm_timeout:g} s{tries}; raise RAG_LLM_TIMEOUT")
    if isinstance(exc, openai.APIConnectionError):
        return LLMError(f"cannot reach {where}{tries}; is the server running? (RAG_LLM_BASE_URL)")
    if isinstance(exc, openai.APIStatusError):
        return LLMError(f"{where} failed with HTTP {exc.status_code}{tries}: {_short(str(exc))}")
    return LLMError(f"{where} sent a response rag cannot read ({type(exc).__name__}: {_short(str(exc))})")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class OpenAICompatibleChat:
    """A chat model behind an OpenAI-compatible endpoint, via llama-index's OpenAILike."""

    def __init__(self, settings: Settings, cache: ResponseCache | None) -> None:
        if not settings.llm_model:
            raise LLMError("no model configured; set RAG_LLM_MODEL or pass --model")
        base_url, key = settings.llm_credentials()
        if key is None and base_url is None:
            raise LLMError(
                f"--model {settings.llm_model} needs an API key: set OPENAI_API_KEY (or RAG_LLM_API_KEY), "
                "or point RAG_LLM_BASE_URL at a local OpenAI-compatible server, e.g. http://localhost:11434/v1"
            )
        self.settings = settings
        self.name = settings.llm_model
        self.base_url = base_url or OPENAI_BASE_URL
        self.cache = cache
        from llama_index.llms.openai_like import OpenAILike

        # Usage in streams is an OpenAI extension; other servers may reject or ignore it.
        extra: dict[str, Any] = {} if base_url else {"stream_options": {"include_usage": True}}
        self._llm = OpenAILike(
            model=settings.llm_model,
            api_base=self.base_url,
            api_key=key or PLACEHOLDER_KEY,
            is_chat_model=True,
            context_window=max(settings.llm_context_tokens * 2, 8192),
            max_retries=0,  # tenacity below is the one retry policy
            timeout=settings.llm_timeout,
            temperature=settings.llm_temperature,
            max_tokens=settings.llm_max_tokens,
            additional_kwargs=extra,
        )

    def _key(self, system: str, user: str) -> str:
        return cache_key(
            model=self.name,
            base_url=self.base_url,
            temperature=self.settings.llm_temperature,
            max_tokens=self.settings.llm_max_tokens,
            system=system,
            user=user,
        )

    def complete(self, system: str, user: str, on_token: OnToken | None = None) -> Completion:
        key = self._key(system, user)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            if on_token:
                on_token(hit.text)
            hit.usage = Usage(hit.usage.prompt_tokens, hit.usage.completion_tokens, 1, 1, hit.usage.estimated, 0.0)
            return hit
        completion = self._stream(system, user, on_token)
        if self.cache is not None:
            self.cache.put(key, completion)  # only whole answers reach this line
        return completion

    def _open_stream(self, system: str, user: str) -> tuple[Any, Iterator[Any], int]:
        """Start the stream and read its first chunk, retrying what can be retried."""
        from llama_index.core.llms import ChatMessage

        messages = [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]
        retrying = retry_policy(self.settings)
        attempts = 0
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    stream = self._llm.stream_chat(messages)
                    first = next(stream, None)
                    return first, stream, attempts
        except RagError:
            raise
        except Exception as exc:
            raise explain(exc, self.settings, attempts) from None
        raise LLMError("unreachable: retry loop ended without a result")

    def _stream(self, system: str, user: str, on_token: OnToken | None) -> Completion:
        first, stream, attempts = self._open_stream(system, user)
        parts: list[str] = []
        counts: dict[str, int] = {}
        chunk = first
        try:
            while chunk is not None:
                if chunk.delta:
                    parts.append(chunk.delta)
                    if on_token:
                        on_token(chunk.delta)
                counts = chunk.additional_kwargs or counts
                chunk = next(stream, None)
        except Exception as exc:
            what = "sent a malformed chunk" if isinstance(exc, ValueError) else "was cut"
            raise LLMError(
                f"the answer stream from {self.base_url} {what} after {sum(map(len, parts))} characters "
                f"({type(exc).__name__}); nothing was cached, run the command again"
            ) from None
        text = "".join(parts).strip()
        if not text:
            raise LLMError(f"model '{self.name}' at {self.base_url} returned no text; try again or another model")
        estimated = "prompt_tokens" not in counts
        prompt_tokens = counts.get("prompt_tokens") or (len(system) + len(user)) // CHARS_PER_TOKEN
        completion_tokens = counts.get("completion_tokens") or len(text) // CHARS_PER_TOKEN
        usage = Usage(
            prompt_tokens,
            completion_tokens,
            calls=1,
            estimated=estimated,
            cost_usd=cost(self.settings, prompt_tokens, completion_tokens),
        )
        return Completion(text, usage, cached=False, attempts=attempts)
