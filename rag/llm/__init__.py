"""The language model layer: the ``ChatModel`` protocol and its OpenAI-compatible client,
the response cache, prompts (files in prompts/), pricing and the one retry policy.

May import: rag.records, rag.errors, rag.config, rag.resources. Never the index or writing layers.
"""
