"""The chat model: llama-index's OpenAI-compatible client over the openai SDK.

Streaming and token/cost accounting; retries come from rag.endpoints, the on-disk
response cache from rag.llm.cached (around any chat model). Works the same against OpenAI and any OpenAI-compatible
server (Ollama, llama.cpp, vLLM, LM Studio).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator
from typing import Any

from rag.config import CitationProtocol, Settings
from rag.endpoints import OPENAI_BASE_URL, PLACEHOLDER_KEY, explain, retry_policy
from rag.errors import LLMError, RagError, SchemaRefusedError
from rag.llm.capabilities import EndpointMemory
from rag.llm.pricing import cost
from rag.llm.types import (
    CHARS_PER_TOKEN,
    Activity,
    Completion,
    Doing,
    JsonSchema,
    OnToken,
    StreamWatch,
    Usage,
)

# A 400/422 whose message names one of these is the server refusing structured output, not a bad prompt.
_SCHEMA_REFUSAL = re.compile(r"response_format|json_schema|schema|grammar|structured|guided", re.IGNORECASE)


# Where a model is reached, asked for when the first request is sent: (base URL or None for OpenAI, key or None).
Endpoint = tuple[str | None, str | None]


class OpenAICompatibleChat:
    """A chat model behind an OpenAI-compatible endpoint, via llama-index's OpenAILike."""

    def __init__(
        self,
        settings: Settings,
        memory: EndpointMemory | None = None,
        identity: str | None = None,
        connect: Callable[[], Endpoint] | None = None,
        activity: Activity | None = None,
    ) -> None:
        """``identity`` names the endpoint in the cache and the capability memory when its URL does not
        (an in-process llama.cpp gets a new port every run; its GGUF file is what stays the same).
        ``connect`` starts the endpoint when the first request needs it (a GGUF model is loaded then, so an
        answer found in the cache never loads it); without it, the settings name the endpoint.
        ``activity`` hears what the model is doing during each request sent (an answer from the cache sends none)."""
        if not settings.llm_model:
            raise LLMError("no model configured; set RAG_LLM_MODEL or pass --model")
        if connect is None:
            base_url, key = settings.llm_credentials()
            if key is None and base_url is None:
                raise LLMError(
                    f"--model {settings.llm_model} needs an API key: set OPENAI_API_KEY (or RAG_LLM_API_KEY), "
                    "or point RAG_LLM_BASE_URL at a local OpenAI-compatible server, e.g. http://localhost:11434/v1"
                )
            endpoint: Endpoint = (base_url, key)

            def connect() -> Endpoint:
                return endpoint

            self.base_url = base_url or OPENAI_BASE_URL
        else:
            self.base_url = identity or "the local model"  # until it is started
        self.settings = settings
        self.name = settings.llm_model
        self.identity = identity or self.base_url
        self.memory = memory
        self._connect: Callable[[], Endpoint] = connect
        self._activity = activity
        self._endpoint: Endpoint | None = None
        self._client: Any = None
        self._http: Any = None

    def _llm(self, max_tokens: int) -> Any:
        """The llama-index client (built, and the endpoint started, on the first request), set to ``max_tokens``."""
        if self._client is None:
            if self._endpoint is None:
                self._endpoint = self._connect()
            base_url, key = self._endpoint
            self.base_url = base_url or OPENAI_BASE_URL
            import httpx
            from llama_index.llms.openai_like import OpenAILike

            # rag's own connection pool, so that a stream cut short can be hung up (see _hang_up).
            self._http = httpx.Client(timeout=self.settings.llm_timeout, follow_redirects=True)

            # Usage in streams is an OpenAI extension; other servers may reject or ignore it.
            extra: dict[str, Any] = {} if base_url else {"stream_options": {"include_usage": True}}
            self._client = OpenAILike(
                model=self.name,
                api_base=self.base_url,
                api_key=key or PLACEHOLDER_KEY,
                is_chat_model=True,
                context_window=max(self.settings.llm_context_tokens * 2, 8192),
                max_retries=0,  # tenacity below is the one retry policy
                timeout=self.settings.llm_timeout,
                temperature=self.settings.llm_temperature,
                max_tokens=self.settings.llm_max_tokens,
                additional_kwargs=extra,
                http_client=self._http,
            )
        self._client.max_tokens = max_tokens  # one request at a time per client: a Context builds one per command
        return self._client

    @property
    def accepts_schema(self) -> bool:
        protocol = self.settings.llm_citations
        if protocol is CitationProtocol.AUTO:
            return self.memory is None or self.memory.accepts_schema(self.identity, self.name)
        return protocol is CitationProtocol.JSON

    def complete(
        self,
        system: str,
        user: str,
        on_token: OnToken | None = None,
        *,
        schema: JsonSchema | None = None,
        watch: StreamWatch | None = None,
        max_tokens: int | None = None,
        checking: bool = False,
    ) -> Completion:
        limit = self.settings.llm_token_limit(max_tokens)
        try:
            return self._stream(system, user, on_token, schema, watch, limit, checking)
        finally:
            self._report(None)  # answered, cut short or failed: the model is done with this request

    def _refused(self, exc: Exception, schema: JsonSchema | None) -> SchemaRefusedError | None:
        """The error as a refusal of structured output, remembered for this endpoint; None if it is another error."""
        import openai

        if schema is None or not isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError):
            return None
        if not _SCHEMA_REFUSAL.search(str(exc)):
            return None
        if self.settings.llm_citations is CitationProtocol.JSON:
            raise LLMError(
                f"{self.base_url} does not take a JSON schema in response_format ({type(exc).__name__}); "
                "set RAG_LLM_CITATIONS=text (or auto)"
            ) from None
        if self.memory is not None:
            self.memory.refused_schema(self.identity, self.name)
        return SchemaRefusedError(f"{self.base_url} refused structured output; asking for [n] citations in text")

    def _report(self, doing: Doing | None, tokens: int = 0) -> None:
        if self._activity is not None:
            self._activity(doing, tokens)

    def _open_stream(
        self, system: str, user: str, schema: JsonSchema | None, max_tokens: int, doing: Doing
    ) -> tuple[Any, Generator[Any, None, None], int]:
        """Start the stream and read its first chunk, retrying what can be retried."""
        from llama_index.core.llms import ChatMessage

        messages = [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]
        extra: dict[str, Any] = {}
        if schema is not None:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "cited_answer", "strict": True, "schema": schema},
            }
        llm = self._llm(max_tokens)  # a GGUF model is loaded here, and says so, before the model is busy
        self._report(doing)
        retrying = retry_policy(self.settings)
        attempts = 0
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    stream = llm.stream_chat(messages, **extra)
                    first = next(stream, None)
                    return first, stream, attempts
        except RagError:
            raise
        except Exception as exc:
            refused = self._refused(exc, schema)
            raise (refused or explain(exc, self.settings, attempts)) from None
        raise LLMError("unreachable: retry loop ended without a result")

    def _hang_up(self) -> None:
        """Close the connection of a stream rag cut short, so the server stops generating: closing llama-index's
        stream leaves the openai SDK's response open until Python's garbage collector breaks its reference cycle,
        and meanwhile llama.cpp writes on to max_tokens (measured: 5-7 s more with SmolLM2, holding its one slot
        and a CPU). The next request builds a new client on the same endpoint."""
        if self._http is not None:
            self._http.close()
        self._client = self._http = None

    def _next_chunk(self, stream: Generator[Any, None, None], parts: list[str]) -> Any:
        """The next chunk from the server, or None at the end; a broken stream is one explained LLMError."""
        try:
            return next(stream, None)
        except Exception as exc:  # the SDK and httpx raise many kinds for a connection lost or a bad chunk
            what = "sent a malformed chunk" if isinstance(exc, ValueError) else "was cut"
            raise LLMError(
                f"the answer stream from {self.base_url} {what} after {sum(map(len, parts))} characters "
                f"({type(exc).__name__}); nothing was cached, run the command again"
            ) from None

    def _stream(
        self,
        system: str,
        user: str,
        on_token: OnToken | None,
        schema: JsonSchema | None,
        watch: StreamWatch | None,
        max_tokens: int,
        checking: bool,
    ) -> Completion:
        doing = Doing.CHECKING if checking else Doing.READING
        first, stream, attempts = self._open_stream(system, user, schema, max_tokens, doing)
        doing = Doing.CHECKING if checking else Doing.WRITING
        parts: list[str] = []
        counts: dict[str, int] = {}
        stopped: str | None = None
        chunk = first
        while chunk is not None:
            if chunk.delta:
                parts.append(chunk.delta)
                self._report(doing, len(parts))  # a server streams one token per chunk (llama.cpp, OpenAI)
                if on_token:
                    on_token(chunk.delta)  # our own code: its failures are bugs, not a cut stream
                if watch is not None and (stopped := watch("".join(parts))):
                    stream.close()
                    self._hang_up()
                    break
            counts = chunk.additional_kwargs or counts
            chunk = self._next_chunk(stream, parts)
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
        return Completion(text, usage, attempts=attempts, structured=schema is not None, stopped=stopped)
