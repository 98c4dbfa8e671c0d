"""Cited text: extractive answers, model-written answers, summaries and drafts, the citation
protocol, support checks and outlines. Writing them out as LaTeX, Pandoc or BibTeX is rag.formats.

May import: rag.records, rag.errors, rag.config, rag.text, rag.corpus.identity, rag.llm, rag.embed.
Never the index: it is given hits and papers.
"""
