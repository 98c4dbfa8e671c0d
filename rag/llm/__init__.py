"""The language model layer: the ``ChatModel`` protocol, the providers that build one from the settings and
probe it for doctor (``providers``: an OpenAI-compatible endpoint, a GGUF file served in-process by llama.cpp),
the response cache around any model (``cached``), prompts (files in prompts/), threads and pricing.

May import: rag.records, rag.errors, rag.config, rag.resources, rag.endpoints (the one retry policy).
Never the index or writing layers, nor rag.embed.
"""

from __future__ import annotations

from rag.faces import face_attribute

# The package's face: what tests and scripts import from it, each name loaded from its module on first use
# (importing the package loads none of them).
_FACE = {
    "EndpointMemory": "rag.llm.capabilities",
    "OpenAICompatibleChat": "rag.llm.chat",
    "LocalModel": "rag.llm.gguf",
    "parameters_in_name": "rag.llm.gguf",
    "start": "rag.llm.gguf",
    "cost": "rag.llm.pricing",
    "PLACEHOLDERS": "rag.llm.prompts",
    "check": "rag.llm.prompts",
    "load_prompt": "rag.llm.prompts",
    "ChatPlaces": "rag.llm.providers",
    "Level": "rag.llm.providers",
    "OpenAICompatible": "rag.llm.providers",
    "PROVIDERS": "rag.llm.providers",
    "ProbeLine": "rag.llm.providers",
    "chat_model": "rag.llm.providers",
    "provider_for": "rag.llm.providers",
    "MAX_WRITING_THREADS": "rag.llm.threads",
    "Threads": "rag.llm.threads",
    "choose": "rag.llm.threads",
    "Activity": "rag.llm.types",
    "ChatModel": "rag.llm.types",
    "Completion": "rag.llm.types",
    "Doing": "rag.llm.types",
    "JsonSchema": "rag.llm.types",
    "OnToken": "rag.llm.types",
    "StreamWatch": "rag.llm.types",
    "Usage": "rag.llm.types",
}
__all__ = sorted(_FACE)


def __getattr__(name: str) -> object:
    return face_attribute(__name__, _FACE, name)
