"""The language model layer: the ``ChatModel`` protocol, the providers that build one from the settings and
probe it for doctor (``providers``: an OpenAI-compatible endpoint, a GGUF file served in-process by llama.cpp),
the response cache around any model (``cached``), prompts (files in prompts/), threads and pricing.

May import: rag.records, rag.errors, rag.config, rag.resources, rag.endpoints (the one retry policy).
Never the index or writing layers, nor rag.embed.
"""
