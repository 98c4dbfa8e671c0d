"""OpenAI-compatible endpoints, for chat (rag.llm) and embeddings (rag.embed) alike: the one retry
policy for calls to them, and what a failure means.

The openai SDK's own retries are off everywhere (``max_retries=0``), so this is
the only policy a user sees: tenacity, honouring ``Retry-After``, never retrying
a billing error.
"""

from __future__ import annotations

import contextlib
import email.utils
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from rag.config import Settings
from rag.errors import LLMError

if TYPE_CHECKING:
    from tenacity import RetryCallState, Retrying

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers accept any key; the SDK insists on one.
PLACEHOLDER_KEY = "not-needed"
# Backoff when the server gives no Retry-After: exponential from RAG_LLM_BACKOFF_SECONDS, with jitter.
RETRY_MAX_WAIT_SECONDS = 20.0
# A Retry-After longer than this is not waited for: the attempt budget would run out anyway.
MAX_RETRY_AFTER_SECONDS = 60.0


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


def _waiter(initial_seconds: float) -> Callable[[RetryCallState], float]:
    """Seconds before the next attempt: the server's Retry-After, else exponential backoff with jitter."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        told = retry_after_seconds(exc) if exc else None
        if told is not None:
            return told  # the server knows best; the stop rule gives up when it is too long
        backoff = initial_seconds * float(2 ** (state.attempt_number - 1))
        return min(RETRY_MAX_WAIT_SECONDS, backoff + random.uniform(0, initial_seconds))

    return wait


def _out_of_budget(
    attempts: int, budget_seconds: float, wait: Callable[[RetryCallState], float]
) -> Callable[[RetryCallState], bool]:
    """Stop after ``attempts``, or when waiting for the next one would overrun the time budget."""

    def stop(state: RetryCallState) -> bool:
        if state.attempt_number >= attempts:
            return True
        next_wait = wait(state)
        return next_wait > MAX_RETRY_AFTER_SECONDS or (state.seconds_since_start or 0.0) + next_wait > budget_seconds

    return stop


def retry_policy(settings: Settings) -> Retrying:
    """The one retry policy for calls to model endpoints (the SDK's own retries are off)."""
    from tenacity import Retrying, retry_if_exception

    wait = _waiter(settings.llm_backoff_seconds)
    return Retrying(
        retry=retry_if_exception(is_retryable),
        stop=_out_of_budget(settings.llm_attempts, settings.llm_retry_seconds, wait),
        wait=wait,
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


# Seconds to wait for an endpoint to answer a health check (`rag doctor`).
PROBE_TIMEOUT = 5.0
# Endpoint model lists can be long; show this many.
SHOWN_MODELS = 8


class Level(StrEnum):
    OK = "ok"
    INFO = "info"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class ProbeLine:
    """One finding of a health check, as doctor shows it: what (``name``), how it stands, why, what to do."""

    name: str
    level: Level
    detail: str
    hint: str = ""


def endpoint_lines(name: str, base_url: str, model: str | None, key: str | None) -> list[ProbeLine]:
    """An OpenAI-compatible endpoint (chat or embeddings) asked once for its models, without retries: a quick,
    read-only question."""
    import openai

    client = openai.OpenAI(base_url=base_url, api_key=key or PLACEHOLDER_KEY, max_retries=0, timeout=PROBE_TIMEOUT)
    try:
        models = [m.id for m in client.models.list()]
    except openai.AuthenticationError:
        return [ProbeLine(name, Level.FAIL, f"{base_url} rejected the key (401)", "check the API key setting")]
    except Exception as exc:  # any way of not answering (refused, timed out, not an API) is one finding
        detail = f"{base_url} does not answer ({type(exc).__name__})"
        return [ProbeLine(name, Level.FAIL, detail, "start the server or fix the URL")]
    listed = ", ".join(models[:SHOWN_MODELS]) + (" …" if len(models) > SHOWN_MODELS else "")
    if model and models and model not in models:
        detail = f"{base_url} answers but has no '{model}' (has: {listed})"
        return [ProbeLine(name, Level.FAIL, detail, "pick one it has")]
    return [ProbeLine(name, Level.OK, f"{base_url} answers; model '{model}'; serves: {listed or 'unlisted'}")]
