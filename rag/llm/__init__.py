"""The language model layer: the ``ChatModel`` protocol, the providers that build one from the settings and
probe it for doctor (``providers``: an OpenAI-compatible endpoint, a GGUF file served in-process by llama.cpp),
the response cache around any model (``cached``), prompts (files in prompts/), threads and pricing.

May import: rag.records, rag.errors, rag.config, rag.resources, rag.endpoints (the one retry policy).
Never the index or writing layers, nor rag.embed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rag.faces import face_attribute, face_of

if TYPE_CHECKING:  # the package's face, one list: what other packages, scripts and tests import from it
    from rag.endpoints import Level as Level
    from rag.endpoints import ProbeLine as ProbeLine
    from rag.llm.cache import ResponseCache as ResponseCache
    from rag.llm.capabilities import EndpointMemory as EndpointMemory
    from rag.llm.chat import OpenAICompatibleChat as OpenAICompatibleChat
    from rag.llm.gguf import LocalModel as LocalModel
    from rag.llm.gguf import parameters_in_name as parameters_in_name
    from rag.llm.gguf import start as start
    from rag.llm.pricing import OPENAI_PRICES as OPENAI_PRICES
    from rag.llm.pricing import cost as cost
    from rag.llm.prompts import PLACEHOLDERS as PLACEHOLDERS
    from rag.llm.prompts import check as check
    from rag.llm.prompts import load_prompt as load_prompt
    from rag.llm.providers import PROVIDERS as PROVIDERS
    from rag.llm.providers import ChatPlaces as ChatPlaces
    from rag.llm.providers import OpenAICompatible as OpenAICompatible
    from rag.llm.providers import chat_model as chat_model
    from rag.llm.providers import provider_for as provider_for
    from rag.llm.threads import MAX_WRITING_THREADS as MAX_WRITING_THREADS
    from rag.llm.threads import Threads as Threads
    from rag.llm.threads import choose as choose
    from rag.llm.types import CHARS_PER_TOKEN as CHARS_PER_TOKEN
    from rag.llm.types import Activity as Activity
    from rag.llm.types import ChatModel as ChatModel
    from rag.llm.types import Completion as Completion
    from rag.llm.types import Doing as Doing
    from rag.llm.types import JsonSchema as JsonSchema
    from rag.llm.types import OnToken as OnToken
    from rag.llm.types import StreamWatch as StreamWatch
    from rag.llm.types import Usage as Usage

# Each name is loaded from its module on first use (importing the package loads none of them).
_FACE = face_of(__file__)
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
