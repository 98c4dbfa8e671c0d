"""Embedding models: the ``Embedder`` protocol, all-MiniLM-L6-v2 on onnxruntime, an
OpenAI-compatible endpoint, and the choice between them made from settings.

May import: rag.records, rag.errors, rag.config, rag.endpoints (the one retry policy for model endpoints).
Never rag.llm: embeddings and chat models are independent.
"""
