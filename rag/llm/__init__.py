"""The language model layer: the ``ChatModel`` protocol and its OpenAI-compatible client,
the in-process GGUF server, the response cache, prompts (files in prompts/) and pricing.

May import: rag.records, rag.errors, rag.config, rag.resources, rag.endpoints (the one retry policy).
Never the index or writing layers, nor rag.embed.
"""
