"""The index: the papers file (catalog), Chroma (vectors), BM25, hybrid retrieval, the write
lock, server mode, and the per-command session that ties them together.

May import: rag.records, rag.errors, rag.config, rag.text, rag.resources, rag.corpus, rag.embed.
"""
