"""What the writing layer needs from a model: the ``ChatModel`` protocol, completions and usage.

Imports nothing of rag: cheap, so result types can be rendered without loading a client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

# A rough count when a server reports no usage (no tokenizer download offline).
CHARS_PER_TOKEN = 4


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
    # The text is JSON following the schema that was asked for (structured output).
    structured: bool = False
    # Why rag cut the stream short (a model repeating itself), or None when the model finished.
    stopped: str | None = None


OnToken = Callable[[str], None]
JsonSchema = dict[str, Any]
# Looks at the text streamed so far; returns why to stop reading (e.g. "repetition") or None to go on.
StreamWatch = Callable[[str], str | None]


class Doing(StrEnum):
    """What a model is busy with during a request, for a progress line (a local model can take a minute)."""

    READING = "reading the prompt"  # until its first token: the whole prompt is read first
    WRITING = "writing"
    CHECKING = "checking"  # a verdict on a claim (--verify llm): short to write, the prompt is most of it


# Hears what the model does: ``(doing, tokens written so far)`` as a request goes on, ``(None, tokens)`` when it
# is over (answered, cut short or failed). Called on the thread that reads the stream, once per token.
Activity = Callable[[Doing | None, int], None]


class ChatModel(Protocol):
    """What the generation layer needs from a model; tests may substitute their own."""

    name: str

    @property
    def accepts_schema(self) -> bool:
        """Whether to ask for structured output (a JSON schema in ``response_format``) at all."""
        ...

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
        """The model's reply; with ``schema``, JSON that follows it (``SchemaRefusedError`` when the
        endpoint does not take schemas). ``watch`` may stop the stream early; ``max_tokens`` caps the answer
        below the configured limit (a short answer needs fewer tokens); ``checking``: the request asks for a
        verdict on a claim (reported as Doing.CHECKING)."""
        ...
