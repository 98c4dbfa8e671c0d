"""Readers: input files (seed lists, BibTeX, exports, PDF, Markdown/text) -> ``Paper`` records,
with stable ids, citekeys and the merging of papers met twice. Nothing here touches an index.

May import: rag.records, rag.errors, rag.text.
"""
