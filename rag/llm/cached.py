"""Model answers kept on disk (rag.llm.cache) for any chat model, as rag.embed.cached keeps vectors for any
embedder: the same question asked again costs nothing and loads nothing (a GGUF model is not started)."""

from __future__ import annotations

from rag.config import Settings
from rag.llm.cache import ResponseCache, cache_key
from rag.llm.types import ChatModel, Completion, JsonSchema, OnToken, StreamWatch, Usage


class CachedChat:
    """A ChatModel whose whole answers are kept, keyed by everything that shapes one: the model, where it runs
    (``identity``: an endpoint's URL, a GGUF file's path), the temperature, the token limit, the prompts and the
    schema. Never a key or a credential. An answer the watch cut short is kept as the model gave it."""

    def __init__(self, inner: ChatModel, cache: ResponseCache, identity: str, settings: Settings) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = cache
        self.identity = identity
        self.settings = settings

    @property
    def accepts_schema(self) -> bool:
        return self.inner.accepts_schema

    def key(self, system: str, user: str, schema: JsonSchema | None, max_tokens: int | None) -> str:
        return cache_key(
            model=self.name,
            base_url=self.identity,
            temperature=self.settings.llm_temperature,
            max_tokens=self.settings.llm_token_limit(max_tokens),
            system=system,
            user=user,
            schema=schema,
        )

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
        key = self.key(system, user, schema, max_tokens)
        if (hit := self.cache.get(key)) is not None:
            if on_token:
                on_token(hit.text)
            hit.usage = Usage(hit.usage.prompt_tokens, hit.usage.completion_tokens, 1, 1, hit.usage.estimated, 0.0)
            return hit
        completion = self.inner.complete(
            system, user, on_token, schema=schema, watch=watch, max_tokens=max_tokens, checking=checking
        )
        self.cache.put(key, completion)  # only whole answers reach this line: a failure raised above
        return completion
