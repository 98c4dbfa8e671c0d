"""The chat model: llama-index's OpenAI-compatible client over the openai SDK.

Streaming, the on-disk response cache and token/cost accounting; retries come
from rag.llm.retry. Works the same against OpenAI and any OpenAI-compatible
server (Ollama, llama.cpp, vLLM, LM Studio).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rag.config import Settings
from rag.errors import LLMError, RagError
from rag.llm.cache import ResponseCache, cache_key
from rag.llm.pricing import cost
from rag.llm.retry import explain, retry_policy
from rag.llm.types import CHARS_PER_TOKEN, OPENAI_BASE_URL, PLACEHOLDER_KEY, Completion, OnToken, Usage


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
